"""Test setup: 8 host CPU devices for JAX (set before jax is imported anywhere)."""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# A rule's own failure (not an input it cannot prove) fails the test instead of becoming an NC000 diagnostic.
os.environ["NAMEDCHECK_STRICT"] = "1"

# Property tests are reproducible: the same examples on every run and machine.
try:
    from hypothesis import settings

    settings.register_profile("namedcheck", derandomize=True, deadline=None)
    settings.load_profile("namedcheck")
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass
# A file cut short by a budget gets an NC001 saying so; the default budgets' cuts depend on the machine's
# speed, so here only a budget a test sets itself adds that note (analyzer/budget.py: budget_note_shown).
os.environ["NAMEDCHECK_QUIET_DEFAULT_BUDGETS"] = "1"
