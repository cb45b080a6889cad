"""Whole real package trees through the analyzer: time per file, memory per worker, errors, diagnostics.

    python bench/realtree.py [--packages jax numpy flax optax equinox] [--keep DIR] [--jobs 2]
                             [--slowest 10] [--show 20]

Each package is installed with `pip install --no-deps --only-binary=:all: --target DIR/<name>` (a temporary
directory, or `--keep DIR`, which is reused on the next run). Every `.py` file of every package is analysed
in full (the relevance pre-filter bypassed, as `check_source(force=True)`), under the default resource guard
(`analyzer/budget.py`), in `--jobs` worker processes. Printed: files, lines, wall time and lines/s, and the ratio of namedcheck's
time to libcst's parse of the same files (the baseline, measured in the same run); the slowest files with
their times; the peak resident memory of each worker; files cut short by their budget;
internal errors (NC000); files that do not parse (NC001); every other diagnostic. Targets (issue 10): no
file over 2 s, peak RSS under 500 MB per worker, no internal error, no diagnostic on these libraries.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PACKAGES = ("jax", "numpy", "flax", "optax", "equinox")


@dataclass
class FileResult:
    path: str
    lines: int
    seconds: float
    cpu_seconds: float  # the worker's CPU time for the file (what a loaded machine inflates least)
    parse_seconds: float  # the baseline: libcst's parse of the same source, in the same worker
    complete: bool
    diagnostics: list[tuple[int, str, str]] = field(default_factory=list)


def install(package: str, root: Path) -> Path | None:
    """The package installed under root/<package> (reused when already there); None when pip fails."""
    target = root / package
    if (target / ".installed").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-deps",
        "--only-binary=:all:",
        "--target",
        str(target),
        package,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"{package}: pip failed: {proc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    (target / ".installed").write_text("ok\n")
    return target


def sources(target: Path, package: str) -> list[Path]:
    """The package's own .py files (not the other top-level folders pip put next to it)."""
    top = target / package
    base = top if top.is_dir() else target
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def analyse(path: str) -> tuple[FileResult, int, int]:
    """One file in a worker: its result, the worker's pid and its peak RSS so far (KB)."""
    from namedcheck.analyzer.check import check_source_bounded

    data = Path(path).read_bytes()
    source = data.decode("utf-8", errors="replace")
    parse = _parse_seconds(source)
    start, cpu = time.perf_counter(), time.process_time()
    diags, complete = check_source_bounded(source, path, force=True)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    result = FileResult(
        path, source.count("\n") + 1, seconds, cpu, parse, complete, [(d.line, d.code, d.message) for d in diags]
    )
    return result, os.getpid(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _parse_seconds(source: str) -> float:
    """libcst's parse alone (0 where the resource guard would not let libcst see the file)."""
    import libcst

    from namedcheck.analyzer.budget import python_rejects

    if python_rejects(source) is not None:
        return 0.0
    start = time.perf_counter()
    try:
        libcst.parse_module(source)
    except Exception:
        pass
    return time.perf_counter() - start


def run(files: list[Path], jobs: int) -> tuple[list[FileResult], dict[int, int], float]:
    start = time.perf_counter()
    peaks: dict[int, int] = {}
    results: list[FileResult] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for res, pid, rss in pool.map(analyse, [str(f) for f in files], chunksize=4):
            results.append(res)
            peaks[pid] = max(peaks.get(pid, 0), rss)
    return results, peaks, time.perf_counter() - start


def report(
    results: list[FileResult], peaks: dict[int, int], wall: float, roots: dict[str, Path], slowest: int, show: int
) -> None:
    def rel(path: str) -> str:
        for name, root in roots.items():
            if path.startswith(str(root)):
                return f"{name}:{os.path.relpath(path, root)}"
        return path

    lines = sum(r.lines for r in results)
    analysis, parse = sum(r.seconds for r in results), sum(r.parse_seconds for r in results)
    print(
        f"\nfiles {len(results)}, lines {lines:,}, wall {wall:.1f} s, {lines / wall:,.0f} lines/s "
        f"({len(peaks)} workers; the wall time includes the baseline parse)"
    )
    print(
        f"namedcheck (parse + analysis) {analysis:.1f} s over all files, {lines / analysis:,.0f} lines/s per worker; "
        f"libcst parse alone {parse:.1f} s: ratio {analysis / parse:.2f}x"
    )
    print(f"\nslowest {slowest} files:")
    for r in sorted(results, key=lambda r: -r.seconds)[:slowest]:
        print(
            f"  {r.seconds:6.2f} s wall, {r.cpu_seconds:6.2f} s CPU (libcst parse alone {r.parse_seconds:5.2f} s)  "
            f"{r.lines:6} lines  {rel(r.path)}"
        )
    print(
        f"files over 2 s: {sum(r.seconds > 2.0 for r in results)} wall, {sum(r.cpu_seconds > 2.0 for r in results)} CPU"
    )
    print("peak RSS per worker: " + ", ".join(f"{kb / 1024:.0f} MB" for kb in sorted(peaks.values())))
    cut = [r for r in results if not r.complete]
    print(f"cut short by the time / memory budget: {len(cut)}" + "".join(f"\n  {rel(r.path)}" for r in cut))
    by_code: dict[str, list[tuple[FileResult, tuple[int, str, str]]]] = {}
    for r in results:
        for d in r.diagnostics:
            by_code.setdefault("internal" if d[1] == "NC000" else "parse" if d[1] == "NC001" else "other", []).append(
                (r, d)
            )
    for kind, title in (
        ("internal", "internal errors (NC000)"),
        ("parse", "files that do not parse (NC001)"),
        ("other", "diagnostics"),
    ):
        found = by_code.get(kind, [])
        print(f"{title}: {len(found)}")
        for r, (line, code, message) in found[:show]:
            print(f"  {rel(r.path)}:{line}: {code} {message[:160]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    ap.add_argument("--keep", help="install into (and reuse) this directory instead of a temporary one")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--show", type=int, default=20, help="diagnostics listed per kind")
    args = ap.parse_args(argv)
    tmp = None if args.keep else tempfile.mkdtemp(prefix="realtree-")
    root = Path(args.keep or tmp).resolve()  # type: ignore[arg-type]
    root.mkdir(parents=True, exist_ok=True)
    try:
        roots: dict[str, Path] = {}
        files: list[Path] = []
        for package in args.packages:
            target = install(package, root)
            if target is None:
                continue
            found = sources(target, package)
            roots[package] = target
            files += found
            print(f"{package}: {len(found)} files")
        results, peaks, wall = run(files, args.jobs)
        report(results, peaks, wall, roots, args.slowest, args.show)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
