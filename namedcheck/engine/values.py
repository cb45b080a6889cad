"""Engine values: array types, Python constants, sequences and Unknown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import EllipsisType
from typing import TYPE_CHECKING, Any, TypeVar

from namedcheck.engine.dtypes import numpy_name
from namedcheck.engine.errors import Unprovable

if TYPE_CHECKING:
    from namedcheck.engine.mesh import MeshInfo

# A dimension is a concrete size (int), a symbol (an identifier str), None (statically unknown), or
# `...` (any number of dims; at most once in a positional shape). A symbol may be a size expression
# (`'N+1'`: engine/symbolic.py).
Dim = int | str | EllipsisType | None


class _Unknown:
    """A value whose type cannot be proven. Unknown never produces a diagnostic."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Unknown"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


def _fmt_dim(d: Dim) -> str:
    if d is ...:
        return "..."
    if d is None:
        return "?"
    if isinstance(d, str):
        return repr(d)
    return str(d)


def _fmt_axes(axes: tuple[str, ...]) -> str:
    """A dimension's mesh axes as JAX prints them: `@data`, `@(data,model)`."""
    if not axes:
        return ""
    return "@" + (axes[0] if len(axes) == 1 else "(" + ",".join(axes) + ")")


@dataclass(frozen=True, slots=True)
class ArrayType:
    """An array type: dtype (short name, None for any), positional shape, named shape.

    `named` is a tuple of (name, size) pairs sorted by name; order has no meaning.
    """

    dtype_code: str | None
    shape: tuple[Dim, ...]
    named: tuple[tuple[str, Dim], ...] = ()
    weak: bool = field(default=False, compare=False)
    # shard_map: the manual mesh axes this value varies over (JAX's `jax.typeof(x).mat.varying`)
    varying: frozenset[str] = frozenset()
    # Partial knowledge: named axes beyond those listed may be present (an op the engine does not model,
    # a map parameter known only from its spec); `varying` is then still exact, or only a lower bound.
    named_open: bool = False
    vary_exact: bool = True
    # The PartitionSpec entries (per positional dim, a tuple of mesh axes or None) the program placed
    # this value with (`device_put`, `jit(in_shardings=)`, `with_sharding_constraint`, ...), if stated.
    spec: tuple[tuple[str, ...] | None, ...] | None = None
    # Declared only: a dtype family (`Float`, `Int`, ...; dtype_code is then None) and the name of the
    # variadic run the `...` of the shape stands for (`'*batch'`), bound per call like a symbol.
    family: str | None = None
    variadic: str | None = None
    # The sharding in the type over Explicit mesh axes (`jax.typeof(x)`'s `f32[8@data,4]`): per positional
    # dim the mesh axes splitting it (() for none); None where not known (engine/ops/sharding_common.py).
    sharding: tuple[tuple[str, ...], ...] | None = None
    # The mesh that sharding is over (an engine `MeshInfo`: axis names, sizes and types, JAX's abstract mesh),
    # when known; JAX rejects an op on it under `jax.set_mesh` of another mesh (engine/sharding.check_meshes).
    mesh: MeshInfo | None = None
    # Mesh axes over which the value is unreduced (a partial sum per device: JAX's `{U:x}`) or known reduced
    # (`{R:x}`); meaningful where `sharding` is known (engine/ops/unreduced.py).
    unreduced: frozenset[str] = frozenset()
    reduced: frozenset[str] = frozenset()
    # Where the value came from (the analyzer's `analyzer/origins.Origin`, opaque here: placement, where it
    # started varying, the calls that passed it in): never compared, hashed or shown
    origin: Any = field(default=None, compare=False)
    # How the annotation this type was read from is written (`"dims"`: `f32[Array, Dims(5, 7)]`, `"literal"`:
    # `f32[(5, 7)]`; None: nobody wrote it): messages print a type as its user wrote it (engine/spelling.py)
    spelling: str | None = field(default=None, compare=False)

    @staticmethod
    def make(
        dtype: str | None, shape: tuple[Dim, ...], named: Mapping[str, Dim] | None = None, weak: bool = False
    ) -> ArrayType:
        return ArrayType(dtype, tuple(shape), tuple(sorted((named or {}).items())), weak)

    # Introspection (the runtime face of an annotation object).
    @property
    def dtype(self) -> str | None:
        """The numpy dtype name (`'float32'`), or None for any dtype."""
        return numpy_name(self.dtype_code)

    @property
    def named_shape(self) -> dict[str, Dim]:
        return dict(self.named)

    @property
    def ndim(self) -> int | None:
        return None if self.has_ellipsis else len(self.shape)

    @property
    def has_ellipsis(self) -> bool:
        return any(d is ... for d in self.shape)

    @property
    def is_partial(self) -> bool:
        """Some part is not known: rank, named axes, or the exact varying set."""
        return self.has_ellipsis or self.named_open or not self.vary_exact

    @staticmethod
    def partial(
        varying: frozenset[str] = frozenset(), exact: bool = True, dtype: str | None = None, min_rank: int = 0
    ) -> ArrayType:
        """An array of unknown shape (at least `min_rank` dims) and named axes whose varying set is
        known (`exact`) or known to include `varying`."""
        return ArrayType(dtype, (None,) * min_rank + (...,), (), False, frozenset(varying), True, exact)

    def with_shape(self, shape: tuple[Dim, ...]) -> ArrayType:
        return replace(
            self,
            shape=tuple(shape),
            spec=None,
            sharding=None,
            mesh=None,
            variadic=None,
            unreduced=frozenset(),
            reduced=frozenset(),
        )

    def with_named(self, named: dict[str, Dim]) -> ArrayType:
        return replace(self, named=tuple(sorted(named.items())))

    def with_dtype(self, dtype: str | None, weak: bool = False) -> ArrayType:
        return replace(self, dtype_code=dtype, weak=weak, family=None)

    def with_varying(self, varying: frozenset[str], exact: bool | None = None) -> ArrayType:
        return replace(self, varying=frozenset(varying), vary_exact=self.vary_exact if exact is None else exact)

    def with_spec(self, spec: tuple[tuple[str, ...] | None, ...] | None) -> ArrayType:
        """The value placed with PartitionSpec entries `spec` (None: no stated sharding)."""
        return replace(self, spec=spec)

    def with_sharding(
        self, sharding: tuple[tuple[str, ...], ...] | None, mesh: MeshInfo | EllipsisType | None = ...
    ) -> ArrayType:
        """The value with a type-level sharding over Explicit mesh axes (None: not known), over `mesh`
        (left out: the value's own; no sharding, no mesh)."""
        if sharding is None:
            return replace(self, sharding=None, mesh=None, unreduced=frozenset(), reduced=frozenset())
        return replace(self, sharding=sharding, mesh=self.mesh if mesh is ... else mesh)

    def __repr__(self) -> str:
        head = self.family or self.dtype_code or "Array"
        shd = self.sharding if self.sharding is not None and len(self.sharding) == len(self.shape) else None
        dims = ", ".join(
            f"'*{self.variadic}'"
            if d is ... and self.variadic and self.variadic.isidentifier()
            else repr(d + _fmt_axes(shd[i]))
            if shd and isinstance(d, str)
            else _fmt_dim(d) + (_fmt_axes(shd[i]) if shd else "")
            for i, d in enumerate(self.shape)
        )
        if len(self.shape) == 1:
            dims += ","
        vma = (
            "{V:" + ",".join([*sorted(self.varying), *([] if self.vary_exact else ["..."])]) + "}"
            if self.varying or not self.vary_exact
            else ""
        )
        vma += "".join(
            "{" + k + ":" + ",".join(sorted(v)) + "}" for k, v in (("U", self.unreduced), ("R", self.reduced)) if v
        )
        if not self.named:
            return f"{head}[({dims})]{vma}"
        named = ", ".join(f"{n!r}: {_fmt_dim(s)}" for n, s in self.named)
        return f"{head}[({dims}), {{{named}}}]{vma}"

    def __str__(self) -> str:
        """The type as a message prints it (`f"{t}"`): in the spelling its annotation was written in, else
        `f32[Array, Dims(...)]` (engine/spelling.py); `repr` stays the internal, parseable form."""
        from namedcheck.engine.spelling import shown

        return shown(self)


@dataclass(frozen=True, slots=True)
class Const:
    """A statically known Python scalar: int, float, bool, complex, str, None, Ellipsis, slice."""

    value: Any


@dataclass(frozen=True, slots=True)
class DimVal:
    """A Python int known to equal a (possibly symbolic or unknown) array dimension."""

    dim: Dim


@dataclass(frozen=True, slots=True)
class Seq:
    """A tuple, list or dict (items: (key, value) Seqs) whose items are engine values."""

    # Engine values (`Value`); in the analyzer any of its values, references to functions and modules included.
    items: tuple[Any, ...]
    kind: str = "tuple"
    # Per item, the size it stands for where used as one (a shape's `(config.batch_size, 784)`): a symbol
    # named after the item's source when its value is not known (the analyzer's `sized_seq`), else None.
    sizes: tuple[Dim, ...] | None = field(default=None, compare=False, repr=False)


class NotLiteral(Exception):
    """Raised when a value is not statically known."""


def literal(v: object) -> Any:
    """The Python value of a statically known value (tuples for sequences), or raise NotLiteral."""
    if isinstance(v, Const):
        return v.value
    if isinstance(v, DimVal):
        if isinstance(v.dim, int):
            return v.dim
        raise NotLiteral
    if isinstance(v, Seq):
        if v.kind == "dict":
            return {literal(k): literal(val) for k, val in (pair.items for pair in v.items)}
        return tuple(literal(i) for i in v.items)
    raise NotLiteral


def one_or_many(value: Any, kind: type | tuple[type, ...] = int) -> tuple[Any, ...]:
    """A literal argument that is one item or a tuple of them (`axis=0`, `axis=(0, 1)`) as a tuple; an item not of
    `kind` (ints: bools excluded), or another shape of argument, is not modelled (Unprovable)."""
    items = value if isinstance(value, tuple) else (value,)
    if not all(isinstance(i, kind) and not (kind is int and isinstance(i, bool)) for i in items):
        raise Unprovable
    return items


def dim_of(v: object) -> Dim:
    """A value used as a size: an int, a symbol, or None when unknown. Raises NotLiteral otherwise."""
    if isinstance(v, Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.value
    if isinstance(v, DimVal):
        return v.dim
    raise NotLiteral


def const_of(py: object) -> Seq | Const:
    """Wrap a Python value (nested tuples/lists included) as an engine value."""
    if isinstance(py, tuple):
        return Seq(tuple(const_of(i) for i in py), "tuple")
    if isinstance(py, list):
        return Seq(tuple(const_of(i) for i in py), "list")
    return Const(py)


# join and its helpers also take the analyzer's values (analyzer/refs.py), which they keep or drop whole.
_V = TypeVar("_V")


def join(vals: list[_V]) -> _V | ArrayType | Seq | _Unknown:
    """What the alternatives of a value (branches, loop iterations, returns) are all known to be: equal
    values stay (arrays that differ only in a stated sharding drop it); arrays keep their common dtype
    and, as a lower bound, the axes all of them vary over; sequences join item by item; else Unknown."""
    first = vals[0]
    if all(same(v, first) for v in vals):
        return first
    bare = [_without_spec(v) for v in vals]
    if all(same(v, bare[0]) for v in bare):
        return bare[0]
    out: _V | ArrayType | Seq | _Unknown = bare[0]
    for v in bare[1:]:
        out = _join2(out, v)
    return out


def same(a: object, b: object) -> bool:
    """Two analysis values agree: equal and of one kind."""
    if a is b:
        return True
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False


def _without_spec(v: _V) -> _V | ArrayType | Seq:
    if isinstance(v, ArrayType) and (v.spec is not None or v.sharding is not None):
        return replace(v, spec=None, sharding=None, mesh=None, unreduced=frozenset(), reduced=frozenset())
    if isinstance(v, Seq):
        return Seq(tuple(_without_spec(i) for i in v.items), v.kind)
    return v


def _join2(a: _V, b: _V) -> _V | ArrayType | Seq | _Unknown:
    if same(a, b):
        return a
    joiner = getattr(a, "join_with", None)  # an analyzer value that joins part by part (a config object)
    if joiner is not None:
        return joiner(b)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        dtype = a.dtype_code if a.dtype_code == b.dtype_code and a.weak == b.weak else None
        if (
            len(a.shape) == len(b.shape)
            and not a.has_ellipsis
            and not b.has_ellipsis
            and a.named == b.named
            and not a.named_open
            and not b.named_open
            and a.family is None
            and b.family is None
        ):  # one rank: the sizes they agree on stay, the others are not known
            exact = a.vary_exact and b.vary_exact and a.varying == b.varying
            return ArrayType(
                dtype,
                tuple(x if x == y and type(x) is type(y) else None for x, y in zip(a.shape, b.shape)),
                a.named,
                a.weak and b.weak and dtype is not None,
                a.varying & b.varying,
                vary_exact=exact,
            )
        return ArrayType.partial(a.varying & b.varying, exact=False, dtype=dtype)
    if (
        isinstance(a, Seq)
        and isinstance(b, Seq)
        and a.kind == b.kind
        and len(a.items) == len(b.items)
        and (a.kind != "dict" or all(_same_key(x, y) for x, y in zip(a.items, b.items)))
    ):
        return Seq(tuple(_join2(x, y) for x, y in zip(a.items, b.items)), a.kind)
    return UNKNOWN


def _same_key(a: Any, b: Any) -> bool:
    """Two dict items with one key (a dict joins item by item when its keys, in order, agree)."""
    return (
        isinstance(a, Seq) and isinstance(b, Seq) and len(a.items) == len(b.items) == 2 and same(a.items[0], b.items[0])
    )


@dataclass(frozen=True, slots=True)
class DtypeRef:
    """A reference to a dtype object (`jnp.float32`, `float`), as a short code (None: unknown)."""

    code: str | None


# An engine value: what the op rules take and return. (The analyzer's values are wider: analysis.py.)
Value = ArrayType | Const | DimVal | Seq | DtypeRef | _Unknown
