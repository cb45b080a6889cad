"""How much of a checked file's array shapes the analysis saw: `Coverage(arrays, rank_known, shape_known)`,
counted by `CoverageCounter` as the checked file's analyzer evaluates its expressions (`Session.check` puts
it on `FileResult.coverage` for every front end).

Definitions (docs/cli.md, "namedcheck coverage"):

- An expression counts as **array-valued** when the analysis gave it an `ArrayType`, or when its value is
  Unknown but it is an expression the checker should have seen as an array: a call into jax, jax.numpy,
  jax.lax, flax, equinox, einops or numpy (any of their submodules; `ARRAY_API`) other than a class (a capitalised
  name) or an API known not to return one array (`NOT_ARRAYS`: transforms, control flow, pytree and
  device utilities); a method call on an array-valued receiver; or an arithmetic operator (binary, or
  unary other than `not`) with an array-valued operand. A receiver or an operand is array-valued when its
  value is an `ArrayType` (a name too) or it is itself counted.
- Plain names are not counted (a name's value was counted where it was computed); tuples and lists of
  arrays are not counted (their items are, where they are expressions of their own).
- **rank known**: an `ArrayType` whose positional shape has no `...`; **shape known**: rank known and every
  positional dim an int or a symbol (named axes are not looked at).
- Each expression of the file counts once, however often it was analysed (a function analysed on its own
  and at each call): with the best-known of its values (shape known, else rank known, else an array, else
  Unknown). Expressions the analysis never evaluated (code after a budget cut it short, bodies it did not
  run) are not counted. The result does not depend on the order of the analyses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from namedcheck.analyzer import causes
from namedcheck.analyzer.causes import Cause
from namedcheck.analyzer.coverage_figures import CauseCount, Coverage
from namedcheck.analyzer.refs import QualRef
from namedcheck.engine.names import canonical_name
from namedcheck.engine.values import UNKNOWN, ArrayType, Seq

# top-level packages whose calls return arrays, unless named below
ARRAY_API = ("jax", "numpy", "flax", "equinox", "einops")
# calls into ARRAY_API that return something other than one array (names and `prefix.` prefixes)
NOT_ARRAYS = frozenset(
    {
        "jax.jit",
        "jax.vmap",
        "jax.pmap",
        "jax.grad",
        "jax.value_and_grad",
        "jax.jacfwd",
        "jax.jacrev",
        "jax.jacobian",
        "jax.hessian",
        "jax.checkpoint",
        "jax.remat",
        "jax.named_call",
        "jax.custom_jvp",
        "jax.custom_vjp",
        "jax.shard_map",
        "jax.eval_shape",
        "jax.make_jaxpr",
        "jax.make_mesh",
        "jax.set_mesh",
        "jax.devices",
        "jax.local_devices",
        "jax.device_count",
        "jax.local_device_count",
        "jax.process_index",
        "jax.process_count",
        "jax.block_until_ready",
        "jax.lax.scan",
        "jax.lax.while_loop",
        "jax.lax.fori_loop",
        "jax.lax.cond",
        "jax.lax.switch",
        "jax.lax.map",
        "jax.numpy.shape",
        "jax.numpy.ndim",
        "jax.numpy.size",
        "jax.numpy.split",
        "jax.numpy.array_split",
        "jax.numpy.meshgrid",
        "jax.numpy.dtype",
        "jax.numpy.result_type",
        "jax.numpy.promote_types",
        "jax.numpy.issubdtype",
        "jax.numpy.finfo",
        "jax.numpy.iinfo",
        "numpy.random.default_rng",
        "numpy.random.seed",
        "jax.tree.",
        "jax.tree_util.",
        "jax.config.",
        "jax.debug.",
        "jax.sharding.",
        "jax.experimental.",
        "jax.profiler.",
        "jax.dtypes.",
        "flax.linen.jit",
        "flax.linen.vmap",
        "flax.linen.scan",
        "flax.linen.remat",
        "flax.nnx.jit",
        "flax.nnx.vmap",
        "flax.nnx.scan",
        "flax.nnx.split",
        "flax.nnx.merge",
        "flax.nnx.state",
        "flax.serialization.",
        "equinox.filter_jit",
        "equinox.filter_vmap",
        "equinox.filter_grad",
        "equinox.filter_value_and_grad",
        "equinox.partition",
        "equinox.combine",
        "equinox.tree_at",
        "einops.pack",
        "einops.unpack",
        "einops.parse_shape",
    }
)
_NOT_ARRAY_PREFIXES = tuple(n for n in NOT_ARRAYS if n.endswith("."))

_COUNTED = frozenset({cst.Call, cst.BinaryOperation, cst.UnaryOperation})  # Unknown ones may be counted

# a node's best-known level: what `_level` gives an ArrayType
RANK_UNKNOWN, RANK_KNOWN, SHAPE_KNOWN = 0, 1, 2


def level(t: ArrayType) -> int:
    """How much of an array type's shape is known."""
    if t.has_ellipsis:
        return RANK_UNKNOWN
    return SHAPE_KNOWN if all(isinstance(d, int | str) for d in t.shape) else RANK_KNOWN


def returns_array(name: str) -> bool:
    """Whether a call of the imported name `name` should give an array (`ARRAY_API` less `NOT_ARRAYS`)."""
    full = canonical_name(name)
    if full.split(".", 1)[0] not in ARRAY_API or "." not in full:
        return False
    last = full.rpartition(".")[2]
    if not last or last[0].isupper() or last.startswith("_"):
        return False
    return full not in NOT_ARRAYS and not full.startswith(_NOT_ARRAY_PREFIXES)


class CoverageCounter:
    """Sees every expression a checked file's analyzer evaluates (`Expressions.ev`), each analysis of it;
    `result()` counts them as the module's docstring defines, with the causes (analyzer/causes.py) of those
    whose shape is not known."""

    __slots__ = (
        "nodes",
        "levels",
        "unknown",
        "names",
        "why",
        "kept",
        "noted",
        "called",
        "returned",
        "source",
        "form",
        "form_node",
        "receiver",
        "caller",
    )

    def __init__(self) -> None:
        self.nodes: dict[int, cst.CSTNode] = {}  # keeps every seen node alive (ids stay unique)
        self.levels: dict[int, int] = {}  # node id -> best level of its ArrayType values
        self.unknown: set[int] = set()  # node ids evaluated to Unknown at least once
        self.names: dict[int, str] = {}  # node id -> the imported name it evaluated to (a call's function)
        self.why: dict[int, Cause] = {}  # node id -> the cause of its latest value, where that was lost
        self.kept: dict[int, tuple[int, Cause]] = {}  # node id -> (level, cause) of its best lost value
        self.noted: dict[int, Cause] = {}  # causes the analysis noted for the node it evaluates (`causes.note`)
        self.called: tuple[Any, ...] | None = None  # (call node, callee value, every argument read) just made
        self.returned: dict[int, Cause] = {}  # a function's node id -> the cause of its lost return value
        self.source: cst.CSTNode | None = None  # the expression the names bound next take their cause from
        self.form = "assignment"  # else the form binding them
        self.form_node: cst.CSTNode | None = None
        self.receiver: tuple[Any, Any] = (None, None)  # (receiver node, value) of the attribute just read
        self.caller: Any = None  # the frame of the call whose callee's parameters are bound next

    def see(self, node: cst.CSTNode, value: Any, frame: Any = None) -> Cause | None:
        """Counts `node`'s value; where it is lost, records its cause (returned). A name's cause is looked up
        by the expression using it (`_inherited`) and by the editor's hover (`Expressions.ev`)."""
        k = id(node)
        if isinstance(value, ArrayType):
            lv = level(value)
            if self.levels.get(k, -1) < lv:
                self.levels[k] = lv
                self.nodes[k] = node
            if lv == SHAPE_KNOWN:
                if k in self.why:
                    del self.why[k]
                return None
        elif value is UNKNOWN:
            lv = -1
            if type(node) in _COUNTED:
                self.unknown.add(k)
                self.nodes[k] = node
        else:
            if isinstance(value, QualRef):
                self.names[k] = value.name
                self.nodes[k] = node
            if type(value) is not Seq or not causes.lost(value):
                if k in self.why:
                    del self.why[k]
                return None
            lv = -1
        if frame is None or type(node) is cst.Name:
            return None
        c = self.noted.pop(k, None) if self.noted else None
        called = self.called[1:] if self.called is not None and self.called[0] is node else None
        if c is None and called is not None:
            c = self._call(node, frame, *called)  # type: ignore[arg-type]
        if c is None:
            c = self._inherited(node, frame)
        if c is None:
            c = causes.origin(node, value, frame, called, self.returned)
        self.why[k] = c
        kept = self.kept.get(k)
        if kept is None or kept[0] < lv:
            self.kept[k] = (lv, c)
        return c

    def cause_of(self, node: cst.CSTNode, frame: Any) -> Cause | None:
        """The cause recorded for an expression just evaluated in `frame` (None: its value is not lost)."""
        if type(node) is cst.Name:
            return causes.name_if_lost(frame, node)
        return self.why.get(id(node))

    def _call(self, node: cst.Call, frame: Any, func: Any, ok: bool) -> Cause | None:
        """A call's cause before its arguments': an unknown callee (whatever it was given), a `*` / `**`
        argument not spread (the argument's cause, else the form)."""
        if func is UNKNOWN:
            c = self.cause_of(node.func, frame)
            return c if c is not None else causes.origin(node, UNKNOWN, frame, (func, ok), self.returned)
        if not ok:
            for a in node.args:
                if a.star and (c := self.cause_of(a.value, frame)) is not None:
                    return c
            return causes.origin(node, UNKNOWN, frame, (func, ok), self.returned)
        return None

    def _inherited(self, node: cst.CSTNode, frame: Any) -> Cause | None:
        if type(node) is cst.Name:
            return causes.of_name(frame, node)
        why = self.why
        for part in causes.parts(node):
            if type(part) is cst.Name:
                c = causes.name_if_lost(frame, part)
            else:
                c = why.get(id(part))
            if c is not None:
                return c
        return None

    def bound(self, frame: Any, target: cst.Name, value: Any) -> None:
        """A name bound in `frame`: the cause its value had, where that was lost."""
        if not causes.lost(value):
            if frame.lost:
                frame.lost.pop(target.value, None)
            return
        c = self.cause_of(self.source, frame) if self.source is not None else None
        if c is None:
            c = Cause(causes.PYTHON, self.form, self.form_node or target)
        frame.lost[target.value] = c

    def returning(self, fn: cst.CSTNode, value_node: cst.CSTNode, value: Any) -> None:
        """A function returns `value`: where it is lost, its cause is what a call of the function gives."""
        if causes.lost(value):
            c = self.why.get(id(value_node))
            if c is not None:
                self.returned[id(fn)] = c

    def result(self, lines: Callable[[cst.CSTNode], int] | None = None) -> Coverage:
        """The counts, and the causes of the expressions whose shape is not known (each counted once, by the
        cause of its best-known value); `lines` locates each cause's example (the earliest line), else 0."""
        arrays = rank = shape = 0
        memo: dict[int, bool] = {}
        found: dict[tuple[str, str], list[Any]] = {}
        for k, node in self.nodes.items():
            if isinstance(node, cst.Name):
                continue
            lv = self.levels.get(k)
            if lv is None:
                if k not in self.unknown or not self._expected(node, memo):
                    continue
                lv = -1
            arrays += 1
            rank += lv >= RANK_KNOWN
            shape += lv >= SHAPE_KNOWN
            if lv < SHAPE_KNOWN:
                kept = self.kept.get(k)
                c = kept[1].settled() if kept is not None else Cause(causes.PYTHON, "not recorded", node)
                entry = found.setdefault((c.kind, c.label), [0, None])
                entry[0] += 1
                if lines is not None and c.node is not None:
                    line = lines(c.node)
                    if line and (entry[1] is None or line < entry[1]):
                        entry[1] = line
        counted = tuple(
            CauseCount(kind, label, n, line or 0)
            for (kind, label), (n, line) in sorted(found.items(), key=lambda kv: (-kv[1][0], kv[0]))
        )
        return Coverage(arrays, rank, shape, counted)

    def _arrayish(self, node: cst.CSTNode, memo: dict[int, bool]) -> bool:
        k = id(node)
        if k in self.levels:
            return True
        return k in self.unknown and self._expected(node, memo)

    def _expected(self, node: cst.CSTNode, memo: dict[int, bool]) -> bool:
        """Whether an Unknown call or operator should have been an array (the module docstring's rules)."""
        k = id(node)
        hit = memo.get(k)
        if hit is not None:
            return hit
        memo[k] = False  # a cycle cannot happen in a tree; the entry also ends any
        out = False
        if isinstance(node, cst.Call):
            name = self.names.get(id(node.func))
            if name is not None:
                out = returns_array(name)
            elif isinstance(node.func, cst.Attribute):
                out = self._arrayish(node.func.value, memo)
        elif isinstance(node, cst.BinaryOperation):
            out = self._arrayish(node.left, memo) or self._arrayish(node.right, memo)
        elif isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
            out = self._arrayish(node.expression, memo)
        memo[k] = out
        return out


__all__ = ["Coverage", "CoverageCounter", "ARRAY_API", "NOT_ARRAYS", "level", "returns_array"]
