"""The program's own assertions about sizes: one that fails for the values reaching it is NC204."""

import dataclasses
import os

import jax.numpy as jnp


@dataclasses.dataclass
class Cfg:
    D: int = 512
    H: int = 8


def attention(x, cfg):
    assert cfg.D % cfg.H == 0, f"D {cfg.D} not divisible by H {cfg.H}"  # expect: NC204
    return x.reshape(x.shape[0], cfg.H, cfg.D // cfg.H)


def pick(mode):
    if mode == "a":
        return 1
    assert False, "unreachable"  # a marker, not a check of sizes


def checked_width(x, width, strict):
    if strict:
        assert x.shape[-1] == width  # under a condition the analysis cannot decide: silent
    return x


def variadic(*args):
    assert len(args) == 2  # a call may pass anything: not a size the analysis knows
    return args


def agrees(x):
    assert x.shape[-1] == 512
    return x


if __name__ == "__main__":
    attention(jnp.ones((2, 512)), Cfg(H=8))
    attention(jnp.ones((2, 512)), Cfg(H=9))
    checked_width(jnp.ones((2, 3)), 5, os.environ.get("STRICT_WIDTHS"))
    agrees(jnp.ones((2, 512)))
