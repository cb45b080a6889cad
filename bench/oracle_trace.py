"""The recording half of `bench/shape_oracle.py`: runs one program (a pytest run or a script) under a line tracer
that records, for every local name bound to an array, the shape and dtype it had.

    python bench/oracle_trace.py --root DIR --out FILE.json [--per-test SECONDS] [--per-file SECONDS] pytest TESTFILE...
    python bench/oracle_trace.py --root DIR --out FILE.json script SCRIPT [ARGS...]

Only frames of `.py` files under `--root` are traced (functions, lambdas and comprehensions; module bodies only of
the files run). At each line event that follows a line whose bytecode stores a local name (`STORE_FAST`,
`STORE_DEREF`, `STORE_NAME`), each such name whose store instruction lies between the instruction that began
that visit of the line and the one beginning this line (`f_lasti`; a jump back, or to the same line: from the
first to the line's end) was bound there, even to the object it held (`x = identity(x)`); a store a multi-line statement's later line
interrupted, or an exception skipped, is not taken; a function's parameters are recorded when it is called. Lines that bind nothing cost one dict lookup, and
a code object that binds nothing is not traced line by line. An array is a numpy `ndarray`, a
`jax.Array` or a JAX tracer (inside `jit` / `vmap` / `scan` / `grad`: its abstract shape). Run with the interpreter
of the environment that has JAX and the code's dependencies; this file imports neither namedcheck nor, itself, jax.

The output (`--out`, written at exit, on SIGTERM and every few seconds): `{"values": [[file, line, name, shape,
dtype], ...], "params": [[file, first_line, name, shape, dtype], ...], "calls": [[file, first_line, traced], ...],
"lines": {file: [line, ...]}, "full": [["values" | "params", file, line, name], ...], "reach": [[file, first_line,
[[caller_file, caller_line], ...], [line, ...]], ...], "tests": [[file, first_line, node_id, ran], ...]}`, each
distinct value once
(at most 8 per site; `full` lists the sites that had more, whose other values were dropped); `first_line` is the
code object's first line (a decorated function's first decorator; 0 for a module body). `calls` are the code
objects entered, `traced` when they bind names and so ran line by line: `lines` are the lines run in those (what
the comparison needs to tell a call that ran from one that did not); `reach` the lines whose stores ran in a code
object entered along one path of calls (the enclosing frames under root, the outermost first, the innermost 12:
a branch a call did not take, or a raise cut short, is told apart from one another call took); `tests` the pytest items collected, by test function, and
whether each one's call ran (a parametrized test's sets the run did not reach). With `--per-file N`,
a test file's remaining tests are skipped once it has run N seconds (the first tests of a file reach most of the
code it exercises; the time goes to the next file).
"""

from __future__ import annotations

import dis
import importlib.util
import json
import os
import signal
import sys
import threading
import time
from types import CodeType, FrameType
from typing import Any

MAX_PER_SITE = 8
MAX_CHAIN = 12  # the calls kept of a frame's path (the innermost ones)
_GENERATORS = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
_STORES = ("STORE_FAST", "STORE_DEREF", "STORE_NAME")  # a local name bound (a module or class body: STORE_NAME)


class PerFile:
    """A pytest plugin: the tests of a file that has already run `limit` seconds are skipped."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.started: dict[str, float] = {}

    def pytest_runtest_setup(self, item: Any) -> None:
        start = self.started.setdefault(str(item.path), time.monotonic())
        if time.monotonic() - start > self.limit:
            import pytest

            pytest.skip(f"oracle: this file has run {self.limit:g} s")


class Items:
    """A pytest plugin: the test items collected and those whose call ran (a parametrized test's sets the run
    did not reach are told apart from those it did), keyed by the test function's code (file, first line)."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec

    def key(self, item: Any) -> tuple[str, int] | None:
        import inspect

        fn = getattr(item, "function", None)
        try:
            code = inspect.unwrap(fn).__code__ if fn is not None else None
        except Exception:
            return None
        shown = self.rec.traced(code.co_filename) if code is not None else None
        return (shown, code.co_firstlineno) if shown is not None and code is not None else None

    def pytest_collection_finish(self, session: Any) -> None:
        for item in session.items:  # (those selected)
            k = self.key(item)
            if k is not None:
                self.rec.tests.setdefault((*k, item.nodeid), False)

    def pytest_runtest_call(self, item: Any) -> None:
        k = self.key(item)
        if k is not None:
            self.rec.tests[(*k, item.nodeid)] = True


class Recorder:
    def __init__(self, root: str, out: str) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.out = out
        self.values: dict[tuple[str, int, str], set[tuple[Any, str]]] = {}
        self.params: dict[tuple[str, int, str], set[tuple[Any, str]]] = {}
        self.files: dict[str, str | None] = {}  # co_filename -> its path under root, None: not traced
        self.kinds: dict[type, bool] = {}
        self.last_flush = time.monotonic()
        self.events = 0
        self.lock = threading.Lock()
        self.programs: set[str] = set()  # the files run: their module bodies are traced too
        self.store_lines: dict[CodeType, dict[int, tuple[tuple[int, str], ...]]] = {}
        # what ran, for the comparison to tell a call that ran from one that did not: the code objects entered
        # ((file, first line, traced line by line); a module body: first line 0), the lines run in the code
        # traced line by line, and the sites whose values past MAX_PER_SITE were dropped
        self.calls: set[tuple[str, int, bool]] = set()
        self.lines: dict[str, set[int]] = {}
        self.full: set[tuple[str, str, int, str]] = set()
        # the bindings run under each path of calls: (file, first line, the calls that led there, each (file, line)
        # of the nearest frames under root, the outermost first, at most MAX_CHAIN) -> the lines whose store ran in
        # frames of that code entered along that path (a call whose branch did not bind a name here is told apart)
        self.reach: dict[tuple[str, int, tuple[tuple[str, int], ...]], set[int]] = {}
        self.tests: dict[tuple[str, int, str], bool] = {}  # (file, first line, node id) -> its call ran

    # ---- what is an array ----------------------------------------------------------------------
    def array(self, v: Any) -> tuple[Any, str] | None:
        t = type(v)
        hit = self.kinds.get(t)
        if hit is None:
            hit = self._is_array_type(v)
            self.kinds[t] = hit
        if not hit:
            return None
        try:
            shape = tuple(
                int(d) if isinstance(d, int) or type(d).__name__.startswith("int") else str(d) for d in v.shape
            )
            return shape, str(v.dtype)
        except Exception:
            return None

    @staticmethod
    def _is_array_type(v: Any) -> bool:
        np = sys.modules.get("numpy")
        if np is not None and isinstance(v, np.ndarray):
            return True
        jax = sys.modules.get("jax")
        if jax is None:
            return False
        try:
            if isinstance(v, jax.Array):
                return True
            core = sys.modules.get("jax.core") or sys.modules.get("jax._src.core")
            return core is not None and isinstance(v, core.Tracer)
        except Exception:
            return False

    # ---- tracing -------------------------------------------------------------------------------
    def traced(self, filename: str) -> str | None:
        hit = self.files.get(filename, "")
        if hit != "":
            return hit
        path = os.path.realpath(filename) if filename.endswith(".py") else ""
        shown = path[len(self.root) :] if path.startswith(self.root) else None
        self.files[filename] = shown
        return shown

    def note(
        self,
        table: dict[tuple[str, int, str], set[tuple[Any, str]]],
        key: tuple[str, int, str],
        v: Any,
    ) -> None:
        a = self.array(v)
        if a is None:
            return
        seen = table.setdefault(key, set())
        if len(seen) < MAX_PER_SITE:
            seen.add(a)
        elif a not in seen:
            self.full.add(("params" if table is self.params else "values", *key))

    def global_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        shown = self.traced(code.co_filename)
        if shown is None:
            return None
        module_level = code.co_name == "<module>"
        if module_level and os.path.realpath(code.co_filename) not in self.programs:
            return None  # a library module's body: its globals are diffed at every line, for few arrays
        try:
            local_vars = frame.f_locals
        except Exception:
            return None
        first_call = not (code.co_flags & _GENERATORS) or frame.f_lasti <= 2
        if first_call and not module_level:
            n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
            for name in code.co_varnames[:n]:
                if name in local_vars:
                    self.note(
                        self.params,
                        (shown, code.co_firstlineno, name),
                        local_vars[name],
                    )
        stores = self.stores(code)
        first = 0 if module_level else code.co_firstlineno
        self.calls.add((shown, first, bool(stores)))
        under = self.reach.setdefault((shown, first, self.chain(frame)), set())
        if not stores:
            return None  # nothing is bound in it (its parameters are recorded above)
        state = [frame.f_lineno, frame.f_lasti]
        ran = self.lines.setdefault(shown, set())
        ran.add(frame.f_lineno)

        def local_trace(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line" or event == "return":
                line, start = state
                at = frame.f_lasti
                state[0], state[1] = frame.f_lineno, at
                ran.add(state[0])
                names = stores.get(line)
                if names is None:
                    return local_trace
                try:
                    now = frame.f_locals
                except Exception:
                    return local_trace
                # a store ran in this visit of the line: between the instruction that began it and the one that
                # began the next line; where it jumped back (to an earlier offset, or to the same line: a loop on
                # one line, a comprehension), from the first to the line's end
                back = at <= start or frame.f_lineno == line
                for offset, k in names:
                    if offset >= start if back else start <= offset < at:
                        under.add(line)  # (a binding that ran under this path: not one a raise cut short)
                        if k in now:
                            self.note(self.values, (shown, line, k), now[k])
                self.events += 1
                if self.events % 2000 == 0 and time.monotonic() - self.last_flush > 5:
                    self.flush()
            return local_trace

        return local_trace

    def chain(self, frame: FrameType) -> tuple[tuple[str, int], ...]:
        """The calls that led to a frame: (file, line) of each enclosing frame under root, the outermost first
        (the innermost MAX_CHAIN)."""
        out = []
        f = frame.f_back
        while f is not None and len(out) < MAX_CHAIN:
            shown = self.traced(f.f_code.co_filename)
            if shown is not None:
                out.append((shown, f.f_lineno))
            f = f.f_back
        return tuple(reversed(out))

    def stores(self, code: CodeType) -> dict[int, tuple[tuple[int, str], ...]]:
        """line -> (offset, local name) of each store instruction on that line (a code object's, once)."""
        hit = self.store_lines.get(code)
        if hit is None:
            table: dict[int, list[tuple[int, str]]] = {}
            for ins in dis.get_instructions(code):
                line = ins.positions.lineno if ins.positions else None
                if ins.opname in _STORES and line is not None and isinstance(ins.argval, str):
                    table.setdefault(line, []).append((ins.offset, ins.argval))
            hit = self.store_lines[code] = {ln: tuple(ns) for ln, ns in table.items()}
        return hit

    def flush(self) -> None:
        """Write what is recorded so far (atomically: a killed process leaves the last complete flush)."""
        with self.lock:
            self.last_flush = time.monotonic()
            data = {
                "values": [[*k, list(s), d] for k, vs in self.values.items() for s, d in sorted(vs, key=repr)],
                "params": [[*k, list(s), d] for k, vs in self.params.items() for s, d in sorted(vs, key=repr)],
                "calls": sorted(self.calls),
                "lines": {f: sorted(ls) for f, ls in self.lines.items()},
                "full": sorted(self.full),
                "reach": [[f, first, [list(c) for c in ch], sorted(ls)] for (f, first, ch), ls in self.reach.items()],
                "tests": [[*k, ran] for k, ran in sorted(self.tests.items())],
            }
            tmp = self.out + ".tmp"
            with open(tmp, "w") as f:
                json.dump(data, f)
            os.replace(tmp, self.out)


def main(argv: list[str]) -> int:
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--out", required=True)
    p.add_argument(
        "--per-test",
        type=float,
        default=0,
        help="pytest-timeout's limit per test, where installed",
    )
    p.add_argument(
        "--per-file",
        type=float,
        default=0,
        help="seconds of tests per test file (0: no limit)",
    )
    p.add_argument("mode", choices=("pytest", "script"))
    p.add_argument("rest", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    rec = Recorder(args.root, args.out)
    rec.programs = {os.path.realpath(f) for f in args.rest if f.endswith(".py")}

    def stop(signum: int, _frame: Any) -> None:
        sys.settrace(None)
        threading.settrace(None)
        rec.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    sys.path.insert(0, os.path.realpath(args.root))
    code = 0
    threading.settrace(rec.global_trace)
    sys.settrace(rec.global_trace)
    try:
        if args.mode == "pytest":
            import pytest

            limit = []
            if args.per_test > 0 and importlib.util.find_spec("pytest_timeout") is not None:
                limit = [f"--timeout={args.per_test:g}", "--timeout-method=signal"]
            flags = [
                "-q",
                "-p",
                "no:cacheprovider",
                "--no-header",
                "--continue-on-collection-errors",
                "-o",
                "addopts=",
                *limit,
            ]
            pytest.hookimpl(tryfirst=True)(PerFile.pytest_runtest_setup)  # (before the fixtures are set up)
            plugins: list[Any] = [Items(rec)]
            plugins += [PerFile(args.per_file)] if args.per_file > 0 else []
            code = int(pytest.main([*flags, *args.rest], plugins=plugins))
        else:
            import runpy

            sys.argv = list(args.rest)
            sys.path.insert(0, os.path.dirname(os.path.realpath(args.rest[0])))
            runpy.run_path(args.rest[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException as e:  # the program's own failure: what ran before it is recorded
        print(f"oracle_trace: {type(e).__name__}: {e}", file=sys.stderr)
        code = 1
    finally:
        sys.settrace(None)
        threading.settrace(None)
        rec.flush()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
