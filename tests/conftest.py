"""Test setup: 8 host CPU devices for JAX (set before jax is imported anywhere)."""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# Property tests are reproducible: the same examples on every run and machine.
try:
    from hypothesis import settings

    settings.register_profile("namedcheck", derandomize=True, deadline=None)
    settings.load_profile("namedcheck")
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass
