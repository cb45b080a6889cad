"""The engine: type algebra and op rules, shared by every front end.

Nothing under this package imports libcst, mypy or jax.
"""
