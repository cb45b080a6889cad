"""Test setup: 8 host CPU devices for JAX (set before jax is imported anywhere)."""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Opt-in: NAMEDCHECK_TEST_JAX_CACHE=DIR keeps every XLA compilation of a run (this process, its xdist peers, the
# programs it runs in fresh processes) in JAX's persistent cache under DIR, for the next run: the corpora under
# JAX then cost about a third of their CPU time (tests/jaxrun.py's four: 57 s against 165 s). A cold run pays a
# little for writing it. The size cap turns on JAX's file lock, so that concurrent workers never read a half entry.
if cache := os.environ.get("NAMEDCHECK_TEST_JAX_CACHE"):
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", cache)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")
    os.environ.setdefault("JAX_COMPILATION_CACHE_MAX_SIZE", str(4 << 30))
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
