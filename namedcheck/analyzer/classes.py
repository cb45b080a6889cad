"""Classes as values: what a class statement says of its instances (fields in order, class-body defaults,
library bases), and instances built by calling the class (dataclasses, NamedTuples, flax linen modules,
config objects), so `cfg.d_model` is known where the object is built from literals."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer.memo import process_cache
from namedcheck.analyzer.refs import BuildingRef, ClassInfo, FuncRef, InstanceRef, MappedRef, PartialRef, QualRef
from namedcheck.engine.codes import NC302
from namedcheck.engine.errors import RuleError
from namedcheck.engine.names import canonical_name
from namedcheck.engine.values import UNKNOWN, Const, Seq

# bases whose subclasses take their fields as constructor arguments (unless they define `__init__`)
FIELD_BASES = (
    "typing.NamedTuple",
    "typing_extensions.NamedTuple",
    "flax.linen.Module",
    "flax.linen.module.Module",
    "flax.struct.PyTreeNode",
    "equinox.Module",
)
_DATACLASS_DECORATORS = ("dataclass", "dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass")
# classes whose instances are pytree nodes with their fields as children (unless a field is static)
_PYTREE_BASES = (
    "typing.NamedTuple",
    "typing_extensions.NamedTuple",
    "flax.struct.PyTreeNode",
    "equinox.Module",
)
_PYTREE_DECORATORS = (
    "flax.struct.dataclass",
    "chex.dataclass",
    "chex.dataclasses.dataclass",
    "jax.tree_util.register_dataclass",
)
_COPYING_DECORATORS = ("flax.struct.dataclass", "chex.dataclass", "chex.dataclasses.dataclass")  # add `.replace`
# field specifiers and the keyword (and value) that makes a field static metadata rather than a child
_FIELD_SPECIFIERS = {"flax.struct.field": ("pytree_node", False), "equinox.field": ("static", True)}


# a base standing for a metaclass other than abc's: what reading the class's attributes gives is not its body's values
CUSTOM_METACLASS = "<metaclass>"


# what a metaclass defines to make a class's attributes other than its body's values
_ATTRIBUTE_MAKERS = frozenset({"__new__", "__prepare__", "__getattribute__", "__getattr__"})


def _custom_metaclass(frame: Any, expr: cst.BaseExpression) -> bool:
    """A metaclass that may change what a class's attributes are: a library's (other than abc's and `type`), or the
    program's own one defining `__new__` / `__init__` / `__prepare__` / `__getattr(ibute)__` (one defining only
    `__call__`, as numpyro's distributions have, leaves the class body's values as they are)."""
    v = frame.parent.ev(expr) if frame.parent is not None else UNKNOWN
    if isinstance(v, ClassInfo):
        defined = set(v.methods) | set(v.staticmethods) | set(v.classmethods)
        init = v.methods.get("__init__")
        return bool(_ATTRIBUTE_MAKERS & defined) or (init is not None and _sets_attributes(getattr(init, "node", None)))
    return not (isinstance(v, QualRef) and canonical_name(v.name) in ("abc.ABCMeta", "type"))


def _sets_attributes(fn: cst.CSTNode | None) -> bool:
    """Whether a metaclass's `__init__` may set the class's attributes: a `setattr` call, or an assignment to an
    attribute that is not a dunder (`cls.__signature__ = ...` leaves the body's names alone)."""
    if not isinstance(fn, cst.FunctionDef):
        return True
    found = False

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            found |= isinstance(node.func, cst.Name) and node.func.value == "setattr"

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            nonlocal found
            t = node.target
            found |= isinstance(t, cst.Attribute) and not (
                t.attr.value.startswith("__") and t.attr.value.endswith("__")
            )

    fn.visit(Visitor())
    return found


def describe(frame: Any, c: cst.ClassDef, info: ClassInfo) -> None:
    """Fill `info` from the class statement: bases, whether calling it binds fields, field order and
    class-body defaults (evaluated in `frame`, the class body's scope, after it ran)."""
    bases: list[str] = []
    inherited: list[ClassInfo] = []
    opaque_base = False
    if any(
        k.keyword is not None and k.keyword.value == "metaclass" and _custom_metaclass(frame, k.value)
        for k in c.keywords
    ):
        bases.append(CUSTOM_METACLASS)  # it may make the class body's names anything (an enumeration)
    for b in c.bases:
        if b.keyword is not None:
            continue
        # `Env[State, Action]`, `Generic[T]`: a generic base subscripted is that base (`__mro_entries__`)
        written = b.value.value if isinstance(b.value, cst.Subscript) else b.value
        v = frame.parent.ev(written) if frame.parent is not None else UNKNOWN
        if isinstance(b.value, cst.Subscript) and not isinstance(v, ClassInfo | QualRef):
            v = UNKNOWN
        if (
            v is UNKNOWN
            and isinstance(b.value, cst.Name)
            and b.value.value == "object"
            and frame.parent is not None
            and "object" not in frame.parent.vars
        ):
            continue  # `class A(object)`: the builtin (a name the module binds is not Unknown)
        if isinstance(v, QualRef):
            bases.append(canonical_name(v.name))
        elif isinstance(v, ClassInfo):
            inherited.append(v)
            bases.extend(v.bases)
        else:
            opaque_base = True
    info.bases = tuple(bases)
    info.parents = (*inherited, None) if opaque_base else tuple(inherited)  # None: a base not known
    body = c.body.body if isinstance(c.body, cst.IndentedBlock) else ()
    order: list[str] = []
    for base in inherited:
        for own, inherited_ones in (
            (info.methods, base.methods),
            (info.classmethods, base.classmethods),
            (info.staticmethods, base.staticmethods),
        ):
            for k, v in inherited_ones.items():
                own.setdefault(k, v)
        order.extend(n for n in base.order if n not in order)
        for k, v in base.defaults.items():
            info.defaults.setdefault(k, v)
        for k, v in base.fields.items():
            info.fields.setdefault(k, v)
    defines_init = False
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            defines_init = True
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    if small.target.value not in order and not _is_classvar(small.annotation.annotation):
                        order.append(small.target.value)
                    if small.value is not None:
                        info.defaults[small.target.value] = frame.vars.get(small.target.value, UNKNOWN)
                        info.written[small.target.value] = small
                    else:
                        info.defaults.pop(small.target.value, None)
                elif isinstance(small, cst.Assign):
                    for t in small.targets:
                        if isinstance(t.target, cst.Name):
                            info.defaults[t.target.value] = frame.vars.get(t.target.value, UNKNOWN)
                            info.written[t.target.value] = small
    info.order = order
    info.assigned = _methods_assign_self(body).union(*(base.assigned for base in inherited))
    by_fields = (
        any(b in FIELD_BASES for b in bases)
        or any(base.kind == "fields" for base in inherited)
        or _decorated_dataclass(frame, c)
    )
    if by_fields and not defines_init and not opaque_base:
        info.kind = "fields"
    info.plain = not c.bases and not c.decorators
    pytree = any(b in _PYTREE_BASES for b in bases) or _decorated_dataclass(frame, c, _PYTREE_DECORATORS)
    if pytree and not opaque_base and all(base.static is not None for base in inherited if base.kind == "fields"):
        info.static = _static_fields(frame, body, inherited)
    if any(b in ("typing.NamedTuple", "typing_extensions.NamedTuple") for b in bases):
        info.copier = "_replace"
    elif "flax.struct.PyTreeNode" in bases or _decorated_dataclass(frame, c, _COPYING_DECORATORS):
        info.copier = "replace"
    else:
        info.copier = next((base.copier for base in inherited if base.copier), "")


def rebound_methods(frame: Any, info: ClassInfo) -> None:
    """A method whose name a later class-body statement rebinds (`__call__ = filter_pmap(__call__)`, under an
    `if` too): calls through an instance reach what the name holds when the class is complete. A vmap / pmap
    of it is called with the instance first, as a decorated method is; any other value leaves the method
    unknown."""
    defined = frame.defined_methods or {}
    for name, value in defined.items():
        if name not in info.methods:
            continue  # (a setter, a static or class method)
        now = frame.vars.get(name, UNKNOWN)
        if now is value:
            continue
        if (
            isinstance(now, MappedRef)
            and now.kind in ("vmap", "pmap")
            and name not in ("__init__", "__call__", "setup")
        ):
            info.methods[name] = now
        elif isinstance(now, FuncRef) and now.owner is info:
            info.methods[name] = now  # `forward = __call__`
        else:
            info.methods[name] = UNKNOWN


def _static_fields(frame: Any, body: Any, inherited: list[ClassInfo]) -> frozenset[str] | None:
    """The fields of a pytree class that are static metadata (`struct.field(pytree_node=False)`,
    `eqx.field(static=True)`); None when a field's specifier is not understood."""
    static: set[str] = set()
    for base in inherited:
        static |= base.static or frozenset()
    for stmt in body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                continue
            name = small.target.value
            static.discard(name)
            if not isinstance(small.value, cst.Call):
                continue
            spec = frame.parent.ev(small.value.func) if frame.parent is not None else UNKNOWN
            if not isinstance(spec, QualRef):
                return None
            spec_name = canonical_name(spec.name)
            if spec_name in ("dataclasses.field", "chex.field") and not any(
                a.keyword is not None and a.keyword.value == "metadata" for a in small.value.args
            ):
                continue  # a plain default
            if spec_name not in _FIELD_SPECIFIERS:
                return None
            keyword, marks = _FIELD_SPECIFIERS[spec_name]
            for a in small.value.args:
                if a.keyword is not None and a.keyword.value == keyword:
                    flag = frame.parent.ev(a.value)
                    if not (isinstance(flag, Const) and isinstance(flag.value, bool)):
                        return None
                    if flag.value is marks:
                        static.add(name)
    return frozenset(static)


def _is_classvar(ann: cst.BaseExpression) -> bool:
    head = ann.value if isinstance(ann, cst.Subscript) else ann
    return isinstance(head, cst.Name | cst.Attribute) and (
        (isinstance(head, cst.Name) and head.value == "ClassVar")
        or (isinstance(head, cst.Attribute) and head.attr.value == "ClassVar")
    )


def _decorated_dataclass(frame: Any, c: cst.ClassDef, names: tuple[str, ...] = _DATACLASS_DECORATORS) -> bool:
    for d in c.decorators:
        node = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        v = frame.parent.ev(node) if frame.parent is not None else UNKNOWN
        if isinstance(v, QualRef) and (canonical_name(v.name) in names or v.name in names):
            return True
    return False


def construct(info: ClassInfo, pos: list[Any], kw: dict[str, Any]) -> Any:
    """Calling a class: an instance with its fields bound (Unknown where the class is not field-built
    or the call does not match its fields)."""
    if info.kind != "fields" and not pos and not kw and _built_by_object(info):
        return InstanceRef(info, ())  # `Helper()`: no `__init__` of its own or inherited sets anything
    if info.kind != "fields" or len(pos) > len(info.order) or any(k not in info.order for k in kw):
        return InstanceRef(info, None) if info.kind == "fields" else UNKNOWN
    values: dict[str, Any] = {}
    for name, v in zip(info.order, pos):
        values[name] = v
    for name, v in kw.items():
        if name in values:
            return UNKNOWN  # bound twice: a TypeError at run time
        values[name] = v
    for name in info.order:
        if name not in values:
            values[name] = info.defaults.get(name, UNKNOWN)
    try:
        hash(tuple(values.items()))
    except TypeError:
        return UNKNOWN
    return InstanceRef(info, tuple(values.items()))


# library bases whose instances `object.__init__` builds: nothing set, no other constructor
_OBJECT_BASES = frozenset(
    {
        "builtins.object",
        "object",
        "abc.ABC",
        "typing.Generic",
        "typing_extensions.Generic",
        "typing.Protocol",
        "typing_extensions.Protocol",
    }
)


def _built_by_object(info: ClassInfo) -> bool:
    """A class of the program whose instances `object` builds: every base known (the program's or `abc.ABC` /
    `Generic`), no metaclass of the program's, no `__init__` / `__new__` / `__post_init__` in the hierarchy."""
    return (
        None not in info.parents
        and all(b in _OBJECT_BASES for b in info.bases)
        and not any(m in info.methods for m in ("__init__", "__new__", "__post_init__", "__getattr__"))
        and not any(m in info.classmethods or m in info.staticmethods for m in ("__new__", "__init__"))
    )


def always_truthy(info: ClassInfo) -> bool:
    """Whether every instance of the class is true (`x or default`, `if x:`): a class of the program whose
    bases are all known (the program's or `abc.ABC` / `Generic`) and none defines `__bool__` or `__len__`."""
    return (
        None not in info.parents
        and all(b in _OBJECT_BASES for b in info.bases)
        and not any(m in info.methods for m in ("__bool__", "__len__", "__getattr__"))
    )


def check_fields(f: Any, info: ClassInfo, pos: list[Any], kw: dict[str, Any], nodes: list[Any], node: Any) -> None:
    """Building a class a run-time checker decorates (`@jaxtyped(typechecker=beartype)` on an equinox module or
    dataclass) checks the arguments against the fields' annotations, as one call: a symbol has one size across
    the fields (NC302 / NC303 / NC304 at the call)."""
    from namedcheck.analyzer.scope import label
    from namedcheck.engine.signature import NORMAL, Param, Signature, apply

    params = tuple(Param(n, NORMAL, n in info.defaults, info.fields.get(n)) for n in info.order)
    bound = {**dict(zip(info.order, pos)), **kw}
    labels = {n: lab for n, a in zip(info.order, nodes) if a is not None and (lab := label(a))}
    try:
        apply(Signature(f"`{info.name}`", params), bound, NC302, labels)
    except RuleError as e:
        f.report(node, e)


def accessor_kind(fn: cst.FunctionDef) -> str:
    """ "property" for a method read as an attribute (`@property`, `@functools.cached_property`), "setter" for
    a property's setter or deleter (`@width.setter`), else ""."""
    for d in fn.decorators:
        node = d.decorator
        if isinstance(node, cst.Name) and node.value in ("property", "cached_property"):
            return "property"
        if isinstance(node, cst.Attribute) and node.attr.value == "cached_property":
            return "property"
        if isinstance(node, cst.Attribute) and node.attr.value in ("setter", "deleter"):
            return "setter"
    return ""


def pytree_children(inst: InstanceRef) -> list[tuple[str, Any]] | None:
    """A built instance of a pytree class as JAX flattens it: its non-static fields in definition order, with
    their values; None when it is not a pytree node or its fields are not known."""
    cls = inst.cls
    if cls.static is None or inst.values is None or ("",) in cls.mutated:
        return None
    values = dict(inst.values)
    if set(values) != set(cls.order):
        return None  # built by an `__init__` that set other attributes: not known how it flattens
    return [(n, UNKNOWN if (n,) in cls.mutated else values[n]) for n in cls.order if n not in cls.static]


def with_children(inst: InstanceRef, children: dict[str, Any]) -> InstanceRef:
    """The instance with its pytree children replaced (static fields kept)."""
    assert inst.values is not None
    return InstanceRef(inst.cls, tuple((k, children.get(k, v)) for k, v in inst.values))


def class_attribute(info: ClassInfo, attr: str) -> Any:
    """`Layer.abstract` (a classmethod, bound to this class), a staticmethod, a method read from the class, a
    class-body constant; Unknown otherwise."""
    from namedcheck.analyzer.refs import PartialRef

    if attr in info.classmethods:
        return PartialRef(info.classmethods[attr], (info,))
    if attr in info.staticmethods:
        return info.staticmethods[attr]
    if attr in info.methods:
        return info.methods[attr]
    if info.bases or _unseen_ancestor(info):  # an Enum's members are not their values; a library base (or one the
        return UNKNOWN  # analysis does not know) may define the attribute, or its metaclass make it something else
    return info.defaults.get(attr, UNKNOWN)


def _unseen_ancestor(info: ClassInfo, depth: int = 0) -> bool:
    """Whether a class derives, at any depth, from a base whose value the analysis does not know."""
    return depth > 20 or any(p is None or _unseen_ancestor(p, depth + 1) for p in info.parents)


def replaced(inst: Any, kw: dict[str, Any]) -> Any:
    """`dataclasses.replace(cfg, d=64)`, a flax struct's `cfg.replace(d=64)`: the instance with those fields
    rebound (Unknown where they are not its fields, or the instance is not known field by field)."""
    if not isinstance(inst, InstanceRef) or inst.values is None or inst.cls.kind != "fields":
        return UNKNOWN
    if any(k not in inst.cls.order for k in kw) or inst.cls.mutated:
        return UNKNOWN
    values = dict(inst.values)
    values.update(kw)
    try:
        hash(tuple(values.items()))
    except TypeError:
        return UNKNOWN
    return InstanceRef(inst.cls, tuple(values.items()))


_BUILDERS = {"__init__", "setup", "__post_init__", "setUp"}  # setUp: a test case's


def _methods_assign_self(body: Any) -> frozenset[tuple[str, ...]]:
    """The attribute paths of `self` a method other than the builders assigns (`self.count.value += 1`:
    `('count', 'value')`): an instance's values there may change after it is built, and are not relied on."""
    out: set[tuple[str, ...]] = set()
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in _BUILDERS:
            params = stmt.params.params
            if params:
                out |= _assigned_paths(stmt, params[0].name.value)
    return frozenset(out)


def assigned_path(target: cst.BaseExpression, name: str) -> tuple[str, ...] | None:
    """The attributes an assignment target writes through `name` (`name.x.y = ...`: `('x', 'y')`; `name.x[i] =
    ...`: `('x',)`), or None when it does not write through `name`."""
    node = target
    path: list[str] = []
    while isinstance(node, cst.Attribute | cst.Subscript):
        if isinstance(node, cst.Subscript):
            path = []  # an item of what the path so far names: that whole value changes
        else:
            path.insert(0, node.attr.value)
        node = node.value
    if not (isinstance(node, cst.Name) and node.value == name and target is not node):
        return None
    return tuple(path) if path else ("",)


_ASSIGNS: dict[tuple[int, str], tuple[cst.CSTNode, frozenset[tuple[str, ...]]]] = process_cache(
    {}
)  # (id(fn), name) -> answer


def _assigned_paths(fn: cst.FunctionDef, name: str) -> frozenset[tuple[str, ...]]:
    """The paths `fn` (nested blocks and functions included) assigns through `name`; statements only are
    walked (an expression never assigns an attribute), and the answer is kept per function."""
    hit = _ASSIGNS.get((id(fn), name))
    if hit is not None and hit[0] is fn:
        return hit[1]
    if len(_ASSIGNS) > 20000:
        _ASSIGNS.clear()
    found: list[tuple[str, ...]] = []
    _block_assigns(fn.body, name, found)
    _ASSIGNS[(id(fn), name)] = (fn, frozenset(found))
    return frozenset(found)


def paths_assigned(fn: cst.FunctionDef, name: str) -> list[tuple[str, ...]]:
    """The paths each assignment statement of `fn` (nested blocks and functions included) writes through `name`."""
    found: list[tuple[str, ...]] = []
    _block_assigns(fn.body, name, found)
    return found


def builders_assign(cls: ClassInfo) -> dict[str, int] | None:
    """How many assignments the builders (`__init__`, `setup`, `__post_init__`) of the class and its analysed
    bases write to each attribute of `self` (one to a part of it, `self.w.x = ...`, counts as two; `self.w[0] = ...`
    as one more); None where a base is not known."""
    hit = _BUILDER_COUNTS.get(id(cls))
    if hit is not None and hit[0] is cls and hit[1] == len(cls.methods):  # (methods added as the class runs)
        return hit[2]
    order = _mro(cls)
    counts: dict[str, int] = {}
    known = not any(None in c.parents for c in order)
    for c in order if known else ():
        for name in ("__init__", "setup", "__post_init__"):
            own = c.methods.get(name)
            fn = getattr(own, "node", None)
            if getattr(own, "owner", None) is not c or not isinstance(fn, cst.FunctionDef) or not fn.params.params:
                continue
            for path in paths_assigned(fn, fn.params.params[0].name.value):
                counts[path[0]] = counts.get(path[0], 0) + (1 if len(path) == 1 else 2)
    if len(_BUILDER_COUNTS) > 4096:
        _BUILDER_COUNTS.clear()
    out = counts if known else None
    _BUILDER_COUNTS[id(cls)] = (cls, len(cls.methods), out)
    return out


_BUILDER_COUNTS: dict[int, tuple[ClassInfo, int, dict[str, int] | None]] = process_cache({})


def _block_assigns(node: cst.CSTNode, name: str, found: list[tuple[str, ...]]) -> None:
    if isinstance(node, cst.SimpleStatementLine | cst.SimpleStatementSuite):
        for small in node.body:
            targets: list[cst.BaseExpression] = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target]
                if isinstance(small, cst.AugAssign | cst.AnnAssign)
                else []
            )
            while targets:
                t = targets.pop()
                if isinstance(t, cst.Tuple | cst.List):  # `self.a, self.b = ...`
                    targets.extend(e.value for e in t.elements)
                    continue
                path = assigned_path(t, name)
                if path is not None:
                    found.append(path)
        return
    for c in node.children:
        if isinstance(
            c,
            cst.BaseStatement
            | cst.BaseSuite
            | cst.BaseCompoundStatement
            | cst.ExceptHandler
            | cst.Else
            | cst.Finally
            | cst.MatchCase
            | cst.ExceptStarHandler,
        ):
            _block_assigns(c, name, found)


def instance_of(inst: InstanceRef, types: Any) -> Any:
    """`isinstance(inst, C)` for classes of the program (a tuple of them too): True when one is in the instance's
    class hierarchy; False when none is and the instance was built from a known class (not `self`, which may be
    a subclass's) whose bases are all known. Unknown otherwise."""
    wanted = types.items if isinstance(types, Seq) and types.kind == "tuple" else (types,)
    if not wanted or not all(isinstance(c, ClassInfo) for c in wanted):
        return UNKNOWN
    mro = _mro(inst.cls)
    if any(c in mro for c in wanted):
        return Const(True)
    exact = inst.values is not None and all(None not in c.parents for c in mro if isinstance(c, ClassInfo))
    return Const(False) if exact else UNKNOWN


def is_super(node: cst.BaseExpression) -> bool:
    """`super()` (the zero-argument form)."""
    return (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super" and not node.args
    )


def _mro(cls: ClassInfo) -> list[ClassInfo]:
    """The class and its analysed bases, depth first, left to right, each once (C3 where no base is shared)."""
    out: list[ClassInfo] = []
    todo = [cls]
    while todo:
        c = todo.pop(0)
        if c is None:
            break  # a base not known: what follows in the order is not known
        if c not in out:
            out.append(c)
            todo[:0] = list(c.parents)
    return out


def super_method(f: Any, attr: str) -> Any:
    """`super().attr` in a method analysed under a call: the method of the next class after the one defining the
    running method, in the instance's class order, bound to the instance; Unknown where a base is not analysed
    (a library's) or the method is not found."""
    code = getattr(f, "code", None)
    if not isinstance(code, cst.FunctionDef) or not code.params.params:
        return UNKNOWN
    me = f.lookup(code.params.params[0].name.value)
    if not isinstance(me, InstanceRef | BuildingRef):
        return UNKNOWN
    order = _mro(me.cls)
    if any(None in c.parents for c in order):
        return UNKNOWN  # a base the analysis does not know may define it first
    owners = [i for i, c in enumerate(order) if any(getattr(m, "node", None) is code for m in c.methods.values())]
    if not owners:
        return UNKNOWN
    for c in order[owners[-1] + 1 :]:
        own = c.methods.get(attr)
        if own is not None:
            return PartialRef(own, (me,))
    return UNKNOWN
