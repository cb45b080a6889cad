"""Real-code harness: precision of `namedcheck check` on public JAX packages, and mutation recall.

Run it with the interpreter of the environment whose `namedcheck` is to be measured
(the `namedcheck` script next to that interpreter is used, or `--checker PATH`):

    python bench/realcode.py precision [--packages flax equinox ...] [--keep DIR] [--timeout 900]
                                       [--slow-files [--slow-min-lines N]] [--json-out FILE]
    python bench/realcode.py mutants [--seed 0] [--limit 200] [--packages ...] [--runnable-only]
                                     [--no-runnable] [--keep DIR] [--show-unflagged] [--per-file]

precision: each package is installed with `pip install --no-deps --target TMP/<name>` (maxtext is
fetched as a py3.12 wheel with `pip download` and unzipped; `jax` is the installed jax, found
with importlib and never copied). `namedcheck check --no-cache --format json` runs over the whole
tree of each package (every file: the checker decides which files to analyse). Printed per package:
files, lines, wall seconds, lines/s, diagnostics, internal errors (NC000), then every diagnostic,
its path relative to the package root. A package that fails to install or times out is reported
and skipped. `--slow-files` also times every file alone and lists those over 5 s.

mutants: one-line mutations (see `bench/realcode_mutants.py`) of real functions in the installed
sources (unverified recall: the mutant is not run), plus mutations of small runnable sharded
programs that are kept only when real JAX (8 forced host devices) raises on them while the
unmutated program runs cleanly (verified recall). A mutant is flagged when some diagnostic other
than NC000/NC001 lies within 2 lines of the edited line and the unmutated file had no diagnostic
with that code and message there. Prints the number of mutants, the flagged share overall and per
mutation kind, and the diagnostics on the unmutated files (false alarms unless they are real bugs).
Of the flagged mutants (here and in `projects`): how many have a hit at the edited line itself, how many
only near it (or on an effect line), and how many of those carry a related location (`"related"` in the
JSON) at the edited line, which points the user at the line to change.

projects: the multi-module mode (`bench/realcode_projects.py`): a bug's cause in one module of a
project, its effect in another; installed projects (flax's examples from its sdist, maxtext, easydel,
levanter, flax, equinox) and runnable multi-module programs verified under JAX.

    python bench/realcode.py projects [--limit 120] [--runnable-only | --no-runnable] [--show-unflagged]

whole: held-out whole real projects (`bench/realcode_whole.py`): one-line mutants whose cause and effect lie in
different modules of flax's examples and nanodo, verified under JAX with a driver per project; recall at the
line, and the unmutated projects' diagnostics judged with a JAX run.

    python bench/realcode.py whole [--keep DIR] [--limit 30] [--projects ...] [--show-missed] [--json-out FILE]

Everything is installed and edited in a temporary directory (or --keep DIR, which also caches the
installs between runs); nothing in the repository is changed. On 2 idle cores precision takes about
1 minute after the installs, mutants (200 source mutants + the runnable set) about 5 minutes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PACKAGES: tuple[str, ...] = ("flax", "equinox", "easydel", "levanter", "praxis", "maxtext", "jax")
WHEEL_ONLY: dict[str, str] = {"maxtext": "3.12"}  # needs a newer Python than ours: download the wheel
SKIP_DIRS = {"__pycache__", "bin"}
SLOW_FILE_SECONDS = 5.0
INTERNAL_CODES = {"NC000", "NC001"}


@dataclass(frozen=True)
class Related:
    """A related location of a diagnostic (`"related"` in the JSON)."""

    path: str
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    column: int
    code: str
    message: str
    related: tuple[Related, ...] = field(default=(), compare=False)

    @staticmethod
    def from_json(obj: dict[str, object], cwd: Path | None = None) -> Diagnostic:
        """One element of the checker's JSON array; relative paths are read against `cwd` (the checker's)."""
        base = cwd or Path.cwd()
        rel = obj.get("related") or []
        return Diagnostic(
            path=str(base / str(obj["path"])),
            line=int(str(obj["line"])),
            column=int(str(obj["column"])),
            code=str(obj["code"]),
            message=str(obj["message"]),
            related=tuple(
                Related(str(base / str(r["path"])), int(r["line"]), int(r["column"]), str(r["message"]))
                for r in rel
                if isinstance(r, dict)
            ),
        )

    def points_at(self, path: Path | str, line: int) -> tuple[bool, bool]:
        """(the diagnostic is at path:line, one of its related locations is); paths are absolute."""
        where = Path(path).resolve()
        return (
            self.line == line and Path(self.path).resolve() == where,
            any(r.line == line and Path(r.path).resolve() == where for r in self.related),
        )


def located(hits: Sequence[Diagnostic], path: Path | str, line: int) -> tuple[bool, bool]:
    """(a hit is at path:line, a hit has a related location at path:line)."""
    at = [d.points_at(path, line) for d in hits]
    return any(a for a, _ in at), any(r for _, r in at)


def location_line(flagged: Sequence[tuple[bool, bool]]) -> str:
    """Where the flagged mutants are flagged: `located` of each flagged mutant's hits at its edited line."""
    exact = sum(1 for a, _ in flagged if a)
    near = [r for a, r in flagged if not a]
    return (
        f"flagged at the edited line: {exact}   only near it: {len(near)}, of which with a related "
        f"location at the edited line: {sum(near)}"
    )


@dataclass
class CheckRun:
    diagnostics: list[Diagnostic]
    seconds: float
    returncode: int
    error: str = ""


@dataclass
class PackageResult:
    name: str
    root: Path | None
    files: int = 0
    lines: int = 0
    run: CheckRun | None = None
    problem: str = ""
    slow_files: list[tuple[str, float]] = field(default_factory=list)


def default_checker() -> str:
    beside = Path(sys.executable).parent / "namedcheck"
    if beside.exists():
        return str(beside)
    found = shutil.which("namedcheck")
    if found is None:
        raise SystemExit("no namedcheck executable: pass --checker PATH")
    return found


def run_checker(checker: str, paths: Sequence[Path | str], timeout: float, cwd: Path | None = None) -> CheckRun:
    """Run `namedcheck check --no-cache --format json` and parse its array."""
    cmd = [checker, "check", "--no-cache", "--format", "json", *map(str, paths)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return CheckRun([], time.perf_counter() - start, -1, f"timed out after {timeout:.0f} s")
    seconds = time.perf_counter() - start
    # --format json always prints an array: an empty stdout is a crash (a Python traceback exits 1 too)
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        return CheckRun([], seconds, proc.returncode, (proc.stderr or proc.stdout).strip()[-2000:] or "no output")
    try:
        raw = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        return CheckRun([], seconds, proc.returncode, f"unparsable JSON ({exc}): {proc.stdout[:500]!r}")
    if not isinstance(raw, list):
        return CheckRun([], seconds, proc.returncode, f"JSON is not an array: {proc.stdout[:500]!r}")
    return CheckRun([Diagnostic.from_json(d, cwd) for d in raw], seconds, proc.returncode)


# ----------------------------------------------------------------------------------------------
# Installing packages


def installed_jax_root() -> Path | None:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent.parent  # site-packages: report paths as jax/...


def install_package(name: str, base: Path, timeout: float) -> tuple[Path | None, str]:
    """Install one package (no dependencies) under base/name; return (root, problem)."""
    target = base / name
    if target.exists() and any(target.iterdir()):
        return target, ""  # --keep DIR reuse
    target.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    try:
        if name in WHEEL_ONLY:
            dl = base / f"{name}.download"
            dl.mkdir(exist_ok=True)
            cmd = [
                *pip,
                "download",
                "--no-deps",
                "--python-version",
                WHEEL_ONLY[name],
                "--only-binary=:all:",
                name,
                "-d",
                str(dl),
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            wheels = sorted(dl.glob("*.whl"))
            if proc.returncode != 0 or not wheels:
                return None, f"pip download failed: {(proc.stderr or proc.stdout).strip()[-500:]}"
            with zipfile.ZipFile(wheels[0]) as zf:
                zf.extractall(target)
        else:
            cmd = [*pip, "install", "--no-deps", "--no-compile", "--target", str(target), name]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            if proc.returncode != 0:
                return None, f"pip install failed: {(proc.stderr or proc.stdout).strip()[-500:]}"
    except subprocess.TimeoutExpired:
        return None, f"install timed out after {timeout:.0f} s"
    return target, ""


def package_sources(name: str, root: Path) -> list[Path]:
    """The package's .py files (jax: only the jax tree inside site-packages)."""
    top = root / "jax" if name == "jax" else root
    out: list[Path] = []
    for path in sorted(top.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.endswith(".dist-info") for part in rel.parts[:-1]):
            continue
        out.append(path)
    return out


def check_target(name: str, root: Path) -> Path:
    """The path handed to the checker for a package."""
    if name == "jax":
        return root / "jax"
    return root


def count_lines(paths: Sequence[Path]) -> int:
    total = 0
    for path in paths:
        try:
            with path.open("rb") as fh:
                total += sum(1 for _ in fh)
        except OSError:
            pass
    return total


def prepare_packages(names: Sequence[str], base: Path, timeout: float) -> list[PackageResult]:
    results: list[PackageResult] = []

    def one(name: str) -> PackageResult:
        if name == "jax":
            root = installed_jax_root()
            return PackageResult(name, root, problem="" if root else "jax is not installed")
        root, problem = install_package(name, base, timeout)
        return PackageResult(name, root, problem=problem)

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(one, names))
    for res in results:
        if res.root is not None:
            files = package_sources(res.name, res.root)
            res.files = len(files)
            res.lines = count_lines(files)
    return results


def relative(path: str, root: Path) -> str:
    p = Path(path)
    try:
        return str(p.resolve().relative_to(root.resolve()))
    except ValueError:
        return path


def time_files_alone(checker: str, name: str, root: Path, timeout: float, min_lines: int) -> list[tuple[str, float]]:
    """Check every file that mentions jax and has at least min_lines lines on its own; return those
    slower than SLOW_FILE_SECONDS."""
    files = []
    for path in package_sources(name, root):
        data = path.read_bytes()
        if b"jax" in data and data.count(b"\n") >= min_lines:
            files.append(path)

    def one(path: Path) -> tuple[str, float]:
        run = run_checker(checker, [path], timeout)
        return relative(str(path), root), run.seconds

    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 2))) as pool:
        timed = list(pool.map(one, files))
    return sorted(((p, s) for p, s in timed if s > SLOW_FILE_SECONDS), key=lambda t: -t[1])


# ----------------------------------------------------------------------------------------------
# precision mode


def precision(args: argparse.Namespace) -> int:
    checker: str = args.checker or default_checker()
    base, cleanup = workdir(args.keep)
    try:
        results = prepare_packages(args.packages, base, args.install_timeout)
        for res in results:
            if res.root is None:
                continue
            res.run = run_checker(checker, [check_target(res.name, res.root)], args.timeout)
            if args.slow_files:
                res.slow_files = time_files_alone(checker, res.name, res.root, args.timeout, args.slow_min_lines)
        report_precision(results)
        if args.json_out:
            dump_precision(results, Path(args.json_out))
    finally:
        cleanup()
    return 0


def report_precision(results: Sequence[PackageResult]) -> None:
    print(f"{'package':<10} {'files':>6} {'lines':>8} {'wall s':>8} {'lines/s':>9} {'diags':>6} {'NC000':>6}")
    for res in results:
        if res.root is None or res.run is None:
            print(f"{res.name:<10} SKIPPED: {res.problem}")
            continue
        run = res.run
        if run.error:
            print(
                f"{res.name:<10} {res.files:>6} {res.lines:>8} {run.seconds:>8.2f} {'-':>9} "
                f"FAILED (rc={run.returncode}): {run.error.splitlines()[-1] if run.error else ''}"
            )
            continue
        internal = sum(1 for d in run.diagnostics if d.code == "NC000")
        rate = res.lines / run.seconds if run.seconds > 0 else float("inf")
        print(
            f"{res.name:<10} {res.files:>6} {res.lines:>8} {run.seconds:>8.2f} {rate:>9.0f} "
            f"{len(run.diagnostics):>6} {internal:>6}"
        )
    for res in results:
        if res.root is None or res.run is None:
            continue
        print(f"\n== {res.name} ({res.root}) ==")
        if res.run.error:
            print(f"  checker failed: {res.run.error}")
        for d in res.run.diagnostics:
            print(f"  {relative(d.path, res.root)}:{d.line}:{d.column}: {d.code} {d.message}")
        if not res.run.diagnostics and not res.run.error:
            print("  (no diagnostics)")
        for path, secs in res.slow_files:
            print(f"  SLOW FILE {path}: {secs:.1f} s alone")


def dump_precision(results: Sequence[PackageResult], out: Path) -> None:
    data = []
    for res in results:
        entry: dict[str, object] = {"package": res.name, "problem": res.problem, "files": res.files, "lines": res.lines}
        if res.run is not None and res.root is not None:
            entry.update(
                seconds=res.run.seconds,
                error=res.run.error,
                slow_files=res.slow_files,
                diagnostics=[
                    {
                        "path": relative(d.path, res.root),
                        "line": d.line,
                        "column": d.column,
                        "code": d.code,
                        "message": d.message,
                        "related": [
                            {
                                "path": relative(r.path, res.root),
                                "line": r.line,
                                "column": r.column,
                                "message": r.message,
                            }
                            for r in d.related
                        ],
                    }
                    for d in res.run.diagnostics
                ],
            )
        data.append(entry)
    out.write_text(json.dumps(data, indent=1))


def workdir(keep: str | None) -> tuple[Path, Callable[[], None]]:
    if keep:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        return path, lambda: None
    tmp = tempfile.mkdtemp(prefix="namedcheck_realcode_")
    return Path(tmp), lambda: shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="mode", required=True)

    def common(p: argparse.ArgumentParser, packages: Sequence[str]) -> None:
        p.add_argument("--packages", nargs="+", default=list(packages))
        p.add_argument("--keep", help="install into (and reuse) this directory instead of a temporary one")
        p.add_argument("--checker", help="namedcheck executable (default: the one beside this Python)")
        p.add_argument("--timeout", type=float, default=900.0, help="seconds per checker run")
        p.add_argument("--install-timeout", type=float, default=600.0, help="seconds per pip call")

    pre = sub.add_parser("precision", help="diagnostics on unmodified public packages")
    common(pre, DEFAULT_PACKAGES)
    pre.add_argument("--slow-files", action="store_true", help=f"time every file alone, list > {SLOW_FILE_SECONDS} s")
    pre.add_argument("--slow-min-lines", type=int, default=0, help="--slow-files: only files this long")
    pre.add_argument("--json-out", help="also write the results as JSON here")

    mut = sub.add_parser("mutants", help="mutation recall on installed sources and runnable programs")
    common(mut, DEFAULT_PACKAGES)
    mut.add_argument("--seed", type=int, default=0)
    mut.add_argument("--limit", type=int, default=200, help="at most this many installed-source mutants")
    mut.add_argument("--runnable-only", action="store_true", help="only the runnable (verified) set")
    mut.add_argument("--no-runnable", action="store_true", help="only the installed-source set")
    mut.add_argument("--per-file", action="store_true", help="one checker process per file (slower)")
    mut.add_argument("--show-unflagged", action="store_true", help="list every mutant the checker missed")

    proj = sub.add_parser("projects", help="multi-module recall: cause in one module, effect in another")
    common(proj, ("flax_examples", "maxtext", "easydel", "levanter", "flax", "equinox"))
    proj.add_argument("--seed", type=int, default=0)
    proj.add_argument("--limit", type=int, default=120, help="at most this many installed-project mutants")
    proj.add_argument("--jobs", type=int, default=2, help="checker processes at once")
    proj.add_argument("--runnable-only", action="store_true", help="only the runnable (verified) set")
    proj.add_argument("--no-runnable", action="store_true", help="only the installed projects")
    proj.add_argument("--show-unflagged", action="store_true", help="list every mutant the checker missed")

    conf = sub.add_parser("configured", help="recall at the line on verified mutants of config-driven model code")
    conf.add_argument("--source", action="append", metavar="NAME=DIR", help="a project's source directory")
    conf.add_argument("--projects", nargs="+", help="only these projects (default: all)")
    conf.add_argument("--keep", help="work in (and cache verification results in) this directory")
    conf.add_argument("--checker", help="namedcheck executable (default: the one beside this Python)")
    conf.add_argument("--timeout", type=float, default=900.0, help="seconds per checker run")
    conf.add_argument("--install-timeout", type=float, default=600.0, help="seconds for pip download of flax")
    conf.add_argument("--seed", type=int, default=0)
    conf.add_argument("--limit", type=int, default=30, help="at most this many candidate mutants per project")
    conf.add_argument("--jobs", type=int, default=2, help="driver / checker processes at once")
    conf.add_argument("--show-missed", action="store_true", help="list the mutants not found at the line")
    conf.add_argument("--json-out", help="also write the results as JSON here")
    conf.add_argument("--with-entry", action="store_true", help="also measure with a concrete entry point added")

    whole = sub.add_parser("whole", help="held-out whole real projects: cross-module mutants verified under JAX")
    whole.add_argument("--source", action="append", metavar="NAME=DIR", help="a source directory")
    whole.add_argument("--projects", nargs="+", help="only these projects (default: all)")
    whole.add_argument("--keep", help="work in (and cache verification and installs in) this directory")
    whole.add_argument("--checker", help="namedcheck executable (default: the one beside this Python)")
    whole.add_argument("--timeout", type=float, default=900.0, help="seconds per checker run")
    whole.add_argument("--driver-timeout", type=float, default=240.0, help="seconds per driver run")
    whole.add_argument("--install-timeout", type=float, default=600.0, help="seconds per pip call")
    whole.add_argument("--seed", type=int, default=0)
    whole.add_argument("--limit", type=int, default=30, help="at most this many candidate mutants per project")
    whole.add_argument("--jobs", type=int, default=2, help="driver / checker processes at once")
    whole.add_argument("--show-missed", action="store_true", help="list the mutants not found at the line")
    whole.add_argument("--json-out", help="also write the results as JSON here")

    args = parser.parse_args(argv)
    if args.mode == "whole":
        from realcode_whole import whole_mode

        return whole_mode(args)
    if args.mode == "configured":
        from realcode_configured import configured_mode

        return configured_mode(args)
    if args.mode == "precision":
        return precision(args)
    if args.mode == "projects":
        from realcode_projects import projects_mode

        return projects_mode(args)
    from realcode_mutants import mutants

    return mutants(args)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())


def flax_sdist(base: Path, timeout: float) -> Path | None:
    """flax's source distribution unpacked under base (its examples/ are not in the wheel)."""
    out = base / "flax_sdist_x"
    found = sorted(out.glob("flax-*/examples"))
    if found:
        return found[0].parent
    dl = base / "flax_sdist"
    dl.mkdir(parents=True, exist_ok=True)
    if not sorted(dl.glob("flax-*.tar.gz")):
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "-q",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "flax",
            "-d",
            str(dl),
        ]
        try:
            subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    archives = sorted(dl.glob("flax-*.tar.gz"))
    if not archives:
        return None
    with tarfile.open(archives[0]) as tf:
        members = [m for m in tf.getmembers() if "/examples/" in m.name or m.name.endswith("/examples")]
        tf.extractall(out, members=members, filter="data")
    found = sorted(out.glob("flax-*/examples"))
    return found[0].parent if found else None


def link_tree(src: Path, dst: Path) -> None:
    """A hard-linked copy of a tree (cheap; the mutated file is then replaced, never written through)."""

    def link(s: str, d: str) -> None:
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)

    shutil.copytree(src, dst, copy_function=link, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
