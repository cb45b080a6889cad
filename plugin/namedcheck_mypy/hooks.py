"""The plugin's hooks. No rule logic lives here: every type and diagnostic comes from namedcheck's
analyzer and engine; this module only translates between them and mypy.

- Annotations: `f32[(5, 7), {'b': 2}]` is read by the engine's annotation parser and becomes
  `Shaped[Literal["f32[(5, 7), {'b': 2}]"]]`; an annotation with symbols or `...` (whose size is
  settled per call) or with any dtype (`Array[...]`) becomes `Shaped[Any]`.
- Expressions: the analyzer runs once per file (what `namedcheck check` runs) and records the value
  of every array expression by source span; function, method and attribute hooks look their call up
  there. An expression the analyzer cannot type (Unknown) is Any where mypy would say `Array`, so
  Unknown never fails a shaped slot.
- Calls of functions with shaped parameters: a parameter whose declared shape the engine accepts for
  the argument (symbols, lifted named axes) takes the argument's type, so mypy's own check agrees
  with the engine; a plain `jax.Array` (Unknown shape) is accepted too.
- Diagnostics: every file that mentions jax gets an anchor, a `0 + 0` statement put first in its parsed
  tree, whose operator hook reports the file's diagnostics (whatever else in the file fires a hook
  or not) as `error: message  [NC202]`, with the hint as a note; each code is a sub-code of
  `namedcheck`, so `# type: ignore[NC202]` and `# type: ignore[namedcheck]` both silence it.
- Typing changes only in modules that import namedcheck; elsewhere every hook returns mypy's own type.
- Robustness: every hook catches everything and falls back to mypy's own type.
"""

from __future__ import annotations

import ast
import atexit
import functools
import hashlib
import os
import pickle
import re
import select
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mypy.errorcodes import VALID_TYPE, ErrorCode
from mypy.nodes import (
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    Context,
    Decorator,
    ExpressionStmt,
    FuncDef,
    IndexExpr,
    IntExpr,
    MemberExpr,
    MypyFile,
    OpExpr,
    OverloadedFuncDef,
    UnaryExpr,
)
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import (
    AnyType,
    CallableType,
    EllipsisType,
    Instance,
    LiteralType,
    ProperType,
    RawExpressionType,
    TupleType,
    Type,
    TypedDictType,
    TypeOfAny,
    UnboundType,
    UnionType,
    get_proper_type,
)

from namedcheck import __version__
from namedcheck.analyzer.relevance import is_relevant
from namedcheck.cli import isolated
from namedcheck.engine.codes import CODES
from namedcheck.engine.dtypes import ANNOTATION_HEADS, FAMILY_HEADS, materialize
from namedcheck.engine.errors import RuleError
from namedcheck.engine.signature import Param, Signature, apply
from namedcheck.engine.syntax import parse_item, parse_printed
from namedcheck.engine.values import ArrayType, Seq

SHAPED = "namedcheck.shaped.Shaped"
SHAPED_VALUE = "namedcheck.shaped.ShapedValue"
ARRAY_CLASSES = {"jax._src.basearray.Array", "jax.Array", "jaxlib.xla_extension.ArrayImpl", SHAPED, SHAPED_VALUE}
NAMEDCHECK = ErrorCode("namedcheck", "namedcheck's shape, map and replication rules", "namedcheck")
# one mypy error code per diagnostic code, each a sub-code of `namedcheck`
ERROR_CODES = {code: ErrorCode(code, c.title, "namedcheck", sub_code_of=NAMEDCHECK) for code, c in CODES.items()}
ANCHOR_METHOD = "builtins.int.__add__"  # the anchor statement `0 + 0` (see `_anchor`)
ANNOTATIONS = {f"{module}.{name}" for module in ("namedcheck", "namedcheck.annotations") for name in ANNOTATION_HEADS}
# `f32`, `Float`, ... are `typing.Annotated` for type checkers (`f32[Array, Dims(...)]`): told apart by the name written
ARRAY_HEADS = ANNOTATION_HEADS | FAMILY_HEADS
ANNOTATED = ("typing.Annotated", "typing_extensions.Annotated")
# callees whose results the analyzer may type (besides functions of modules that import namedcheck)
_ARRAY_MODULES = ("jax.", "jaxlib.", "numpy.", "namedcheck.", "flax.", "equinox.", "optax.")


_OWN_PACKAGES = {"namedcheck", "namedcheck_mypy"}
_MAPS = {"vmap", "pmap", "shard_map", "xmap", "smap"}


class _NotLiteral(Exception):
    pass


@dataclass
class _FileFacts:
    diagnostics: list[Any]
    types: dict[tuple[int, int, int, int], Any]


class NamedcheckPlugin(Plugin):
    """mypy hooks backed by namedcheck's analyzer."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self._files: dict[str, _FileFacts | None] = {}
        self._user_modules: set[str] = set()  # modules that import namedcheck (their functions get hooks)
        self._anchors: dict[str, OpExpr] = {}  # path -> the statement whose hook reports the diagnostics
        self._worker = _Worker()
        atexit.register(self._worker.close)

    # ---- configuration --------------------------------------------------------------------------
    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        """Another namedcheck (or an edited checkout) invalidates mypy's cache; so does, for a file of a
        project, an edit of any project module whose analysis can change the file's diagnostics or types
        (a caller, a callee, their callees): mypy then checks the file again. A file checked from the
        cache is still part of the build: its calls count for the files mypy checks."""
        try:
            path = ctx.path
            if path and _reported(path, ctx.id):
                if ctx.is_check:
                    self._worker.note(path)
                return [_fingerprint(), _related_fingerprint(path)]
        except Exception:
            pass
        return _fingerprint()

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        """Called once per (re-)parse of a file: anchor its diagnostics, and note whether it imports
        namedcheck (then its types change and its annotations are read)."""
        try:
            self._anchor(file)
        except Exception:
            pass
        if file.fullname.startswith("namedcheck") or not any(
            getattr(imp, "id", "").startswith("namedcheck")
            or any(i.startswith("namedcheck") for i, _ in getattr(imp, "ids", ()))
            for imp in file.imports
        ):
            return []
        self._user_modules.add(file.fullname)
        try:  # the file is parsed, not yet analysed: keep symbols in annotations from name lookup
            _mark_symbols(file.defs)
        except Exception:
            pass
        return [(10, "namedcheck.shaped", -1)]

    def _anchor(self, file: MypyFile) -> None:
        """Put `0 + 0` first in a file that mentions jax: mypy checks a module's first statement in every
        file it checks, so the operator's hook reports the file's diagnostics even where nothing else
        of the file reaches a hook (unannotated functions, code mypy cannot type)."""
        path = file.path
        self._files.pop(path, None)  # (re-)parsed: the file may have changed (dmypy)
        if file.is_stub or not _reported(path, file.fullname):
            return
        anchor = OpExpr("+", IntExpr(0), IntExpr(0))
        for node in (anchor, anchor.left, anchor.right):
            node.set_line(1, 0)
        stmt = ExpressionStmt(anchor)
        stmt.set_line(1, 0)
        file.defs.insert(0, stmt)
        self._anchors[path] = anchor
        self._worker.submit(path)  # analysed while mypy reads the imports (with the build's other files)

    # ---- hook selection ---------------------------------------------------------------------------
    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if fullname in ANNOTATED:
            return self._annotated
        return self._annotation if fullname in ANNOTATIONS else None

    def _user(self, fullname: str) -> bool:
        """A function or method defined in a module that imports namedcheck."""
        module = fullname
        while "." in module:
            module = module.rpartition(".")[0]
            if module in self._user_modules:
                return True
        return False

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname.rpartition(".")[2] in _MAPS:
            return self._map
        return self._call if fullname.startswith(_ARRAY_MODULES) or self._user(fullname) else None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        if fullname == ANCHOR_METHOD:
            return self._report
        if not (fullname.startswith(_ARRAY_MODULES) or self._user(fullname)):
            return None
        method = fullname.rpartition(".")[2]
        return lambda ctx: self._method(method, ctx)

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        cls, _, attr = fullname.rpartition(".")
        return self._attribute if cls in ARRAY_CLASSES and attr in ("T", "mT", "real", "imag") else None

    def get_function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], CallableType] | None:
        return self._signature if self._user(fullname) else None

    def get_method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], CallableType] | None:
        return self._signature if self._user(fullname) else None

    # ---- annotations ------------------------------------------------------------------------------
    def _annotated(self, ctx: AnalyzeTypeContext) -> Type:
        """`f32[...]` written with namedcheck's heads (Annotated for type checkers), else mypy's Annotated."""
        t = ctx.type
        if t.name.rpartition(".")[2] in ARRAY_HEADS:
            return self._annotation(ctx)
        api: Any = ctx.api
        if len(t.args) < 2:
            api.fail(
                "Annotated[...] must have exactly one type argument and at least one annotation", t, code=VALID_TYPE
            )
            return AnyType(TypeOfAny.from_error)
        return api.anal_type(t.args[0], allow_typed_dict_special_forms=api.allow_typed_dict_special_forms)

    def _annotation(self, ctx: AnalyzeTypeContext) -> Type:
        try:
            head = ctx.type.name.rpartition(".")[2]
            try:
                text = "(" + "".join(_literal_text(a) + ", " for a in ctx.type.args) + ")"
                array = parse_item(None if head == "Array" else head, ast.literal_eval(text))
            except _NotLiteral:  # `f32[Array, Dims(...)]`: mypy's types lose the call; read the source
                array = _from_source(ctx.api.api.cur_mod_node.path, ctx.type, head)  # type: ignore[attr-defined]
            return _shaped(array, lambda name, args: ctx.api.named_type(name, args))
        except (_NotLiteral, RuleError, ValueError, SyntaxError):
            return AnyType(TypeOfAny.from_error)  # NC1xx: reported with the file's diagnostics
        except Exception:
            return AnyType(TypeOfAny.special_form)

    # ---- expressions ------------------------------------------------------------------------------
    def _call(self, ctx: FunctionContext | MethodContext) -> Type:
        return self._expression(ctx.api, ctx.context, ctx.default_return_type)

    def _method(self, method: str, ctx: MethodContext) -> Type:
        """A method call typed by the expression it is: `x.sum(0)`, `x + y`, `x[0]`. mypy also calls
        methods for statements (`__iter__` of an unpacking, `__enter__`); those keep mypy's type."""
        node = ctx.context
        if isinstance(node, CallExpr):  # `x.sum(0)`, or calling a callable object: `jax.jit(f)(x)`
            ok = method == "__call__" or isinstance(node.callee, MemberExpr) and node.callee.name == method
        elif isinstance(node, IndexExpr):
            ok = method == "__getitem__"
        else:
            ok = isinstance(node, OpExpr | ComparisonExpr | UnaryExpr) and method.startswith("__")
        return self._expression(ctx.api, node, ctx.default_return_type) if ok else ctx.default_return_type

    def _map(self, ctx: FunctionContext) -> Type:
        """`vmap(f)` / `shard_map(f, ...)`: the mapped callable takes and returns other shapes than f
        declares (a batch dim, global arrays); its calls are typed by the analyzer, not f's signature."""
        try:
            if not self._typed(ctx.api):
                return ctx.default_return_type
            ret = get_proper_type(ctx.default_return_type)
            if isinstance(ret, CallableType):
                anything = AnyType(TypeOfAny.special_form)
                return ret.copy_modified(arg_types=[anything] * len(ret.arg_types), ret_type=anything)
        except Exception:
            pass
        return ctx.default_return_type

    def _attribute(self, ctx: AttributeContext) -> Type:
        if ctx.is_lvalue:
            return ctx.default_attr_type
        return self._expression(ctx.api, ctx.context, ctx.default_attr_type)

    def _typed(self, api: Any) -> bool:
        """Types change only in modules that import namedcheck; elsewhere only diagnostics appear."""
        tree = getattr(api, "tree", None)
        return tree is not None and tree.fullname in self._user_modules

    def _expression(self, api: Any, node: Context, default: Type) -> Type:
        try:
            if not self._typed(api):
                return default
            facts = self._facts(api)
            if facts is None:
                return default
            value = facts.types.get((node.line, node.column, node.end_line or -1, node.end_column or -1))
            typ = _mypy_type(value, _maker(api)) if value is not None else None
            if typ is not None:
                return typ
            return AnyType(TypeOfAny.special_form) if _is_array(default) else default
        except Exception:
            return default

    def _signature(self, ctx: FunctionSigContext | MethodSigContext) -> CallableType:
        sig = ctx.default_signature
        try:
            if not self._typed(ctx.api) or not any(_shaped_arg(t) is not None for t in sig.arg_types):
                return sig
            if self._facts(ctx.api) is None:
                return sig
            arg_types = list(sig.arg_types)
            for i, formal in enumerate(sig.arg_types):
                declared = _shaped_arg(formal)
                if declared is None or i >= len(ctx.args) or len(ctx.args[i]) != 1:
                    continue
                actual = get_proper_type(ctx.api.get_expression_type(ctx.args[i][0]))
                if _accepts(declared, actual):
                    arg_types[i] = actual
            return sig.copy_modified(arg_types=arg_types)
        except Exception:
            return sig

    # ---- the file's analysis ------------------------------------------------------------------------
    def _report(self, ctx: MethodContext) -> Type:
        """The anchor's hook: report the file's diagnostics unless they are reported already (a target
        checked again, as dmypy does, keeps its errors until mypy clears them)."""
        try:
            api: Any = ctx.api
            path = getattr(api, "path", None)
            if path is None or ctx.context is not self._anchors.get(path):
                return ctx.default_return_type
            errors = api.msg.errors
            if path in errors.ignored_files or any(
                info.code is not None and (info.code is NAMEDCHECK or info.code.sub_code_of is NAMEDCHECK)
                for info in errors.error_info_map.get(path, ())
            ):
                return ctx.default_return_type
            facts = self._facts(api)
            if facts is not None:
                _report_diagnostics(errors, api, facts.diagnostics)
            elif path in self._worker.failures:  # the worker stalled or crashed in this file: say so, once
                watchers, errors._watchers = errors._watchers, []
                try:
                    api.note(self._worker.failures[path], Context(1, 0), code=NAMEDCHECK)
                finally:
                    errors._watchers = watchers
        except Exception:
            pass
        return ctx.default_return_type

    def _facts(self, api: Any) -> _FileFacts | None:
        """The analysis of the file the checker is in (None for files mypy keeps silent)."""
        path = getattr(api, "path", None)
        if path is None:
            return None
        if path not in self._files:
            # mypy reports nothing for silenced modules (installed packages, follow_imports=silent)
            if path in api.msg.errors.ignored_files or path.endswith(".pyi"):
                self._files[path] = None
            else:
                try:
                    self._files[path] = _facts_of(self._worker.result(path))
                except KeyError:
                    self._files[path] = _facts_of(self._worker.in_process(path))
        return self._files[path]


_NAMEDCHECK_IMPORT = re.compile(r"^\s*(?:from|import)\s+namedcheck\b", re.MULTILINE)


@functools.lru_cache(maxsize=256)
def _imports_namedcheck(path: str) -> bool:
    """Whether a file imports namedcheck: only there does the plugin add to mypy's output beyond errors (in
    the others mypy's output stays mypy's own)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return _NAMEDCHECK_IMPORT.search(f.read(1 << 20)) is not None
    except OSError:
        return False


def _report_diagnostics(errors: Any, api: Any, diagnostics: list[Any]) -> None:
    """Report the file's diagnostics, each with its own code and its hint as a note (past any mute
    mypy has on while it tries an alternative, though the anchor is checked outside those)."""
    watchers = errors._watchers
    errors._watchers = []
    try:
        for d in diagnostics:
            ctx = Context(d.line, d.column - 1)
            ctx.end_line, ctx.end_column = d.end_line, d.end_column - 1
            code = ERROR_CODES.get(d.code, NAMEDCHECK)
            if getattr(d, "severity", "error") == "note":  # NC003 (`reveal_type`): a note, as mypy's own
                if _imports_namedcheck(d.path):  # elsewhere mypy's own reveal_type is the whole answer
                    api.note(d.message, ctx, code=code)
                continue
            api.fail(d.message, ctx, code=code)
            for r in getattr(d, "related", ()):
                api.note(f"{r.path}:{r.line}:{r.column}: {r.message}", ctx, code=code)
            if d.hint:
                api.note(f"hint: {d.hint}", ctx, code=code)
    finally:
        errors._watchers = watchers


def _reported(path: str, module: str) -> bool:
    """Whether the plugin analyses and reports a file: the user's own Python files that mention jax or
    import their project's modules."""
    if not path.endswith(".py") or module.partition(".")[0] in _OWN_PACKAGES or _installed(path):
        return False  # mypy keeps installed packages silent
    return _relevant(path, *_stamp(path))


def _stamp(path: str) -> tuple[int, int]:
    try:
        st = Path(path).stat()
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4096)
def _relevant(path: str, mtime: int, size: int) -> bool:
    """A file that mentions jax, or imports a module of its project (the calls of other files may cause
    diagnostics in it; the CLI reports those too)."""
    text = _read_source(path, whole=False)
    if text is None:
        return False
    if is_relevant(text):
        return True
    from namedcheck.analyzer.project import project_for

    project = project_for(path)
    return project is not None and project.imports_project(Path(path))


def _related_fingerprint(path: str) -> str:
    """A digest of the project modules whose edit can change this file's analysis (`Project.related_digest`)."""
    from namedcheck.analyzer.project import project_for

    project = project_for(path)
    return project.related_digest(Path(path)) if project is not None else ""


def _installed(path: str) -> bool:
    """A file of an installed package (mypy checks those silently: not worth analysing ahead)."""
    parts = set(Path(path).parts)
    return "site-packages" in parts or "dist-packages" in parts or "typeshed" in parts


def _maker(api: Any) -> Callable[[str, list[Type]], Instance]:
    """Instances by full name in the checker (`namedcheck.shaped` is loaded but not an attribute of
    the `namedcheck` package, so it is read from the module table)."""

    def make(name: str, args: list[Type]) -> Instance:
        if name in (SHAPED, SHAPED_VALUE):
            info = api.modules["namedcheck.shaped"].names[name.rpartition(".")[2]].node
            return Instance(info, args)
        return api.named_generic_type(name, args)

    return make


@functools.cache
def _fingerprint() -> str:
    """namedcheck's version and the modification times of its sources and stubs."""
    import namedcheck
    from namedcheck.engine.stubs import builtin_stub_dir

    roots = [Path(namedcheck.__file__).parent, Path(__file__).parent, Path(builtin_stub_dir())]
    stamp = hashlib.sha1(__version__.encode())
    for root in roots:
        for f in sorted(root.rglob("*.py*")):
            stamp.update(f"{f}:{f.stat().st_mtime_ns}".encode())
    return f"namedcheck {__version__} {stamp.hexdigest()[:16]}"


def _facts_of(result: tuple[list[Any], dict[Any, Any]] | None) -> _FileFacts | None:
    if result is None or (not result[0] and not result[1]):
        return None
    return _FileFacts(result[0], result[1])


WORKER_TIMEOUT = "NAMEDCHECK_MYPY_TIMEOUT"  # seconds the plugin waits for each record of the worker's answer
_RESTARTS = 4  # worker restarts per answer (each leaves out the file that stalled or crashed the one before)


class _WorkerGone(Exception):
    """The worker stalled (past its deadline) or ended before it answered."""

    def __init__(self, why: str, culprit: str | None) -> None:
        super().__init__(why)
        self.why = why
        self.culprit = culprit  # the file it was analysing, when it said


class _Worker:
    """The helper process (`namedcheck_mypy.worker`) analysing the build's files ahead of mypy's checker.
    Files are named as mypy reads them; the first result asked for closes the list (mypy has read the
    whole build before it checks a file) and brings every file's result.

    The plugin never waits forever: each record of the answer must come within `allowance` seconds (the
    worker names each file as it starts it). A worker that stalls or dies is killed; the file it was
    analysing gets no namedcheck diagnostics and one note (`failures`), and a fresh worker analyses the
    others; a worker that cannot start at all leaves the analysis to this process (`in_process`)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.failed = False  # the worker cannot be started: analyse in process
        self.build: dict[str, None] = {}  # every file of the build named so far (dmypy: of all updates)
        self.done: dict[str, tuple[tuple[int, int], Any]] = {}  # path -> (its stamp when analysed, result)
        self.failures: dict[str, str] = {}  # path -> why it has no analysis (the note mypy shows)
        # path -> (its stamp, the note) of a file that stalled or crashed a worker: not analysed again
        # unless it changes (dmypy: an update of another file does not wait for it again)
        self.stalled: dict[str, tuple[tuple[int, int], str]] = {}
        self.allowance: float | None = None  # seconds per record of an answer (from the first file's config)

    def submit(self, path: str) -> None:
        """A file mypy checks: analysed at once."""
        hit = self.done.get(path)
        if hit is not None and hit[0] == _stamp(path):
            return  # parsed late in the same build (a dependency changed): its result stands
        self.done.clear()  # a file changed (dmypy): every result may have
        self.failures.clear()
        self._send("A", path)

    def note(self, path: str) -> None:
        """A file of the build mypy may not check (fresh in its cache): its calls count."""
        if path not in self.build and self.proc is not None:
            self._send("B", path)
        self.build[path] = None

    def _send(self, kind: str, path: str) -> None:
        self.build[path] = None
        if self.failed or self._stalled(path) or not _nameable(path):
            return
        try:
            if self.proc is None:
                self._start(exclude=path)
        except Exception:  # no worker can be started here: this process analyses
            self.close(kill=True)
            self.failed = True
            return
        try:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(f"{kind} {path}\n".encode("utf-8", "surrogateescape"))
            self.proc.stdin.flush()
        except OSError:  # the worker ended (a crash): the answer finds out which file
            pass

    def _start(self, exclude: str | None = None) -> None:
        """Start a worker and name the build's files to it (all but `exclude` and those that failed)."""
        if self.allowance is None:
            self.allowance = _allowance(next(iter(self.build), None))
        self.proc = subprocess.Popen(
            worker_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdin is not None
        named = [p for p in self.build if p != exclude and p not in self.failures and not self._stalled(p)]
        try:
            self.proc.stdin.write(
                b"".join(f"B {p}\n".encode("utf-8", "surrogateescape") for p in named if _nameable(p))
            )
            self.proc.stdin.flush()
        except OSError:  # ended at once: the answer says so
            pass

    def _stalled(self, path: str) -> bool:
        """Whether `path` stalled or crashed a worker as it is now."""
        hit = self.stalled.get(path)
        return hit is not None and hit[0] == _stamp(path)

    def result(self, path: str) -> Any:
        """The result for `path` (None when it has none: see `failures`); raises KeyError when the worker
        cannot be started (then this process analyses)."""
        if self.failed:
            raise KeyError("no worker")
        if path not in self.done:
            if path not in self.build:  # named late (a file that was not reported): part of the build now
                self.note(path)
            self._answer()
            for p in (*self.build, path):  # a file the answer left out has no result
                self.done.setdefault(p, (_stamp(p), None))
        return self.done[path][1]

    def _answer(self) -> None:
        """Ask for every file's result; past a stall or a crash, leave the file it was in out and ask a
        fresh worker (at most `_RESTARTS` times; then every file left gets the note)."""
        last = "the analysis ended abnormally"
        for p in self.build:
            if self._stalled(p):
                stamp, note = self.stalled[p]
                self.failures[p] = note
                self.done[p] = (stamp, None)
        for _ in range(_RESTARTS + 1):
            try:
                if self.proc is None:
                    self._start()
            except Exception:  # the worker cannot be started
                self.close(kill=True)
                self.failed = True
                raise KeyError("no worker") from None
            try:
                self._read_answer()
                return
            except _WorkerGone as gone:
                self.close(kill=True)
                if gone.culprit is not None:
                    note = self.failures[gone.culprit] = _failure_note(gone.why)
                    stamp = _stamp(gone.culprit)
                    self.done[gone.culprit] = (stamp, None)
                    self.stalled[gone.culprit] = (stamp, note)
                    last = f"{gone.why} (in {gone.culprit})"
                else:
                    last = gone.why
            finally:
                self.close()  # the worker ends now, not with mypy (a dmypy update starts another)
        for p in self.build:
            if p not in self.done:
                self.failures[p] = _failure_note(last)
                self.done[p] = (_stamp(p), None)

    def _read_answer(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        allowance = self.allowance or _DEFAULT_ALLOWANCE
        culprit: str | None = None
        try:
            proc.stdin.write(b"E\n")
            proc.stdin.flush()
        except OSError:
            pass  # ended already: reading says so
        while True:
            try:
                (n,) = struct.unpack("<Q", _read_within(fd, 8, allowance))
                got, result = pickle.loads(_read_within(fd, n, allowance))
            except TimeoutError:
                raise _WorkerGone(f"the analysis did not finish within {allowance:g} s", culprit) from None
            except Exception:  # the end of the pipe, a broken record
                raise _WorkerGone("the analysis ended abnormally", culprit) from None
            if got is None:
                return
            if isinstance(result, str):  # (path, WORKING): the worker starts this file
                culprit = got
                continue
            self.done[got] = (_stamp(got), result)

    def in_process(self, path: str) -> Any:
        """The build's analysis in this process (the worker cannot be started)."""
        from namedcheck_mypy.worker import analyse_build  # libcst loads with the first file

        if path not in self.done:
            for p, result in analyse_build(list({**self.build, path: None})).items():
                self.done[p] = (_stamp(p), result)
        return self.done[path][1]

    def close(self, kill: bool = False) -> None:
        """End the worker (at once: a file it is still analysing is not needed)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if kill:
                proc.kill()
            elif proc.stdin is not None:
                proc.stdin.close()  # the worker exits when its stdin ends
            proc.wait(timeout=0.5)
        except Exception:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


_DEFAULT_ALLOWANCE = 60.0


def _nameable(path: str) -> bool:
    """A path the line protocol can carry (a line break in it would start another request)."""
    return "\n" not in path and "\r" not in path


def _allowance(path: str | None) -> float:
    """Seconds the plugin waits for each record of the worker's answer (each file's analysis): three times
    the per-file time budget of `[tool.namedcheck]` (parsing the file and the project modules it loads
    come on top of its analysis) plus 30 s, or `NAMEDCHECK_MYPY_TIMEOUT`."""
    try:
        told = float(os.environ.get(WORKER_TIMEOUT, "nan"))
        if told > 0 and told != float("inf"):
            return told
    except ValueError:
        pass
    if path is None:
        return _DEFAULT_ALLOWANCE
    try:
        from namedcheck_mypy.worker import _configured

        budget = float(_configured(path)[1].time_budget)
    except Exception:
        return _DEFAULT_ALLOWANCE
    return 3 * budget + 30 if 0 < budget < float("inf") else _DEFAULT_ALLOWANCE


def _failure_note(why: str) -> str:
    return f"namedcheck: no diagnostics for this file: {why}; mypy's own check is complete"


def _read_within(fd: int, n: int, seconds: float) -> bytes:
    """Exactly `n` bytes of the pipe `fd`, within `seconds` (TimeoutError past them, EOFError at its end)."""
    if os.name == "nt":  # no select() on pipes: a reading thread, waited for
        box: list[bytes | BaseException] = []

        def read() -> None:
            try:
                box.append(_read_exact(fd, n))
            except BaseException as e:
                box.append(e)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(seconds)
        if not box:
            raise TimeoutError
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]
    deadline = time.monotonic() + seconds
    parts: list[bytes] = []
    left = n
    while left > 0:
        wait = deadline - time.monotonic()
        if wait <= 0:
            raise TimeoutError
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _read_exact(fd: int, n: int) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def worker_command() -> list[str]:
    """The worker's command line, isolated from the checked project (`namedcheck.cli.isolated`: `python -I
    -S`, no working directory, sitecustomize or .pth file), with exactly the path entries namedcheck, the plugin
    and their dependencies need."""
    pdeathsig = threading.current_thread() is threading.main_thread()
    args = [str(os.getpid()), *(["--pdeathsig"] if pdeathsig else [])]
    return isolated.command(_worker_path(), "namedcheck_mypy.worker", args)


_OWN = ("namedcheck", "namedcheck_mypy")
# what the worker imports besides the analysis's needs: mypy (the plugin package's __init__ imports it) and
# the packages mypy's compiled modules import
_WORKER_NEEDS = (
    *isolated.ANALYSIS_NEEDS,
    *("mypy", "mypy_extensions", "librt", "pathspec", "ast_serialize", "psutil"),
)


@functools.cache
def _worker_path() -> list[str]:
    """The path entries the worker needs (`isolated.path_entries`), computed once per process."""
    return isolated.path_entries(_OWN, _WORKER_NEEDS)


def _mark_symbols(stmts: list[Any]) -> None:
    """Symbols in array annotations (`f32[('B', 784)]`) are strings, which mypy would read as forward
    references and look up (`Name "B" is not defined`) before the annotation hook runs; mark them as
    literal strings instead, in every function signature and annotated assignment of a parsed file."""
    for st in stmts:
        if isinstance(st, Decorator):
            st = st.func
        if isinstance(st, OverloadedFuncDef):
            _mark_symbols(list(st.items))
            continue
        if isinstance(st, FuncDef):
            for t in (st.type, st.unanalyzed_type):
                if isinstance(t, CallableType):
                    for a in [*t.arg_types, t.ret_type]:
                        _mark(a)
        elif isinstance(st, AssignmentStmt):
            _mark(st.type)
            _mark(st.unanalyzed_type)
        elif isinstance(st, ClassDef):
            _mark_symbols(st.defs.body)
            continue
        for attr in ("body", "else_body", "finally_body"):
            block = getattr(st, attr, None)
            blocks = block if isinstance(block, list) else [block]
            for b in blocks:
                if isinstance(b, Block):
                    _mark_symbols(b.body)
        for b in getattr(st, "handlers", None) or ():
            if isinstance(b, Block):
                _mark_symbols(b.body)


def _from_source(path: str, t: UnboundType, head: str) -> ArrayType:
    """An annotation `f32[...]` read from its source text by the analyzer's reader (raises on failure)."""
    import libcst as cst

    from namedcheck.analyzer.literals import parse_annotation_subscript

    lines = _source_lines(path, Path(path).stat().st_mtime_ns)
    if t.end_line is None or t.end_column is None or t.line < 1:
        raise _NotLiteral
    if t.line == t.end_line:
        text = lines[t.line - 1][t.column : t.end_column]
    else:
        text = "\n".join(
            [lines[t.line - 1][t.column :], *lines[t.line : t.end_line - 1], lines[t.end_line - 1][: t.end_column]]
        )
    from namedcheck.analyzer.parsing import parse_expression

    node = parse_expression(text)  # guarded: None when refused or not an expression
    if not isinstance(node, cst.Subscript):
        raise _NotLiteral
    return parse_annotation_subscript(head, node)


@functools.lru_cache(maxsize=64)
def _source_lines(path: str, mtime: int) -> list[str]:
    text = _read_source(path)
    if text is None:
        raise _NotLiteral
    return text.splitlines()


def _read_source(path: str, whole: bool = True) -> str | None:
    """A project file's text through the guarded reader (`analyzer/sources.read_regular`: a regular file,
    never a FIFO or a device) of at most `max-file-size` MB; None when it cannot be read (deleted, not
    UTF-8, larger: then mypy's own output stands). Not `whole`: the first `max-file-size` MB of a larger
    file (what decides whether the worker reports it)."""
    from namedcheck.analyzer.budget import DEFAULT_MAX_FILE_SIZE
    from namedcheck.analyzer.sources import read_regular

    cap = DEFAULT_MAX_FILE_SIZE * 1024 * 1024
    data = read_regular(path, cap)
    if isinstance(data, str):
        return None
    if len(data) > cap:
        return None if whole else data[:cap].decode("utf-8", "ignore")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _mark(t: Any) -> None:
    if isinstance(t, UnboundType):
        if t.name.rpartition(".")[2] in ARRAY_HEADS:
            t.args = tuple(_as_literal(a) for a in t.args)
        else:
            for a in t.args:
                _mark(a)


def _as_literal(t: Any) -> Any:
    if isinstance(t, UnboundType) and t.original_str_expr is not None and not t.args:
        return RawExpressionType(t.original_str_expr, "builtins.str", t.line, t.column)
    if isinstance(t, TupleType):
        t.items = [_as_literal(i) for i in t.items]
    elif isinstance(t, TypedDictType):
        t.items = {k: _as_literal(v) for k, v in t.items.items()}
    return t


# ---- translation ----------------------------------------------------------------------------------


def _literal_text(t: Type) -> str:
    """A type argument of `f32[...]` back as the Python literal it was written as."""
    if isinstance(t, RawExpressionType) and t.base_type_name in ("builtins.int", "builtins.str", "builtins.bool"):
        return repr(t.literal_value)
    if isinstance(t, UnboundType) and t.original_str_expr is not None:
        return repr(t.original_str_expr)
    if isinstance(t, EllipsisType):
        return "..."
    if isinstance(t, TupleType):
        return "(" + "".join(_literal_text(i) + ", " for i in t.items) + ")"
    if isinstance(t, TypedDictType):
        return "{" + ", ".join(f"{k!r}: {_literal_text(v)}" for k, v in t.items.items()) + "}"
    raise _NotLiteral


def _shaped(t: ArrayType, make: Callable[[str, list[Type]], Instance]) -> Instance:
    """The mypy type of an engine array type: exact when every size and the dtype are known."""
    t = ArrayType(
        materialize(t.dtype_code), t.shape, t.named, sharding=t.sharding, unreduced=t.unreduced, reduced=t.reduced
    )
    concrete = (
        t.dtype_code is not None
        and all(isinstance(d, int) for d in t.shape)
        and all(isinstance(s, int) for _, s in t.named)
    )
    if not concrete:
        return make(SHAPED, [AnyType(TypeOfAny.special_form)])
    text = make("builtins.str", [])
    return make(SHAPED, [LiteralType(repr(t), fallback=text)])


def _mypy_type(v: Any, make: Callable[[str, list[Type]], Instance]) -> Type | None:
    """An inferred value's type: `ShapedValue[Literal['f32[(5, 3)]'] | Any]`, a `Shaped[Any]` whose
    parameter shows the exact type and, through the `Any`, takes any other: a variable keeps the shape
    for reveal_type, and re-assigning it with another shape stays legal (as in the CLI); the engine
    checks inferred shapes against declarations (NC301)."""
    if isinstance(v, ArrayType):
        exact = _shaped(v, make)
        arg = get_proper_type(exact.args[0]) if exact.args else None
        anything = AnyType(TypeOfAny.special_form)
        if not isinstance(arg, LiteralType):
            return make(SHAPED_VALUE, [anything])
        return make(SHAPED_VALUE, [UnionType([arg, anything])])
    if isinstance(v, Seq) and v.kind == "tuple":
        items: list[Type] = [_mypy_type(i, make) or AnyType(TypeOfAny.special_form) for i in v.items]
        return TupleType(items, make("builtins.tuple", [AnyType(TypeOfAny.special_form)]))
    return None


def _is_array(t: Type) -> bool:
    p = get_proper_type(t)
    return isinstance(p, Instance) and p.type.fullname in ARRAY_CLASSES


def _shaped_arg(t: Type) -> ArrayType | None | bool:
    """A formal's declared array type (True: shaped but not exact), or None when not shaped."""
    p = get_proper_type(t)
    if isinstance(p, Instance) and p.type.fullname == SHAPED_VALUE:
        return True
    if not isinstance(p, Instance) or p.type.fullname != SHAPED:
        return None
    arg = get_proper_type(p.args[0]) if p.args else None
    if isinstance(arg, LiteralType) and isinstance(arg.value, str):
        return parse_printed(arg.value) or True
    return True


def _accepts(declared: ArrayType | bool | None, actual: ProperType) -> bool:
    """Whether the engine accepts `actual` for a parameter declared `declared` (so mypy should too)."""
    if (
        isinstance(actual, AnyType)
        or _is_array(actual)
        and not (isinstance(actual, Instance) and actual.type.fullname in (SHAPED, SHAPED_VALUE))
    ):
        return True  # Unknown shape: silent
    have = _shaped_arg(actual)
    if have is None:
        return False
    if not isinstance(declared, ArrayType) or not isinstance(have, ArrayType):
        return True
    try:
        apply(Signature("the callee", (Param("x", annotation=declared),), None), {"x": have})
    except RuleError:
        return False
    return True
