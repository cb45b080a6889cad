"""Instance attributes the class's builder sets: `self.w` in a method analysed on its own (or of an instance built
with arguments not known) is what `__init__` (a flax linen module's `setup`) assigns there, where that is the
only assignment to it: on every path (an assignment under a condition is Unknown), once, in the builders only
(not by another method, not as a class-body default). The builder runs as analysed on its own, so sizes computed
from its parameters are not known here: their symbols name the builder's parameters (or its `self`), not the
reading method's names, and are dropped. An instance built with known arguments (`M(3, 4)`) holds the exact
values instead (analyzer/nn_modules.construct)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import causes, classes, nn_modules
from namedcheck.analyzer.memo import process_cache
from namedcheck.analyzer.parsing import walk
from namedcheck.analyzer.refs import FuncRef, InitializerRef, InstanceRef, LayerRef, PartialRef, QualRef
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, DtypeRef, Seq


def builder_attribute(f: Any, inst: InstanceRef, attr: str, node: cst.CSTNode) -> Any:
    """What the builder of `inst`'s class assigns to `attr` (see the module's docstring); None when not known."""
    cls = inst.cls
    if inst.values is not None or f.an.log.models:  # built here; or a flax init / apply collecting parameters
        return None
    name = "setup" if nn_modules.is_linen(cls) else "__init__"
    builder = cls.methods.get(name)
    if not isinstance(builder, FuncRef) or not isinstance(builder.node, cst.FunctionDef):
        return None
    if not builder.node.params.params or attr in cls.defaults:
        return None
    if any(path[0] in (attr, "") for path in cls.mutated):  # assigned by another method, or by the program
        return None
    counts = classes.builders_assign(cls)
    if counts is None or counts.get(attr) != 1:
        return None
    an = getattr(builder.scope, "an", None)
    for module in {id(m): m for m in (getattr(an, "module", None), getattr(f.an, "module", None))}.values():
        if not isinstance(module, cst.Module):
            return None
        by_subclass, outside = _assigned_elsewhere(module)  # (the class's module, and the reading one)
        if attr in outside or attr in by_subclass.get(cls.name, ()):
            return None  # set from outside the class, or otherwise by a subclass (`self` may be one of its instances)
    built = an.built_by(builder, cls) if an is not None else None
    value = dict(built).get(attr) if built is not None else None
    if value is None:
        return None
    out = _unscoped(value)
    if out is None or out is UNKNOWN:
        return None
    if causes.lost(out) and not causes.lost(value):
        causes.note(f, node, causes.PARAMETER, f"size from a parameter of {name}() (instance attribute)")
    return out


_ELSEWHERE: dict[int, tuple[cst.Module, dict[str, frozenset[str]], frozenset[str]]] = process_cache({})


def _assigned_elsewhere(module: cst.Module) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """What may change an instance's attributes after its builder ran, by the module's text (kept per module):
    class name -> the attributes of `self` the methods of the module's classes deriving from it (by the base's
    name, at any depth) assign; and the attribute names assigned through anything but `self` (`model.linear =
    ...`, `setattr(m, 'w', ...)`, `object.__setattr__`, the path of an `eqx.tree_at(lambda m: m.w, ...)`)."""
    hit = _ELSEWHERE.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1], hit[2]
    children: dict[str, list[str]] = {}
    sets: dict[str, set[str]] = {}
    outside: set[str] = set()
    for n in walk(module):
        t = type(n)
        if t is cst.ClassDef:
            assert isinstance(n, cst.ClassDef)
            for b in n.bases:
                base = (
                    b.value.value
                    if isinstance(b.value, cst.Name)
                    else getattr(getattr(b.value, "attr", None), "value", None)
                )
                if isinstance(base, str):
                    children.setdefault(base, []).append(n.name.value)
            own = sets.setdefault(n.name.value, set())
            for stmt in n.body.body if isinstance(n.body, cst.IndentedBlock) else ():
                if isinstance(stmt, cst.FunctionDef) and stmt.params.params:
                    own |= {path[0] for path in classes.paths_assigned(stmt, stmt.params.params[0].name.value)}
        elif t is cst.Assign or t is cst.AugAssign or t is cst.AnnAssign:
            targets = [a.target for a in n.targets] if isinstance(n, cst.Assign) else [n.target]  # type: ignore[attr-defined]
            while targets:
                e = targets.pop()
                if isinstance(e, cst.Tuple | cst.List):
                    targets.extend(x.value for x in e.elements)
                elif not _through_self(e):
                    outside |= _attributes(e)
        elif t is cst.Call:
            assert isinstance(n, cst.Call)
            func = n.func.attr.value if isinstance(n.func, cst.Attribute) else getattr(n.func, "value", None)
            if func == "tree_at" and n.args and isinstance(n.args[0].value, cst.Lambda):
                outside |= _attributes(n.args[0].value.body, every=True)
            elif func in ("setattr", "__setattr__"):
                outside |= {a.value.raw_value for a in n.args if isinstance(a.value, cst.SimpleString)}
    by_subclass: dict[str, frozenset[str]] = {}
    for name in children:
        found: set[str] = set()
        seen = {name}
        todo = list(children[name])
        while todo:
            sub = todo.pop()
            if sub in seen:
                continue
            seen.add(sub)
            found |= sets.get(sub, set())
            todo.extend(children.get(sub, ()))
        by_subclass[name] = frozenset(found)
    if len(_ELSEWHERE) > 256:
        _ELSEWHERE.clear()
    _ELSEWHERE[id(module)] = (module, by_subclass, frozenset(outside))
    return by_subclass, frozenset(outside)


def _through_self(target: cst.BaseExpression) -> bool:
    """`self.<...> = ...` (what the class's own methods assign is known from them)."""
    while isinstance(target, cst.Attribute | cst.Subscript):
        target = target.value
    return isinstance(target, cst.Name) and target.value == "self"


def _attributes(node: cst.BaseExpression, every: bool = False) -> set[str]:
    """The attribute names along an assignment target's chain (`a.b[0].c`: b, c); `every`: in any expression."""
    if every:
        return {x.attr.value for x in walk(node) if isinstance(x, cst.Attribute)}
    out: set[str] = set()
    while isinstance(node, cst.Attribute | cst.Subscript):
        if isinstance(node, cst.Attribute):
            out.add(node.attr.value)
        node = node.value
    return out


def _unscoped(v: Any) -> Any:
    """`v` as a value of another scope: its symbolic sizes not known; None for a value that could carry the builder's names in another form (a closure of the builder, ...)."""
    if isinstance(v, ArrayType):
        shape = tuple(_dim(d) for d in v.shape)
        named = tuple((k, _dim(d)) for k, d in v.named)
        return v if shape == v.shape and named == v.named else replace(v, shape=shape, named=named)
    if isinstance(v, DimVal):
        d = _dim(v.dim)
        return v if d == v.dim else DimVal(d)
    if isinstance(v, Const | DtypeRef | QualRef | InitializerRef):
        return v
    if isinstance(v, Seq):
        items = tuple(_unscoped(i) for i in v.items)
        if any(i is None for i in items):
            return None
        sizes = tuple(_dim(d) for d in v.sizes) if v.sizes is not None else None
        return Seq(items, v.kind, sizes)
    if isinstance(v, LayerRef):
        ctor = tuple((k, _unscoped(x)) for k, x in v.ctor)
        return None if any(x is None for _, x in ctor) else LayerRef(v.op, ctor, v.node)
    if isinstance(v, InstanceRef):
        if v.values is None:
            return v
        values = tuple((k, _unscoped(x)) for k, x in v.values)
        return None if any(x is None for _, x in values) else InstanceRef(v.cls, values)
    if isinstance(v, PartialRef) and isinstance(v.func, QualRef):  # `functools.partial(nn.gelu, approximate=False)`
        args = tuple(_unscoped(x) for x in v.args)
        kwargs = tuple((k, _unscoped(x)) for k, x in v.kwargs)
        if any(x is None for x in args) or any(x is None for _, x in kwargs):
            return None
        return PartialRef(v.func, args, kwargs)
    if isinstance(v, FuncRef) and getattr(v.scope, "parent", True) is None:  # a module-level function
        return v
    if v is UNKNOWN:
        return UNKNOWN
    return None


def _dim(d: Any) -> Any:
    """A size as seen from another scope: an int, else not known."""
    return d if isinstance(d, int) else None
