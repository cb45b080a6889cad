"""`namedcheck check | explain | --version`. Never imports jax or mypy; never runs user code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from namedcheck import __version__
from namedcheck.cli.config import Config, ConfigError, load_config
from namedcheck.cli.discover import discover
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.codes import CODES, matches

FORMATS = ("text", "json", "sarif", "github")


def _check_file(job: tuple[str, str, tuple[str, ...], str | None]) -> list[Diagnostic]:
    display, path, stub_paths, cache_root = job
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return [Diagnostic(display, 1, 1, 1, 1, "NC001", f"File cannot be read: {e.strerror or e}")]
    from namedcheck.analyzer.relevance import RELEVANT
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return [Diagnostic(display, 1, 1, 1, 1, "NC001", f"File is not UTF-8 text: {e}")]
    if not RELEVANT.search(source):
        return []  # nothing of namedcheck, xmap or shard_map: skipped cheaply
    cache = key = None
    if cache_root is not None:
        from namedcheck.cli.cache import ResultCache
        cache = ResultCache(Path(cache_root), stub_paths)
        key = cache.key(display, data)
        hit = cache.get(key)
        if hit is not None:
            return hit
    from namedcheck.analyzer.check import check_source
    diags = check_source(source, display, stub_paths)
    if cache is not None and key is not None:
        cache.put(key, diags)
    return diags


def run_check(paths: Sequence[str], cfg: Config, jobs: int, cache_root: Path | None = None) -> list[Diagnostic]:
    files, missing = discover(list(paths), cfg.exclude, cfg.root)
    if missing:
        raise FileNotFoundError(", ".join(missing))
    stub_paths = tuple(cfg.stub_paths)
    root = str(cache_root) if cache_root is not None else None
    todo = [(disp, str(f), stub_paths, root) for disp, f in files]
    results: list[Diagnostic] = []
    if jobs > 1 and len(todo) > 8:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx) as pool:
            for diags in pool.map(_check_file, todo, chunksize=max(1, len(todo) // (jobs * 8))):
                results.extend(diags)
    else:
        for job in todo:
            results.extend(_check_file(job))
    return sorted(results)


def _filter(diags: list[Diagnostic], select: list[str], ignore: list[str]) -> list[Diagnostic]:
    always = ("NC000", "NC001")
    out = []
    for d in diags:
        if d.code not in always and select and not matches(d.code, select):
            continue
        if ignore and matches(d.code, ignore):
            continue
        out.append(d)
    return out


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _line_reader() -> callable:  # type: ignore[valid-type]
    cache: dict[str, list[str]] = {}

    def read(path: str, line: int) -> str:
        if path not in cache:
            try:
                cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
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


def cmd_check(args: argparse.Namespace) -> int:
    from namedcheck.cli import output
    try:
        cfg = load_config(Path(args.config_root or _stdin_config_start(args)))
    except ConfigError as e:
        print(f"namedcheck: error: {e}", file=sys.stderr)
        return 2
    jobs = args.jobs if args.jobs and args.jobs > 0 else (os.cpu_count() or 1)
    cache_root = None if args.no_cache else (cfg.root or Path.cwd())
    if os.environ.get("NAMEDCHECK_NO_CACHE"):
        cache_root = None
    read_line = _line_reader()
    if args.paths == ["-"]:  # editors: the buffer on stdin, named by --stdin-filename
        from namedcheck.analyzer.check import check_source
        source = sys.stdin.read()
        display = args.stdin_filename or "-"
        diags = check_source(source, display, tuple(cfg.stub_paths))
        lines = source.splitlines()
        read_line = lambda _path, line: lines[line - 1] if 0 < line <= len(lines) else ""  # noqa: E731
    else:
        try:
            diags = run_check(args.paths or ["."], cfg, jobs, cache_root)
        except FileNotFoundError as e:
            print(f"namedcheck: error: no such file or directory: {e}", file=sys.stderr)
            return 2
    select = _codes(args.select) if args.select else cfg.select
    ignore = (_codes(args.ignore) if args.ignore else []) + cfg.ignore
    diags = _filter(diags, select, ignore)
    fixed = 0
    if args.fix or args.unsafe_fixes or args.format in ("json", "sarif"):
        stdin_source = source if args.paths == ["-"] else None
        diags, fixed = _fix_and_attach(args, diags, cfg, select, ignore, stdin_source, jobs, cache_root)
    if fixed:
        print(f"Fixed {fixed} error{'s' if fixed != 1 else ''}.", file=sys.stderr)
    if args.format == "json":
        print(output.render_json(diags))
    elif args.format == "sarif":
        print(output.render_sarif(diags))
    elif args.format == "github":
        text = output.render_github(diags)
        if text:
            print(text)
    else:
        print(output.render_text(diags, read_line, color=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
    return 1 if diags else 0


def _fix_and_attach(args: argparse.Namespace, diags: list[Diagnostic], cfg: Config, select: list[str],
                    ignore: list[str], stdin_source: str | None, jobs: int, cache_root: Path | None) \
        -> tuple[list[Diagnostic], int]:
    """`--fix` / `--unsafe-fixes`: fix the files (then check again); the diagnostics with their `fixes`."""
    from namedcheck.lsp.analysis import DocumentAnalyser
    from namedcheck.lsp.fixes import FIXABLE, fix_file
    stubs = tuple(cfg.stub_paths)

    def analyse(path: str, source: str) -> list[Diagnostic]:  # the CLI's diagnostics, with their fixes
        return _filter(DocumentAnalyser(path, stubs).analyse(source).diagnostics, select, ignore)
    fixed = 0
    if (args.fix or args.unsafe_fixes) and stdin_source is None:
        for path in sorted({d.path for d in diags if d.code in FIXABLE}):
            fixed += fix_file(path, lambda src, p=path: analyse(p, src), args.unsafe_fixes)
        if fixed:
            diags = _filter(run_check(args.paths or ["."], cfg, jobs, cache_root), select, ignore)
    out: list[Diagnostic] = []
    for path in sorted({d.path for d in diags}):
        group = [d for d in diags if d.path == path]
        if any(d.code in FIXABLE for d in group):
            try:
                source = stdin_source if stdin_source is not None else Path(path).read_text(encoding="utf-8")
                group = analyse(path, source)
            except (OSError, UnicodeDecodeError):
                pass
        out.extend(group)
    return sorted(out), fixed


def cmd_explain(args: argparse.Namespace) -> int:
    code = args.code.upper()
    c = CODES.get(code)
    if c is None:
        print(f"namedcheck: error: unknown code {args.code!r}; known codes: {', '.join(sorted(CODES))}",
              file=sys.stderr)
        return 2
    print(f"{c.code}: {c.title}\n\n{c.explanation}")
    if c.wrong:
        print("\nWrong:\n" + "\n".join("    " + ln for ln in c.wrong.splitlines()))
    if c.right:
        print("\nRight:\n" + "\n".join("    " + ln for ln in c.right.splitlines()))
    return 0


def cmd_infer(args: argparse.Namespace) -> int:
    from namedcheck.lsp.infer import infer_source, unified_diff
    try:
        cfg = load_config(Path(args.config_root or "."))
        files, missing = discover(list(args.paths or ["."]), cfg.exclude, cfg.root)
    except ConfigError as e:
        print(f"namedcheck: error: {e}", file=sys.stderr)
        return 2
    if missing:
        print(f"namedcheck: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    total = changed = 0
    for display, f in files:
        try:
            source = Path(f).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            print(f"namedcheck: error: {display}: cannot read: {e}", file=sys.stderr)
            return 2
        new, added = infer_source(source, display, args.spelling == "annotated", tuple(cfg.stub_paths))
        if new == source:
            continue
        total += len(added)
        changed += 1
        if args.write:
            Path(f).write_text(new, encoding="utf-8")
        if args.diff:
            print(unified_diff(display, source, new), end="")
        elif not args.write:
            for i in added:
                print(f"{display}:{i.line}:{i.column + 1}: {i.kind} {i.name}: {i.type}")
    what = "annotated" if args.write else "would annotate"
    print(f"{what.capitalize()} {total} site{'s' if total != 1 else ''} in {changed} file{'s' if changed != 1 else ''}.",
          file=sys.stderr)
    return 0


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from namedcheck.lsp.server import serve
    except ImportError as e:
        print(f"namedcheck: error: the language server needs pygls ({e}); install it with "
              f"pip install 'namedcheck[lsp]'", file=sys.stderr)
        return 2
    return serve()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="namedcheck", description="Check named-shape JAX programs before they run.")
    p.add_argument("--version", action="version", version=f"namedcheck {__version__}")
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="check files and directories")
    c.add_argument("paths", nargs="*", help="files or directories (default: .); - reads one file from stdin")
    c.add_argument("--stdin-filename", help="the path to report for source read from stdin")
    c.add_argument("--format", choices=FORMATS, default="text")
    c.add_argument("--select", help="comma-separated codes or prefixes to report, e.g. NC2,NC502")
    c.add_argument("--ignore", help="comma-separated codes or prefixes to leave out")
    c.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: all cores)")
    c.add_argument("--no-cache", action="store_true", help="do not read or write .namedcheck_cache/")
    c.add_argument("--fix", action="store_true", help="apply safe fixes (e.g. lax.pcast on a loop's initial carry)")
    c.add_argument("--unsafe-fixes", action="store_true",
                   help="also apply fixes that may change what the program computes (implies --fix)")
    c.add_argument("--config-root", help=argparse.SUPPRESS)
    c.set_defaults(func=cmd_check)
    e = sub.add_parser("explain", help="what a diagnostic code means, with a wrong and a right example")
    e.add_argument("code")
    e.set_defaults(func=cmd_explain)
    inf = sub.add_parser("infer", help="add the annotations the checker fully knows (parameters, returns, locals)")
    inf.add_argument("paths", nargs="*", help="files or directories (default: .)")
    inf.add_argument("--write", action="store_true", help="write the annotations into the files")
    inf.add_argument("--diff", action="store_true", help="print a unified diff instead of a list")
    inf.add_argument("--spelling", choices=("plain", "annotated"), default="plain",
                     help="annotated: Annotated[jax.Array, f32[...]] (for pyright / pylance)")
    inf.add_argument("--config-root", help=argparse.SUPPRESS)
    inf.set_defaults(func=cmd_infer)
    ls = sub.add_parser("lsp", help="run the language server on stdio (for editors)",
                        description="A Language Server over stdio: diagnostics on open, change and save, hover "
                                    "with inferred types, inlay hints (setting inlayHints: true) and code actions "
                                    "(fixes, ignore a code on a line). The configuration is each file's nearest "
                                    "pyproject.toml.")
    ls.set_defaults(func=cmd_lsp)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
