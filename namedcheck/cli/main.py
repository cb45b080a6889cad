"""`namedcheck check | coverage | types | explain | infer | lsp | --version`. Never imports jax or mypy; never runs user code."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

from namedcheck import __version__
from namedcheck.cli.config import Config, ConfigError, load_config, stub_problem
from namedcheck.cli.discover import discover
from namedcheck.cli.summary import RunStats
from namedcheck.diagnostic import Diagnostic, merge_contexts, selected
from namedcheck.engine.codes import CODES, default_hint

FORMATS = ("text", "json", "sarif", "github")


def run_check(
    paths: Sequence[str],
    cfg: Config,
    jobs: int,
    cache_root: Path | None = None,
    stats: RunStats | None = None,
    callers: bool = True,
    why: bool = False,
) -> list[Diagnostic]:
    """Every diagnostic of the files under `paths`, sorted; `stats` (the command's) counts files, holds each
    analysed file's coverage and draws a progress line on a terminal's stderr. `callers=False`: the project
    modules importing the files are not run (what they cause in them is left out). `why`: each file's coverage
    locates its causes (`coverage --why`)."""
    from namedcheck.cli.files import unreadable
    from namedcheck.cli.runner import Job, check_all

    progress_to = sys.stderr if stats is not None else None
    stats = stats if stats is not None else RunStats()
    bad_dirs: list[tuple[str, str]] = []
    files, missing = discover(list(paths), cfg.exclude, cfg.root, bad_dirs, cfg.respect_gitignore)
    # a path that does not exist is a diagnostic of the output (as ruff's E902), the other paths still checked
    stub_paths = tuple(cfg.stub_paths)
    root = str(cache_root) if cache_root is not None else None
    project_paths = tuple(paths)
    todo = [Job(disp, str(f), stub_paths, root, cfg.limits, project_paths, cfg.devices, why) for disp, f in files]
    from namedcheck.analyzer.filefacts import FACTS
    from namedcheck.cli.cache import CACHE_DIR_NAME

    # what a previous run knew of the files' bytes (digests, imports): unchanged files are stat'ed, not read
    facts_dir = cache_root / CACHE_DIR_NAME if cache_root is not None else None
    if facts_dir is not None:
        FACTS.load(facts_dir)
    with FACTS.run():  # each file stat'ed once, each module's dependencies computed once
        # a run of some files (pre-commit's changed files): the project modules importing them run too, for
        # what their calls cause inside the given files
        from namedcheck.analyzer.project import importers_of_files, project_for
        from namedcheck.cli.discover import gitignored, is_excluded

        roots = [r for r in project_paths if r != "-"]
        count = cfg.devices[0] if cfg.devices else None
        importers = importers_of_files(
            [f for _, f in files], lambda p: project_for(p, stub_paths, roots, count)
        )  # (what `Session.importers` finds, without loading the analysis)
        context = [
            Job(_display(f), str(f), stub_paths, root, cfg.limits, project_paths, cfg.devices)
            for f in (importers if callers else [])
            if not is_excluded(f, cfg.exclude, cfg.root) and not (cfg.respect_gitignore and gitignored(f))
        ]
        stats.begin(len(todo), progress_to)
        results = check_all(todo, jobs, stats.record)
        stats.finish()
        if context:
            from namedcheck.cli.discover import located_in

            results.extend(located_in(check_all(context, jobs), files))
    if facts_dir is not None:
        FACTS.save(facts_dir)
    from namedcheck.cli.discover import reported

    if any(d.code == "NC002" for d in results):
        results = _unjudged_for_notebooks(results, [f for _, f in files if str(f).endswith(".ipynb")])
    bad = [unreadable(d, "Directory", why) for d, why in bad_dirs]
    # a path that does not exist is a diagnostic of the output (as ruff's E902): the other paths are still checked
    bad += [unreadable(m, "Path", "No such file or directory") for m in missing]
    return sorted(reported(results, files) + bad)


def _unjudged_for_notebooks(results: list[Diagnostic], notebooks: list[Path]) -> list[Diagnostic]:
    """Without the unused suppressions (NC002) of modules the run's notebooks may import: a notebook is no
    project module, so the analysis did not count it among the module's importers (a call in a cell may be
    what the comment is for)."""
    if not notebooks:
        return results
    from namedcheck.cli.notebook import NotebookError, read_notebook
    from namedcheck.engine.readfile import read_bytes

    names: set[str] = set()
    for nb in notebooks:
        try:
            source = read_notebook(read_bytes(nb, 64 * 1024 * 1024)).source
        except (OSError, NotebookError):
            continue
        for line in source.splitlines():
            if line.lstrip().startswith(("import ", "from ")):
                names.update(re.findall(r"\w+", line))
    return [d for d in results if d.code != "NC002" or Path(d.path).stem not in names | {"__init__"}]


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _check_buffer(display: str, source: str, cfg: Config, in_project: bool, stats: RunStats) -> list[Diagnostic]:
    """`check -`: an editor's buffer, in the project of the file it names (its text read by the project's
    other modules instead of the disk's): its own diagnostics, those its calls cause in other modules, and
    those the modules importing it cause in it. `stats` gets the buffer's coverage."""
    from namedcheck.analyzer.session import Session

    session = Session(cfg.stub_paths, cfg.limits, projects=in_project, devices=cfg.devices)
    if not in_project:
        result = session.check(display, source)
    else:
        session.set_text(display, source)
        result = session.check(display, source, display)
    if result.coverage is not None:
        stats.coverage[display] = result.coverage
    if not in_project or result.failed:
        return result.all
    return merge_contexts([*session.with_callers(display, result.diagnostics, display), *result.elsewhere])


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _line_reader() -> callable:  # type: ignore[valid-type]
    cache: dict[str, list[str]] = {}

    def read(path: str, line: int) -> str:
        if path not in cache:
            try:
                from namedcheck.analyzer.check import source_lines
                from namedcheck.cli.files import read_regular

                data = read_regular(path, 64 * 1024 * 1024)
                text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else ""
                if path.endswith(".ipynb"):  # a notebook's lines are its code cells' (cli/notebook.py)
                    from namedcheck.cli.notebook import NotebookError, read_notebook

                    try:
                        text = read_notebook(text).source
                    except NotebookError:
                        pass
                cache[path] = source_lines(text)
            except OSError:
                cache[path] = []
        lines = cache[path]
        return lines[line - 1] if 0 < line <= len(lines) else ""

    return read


def _stdin_config_start(args: argparse.Namespace) -> str:
    """Where to look for pyproject.toml: beside the file that `--stdin-filename` names (an editor buffer
    belongs to its own project), else the working directory."""
    if args.paths == ["-"] and args.stdin_filename:
        return str(Path(args.stdin_filename).resolve().parent)
    return "."


def _fail(args: argparse.Namespace, message: str) -> int:
    """The command cannot run: the message on stderr, exit 2, and under --format json / sarif still a valid
    document with no results on stdout (as ruff does for an error that is not a file's)."""
    from namedcheck.cli.output import printable

    print(f"namedcheck: error: {printable(message, keep=chr(9) + chr(10))}", file=sys.stderr)
    _empty_document(args)
    return 2


def _empty_document(args: argparse.Namespace) -> None:
    fmt = getattr(args, "format", None)
    if fmt == "json":
        if getattr(args, "command", None) == "coverage":
            from namedcheck.cli.coverage import render_json, render_why_json

            print(render_why_json({}) if getattr(args, "why", False) else render_json({}))
        elif getattr(args, "command", None) == "types":
            from namedcheck.cli.types import render_json as types_json

            print(types_json([], []))
        else:
            print("[]")
    elif fmt == "sarif":
        from namedcheck.cli.output import render_sarif

        print(render_sarif([]))


def cmd_check(args: argparse.Namespace) -> int:
    from namedcheck.cli.daemon_client import served_check

    if args.statistics and args.format not in ("text", "json"):  # ruff's: statistics are text or json
        return _fail(args, f"--statistics prints text or json, not --format {args.format}")

    served = served_check(args)  # a daemon started for this project answers (cli/daemon.py); else in-process
    if served is not None:
        return served
    try:
        cfg = load_config(Path(args.config_root or _stdin_config_start(args)))
    except ConfigError as e:
        return _fail(args, str(e))
    if args.respect_gitignore is False:
        cfg.respect_gitignore = False
    from namedcheck.cli.config import unknown_codes

    for flag, value in (("--select", args.select), ("--ignore", args.ignore)):
        bad = unknown_codes(_codes(value)) if value else []
        if bad:
            return _fail(
                args,
                f"{flag} names no known code: {', '.join(bad)} (expected codes or prefixes such as NC2 or NC502)",
            )
    problem = stub_problem(cfg)
    if problem is not None:
        return _fail(args, problem)
    jobs = args.jobs if args.jobs and args.jobs > 0 else (os.cpu_count() or 1)
    cache_root = None if args.no_cache else (cfg.root or Path.cwd())
    if cache_root is not None and not os.environ.get("NAMEDCHECK_NO_CACHE"):
        from namedcheck.cli.cache import usable_root

        cache_root = usable_root(cache_root)
    if os.environ.get("NAMEDCHECK_NO_CACHE"):
        cache_root = None
    read_line = _line_reader()
    stats = RunStats()
    if args.paths == ["-"]:  # editors: the buffer on stdin, named by --stdin-filename
        from namedcheck.analyzer.session import source_lines

        display = args.stdin_filename or "-"
        try:
            source = _read_stdin(cfg)
        except (UnicodeDecodeError, SyntaxError) as e:  # bytes not in its encoding; an unknown coding line
            return _fail(args, f"standard input is not Python source text in its declared encoding: {e}")
        except OSError as e:  # the guarded reader's Unreadable: over the cap, or no data for a while
            from namedcheck.engine.readfile import Unreadable

            if not (isinstance(e, Unreadable) and e.too_large):
                return _fail(args, f"standard input cannot be read: {e}")
            source = None
        if source is None:  # as a file over the cap: one NC001, nothing read past it
            from namedcheck.engine.codes import NC001

            mb = cfg.limits.max_file_size
            diags = [
                Diagnostic(
                    display,
                    1,
                    1,
                    1,
                    1,
                    NC001,
                    f"File is not checked: it is larger than {mb} MB (max-file-size in [tool.namedcheck])",
                )
            ]
            source = ""
        elif display.endswith(".ipynb"):  # a notebook's JSON: its code cells are checked (cli/notebook.py)
            from namedcheck.cli import notebook

            try:
                nb = notebook.read_notebook(source)
            except notebook.NotebookError as e:
                diags = [notebook.unreadable_notebook(display, e)]
            else:
                source = nb.source
                found = _check_buffer(display, source, cfg, bool(args.stdin_filename), stats) if nb.python else []
                diags = notebook.in_cells(found, display, nb)
        else:
            diags = _check_buffer(display, source, cfg, bool(args.stdin_filename), stats)
        stats.files = stats.analysed = 1
        lines = source_lines(source)
        read_line = lambda _path, line: lines[line - 1] if 0 < line <= len(lines) else ""  # noqa: E731
    else:
        diags = run_check(args.paths or ["."], cfg, jobs, cache_root, stats)
    select = _codes(args.select) if args.select else cfg.select
    ignore = (_codes(args.ignore) if args.ignore else []) + cfg.ignore

    def chosen(found: list[Diagnostic]) -> list[Diagnostic]:  # select / ignore, per-file-ignores
        return cfg.per_file(selected(found, select, ignore))

    diags = chosen(diags)
    outcome = FixOutcome()
    stdin_source = source if args.paths == ["-"] else None
    if args.fix or args.unsafe_fixes or args.diff or args.show_fixes or args.format in ("json", "sarif"):
        diags = _fix_and_attach(args, diags, cfg, chosen, stdin_source, jobs, cache_root, outcome)
    elif args.format == "text" and not args.silent:  # the `[*]` markers: which diagnostics have a fix
        diags = _marked(diags, cfg, stdin_source)
    if outcome.codes and not args.diff and not args.silent:
        n = sum(len(c) for c in outcome.codes.values())
        print(f"Fixed {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
    status = _unreadable_status(diags)
    if args.diff:  # the fixes as a diff, nothing written: exit 1 when there is one (ruff's)
        if not args.silent:
            for text in outcome.diffs:
                print(text, end="")
            n = sum(len(c) for c in outcome.codes.values())
            print(f"Would fix {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        return status or (1 if outcome.diffs and not args.exit_zero else 0)
    if not args.silent:
        _print_results(args, diags, read_line, stats)
        if args.show_fixes and args.format == "text":
            print(_fixes_listing(outcome, diags, args.unsafe_fixes))
    # a note (a file cut short by its budget) says what was not checked; it does not fail the run
    failed = any(d.severity == "error" for d in diags)
    return status or (1 if failed and not args.exit_zero else 0)


class FixOutcome:
    """What `--fix` / `--diff` did: the codes fixed per file, and (`--diff`) each file's diff."""

    def __init__(self) -> None:
        self.codes: dict[str, list[str]] = {}
        self.diffs: list[str] = []


def _fixes_listing(outcome: FixOutcome, diags: list[Diagnostic], unsafe: bool) -> str:
    """`--show-fixes`: per file, how many diagnostics of each code `--fix` fixed, else could fix."""
    from namedcheck.cli.output import fixable, shown_path

    by_file = outcome.codes
    head = "Fixed"
    if not by_file:
        head = "Fixable"
        by_file = {}
        for d in diags:
            if fixable(d, unsafe):
                by_file.setdefault(d.path, []).append(d.code)
    n = sum(len(c) for c in by_file.values())
    if not n:
        return "No errors fixed." if head == "Fixed" else "No errors fixable."
    out = [f"{head} {n} error{'s' if n != 1 else ''}:"]
    for path in sorted(by_file):
        out.append(f"- {shown_path(path)}:")
        for code in sorted(set(by_file[path])):
            title = CODES[code].title if code in CODES else code
            out.append(f"    {by_file[path].count(code)} x {code} ({title})")
    return "\n".join(out)


STDIN_IDLE_BUDGETS = 3  # `check -`: no byte on standard input for 3 time budgets (an idle FIFO) ends the run


def _read_stdin(cfg: Config) -> str:
    """`check -`'s buffer through the guarded reader: at most max-file-size (`/dev/zero` ends there, with
    `Unreadable`), and an idle limit when standard input is not a terminal (a FIFO nobody writes to)."""
    from namedcheck.engine.readfile import read_stream

    if sys.stdin is None:  # started with standard input closed
        from namedcheck.engine.readfile import Unreadable

        raise Unreadable("it is closed")
    raw = getattr(sys.stdin, "buffer", None)
    cap = cfg.limits.max_file_size * 1024 * 1024
    if raw is None:  # a text stream without bytes (tests, embedders): its text
        text = sys.stdin.read(cap + 1)
        if len(text) > cap:
            from namedcheck.engine.readfile import Unreadable

            raise Unreadable("larger than the cap", too_large=True)
        return text
    try:
        tty = sys.stdin.isatty()
    except (OSError, ValueError):
        tty = False
    from namedcheck.analyzer.parsing import decode_source

    # decoded as Python decodes a source file (a PEP 263 coding line), as a file on disk is
    return decode_source(read_stream(raw, cap, None if tty else STDIN_IDLE_BUDGETS * cfg.limits.time_budget))


def _print_results(args: argparse.Namespace, diags: list[Diagnostic], read_line: Any, stats: RunStats) -> None:
    """Diagnostics (or --statistics) in the chosen format; the text format ends with the run's summary line."""
    from namedcheck.cli import output

    if args.statistics:
        text = output.render_statistics(diags, as_json=args.format == "json")
        if text:
            print(text)
        if args.format != "json" and not args.quiet:
            print(stats.summary(diags))
    elif args.format == "json":
        print(output.render_json(diags))
    elif args.format == "sarif":
        print(output.render_sarif(diags))
    elif args.format == "github":
        text = output.render_github(diags)
        if text:
            print(text)
    else:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        text = output.render_text(diags, read_line, color, args.unsafe_fixes, summary=not args.quiet)
        if text:
            print(text)
        if not args.quiet:
            print(stats.summary(diags))


def _percent_arg(text: str) -> float:
    """`--fail-under N`: a number from 0 to 100 (argparse says what is wrong with anything else)."""
    try:
        n = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= n <= 100:
        raise argparse.ArgumentTypeError(f"not a percentage from 0 to 100: {text!r}")
    return n


def _unreadable_status(diags: list[Diagnostic]) -> int:
    """2 when a path could not be read (each is also a diagnostic of the output), after saying which."""
    from namedcheck.cli.files import is_unreadable

    bad = [d for d in diags if is_unreadable(d)]
    from namedcheck.cli.output import printable, shown_path

    for d in bad:
        print(f"namedcheck: error: {shown_path(d.path)}: {printable(d.message)}", file=sys.stderr)
    return 2 if bad else 0


def _internal_failure(args: argparse.Namespace, e: Exception) -> int:
    """Any failure of the command itself: a clear message, exit 2, and under --format json still an array."""
    what = f"the analyzer cannot be imported ({e})" if isinstance(e, ImportError) else f"{type(e).__name__}: {e}"
    print(
        f"namedcheck: internal error: {what}; please report it with the command line and `namedcheck --version`",
        file=sys.stderr,
    )
    _empty_document(args)
    return 2


def _fix_and_attach(
    args: argparse.Namespace,
    diags: list[Diagnostic],
    cfg: Config,
    chosen: Any,
    stdin_source: str | None,
    jobs: int,
    cache_root: Path | None,
    outcome: FixOutcome,
) -> list[Diagnostic]:
    """`--fix` / `--unsafe-fixes`: fix the files (then check again), or `--diff`: the diffs the fixes would
    make (in `outcome`); the diagnostics with their `fixes`. `chosen`: what the run reports of a list."""
    from namedcheck.analyzer.incremental import DocumentAnalyser
    from namedcheck.analyzer.session import Session
    from namedcheck.edits.fixes import FIXABLE, attach_fixes, fixed_text

    stubs = tuple(cfg.stub_paths)
    session = Session(stubs, cfg.limits, roots=args.paths if stdin_source is None else (), devices=cfg.devices)

    def analyse(path: str, source: str) -> list[Diagnostic]:  # the CLI's diagnostics, with their fixes
        session.set_text(path, source)
        # the run's diagnostics already hold what other files cause here: only this file's fixes are wanted
        analyser = DocumentAnalyser(path, stubs, session=session, callers=False, fixer=attach_fixes)
        return list(chosen(analyser.analyse(source).diagnostics))

    if (args.fix or args.unsafe_fixes or args.diff) and stdin_source is None:
        from namedcheck.edits.infer import unified_diff

        for path in sorted({d.path for d in diags if d.code in FIXABLE and not _is_notebook(d.path)}):
            before, after, codes = fixed_text(path, partial(analyse, path), args.unsafe_fixes, write=not args.diff)
            if codes:
                outcome.codes[path] = codes
            if args.diff and before is not None and after is not None and after != before:
                outcome.diffs.append(unified_diff(path, before, after))
        left = sorted({d.path for d in diags if d.code in FIXABLE and _is_notebook(d.path)})
        for path in left:
            print(
                f"namedcheck: {_shown(path)}: not fixed: --fix does not edit notebooks; apply the fix in the cell",
                file=sys.stderr,
            )
        if args.diff:
            return diags
        if outcome.codes:
            diags = chosen(run_check(args.paths or ["."], cfg, jobs, cache_root))
    return _per_file(diags, cfg, stdin_source, lambda group, path, source: _with_fixes(group, analyse(path, source)))


def _marked(diags: list[Diagnostic], cfg: Config, stdin_source: str | None) -> list[Diagnostic]:
    """The diagnostics with their fixes as the text output's `[*]` markers and count need them: worked out
    from each diagnostic's data and its file's text, without analysing the file again (`--fix`, json and
    SARIF do, for fixes that read the analysis's values)."""
    if not any(getattr(CODES.get(d.code), "fix", None) for d in diags):
        return diags  # nothing a fixer is registered for (a clean or cached run loads no fixer)
    from namedcheck.edits.fixes import attach_fixes

    return _per_file(diags, cfg, stdin_source, lambda group, _path, source: attach_fixes(group, source))


def _per_file(
    diags: list[Diagnostic],
    cfg: Config,
    stdin_source: str | None,
    with_fixes: Callable[[list[Diagnostic], str, str], list[Diagnostic]],
) -> list[Diagnostic]:
    """The diagnostics, each file's group given its fixes by `with_fixes(group, path, source)` where one of
    them has a fixer (a notebook's never: fixes are not applied to notebooks); an unreadable file keeps its
    group as it is."""
    from namedcheck.edits.fixes import FIXABLE

    out: list[Diagnostic] = []
    for path in sorted({d.path for d in diags}):
        group = [d for d in diags if d.path == path]
        if any(d.code in FIXABLE for d in group) and not _is_notebook(path):
            try:
                source = stdin_source if stdin_source is not None else _read_checked(path, cfg)
                group = with_fixes(group, path, source)
            except (OSError, UnicodeDecodeError):
                pass
        out.extend(group)
    return sorted(out)


def _is_notebook(path: str) -> bool:
    """Notebooks are not fixed (`--fix` leaves them as they are; their diagnostics carry no fixes)."""
    return path.endswith(".ipynb")


def _read_checked(path: str, cfg: Config) -> str:
    from namedcheck.engine.readfile import read_text

    return read_text(path, cfg.limits.max_file_size * 1024 * 1024)


def _with_fixes(group: list[Diagnostic], analysed: list[Diagnostic]) -> list[Diagnostic]:
    """The run's diagnostics of one file with the fixes the editor analysis (the same session's, in the
    file's project) found for the same ones; a diagnostic it did not find is kept without a fix."""
    from dataclasses import replace

    fixes = {(d.line, d.column, d.code, d.message): d.fixes for d in analysed if d.fixes}
    # one diagnostic per location and code: the run's may hold another context's message first
    at = {(d.line, d.column, d.code): d.fixes for d in analysed if d.fixes}
    out = []
    for d in group:
        found = fixes.get((d.line, d.column, d.code, d.message)) or at.get((d.line, d.column, d.code))
        out.append(replace(d, fixes=found) if found else d)
    return out


def cmd_coverage(args: argparse.Namespace) -> int:
    """`namedcheck coverage PATH...`: per analysed file (worst first) and in total, the array expressions the
    checker saw and the share of them whose rank and whole shape it knows; the files, configuration,
    excludes and cache of `check`."""
    from namedcheck.cli import coverage

    try:
        cfg = load_config(Path(args.config_root or "."))
    except ConfigError as e:
        return _fail(args, str(e))
    problem = stub_problem(cfg)
    if problem is not None:
        return _fail(args, problem)
    jobs = args.jobs if args.jobs and args.jobs > 0 else (os.cpu_count() or 1)
    cache_root = None if args.no_cache or os.environ.get("NAMEDCHECK_NO_CACHE") else (cfg.root or Path.cwd())
    if cache_root is not None:
        from namedcheck.cli.cache import usable_root

        cache_root = usable_root(cache_root)
    stats = RunStats()
    diags = run_check(args.paths or ["."], cfg, jobs, cache_root, stats, callers=False, why=args.why)
    if args.why:
        out = coverage.render_why_json(stats.coverage) if args.format == "json" else None
        print(out if out is not None else coverage.render_why_text(stats.coverage, args.top))
    else:
        print(coverage.render_json(stats.coverage) if args.format == "json" else coverage.render_text(stats.coverage))
    status = _unreadable_status(diags)
    failure = coverage.below(stats.coverage, args.fail_under) if args.fail_under is not None else None
    if failure is not None:
        print(f"namedcheck: {failure}", file=sys.stderr)
        return status or 1
    return status


def cmd_types(args: argparse.Namespace) -> int:
    """`namedcheck types PATH...`: every binding of the files with the types the analysis inferred there."""
    from namedcheck.cli import types

    try:
        cfg = load_config(Path(args.config_root or "."))
    except ConfigError as e:
        return _fail(args, str(e))
    problem = stub_problem(cfg)
    if problem is not None:
        return _fail(args, problem)
    bindings, problems, status = types.collect(list(args.paths or ["."]), cfg)
    text = types.render_json(bindings, problems) if args.format == "json" else types.render_text(bindings, problems)
    if text:
        print(text)
    return status


def cmd_explain(args: argparse.Namespace) -> int:
    code = args.code.upper()
    c = CODES.get(code)
    if c is None:
        print(
            f"namedcheck: error: unknown code {args.code!r}; known codes: {', '.join(sorted(CODES))}", file=sys.stderr
        )
        return 2
    print(f"{c.code}: {c.title}\n\n{c.explanation}")
    if c.wrong:
        print("\nWrong:\n" + "\n".join("    " + ln for ln in c.wrong.splitlines()))
    if c.right:
        print("\nRight:\n" + "\n".join("    " + ln for ln in c.right.splitlines()))
    if default_hint(c.code):
        print(f"\nFix: {default_hint(c.code)}.")
    return 0


def cmd_infer(args: argparse.Namespace) -> int:
    from namedcheck.edits.infer import NotInferable, infer_source, unified_diff

    try:
        cfg = load_config(Path(args.config_root or "."))
        files, missing = discover(list(args.paths or ["."]), cfg.exclude, cfg.root, None, cfg.respect_gitignore)
    except ConfigError as e:
        return _fail(args, str(e))
    if missing:
        return _fail(args, f"no such file or directory: {', '.join(missing)}")
    problem = stub_problem(cfg)
    if problem is not None:
        return _fail(args, problem)
    from namedcheck.analyzer.session import Session
    from namedcheck.analyzer.sources import decode_source, source_encoding
    from namedcheck.engine.readfile import Unreadable, read_bytes, write_regular

    session = Session(cfg.stub_paths, cfg.limits, roots=list(args.paths or ["."]), devices=cfg.devices)
    total = changed = 0
    status = 0  # 2 once a file could not be read or written: said, and the other files still done
    named = set(args.paths or [])
    for display, f in files:
        if display.endswith(".ipynb"):  # `check` reads notebooks; `infer` writes Python files only
            if display in named:
                print(f"namedcheck: {_shown(display)}: not annotated: infer does not edit notebooks", file=sys.stderr)
            continue
        try:  # the guarded reader: a regular file under max-file-size, never a FIFO or a device
            data = read_bytes(f, cfg.limits.max_file_size * 1024 * 1024)
            source = decode_source(data)  # as Python decodes it (a coding line)
            new, added = infer_source(source, display, args.spelling, tuple(cfg.stub_paths), session)
        except Unreadable as e:
            if not e.too_large:
                print(f"namedcheck: error: {_shown(display)}: cannot read: {e}", file=sys.stderr)
                status = 2
                continue
            print(f"namedcheck: {_shown(display)}: not annotated: {e} (max-file-size)", file=sys.stderr)
            continue  # as `check` reports it: one NC001 there, not a failure of the command
        except NotInferable as e:
            print(f"namedcheck: {_shown(display)}: not annotated: {e}", file=sys.stderr)
            continue
        except (OSError, UnicodeDecodeError, SyntaxError) as e:
            print(f"namedcheck: error: {_shown(display)}: cannot read: {e}", file=sys.stderr)
            status = 2
            continue
        if new == source:
            continue
        if args.write:
            try:  # atomically, and only over the text it read (an editor's save meanwhile is kept)
                write_regular(f, new.encode(source_encoding(data)), expected=data)
            except OSError as e:
                print(f"namedcheck: error: {_shown(display)}: cannot write: {e}", file=sys.stderr)
                status = 2
                continue
            session.set_text(f, new)  # the next files' analyses read the annotated text
        total += len(added)
        changed += 1
        if args.diff:
            print(unified_diff(display, source, new), end="")
        elif not args.write:
            for i in added:
                print(f"{display}:{i.line}:{i.column + 1}: {i.kind} {i.name}: {i.type}")
    what = "annotated" if args.write else "would annotate"
    print(
        f"{what.capitalize()} {total} site{'s' if total != 1 else ''} in {changed} file{'s' if changed != 1 else ''}.",
        file=sys.stderr,
    )
    return status


def _shown(path: str) -> str:
    from namedcheck.cli.output import shown_path

    return shown_path(path)


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from namedcheck.lsp.server import serve
    except ImportError as e:
        print(
            f"namedcheck: error: the language server needs pygls ({e}); install it with pip install 'namedcheck[lsp]'",
            file=sys.stderr,
        )
        return 2
    return serve()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="namedcheck", description="Check named-shape JAX programs before they run.")
    p.add_argument("--version", action="version", version=f"namedcheck {__version__}")
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="check files and directories")
    c.add_argument("paths", nargs="*", help="files or directories (default: .); - reads one file from stdin")
    c.add_argument("--stdin-filename", help="the path to report for source read from stdin")
    c.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default="text")
    c.add_argument("--select", help="comma-separated codes or prefixes to report, e.g. NC2,NC502")
    c.add_argument("--ignore", help="comma-separated codes or prefixes to leave out")
    c.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: all cores)")
    c.add_argument("--no-cache", action="store_true", help="do not read or write .namedcheck_cache/")
    c.add_argument("--statistics", action="store_true", help="print how many diagnostics of each code, not each one")
    c.add_argument("--fix", action="store_true", help="apply safe fixes (e.g. lax.pcast on a loop's initial carry)")
    c.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply fixes that may change what the program computes (implies --fix)",
    )
    c.add_argument(
        "--show-fixes", action="store_true", help="list the fixes applied (with --fix) or available, per file and code"
    )
    c.add_argument(
        "--diff", action="store_true", help="with --fix: print the fixes as a unified diff and write nothing"
    )
    c.add_argument("--exit-zero", action="store_true", help="exit 0 even when diagnostics are reported")
    c.add_argument("-q", "--quiet", action="store_true", help="print the diagnostics only, no summary")
    c.add_argument("-s", "--silent", action="store_true", help="print nothing; the exit status says it all")
    c.add_argument(
        "--no-respect-gitignore",
        dest="respect_gitignore",
        action="store_false",
        default=None,
        help="check files that .gitignore leaves out too (respect-gitignore = false)",
    )
    c.add_argument("--no-daemon", action="store_true", help="check in this process even when `namedcheck daemon` runs")
    c.add_argument("--config-root", help=argparse.SUPPRESS)
    c.set_defaults(func=cmd_check)
    cov = sub.add_parser(
        "coverage",
        help="how much of the array shapes the checker saw, per file (worst first) and in total",
        description="Per analysed file, worst first, and in total: the array-valued expressions the checker "
        "saw (arrays it inferred, and calls into jax / numpy / flax / equinox, array methods and operators it "
        "could not), and the share of them whose rank and whole shape it knows.",
    )
    cov.add_argument("paths", nargs="*", help="files or directories (default: .)")
    cov.add_argument("--format", choices=("text", "json"), default="text")
    cov.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: all cores)")
    cov.add_argument("--no-cache", action="store_true", help="do not read or write .namedcheck_cache/")
    cov.add_argument(
        "--why",
        action="store_true",
        help="rank the causes of the shapes not known (count, kind, label, an example location)",
    )
    cov.add_argument("--top", type=int, default=30, help="with --why, text: the causes shown (0: all; default 30)")
    cov.add_argument(
        "--fail-under",
        type=_percent_arg,
        metavar="N",
        help="exit 1 when the share of array expressions with a known shape is below N percent",
    )
    cov.add_argument("--config-root", help=argparse.SUPPRESS)
    cov.set_defaults(func=cmd_coverage)
    ty = sub.add_parser(
        "types",
        help="every binding (assignments, parameters, loop and with targets) with its inferred type",
        description="Lists every name the files bind (assignment, for, with and except targets, comprehension "
        "targets, function parameters) with the types the checker inferred there, one per analysis that "
        "reached it (a function analysed on its own and at each call). The same analysis as `check`.",
    )
    ty.add_argument("paths", nargs="*", help="files or directories (default: .)")
    ty.add_argument("--format", choices=("text", "json"), default="text")
    ty.add_argument("--config-root", help=argparse.SUPPRESS)
    ty.set_defaults(func=cmd_types)
    e = sub.add_parser("explain", help="what a diagnostic code means, with a wrong and a right example")
    e.add_argument("code")
    e.set_defaults(func=cmd_explain)
    inf = sub.add_parser("infer", help="add the annotations the checker fully knows (parameters, returns, locals)")
    inf.add_argument("paths", nargs="*", help="files or directories (default: .)")
    inf.add_argument("--write", action="store_true", help="write the annotations into the files")
    inf.add_argument("--diff", action="store_true", help="print a unified diff instead of a list")
    inf.add_argument(
        "--spelling",
        choices=("dims", "literal", "annotated", "plain"),
        default="dims",
        help="dims (default): f32[Array, Dims(...)], clean under mypy / pyright; literal: f32[(...)]; "
        "annotated: Annotated[jax.Array, f32[(...)]]",
    )
    inf.add_argument("--config-root", help=argparse.SUPPRESS)
    inf.set_defaults(func=cmd_infer)
    ls = sub.add_parser(
        "lsp",
        help="run the language server on stdio (for editors)",
        description="A Language Server over stdio: diagnostics on open, change and save, hover "
        "with inferred types, inlay hints (setting inlayHints: true) and code actions "
        "(fixes, ignore a code on a line). The configuration is each file's nearest "
        "pyproject.toml.",
    )
    ls.set_defaults(func=cmd_lsp)
    d = sub.add_parser(
        "daemon",
        help="keep the analysis loaded between `check` runs of this project (start, stop, restart, status)",
        description="A background process for this project (the folder of its pyproject.toml, else the "
        "working directory) that `namedcheck check` hands its run to while it is running: unchanged files are "
        "answered from memory, edited ones and those importing them are checked again. Output and exit "
        "status are those of an in-process run; `check --no-daemon` (or NAMEDCHECK_NO_DAEMON=1) bypasses it.",
    )
    d.add_argument("action", choices=("start", "stop", "restart", "status"))
    d.add_argument(
        "--idle-timeout",
        type=float,
        default=30.0,
        metavar="MINUTES",
        help="stop after this many minutes without a request (default: 30)",
    )
    d.add_argument("--config-root", help=argparse.SUPPRESS)
    d.set_defaults(func=cmd_daemon)
    return p


def cmd_daemon(args: argparse.Namespace) -> int:
    from namedcheck.cli.daemon_client import cmd_daemon as run

    return run(args)


def main(argv: Sequence[str] | None = None) -> int:
    from namedcheck.analyzer.memo import tune_collector

    tune_collector()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if getattr(args, "command", None) not in ("check", "coverage"):
        return run_args(args)
    with _terminate_as_interrupt():
        return run_args(args)


class Terminated(KeyboardInterrupt):
    """SIGTERM during `check` / `coverage`: ended as an interrupt is (exit 143)."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM (a CI job's timeout) raises `Terminated`: the command ends as on
    Ctrl-C, and `--format json` / `sarif` still print a document (empty) instead of nothing."""
    import signal
    import threading

    def terminated(_signum: int, _frame: Any) -> None:
        raise Terminated()

    try:
        usable = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) in (
            signal.SIG_DFL,
            None,
        )
        previous = signal.signal(signal.SIGTERM, terminated) if usable else None
    except (ValueError, OSError):
        usable, previous = False, None
    try:
        yield
    finally:
        if usable:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def run_args(args: argparse.Namespace) -> int:
    """A parsed command, run (the daemon runs a client's `check` through it too). Interrupted (Ctrl-C,
    SIGTERM): said on stderr, `--format json` / `sarif` print an empty document, exit 130 (SIGTERM: 143)."""
    try:
        return int(args.func(args))
    except KeyboardInterrupt as e:
        try:
            print("namedcheck: interrupted; no results", file=sys.stderr)
            _empty_document(args)
        except (OSError, ValueError, KeyboardInterrupt):
            pass
        return 143 if isinstance(e, Terminated) else 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # never a traceback
        return _internal_failure(args, e)


def run() -> NoReturn:
    """The console script: `main`, then exit at once. The interpreter's own teardown frees every object the
    analysis made, one by one, which takes seconds after a large file and proves nothing."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to say
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
