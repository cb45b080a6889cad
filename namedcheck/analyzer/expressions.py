"""Expressions and annotations of a scope: names, literals, attributes, subscripts, operators."""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import libcst as cst

from namedcheck.analyzer import causes, classes, configs, facts, haiku, instance_attrs, iteration, nn_modules
from namedcheck.analyzer.literals import (
    ANNOTATION_HEADS,
    ARRAY_HEADS,
    STR_METHODS,
    NotALiteral,
    literal_value,
    parse_annotation_subscript,
    parse_jaxtyping_subscript,
)
from namedcheck.analyzer.parsing import parse_expression
from namedcheck.analyzer.refs import (
    AtRef,
    BuildingRef,
    ClassInfo,
    DevicesVal,
    FuncRef,
    InstanceRef,
    MeshVal,
    MethodRef,
    NumberInfo,
    PartialRef,
    QualRef,
    ShardingVal,
    TypeAlias,
)
from namedcheck.analyzer.scope import FrameState, has_array, label, same_value
from namedcheck.analyzer.sizes import known_size, named_sizes, shape_read, size_of, sized_seq
from namedcheck.engine import jaxtyping
from namedcheck.engine.algebra import differ, num_elements
from namedcheck.engine.attributes import array_attribute, size_value
from namedcheck.engine.codes import NC105, NC205, NC701
from namedcheck.engine.dtypes import ALIASES
from namedcheck.engine.errors import RuleError
from namedcheck.engine.mesh import Spec
from namedcheck.engine.names import AT_METHODS, METHODS, OPERATORS, canonical_name
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, DtypeRef, NotLiteral, Seq, join, literal

_DTYPE_MODULES = {"jax.numpy", "numpy", "jax.dtypes"}


# numpy's, JAX's and math's float constants (Python floats in all three)
_FLOAT_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}


class _Dyn:
    """A slice bound that is not statically known."""

    def __repr__(self) -> str:
        return "?"


DYN = _Dyn()


def is_jaxtyping(head: str | None) -> bool:
    """An annotation head naming one of jaxtyping's dtype classes (`jaxtyping.Float`)."""
    return head is not None and head.rpartition(".")[0] in jaxtyping.MODULES


_LITERAL_NODES = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)


class Expressions(FrameState):
    """Expressions evaluate to engine values; annotations to array types."""

    def annotation_head(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Name):
            q = self.an.imports.get(node.value)
            if q is None:
                return node.value if node.value in ANNOTATION_HEADS | {"Annotated", "tuple", "Tuple"} else None
        elif isinstance(node, cst.Attribute):
            v = self.ev(node)
            if not isinstance(v, QualRef):
                return None
            q = v.name
        else:
            return None
        mod, _, last = q.rpartition(".")
        if mod in ("namedcheck", "namedcheck.annotations") and last in ARRAY_HEADS:
            return last
        if mod in jaxtyping.MODULES and last in jaxtyping.DTYPE_CLASSES:
            return q  # `jaxtyping.Float`: read with jaxtyping's meaning
        if q in ("typing.Annotated", "typing_extensions.Annotated"):
            return "Annotated"
        if q in ("typing.Tuple", "builtins.tuple"):
            return "tuple"
        return None

    def annotation(self, node: cst.BaseExpression, dynamic_ok: bool = False) -> Any:
        """An annotation expression as an ArrayType / Seq of them, or None when it is not one."""
        if isinstance(node, cst.SimpleString):
            try:
                text = node.evaluated_value
            except (SyntaxError, ValueError):  # an invalid escape (CPython rejects the file)
                return None
            parsed = parse_expression(text) if isinstance(text, str) else None  # (guarded: None if refused)
            return self.annotation(parsed) if parsed is not None else None
        if isinstance(node, cst.Name | cst.Attribute):
            v = self.ev(node)
            return v.type if isinstance(v, TypeAlias) else None
        if not isinstance(node, cst.Subscript):
            return None
        head = self.annotation_head(node.value)
        if head is not None and (head in ARRAY_HEADS or is_jaxtyping(head)):
            try:
                if is_jaxtyping(head):
                    return parse_jaxtyping_subscript(head.rpartition(".")[2], node)
                return parse_annotation_subscript(head, node)
            except RuleError as e:
                if not (dynamic_ok and e.code == NC105):
                    self.report(node, e)
                return None
        if head == "Annotated":
            for el in node.slice[1:]:
                if isinstance(el.slice, cst.Index):
                    r = self.annotation(el.slice.value)
                    if r is not None:
                        return r
            return None
        if head in ("tuple", "Tuple"):
            items = [self.annotation(el.slice.value) if isinstance(el.slice, cst.Index) else None for el in node.slice]
            if any(isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.Ellipsis) for el in node.slice):
                return None
            return Seq(tuple(items)) if any(i is not None for i in items) else None
        return None

    # ---- expressions ---------------------------------------------------------------------------
    def truth(self, node: cst.BaseExpression, value: Any = None) -> bool | None:
        """Whether an evaluated expression (`value`: what `ev` gave) is truthy, where that is known: a constant,
        a known size, or a boolean operation one side decides (`a or len(x.shape) < 2` with x of rank 1)."""
        if isinstance(value, Seq):  # `if x.shape:`, `if params:`: its length is known
            return bool(value.items)
        if isinstance(value, InstanceRef | BuildingRef) and classes.always_truthy(value.cls):
            return True  # `generator or Default()`: an instance of a class without `__bool__` / `__len__`
        if isinstance(value, FuncRef):
            return True
        plain = _plain(value)
        return bool(plain) if plain is not _NONE_OF else self.truths.get(id(node))

    def ev(self, node: cst.BaseExpression | None) -> Any:
        if node is None:
            return UNKNOWN
        try:
            value = self._ev(node)
        except RuleError as e:
            self.report(node, e)
            value = UNKNOWN
        if isinstance(value, DimVal) and value.dim is None:  # an int of unknown size: `x.shape[0]`, `len(xs)`
            value = DimVal(size_of(self, node, value))
        if self.an.types is not None and (self.function is not None or self.parent is None) and has_array(value):
            self.an.types[id(node)] = (node, value)
        if self.an.value_log is not None and has_array(value):  # the editor's hover: every analysis
            self.an.value_log.append((node, value))
        if self.an.call_values is not None and has_array(value):  # an open file run by its importers' calls
            self.an.call_values.append((node, value, self.an.call_root()))
        if self.an.coverage is not None:  # how much of the checked file's shapes is known (analyzer/coverage.py)
            cause = self.an.coverage.see(node, value, self)
            if self.an.why_log is not None:  # the editor's hover: why it is not known (a name's too)
                if cause is None and type(node) is cst.Name and causes.lost(value):
                    cause = causes.of_name(self, node)
                if cause is not None:
                    self.an.why_log.append((node, cause))
        return value

    def _ev(self, node: cst.BaseExpression) -> Any:
        # dispatch on the node's exact type: libcst's node classes are ABCs, and each `isinstance` against one
        # that fails goes through `ABCMeta.__instancecheck__` (millions of calls in a tree run)
        if type(node) is cst.Name:
            configs.name_read(self, node)
            return self.lookup(node.value)
        if type(node) in _LITERAL_NODES:
            try:
                return Const(literal_value(node))
            except (NotALiteral, ValueError):
                return UNKNOWN
        if type(node) is cst.Imaginary:
            return Const(complex(node.value.replace("_", "")))
        if type(node) is cst.Tuple or type(node) is cst.List:
            items: list[Any] = []
            nodes: list[Any] = []
            for e in node.elements:
                v = self.ev(e.value)
                if isinstance(e, cst.StarredElement):
                    if not isinstance(v, Seq):
                        return UNKNOWN
                    items.extend(v.items)
                    nodes.extend([None] * len(v.items))
                else:
                    items.append(v)
                    nodes.append(e.value)
            return iteration.bounded(sized_seq(self, items, nodes, "tuple" if isinstance(node, cst.Tuple) else "list"))
        if type(node) is cst.Attribute:
            if classes.is_super(node.value):  # `super().__call__`: the next class's method, bound to `self`
                named = haiku.super_attribute(self, node.attr.value)  # an hk.Module taking its name
                return named if named is not NotImplemented else classes.super_method(self, node.attr.value)
            recv = self.ev(node.value)
            if isinstance(recv, Seq) and recv.kind in ("list", "dict"):
                method = iteration.container_method(recv, node.attr.value)
                if method is not None:  # `params.items()`: reads it
                    return method
                self.forget_if_mutable(node.value)  # `xs.append(...)`, `d.update(...)`
                return UNKNOWN
            if isinstance(recv, ArrayType) and node.attr.value == "resize":
                self.forget_if_mutable(node.value, any_value=True)  # numpy's in-place resize
            out = self.attribute(recv, node.attr.value, node)
            if self.an.coverage is not None:  # the receiver, for the cause of a lost attribute (analyzer/causes.py)
                self.an.coverage.receiver = (node.value, recv)
            return out
        if type(node) is cst.Call:
            return self.call(node)
        if type(node) is cst.BinaryOperation:
            op = OPERATORS.get(type(node.operator).__name__)
            left, right = self.ev(node.left), self.ev(node.right)
            return self.apply_op(op, [left, right], [node.left, node.right], node) if op else UNKNOWN
        if type(node) is cst.UnaryOperation:
            v = self.ev(node.expression)
            if isinstance(node.operator, cst.Not) and (t := self.truth(node.expression, v)) is not None:
                return Const(not t)
            if isinstance(node.operator, cst.Minus) and isinstance(v, Const) and isinstance(v.value, (int, float)):
                return Const(-v.value)
            op = OPERATORS.get(type(node.operator).__name__)
            return self.apply_op(op, [v], [node.expression], node) if op else UNKNOWN
        if type(node) is cst.Comparison:
            left = self.ev(node.left)
            vals = [self.ev(c.comparator) for c in node.comparisons]
            if (
                len(node.comparisons) == 1
                and (folded := _compare_known(type(node.comparisons[0].operator).__name__, left, vals[0])) is not None
            ):
                return Const(folded)
            if len(node.comparisons) == 1:
                op = OPERATORS.get(type(node.comparisons[0].operator).__name__)
                if op:
                    return self.apply_op(op, [left, vals[0]], [node.left, node.comparisons[0].comparator], node)
            return UNKNOWN
        if type(node) is cst.BooleanOperation:
            left = self.ev(node.left)
            is_or = isinstance(node.operator, cst.Or)
            lt = self.truth(node.left, left)
            if lt is not None:  # `True or b` is the left side (b never runs); `False or b` is b
                return left if lt == is_or else self.ev(node.right)
            self.skip_depth += 1  # evaluated only for some values of the left side
            right = self.ev(node.right)
            self.skip_depth -= 1
            if self.truth(node.right, right) == is_or:  # `a or True` is true, `a and False` false, whatever a is
                self.truths[id(node)] = is_or
            return UNKNOWN
        if type(node) is cst.Subscript:
            return self.subscript(node)
        if type(node) is cst.IfExp:
            taken = self.truth(node.test, self.ev(node.test))
            if taken is not None:  # `nn.remat(Block) if cfg.remat else Block` with the config known
                return self.ev(node.body if taken else node.orelse)
            self.skip_depth += 1  # each arm runs only for some values of the test: a branch, as in `if`
            self.cond_depth += 1
            a, b = (self.arm(node.test, arm, holds) for arm, holds in ((node.body, True), (node.orelse, False)))
            self.cond_depth -= 1
            self.skip_depth -= 1
            return join([a, b])
        if type(node) is cst.Lambda:
            return FuncRef(node, self, "<lambda>")
        if type(node) is cst.NamedExpr:
            v = self.ev(node.value)
            self.assign(node.target, v)
            return v
        if (
            type(node) is cst.ListComp
            or type(node) is cst.GeneratorExp
            or type(node) is cst.DictComp
            or type(node) is cst.SetComp
        ):
            return iteration.comprehension(self, node)
        if type(node) is cst.Yield:
            return iteration.yielded(self, node)
        if type(node) is cst.Set:
            return iteration.bounded(Seq(tuple(self.ev(e.value) for e in node.elements), "tuple"))
        if type(node) is cst.Dict:
            pairs = []
            for de in node.elements:
                if not isinstance(de, cst.DictElement):
                    self.ev(de.value)
                    return UNKNOWN
                pairs.append(Seq((self.ev(de.key), self.ev(de.value))))
            return iteration.bounded(Seq(tuple(pairs), "dict"))
        return UNKNOWN

    def arm(self, test: cst.BaseExpression, arm: cst.BaseExpression, holds: bool) -> Any:
        """One arm of `a if test else b` whose test is not known: evaluated with the test narrowed as an `if`'s
        branch (facts.narrow); the narrowing ends with the arm (a name the arm binds keeps its value)."""
        before = dict(self.vars)
        facts.narrow(self, test, holds)
        narrowed = {k: v for k, v in self.vars.items() if before.get(k, _ABSENT) is not v}
        try:
            return self.ev(arm)
        finally:
            for k, v in narrowed.items():
                if self.vars.get(k, _ABSENT) is v:
                    if k in before:
                        self.vars[k] = before[k]
                    else:
                        self.vars.pop(k, None)

    def attribute(self, recv: Any, attr: str, node: cst.CSTNode) -> Any:
        config_attr = configs.attribute(self, recv, attr, node)  # `config.d_model`, `FLAGS.batch_size`
        if config_attr is not NotImplemented:
            return config_attr
        if isinstance(recv, QualRef):
            project = getattr(self.an, "project", None)
            if project is not None and project.owns(recv.name):  # `layers.dense`, `pkg.config.CONFIG`
                v = project.resolve(f"{recv.name}.{attr}")
                if v is None:
                    causes.note(self, node, causes.UNKNOWN_IMPORT, f"{recv.name}.{attr}")
                return v if v is not None else UNKNOWN
            mod = canonical_name(recv.name + ".x").rpartition(".")[0]
            if mod in _DTYPE_MODULES and attr in ALIASES and attr not in ("float", "int", "bool", "complex"):
                return DtypeRef(ALIASES[attr])
            if mod in ("jax.numpy", "numpy") and attr == "newaxis":
                return Const(None)
            if mod in ("jax.numpy", "numpy", "math") and attr in _FLOAT_CONSTANTS:  # `-jnp.pi`, `np.inf`
                return Const(_FLOAT_CONSTANTS[attr])
            if recv.name.startswith("jax.sharding") and attr == "PartitionSpec":
                return QualRef("jax.sharding.PartitionSpec")
            return QualRef(f"{recv.name}.{attr}")
        if isinstance(recv, InstanceRef | BuildingRef):
            bound = haiku.instance_attribute(self, recv, attr, node)  # an hk.Module's method: its own naming scope
            if bound is not NotImplemented:
                return bound
            if attr in recv.cls.properties and attr in recv.cls.methods:  # `state.width`: the getter's value
                return self.call_value(recv.cls.methods[attr], [recv], {}, [None], {}, node)
            special = nn_modules.instance_attribute(recv, attr)
            if special is not NotImplemented:
                return special
            assert isinstance(recv, InstanceRef)  # instance_attribute decides every attribute of a BuildingRef
            built = recv.field_value(attr)
            if built is not None and (built is not UNKNOWN or attr not in recv.cls.fields):
                configs.note_field(self, recv, attr, node, built)  # `cfg.d_model` is 64, set here
                return built
            field = recv.cls.fields.get(attr)
            if field is None or causes.lost(field):  # `self.w` that `__init__` / `setup` set
                got = instance_attrs.builder_attribute(self, recv, attr, node)
                if got is not None:
                    return got
            if field is not None:
                return field
            if attr in recv.cls.methods:
                return PartialRef(recv.cls.methods[attr], (recv,))
            if attr in recv.cls.classmethods or attr in recv.cls.staticmethods:
                return classes.class_attribute(recv.cls, attr)
            if recv.cls.copier and attr == recv.cls.copier:  # a flax struct's `replace`, a NamedTuple's `_replace`
                return PartialRef(QualRef("dataclasses.replace"), (recv,))
            return UNKNOWN
        if isinstance(recv, ClassInfo):  # `Layer.abstract(cfg)`, `cls.init(key, cfg)`, `Config.VOCAB`
            return classes.class_attribute(recv, attr)
        special = nn_modules.other_attribute(recv, attr, self)  # `nn.Dense(3).init`, `state.params`
        if special is not NotImplemented:
            return special
        if isinstance(recv, NumberInfo) and recv.integer:  # `np.iinfo(np.int32).max`: a Python int
            return _int_limit(recv.code, attr)
        if isinstance(recv, NumberInfo):  # `jnp.finfo(dtype).min`: a scalar of that dtype
            return ArrayType(recv.code, ()) if attr in _NUMBER_LIMITS else UNKNOWN
        if isinstance(recv, Const) and isinstance(recv.value, str) and attr in STR_METHODS:  # `'2,4'.split(',')`
            return MethodRef(recv, attr)
        if isinstance(recv, DevicesVal) and attr == "reshape":
            return MethodRef(recv, "reshape")
        if isinstance(recv, MeshVal | DevicesVal):
            return mesh_attribute(recv, attr)
        if isinstance(recv, ShardingVal):  # `jax.typeof(p).sharding.spec`, `.mesh`: the parts known
            if attr == "spec":
                return recv.spec if recv.spec is not None else UNKNOWN
            return MeshVal(recv.mesh) if attr == "mesh" and recv.mesh is not None else UNKNOWN
        if isinstance(recv, AtRef):  # `x.at[idx].set`
            return MethodRef(recv, attr) if recv.index is not None and attr in AT_METHODS else UNKNOWN
        if isinstance(recv, ArrayType):
            if attr == "at" and isinstance(node, cst.Attribute):
                return AtRef(recv, None, node.value)
            if attr == "T":
                return self.apply_named("jax.numpy.transpose", [recv], {}, [None], node)
            if attr == "value":  # an nnx variable's array (`self.w.value`); arrays have no such attribute
                return recv
            if attr == "sharding":  # `x.sharding`, `jax.typeof(x).sharding`: known over an all-Explicit mesh
                return array_sharding(recv) if not self.env.manual else UNKNOWN
            if attr == "shape" and isinstance(node, cst.Attribute):
                recv = named_sizes(self, node.value, recv)  # `x.shape[0]` is x's dim 0, whatever it is
            value = array_attribute(recv, attr)
            if value is not NotImplemented:
                return value
            if attr in METHODS:
                return MethodRef(recv, attr)
        if recv is UNKNOWN and attr == "reshape":  # the new shape is known whatever the array is
            return MethodRef(recv, attr)
        if (
            isinstance(recv, Const)
            and type(recv.value) in (str, int, float)
            and not hasattr(recv.value, attr)
            and (isinstance(recv.value, str) or attr not in _numpy_scalar_attributes())
            and isinstance(node, cst.Attribute)
            and configs.given_argument(self, node.value)
        ):  # `cfg.width` where the call gave parameter `cfg` the string 'dense': two arguments swapped
            err = RuleError(
                NC205,
                f"`{label(node.value) or 'the value'}` is the Python {type(recv.value).__name__} {recv.value!r}, "
                f"which has no attribute `{attr}` (Python raises AttributeError)",
            )
            configs.relate_argument(self, err, node.value)
            if isinstance(node.value, cst.Name) and node.value.value in self.vars:
                self.vars[node.value.value] = UNKNOWN  # the program stopped here: one report
            self.ended = True
            raise err
        return iteration.staging_attribute(recv, attr)

    def subscript(self, node: cst.Subscript) -> Any:
        read = shape_read(self, node)  # `x.shape[-1]` of an unknown x: x has that dimension
        if read is not None:
            return read
        if isinstance(node.value, cst.Name | cst.Attribute) and (
            (head := self.annotation_head(node.value)) in ARRAY_HEADS or is_jaxtyping(head)
        ):
            # In an expression (`Row = f32[(3,)]`) a non-literal part is runtime code, not a mistake.
            t = self.annotation(node, dynamic_ok=True)
            return TypeAlias(t) if t is not None else UNKNOWN
        recv = self.ev(node.value)
        parts: list[Any] = []
        for el in node.slice:
            s = el.slice
            if isinstance(s, cst.Index):
                parts.append(self.ev(s.value))
            else:
                assert isinstance(s, cst.Slice)  # a subscript element is an Index or a Slice
                bounds = []
                for b in (s.lower, s.upper, s.step):
                    v = self.ev(b) if b is not None else Const(None)
                    bounds.append(
                        v.value
                        if isinstance(v, Const) and (v.value is None or isinstance(v.value, int))
                        else v.dim
                        if isinstance(v, DimVal) and isinstance(v.dim, int)
                        else DYN
                    )
                parts.append(Const(slice(*bounds)))
        idx = parts[0] if len(parts) == 1 and not _trailing_comma(node) else Seq(tuple(parts))
        if isinstance(recv, DevicesVal):
            sl = idx.value if isinstance(idx, Const) and isinstance(idx.value, slice) else None
            if sl is not None and sl.start in (None, 0) and isinstance(sl.stop, int) and sl.step in (None, 1):
                have = recv.shape[0] if len(recv.shape) == 1 else None
                if isinstance(have, int):  # a list of fewer devices gives what it has
                    return DevicesVal((max(0, min(sl.stop if sl.stop >= 0 else have + sl.stop, have)),))
                if sl.stop >= 0:
                    return DevicesVal((sl.stop,))
            return DevicesVal((None,))
        if isinstance(recv, InstanceRef) and (fields := iteration.named_tuple_items(recv)) is not None:
            recv = Seq(fields)  # `carry[0]` of a NamedTuple: its first field
        config_item = configs.item(self, recv, idx)  # `config['width']`
        if config_item is not NotImplemented:
            return config_item
        if isinstance(recv, Seq) and recv.kind == "dict":  # `params['w']`
            for pair in recv.items:
                if isinstance(pair, Seq) and len(pair.items) == 2 and same_value(pair.items[0], idx):
                    return pair.items[1]
            return UNKNOWN
        if isinstance(recv, Seq):
            try:
                key = literal(idx)
                if isinstance(key, int) and not isinstance(key, bool):
                    if not -len(recv.items) <= key < len(recv.items) and _is_shape(node.value):
                        n = len(recv.items)
                        raise RuleError(  # `x.shape[2]` of a matrix: Python's IndexError
                            NC701,
                            f"Index {key} is out of range for `{label(node.value)}` of a value with {n} "
                            f"dimension{'s' if n != 1 else ''}",
                            hint=f"valid indices are {-n}..{n - 1}" if n else "the value is a scalar",
                        )
                    return recv.items[key]
                if isinstance(key, slice) and all(
                    b is None or isinstance(b, int) for b in (key.start, key.stop, key.step)
                ):
                    return Seq(recv.items[key], recv.kind)
            except (NotLiteral, IndexError, ValueError):  # not known, out of range, a zero step (the program raises)
                return UNKNOWN
            return UNKNOWN
        if isinstance(recv, ArrayType):
            # (a numpy array's item is a numpy array of its dtype: the operands decide the width, as for operators)
            return self.apply_named("operator.getitem", [recv, idx], {}, [node.value, None], node, origin="value")
        if isinstance(recv, AtRef) and recv.index is None:
            return AtRef(recv.array, idx, recv.node)
        return UNKNOWN


def array_sharding(v: ArrayType) -> Any:
    """An array's sharding as a value (`NamedSharding(mesh, spec)`) where its type states all of it: the
    sharding and the mesh are known and every mesh axis is Explicit; else Unknown."""
    if v.sharding is None or v.mesh is None or not v.mesh.explicit or v.has_ellipsis or len(v.sharding) != len(v.shape):
        return UNKNOWN
    return ShardingVal(v.mesh, Spec(tuple(e or None for e in v.sharding), v.unreduced, v.reduced))


def mesh_attribute(v: MeshVal | DevicesVal, attr: str) -> Any:
    """Sizes a mesh (or an array of devices) states: `mesh.shape['x']`, `mesh.size`, `mesh.axis_names`,
    `mesh.devices.shape`, as Python values (Unknown where a size is not static)."""
    if isinstance(v, DevicesVal):
        if attr == "shape":
            return Seq(tuple(size_value(d) for d in v.shape))
        if attr == "size":
            return size_value(num_elements(v.shape))
        if attr == "ndim":
            return Const(len(v.shape))
        return UNKNOWN
    axes = v.info.axes
    if attr == "shape":
        return Seq(tuple(Seq((Const(n), size_value(s))) for n, s in axes), "dict")
    if attr == "axis_sizes":
        return Seq(tuple(size_value(s) for _, s in axes))
    if attr == "axis_names":
        return Seq(tuple(Const(n) for n, _ in axes))
    if attr == "size":
        return size_value(num_elements(tuple(s for _, s in axes)))
    if attr == "devices":
        return DevicesVal(tuple(s for _, s in axes))
    return UNKNOWN


def _is_shape(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "shape"


def _trailing_comma(node: cst.Subscript) -> bool:
    return len(node.slice) == 1 and node.slice[0].comma is not cst.MaybeSentinel.DEFAULT


_COMPARE = {
    "LessThan": operator.lt,
    "LessThanEqual": operator.le,
    "GreaterThan": operator.gt,
    "GreaterThanEqual": operator.ge,
    "Equal": operator.eq,
    "NotEqual": operator.ne,
}


def _plain(v: Any) -> Any:
    """A Python constant's value (a known size's too); `_NONE_OF` when there is none."""
    if isinstance(v, Const) and isinstance(v.value, bool | int | float | str | bytes | type(None)):
        return v.value
    if isinstance(v, DimVal) and isinstance(v.dim, int):
        return v.dim
    return _NONE_OF


_NONE_OF = object()
_ABSENT = object()  # a name not bound before an IfExp arm
_NUMBER_LIMITS = {"min", "max", "eps", "tiny", "smallest_normal", "epsneg", "resolution"}


def _int_limit(code: str | None, attr: str) -> Any:
    """`iinfo(<code>).min` / `.max` (Python ints), else Unknown."""
    if code is None or code[:1] not in ("i", "u") or not code[1:].isdigit() or attr not in ("min", "max"):
        return UNKNOWN
    bits, signed = int(code[1:]), code[0] == "i"
    if attr == "min":
        return Const(-(2 ** (bits - 1)) if signed else 0)
    return Const(2 ** (bits - 1) - 1 if signed else 2**bits - 1)


def _compare_known(op: str, left: Any, right: Any) -> bool | None:
    """A comparison of known Python values (`len(x.shape) < 2`, `x.shape[-1] == 4`), and `is (not) None` of a
    value known to be None or known not to be (an array, a sequence, an instance); None where not known."""
    a, b = _plain(left), _plain(right)
    if op in _COMPARE and a is not _NONE_OF and b is not _NONE_OF:
        try:
            return bool(_COMPARE[op](a, b))
        except TypeError:
            return None
    da, db = known_size(left), known_size(right)
    if op in ("Equal", "NotEqual") and da is not None and db is not None:  # symbolic sizes
        equal = True if da == db else False if differ(da, db) else None
        return None if equal is None else equal == (op == "Equal")
    if op in ("Is", "IsNot") and b is None:
        # (an array, a sequence, an instance of the program's classes, a class or a function is not None)
        never = isinstance(left, ArrayType | Seq | InstanceRef | BuildingRef | ClassInfo | FuncRef)
        is_none = True if a is None else False if never else None
        return None if is_none is None else is_none == (op == "Is")
    if op in ("Equal", "NotEqual") and _size_tuple(left) and _size_tuple(right):  # `x.shape == (B, 512)`
        same: bool | None = False
        if len(left.items) == len(right.items):
            each = [_compare_known("Equal", p, q) for p, q in zip(left.items, right.items, strict=True)]
            same = False if False in each else True if all(e is True for e in each) else None
        return None if same is None else same == (op == "Equal")
    return None


def _size_tuple(v: Any) -> bool:
    """A tuple (its length fixed) of ints or sizes: a shape."""
    return (
        isinstance(v, Seq)
        and v.kind == "tuple"
        and all(isinstance(i, DimVal) or isinstance(i, Const) and type(i.value) is int for i in v.items)
    )


@functools.lru_cache(maxsize=1)
def _numpy_scalar_attributes() -> frozenset[str]:
    """What numpy's scalars have beyond Python's numbers (`.shape`, `.item`): a size the analysis folds to an int
    may be one at run time (`np.prod(shape)`), so those attributes are not reported."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy comes with the analyzer's dependencies
        return frozenset({"shape", "ndim", "dtype", "size", "item", "astype", "reshape", "T"})
    return frozenset(dir(np.int64(0))) | frozenset(dir(np.float64(0)))
