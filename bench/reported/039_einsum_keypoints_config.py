# Reported: https://github.com/dattalab/keypoint-moseq/issues/101
# A basis sized from the config's keypoint list is contracted with data that tracks a different number of keypoints.
# class: einsum
import dataclasses

import jax.numpy as jnp


@dataclasses.dataclass
class Config:
    bodyparts: tuple = tuple(f"kp{i}" for i in range(19))
    latent_dim: int = 4


def project(coords, cfg):
    basis = jnp.ones((len(cfg.bodyparts), cfg.latent_dim))
    return jnp.einsum("tjd,jc->tcd", coords, basis)  # bug: coords has 31 keypoints, the config lists 19


def run():
    frames, n_keypoints = 10, 31
    return project(jnp.ones((frames, n_keypoints, 2)), Config())


if __name__ == "__main__":
    run()
