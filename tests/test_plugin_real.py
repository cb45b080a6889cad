"""The mypy plugin on real code and real workflows:

- files that import nothing of namedcheck (real optax, equinox and flax sources, pip-installed at test
  time, and plain JAX code where the plugin used to retype `jax.vmap` / `jax.shard_map`) get exactly
  plain mypy's output; only namedcheck's own diagnostics come on top;
- dmypy keeps a file's diagnostics across an incremental update of an unrelated file;
- the helper process that analyses files ends with mypy.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

pytest.importorskip("mypy")

pytestmark = pytest.mark.slow  # runs mypy over real packages

NC_ERROR = re.compile(r"^(?P<where>.+?:\d+:\d+): error: .*  \[NC\d{3}\]$")
PLAIN_JAX = """\
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def scale(a: jax.Array, b: int) -> jax.Array:
    return a * b


x = jnp.ones((4, 3))
y = jax.vmap(scale, in_axes=(0, None))(x, "not an int")
reveal_type(jax.vmap(scale))
mesh = jax.make_mesh((1,), ("i",))
sharded = jax.shard_map(scale, mesh=mesh, in_specs=(P("i"), P()), out_specs=P("i"))
reveal_type(sharded)
sharded(x, 1, 2)
jax.vmap(scale)(x, 1, 2)
z = x + jnp.ones((5,))
"""
REAL_CONFIG = """\
[mypy]
show_column_numbers = True
ignore_missing_imports = True
follow_imports = silent
{plugins}
[mypy-optax.*,equinox.*,flax.*,jaxtyping.*,chex.*]
follow_imports = skip
"""


def _mypy(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env
    )
    out = done.stdout + done.stderr
    assert "Traceback" not in out and "INTERNAL ERROR" not in out, out
    return out


def _without_namedcheck(out: str) -> str:
    """mypy's output less namedcheck's diagnostics and their notes (hints, related locations)."""
    kept, nc_places = [], set()
    for line in out.splitlines():
        m = NC_ERROR.match(line)
        if m:
            nc_places.add(m["where"])
            continue
        where, _, rest = line.partition(": note: ")
        if rest and where in nc_places:
            continue
        kept.append(line)
    return "\n".join(kept)


def _library_files(root: Path, package: str, count: int = 3) -> list[Path]:
    """A few small modules of the package that use jax's maps (the plugin's hooks used to retype them)."""
    files = [
        p
        for p in (root / package).rglob("*.py")
        if "test" not in p.name
        and p.name != "__init__.py"
        and re.search(r"vmap|shard_map|pmap", p.read_text(encoding="utf-8", errors="replace"))
    ]
    return sorted(files, key=lambda p: (p.stat().st_size, str(p)))[:count]


@pytest.fixture(scope="module")
def libraries(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("libs")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            "optax",
            "equinox",
            "flax",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode:
        pytest.skip(f"PyPI is not reachable: {done.stderr.strip()[-300:]}")
    return target


def test_files_without_namedcheck_keep_plain_mypy_output(libraries, tmp_path):
    plain = tmp_path / "plain_jax.py"
    plain.write_text(PLAIN_JAX)
    files = [plain] + [f for pkg in ("optax", "equinox", "flax") for f in _library_files(libraries, pkg)]
    assert len(files) >= 7, files
    outs = {}
    for name, plugins in (("with", "plugins = namedcheck_mypy"), ("without", "")):
        cfg = tmp_path / f"{name}.ini"
        cfg.write_text(REAL_CONFIG.format(plugins=plugins))
        outs[name] = _mypy(
            [
                "--config-file",
                str(cfg),
                "--cache-dir",
                str(tmp_path / f"cache-{name}"),
                "--no-error-summary",
                *map(str, files),
            ],
            libraries,
        )
    assert _without_namedcheck(outs["with"]) == outs["without"].rstrip("\n")
    plain_rows = [line for line in outs["without"].splitlines() if line.startswith(str(plain))]
    assert any(":11:" in r and "[arg-type]" in r for r in plain_rows), outs["without"]  # mypy's own errors
    assert sum("Too many arguments" in r for r in plain_rows) == 2, outs["without"]
    # namedcheck's diagnostics still come in a jax file that does not import namedcheck
    assert re.search(rf"{re.escape(str(plain))}:18:\d+: error: .*\[NC201\]", outs["with"]), outs["with"]


# jax is not followed (seconds, not a minute): namedcheck's analysis does not need mypy's types
DMYPY_CONFIG = """\
[mypy]
plugins = namedcheck_mypy
ignore_missing_imports = True
follow_imports = skip
"""


def test_dmypy_keeps_diagnostics_across_an_unrelated_update(tmp_path):
    (tmp_path / "mypy.ini").write_text(DMYPY_CONFIG)
    (tmp_path / "model.py").write_text(
        textwrap.dedent("""\
        import jax.numpy as jnp


        def residual():
            x = jnp.ones((8, 128))
            return x + jnp.ones((8, 64))
        """)
    )
    other = tmp_path / "other.py"
    other.write_text("def helper() -> int:\n    return 1\n")
    status = tmp_path / "dmypy.json"
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(status)]

    def run() -> str:
        done = subprocess.run(
            [*dmypy, "run", "--", "--config-file", "mypy.ini", "model.py", "other.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return done.stdout + done.stderr

    try:
        first = run()
        assert re.search(r"model\.py:6: error: .*\[NC201\]", first), first
        other.write_text("def helper() -> int:\n    return 2\n\n\ndef more() -> str:\n    return 'x'\n")
        second = run()
        assert re.search(r"model\.py:6: error: .*\[NC201\]", second), second
        (tmp_path / "model.py").write_text("import jax.numpy as jnp\n\n\ndef fine():\n    return jnp.ones(3)\n")
        third = run()
        assert "NC201" not in third, third  # the file's own update is analysed again
    finally:
        subprocess.run([*dmypy, "kill"], cwd=tmp_path, capture_output=True, timeout=60)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds processes through /proc")
def test_the_helper_process_ends_with_mypy(tmp_path):
    (tmp_path / "mypy.ini").write_text(DMYPY_CONFIG)
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text("import jax.numpy as jnp\n\nx = jnp.ones(3) + jnp.ones(4)\n")
    tag = f"NAMEDCHECK_TEST_TAG={uuid.uuid4().hex}"
    env = {**os.environ, tag.partition("=")[0]: tag.partition("=")[2]}
    out = _mypy(["--no-incremental", "m0.py", "m1.py", "m2.py"], tmp_path, env)
    assert out.count("[NC201]") == 3, out
    assert _processes_with(tag.encode()) == []


def _processes_with(tag: bytes) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if tag in (proc / "environ").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                pass
    return found
