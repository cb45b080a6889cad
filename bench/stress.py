"""The stress suite: hostile input against every front end, with figures.

    python bench/stress.py                 # everything (about six minutes when nothing fails)
    python bench/stress.py --quick         # every part, small sizes and few modes (about a minute)
    python bench/stress.py hostile --kinds bool_chain,fifo --modes inproc,stdin
    python bench/stress.py soak --edits 5000
    python bench/stress.py frames | latency | kill | concurrent | plugin | daemon | paths | xmap
    python bench/stress.py latency --lines 3000

Parts:
- `hostile`: generated hostile programs (bench/stress_gen.py: deep and long operator chains, 20k-part imports,
  nested lambdas and f-strings, deep brackets, implicitly joined strings, tab/space mixes, a latin-1 coding line,
  `b"\\x.0"`, nested comprehensions, huge loops, a 50 MB file, a 10 MB line, a NUL, a symlink to itself, a FIFO,
  /dev/zero), each with and without `import jax`, in each mode: `inproc` (`check hostile.py buggy.py`),
  `parallel` (`check -j 2` over ten files), `stdin` (`check -`), `infer`, `imported` (a checked file imports it),
  `stub` (a file of stub-paths) and `lsp` (opened in the language server). A case fails on a crash (an exit
  status other than 0 / 1, a traceback), a hang (killed past its limit), a lost diagnostic (the buggy file's
  NC201 beside it), a wrong outcome (not the kind's expected one: no diagnostic, or one NC001), a time past the
  file's budget plus a constant, or a peak memory past the memory budget plus a constant.
- `soak`: the language server through thousands of unique edits, each followed by a hover, inlay-hint or
  code-action request: resident memory at start and end, its slope per 1,000 edits, latency p50 / p95 / max.
- `frames`: malformed JSON-RPC frames and bad parameters, each followed by a valid request.
- `latency`: the language server's requests (hover, inlay hints, code actions, on the large document and on a
  small one) sent one after another while a large document is analysed, then analysed again after an edit:
  latency p50 / p95 / max; every request is to be answered within 1 s (`LATENCY_BAR_S`).
- `kill`: kill -9 of a worker mid-run (every file's result still comes; the warm cache equals --no-cache) and
  of the CLI (no worker left alive).
- `concurrent`: runs at once sharing one cache, files edited between and during them.
- `plugin`: mypy with the plugin over a project planting every standard-library module name.
- `daemon`: `namedcheck daemon` past a client that never reads its reply, one that trickles its request, a JSON
  nested 100,000 deep, refused option values and a folder at the socket path (bench/stress_serve.py): every
  later `check` served in time, its output an in-process check's.
- `paths`: the language server on files under `tiny+plus` (the URI raw and with `%2B`), a space, unicode:
  diagnostics and hover for each.
- `xmap`: the runtime's `namedcheck.xmap` over a dict of 2,000 leaves, within 30 s.

Exit status 1 when anything failed. Every process runs under a wall-clock limit and an address-space limit.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import stress_lsp  # noqa: E402
import stress_runs  # noqa: E402
import stress_serve  # noqa: E402
from stress_gen import KINDS  # noqa: E402

QUICK_KINDS_SKIP = ("big_file",)  # the 6 MB long line stands for the size cap in --quick
LSP_LIMIT = stress_runs.TIME_BUDGET + stress_runs.TIME_SLACK
LATENCY_BAR_S = 1.0  # a request's answer while a large document is analysed


def _row(cells: list[object], widths: list[int]) -> str:
    return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))


def run_hostile(args: argparse.Namespace, work: Path, report: dict) -> bool:
    kinds = args.kinds.split(",") if args.kinds else [k for k in KINDS if not (args.quick and k in QUICK_KINDS_SKIP)]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        sys.exit(f"stress: unknown kinds {unknown}; known: {', '.join(KINDS)}")
    default_modes = ["inproc", "lsp"] if args.quick else [*stress_runs.MODES, "lsp"]
    modes = args.modes.split(",") if args.modes else default_modes
    cli_modes = [m for m in modes if m != "lsp"]
    variants = (True,) if args.quick else (True, False)
    rows: dict[str, dict] = {}
    failures: list[str] = []

    def note(kind: str, mode: str, jax: bool, problems: list[str], seconds: float, mb: float) -> None:
        r = rows.setdefault(
            kind,
            {"inputs": 0, "crash": 0, "hang": 0, "lost": 0, "wrong": 0, "slow": 0, "memory": 0, "s": 0.0, "mb": 0.0},
        )
        r["inputs"] += 1
        for what in ("crash", "hang", "lost", "wrong", "slow", "memory"):
            r[what] += any(p.startswith(what + ":") for p in problems)
        r["s"] = max(r["s"], seconds)
        r["mb"] = max(r["mb"], mb)
        for p in problems:
            failures.append(f"{kind} [{mode}, {'jax' if jax else 'no jax'}] {p}")
        if args.verbose:
            print(
                f"  {kind:28} {mode:9} {'jax' if jax else 'nojax':6} {seconds:6.1f} s {mb:7.0f} MB  {problems}",
                flush=True,
            )

    def progress(case: stress_runs.Case) -> None:
        assert case.run is not None
        note(case.kind, case.mode, case.jax, case.problems, case.run.seconds, case.run.peak_mb)

    start = time.monotonic()
    if cli_modes:
        for name in kinds:
            jax_variants = variants if KINDS[name].expect != "clean" or not args.quick else (True,)
            stress_runs.hostile([name], cli_modes, args.quick, work, jax_variants, progress, args.jobs)
    if "lsp" in modes:
        for name in kinds:
            kind = KINDS[name]
            if kind.special:
                continue
            size = kind.quick if args.quick else kind.size
            text = kind.make(size, True).decode("utf-8", "replace")
            b = stress_lsp.hostile_buffer(work, name, text, LSP_LIMIT + stress_runs.HANG_AFTER)
            shutil.rmtree(work / f"buffer-{name}", ignore_errors=True)
            problems = []
            if not b.alive:
                problems.append(f"crash: the server died: {b.detail}")
            if not b.answered:
                problems.append("hang: the hover on the hostile buffer was not answered")
            if not b.buggy_kept:
                problems.append("lost: the model's NC201 was not published again")
            if b.seconds > LSP_LIMIT:
                problems.append(f"slow: {b.seconds:.1f} s > {LSP_LIMIT:.0f} s")
            if b.peak_mb > stress_runs.MEMORY_BUDGET + stress_runs.MEMORY_SLACK:
                problems.append(f"memory: {b.peak_mb:.0f} MB")
            note(name, "lsp", True, problems, b.seconds, b.peak_mb)
    widths = [28, 6, 7, 5, 4, 5, 4, 6, 7, 8]
    print(f"\nhostile programs ({time.monotonic() - start:.0f} s; modes {', '.join(modes)})")
    print(
        _row(["kind", "inputs", "crashes", "hangs", "lost", "wrong", "slow", "memory", "worst s", "worst MB"], widths)
    )
    total = {"inputs": 0, "crash": 0, "hang": 0, "lost": 0, "wrong": 0, "slow": 0, "memory": 0, "s": 0.0, "mb": 0.0}
    for kind, r in rows.items():
        print(
            _row(
                [
                    kind,
                    r["inputs"],
                    r["crash"],
                    r["hang"],
                    r["lost"],
                    r["wrong"],
                    r["slow"],
                    r["memory"],
                    f"{r['s']:.1f}",
                    f"{r['mb']:.0f}",
                ],
                widths,
            )
        )
        for k in total:
            total[k] = max(total[k], r[k]) if k in ("s", "mb") else total[k] + r[k]
    print(
        _row(
            [
                "all",
                *[total[k] for k in ("inputs", "crash", "hang", "lost", "wrong", "slow", "memory")],
                f"{total['s']:.1f}",
                f"{total['mb']:.0f}",
            ],
            widths,
        )
    )
    if failures:
        print(f"\nfailed cases ({len(failures)}):")
        for f in failures[: args.show]:
            print("  " + f)
        if len(failures) > args.show:
            print(f"  ... and {len(failures) - args.show} more (--show N)")
    report["hostile"] = {"kinds": rows, "failures": failures}
    return not failures


def run_soak(args: argparse.Namespace, work: Path, report: dict) -> bool:
    edits = args.edits or (200 if args.quick else 5000)
    start = time.monotonic()

    def progress(s: stress_lsp.Soak, i: int) -> None:
        if args.verbose and i % 500 == 0:
            print(f"  soak: {i} edits, {s.rss[-1][1]:.0f} MB", flush=True)

    s = stress_lsp.soak(work, edits, max(10, edits // 40), progress)
    slope = s.slope()
    print(f"\nlanguage-server soak ({time.monotonic() - start:.0f} s)")
    print(f"  edits {s.edits}, requests {s.requests}, unanswered {s.unanswered}, error responses {s.errors}")
    if s.rss:
        print(f"  resident memory: {s.rss[0][1]:.0f} MB at start, {s.rss[-1][1]:.0f} MB at the end")
    print(f"  memory slope over the second half: {slope:+.1f} MB per 1,000 edits")
    print(
        f"  request latency: p50 {1000 * s.percentile(0.5):.0f} ms, p95 {1000 * s.percentile(0.95):.0f} ms, "
        f"max {1000 * max(s.latencies, default=0):.0f} ms"
    )
    if s.died:
        print(f"  the server died: {s.died}")
    report["soak"] = {
        "edits": s.edits,
        "requests": s.requests,
        "unanswered": s.unanswered,
        "rss_start_mb": s.rss[0][1] if s.rss else None,
        "rss_end_mb": s.rss[-1][1] if s.rss else None,
        "slope_mb_per_1000": slope,
        "p50_ms": 1000 * s.percentile(0.5),
        "p95_ms": 1000 * s.percentile(0.95),
        "max_ms": 1000 * max(s.latencies, default=0),
    }
    # a short session measures the bounded caches filling up: the slope is judged from 1,000 edits on
    judged = s.edits >= 1000 and slope > args.max_slope
    ok = not s.unanswered and not s.died and not s.errors and not judged
    if judged:
        print(f"  FAIL: memory grows by more than {args.max_slope} MB per 1,000 edits")
    elif s.edits < 1000:
        print("  (the slope is judged from 1,000 edits on: a short session sees the bounded caches fill)")
    return ok


def run_frames(args: argparse.Namespace, work: Path, report: dict) -> bool:
    start = time.monotonic()
    got = stress_lsp.frames(work, answer_s=10.0)
    print(f"\nmalformed JSON-RPC ({time.monotonic() - start:.0f} s): {sum(f.ok for f in got)} of {len(got)} handled")
    print(_row(["frame", "answered", "then answered", "result"], [52, 8, 13, 40]))
    for f in got:
        outcome = f.closed and f"closed: {f.closed[:60]}" or f.detail.strip() or "ok"
        print(_row([("  " if f.ok else "! ") + f.name, f.answered, f.after, outcome[:70]], [52, 8, 13, 40]))
    report["frames"] = [vars(f) for f in got]
    return all(f.ok for f in got)


def run_latency(args: argparse.Namespace, work: Path, report: dict) -> bool:
    lines = args.lines or (600 if args.quick else 3000)
    start = time.monotonic()
    got = stress_lsp.latency(work, lines)
    worst = max(got.latencies, default=0.0)
    print(
        f"\nlanguage-server latency while a {lines}-statement document is analysed ({time.monotonic() - start:.0f} s)"
    )
    print(f"  its first analysis: {got.analysis_s:.1f} s; then analysed again after an edit")
    print(f"  requests {got.requests}, unanswered {got.unanswered}, error responses {got.errors}")
    print(
        f"  request latency: p50 {1000 * got.percentile(0.5):.0f} ms, p95 {1000 * got.percentile(0.95):.0f} ms, "
        f"max {1000 * worst:.0f} ms (bar: {LATENCY_BAR_S:g} s)"
    )
    for kind, xs in sorted(got.kinds.items()):
        print(f"    {kind:24} {len(xs):3} requests, max {1000 * max(xs):.0f} ms")
    if got.died:
        print(f"  FAIL: {got.died}")
    report["latency"] = {
        **{k: v for k, v in vars(got).items() if k != "latencies"},
        "p50_ms": 1000 * got.percentile(0.5),
        "p95_ms": 1000 * got.percentile(0.95),
        "max_ms": 1000 * worst,
    }
    ok = not got.died and got.published and not got.unanswered and not got.errors and worst <= LATENCY_BAR_S
    if worst > LATENCY_BAR_S:
        print(f"  FAIL: a request waited more than {LATENCY_BAR_S:g} s")
    return ok


def _scenario(sc: stress_runs.Scenario, report: dict, seconds: float) -> bool:
    bad = [p for p in sc.problems if not p.startswith("skip:")]
    state = "skipped" if sc.problems and not bad else ("ok" if not bad else "FAIL")
    print(
        f"  {sc.name:14} runs {sc.tried:3}  worst {sc.worst_s:6.1f} s {sc.worst_mb:6.0f} MB  {state} ({seconds:.0f} s)"
    )
    for p in [*sc.notes, *sc.problems]:
        print(f"    {p}")
    report.setdefault("scenarios", {})[sc.name] = vars(sc)
    return not bad


def run_kill(args: argparse.Namespace, work: Path, report: dict) -> bool:
    print("\nkill -9")
    rounds = 1 if args.quick else 3
    t = time.monotonic()
    ok = _scenario(stress_runs.kill_workers(work, rounds), report, time.monotonic() - t)
    t = time.monotonic()
    return _scenario(stress_runs.kill_cli(work, rounds), report, time.monotonic() - t) and ok


def run_concurrent(args: argparse.Namespace, work: Path, report: dict) -> bool:
    print("\nconcurrent runs sharing a cache")
    t = time.monotonic()
    sc = stress_runs.concurrent(work, 4 if args.quick else 8, 1 if args.quick else 3)
    return _scenario(sc, report, time.monotonic() - t)


def run_plugin(args: argparse.Namespace, work: Path, report: dict) -> bool:
    print("\nmypy plugin with planted standard-library modules")
    t = time.monotonic()
    return _scenario(stress_runs.mypy_plugin(work), report, time.monotonic() - t)


def run_daemon(args: argparse.Namespace, work: Path, report: dict) -> bool:
    print("\ndaemon past hostile clients")
    t = time.monotonic()
    return _scenario(stress_serve.daemon_clients(work, args.quick), report, time.monotonic() - t)


def run_paths(args: argparse.Namespace, work: Path, report: dict) -> bool:
    print("\nlanguage server on paths that need escaping")
    t = time.monotonic()
    return _scenario(stress_serve.editor_paths(work), report, time.monotonic() - t)


def run_xmap(args: argparse.Namespace, work: Path, report: dict) -> bool:
    print("\nruntime xmap over a wide pytree")
    t = time.monotonic()
    return _scenario(stress_serve.xmap_leaves(work, 2000), report, time.monotonic() - t)


PARTS = {
    "hostile": run_hostile,
    "soak": run_soak,
    "frames": run_frames,
    "latency": run_latency,
    "kill": run_kill,
    "concurrent": run_concurrent,
    "plugin": run_plugin,
    "daemon": run_daemon,
    "paths": run_paths,
    "xmap": run_xmap,
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("part", nargs="?", default="all", choices=["all", *PARTS])
    p.add_argument("--quick", action="store_true", help="small sizes, few modes: about a minute")
    p.add_argument("--kinds", help=f"comma-separated hostile kinds (default all): {', '.join(KINDS)}")
    p.add_argument("--modes", help="comma-separated modes: " + ", ".join([*stress_runs.MODES, "lsp"]))
    p.add_argument("--edits", type=int, help="soak edits (default 5000; 200 with --quick)")
    p.add_argument(
        "--lines", type=int, help="latency: statements of the large document (default 3000; 600 with --quick)"
    )
    p.add_argument("--max-slope", type=float, default=10.0, help="soak: MB per 1,000 edits allowed (default 10)")
    p.add_argument(
        "--hang-after",
        type=float,
        help=f"seconds past a case's bound before it is killed as a hang (default {stress_runs.HANG_AFTER:.0f}; 10 with --quick)",
    )
    p.add_argument(
        "--jobs", "-j", type=int, default=2, help="hostile cases run at once (default 2; 1 for the cleanest timings)"
    )
    p.add_argument("--work", help="a directory for the generated projects (default: a temporary one)")
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument("--show", type=int, default=40, help="failed cases printed (default 40)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each case as it ends")
    args = p.parse_args(argv)
    if args.hang_after is not None:
        stress_runs.HANG_AFTER = args.hang_after
    elif args.quick:
        stress_runs.HANG_AFTER = 10.0  # a hang costs less time in the one-minute run
    parts = list(PARTS) if args.part == "all" else [args.part]
    report: dict = {"quick": args.quick}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="namedcheck-stress-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        results = {part: PARTS[part](args, work, report) for part in parts}
    summary = "; ".join(f"{k}: {'ok' if v else 'FAIL'}" for k, v in results.items())
    print(f"\n{summary} ({time.monotonic() - start:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
