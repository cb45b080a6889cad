"""How much of a checked file's array shapes the analysis saw: `Coverage(arrays, rank_known, shape_known)`,
counted by `CoverageCounter` as the checked file's analyzer evaluates its expressions (`Session.check` puts
it on `FileResult.coverage` for every front end).

Definitions (docs/cli.md, "namedcheck coverage"):

- An expression counts as **array-valued** when the analysis gave it an `ArrayType`, or when its value is
  Unknown but it is an expression the checker should have seen as an array: a call into jax, jax.numpy,
  jax.lax, flax, equinox or numpy (any of their submodules; `ARRAY_API`) other than a class (a capitalised
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

from typing import Any

import libcst as cst

from namedcheck.analyzer.coverage_figures import Coverage
from namedcheck.analyzer.refs import QualRef
from namedcheck.engine.names import canonical_name
from namedcheck.engine.values import UNKNOWN, ArrayType

# top-level packages whose calls return arrays, unless named below
ARRAY_API = ("jax", "numpy", "flax", "equinox")
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
    }
)
_NOT_ARRAY_PREFIXES = tuple(n for n in NOT_ARRAYS if n.endswith("."))

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
    `result()` counts them as the module's docstring defines."""

    __slots__ = ("nodes", "levels", "unknown", "names")

    def __init__(self) -> None:
        self.nodes: dict[int, cst.CSTNode] = {}  # keeps every seen node alive (ids stay unique)
        self.levels: dict[int, int] = {}  # node id -> best level of its ArrayType values
        self.unknown: set[int] = set()  # node ids evaluated to Unknown at least once
        self.names: dict[int, str] = {}  # node id -> the imported name it evaluated to (a call's function)

    def see(self, node: cst.CSTNode, value: Any) -> None:
        if isinstance(value, ArrayType):
            k = id(node)
            lv = level(value)
            if self.levels.get(k, -1) < lv:
                self.levels[k] = lv
                self.nodes[k] = node
        elif value is UNKNOWN:
            if isinstance(node, cst.Call | cst.BinaryOperation | cst.UnaryOperation):
                self.unknown.add(id(node))
                self.nodes[id(node)] = node
        elif isinstance(value, QualRef):
            self.names[id(node)] = value.name
            self.nodes[id(node)] = node

    def result(self) -> Coverage:
        arrays = rank = shape = 0
        memo: dict[int, bool] = {}
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
        return Coverage(arrays, rank, shape)

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
