"""Python iteration the analysis follows: comprehensions and builtins over known sequences (`zip`,
`map`, `range`, `enumerate`, ...), `for` loops unrolled over them, iterators of unknown length (generators,
`iter` / `next`, `itertools`) by the type of their items, pytree maps (over user pytree classes too), and
tracing transforms (`jax.eval_shape`, `jax.make_jaxpr`, `jit(f).lower`) as calls of their function."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer import classes
from namedcheck.analyzer.memo import process_cache
from namedcheck.analyzer.parsing import OwnScope, node_fields
from namedcheck.analyzer.refs import (
    FuncRef,
    GradRef,
    InstanceRef,
    IterRef,
    MappedRef,
    PartialRef,
    QualRef,
    TreeDefRef,
)
from namedcheck.analyzer.scope import FrameState, same_value
from namedcheck.engine.maps import scan_slice
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, Seq, join

MAX_ITEMS = 64  # longest sequence built item by item
MAX_UNROLL = 16  # longest `for` loop analysed once per item
MAX_UNROLL_WORK = 64  # nested unrolled loops: at most this many analyses of the innermost body
# One comprehension, its nested ones included: at most this many items bound (each evaluates the filters and
# the element once); past it the comprehension is Unknown (64 generators of 4 items each, or 100 nested
# comprehensions of 2, would otherwise bind 4**64 or 2**100 items)
MAX_COMPREHENSION_WORK = 4096
MAX_TREE_NODES = (
    4096  # a pytree mapped or flattened node by node: at most this many nodes (shared subtrees count each time)
)

# Internal names of functions wrapped by a tracing transform (called through a PartialRef).
_TRACED = "namedcheck.analyzer.iteration.traced"  # its value is the function's (eval_shape)
_STAGED = "namedcheck.analyzer.iteration.staged"  # a jaxpr or a lowering: its value is not tracked
_TREE_MAP = {"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"}
_TREE_LEAVES = {"jax.tree.leaves", "jax.tree_util.tree_leaves", "jax.tree_leaves"}
_TREE_FLATTEN = {"jax.tree.flatten", "jax.tree_util.tree_flatten", "jax.tree_flatten"}
# with key paths: each leaf's path is Unknown (a key path object), the leaves are known
_TREE_MAP_PATH = {"jax.tree.map_with_path", "jax.tree_util.tree_map_with_path"}
_TREE_LEAVES_PATH = {"jax.tree.leaves_with_path", "jax.tree_util.tree_leaves_with_path"}
_TREE_FLATTEN_PATH = {"jax.tree.flatten_with_path", "jax.tree_util.tree_flatten_with_path"}
_TREE_STRUCTURE = {"jax.tree.structure", "jax.tree_util.tree_structure"}
_TREE_UNFLATTEN = {"jax.tree.unflatten", "jax.tree_util.tree_unflatten"}
_TREE_REDUCE = {"jax.tree.reduce", "jax.tree_util.tree_reduce"}
_SHAPE_STRUCT = {"jax.ShapeDtypeStruct", "jax.api.ShapeDtypeStruct", "jax._src.api.ShapeDtypeStruct"}
_METHOD = "namedcheck.analyzer.iteration.method_"  # a reading method of a known list or dict
_READ_METHODS = {"dict": ("items", "keys", "values", "get", "copy"), "list": ("copy",)}
# attributes of a jitted function that trace it with the arguments they are called with
_STAGING_METHODS = {"lower": _STAGED, "trace": _STAGED, "eval_shape": _TRACED}


MAX_VALUE_NODES = 1 << 14  # a built sequence counts at most this many nodes, shared subtrees each time


# ---- sequences -------------------------------------------------------------------------------------
_WEIGHTS: dict[int, tuple[Seq, int]] = process_cache({})  # id(Seq) -> (the Seq, its node count): each counted once


def weight(v: Any) -> int:
    """The nodes of a value's tree, a subtree counted as often as it appears (past `MAX_VALUE_NODES`, some
    number above it): `t = (t, t)` forty times is 2**40 nodes in 40 lines, and hashing or comparing it
    walks them all."""
    if not isinstance(v, Seq):
        return 1
    hit = _WEIGHTS.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1]
    total = 1
    for item in v.items:
        total += weight(item)
        if total > MAX_VALUE_NODES:
            break
    if len(_WEIGHTS) > 50_000:
        _WEIGHTS.clear()
    _WEIGHTS[id(v)] = (v, total)
    return total


def bounded(v: Any) -> Any:
    """`v`, or Unknown for a sequence past `MAX_VALUE_NODES` nodes (what the analysis builds stays small)."""
    return UNKNOWN if isinstance(v, Seq) and weight(v) > MAX_VALUE_NODES else v


def items_of(v: Any, limit: int = MAX_ITEMS) -> tuple[Any, ...] | None:
    """The values iterating `v` yields, when their number is known (and at most `limit`)."""
    if isinstance(v, Seq):
        items = tuple(p.items[0] for p in v.items) if v.kind == "dict" else v.items
    elif (
        isinstance(v, ArrayType)
        and v.shape
        and not v.has_ellipsis
        and isinstance(v.shape[0], int)
        and not isinstance(v.shape[0], bool)
        and v.shape[0] <= limit
    ):
        items = (scan_slice(v),) * v.shape[0]  # iterating an array walks its leading dimension
    elif isinstance(v, InstanceRef) and (fields := named_tuple_items(v)) is not None:
        items = fields
    else:
        return None
    return items if len(items) <= limit else None


def named_tuple_items(v: InstanceRef) -> tuple[Any, ...] | None:
    """A built NamedTuple's fields in order (what iterating, unpacking and indexing it read); None otherwise."""
    if (
        v.cls.copier == "_replace"
        and v.values is not None
        and [k for k, _ in v.values] == v.cls.order
        and not v.cls.mutated
    ):
        return tuple(x for _, x in v.values)
    return None


def item_of(v: Any) -> Any:
    """What one step of iterating `v` gives, whatever step it is: the join of a known sequence's items, an
    iterator's item, an array's row (Unknown when not known)."""
    if isinstance(v, IterRef):
        return v.item
    if isinstance(v, ArrayType):
        return scan_slice(v) if not v.shape or v.shape[0] != 0 else UNKNOWN
    items = items_of(v, limit=1 << 30)
    return join_items(list(items)) if items else UNKNOWN


def unpack_parts(elems: Any, v: Any) -> list[Any] | None:
    """The values of unpacking targets from a known sequence or an array of known length (one starred
    target gets a list: `first, *rest = xs`); None when not known."""
    stars = [i for i, e in enumerate(elems) if isinstance(e, cst.StarredElement)]
    items = items_of(v) if not (isinstance(v, Seq) and v.kind == "dict") else None
    if len(stars) > 1 or items is None or len(items) < len(elems) - len(stars):
        return None
    if not stars:
        return list(items) if len(items) == len(elems) else None
    i, after = stars[0], len(elems) - 1 - stars[0]
    end = len(items) - after
    return [*items[:i], Seq(items[i:end], "list"), *items[end:]]


def _head(v: Any) -> Any:
    """The first item iterating `v` gives, when known (an array's rows are not built one by one: a
    billion of them would fill the memory); None otherwise."""
    if isinstance(v, ArrayType):
        n = v.shape[0] if v.shape and not v.has_ellipsis else None
        return scan_slice(v) if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None
    items = items_of(v, limit=1 << 30)
    return items[0] if items else None


def common_item(v: Any) -> Any:
    """What every iteration over `v` binds, when all its items agree (else Unknown)."""
    if isinstance(v, ArrayType):  # every row is the same
        head = _head(v)
        return head if head is not None else UNKNOWN
    items = items_of(v, limit=1 << 30)
    if not items or not all(same_value(i, items[0]) for i in items):
        return UNKNOWN
    return items[0]


def _int(v: Any) -> int | None:
    if isinstance(v, Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.value
    if isinstance(v, DimVal) and isinstance(v.dim, int) and not isinstance(v.dim, bool):
        return v.dim
    return None


def _range(pos: list[Any]) -> Any:
    bounds = [_int(v) for v in pos]
    if not 1 <= len(bounds) <= 3 or any(b is None for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
        return UNKNOWN
    r = range(*bounds)  # type: ignore[arg-type]
    return Seq(tuple(Const(i) for i in r)) if len(r) <= MAX_ITEMS else UNKNOWN


def _zip(pos: list[Any]) -> Any:
    seqs = [items_of(v) for v in pos]
    if any(s is None for s in seqs):
        return UNKNOWN
    return Seq(tuple(Seq(t) for t in zip(*seqs)), "tuple")


def iterable(f: Any, v: Any, node: cst.CSTNode) -> Any:
    """What iterating `v` goes over: for an instance of a class with `__iter__` (a data loader), what that
    method returns (a generator, when it yields); else `v` itself."""
    if isinstance(v, InstanceRef) and "__iter__" in v.cls.methods:
        out = f.call_value(v.cls.methods["__iter__"], [v], {}, [None], {}, node)
        return out if isinstance(out, IterRef | Seq) else UNKNOWN
    return v


# builtins that iterate some of their arguments: which (a slice of the positional ones)
_ITERATING = {
    "builtins.zip": slice(None),
    "builtins.enumerate": slice(0, 1),
    "builtins.iter": slice(0, 1),
    "builtins.list": slice(0, 1),
    "builtins.tuple": slice(0, 1),
    "builtins.map": slice(1, None),
    "builtins.sum": slice(0, 1),
    "itertools.islice": slice(0, 1),
    "itertools.cycle": slice(0, 1),
    "itertools.chain": slice(None),
}


def builtin(f: FrameState, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """Builtins over sequences, pytree maps and tracing transforms; NotImplemented for other names."""
    which = _ITERATING.get(name)
    if which is not None and any(isinstance(v, InstanceRef) for v in pos[which]):
        pos = list(pos)
        pos[which] = [iterable(f, v, node) for v in pos[which]]
    if name == "builtins.next" and pos and isinstance(pos[0], InstanceRef):  # an iterator class: its `__next__`
        method = pos[0].cls.methods.get("__next__")
        return f.call_value(method, [pos[0]], {}, [None], {}, node) if method is not None else UNKNOWN
    if name == "builtins.range" and not kw:
        return _range(pos)
    if name == "builtins.zip" and set(kw) <= {"strict"}:
        if any(isinstance(v, IterRef) for v in pos):  # a generator's items beside others: one step of each
            return IterRef(Seq(tuple(item_of(v) for v in pos)))
        return _zip(pos)
    if name == "builtins.enumerate":
        start = _int(pos[1] if len(pos) > 1 else kw.get("start", Const(0)))
        if pos and isinstance(pos[0], IterRef):
            return IterRef(Seq((UNKNOWN, pos[0].item)))
        items = items_of(pos[0]) if pos else None
        if items is None or start is None:
            return UNKNOWN
        return Seq(tuple(Seq((Const(start + i), v)) for i, v in enumerate(items)), "tuple")
    if name in ("builtins.iter", "builtins.next") or name.startswith("itertools."):
        return _iterator(name, pos, kw, node)
    if name == "builtins.dict" and len(pos) <= 1:
        return _dict(pos[0] if pos else None, kw)
    if name in ("builtins.list", "builtins.tuple", "builtins.reversed") and len(pos) <= 1 and not kw:
        items = items_of(pos[0]) if pos else ()
        if items is None:
            return UNKNOWN
        if name == "builtins.reversed":
            items = items[::-1]
        return Seq(tuple(items), "list" if name == "builtins.list" else "tuple")
    if name == "builtins.map" and len(pos) >= 2 and not kw and any(isinstance(v, IterRef) for v in pos[1:]):
        args = [item_of(v) for v in pos[1:]]
        return IterRef(f.call_value(pos[0], args, {}, [None] * len(args), {}, node))
    if name == "builtins.map" and len(pos) >= 2 and not kw:
        seqs = _zip(pos[1:])
        if not isinstance(seqs, Seq):
            return UNKNOWN
        return Seq(
            tuple(
                f.call_value(pos[0], list(args.items), {}, [None] * len(args.items), {}, node) for args in seqs.items
            ),
            "tuple",
        )
    if name == "builtins.sum" and 1 <= len(pos) <= 2 and not kw:
        return _sum(f, pos, node)
    if name in _TREE_MAP:
        if len(pos) < 2 or set(kw) - {"is_leaf"}:
            return UNKNOWN
        is_leaf = kw.get("is_leaf", Const(None))
        return tree_map(f, pos[0], pos[1], pos[2:], node, is_leaf=None if is_leaf == Const(None) else is_leaf)
    if name in _TREE_LEAVES | _TREE_FLATTEN and len(pos) == 1 and not kw:
        leaves = tree_leaves(pos[0])
        out = Seq(tuple(leaves), "list") if leaves is not None else UNKNOWN
        if name in _TREE_FLATTEN:  # the leaves and the structure
            return Seq((out, TreeDefRef(pos[0]) if leaves is not None else UNKNOWN))
        return out
    if name in _TREE_STRUCTURE and len(pos) == 1 and not kw:
        return TreeDefRef(pos[0]) if tree_leaves(pos[0]) is not None else UNKNOWN
    if name in _TREE_UNFLATTEN and len(pos) == 2 and not kw:  # `unflatten(treedef, leaves)`
        return unflatten(pos[0], pos[1])
    if name in _TREE_MAP_PATH:  # `fn(path, leaf, *others)`: the path not known
        if len(pos) < 2 or set(kw) - {"is_leaf"}:
            return UNKNOWN
        is_leaf = kw.get("is_leaf", Const(None))
        fn = PartialRef(pos[0], (UNKNOWN,))
        return tree_map(f, fn, pos[1], pos[2:], node, is_leaf=None if is_leaf == Const(None) else is_leaf)
    if name in _TREE_LEAVES_PATH | _TREE_FLATTEN_PATH and len(pos) == 1 and not kw:
        leaves = tree_leaves(pos[0])
        out = Seq(tuple(Seq((UNKNOWN, leaf)) for leaf in leaves), "list") if leaves is not None else UNKNOWN
        return Seq((out, UNKNOWN)) if name in _TREE_FLATTEN_PATH else out
    if name in _TREE_REDUCE and 2 <= len(pos) <= 3 and not kw:  # `reduce(fn, tree[, initializer])`, leaf by leaf
        return _tree_reduce(f, pos, node)
    if name in _SHAPE_STRUCT:
        return _shape_struct(f, pos, kw, node)
    if name == "jax.eval_shape" and pos:
        return f.call_value(pos[0], pos[1:], kw, [None] * (len(pos) - 1), {}, node)
    if name == "jax.make_jaxpr" and pos and "axis_env" not in kw:  # axis_env= binds names: not modelled
        return PartialRef(QualRef(_STAGED), (pos[0],))
    if name.startswith(_METHOD) and pos:
        return _container_call(name[len(_METHOD) :], pos[0], pos[1:], kw)
    if name in (_TRACED, _STAGED) and pos:
        value = f.call_value(pos[0], pos[1:], kw, [None] * (len(pos) - 1), {}, node)
        return value if name == _TRACED else UNKNOWN
    return NotImplemented


def _fresh(node: cst.CSTNode) -> bool:
    """Whether the first argument of a call is written there (`next(iter(xs))`), not an iterator that may
    have advanced before."""
    return (
        isinstance(node, cst.Call)
        and bool(node.args)
        and node.args[0].keyword is None
        and isinstance(node.args[0].value, cst.Call | cst.GeneratorExp)
    )


def _iterator(name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`iter` / `next` and `itertools`: iterators by the type of their items."""
    short = name.rpartition(".")[2]
    if name == "builtins.iter":
        if len(pos) != 1 or kw or (isinstance(pos[0], Seq) and pos[0].kind == "dict"):
            return UNKNOWN
        if isinstance(pos[0], IterRef):
            return pos[0]
        item = item_of(pos[0])
        return IterRef(item, _head(pos[0])) if item is not UNKNOWN else UNKNOWN
    if name == "builtins.next":
        if not 1 <= len(pos) <= 2 or kw:
            return UNKNOWN
        it = pos[0]
        if isinstance(it, IterRef):
            out = it.head if it.head is not None and _fresh(node) else it.item
        elif isinstance(it, Seq) and it.kind == "tuple" and _fresh(node):  # `next(x for x in xs)`
            out = it.items[0] if it.items else (pos[1] if len(pos) > 1 else UNKNOWN)
            return out
        else:
            return UNKNOWN
        return join([out, pos[1]]) if len(pos) > 1 else out
    if short == "count" or not pos:
        return IterRef(UNKNOWN) if short == "count" else UNKNOWN
    if short == "repeat" and set(kw) <= {"times"} and len(pos) <= 2:
        times = pos[1] if len(pos) > 1 else kw.get("times")
        n = _int(times) if times is not None else None
        if n is not None and 0 <= n <= MAX_ITEMS:
            return Seq((pos[0],) * n, "tuple")
        return IterRef(pos[0])
    if short == "cycle" and len(pos) == 1 and not kw:
        item = item_of(pos[0])
        return IterRef(item) if item is not UNKNOWN else UNKNOWN
    if short == "chain" and not kw:
        parts = [items_of(v) for v in pos]
        if all(p is not None for p in parts) and sum(len(p or ()) for p in parts) <= MAX_ITEMS:
            return Seq(tuple(x for p in parts for x in p or ()), "tuple")
        return IterRef(join([item_of(v) for v in pos]))
    if short == "islice" and 2 <= len(pos) <= 4 and not kw:
        items = items_of(pos[0])
        bounds = [None if isinstance(b, Const) and b.value is None else _int(b) for b in pos[1:]]
        if (
            items is not None
            and all(b is not None or (isinstance(v, Const) and v.value is None) for b, v in zip(bounds, pos[1:]))
            and all(b is None or b >= 0 for b in bounds)
            and (len(bounds) < 3 or bounds[2] != 0)
        ):
            return Seq(tuple(items[slice(*bounds)]), "tuple")
        item = item_of(pos[0])
        return IterRef(item) if item is not UNKNOWN else UNKNOWN
    return UNKNOWN


def _sum(f: FrameState, pos: list[Any], node: cst.CSTNode) -> Any:
    items = items_of(pos[0])
    if items is None:
        return UNKNOWN
    total = pos[1] if len(pos) > 1 else Const(0)
    for v in items:
        total = f.apply_op("jax.numpy.add", [total, v], [None, None], node)
        if total is UNKNOWN:
            return UNKNOWN
    return total


def _shape_struct(f: FrameState, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`jax.ShapeDtypeStruct(shape, dtype)`: an array of that shape and dtype."""
    shape = pos[0] if pos else kw.get("shape", UNKNOWN)
    dtype = pos[1] if len(pos) > 1 else kw.get("dtype", UNKNOWN)
    if shape is UNKNOWN or dtype is UNKNOWN:
        return UNKNOWN
    return f.apply_named("jax.numpy.zeros", [shape, dtype], {}, [None, None], node)


def container_method(recv: Seq, attr: str) -> Any:
    """`params.items` / `.keys` / `.values` / `.get` / `.copy` of a known dict (`.copy` of a list): a
    method that only reads it; None for the others (which may mutate it)."""
    return PartialRef(QualRef(_METHOD + attr), (recv,)) if attr in _READ_METHODS.get(recv.kind, ()) else None


def _container_call(method: str, recv: Any, pos: list[Any], kw: dict[str, Any]) -> Any:
    if method == "copy" and not pos and not kw:
        return recv
    if recv.kind != "dict" or kw:
        return UNKNOWN
    pairs = [p.items for p in recv.items]
    if method in ("items", "keys", "values") and not pos:
        return Seq(tuple(Seq(p) if method == "items" else p[0 if method == "keys" else 1] for p in pairs))
    if method == "get" and 1 <= len(pos) <= 2:
        for key, value in pairs:
            if same_value(key, pos[0]):
                return value
        if isinstance(pos[0], Const) and all(isinstance(k, Const) for k, _ in pairs):
            return pos[1] if len(pos) > 1 else Const(None)
    return UNKNOWN


def staging_attribute(recv: Any, attr: str) -> Any:
    """`jax.jit(f).lower` / `.trace` / `.eval_shape`: calling it analyses `f` with those arguments."""
    if attr in _STAGING_METHODS and isinstance(recv, FuncRef | PartialRef | MappedRef | GradRef):
        return PartialRef(QualRef(_STAGING_METHODS[attr]), (recv,))
    return UNKNOWN


# ---- generators ------------------------------------------------------------------------------------
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _yields(body: cst.CSTNode) -> bool:
    """Whether `body` has a `yield` outside nested functions, lambdas and classes (their own scopes): a walk
    over the nodes' fields by their types (libcst's visitors rebuild every node, several times slower)."""
    stack: list[Any] = [body]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Yield:
            return True
        if t in _SCOPES:
            continue
        for name in node_fields(t) or ():
            v = getattr(n, name)
            tv = type(v)
            if tv is tuple or tv is list:
                stack.extend(x for x in v if node_fields(type(x)) is not None)
            elif node_fields(tv) is not None:
                stack.append(v)
    return False


_GENERATORS: dict[int, tuple[cst.CSTNode, bool]] = process_cache({})  # id(function) -> (function, whether it yields)


def is_generator(fn: cst.FunctionDef | cst.Lambda) -> bool:
    """Whether calling `fn` gives a generator (its body has `yield` / `yield from`)."""
    if not isinstance(fn, cst.FunctionDef) or fn.asynchronous is not None:
        return False
    hit = _GENERATORS.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    if len(_GENERATORS) > 20000:
        _GENERATORS.clear()
    found = _yields(fn.body)
    _GENERATORS[id(fn)] = (fn, found)
    return found


def yielded(f: Any, node: cst.Yield) -> Any:
    """`yield v` / `yield from xs` in a generator's body: recorded as items of the generator. Its value (what
    the consumer sends) is not known."""
    if isinstance(node.value, cst.From):
        v = item_of(f.ev(node.value.item))
    else:
        v = f.ev(node.value) if node.value is not None else Const(None)
    if f.yields is not None:
        f.yields.append(v)
    return UNKNOWN


def generated(yields: list[Any]) -> IterRef:
    """The generator a call of a generator function gives: its items are the join of what it yields."""
    return IterRef(join_items(yields) if yields else UNKNOWN)


def join_items(vals: list[Any]) -> Any:
    """The join of the items of one iteration (batches of one pipeline): as `values.join`, and arrays of one
    rank keep it, with the dims they agree on (a last batch shorter than the others: that dim unknown);
    tuples and dicts of the same structure are joined part by part."""
    first = vals[0]
    if all(same_value(v, first) for v in vals):
        return first
    if all(isinstance(v, ArrayType) for v in vals):
        return _join_arrays(vals)
    if all(isinstance(v, Seq) and v.kind == first.kind and len(v.items) == len(first.items) for v in vals):
        if first.kind != "dict":
            return Seq(tuple(join_items([v.items[i] for v in vals]) for i in range(len(first.items))), first.kind)
        keys = [p.items[0] for p in first.items]
        if all(same_value(p.items[0], k) for v in vals for p, k in zip(v.items, keys)):
            return Seq(
                tuple(Seq((k, join_items([v.items[i].items[1] for v in vals]))) for i, k in enumerate(keys)), "dict"
            )
    return join(vals)


def _join_arrays(vals: list[ArrayType]) -> Any:
    first = vals[0]
    plain = all(
        not v.has_ellipsis
        and len(v.shape) == len(first.shape)
        and not v.named
        and not v.named_open
        and v.spec is None
        and v.sharding is None
        and v.family is None
        and v.variadic is None
        and not v.unreduced
        and not v.reduced
        for v in vals
    )
    if not plain:
        return join(vals)
    dims = tuple(d if all(v.shape[i] == d for v in vals) else None for i, d in enumerate(first.shape))
    dtype = first.dtype_code if all(v.dtype_code == first.dtype_code for v in vals) else None
    varying = frozenset.intersection(*(v.varying for v in vals))
    exact = all(v.vary_exact and v.varying == varying for v in vals)
    weak = all(v.weak for v in vals)
    return ArrayType(dtype, dims, weak=weak, varying=varying, vary_exact=exact)


# ---- pytrees ---------------------------------------------------------------------------------------
def _is_leaf(v: Any) -> bool:
    return isinstance(v, ArrayType) or (isinstance(v, Const) and v.value is not None)


def tree_map(
    f: FrameState,
    fn: Any,
    first: Any,
    rest: list[Any],
    node: cst.CSTNode,
    work: list[int] | None = None,
    is_leaf: Any = None,
) -> Any:
    """`jax.tree.map(fn, first, *rest, is_leaf=is_leaf)` over known trees: `fn` called leaf by leaf (Unknown past
    `MAX_TREE_NODES` nodes: a tree built by doubling shares its subtrees, 2**40 leaves in 40 lines). `is_leaf` is
    asked of every node that is not an array or a number: a node it says is a leaf is given to `fn` whole, and one
    it gives no known answer for makes the result Unknown."""
    work = [0] if work is None else work
    work[0] += 1
    if work[0] > MAX_TREE_NODES:
        return UNKNOWN
    f.an.checkpoint()
    if is_leaf is not None and not _is_leaf(first):
        verdict = f.call_value(is_leaf, [first], {}, [None], {}, node)
        if not (isinstance(verdict, Const) and isinstance(verdict.value, bool)):
            return UNKNOWN
        if verdict.value:
            return f.call_value(fn, [first, *rest], {}, [None] * (1 + len(rest)), {}, node)
    if isinstance(first, Seq) and first.kind != "dict":
        if not all(isinstance(t, Seq) and t.kind != "dict" and len(t.items) == len(first.items) for t in rest):
            return UNKNOWN
        return Seq(
            tuple(
                tree_map(f, fn, item, [t.items[i] for t in rest], node, work, is_leaf)
                for i, item in enumerate(first.items)
            ),
            first.kind,
        )
    if isinstance(first, Seq):  # a dict: matched by key
        out = []
        for pair in first.items:
            key, value = pair.items
            others = [_dict_get(t, key) for t in rest]
            if any(o is None for o in others) or not all(
                isinstance(t, Seq) and t.kind == "dict" and len(t.items) == len(first.items) for t in rest
            ):
                return UNKNOWN
            out.append(Seq((key, tree_map(f, fn, value, others, node, work, is_leaf))))
        return Seq(tuple(out), "dict")
    if isinstance(first, Const) and first.value is None:
        return first  # None is an empty subtree
    if isinstance(first, InstanceRef):  # a user pytree (a NamedTuple, a flax struct dataclass)
        children = classes.pytree_children(first)
        others = [
            classes.pytree_children(t) if isinstance(t, InstanceRef) and t.cls is first.cls else None for t in rest
        ]
        if children is None or any(o is None for o in others):
            return UNKNOWN
        mapped = {
            name: tree_map(f, fn, value, [dict(o or ())[name] for o in others], node, work, is_leaf)
            for name, value in children
        }
        return classes.with_children(first, mapped)
    if not _is_leaf(first):
        return UNKNOWN  # an object that may be a pytree node
    return f.call_value(fn, [first, *rest], {}, [None] * (1 + len(rest)), {}, node)


def unflatten(treedef: Any, leaves: Any) -> Any:
    """`jax.tree.unflatten(treedef, leaves)` of a structure taken from a known tree: that tree with its leaves
    replaced in JAX's order (dict keys sorted); Unknown where the count differs or is not known."""
    if not isinstance(treedef, TreeDefRef) or not isinstance(leaves, Seq) or leaves.kind == "dict":
        return UNKNOWN
    old = tree_leaves(treedef.tree)
    if old is None or len(old) != len(leaves.items):
        return UNKNOWN
    it = iter(leaves.items)

    def rebuild(tree: Any) -> Any:
        if isinstance(tree, Seq) and tree.kind == "dict":
            pairs = sorted(tree.items, key=lambda p: p.items[0].value)
            return Seq(tuple(Seq((p.items[0], rebuild(p.items[1]))) for p in pairs), "dict")
        if isinstance(tree, Seq):
            return Seq(tuple(rebuild(i) for i in tree.items), tree.kind)
        if isinstance(tree, Const) and tree.value is None:
            return tree
        if isinstance(tree, InstanceRef):
            children = classes.pytree_children(tree)
            assert children is not None  # (tree_leaves found them)
            return classes.with_children(tree, {name: rebuild(v) for name, v in children})
        return next(it)

    return rebuild(treedef.tree)


def _tree_reduce(f: FrameState, pos: list[Any], node: cst.CSTNode) -> Any:
    """`jax.tree.reduce(fn, tree[, initializer])`: `fn` folded over the known leaves in JAX's order."""
    leaves = tree_leaves(pos[1])
    if leaves is None or (len(pos) == 2 and not leaves):
        return UNKNOWN  # (no leaves and no initializer: a TypeError)
    acc, rest = (pos[2], leaves) if len(pos) == 3 else (leaves[0], leaves[1:])
    for leaf in rest:
        acc = f.call_value(pos[0], [acc, leaf], {}, [None, None], {}, node)
    return acc


def _dict_get(tree: Any, key: Any) -> Any:
    if not isinstance(tree, Seq) or tree.kind != "dict":
        return None
    for pair in tree.items:
        if same_value(pair.items[0], key):
            return pair.items[1]
    return None


def tree_leaves(tree: Any, work: list[int] | None = None) -> list[Any] | None:
    """The leaves of a known tree in JAX's order (dict keys sorted); None when not known (or past
    `MAX_TREE_NODES` nodes)."""
    work = [0] if work is None else work
    work[0] += 1
    if work[0] > MAX_TREE_NODES:
        return None
    if isinstance(tree, Seq) and tree.kind == "dict":
        try:
            pairs = sorted(tree.items, key=lambda p: p.items[0].value)
        except (AttributeError, TypeError):
            return None
        tree = Seq(tuple(p.items[1] for p in pairs))
    if isinstance(tree, Seq):
        out: list[Any] = []
        for item in tree.items:
            sub = tree_leaves(item, work)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if isinstance(tree, Const) and tree.value is None:
        return []
    if isinstance(tree, InstanceRef):
        children = classes.pytree_children(tree)
        return tree_leaves(Seq(tuple(v for _, v in children)), work) if children is not None else None
    return [tree] if _is_leaf(tree) else None


# ---- comprehensions --------------------------------------------------------------------------------
def _inner(f: Any, work: list[int]) -> Any:
    """The scope of a comprehension's variables (reads fall through to `f`); `work`: the items its outermost
    comprehension has bound so far, shared with the comprehensions nested in it."""
    scope = f.new_frame(lenient=f.lenient, quiet=f.silent, env=f.env, function=f.function)
    scope.comprehension_work = work
    return scope


def _work_of(f: Any) -> list[int]:
    """The item count of the comprehension `f` is the scope of (a fresh one outside comprehensions)."""
    work = getattr(f, "comprehension_work", None)
    return work if work is not None else [0]


def comprehension(f: Any, node: cst.ListComp | cst.GeneratorExp | cst.DictComp | cst.SetComp) -> Any:
    """A list / tuple (generator) / dict comprehension over known sequences, item by item."""
    if isinstance(node, cst.SetComp):
        return UNKNOWN
    out: list[Any] = []

    def emit(scope: Any) -> bool:
        if isinstance(node, cst.DictComp):
            key, value = scope.ev(node.key), scope.ev(node.value)
            if not isinstance(key, Const):
                return False
            out[:] = [p for p in out if not same_value(p.items[0], key)]
            out.append(Seq((key, value)))
        else:
            out.append(scope.ev(node.elt))
        return len(out) <= MAX_ITEMS

    work = _work_of(f)
    it = iterable(f, f.ev(node.for_in.iter), node.for_in.iter)
    if isinstance(it, IterRef) and node.for_in.asynchronous is None:
        return _over_iterator(f, node, it.item, work)
    if not _expand(f, node.for_in, emit, work, it):
        return UNKNOWN
    kind = "dict" if isinstance(node, cst.DictComp) else "list" if isinstance(node, cst.ListComp) else "tuple"
    return bounded(Seq(tuple(out), kind))


def _over_iterator(f: Any, node: cst.ListComp | cst.GeneratorExp | cst.DictComp, item: Any, work: list[int]) -> Any:
    """A comprehension over an iterator of unknown length: its element for one (joined) item; a generator
    expression gives an iterator of those, the others a container of unknown length (Unknown)."""
    work[0] += 1
    if work[0] > MAX_COMPREHENSION_WORK:
        return UNKNOWN
    f.an.checkpoint()
    scope = _inner(f, work)
    scope.assign(node.for_in.target, item)
    scope.skip_depth += 1  # the filters may drop every item: the element may never be computed
    try:
        for cond in node.for_in.ifs:
            scope.ev(cond.test)
        if node.for_in.inner_for_in is not None or isinstance(node, cst.DictComp):
            return UNKNOWN
        elt = scope.ev(node.elt)
    finally:
        scope.skip_depth -= 1
    return IterRef(elt) if isinstance(node, cst.GeneratorExp) else UNKNOWN


def _expand(f: Any, comp: cst.CompFor, emit: Any, work: list[int], it: Any = None) -> bool:
    """Run one `for ... in ... if ...` clause: the rest of the comprehension per item. False when the
    items (or which of them pass the filters) are not known, or past `MAX_COMPREHENSION_WORK` items bound
    (`work`). `it`: the iterable, when already evaluated."""
    if comp.asynchronous is not None:
        return False
    items = items_of(f.ev(comp.iter) if it is None else it)
    if items is None:
        return False
    for item in items:
        work[0] += 1
        if work[0] > MAX_COMPREHENSION_WORK:
            return False
        f.an.checkpoint()
        scope = _inner(f, work)
        scope.assign(comp.target, item)
        keep = True
        for cond in comp.ifs:
            c = scope.ev(cond.test)
            if not isinstance(c, Const):
                return False
            if not c.value:
                keep = False
                break
        if not keep:
            continue
        if not (_expand(scope, comp.inner_for_in, emit, work) if comp.inner_for_in is not None else emit(scope)):
            return False
    return True


# ---- for loops -------------------------------------------------------------------------------------
class _Exits(OwnScope):
    """Whether a loop body leaves an iteration early (break / continue / return at this loop's level)."""

    def __init__(self) -> None:
        self.found = False

    def visit_Break(self, node: cst.Break) -> None:
        self.found = True

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found = True

    def visit_Return(self, node: cst.Return) -> None:
        self.found = True


def _exits_early(s: cst.For) -> bool:
    v = _Exits()
    s.body.visit(v)
    return v.found


def unroll(f: Any, s: cst.For, it: Any) -> bool:
    """Analyse a `for` loop over a short known sequence once per item, in order (each iteration sees
    the values the previous one left). False when it is not unrolled (the caller's loop applies)."""
    weight = getattr(f, "unroll_weight", 1)
    items = items_of(it, MAX_UNROLL)
    if items is None or s.asynchronous is not None or weight * max(len(items), 1) > MAX_UNROLL_WORK or _exits_early(s):
        return False
    f.unroll_weight = weight * max(len(items), 1)
    try:
        for item in items:
            f.assign(s.target, item)
            f.run_block(s.body)
    finally:
        f.unroll_weight = weight
    if s.orelse is not None:
        f.run_block(s.orelse.body)
    return True


def _dict(source: Any, kw: dict[str, Any]) -> Any:
    """`dict(zip(names, values))`, `dict(d, k=v)`, `dict(k=v)`: a dict of known keys (Unknown otherwise)."""
    pairs: list[Seq] = []
    if isinstance(source, Seq) and source.kind == "dict":
        pairs = list(source.items)
    elif source is not None:
        items = items_of(source)
        if items is None:
            return UNKNOWN
        for p in items:
            if not (isinstance(p, Seq) and p.kind != "dict" and len(p.items) == 2):
                return UNKNOWN
            pairs.append(Seq(p.items))
    for k, v in kw.items():
        pairs.append(Seq((Const(k), v)))
    keys: dict[Any, int] = {}
    for i, p in enumerate(pairs):
        key = p.items[0] if isinstance(p, Seq) and len(p.items) == 2 else None
        if not (isinstance(key, Const) and isinstance(key.value, str | int)):
            return UNKNOWN
        keys[key.value] = i  # a repeated key: the last one holds
    return bounded(Seq(tuple(pairs[i] for i in sorted(set(keys.values()))), "dict"))


# ---- lists and dicts this scope builds: `xs.append(v)`, `d[k] = v` ------------------------------------------


def grow_list(f: FrameState, node: cst.Call) -> Any:
    """`xs.append(v)` / `xs.extend(seq)` on a name the scope holds as a known list: it grows by the item(s)
    (None, the call's value); NotImplemented for every other call."""
    func = node.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value in ("append", "extend")
        and isinstance(func.value, cst.Name)
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return NotImplemented
    name = func.value.value
    xs = f.vars.get(name)
    if not (isinstance(xs, Seq) and xs.kind == "list"):
        return NotImplemented
    v = f.ev(node.args[0].value)
    if func.attr.value == "append":
        f.vars[name] = bounded(Seq((*xs.items, v), "list"))
    else:
        more = items_of(v)
        f.vars[name] = bounded(Seq((*xs.items, *more), "list")) if more is not None else UNKNOWN
    return Const(None)


def set_item(f: FrameState, target: cst.Subscript, v: Any) -> bool:
    """`d[k] = v` (a known key) or `xs[i] = v` (an index in range) on a name the scope holds as a known dict or
    list: the value with that item; False where not done (the caller forgets the container)."""
    if not isinstance(target.value, cst.Name) or len(target.slice) != 1:
        return False
    index = target.slice[0].slice
    name = target.value.value
    xs = f.vars.get(name)
    if not isinstance(xs, Seq) or xs.kind not in ("list", "dict") or not isinstance(index, cst.Index):
        return False
    key = f.ev(index.value)
    if not isinstance(key, Const) or not isinstance(key.value, str | int) or isinstance(key.value, bool):
        return False
    if xs.kind == "list":
        if not isinstance(key.value, int) or not -len(xs.items) <= key.value < len(xs.items):
            return False
        items = list(xs.items)
        items[key.value] = v
        f.vars[name] = Seq(tuple(items), "list")
        return True
    pairs = list(xs.items)
    if not all(isinstance(p, Seq) and len(p.items) == 2 and isinstance(p.items[0], Const) for p in pairs):
        return False
    for i, p in enumerate(pairs):
        if p.items[0] == key:
            pairs[i] = Seq((key, v))
            break
    else:
        pairs.append(Seq((key, v)))
    f.vars[name] = bounded(Seq(tuple(pairs), "dict"))
    return True
