"""namedcheck beside the tools users already run (issue 27): each tool times the same tree, each on a fresh
copy of its own, one after another in one run, and the table gives every wall time with its ratio to mypy
`--no-incremental` (and namedcheck's warm runs against mypy's warm run).

    python bench/peers.py [--tree PATH | --preset maxtext|easydel|jax+flax+equinox+easydel] [--jobs N]
                          [--runs N] [--keep DIR] [--edit REL] [--quick]

Rows (a tool that is not installed is listed as such, not timed):
- `ast.parse` and libcst's `parse_module` of every `.py` file, one core (the parse floors);
- ruff check (lint), where installed;
- mypy `--no-incremental` (imports it cannot find are Any), then mypy incremental: a first run filling its
  cache, and the warm run after it, nothing changed;
- pyrefly check and ty check, where installed;
- namedcheck `check --no-cache -j N` (cold), `check -j N` twice (filling the result cache, then warm), and
  through `namedcheck daemon` (its first run, a re-run with nothing changed, and a re-run after a one-file
  edit: a comment appended to `--edit REL`, by default the largest file mentioning jax that no import line
  names). namedcheck runs print the text format (json and sarif also attach fixes).

Trees: `--tree PATH` (any directory), or a preset installed into a temporary directory (or `--keep DIR`,
reused) as `bench/realcode.py` installs packages (maxtext: the py3.12 wheel, unzipped; jax: the installed
package). `--quick`: the generated 50-module project of `bench/project_bench.py` (for the test).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from realcode import SKIP_DIRS, default_checker, install_package, installed_jax_root, workdir  # noqa: E402

PRESETS: dict[str, tuple[str, ...]] = {
    "maxtext": ("maxtext",),
    "easydel": ("easydel",),
    "jax+flax+equinox+easydel": ("jax", "flax", "equinox", "easydel"),
}

AST_PARSE = """
import ast, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        ast.parse(p.read_bytes())
    except (SyntaxError, ValueError):
        pass
"""
LIBCST_PARSE = """
import pathlib, sys, libcst
for p in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        libcst.parse_module(p.read_text(encoding="utf-8", errors="replace"))
    except Exception:
        pass
"""


@dataclass
class Row:
    tool: str
    what: str
    wall: float | None = None  # None: not run
    note: str = ""


def run_timed(cmd: Sequence[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 3600) -> Row:
    """Wall time of a whole process; a failed run (exit status above 1, or none) is noted."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Row("", "", None, f"timed out after {timeout:.0f} s")
    except OSError as e:
        return Row("", "", None, f"cannot run: {e}")
    wall = time.perf_counter() - start
    last = ((proc.stderr or proc.stdout).strip().splitlines() or [""])[-1][:120].replace("|", "/")
    note = "" if proc.returncode in (0, 1) else f"exit {proc.returncode} ({last})"
    return Row("", "", wall, note)


def median_of(runs: int, once: Callable[[], Row]) -> Row:
    rows = [once() for _ in range(runs)]
    walls = [r.wall for r in rows if r.wall is not None]
    notes = next((r.note for r in rows if r.note), "")
    return Row("", "", statistics.median(walls) if walls else None, notes)


def fresh_copy(tree: Path, base: Path, name: str) -> Path:
    """A copy of the tree of the tool's own (caches, edits and daemons do not meet)."""
    dst = base / "copies" / name
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(tree, dst, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".mypy_cache", ".*cache"))
    return dst


def tool(name: str) -> list[str] | None:
    """How to run an optional tool: its executable beside this Python, else on PATH; None: not installed."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    return [found] if found else None


def jax_files(tree: Path) -> list[Path]:
    out = []
    for p in sorted(tree.rglob("*.py")):
        try:
            if b"jax" in p.read_bytes():
                out.append(p)
        except OSError:
            continue
    return out


def prepare_tree(args: argparse.Namespace, base: Path) -> tuple[Path | None, str]:
    """The tree to measure: --tree, --quick's generated project, or a preset's packages in one folder."""
    if args.tree:
        tree = Path(args.tree).resolve()
        return (tree, str(tree)) if tree.is_dir() else (None, f"{tree}: not a directory")
    if args.quick:
        from project_bench import generate

        tree = base / "quick"
        shutil.rmtree(tree, ignore_errors=True)
        tree.mkdir(parents=True)
        generate(tree)
        return tree, "the generated 50-module project of bench/project_bench.py"
    names = PRESETS[args.preset]
    tree = base / f"tree-{args.preset.replace('+', '-')}"
    if tree.exists() and any(tree.iterdir()):
        return tree, args.preset
    tree.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name == "jax":
            site = installed_jax_root()
            if site is None:
                return None, "jax is not installed"
            src = site / "jax"
        else:
            root, problem = install_package(name, base / "installs", args.install_timeout)
            if root is None:
                return None, f"{name}: {problem}"
            src = root
        # each package's own folders (not pip's metadata or bundled third-party trees)
        for item in sorted(src.iterdir()) if name != "jax" else [src]:
            if item.name.endswith((".dist-info", ".egg-info")) or item.name in SKIP_DIRS or item.name == "bin":
                continue
            dst = tree / item.name
            if dst.exists():
                continue
            if item.is_dir():
                shutil.copytree(item, dst, ignore=shutil.ignore_patterns("__pycache__"))
            elif item.suffix == ".py":
                shutil.copy2(item, dst)
    return tree, args.preset


def measure(args: argparse.Namespace, tree: Path, base: Path) -> tuple[list[Row], dict[str, str]]:
    """Every row, in order; and what the daemon's runs re-checked."""
    jobs = str(args.jobs)
    runs = args.runs
    rows: list[Row] = []
    facts: dict[str, str] = {}

    def add(name: str, what: str, row: Row) -> None:
        row.tool, row.what = name, what
        rows.append(row)
        print(f"  {name}: {'-' if row.wall is None else f'{row.wall:.2f} s'} {row.note}", file=sys.stderr, flush=True)

    py = sys.executable
    copy = fresh_copy(tree, base, "ast")
    add("ast.parse, one core", "parse only", median_of(runs, lambda: run_timed([py, "-c", AST_PARSE, "."], copy)))
    copy = fresh_copy(tree, base, "libcst")
    add(
        "libcst parse_module, one core",
        "parse only",
        median_of(runs, lambda: run_timed([py, "-c", LIBCST_PARSE, "."], copy)),
    )
    ruff = tool("ruff")
    if ruff is None:
        add("ruff check", "lint", Row("", "", None, "not installed"))
    else:
        copy = fresh_copy(tree, base, "ruff")
        add("ruff check", "lint", median_of(runs, lambda: run_timed([*ruff, "check", "--no-cache", "-q", "."], copy)))

    mypy = [py, "-m", "mypy"]
    flags = ["--ignore-missing-imports", "--no-error-summary", "--explicit-package-bases", "--no-pretty", "."]
    copy = fresh_copy(tree, base, "mypy-cold")
    add(
        "mypy --no-incremental",
        "full type check",
        median_of(runs, lambda: run_timed([*mypy, "--no-incremental", "--cache-dir", os.devnull, *flags], copy)),
    )
    copy = fresh_copy(tree, base, "mypy-warm")
    cache = ["--cache-dir", str(copy / ".mypy_cache")]
    add("mypy, cache filled", "first incremental run", run_timed([*mypy, *cache, *flags], copy))
    add("mypy, warm", "nothing changed", median_of(runs, lambda: run_timed([*mypy, *cache, *flags], copy)))
    for name in ("pyrefly", "ty"):
        exe = tool(name)
        if exe is None:
            add(f"{name} check", "full type check", Row("", "", None, "not installed"))
            continue
        copy = fresh_copy(tree, base, name)
        add(
            f"{name} check",
            "full type check",
            median_of(runs, lambda exe=exe, c=copy: run_timed([*exe, "check", "."], c)),
        )

    checker = [args.checker] if args.checker else [default_checker()]
    alone = {**os.environ, "NAMEDCHECK_NO_DAEMON": "1"}
    alone.pop("NAMEDCHECK_NO_CACHE", None)
    # the text format, as a hook or a terminal runs it (json and sarif also attach fixes, re-analysing files)
    check = [*checker, "check", "-j", jobs, "."]
    copy = fresh_copy(tree, base, "namedcheck-cold")
    add(
        f"namedcheck --no-cache -j {jobs}",
        "cold: shapes and shardings",
        median_of(runs, lambda: run_timed([*check, "--no-cache"], copy, alone)),
    )
    copy = fresh_copy(tree, base, "namedcheck-warm")
    add(f"namedcheck -j {jobs}, cache filled", "first run with the cache", run_timed(check, copy, alone))
    add("namedcheck, warm", "nothing changed", median_of(runs, lambda: run_timed(check, copy, alone)))

    # through the daemon: its own private runtime directory, its own copy
    copy = fresh_copy(tree, base, "namedcheck-daemon")
    rundir = Path(tempfile.mkdtemp(prefix="ncd", dir="/tmp"))
    os.chmod(rundir, 0o700)
    served = {**os.environ, "XDG_RUNTIME_DIR": str(rundir)}
    served.pop("NAMEDCHECK_NO_DAEMON", None)
    try:
        start = run_timed([*checker, "daemon", "start", "--idle-timeout", "60"], copy, served)
        if start.note:
            add("namedcheck daemon", "daemon start", Row("", "", None, start.note))
        else:
            add("namedcheck daemon, first run", "analysis loaded, no result cache", run_timed(check, copy, served))
            facts["first"] = _last_check(checker, copy, served)
            add("namedcheck daemon, re-run", "nothing changed", median_of(runs, lambda: run_timed(check, copy, served)))
            facts["rerun"] = _last_check(checker, copy, served)
            target = copy / args.edit if args.edit else _largest_leaf(jax_files(copy))
            if target is not None and target.is_file():
                edits = iter(range(1_000_000))

                def edited() -> Row:
                    with open(target, "a", encoding="utf-8") as f:
                        f.write(f"\n# edited {next(edits)}\n")
                    return run_timed(check, copy, served)

                add("namedcheck daemon, one-file edit", f"{target.relative_to(copy)} edited", median_of(runs, edited))
                facts["edit"] = _last_check(checker, copy, served)
    finally:
        subprocess.run([*checker, "daemon", "stop"], cwd=copy, env=served, capture_output=True)
        shutil.rmtree(rundir, ignore_errors=True)
    return rows, facts


def _largest_leaf(files: list[Path]) -> Path | None:
    """The largest file that no other file's import lines name (an edit that pre-commit typically sees; a
    module imported everywhere re-checks its importers too: pass it with --edit)."""
    imports = {
        f: "\n".join(re.findall(r"^\s*(?:from|import)\s[^\n]*", f.read_text(errors="replace"), re.M)) for f in files
    }
    words = set(re.findall(r"\w+", "\n".join(imports.values())))
    leaves = [f for f in files if f.name != "__init__.py" and f.stem not in words]
    return max(leaves or files, key=lambda f: f.stat().st_size) if files else None


def _last_check(checker: list[str], cwd: Path, env: dict[str, str]) -> str:
    out = subprocess.run([*checker, "daemon", "status"], cwd=cwd, env=env, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("last_check:"):
            try:
                last = json.loads(line.split(":", 1)[1])
                return f"{last['files_checked']} files checked, {last['files_from_memory']} from memory"
            except (ValueError, KeyError, TypeError):
                return line.strip()
    return "no status"


def table(rows: list[Row]) -> str:
    """The markdown table: wall time and ratio to mypy --no-incremental; warm rows also against mypy warm."""
    by = {r.tool: r.wall for r in rows}
    cold = by.get("mypy --no-incremental")
    warm = by.get("mypy, warm")
    lines = [
        "| tool | wall | / mypy --no-incremental | / mypy warm | what |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        if r.wall is None:
            lines.append(f"| {r.tool} | - | - | - | {r.what}: {r.note or 'not run'} |")
            continue
        ratio = f"{r.wall / cold:.2f}x" if cold else "-"
        vs_warm = (
            f"{r.wall / warm:.2f}x" if warm and ("warm" in r.tool or "re-run" in r.tool or "edit" in r.tool) else ""
        )
        note = f"{r.what}{'; ' + r.note if r.note else ''}"
        lines.append(f"| {r.tool} | {r.wall:.2f} s | {ratio} | {vs_warm} | {note} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--tree", help="the directory to measure (copied once per tool)")
    where.add_argument("--preset", choices=sorted(PRESETS), default="maxtext")
    where.add_argument("--quick", action="store_true", help="a small generated project (for the test)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="namedcheck's -j (default: all cores)")
    ap.add_argument("--runs", type=int, default=1, help="runs per row (the median is shown)")
    ap.add_argument("--edit", help="the file the daemon's edit row appends to (relative to the tree)")
    ap.add_argument("--keep", help="install presets into (and reuse) this directory")
    ap.add_argument("--install-timeout", type=float, default=600.0)
    ap.add_argument("--checker", help="namedcheck executable (default: the one beside this Python)")
    args = ap.parse_args(argv)
    base, cleanup = workdir(args.keep)
    try:
        tree, label = prepare_tree(args, base)
        if tree is None:
            print(f"no tree: {label}")
            return 2
        files = list(tree.rglob("*.py"))
        lines = sum(f.read_bytes().count(b"\n") for f in files)
        print(f"tree: {label}: {len(files)} files, {lines:,} lines; {os.cpu_count()} cores", file=sys.stderr)
        rows, facts = measure(args, tree, base)
        print(f"{label}: {len(files)} files, {lines:,} lines; namedcheck -j {args.jobs} on {os.cpu_count()} cores")
        print()
        print(table(rows))
        print()
        for k, v in facts.items():
            print(f"daemon {k}: {v}")
    finally:
        if not args.keep:
            shutil.rmtree(base / "copies", ignore_errors=True)
        cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
