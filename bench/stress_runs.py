"""The stress suite's runs of the command line (`bench/stress.py`, tests/stress/): each hostile program beside a
small buggy file in every front-end mode, kill -9 of workers and of the CLI, concurrent runs sharing a cache,
and the mypy plugin with planted standard-library modules.

Every run is a subprocess in a session of its own, under a wall-clock limit (the whole process group is
killed past it: a hang) and an address-space limit (`RLIMIT_AS`, as `prlimit --as` sets it), so a failure costs
the run, never the machine; its peak memory is the `wait4` resident-set maximum of the process and the
workers it waited for.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from stress_gen import KINDS, Kind, expected, write_kind

NAMEDCHECK = [sys.executable, "-m", "namedcheck"]
MEMORY_LIMIT = 4_000_000_000  # bytes of address space per run (RLIMIT_AS)
TIME_BUDGET = 5.0  # [tool.namedcheck] time-budget of the generated projects (seconds per file)
MEMORY_BUDGET = 512  # [tool.namedcheck] memory-budget of the generated projects (MB)
TIME_SLACK = 15.0  # seconds a run may take beyond the file's budget (start-up, reads, the pre-parse guard)
MEMORY_SLACK = 500  # MB a run may hold beyond the memory budget (the interpreter, libcst, the project's index)
HANG_AFTER = 40.0  # seconds past the budget's bound after which a run is killed and counted as a hang
MODES = ("inproc", "parallel", "stdin", "infer", "imported", "stub")

BUGGY = """import jax.numpy as jnp
from namedcheck import f32


def bad(a: f32[(3, 4)], b: f32[(5,)]):
    h = jnp.tanh(a)
    return h + b
"""
BUGGY_LINE = 7  # the NC201 of BUGGY (`h + b`)
FILLER = """import jax.numpy as jnp
from namedcheck import f32


def ok{i}(a: f32[(3, 4)], b: f32[(4,)]):
    return jnp.tanh(a) + b
"""


@dataclass
class Run:
    rc: int  # the exit status (negative: killed by that signal)
    seconds: float
    peak_mb: float
    stdout: str
    stderr: str
    hung: bool = False  # killed past the wall-clock limit


def run_limited(
    argv: list[str],
    cwd: Path,
    timeout: float,
    stdin: Path | bytes | None = None,
    memory: int = MEMORY_LIMIT,
    env: dict[str, str] | None = None,
    on_start=None,
) -> Run:
    """Run `argv` in its own session under `timeout` seconds and `memory` bytes of address space.
    `on_start(popen)` runs once it started (kill -9 scenarios); the whole process group is killed at the end."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if isinstance(stdin, bytes):
            inp.write(stdin)
            inp.seek(0)
            source = inp
        elif isinstance(stdin, Path):
            source = open(stdin, "rb")  # noqa: SIM115 (closed below)
        else:
            source = subprocess.DEVNULL  # type: ignore[assignment]
        start = time.monotonic()
        p = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=source,
            stdout=out,
            stderr=err,
            preexec_fn=limit,
            start_new_session=True,
            env={**os.environ, **(env or {})},
        )
        if isinstance(stdin, Path):
            source.close()
        if on_start is not None:
            on_start(p)
        hung = False
        sampled = 0.0  # the largest resident set seen among the run's processes (workers killed unreaped too)
        polls = 0
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            polls += 1
            if polls % 10 == 0:
                sampled = max(sampled, session_rss_mb(p.pid))
            if time.monotonic() - start > timeout:
                hung = True
                _kill_group(p.pid)
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        seconds = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        _kill_group(p.pid)  # workers it left behind
        out.seek(0)
        err.seek(0)
        return Run(
            p.returncode,
            seconds,
            max(usage.ru_maxrss / 1024, sampled),
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            hung,
        )


def session_rss_mb(sid: int) -> float:
    """The largest resident set, in MB, among the live processes of session `sid` (from /proc)."""
    best = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if int(stat[stat.rindex(")") + 2 :].split()[3]) != sid:
                continue
            best = max(best, int(Path(f"/proc/{entry}/statm").read_text().split()[1]))
        except (OSError, ValueError, IndexError):
            continue
    return best * os.sysconf("SC_PAGE_SIZE") / 2**20


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---- hostile programs ------------------------------------------------------------------------------------


@dataclass
class Case:
    kind: str
    jax: bool
    mode: str
    run: Run | None = None
    problems: list[str] = field(default_factory=list)  # crash: / hang: / lost: / wrong: / slow: / memory:

    def count(self, what: str) -> int:
        return sum(p.startswith(what + ":") for p in self.problems)


def _project(root: Path, stubs: bool = False, config: str = "") -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    extra = ('stub-paths = ["stubs"]\n' if stubs else "") + config
    (root / "pyproject.toml").write_text(
        f"[tool.namedcheck]\ntime-budget = {TIME_BUDGET}\nmemory-budget = {MEMORY_BUDGET}\n{extra}"
    )


def _diagnostics(run: Run) -> list[dict] | None:
    try:
        diags = json.loads(run.stdout)
    except ValueError:
        return None
    return diags if isinstance(diags, list) else None


def _judge_file(diags: list[dict], name: str, outcome: str) -> str | None:
    """What is wrong with the diagnostics of one file, given its expected outcome."""
    mine = [d.get("code") for d in diags if Path(str(d.get("path", ""))).name == name]
    if outcome == "clean" and mine:
        return f"{name}: expected no diagnostic, got {mine}"
    if outcome == "bug" and (mine.count("NC201") != 1 or "NC001" in mine):
        return f"{name}: expected its last line's NC201 and no NC001, got {mine}"
    if outcome == "nc001" and mine != ["NC001"]:
        return f"{name}: expected one NC001, got {mine}"
    if outcome == "either" and mine not in ([], ["NC001"]):
        return f"{name}: expected no diagnostic or one NC001, got {mine}"
    return None


def run_case(kind: Kind, size: int, jax: bool, mode: str, work: Path, data: bytes | None = None) -> Case:
    """One hostile program in one mode beside the buggy file; the problems found (none: as the issue asks)."""
    case = Case(kind.name, jax, mode)
    root = work / f"{kind.name}-{'jax' if jax else 'nojax'}-{mode}"
    _project(root, stubs=mode == "stub", config=kind.config(size) if kind.config is not None else "")
    if data is None and not kind.special:
        data = kind.make(size, jax)

    def put(path: Path) -> None:
        if kind.special:
            write_kind(kind, path, size, jax)
        else:
            assert data is not None
            path.write_bytes(data)

    buggy_line = BUGGY_LINE
    buggy = BUGGY
    check = [*NAMEDCHECK, "check", "--format", "json", "--no-cache"]
    stdin: Path | bytes | None = None
    hostile_outcome = expected(kind, jax)
    judged = "hostile.py"
    if mode == "inproc":
        put(root / "hostile.py")
        argv = [*check, "hostile.py", "buggy.py"]
    elif mode == "parallel":
        put(root / "hostile.py")
        for i in range(8):
            (root / f"filler{i}.py").write_text(FILLER.format(i=i))
        argv = [*check, "-j", "2", "."]
    elif mode == "stdin":
        if kind.special == "devzero":
            stdin = Path("/dev/zero")
        else:
            stdin = data
        argv = [*check, "-", "--stdin-filename", "hostile.py"]
    elif mode == "infer":
        put(root / "hostile.py")
        argv = [*NAMEDCHECK, "infer", "hostile.py", "buggy.py"]
    elif mode == "imported":
        put(root / "hostile_mod.py")
        buggy = "import hostile_mod\n\nz = hostile_mod.x\n" + BUGGY
        buggy_line += 3
        argv = [*check, "buggy.py"]
        judged = ""
    elif mode == "stub":
        (root / "stubs").mkdir()
        put(root / "stubs" / "hostile_mod.pyi")
        argv = [*check, "buggy.py"]
        judged = ""
    else:
        raise ValueError(mode)
    if mode != "stdin":
        (root / "buggy.py").write_text(buggy)
    bound = TIME_BUDGET + TIME_SLACK
    run = case.run = run_limited(argv, root, bound + HANG_AFTER, stdin=stdin)
    p = case.problems
    # exit status 2 is the documented status of a run given a path it cannot read (a special file named or
    # found: its diagnostics still printed) or a stub it cannot use (said on stderr, as a configuration
    # error); any other input ends 0 or 1
    named = kind.special and mode in ("inproc", "parallel", "stdin", "infer")
    allowed = (0, 1, 2) if named or mode == "stub" else (0, 1)
    if run.hung:
        p.append(f"hang: killed after {run.seconds:.0f} s")
    elif run.rc not in allowed:
        p.append(f"crash: exit status {run.rc}: {_tail(run.stderr)}")
    elif "Traceback" in run.stderr or "internal error" in run.stderr:
        p.append(f"crash: {_tail(run.stderr)}")
    if run.seconds > bound and not run.hung:
        p.append(f"slow: {run.seconds:.1f} s > {bound:.0f} s")
    if run.peak_mb > MEMORY_BUDGET + MEMORY_SLACK:
        p.append(f"memory: {run.peak_mb:.0f} MB > {MEMORY_BUDGET + MEMORY_SLACK} MB")
    if run.hung or run.rc < 0:
        if mode != "stdin":
            p.append("lost: the buggy file's result (the run died)")
        return case
    if mode == "infer":
        if "buggy.py:6:" not in run.stdout:
            p.append("lost: no inferred annotation for buggy.py")
        return case
    diags = _diagnostics(run)
    if diags is None:
        p.append(f"lost: the output is not a JSON array: {_tail(run.stdout or run.stderr)}")
        return case
    if mode == "stub" and run.rc == 2 and "stub" in run.stderr:
        return case  # the run refuses a stub it cannot use, saying which (a configuration error, not a false pass)
    if mode != "stdin":
        got = [(d.get("line"), d.get("code")) for d in diags if Path(str(d.get("path", ""))).name == "buggy.py"]
        if (buggy_line, "NC201") not in got:
            p.append(f"lost: buggy.py's NC201 (got {got})")
        extra = [c for line, c in got if (line, c) != (buggy_line, "NC201") and c != "NC001"]
        if extra:
            p.append(f"wrong: buggy.py also got {extra}")
    if mode == "parallel":
        for i in range(8):
            bad = _judge_file(diags, f"filler{i}.py", "clean")
            if bad:
                p.append("wrong: " + bad)
    if judged:
        bad = _judge_file(diags, judged, hostile_outcome)
        if bad:
            p.append("wrong: " + bad)
    if any(d.get("code") == "NC000" for d in diags):
        p.append("wrong: NC000 (an internal error) reported")
    return case


def _tail(text: str, n: int = 160) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return (lines[-1] if lines else "")[:n]


def hostile(
    kinds: list[str],
    modes: list[str],
    quick: bool,
    work: Path,
    jax_variants=(True, False),
    progress=None,
    jobs: int = 1,
) -> list[Case]:
    """Every (kind, with/without jax, mode) case, `jobs` at a time; `progress(case)` sees each as it ends."""
    from concurrent.futures import ThreadPoolExecutor

    def one(kind: Kind, size: int, jax: bool, mode: str, data: bytes | None) -> Case:
        case = run_case(kind, size, jax, mode, work, data)
        shutil.rmtree(work / f"{kind.name}-{'jax' if jax else 'nojax'}-{mode}", ignore_errors=True)
        if progress is not None:
            progress(case)
        return case

    cases = []
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for name in kinds:
            kind = KINDS[name]
            size = kind.quick if quick else kind.size
            for jax in jax_variants:
                data = None if kind.special else kind.make(size, jax)
                for mode in modes:
                    if mode == "stdin" and not kind.stdin or mode == "stub" and not kind.stub:
                        continue
                    if not jax and mode in ("stdin", "infer", "stub"):
                        continue  # the relevance shortcut matters where the project's files are listed
                    cases.append(pool.submit(one, kind, size, jax, mode, data))
        return [c.result() for c in cases]


# ---- kill -9 and concurrent runs -------------------------------------------------------------------------


def work_file(i: int, lines: int = 400) -> str:
    """A file whose analysis takes a few tenths of a second: `lines` distinct array statements."""
    body = [f"x{k} = jnp.tanh(x{k - 1} @ w) + x{k - 1}.sum(axis=0) * {i}" for k in range(1, lines)]
    return "import jax.numpy as jnp\n\nx0 = jnp.ones((8, 16))\nw = jnp.ones((16, 16))\n" + "\n".join(body) + "\n"


DEP_A = """import jax.numpy as jnp


def make():
    return jnp.ones((3, 4))
"""
DEP_B = DEP_A.replace("(3, 4)", "(3, 5)")
USER = """import jax.numpy as jnp
from dep import make

y{i} = make() + jnp.ones((5,))
"""


def work_tree(root: Path, n: int = 24, users: int = 4, lines: int = 400) -> None:
    """A project whose run lasts a few seconds: `n` files of loops, buggy files, a dependency and its users."""
    _project(root)
    for i in range(n):
        (root / f"work{i}.py").write_text(work_file(i, lines))
    for i in range(3):
        (root / f"buggy{i}.py").write_text(BUGGY)
    (root / "dep.py").write_text(DEP_A)
    for i in range(users):
        (root / f"user{i}.py").write_text(USER.format(i=i))


def result_set(run: Run) -> set[tuple[str, int, str]] | None:
    diags = _diagnostics(run)
    if diags is None:
        return None
    return {(Path(str(d.get("path"))).name, int(d.get("line", 0)), str(d.get("code"))) for d in diags}


def children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (its workers), from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[1]) == pid:
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _kill_when_workers(target: str, delay: float, seen: list[int]):
    """An `on_start` that waits for the CLI's workers, then kills one worker (`worker`) or the CLI (`cli`)."""

    def on_start(p: subprocess.Popen) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and alive(p.pid):
            kids = children(p.pid)
            if kids:
                time.sleep(delay)
                kids = children(p.pid) or kids
                seen.extend(kids)
                victim = p.pid if target == "cli" else kids[0]
                try:
                    os.kill(victim, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return
            time.sleep(0.01)

    return on_start


@dataclass
class Scenario:
    name: str
    tried: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # figures printed, not failures
    worst_s: float = 0.0
    worst_mb: float = 0.0

    def add(self, run: Run) -> None:
        self.tried += 1
        self.worst_s = max(self.worst_s, run.seconds)
        self.worst_mb = max(self.worst_mb, run.peak_mb)


def kill_workers(work: Path, rounds: int = 3) -> Scenario:
    """kill -9 of one worker mid-run: every file's result still comes; a warm cached run then equals --no-cache."""
    sc = Scenario("kill_worker")
    root = work / "kill-worker"
    work_tree(root)
    check = [*NAMEDCHECK, "check", "--format", "json", "-j", "2", "."]
    truth_run = run_limited([*check, "--no-cache"], root, 300)
    sc.add(truth_run)
    truth = result_set(truth_run)
    if truth is None or not any(c == "NC201" for _, _, c in truth):
        sc.problems.append(f"crash: the --no-cache run failed: {_tail(truth_run.stderr or truth_run.stdout)}")
        return sc
    for r in range(rounds):
        shutil.rmtree(root / ".namedcheck_cache", ignore_errors=True)
        seen: list[int] = []
        run = run_limited(check, root, 300, on_start=_kill_when_workers("worker", 0.3 + 0.4 * r, seen))
        sc.add(run)
        got = result_set(run)
        if not seen:
            sc.problems.append(f"round {r}: no worker seen to kill")
        if run.hung:
            sc.problems.append(f"hang: round {r}")
        elif run.rc not in (0, 1) or got is None:
            sc.problems.append(f"crash: round {r}: exit status {run.rc}: {_tail(run.stderr)}")
        elif got != truth:
            sc.problems.append(f"lost: round {r}: missing {sorted(truth - got)[:3]}, extra {sorted(got - truth)[:3]}")
        sc.notes.append(f"round {r}: {run.seconds:.1f} s with a worker killed, {truth_run.seconds:.1f} s without")
        warm = run_limited(check, root, 300)
        sc.add(warm)
        if result_set(warm) != truth:
            sc.problems.append(f"wrong: round {r}: the warm run after the kill differs from --no-cache")
    return sc


def kill_cli(work: Path, rounds: int = 3, grace: float = 5.0) -> Scenario:
    """kill -9 of the CLI mid-run: none of its workers is still alive `grace` seconds later."""
    sc = Scenario("kill_cli")
    root = work / "kill-cli"
    work_tree(root, 40)
    check = [*NAMEDCHECK, "check", "--format", "json", "-j", "2", "--no-cache", "."]
    for r in range(rounds):
        seen: list[int] = []
        leaked: list[int] = []

        def watch(p: subprocess.Popen, seen=seen, leaked=leaked, r=r) -> None:
            _kill_when_workers("cli", 0.3 + 0.3 * r, seen)(p)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and any(alive(w) for w in seen):
                time.sleep(0.05)
            leaked.extend(w for w in seen if alive(w))

        run = run_limited(check, root, 120, on_start=watch)
        sc.add(run)
        if not seen:
            sc.problems.append(f"round {r}: no worker seen")
        if leaked:
            sc.problems.append(f"leak: round {r}: {len(leaked)} of {len(seen)} workers alive {grace:.0f} s after")
    return sc


def concurrent(work: Path, runs: int = 8, rounds: int = 3) -> Scenario:
    """`runs` runs at once on one tree and one cache, files edited between and during the runs: every run that
    saw no edit equals --no-cache, every run ends with a JSON array, and the warm run after equals --no-cache."""
    sc = Scenario("concurrent")
    root = work / "concurrent"
    work_tree(root, 8, users=16, lines=40)
    check = [*NAMEDCHECK, "check", "--format", "json", "-j", "1", "."]
    for r in range(rounds):
        dep = DEP_A if r % 2 == 0 else DEP_B
        (root / "dep.py").write_text(dep)
        (root / "buggy0.py").write_text(BUGGY if r % 2 == 0 else BUGGY.replace("(5,)", "(4,)"))
        truth = result_set(run_limited([*check, "--no-cache"], root, 300))
        results = _at_once(check, root, runs)
        for run in results:
            sc.add(run)
            got = result_set(run)
            if run.hung:
                sc.problems.append(f"hang: round {r}")
            elif run.rc not in (0, 1) or got is None:
                sc.problems.append(f"crash: round {r}: exit status {run.rc}: {_tail(run.stderr)}")
            elif got != truth:
                sc.problems.append(
                    f"wrong: round {r}: a concurrent run differs from --no-cache: {sorted(got ^ truth)[:3]}"
                )
        # edits while the runs check: the dependency flips under them until the first run ends; afterwards the
        # cache must hold no result computed from one text under the key of the other, in either state
        other = DEP_B if r % 2 == 0 else DEP_A

        def edit_during(p: subprocess.Popen, other=other, dep=dep) -> None:
            flips = 0
            while alive(p.pid) and flips < 200:
                (root / "dep.py").write_text(other if flips % 2 == 0 else dep)
                flips += 1
                time.sleep(0.07)
            (root / "dep.py").write_text(dep)

        during = _at_once(check, root, runs, on_start=edit_during)
        for run in during:
            sc.add(run)
            if run.hung or run.rc not in (0, 1) or result_set(run) is None:
                sc.problems.append(f"crash: round {r} (edits during): exit status {run.rc}: {_tail(run.stderr)}")
        for text in (dep, other):
            (root / "dep.py").write_text(text)
            truth = result_set(run_limited([*check, "--no-cache"], root, 300))
            warm = run_limited(check, root, 300)
            sc.add(warm)
            if result_set(warm) != truth:
                sc.problems.append(
                    f"wrong: round {r}: after edits during runs, a cached run differs from --no-cache: "
                    f"{sorted((result_set(warm) or set()) ^ (truth or set()))[:3]}"
                )
        (root / "dep.py").write_text(dep)
    return sc


def _at_once(argv: list[str], root: Path, n: int, on_start=None) -> list[Run]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n) as pool:
        futures = [
            pool.submit(run_limited, argv, root, 300, None, MEMORY_LIMIT, None, on_start if i == 0 else None)
            for i in range(n)
        ]
        return [f.result() for f in futures]


# ---- the mypy plugin -------------------------------------------------------------------------------------

PLANT_SAFE = "open({path!r}, 'w').write('ran')\n"


# top-level modules mypy refuses to let a project shadow (a blocking error before any plugin runs)
MYPY_CORE = {"builtins", "typing", "types", "typing_extensions", "mypy_extensions", "collections", "sys", "abc"}


def planted_names() -> list[str]:
    """Standard-library module names a project file could shadow (every public top-level name but mypy's core)."""
    skip = {"this", "antigravity", *MYPY_CORE}
    return sorted(n for n in sys.stdlib_module_names if not n.startswith("_") and n not in skip)


def mypy_plugin(work: Path) -> Scenario:
    """mypy with the plugin over a project that plants a module for every standard-library name: none runs."""
    sc = Scenario("mypy_plugin")
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None:
        sc.problems.append("skip: mypy is not installed")
        return sc
    root = work / "plugin"
    _project(root)
    markers = work / "plugin-markers"
    shutil.rmtree(markers, ignore_errors=True)
    markers.mkdir()
    for name in planted_names():
        (root / f"{name}.py").write_text(PLANT_SAFE.format(path=str(markers / name)))
    (root / "model.py").write_text(BUGGY)
    (root / "mypy.ini").write_text("[mypy]\nplugins = namedcheck_mypy\n")
    # the plants work: a Python with the project first on its path runs one
    control = run_limited([sys.executable, "-c", "import textwrap"], root, 60)
    sc.add(control)
    if not (markers / "textwrap").exists():
        sc.problems.append("wrong: the planted textwrap.py did not run with the project on sys.path (bad plant)")
    for m in markers.iterdir():
        m.unlink()
    mypy = str(Path(sys.executable).parent / "mypy")
    run = run_limited(
        [mypy, "--config-file", "mypy.ini", "--cache-dir", str(work / "plugin-cache"), "model.py"], root, 300
    )
    sc.add(run)
    if run.hung:
        sc.problems.append("hang: mypy with the plugin")
    ran = sorted(m.name for m in markers.iterdir())
    if ran:
        sc.problems.append(f"ran: {len(ran)} planted modules ran: {', '.join(ran[:12])}")
    if "NC201" not in run.stdout:
        sc.problems.append(f"lost: the plugin did not report model.py's NC201: {_tail(run.stdout + run.stderr)}")
    return sc
