"""One scope's abstract interpretation: statements update an environment of engine values,
expressions become engine calls. Engine failures are reported at the expression that broke a rule."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer.calls import Calls
from namedcheck.analyzer.causes import PYTHON, Cause
from namedcheck.analyzer.expressions import Expressions
from namedcheck.analyzer.mapargs import unbound_name_cause
from namedcheck.analyzer.refs import FuncRef, MappedRef, QualRef
from namedcheck.analyzer.scope import Analyzer, label, same_value
from namedcheck.analyzer.statements import Statements
from namedcheck.engine.codes import NC705
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import EMPTY_ENV, AxisEnv
from namedcheck.engine.values import UNKNOWN, Const, DtypeRef, Seq

_BUILTIN_DTYPES = {"float": "f32", "int": "i32", "bool": "bool_", "complex": "c64"}


class Frame(Statements, Expressions, Calls):
    """A function body (or the module body) being analysed."""

    # the function analysed on its own that this (call-specific) analysis is part of: NC705 waits for it
    nc705_owner: FuncRef | MappedRef | None = None
    skip_depth = 0  # inside a `try` or loop body: its statements may not (all) run
    ended = False  # every path so far has returned or raised: the statements after do not run
    yields: list[Any] | None = None  # a generator function's body: the values it yields (analyzer/iteration.py)
    # reached from the program's entry point (`__main__`, `app.run(main)`): flag defaults are its values
    entry = False
    param_tokens: frozenset[int] = frozenset()  # config objects the parameters hold (analyzer/configs.py)
    defining: cst.CSTNode | None = None  # the function whose body this is (its lost return's cause is kept)
    rebound_elsewhere: frozenset[str] = frozenset()  # rebound by nested functions (`nonlocal`, `global`)
    code: Any = None  # the function (or lambda) whose body this frame runs, under a call
    pending_methods: list[Any] | None = None  # a class body's: methods to analyse once the class is complete
    defined_methods: dict[str, Any] | None = None  # a class body's: what each `def` bound its name to

    def __init__(
        self,
        an: Analyzer,
        parent: Frame | None,
        declared_return: Any = None,
        lenient: bool = False,
        quiet: bool = False,
        env: AxisEnv | None = None,
        function: FuncRef | None = None,
    ) -> None:
        self.an = an
        self.parent = parent
        self.vars: dict[str, Any] = {}
        self.lost: dict[str, Any] = {}  # names bound to lost values -> their `causes.Cause` (coverage only)
        self.declared_return = declared_return
        self.returns: list[Any] = []
        self.lenient = lenient  # analysing under a call's types: extra named axes are lifted, not wrong
        # Under a call's types, a branch may be infeasible for those types (`if np.ndim(b) == 1:`), so
        # conditional code reports nothing there; straight-line code does.
        self.quiet = quiet
        self.cond_depth = 0
        self.truths: dict[int, bool] = {}  # boolean operations whose truth one side decides (value Unknown)
        # named axes, mesh and manual axes in scope (inherited from the defining or calling frame)
        self.env: AxisEnv = env if env is not None else (parent.env if parent is not None else EMPTY_ENV)
        self.function = function  # the function analysed standalone, for NC705's escape check
        self.class_info: Any = None  # set on a class body's frame
        # names bound to values computed from settings -> where those were set (analyzer/configs.py)
        self.setting_names: dict[str, Any] = {}
        # a call's analysis: each parameter -> the argument expression at the call site (and names assigned since)
        self.arguments: dict[str, Any] = {}
        self.rebound: set[str] = set()

    def new_frame(self, **kw: Any) -> Frame:
        """A nested scope of this one (a class body)."""
        return Frame(self.an, self, **kw)

    # ---- names -------------------------------------------------------------------------------
    def forget_if_mutable(self, node: cst.BaseExpression, any_value: bool = False) -> None:
        """A list or dict held in a variable that something may mutate (a method call such as
        `.append`, an item assignment, passing it to a function) is no longer known; one held inside a container
        (`shapes[key].insert(...)`, `self.layers.append(...)`): the container the name holds is not known."""
        if isinstance(node, cst.Subscript | cst.Attribute):
            root: cst.BaseExpression = node
            while isinstance(root, cst.Subscript | cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name) and isinstance(self.lookup(root.value), Seq):
                self.forget_if_mutable(root, any_value=True)
            return
        if not isinstance(node, cst.Name):
            return
        f: Frame | None = self
        while f is not None:
            if node.value in f.vars:
                v = f.vars[node.value]
                if any_value or (isinstance(v, Seq) and v.kind in ("list", "dict")):
                    f.vars[node.value] = UNKNOWN
                    if self.an.coverage is not None:
                        f.lost[node.value] = Cause(PYTHON, "container changed in place", node)
                return
            f = f.parent

    def lookup(self, name: str) -> Any:
        f: Frame | None = self
        while f is not None:
            if name in f.vars:
                if f.parent is None and f is not self and name in self.an.globals_changed():
                    return UNKNOWN  # a module-level value a function changes: what it holds when this runs
                return f.vars[name]
            f = f.parent
        if name in self.an.imports:
            return self.an.import_value(name)
        if name in _BUILTIN_DTYPES:
            return DtypeRef(_BUILTIN_DTYPES[name])
        if name in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[name])
        if name in (
            "len",
            "range",
            "print",
            "isinstance",
            "tuple",
            "list",
            "dict",
            "zip",
            "map",
            "enumerate",
            "reversed",
            "sum",
            "iter",
            "next",
        ):
            return QualRef(f"builtins.{name}")
        return UNKNOWN

    def report(self, node: cst.CSTNode, err: RuleError) -> None:
        if self.silent or (err.code == NC705 and self.cond_depth > 0):
            return  # a collective under a condition (`if is_running_under_pmap(): psum(...)`) may be guarded
        owner = self.function if self.function is not None else self.nc705_owner
        if err.code == NC705:
            err = unbound_name_cause(self.env, err)
        if err.code == NC705 and owner is not None:
            self.an.defer_unbound_name(owner, node, err)  # it may yet be called under a map
            return
        self.an.report(node, err)


__all__ = ["Frame", "label", "same_value"]
