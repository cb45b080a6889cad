"""Reported-bugs benchmark: does `namedcheck check` find, at the line, bugs that JAX users reported?

Each program in `bench/reported/NNN_short_name.py` restates one shape / axis / sharding bug that a user
reported in a public issue tracker (jax, flax, equinox, haiku, and projects built on them), rewritten as a
small self-contained program in our own code: sizes come from function parameters, config dataclasses and
`x.shape` as in the reported code, not only from literals. Its header carries the issue URL (`# Reported:`),
one sentence describing the bug and its class (`# class:` vmap, axis_name, flax_params, sharding, axis,
reshape, scan, broadcast, matmul, attention, conv, split, einsum, pmap); the wrong line carries a `# bug:`
comment. Every program runs its buggy path under `if __name__ == "__main__":` with small concrete sizes.

Run it with the interpreter of the environment whose `namedcheck` is to be measured (the `namedcheck`
script next to that interpreter is used, or `--checker PATH`):

    python bench/reported_bugs.py [--checker PATH] [--dir bench/reported] [--only 012 031 ...]
                                  [--jobs 2] [--timeout 120] [--no-jax] [--json-out FILE]

For each program:

1. JAX: the program runs in a subprocess with this interpreter (`XLA_FLAGS=--xla_force_host_platform_device_count=8`,
   `JAX_PLATFORMS=cpu`); it must raise. The first line of the error that ended it is printed. A program that
   exits cleanly is reported as NOT VERIFIED and left out of the figures (`--no-jax` skips this step and
   counts every program).
2. namedcheck: `namedcheck check --no-cache --format json FILE` on a copy of the program in a temporary
   directory (no repository configuration applies; `bench/reported` is in the repository's `exclude`, so
   `namedcheck check .` skips these deliberately wrong programs) whose pyproject.toml states the device
   count the programs run with (`[tool.namedcheck] devices = 8`, as step 1 forces); diagnostics NC000/NC001
   are ignored.
   The result is one of
   - at line: a diagnostic on the `# bug:` line (or on any line of the statement that holds it);
   - near: a diagnostic within 2 lines of it, or a diagnostic elsewhere with a related location
     (`"related"` in the JSON) on that statement: the user is pointed at the line to change;
   - elsewhere: diagnostics only at other places of the file (an effect of the bug, or a false alarm);
   - missed: no diagnostic.

Printed: one row per program (class, result, codes), a summary table overall and per class, and the missed
programs with the JAX error, so each can be judged. Nothing in the repository is changed. On 2 busy cores a
run over the ~40 programs takes about 2 minutes (most of it JAX start-up).

This script is not part of the test suite and the package never imports it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from realcode import default_checker

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE / "reported"
INTERNAL_CODES = {"NC000", "NC001"}
NEAR_LINES = 2
DEVICES = 8  # the device count the programs run with (forced host devices) and are checked under
RESULTS = ("at line", "near", "elsewhere", "missed")
ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit)[\w]*)(?::\s?(.*))?$")


@dataclass(frozen=True)
class Program:
    path: Path
    url: str
    summary: str
    bug_class: str
    bug_line: int
    stmt_lines: tuple[int, int]  # first and last line of the statement holding the `# bug:` line


@dataclass
class Outcome:
    program: Program
    raised: bool | None = None  # None: not run under JAX
    error: str = ""
    result: str = "missed"
    codes: list[str] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # "NC201@13" for every counted diagnostic
    checker_problem: str = ""
    seconds_jax: float = 0.0
    seconds_check: float = 0.0


def statement_span(tree: ast.AST, line: int) -> tuple[int, int]:
    """The smallest simple statement whose lines include `line` (compound statements are skipped)."""
    best: tuple[int, int] = (line, line)
    best_len = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try)
        ):
            continue
        end = node.end_lineno or node.lineno
        if node.lineno <= line <= end and (best_len is None or end - node.lineno < best_len):
            best, best_len = (node.lineno, end), end - node.lineno
    return best


def load_program(path: Path) -> Program:
    text = path.read_text()
    lines = text.splitlines()
    url = summary = bug_class = ""
    bug_line = 0
    for i, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("# Reported:") and not url:
            url = stripped.split(":", 1)[1].strip()
            nxt = lines[i].strip() if i < len(lines) else ""
            if nxt.startswith("#") and not nxt.startswith("# class:"):
                summary = nxt.lstrip("#").strip()
        elif stripped.startswith("# class:") and not bug_class:
            bug_class = stripped.split(":", 1)[1].strip()
        elif "# bug:" in line and not stripped.startswith("#") and not bug_line:
            bug_line = i
    if not (url and bug_class and bug_line):
        raise SystemExit(f"{path}: needs a '# Reported:' URL, a '# class:' line and a '# bug:' comment on code")
    return Program(path, url, summary, bug_class, bug_line, statement_span(ast.parse(text), bug_line))


def first_error_line(stderr: str) -> str:
    """The `Type: message` line of the exception that ended the program (the last one printed)."""
    found = ""
    for line in stderr.splitlines():
        m = ERROR_LINE.match(line.strip())
        if m and not line.startswith(" "):
            found = line.strip()
    if found:
        return found
    tail = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    return tail[-1].strip() if tail else "(no output)"


def run_under_jax(program: Program, timeout: float) -> tuple[bool, str, float]:
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={DEVICES}").strip()
    env.setdefault("JAX_PLATFORMS", "cpu")
    env["PYTHONWARNINGS"] = "ignore"
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(program.path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=program.path.parent,
        )
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout:.0f} s", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if proc.returncode == 0:
        return False, "", seconds
    return True, first_error_line(proc.stderr), seconds


def run_checker(checker: str, program: Program, timeout: float) -> tuple[list[dict], str, float]:
    cmd = [checker, "check", "--no-cache", "--format", "json", program.path.name]
    start = time.perf_counter()
    # a copy in a temporary directory: no repository configuration applies, only the device count the
    # programs run with under JAX (run_under_jax)
    with tempfile.TemporaryDirectory(prefix="nc-reported-") as tmp:
        shutil.copy(program.path, Path(tmp) / program.path.name)
        (Path(tmp) / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = {DEVICES}\n")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return [], f"timed out after {timeout:.0f} s", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        return [], (proc.stderr or proc.stdout).strip()[-500:] or "no output", seconds
    try:
        raw = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        return [], f"unparsable JSON ({exc})", seconds
    return [d for d in raw if isinstance(d, dict)], "", seconds


def classify(program: Program, diags: Sequence[dict]) -> tuple[str, list[str], list[str]]:
    first, last = program.stmt_lines
    counted = [d for d in diags if d.get("code") not in INTERNAL_CODES]
    where = [f"{d.get('code')}@{d.get('line')}" for d in counted]
    codes = sorted({str(d.get("code")) for d in counted})
    if not counted:
        return "missed", codes, where
    if any(first <= int(d.get("line", 0)) <= last for d in counted):
        return "at line", codes, where
    for d in counted:
        line = int(d.get("line", 0))
        if first - NEAR_LINES <= line <= last + NEAR_LINES:
            return "near", codes, where
        for rel in d.get("related") or []:
            if first <= int(rel.get("line", 0)) <= last:
                return "near", codes, where
    return "elsewhere", codes, where


def measure(program: Program, checker: str, timeout: float, with_jax: bool) -> Outcome:
    out = Outcome(program)
    if with_jax:
        out.raised, out.error, out.seconds_jax = run_under_jax(program, timeout)
    diags, out.checker_problem, out.seconds_check = run_checker(checker, program, timeout)
    out.result, out.codes, out.where = classify(program, diags)
    return out


def pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:5.1f}%" if total else "    -"


def print_report(outcomes: Sequence[Outcome], checker: str, with_jax: bool) -> dict:
    print(f"checker: {checker}")
    print(f"programs: {len(outcomes)}")
    print()
    print(f"{'program':40} {'class':12} {'JAX':8} {'result':10} diagnostics (code@line; bug line)")
    for o in outcomes:
        p = o.program
        jax_col = "-" if o.raised is None else ("raises" if o.raised else "NO RAISE")
        diag = ", ".join(o.where) or "-"
        if o.checker_problem:
            diag += f"  [checker problem: {o.checker_problem.splitlines()[-1][:80]}]"
        print(f"{p.path.stem:40} {p.bug_class:12} {jax_col:8} {o.result:10} {diag}; bug@{p.bug_line}")
        if with_jax and o.error:
            print(f"{'':40} JAX: {o.error[:150]}")
    verified = [o for o in outcomes if o.raised is not False]
    unverified = [o for o in outcomes if o.raised is False]
    if unverified:
        print()
        print("NOT VERIFIED (JAX did not raise; left out of the figures):")
        for o in unverified:
            print(f"  {o.program.path.name}")
    total = len(verified)
    overall = Counter(o.result for o in verified)
    by_class: dict[str, Counter[str]] = defaultdict(Counter)
    for o in verified:
        by_class[o.program.bug_class][o.result] += 1
    print()
    print(f"Summary over {total} verified programs (found = at line + near):")
    header = f"{'class':14} {'n':>3} " + " ".join(f"{r:>10}" for r in RESULTS) + f" {'found':>7}"
    print(header)
    print("-" * len(header))
    for cls in sorted(by_class, key=lambda c: (-sum(by_class[c].values()), c)):
        c = by_class[cls]
        n = sum(c.values())
        found = c["at line"] + c["near"]
        print(f"{cls:14} {n:>3} " + " ".join(f"{c[r]:>10}" for r in RESULTS) + f" {pct(found, n):>7}")
    print("-" * len(header))
    found = overall["at line"] + overall["near"]
    print(f"{'all':14} {total:>3} " + " ".join(f"{overall[r]:>10}" for r in RESULTS) + f" {pct(found, total):>7}")
    print(f"{'share':14} {'':>3} " + " ".join(f"{pct(overall[r], total):>10}" for r in RESULTS))
    missed = [o for o in verified if o.result in ("missed", "elsewhere")]
    if missed:
        print()
        print("Missed or flagged only elsewhere (with the JAX error):")
        for o in missed:
            p = o.program
            print(f"  {p.path.name} [{p.bug_class}] {o.result}: {p.summary}")
            print(f"      {p.url}")
            if o.error:
                print(f"      JAX: {o.error[:160]}")
            if o.where:
                print(f"      diagnostics: {', '.join(o.where)}")
    return {
        "checker": checker,
        "programs": len(outcomes),
        "verified": total,
        "overall": {r: overall[r] for r in RESULTS},
        "by_class": {cls: {r: c[r] for r in RESULTS} for cls, c in by_class.items()},
        "rows": [
            {
                "program": o.program.path.name,
                "url": o.program.url,
                "class": o.program.bug_class,
                "bug_line": o.program.bug_line,
                "raised": o.raised,
                "error": o.error,
                "result": o.result,
                "diagnostics": o.where,
            }
            for o in outcomes
        ],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checker", help="namedcheck executable (default: the one beside this interpreter)")
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="directory of NNN_name.py programs")
    ap.add_argument("--only", nargs="*", default=(), help="program number prefixes or name parts to run")
    ap.add_argument("--jobs", type=int, default=2, help="programs measured at once (default 2)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per JAX run / checker run")
    ap.add_argument("--no-jax", action="store_true", help="do not run the programs under JAX")
    ap.add_argument("--json-out", type=Path, help="also write the figures and rows as JSON")
    args = ap.parse_args(argv)
    checker = args.checker or default_checker()
    paths = sorted(p for p in args.dir.glob("[0-9][0-9][0-9]_*.py"))
    if args.only:
        paths = [p for p in paths if any(p.name.startswith(o) or o in p.stem for o in args.only)]
    if not paths:
        raise SystemExit(f"no programs under {args.dir}")
    programs = [load_program(p) for p in paths]
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(lambda p: measure(p, checker, args.timeout, not args.no_jax), programs))
    summary = print_report(outcomes, checker, not args.no_jax)
    print()
    print(f"wall: {time.perf_counter() - start:.1f} s")
    if args.json_out:
        args.json_out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
