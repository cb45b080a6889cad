"""mypy plugin benchmark (SPEC section 7). Prints ratios against a baseline measured in the same run.

mypy over the examples and the test cases (they import jax, which mypy analyses too), with the
namedcheck plugin and without it: cold (an empty cache directory) and warm (the cache of the previous
run, nothing changed). Target: <= 1.10x for both.

    python bench/mypy_bench.py [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = """\
[mypy]
check_untyped_defs = True
{plugins}
[mypy-namedcheck.*]
follow_imports = silent
"""


def targets() -> list[str]:
    files = [p for p in sorted((ROOT / "examples").rglob("*.py")) if "buggy" not in p.parts]
    files += [p for p in sorted((ROOT / "tests" / "cases").glob("*.py")) if p.name != "nc001_syntax.py"]
    return [str(p) for p in files]


def run_mypy(config: Path, cache: Path, files: list[str]) -> float:
    t = time.perf_counter()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--cache-dir",
            str(cache),
            "--no-error-summary",
            *files,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - t
    if r.returncode not in (0, 1) or "INTERNAL ERROR" in r.stdout + r.stderr:
        raise SystemExit(f"mypy failed ({config.name}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    opts = ap.parse_args()
    files = targets()
    work = Path(tempfile.mkdtemp(prefix="namedcheck-mypy-bench-"))
    try:
        configs = {}
        for name, plugins in (("plugin", "plugins = namedcheck_mypy"), ("plain", "")):
            configs[name] = work / f"{name}.ini"
            configs[name].write_text(CONFIG.format(plugins=plugins))
        cold: dict[str, list[float]] = {"plugin": [], "plain": []}
        warm: dict[str, list[float]] = {"plugin": [], "plain": []}
        for _ in range(opts.runs):
            for name in ("plugin", "plain"):  # interleaved, so drift hits both alike
                cache = work / f"cache-{name}"
                shutil.rmtree(cache, ignore_errors=True)
                cold[name].append(run_mypy(configs[name], cache, files))
                warm[name].append(run_mypy(configs[name], cache, files))
        print(f"mypy over {len(files)} files (examples and test cases, importing jax); medians of {opts.runs}")
        for label, d in (("cold cache", cold), ("warm cache", warm)):
            p, b = statistics.median(d["plugin"]), statistics.median(d["plain"])
            print(f"{label}: with plugin {p:6.2f} s, without {b:6.2f} s, ratio {p / b:.3f} (target <= 1.10)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
