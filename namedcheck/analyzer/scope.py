"""What the parts of a frame share: the state every frame has, the analyzer interface it calls, and
small helpers (operand labels for messages, value agreement for merges)."""

from __future__ import annotations

from typing import Any, Protocol

import libcst as cst

from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import AxisEnv
from namedcheck.engine.values import ArrayType, Seq, same

# Transformations that return their function unchanged for the analysis (decorators and calls).
TRANSPARENT = {
    "jax.jit",
    "jax.checkpoint",
    "jax.remat",
    "jax.named_call",
    "namedcheck.checked",
    "jax.ad_checkpoint.checkpoint",
    "functools.wraps",
    "functools.lru_cache",
    "functools.cache",
    # chex's test variants (`self.variant(fn)` under `@chex.all_variants`): jitted, on a device, or pmapped with
    # the device axis added and taken off again: the function's shapes
    "chex.TestCase.variant",
    "chex.variants",
    # run-time checkers: the function is called as written (jaxtyping's dimensions are bound per call,
    # as namedcheck's symbols are)
    "jaxtyping.jaxtyped",
    "beartype.beartype",
    "typeguard.typechecked",
}
# transparent decorators under which the body is traced: its array arguments are JAX arrays there
TRACED = {"jax.jit", "jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint"}
# decorator factories whose decorator is transparent: `@jaxtyped(typechecker=beartype)`, `@beartype(conf=...)`
TRANSPARENT_CALLED = {"jaxtyping.jaxtyped", "beartype.beartype", "typeguard.typechecked"}


class Analyzer(Protocol):
    """The module analyzer as frames see it (analyzer/module.py implements it)."""

    imports: dict[str, str]
    ops: dict[str, Any]
    types: dict[int, tuple[cst.CSTNode, Any]] | None
    value_log: list[tuple[cst.CSTNode, Any]] | None  # (expression, value) of every analysis, for editors
    call_values: (
        list[tuple[cst.CSTNode, Any, Any]] | None
    )  # (expression, value, call root): an open file as a dependency
    why_log: list[tuple[cst.CSTNode, Any]] | None  # (expression, cause of its lost value), for editors
    coverage: Any  # a checked file's `coverage.CoverageCounter` (None: not counted)
    found: dict[tuple[int, str], tuple[cst.CSTNode, RuleError]]  # what the analysis reported, by (node id, code)
    bindings: list[tuple[cst.CSTNode, Any, Any]] | None  # (name node, value, call root) per binding: `namedcheck types`
    mapped: set[int]
    steps: int  # statements analysed so far (the work bound counts them)
    sets_mesh: bool  # a function of the module calls jax.set_mesh
    program: Any  # the program's shared configuration state (analyzer/configs.ProgramState)
    log: Any  # the project's call log (analyzer/memo.CallLog): what a memo hit replays
    func_flags: dict[int, Any]  # JAX flags a decorator sets on a function's body (analyzer/jaxconfig.py)
    checker_only: set[int]  # functions whose only decorators are run-time checkers (`@jaxtyped`)
    traced: set[int]  # functions decorated with `jax.jit` (and the like): traced, their arguments JAX arrays
    sets_flags: frozenset[str]  # JAX flags the module's functions set (a caller no longer knows them)

    def report(self, node: cst.CSTNode, err: RuleError) -> None: ...
    def checkpoint(self) -> None: ...
    def call_root(self) -> tuple[tuple[Any, Any], ...] | None: ...
    def globals_changed(self) -> frozenset[str]: ...
    def reveal(self, stmt: cst.CSTNode, value: Any) -> None: ...
    def add_import(self, s: cst.Import | cst.ImportFrom) -> None: ...
    def import_value(self, name: str) -> Any: ...
    def analyse_standalone(self, ref: Any) -> None: ...
    def defer_unbound_name(self, ref: Any, node: cst.CSTNode, err: RuleError) -> None: ...
    def call_function(
        self,
        ref: Any,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        node: cst.CSTNode,
        caller: Any,
        as_map_body: bool = False,
    ) -> Any: ...


class FrameState:
    """The state of one scope's analysis; the statement, expression and call parts operate on it."""

    an: Analyzer
    parent: Any
    vars: dict[str, Any]
    lost: dict[str, Any]  # names bound to lost values -> their causes (analyzer/causes.py)
    defining: Any  # the definition whose body this is (None: a module or class body)
    declared_return: Any
    returns: list[Any]
    lenient: bool
    quiet: bool
    cond_depth: int
    skip_depth: int
    ended: bool
    truths: dict[int, bool]
    env: AxisEnv
    function: Any
    nc705_owner: Any  # what an NC705 found here waits for (the function or map analysed where written)
    class_info: Any
    pending_methods: list[Any] | None  # a class body's methods, analysed when the class statement is complete
    defined_methods: dict[str, Any] | None  # a class body's: what each `def` bound its name to
    yields: list[Any] | None  # a generator function's body: the values it yields so far
    entry: bool
    param_tokens: frozenset[int]
    setting_names: dict[str, Any]
    arguments: dict[str, Any]
    rebound: set[str]
    rebound_elsewhere: frozenset[str]  # names nested functions declare `nonlocal` / `global` here: not known

    # implemented by the parts (frame.Frame combines them)
    def ev(self, node: cst.BaseExpression | None) -> Any: ...
    def truth(self, node: cst.BaseExpression, value: Any = None) -> bool | None: ...
    def report(self, node: cst.CSTNode, err: RuleError) -> None: ...
    def lookup(self, name: str) -> Any: ...
    def forget_if_mutable(self, node: cst.BaseExpression, any_value: bool = False) -> None: ...
    def assign(self, target: cst.BaseExpression, v: Any) -> None: ...
    def annotation(self, node: cst.BaseExpression, dynamic_ok: bool = False) -> Any: ...
    def call_value(
        self,
        func: Any,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        kwl: dict[str, str],
        node: cst.CSTNode,
        env: AxisEnv | None = None,
        as_map_body: bool = False,
    ) -> Any: ...
    def apply_named(
        self,
        name: str,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        node: cst.CSTNode,
        kwl: dict[str, str] | None = None,
        fallback: tuple[str, ...] = (),
        origin: str = "jax",
    ) -> Any: ...
    def new_frame(self, **kw: Any) -> Any: ...
    def call(self, node: cst.Call) -> Any: ...
    def apply_op(self, op: str | None, vals: list[Any], nodes: list[Any], node: cst.CSTNode) -> Any: ...

    @property
    def silent(self) -> bool:
        return self.quiet or (self.lenient and self.cond_depth > 0)


def label(node: cst.CSTNode) -> str | None:
    """A short source rendering of an operand for messages (cheap: names, attributes, calls)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = label(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    if isinstance(node, cst.Call):
        inner = label(node.func)
        return f"{inner}(...)" if inner else None
    if isinstance(node, cst.Subscript):
        inner = label(node.value)
        return f"{inner}[...]" if inner else None
    if isinstance(node, cst.Integer | cst.Float):
        return node.value
    return None


def has_array(v: Any) -> bool:
    return isinstance(v, ArrayType) or (
        isinstance(v, Seq) and v.kind == "tuple" and any(isinstance(i, ArrayType) for i in v.items)
    )


same_value = same  # two analysis values agree (merging branches, loops and returns)
