"""Whole-project throughput on a real project tree (issue 12, SPEC section 7): `namedcheck check --no-cache`
over an installed project, every file analysed with the project's other modules as dependencies, against
libcst's parse of the same files on one core, measured in the same run.

    python bench/project_tree.py [--packages maxtext] [--jobs 2] [--runs 3] [--keep DIR] [--together]

Each package is installed as `bench/realcode.py` installs it (maxtext: the py3.12 wheel, unzipped) into a
temporary directory (or `--keep DIR`, reused). Per package and run, whole processes are timed:
- baseline: one process parsing every `.py` file of the tree with libcst (one core);
- namedcheck: `namedcheck check --no-cache -j JOBS <tree>` (wall time; CPU time of its processes; the peak
  resident memory of its largest process, from `RUSAGE_CHILDREN` measured around it alone).
Printed: files, lines, the medians of both times, the ratio (target <= 0.8 on 2 cores), CPU over the
baseline, and the peak RSS (target < 500 MB per worker). `--together`: the packages as one tree (one
`namedcheck check` of all their roots, one parse of all their files), as issue 27's
`--packages jax flax equinox easydel --together` (target <= 1.0x).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realcode import (  # noqa: E402
    check_target,
    count_lines,
    default_checker,
    install_package,
    package_sources,
    workdir,
)

PARSE = """
import sys, pathlib, libcst
for p in sys.argv[1:]:
    try:
        libcst.parse_module(pathlib.Path(p).read_text(encoding="utf-8", errors="replace"))
    except Exception:
        pass
"""

MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - start
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": proc.returncode, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime,
                  "rss_mb": ru.ru_maxrss / 1024, "tail": proc.stdout[-300:] + proc.stderr[-300:]}))
"""


def measured(cmd: list[str]) -> dict[str, float]:
    """Wall and CPU seconds and peak RSS of a command, from a fresh process of its own."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packages", nargs="+", default=["maxtext"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="install into (and reuse) this directory")
    ap.add_argument("--checker", default=None, help="namedcheck executable (default: the one beside this Python)")
    ap.add_argument("--together", action="store_true", help="the packages as one tree, in one run")
    args = ap.parse_args(argv)
    checker = args.checker or default_checker()
    base, cleanup = workdir(args.keep)
    try:
        trees: list[tuple[str, list[Path], list[Path]]] = []  # (name, roots, files)
        for name in args.packages:
            root, problem = install_package(name, base, 600.0)
            if root is None:
                print(f"{name}: {problem}")
                continue
            trees.append((name, [check_target(name, root)], package_sources(name, root)))
        if args.together and trees:
            trees = [
                (" + ".join(t[0] for t in trees), [r for t in trees for r in t[1]], [f for t in trees for f in t[2]])
            ]
        for name, roots, files in trees:
            parse_cmd = [sys.executable, "-c", PARSE, *map(str, files)]
            check_cmd = [checker, "check", "--no-cache", "-j", str(args.jobs), "--format", "json", *map(str, roots)]
            parses, checks = [], []
            for _ in range(args.runs):  # interleaved: a change of machine load hits both
                parses.append(measured(parse_cmd))
                checks.append(measured(check_cmd))
            bad = [c for c in checks if c["rc"] not in (0, 1)]
            if bad:
                print(f"{name}: namedcheck failed: {bad[0]['tail']}")
                continue
            p_wall = statistics.median(p["wall"] for p in parses)
            c_wall = statistics.median(c["wall"] for c in checks)
            c_cpu = statistics.median(c["cpu"] for c in checks)
            rss = max(c["rss_mb"] for c in checks)
            print(f"{name}: {len(files)} files, {count_lines(files):,} lines")
            print(f"  libcst parse, one core:          {p_wall:6.2f} s (median of {args.runs})")
            print(f"  namedcheck check -j {args.jobs} --no-cache: {c_wall:6.2f} s wall, {c_cpu:6.2f} s CPU")
            print(
                f"  ratio (wall / parse): {c_wall / p_wall:.2f}x (target <= 0.8x); CPU / parse: "
                f"{c_cpu / p_wall:.2f}x; peak RSS of one process: {rss:.0f} MB (target < 500 MB)"
            )
    finally:
        cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
