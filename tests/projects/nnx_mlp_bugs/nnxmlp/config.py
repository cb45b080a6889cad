"""Sizes, as a plain dict of literals."""

CONFIG = {
    "d_in": 12,
    "d_model": 24,
    "d_hidden": 48,
    "n_out": 4,
    "batch": 8,
}
