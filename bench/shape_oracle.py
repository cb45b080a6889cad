"""The shape oracle: namedcheck's inferred types measured against the running program.

Real JAX code (codebases' test files and example scripts) runs under a line tracer (`bench/oracle_trace.py`) that
records, for every local name bound to an array, its file, line, shape and dtype (inside `jit` / `vmap` / `scan`,
the tracer's abstract shape). `namedcheck types --format json` then runs over the same files, and each recorded
value is compared with the types inferred at the same binding (same file, same statement, same name; a parameter
by its function and name):

- exact: an inferred type has the recorded shape (every size an int, all equal);
- symbolic: the rank is right and the known sizes equal, some sizes are symbols (`B`, `config.d`);
- rank-only: the rank is right, some sizes are unknown (the known ones equal);
- unknown: nothing known there (no array type, the rank not known, or the binding not analysed);
- disagree: an inferred type there has a known size or rank that no run value at that binding has (a checker bug;
  each is printed with its location). A recorded value that matches no inferred type while the inferred ones match
  other recorded values of the binding (another call's shapes) counts as unknown. `namedcheck types` gives a
  library's names the types the calls of the tests give them, each with where its outermost call was made
  (`via`); a type only calls that did not run in the recorded run gave (a test the run's budget never reached:
  no value was recorded in the function holding the call) is not held against the run.

dtypes are compared separately (where the shape is at least rank-right): a mismatch is an inferred dtype that no
run value of the binding with a matching shape has; mismatches are listed apart.

Building the corpus (no network in the `run` step; nothing in this repository is changed):

    # 1. the sources: a directory with one folder per codebase, named as in bench/oracle_corpus.txt, from
    #    `git clone` (--clone, over the network; a codebase listed with sdist:NAME==VERSION from that PyPI source
    #    distribution) or from existing git directories (--mirror DIR, holding DIR/<owner>+<name>/repo or
    #    DIR/<owner>+<name>.git)
    python bench/shape_oracle.py prepare --out CORPUS [--clone] [--mirror DIR]
    # 2. an environment that runs them: JAX and the codebases' dependencies, e.g.
    python -m venv ENV && ENV/bin/pip install jax flax equinox optax chex dm-haiku diffrax ... pytest
    # 3. the measure (the namedcheck next to this interpreter, or --checker)
    python bench/shape_oracle.py run --corpus CORPUS --python ENV/bin/python [--names flax optax ...]
                                     [--budget 120] [--per-run 180] [--chunk 24] [--per-file 12] [--per-test 10]
                                     [--jobs 1] [--json-out FILE] [--save DIR]
    # a second pass, added to what --save kept: over the files the first did not start (--resume), the files
    # that recorded nothing (--fill: cut off before their tests ran), every file again (--merge: values the first
    # pass's time limits cut off), or past the first N batches (--skip N)
    python bench/shape_oracle.py run ... --save DIR --fill
    # the comparison again over what --save kept (after a change to the comparison)
    python bench/shape_oracle.py compare --saved DIR --corpus CORPUS [--reinfer]   # --reinfer: the current checker

Each codebase's files run in a stable order spread over its tree (test files `--chunk` to a pytest process: one
import of JAX and the library for them all; each test under `--per-test` seconds where pytest-timeout is installed,
a file's remaining tests skipped once it has run its share of the time left, at least `--per-file` seconds;
examples as scripts, one a process) with JAX_PLATFORMS=cpu, 8 CPU devices, XLA's CPU compiler at optimization level 0 and the list's `env:` variables, in a
temporary directory, each process under `--per-run` seconds and all under `--budget` seconds per codebase (a process
stopped at its limit keeps what it recorded); then `namedcheck types` analyses the files that recorded values.
Held-out material (HELD_OUT) is never run or analysed.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_LIST = HERE / "oracle_corpus.txt"
# (codebase name, path glob) never run, analysed or tuned to: the held-out material of issue 36
HELD_OUT = (
    ("flax", "examples/lm1b/*"),
    ("flax", "examples/vae/*"),
    ("flax", "examples/gemma/*"),
    ("flax", "tests/nnx/transforms_test.py"),
    ("dm-haiku", "examples/*"),
    ("jax-examples", "examples/spmd_mnist*"),
    ("jax-examples", "spmd_mnist*"),
    ("jax-examples", "*shard_map*"),
    ("jax-llm-examples", "gemma*"),  # (gemma is held out)
    ("jax-tests", "*shard_map*"),
)
HELD_OUT_REPOS = {
    "google-research/vision_transformer",
    "google-deepmind/mctx",
    "google-deepmind/gemma",
    "google/maxtext",
    "AI-Hypercomputer/maxtext",
    "google-research/big_vision",
    "stanford-crfm/levanter",
    "stanford-crfm/haliax",
    "kingoflolz/mesh-transformer-jax",
    "jax-ml/scaling-book",
}
CATEGORIES = ("exact", "symbolic", "rank-only", "unknown", "disagree")
MAX_PER_SITE = 8  # distinct values the tracer keeps per site and process (oracle_trace.MAX_PER_SITE)
MAX_CHAIN = 12  # the enclosing calls the tracer keeps of a frame (oracle_trace.MAX_CHAIN)


# ---- the corpus list -------------------------------------------------------------------------------------------
@dataclass
class Codebase:
    name: str
    repo: str  # owner/name
    runs: list[tuple[str, str]]  # (mode, glob): mode "pytest" or "script"
    excludes: list[str] = field(default_factory=list)
    subdir: str = ""  # the part of the repository that is the codebase (`root:SUBDIR`; e.g. jax's examples/)
    paths: list[str] = field(default_factory=list)  # globs of folders put on sys.path too (`path:GLOB`)
    env: dict[str, str] = field(default_factory=dict)  # environment variables its tests read (`env:NAME=VALUE`)
    sdist: str = ""  # with --clone: the sources from this PyPI source distribution (`sdist:NAME==VERSION`)
    chunk: int = 0  # test files to a pytest process, where not --chunk (`chunk:N`; 1: files that clash in one)


def read_list(path: Path) -> list[Codebase]:
    """`name owner/repo [root:SUBDIR] [path:GLOB] [env:NAME=VALUE] [sdist:NAME==VERSION] [chunk:N] pytest:GLOB
    script:GLOB !EXCLUDE ...` per line; `#` comments."""
    out = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].split()
        if len(line) < 3:
            continue
        name, repo, *rest = line
        if repo in HELD_OUT_REPOS:
            continue
        runs = [(m, g) for m, _, g in (t.partition(":") for t in rest if not t.startswith("!"))]
        subdir = next((g for m, g in runs if m == "root"), "")
        paths = [g for m, g in runs if m == "path"]
        env = dict(g.split("=", 1) for m, g in runs if m == "env" and "=" in g)
        sdist = next((g for m, g in runs if m == "sdist"), "")
        chunk = int(next((g for m, g in runs if m == "chunk" and g.isdigit()), "0"))
        runs = [(m, g) for m, g in runs if m in ("pytest", "script")]
        excludes = [t[1:] for t in rest if t.startswith("!")]
        out.append(Codebase(name, repo, runs, excludes, subdir, paths, env, sdist, chunk))
    return out


def held_out(cb: Codebase, rel: str) -> bool:
    return any(n == cb.name and fnmatch.fnmatch(rel, g) for n, g in HELD_OUT) or any(
        fnmatch.fnmatch(rel, g) for g in cb.excludes
    )


def prepare(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for cb in read_list(Path(args.list)):
        dest = out / cb.name
        if dest.exists():
            continue
        owner, repo = cb.repo.split("/")
        git_dir = None
        if args.mirror:
            for cand in (Path(args.mirror) / f"{owner}+{repo}" / "repo", Path(args.mirror) / f"{owner}+{repo}.git"):
                if cand.is_dir():
                    git_dir = cand
        try:
            if cb.sdist and args.clone:  # (a release's sources where the repository's are not the ones JAX runs)
                fetch_sdist(cb.sdist, dest)
            elif git_dir is not None:
                dest.mkdir()
                extract(git_dir, dest)
            elif args.clone:
                url = f"https://github.com/{cb.repo}"
                subprocess.run(["git", "clone", "-q", "--depth", "1", url, str(dest)], check=True)
            else:
                print(f"{cb.name}: no source (give --mirror DIR or --clone)", file=sys.stderr)
                continue
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"{cb.name}: not prepared: {e}", file=sys.stderr)
            shutil.rmtree(dest, ignore_errors=True)
            continue
        if cb.subdir:  # only the part that is the codebase (the rest of jax's repository is not importable here)
            keep = dest.parent / f".{cb.name}.keep"
            (dest / cb.subdir).rename(keep)
            shutil.rmtree(dest)
            dest.mkdir()
            keep.rename(dest / cb.subdir)
        for f in sorted(dest.rglob("*")):  # held-out material is not even kept
            rel = f.relative_to(dest).as_posix()
            if f.is_file() and held_out(cb, rel):
                f.unlink()
        print(f"{cb.name}: {dest}")
    return 0


def fetch_sdist(spec: str, dest: Path) -> None:
    """A PyPI source distribution's files (its tests included) under `dest`, over the network."""
    with tempfile.TemporaryDirectory() as tmp:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", tmp, spec]
        subprocess.run(pip, check=True)
        (archive,) = Path(tmp).iterdir()
        shutil.unpack_archive(archive, Path(tmp) / "x")
        (top,) = (Path(tmp) / "x").iterdir()
        shutil.copytree(top, dest)


def extract(git_dir: Path, dest: Path) -> None:
    """The files of a git directory's HEAD under `dest`; blobs the directory lacks (a partial copy) left out."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "HEAD"], capture_output=True, check=True
    ).stdout.decode("utf-8", "surrogateescape")
    entries = []
    for item in listing.split("\0"):
        if not item:
            continue
        meta, path = item.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != "120000":
            entries.append((sha, path))
    batch = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert batch.stdin is not None and batch.stdout is not None
    for sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            continue  # missing
        data = batch.stdout.read(int(header[2]) + 1)[:-1]
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    batch.stdin.close()
    batch.wait()


# ---- running the code ------------------------------------------------------------------------------------------
def programs(cb: Codebase, root: Path) -> list[tuple[str, str]]:
    """(mode, relative path) of the files to run, in a stable order spread over the tree."""
    found: dict[str, str] = {}
    for mode, pattern in cb.runs:
        for f in root.glob(pattern):
            rel = f.relative_to(root).as_posix()
            if f.is_file() and f.suffix == ".py" and not held_out(cb, rel) and rel not in found:
                found[rel] = mode
    return sorted(((m, r) for r, m in found.items()), key=lambda x: hashlib.sha1(x[1].encode()).hexdigest())


def run_one(
    python: str,
    root: Path,
    mode: str,
    rels: Sequence[str],
    limit: float,
    work: Path,
    per_test: float = 0,
    paths: Sequence[str] = (),
    per_file: float = 0,
    extra_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One process: a pytest run over `rels`, or one script; what it recorded (within `limit` seconds)."""
    out = work / (hashlib.sha1("\0".join(rels).encode()).hexdigest()[:12] + ".json")
    env = dict(os.environ)
    extra = [str(root)] + ([str(root / "src")] if (root / "src").is_dir() else [])
    extra += [str(d) for g in paths for d in sorted(root.glob(g)) if d.is_dir()]
    env.update(
        JAX_PLATFORMS="cpu",
        # (8 CPU devices; XLA's CPU compiler at its fastest: shapes are what is measured, not speed)
        XLA_FLAGS="--xla_force_host_platform_device_count=8 --xla_backend_optimization_level=0"
        " --xla_llvm_disable_expensive_passes=true",
        PYTHONPATH=os.pathsep.join([*extra, env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        PYTHONDONTWRITEBYTECODE="1",
        TF_CPP_MIN_LOG_LEVEL="3",
        **(extra_env or {}),
    )
    run_dir = work / "cwd"
    run_dir.mkdir(exist_ok=True)
    cmd = [python, str(HERE / "oracle_trace.py"), "--root", str(root), "--out", str(out), "--per-test", str(per_test)]
    cmd += ["--per-file", str(per_file)]
    cmd += [mode, *(str(root / r) for r in rels)]
    proc = subprocess.Popen(
        cmd, cwd=run_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    try:
        return json.loads(out.read_text())
    except (OSError, ValueError):
        return {"values": [], "params": []}


def batches(found: list[tuple[str, str]], chunk: int) -> list[tuple[str, list[str]]]:
    """Test files `chunk` to a pytest process (one JAX import for them all); each script alone."""
    out: list[tuple[str, list[str]]] = []
    for mode, rel in found:
        if mode == "pytest" and out and out[-1][0] == "pytest" and len(out[-1][1]) < chunk:
            out[-1][1].append(rel)
        else:
            out.append((mode, [rel]))
    return out


def record(
    python: str,
    cb: Codebase,
    root: Path,
    budget: float,
    per_run: float,
    chunk: int = 8,
    per_test: float = 10,
    skip: int = 0,
    per_file: float = 0,
    skip_files: int = 0,
    reached: frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], int]:
    """Every recorded value of the codebase's programs run within the budget (less the first `skip` batches and the
    first `skip_files` files and the files in `reached`), and how many files ran."""
    values: set[tuple[Any, ...]] = set()
    params: set[tuple[Any, ...]] = set()
    ran_what: dict[str, Any] = {}  # calls, lines, full: what ran (oracle_trace.py)
    start = time.monotonic()
    ran = 0
    with tempfile.TemporaryDirectory(prefix=f"oracle-{cb.name}-") as tmp:
        found = [(m, r) for m, r in programs(cb, root)[skip_files:] if r not in reached]
        todo = batches(found, cb.chunk or chunk)[skip:]
        for i, (mode, rels) in enumerate(todo):
            left = budget - (time.monotonic() - start)
            if left < 10:
                break
            # a file's share of the time left, at least `per_file` (a small codebase's files run longer)
            share = max(per_file, left / sum(len(r) for _, r in todo[i:])) if per_file > 0 else 0
            got = run_one(python, root, mode, rels, min(per_run, left), Path(tmp), per_test, cb.paths, share, cb.env)
            ran += len(rels)
            values.update((f, ln, n, tuple(s), d) for f, ln, n, s, d in got.get("values", []))
            params.update((f, ln, n, tuple(s), d) for f, ln, n, s, d in got.get("params", []))
            ran_what = merged_runs(ran_what, got)
        scripts = sorted(r for m, rs in todo for r in rs if m == "script")
    kept = lambda rows: [r for r in rows if not held_out(cb, r[0])]  # noqa: E731
    out = {"values": sorted(kept(values), key=repr), "params": sorted(kept(params), key=repr), **ran_what}
    return {**out, "scripts": scripts}, ran


def merged_runs(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two records' `calls`, `lines` and `full` (what ran) together; a key neither has stays absent (a record
    made before the tracer kept them: the comparison then falls back on what the values tell)."""
    out: dict[str, Any] = {}
    for k in ("calls", "full", "scripts"):
        if k in a or k in b:
            out[k] = sorted({tuple(r) if isinstance(r, list) else r for r in [*a.get(k, []), *b.get(k, [])]})
    if "reach" in a or "reach" in b:
        reach: dict[tuple[Any, ...], set[int]] = {}
        for f, first, chain, ls in [*a.get("reach", []), *b.get("reach", [])]:
            reach.setdefault((f, first, tuple(tuple(c) for c in chain)), set()).update(ls)
        out["reach"] = [[f, first, [list(c) for c in ch], sorted(ls)] for (f, first, ch), ls in sorted(reach.items())]
    if "tests" in a or "tests" in b:
        tests: dict[tuple[Any, ...], bool] = {}
        for f, first, node, ran in [*a.get("tests", []), *b.get("tests", [])]:
            tests[(f, first, node)] = tests.get((f, first, node), False) or bool(ran)
        out["tests"] = [[*k, ran] for k, ran in sorted(tests.items())]
    if "lines" in a or "lines" in b:
        lines: dict[str, set[int]] = {}
        for src in (a.get("lines", {}), b.get("lines", {})):
            for f, ls in src.items():
                lines.setdefault(f, set()).update(ls)
        out["lines"] = {f: sorted(ls) for f, ls in sorted(lines.items())}
    return out


def infer(checker: str, root: Path, files: Sequence[str], timeout: float) -> dict[str, Any]:
    """`namedcheck types --format json` over `files` (relative to `root`); {} when it fails or times out."""
    if not files:
        return {"bindings": []}
    try:
        proc = subprocess.run(
            [checker, "types", "--format", "json", *files], cwd=root, capture_output=True, text=True, timeout=timeout
        )
        return dict(json.loads(proc.stdout or "{}"))
    except (subprocess.TimeoutExpired, ValueError, OSError):
        return {}


# ---- comparing -------------------------------------------------------------------------------------------------
def statement_lines(source: str) -> tuple[dict[int, int], dict[tuple[int, str], tuple[int, int]]]:
    """(line -> the first line of the innermost statement (or compound header) holding it; (a function's or a
    lambda's first line, as its code object has it, parameter name) -> the parameter's (line, 1-based column))."""
    tree = ast.parse(source)
    spans: list[tuple[int, int, int]] = []
    params: dict[tuple[int, str], tuple[int, int]] = {}
    lambdas: dict[tuple[int, str], int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):  # its code object's first line is the lambda's
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]:
                key = (node.lineno, arg.arg)
                lambdas[key] = lambdas.get(key, 0) + 1
                # two lambdas of a line with a parameter of one name: which one ran is not known (no site)
                params[key] = (arg.lineno, arg.col_offset + 1) if lambdas[key] == 1 else (node.lineno, -1)
            continue
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            end = max(node.lineno, body[0].lineno - 1)
        spans.append((node.lineno, end, node.lineno))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]:
                params[(first, arg.arg)] = (arg.lineno, arg.col_offset + 1)
    lines: dict[int, int] = {}
    for lo, hi, first in sorted(spans, key=lambda s: -(s[1] - s[0])):  # the innermost last
        for ln in range(lo, hi + 1):
            lines[ln] = first
    return lines, params


def function_spans(source: str) -> list[tuple[int, int]]:
    """(first line, last line) of every function and class body of a file, decorators included (each a code
    object of its own; its first line is the code object's)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append((first, node.end_lineno or node.lineno))
    return out


def main_guarded(source: str) -> list[tuple[int, int]]:
    """The line spans of a module's `if __name__ == "__main__":` blocks (they run only when it runs as a script)."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test):
            out.append((node.lineno, node.end_lineno or node.lineno))
    return out


_RAISING = ("raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertRaisesWithLiteralMatch")


def expecting_raise(source: str) -> list[tuple[int, int]]:
    """The line spans of the `with pytest.raises(...)` / `with self.assertRaises(...)` blocks of a file: a call
    there is expected to raise, somewhere the record does not tell."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                f = item.context_expr.func if isinstance(item.context_expr, ast.Call) else None
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if name in _RAISING:
                    out.append((node.lineno, node.end_lineno or node.lineno))
    return out


class Executed:
    """Whether a call site ran in the recorded run, as far as the records tell. A record that kept what ran
    (`calls` and `lines`, oracle_trace.py): the code object holding the site was entered and, where it ran line
    by line, the site's line ran. An older record: the innermost function holding it recorded a value (or a
    parameter) there; at a module's top level, the file recorded anything, outside a `__main__` block of a file
    the run did not run as a script."""

    def __init__(self, root: Path, recorded: dict[str, Any]) -> None:
        self.root = root
        self.exact = "calls" in recorded and "lines" in recorded
        self.lines: dict[str, list[int]] = {}
        for f, ln, *_ in recorded.get("values", []):
            self.lines.setdefault(f, []).append(ln)
        for f, first, *_ in recorded.get("params", []):
            self.lines.setdefault(f, []).append(first)
        self.calls: dict[tuple[str, int], bool] = {(f, first): bool(t) for f, first, t in recorded.get("calls", [])}
        self.ran_lines: dict[str, set[int]] = {f: set(ls) for f, ls in recorded.get("lines", {}).items()}
        self.scripts = set(recorded.get("scripts", []))
        self.spans: dict[str, tuple[list[tuple[int, int]], ...] | None] = {}
        # what ran under which calls (a record that kept it): file -> (code's first line, the calls, lines run)
        self.reach: dict[str, list[tuple[int, tuple[tuple[str, int], ...], set[int]]]] | None = None
        if "reach" in recorded:
            self.reach = {}
            for f, first, chain, ls in recorded["reach"]:
                self.reach.setdefault(f, []).append((first, tuple((cf, cl) for cf, cl in chain), set(ls)))
        self.normal: dict[str, tuple[dict[int, int], dict[int, set[int]]] | None] = {}
        self.tests: dict[tuple[str, int], list[bool]] = {}  # a test function's code -> whether each item ran
        for f, first, _node, ran in recorded.get("tests", []):
            self.tests.setdefault((f, first), []).append(bool(ran))

    def _layout(self, f: str) -> tuple[list[tuple[int, int]], ...] | None:
        if f not in self.spans:
            try:
                src = (self.root / f).read_text(encoding="utf-8", errors="replace")
                self.spans[f] = (function_spans(src), main_guarded(src), expecting_raise(src))
            except (OSError, SyntaxError, ValueError):
                self.spans[f] = None
        return self.spans[f]

    def ran(self, file: str, line: int) -> bool:
        f = file[2:] if file.startswith("./") else file
        lay = self._layout(f)
        holding = [sp for sp in lay[0] if sp[0] <= line <= sp[1]] if lay is not None else []
        span = max(holding, key=lambda sp: sp[0]) if holding else None
        if self.exact:
            first = span[0] if span is not None else 0
            entered = self.calls.get((f, first))
            if entered is None:
                # a library module's body is not traced: it ran when the module was imported
                return span is None and any(k[0] == f for k in self.calls) and not self._main_only(f, line, lay)
            return not entered or line in self.ran_lines.get(f, set())
        seen = self.lines.get(f)
        if not seen:
            return False
        if lay is None:
            return True
        if span is None:
            return not self._main_only(f, line, lay)
        lo, hi = span
        return any(lo <= x <= hi for x in seen)

    def _statements(self, f: str) -> tuple[dict[int, int], dict[int, set[int]]] | None:
        """(line -> the first line of its statement; line -> the functions (first lines) entered there: their
        decorators, header and first statement, where the checker places the call it makes of a function itself)."""
        if f not in self.normal:
            try:
                src = (self.root / f).read_text(encoding="utf-8", errors="replace")
                stmts = statement_lines(src)[0]
                entries: dict[int, set[int]] = {}
                for node in ast.walk(ast.parse(src)):
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                        for ln in range(first, node.body[0].lineno + 1):
                            entries.setdefault(ln, set()).add(first)
                self.normal[f] = (stmts, entries)
            except (OSError, SyntaxError, ValueError):
                self.normal[f] = None
        return self.normal[f]

    def _site(self, f: str, line: int) -> tuple[str, int]:
        st = self._statements(f)
        return (f, st[0].get(line, line) if st is not None else line)

    def reached(self, via: dict[str, Any], site: tuple[str, str, int, int]) -> bool | None:
        """Whether the binding ran under a `via`'s path of calls: the run entered the binding's code along those
        calls (each hop a call on the path of enclosing frames, in order; a hop where the checker enters a function
        itself may be absent), and, for an assignment, ran its statement there. None: the record does not tell."""
        if self.reach is None:
            return None
        f, kind, line, first = site
        hops = []
        for h in via.get("path") or [via]:
            hf = h["file"][2:] if h["file"].startswith("./") else h["file"]
            st = self._statements(hf)
            entered = frozenset((hf, x) for x in st[1].get(h["line"], ())) if st is not None else frozenset()
            hops.append((self._site(hf, h["line"]), entered))
        for code_first, chain, ls in self.reach.get(f, []):
            if kind == "p" and code_first != first:
                continue
            if kind == "a" and not any(self._site(f, x)[1] == line for x in ls):
                continue
            if _on_path(hops, [self._site(cf, cl) for cf, cl in chain], (f, line), self.function_of):
                return True
        return False

    def function_of(self, site: tuple[str, int]) -> tuple[str, int] | None:
        """The innermost function (or class) holding a line: (file, first line); None at a module's top level."""
        lay = self._layout(site[0])
        holding = [sp for sp in lay[0] if sp[0] <= site[1] <= sp[1]] if lay is not None else []
        return (site[0], max(holding)[0]) if holding else None

    def partial(self, via: dict[str, Any]) -> bool:
        """Whether a call of the path is in a test function only some of whose items (parameter sets) ran: which
        set gave the type is not known."""
        for h in via.get("path") or [via]:
            f = h["file"][2:] if h["file"].startswith("./") else h["file"]
            lay = self._layout(f)
            holding = [sp for sp in lay[0] if sp[0] <= h["line"] <= sp[1]] if lay is not None else []
            if any(not all(self.tests.get((f, sp[0]), [True])) for sp in holding):
                return True
        return False

    def _main_only(self, f: str, line: int, lay: Any) -> bool:
        """A line of a `__main__` block of a file the run did not run as a script."""
        return lay is not None and f not in self.scripts and any(lo <= line <= hi for lo, hi in lay[1])

    def raising(self, file: str, line: int) -> bool:
        """A call in a block the test expects to raise (`with pytest.raises(...)`): it stopped somewhere inside."""
        lay = self._layout(file[2:] if file.startswith("./") else file)
        return lay is not None and any(lo <= line <= hi for lo, hi in lay[2])

    def ran_path(self, via: dict[str, Any]) -> bool:
        """Whether every call of a `via` (its `path`, else its outermost call) ran, and ran through (a call the
        test expects to raise may have stopped before the binding)."""
        hops = via.get("path") or [via]
        return all(self.ran(h["file"], h["line"]) and not self.raising(h["file"], h["line"]) for h in hops)


def _on_path(
    hops: Sequence[tuple[tuple[str, int], frozenset[tuple[str, int]]]],
    chain: Sequence[tuple[str, int]],
    binding: tuple[str, int],
    function_of: Any,
) -> bool:
    """Whether a checker's path of calls (each hop (site, the functions it is an entry of)) is the run's path of
    enclosing frames (`chain`, the outermost first, the innermost MAX_CHAIN) leading to `binding`: each hop found
    in order, the innermost first (frames between them allowed: a wrapper the checker sees through); a hop where
    the checker enters a function itself (its decorators, header or first line) may be absent where the step
    inward from it (the next call found, or the binding) is made inside that function; a hop past a chain cut at
    its length may be beyond it."""
    i = len(chain) - 1
    inner = binding
    for site, entered in reversed(hops):
        j = i
        while j >= 0 and chain[j] != site:
            j -= 1
        if j >= 0:
            i, inner = j - 1, chain[j]
        elif function_of(inner) not in entered:
            return len(chain) >= MAX_CHAIN
    return True


HELD, NOT_RUN, NOT_REACHED, PARTIAL = "held", "not run", "not reached", "partial"


def standing(t: dict[str, Any], executed: Executed | None, site: tuple[str, str, int, int] | None = None) -> str:
    """Whether an inferred type may be held against the run: HELD where the file's own analysis gives it, or a
    path of calls that gave it ran and the binding ran under it. Else NOT_RUN (no such path ran: it says nothing of
    this run's values), NOT_REACHED (the calls ran, but the binding did not run under them: a branch those calls
    did not take, a test stopped before it), PARTIAL (the calls are in a test only some of whose parameter sets
    ran, the record does not tell which)."""
    if executed is None or t.get("own", True) or not t.get("via"):
        return HELD
    out = NOT_RUN
    for v in t["via"]:
        if not executed.ran_path(v):
            continue
        if site is not None and executed.reached(v, site) is False:
            out = NOT_REACHED if out == NOT_RUN else out
        elif executed.partial(v):
            out = PARTIAL
        else:
            return HELD
    return out


def from_the_run(t: dict[str, Any], executed: Executed | None, site: tuple[str, str, int, int] | None = None) -> bool:
    """Whether an inferred type may be held against the run (`standing`)."""
    return standing(t, executed, site) == HELD


def _symbol_ok(shape: Sequence[Any], run: Sequence[Any]) -> bool:
    seen: dict[str, Any] = {}
    for d, r in zip(shape, run):
        if isinstance(d, str) and d.isidentifier():
            if seen.setdefault(d, r) != r:
                return False
    return True


def level(t: dict[str, Any], shape: Sequence[Any]) -> str | None:
    """How an inferred type (`namedcheck types`'s JSON) matches a run shape: a category, None for a conflict."""
    if not t.get("array") or t.get("rank") is None:
        return "unknown"
    if t["rank"] != len(shape):
        return None
    inferred = t["shape"]
    out = "exact"
    for d, r in zip(inferred, shape):
        if isinstance(d, int) and not isinstance(d, bool):
            if not isinstance(r, int) or d != r:
                return None
        elif isinstance(d, str):
            out = "symbolic" if out == "exact" else out
        else:
            out = "rank-only"
    if not _symbol_ok(inferred, shape):
        return None
    return out


RANK = {"exact": 3, "symbolic": 2, "rank-only": 1, "unknown": 0}


@dataclass
class Verdict:
    category: str
    dtype_mismatch: bool = False
    inferred: str = ""
    capped: bool = False  # a disagreement not held: the run dropped values at the site (MAX_PER_SITE)
    apart: str = ""  # a disagreement not held: NOT_REACHED or PARTIAL (`standing`)


def judge(
    run: tuple[Any, str],
    others: Sequence[tuple[Any, str]],
    types: Sequence[dict[str, Any]],
    executed: Executed | None = None,
    capped: bool = False,
    site: tuple[str, str, int, int] | None = None,
) -> Verdict:
    """One recorded (shape, dtype) against the inferred types of its binding; `others`: every recorded value there;
    `executed`: what ran (a type only calls that did not run gave is not a disagreement); `capped`: the run kept
    only some of the site's values (a type calls gave may be one it dropped: not held; the file's own are)."""
    shape, dtype = run
    best: tuple[str, dict[str, Any]] | None = None
    conflicting = []
    for t in types:
        lv = level(t, shape)
        if lv is None:
            conflicting.append(t)
        elif best is None or RANK[lv] > RANK[best[0]]:
            best = (lv, t)
    if best is not None and best[0] != "unknown":
        t = best[1]
        # (another call's dtype is not a mismatch: the inferred dtype is one no run value there has; nor is a
        # dtype only calls that did not run gave)
        mismatch = (
            t.get("dtype") is not None
            and all(t["dtype"] != d for x, d in others if level(t, x) is not None)
            and from_the_run(t, executed, site)
        )
        return Verdict(best[0], mismatch, t["type"])
    # a type claimed there that no run value has
    claimed = [(t, standing(t, executed, site)) for t in conflicting if all(level(t, s) is None for s, _ in others)]
    wrong = [t for t, st in claimed if st == HELD]
    held = [t for t in wrong if not capped or t.get("own", True)]
    if held:
        return Verdict("disagree", inferred=" | ".join(t["type"] for t in held))
    if wrong:
        return Verdict("unknown", inferred=" | ".join(t["type"] for t in wrong), capped=True)
    for why in (NOT_REACHED, PARTIAL):
        apart = [t for t, st in claimed if st == why]
        if apart:
            return Verdict("unknown", inferred=" | ".join(t["type"] for t in apart), apart=why)
    return Verdict("unknown")


@dataclass
class Figures:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    dtype_mismatches: int = 0
    disagreements: list[str] = field(default_factory=list)
    dtype_list: list[str] = field(default_factory=list)
    capped: list[str] = field(default_factory=list)  # disagreements not held: the run dropped values there
    apart: list[str] = field(default_factory=list)  # not held: the binding did not run under the calls (`standing`)
    programs: int = 0
    files: int = 0
    note: str = ""

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, other: Figures) -> None:
        for k, v in other.counts.items():
            self.counts[k] += v
        self.dtype_mismatches += other.dtype_mismatches
        self.capped += other.capped
        self.apart += other.apart
        self.programs += other.programs
        self.files += other.files


def compare(root: Path, recorded: dict[str, Any], inferred: dict[str, Any]) -> Figures:
    """Every recorded value of a codebase against `namedcheck types`'s JSON for its files."""
    fig = Figures()
    by_file: dict[str, Any] = {}
    for b in inferred.get("bindings", []):
        by_file.setdefault(b["file"], []).append(b)
    analysed = set(by_file) | {p["file"] for p in inferred.get("problems", [])}
    shapes_cache: dict[str, tuple[dict[int, int], dict[tuple[int, str], tuple[int, int]]] | None] = {}

    def layout(f: str) -> tuple[dict[int, int], dict[tuple[int, str], tuple[int, int]]] | None:
        if f not in shapes_cache:
            try:
                shapes_cache[f] = statement_lines((root / f).read_text(encoding="utf-8", errors="replace"))
            except (OSError, SyntaxError, ValueError):
                shapes_cache[f] = None
        return shapes_cache[f]

    sites: dict[tuple[str, str, int, Any, str], list[dict[str, Any]]] = {}
    last: dict[tuple[str, str, int, Any, str], tuple[int, int]] = {}  # a statement's last binding of a name
    for f, bs in by_file.items():
        lay = layout(f)
        if lay is None:
            continue
        for b in bs:
            if b["kind"] == "parameter":
                key = (f, "p", b["line"], b["column"], b["name"])
            else:
                key = (f, "a", lay[0].get(b["line"], b["line"]), 0, b["name"])
                # `y, _, z, _ = carry`: the run sees the name's last value in the statement, not the first
                at = (b["line"], b.get("column", 0))
                if key in last and at != last[key]:
                    if at < last[key]:
                        continue
                    sites[key] = []
                last[key] = at
            sites.setdefault(key, []).extend(b["types"])
    runs: dict[tuple[str, str, int, Any, str], list[tuple[Any, str]]] = {}
    full = full_sites(recorded)
    capped: set[tuple[str, str, int, Any, str]] = set()
    for f, ln, name, shape, dtype in recorded.get("values", []):
        lay = layout(f)  # (a file that does not parse: its values are counted, as unknown)
        key = (f, "a", lay[0].get(ln, ln) if lay else ln, 0, name)
        runs.setdefault(key, []).append((tuple(shape), dtype))
        if ("values", f, ln, name) in full:
            capped.add(key)
    firsts: dict[tuple[str, str, int, Any, str], int] = {}  # a parameter's site -> its code's first line
    for f, first, name, shape, dtype in recorded.get("params", []):
        lay = layout(f)
        pl, pc = lay[1].get((first, name), (first, -1)) if lay else (first, -1)
        runs.setdefault((f, "p", pl, pc, name), []).append((tuple(shape), dtype))
        firsts[(f, "p", pl, pc, name)] = first
        if ("params", f, first, name) in full:
            capped.add((f, "p", pl, pc, name))
    fig.files = len({k[0] for k in runs})
    executed = Executed(root, recorded)
    for key, values in sorted(runs.items(), key=repr):
        f, _, line, _, name = key
        if f not in analysed:
            fig.counts["unknown"] += len(values)
            continue
        types = sites.get(key, [])
        for v in values:
            site = (f, key[1], line, firsts.get(key, 0))
            verdict = judge(v, values, types, executed, key in capped, site)
            fig.counts[verdict.category] += 1
            shown = f"{f}:{line}: {name}: recorded {_shape_text(v)}"
            if verdict.category == "disagree":
                fig.disagreements.append(f"{shown}, inferred {verdict.inferred}")
            elif verdict.capped:
                fig.capped.append(f"{shown}, inferred {verdict.inferred}")
            elif verdict.apart:
                fig.apart.append(f"{shown}, inferred {verdict.inferred} ({verdict.apart})")
            if verdict.dtype_mismatch:
                fig.dtype_mismatches += 1
                fig.dtype_list.append(f"{shown}, inferred {verdict.inferred}")
    return fig


def full_sites(recorded: dict[str, Any]) -> set[tuple[str, str, int, str]]:
    """("values" | "params", file, line, name) of the sites where the run dropped values past MAX_PER_SITE: those
    the tracer listed (`full`), or, in a record made before it did, every site holding MAX_PER_SITE values or more
    (the only ones that can have dropped any: each process keeps the first MAX_PER_SITE)."""
    if "full" in recorded:
        return {tuple(r) for r in recorded["full"]}  # type: ignore[misc]
    count: dict[tuple[str, str, int, str], int] = {}
    for kind in ("values", "params"):
        for f, ln, name, *_ in recorded.get(kind, []):
            count[(kind, f, ln, name)] = count.get((kind, f, ln, name), 0) + 1
    return {k for k, n in count.items() if n >= MAX_PER_SITE}


def _shape_text(v: tuple[Any, str]) -> str:
    shape, dtype = v
    return f"{dtype}{list(shape)}"


# ---- the run ---------------------------------------------------------------------------------------------------
def default_checker() -> str:
    here = Path(sys.executable).parent / "namedcheck"
    return str(here) if here.exists() else "namedcheck"


def measure(args: argparse.Namespace, cb: Codebase) -> Figures:
    root = Path(args.corpus) / cb.name / cb.subdir
    if not root.is_dir():
        return Figures(note="not in the corpus")
    t0 = time.monotonic()
    kept = Path(args.save) / cb.name / "recorded.json" if args.save else None
    done = 0  # --resume: the files the saved record's run started come first in the order; they are not run again
    reached: frozenset[str] = frozenset()  # --fill: the files that recorded values are not run again
    if (args.resume or args.fill) and kept is not None and kept.is_file():
        old = json.loads(kept.read_text())
        args.merge = True
        if args.resume:
            done = int(old.get("programs", 0))
        if args.fill:
            reached = frozenset(r[0] for r in [*old["values"], *old["params"]])
    recorded, ran = record(
        args.python,
        cb,
        root,
        args.budget,
        args.per_run,
        args.chunk,
        args.per_test,
        args.skip,
        args.per_file,
        done,
        reached,
    )
    if args.merge and kept is not None and kept.is_file():  # a later pass over other batches adds to the first
        old = json.loads(kept.read_text())
        for k in ("values", "params"):
            recorded[k] = sorted({tuple(map(_frozen, r)) for r in [*old[k], *recorded[k]]}, key=repr)
        if "calls" in old or "calls" in recorded:  # (both passes must tell what ran, or neither is taken)
            both = merged_runs(old, recorded) if "calls" in old and "calls" in recorded else {}
            for k in ("reach", "tests"):  # (what ran under which calls: only where both passes kept it)
                if k not in old or k not in recorded:
                    both.pop(k, None)
            dropped = ("calls", "lines", "full", "reach", "tests")
            recorded = {**{k: v for k, v in recorded.items() if k not in dropped}, **both}
        ran += int(old.get("programs", 0))
    files = sorted({r[0] for r in recorded["values"]} | {r[0] for r in recorded["params"]})
    files = [f for f in files if not held_out(cb, f)]
    t1 = time.monotonic()
    inferred = infer(args.checker, root, files, args.types_timeout)
    if args.save:  # what `compare --saved DIR` reads again
        out = Path(args.save) / cb.name
        out.mkdir(parents=True, exist_ok=True)
        (out / "recorded.json").write_text(json.dumps({**recorded, "programs": ran}))
        (out / "types.json").write_text(json.dumps(inferred))
    fig = compare(root, recorded, inferred)
    fig.programs = ran
    fig.note = f"run {t1 - t0:.0f}s, types {time.monotonic() - t1:.0f}s" + ("" if inferred else ", types failed")
    return fig


def _frozen(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def compare_saved(args: argparse.Namespace) -> int:
    """The comparison again over the records and types a `run --save DIR` kept (no code run, no analysis); with
    `--reinfer`, the records against the types the current checker infers (the measure of a checker change)."""
    figures = []
    for cb in read_list(Path(args.list)):
        saved = Path(args.saved) / cb.name
        if args.names and cb.name not in args.names or not (saved / "recorded.json").is_file():
            continue
        recorded = json.loads((saved / "recorded.json").read_text())
        root = Path(args.corpus) / cb.name / cb.subdir
        if "scripts" not in recorded:  # (a record made before it said which files ran as scripts)
            recorded["scripts"] = [r for m, r in programs(cb, root) if m == "script"]
        if args.reinfer:
            files = sorted({r[0] for r in recorded["values"]} | {r[0] for r in recorded["params"]})
            inferred = infer(args.checker, root, [f for f in files if not held_out(cb, f)], args.types_timeout)
        else:
            inferred = json.loads((saved / "types.json").read_text())
        fig = compare(root, recorded, inferred)
        fig.programs = int(recorded.get("programs", 0))
        fig.note = "" if inferred else "types failed"
        figures.append((cb.name, fig))
    report(figures, args)
    return 0


def table(results: Iterable[tuple[str, Figures]]) -> str:
    rows = [("codebase", "run", "files", "values", *CATEGORIES, "exact%", "dtype!=", "note")]
    total = Figures()
    for name, fig in results:
        total.add(fig)
        rows.append(_row(name, fig))
    rows.append(_row("total", total))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _row(name: str, fig: Figures) -> tuple[Any, ...]:
    n = fig.total
    pct = f"{100 * fig.counts['exact'] / n:.1f}" if n else "-"
    return (name, fig.programs, fig.files, n, *(fig.counts[c] for c in CATEGORIES), pct, fig.dtype_mismatches, fig.note)


def run(args: argparse.Namespace) -> int:
    codebases = read_list(Path(args.list))
    if args.names:
        codebases = [cb for cb in codebases if cb.name in args.names]
    if not Path(args.corpus).is_dir():
        print(f"shape_oracle: no corpus directory {args.corpus} (build it with `prepare`)", file=sys.stderr)
        return 2
    args.python = os.path.abspath(args.python)  # (not resolved: a virtual environment's link)
    args.corpus = os.path.abspath(args.corpus)
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        figures = list(pool.map(lambda cb: (cb.name, measure(args, cb)), codebases))
    for name, fig in figures:
        print(f"{name}: {fig.total} values ({fig.note})", file=sys.stderr)
    report(figures, args)
    return 0


def report(figures: list[tuple[str, Figures]], args: argparse.Namespace) -> None:
    print(table(figures))
    print("\nDisagreements (recorded at run time vs inferred):")
    for name, fig in figures:
        for d in fig.disagreements:
            print(f"  {name}/{d}")
    print("\nNot held against the run (calls gave them; the run dropped values at the site past its cap):")
    for name, fig in figures:
        for d in fig.capped:
            print(f"  {name}/{d}")
    print(
        "\nNot held against the run (the calls that gave them ran, but the binding did not run under them: 'not"
        " reached'; or they ran in a test only some of whose parameter sets ran: 'partial'):"
    )
    for name, fig in figures:
        for d in fig.apart:
            print(f"  {name}/{d}")
    print("\ndtype mismatches (shape at least rank-right):")
    for name, fig in figures:
        for d in fig.dtype_list[: args.dtype_list]:
            print(f"  {name}/{d}")
        if len(fig.dtype_list) > args.dtype_list:
            print(f"  {name}: ... {len(fig.dtype_list) - args.dtype_list} more")
    if args.json_out:
        data = {
            name: {
                "counts": fig.counts,
                "programs": fig.programs,
                "files": fig.files,
                "dtype_mismatches": fig.dtype_list,
                "disagreements": fig.disagreements,
                "capped": fig.capped,
                "apart": fig.apart,
                "note": fig.note,
            }
            for name, fig in figures
        }
        Path(args.json_out).write_text(json.dumps(data, indent=1))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    pre = sub.add_parser("prepare", help="lay out the corpus sources")
    pre.add_argument("--out", required=True)
    pre.add_argument("--list", default=str(DEFAULT_LIST))
    pre.add_argument("--mirror", help="a directory of git directories (<owner>+<name>/repo)")
    pre.add_argument("--clone", action="store_true", help="git clone the repositories missing from --mirror")
    pre.set_defaults(func=prepare)
    r = sub.add_parser("run", help="record, infer, compare")
    r.add_argument("--corpus", required=True)
    r.add_argument("--python", required=True, help="the interpreter of the environment that runs the code")
    r.add_argument("--list", default=str(DEFAULT_LIST))
    r.add_argument("--names", nargs="*")
    r.add_argument("--checker", default=default_checker())
    r.add_argument("--budget", type=float, default=120.0, help="seconds of running per codebase")
    r.add_argument("--per-run", type=float, default=180.0, help="seconds per process (a batch of test files)")
    r.add_argument("--chunk", type=int, default=24, help="test files per pytest process")
    r.add_argument("--per-test", type=float, default=10.0, help="seconds per test (pytest-timeout, where installed)")
    r.add_argument("--types-timeout", type=float, default=300.0)
    r.add_argument("--jobs", type=int, default=1, help="codebases measured at once")
    r.add_argument("--dtype-list", type=int, default=5, help="dtype mismatches listed per codebase")
    r.add_argument("--json-out")
    r.add_argument("--per-file", type=float, default=12.0, help="seconds of tests per test file (0: no limit)")
    r.add_argument("--skip", type=int, default=0, help="leave out the first N batches (a second pass)")
    r.add_argument("--resume", action="store_true", help="--merge, after the files the saved record already ran")
    r.add_argument("--fill", action="store_true", help="--merge, the files that recorded nothing in the saved record")
    r.add_argument("--merge", action="store_true", help="add to the records --save holds (a second pass)")
    r.add_argument("--save", help="keep each codebase's records and inferred types here (for `compare`)")
    r.set_defaults(func=run)
    c = sub.add_parser("compare", help="compare again what `run --save DIR` kept")
    c.add_argument("--saved", required=True)
    c.add_argument("--corpus", required=True)
    c.add_argument("--list", default=str(DEFAULT_LIST))
    c.add_argument("--names", nargs="*")
    c.add_argument("--dtype-list", type=int, default=5)
    c.add_argument("--json-out")
    c.add_argument("--reinfer", action="store_true", help="infer the types again with the current checker")
    c.add_argument("--checker", default=default_checker())
    c.add_argument("--types-timeout", type=float, default=300.0)
    c.set_defaults(func=compare_saved)
    args = p.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
