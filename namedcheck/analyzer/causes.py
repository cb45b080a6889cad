"""Why a value is Unknown: the first construct that lost it (`Cause`: a kind, a short label, the node where
it happened). The coverage counter (analyzer/coverage.py) gives each expression evaluated to a lost value
(Unknown, an array whose rank or a size is not known, a container holding one) a cause: one noted where the
value was lost (`note`), else that of the first lost part it was computed from (`inherited`: an operand, an
argument, the callee, a name's binding), else the expression itself (`origin`). Causes never change a value
or a verdict; they are recorded only for the checked file (and cost a few dictionary look-ups per lost value).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from namedcheck.analyzer.parsing import child_nodes
from namedcheck.analyzer.refs import (
    BuildingRef,
    ClassInfo,
    FuncRef,
    HaikuTransformed,
    InstanceRef,
    LayerRef,
    MethodRef,
    ModuleMethodRef,
    PartialRef,
    QualRef,
)
from namedcheck.analyzer.scope import label as render
from namedcheck.engine.names import METHODS, canonical_name
from namedcheck.engine.values import UNKNOWN, ArrayType, Seq

# kinds
UNMODELLED = "unmodelled call"  # a jax / numpy / flax / equinox function with no rule
LIBRARY = "library"  # a function of another library with no model
UNKNOWN_IMPORT = "unknown import"  # a name of a project module that does not define it
OP_RULE = "op rule"  # a modelled op whose rule gives no full shape for what it was given
UNREAD = "unread argument"  # an argument the model does not read (so the result is not known)
PYTHON = "python form"  # a Python construct the interpreter does not model
PARAMETER = "parameter"  # a parameter of a function analysed on its own (no annotation, no known call)
UNKNOWN_NAME = "unknown name"  # a name bound nowhere the analysis sees (a global, a builtin)
CALLEE = "unknown callee"  # a call of a value not known to be a function
ATTRIBUTE = "attribute"  # an attribute not known
MODULE = "module call"  # a model's call, `init` or `apply` whose result is not known
FUNCTION = "function"  # a function of another module whose result is not known
REPORTED = "reported error"  # an op that failed with a diagnostic
BUDGET = "analysis bound"  # a call not analysed (depth, recursion, the step budget)

# top-level packages whose functions are the engine's to model (the rest are other libraries)
_MODELLED_FAMILY = ("jax", "numpy", "flax", "equinox", "builtins", "operator", "math")


@dataclass(frozen=True, slots=True, eq=False)
class Cause:
    """The first construct that lost a value: what kind, a short label, and where (`node`, in the checked file
    or one of its project's modules)."""

    kind: str
    label: str  # what the ranking groups by (`haiku.Linear`, `**kwargs call`, `unannotated parameter`)
    node: cst.CSTNode | None = None
    detail: str = ""  # which one, where the label is a group (`f(x)`, `Block.w`): for hover
    owner: Any = None  # an instance attribute's class, and the attribute (`settled`)
    attr: str = ""

    def settled(self) -> Cause:
        """An instance attribute's cause once the analysis is over: what the complete class says of the
        attribute (a method read it while an analysis of its class's body was still running: its methods and
        builders may not all have been seen)."""
        if self.owner is None or self.node is None:
            return self
        return _classified(self.owner, self.attr, self.node)

    def describe(self) -> str:
        return f"{self.kind}: {self.label}" + (f" (`{self.detail}`)" if self.detail else "")


def lost(value: Any) -> bool:
    """Unknown, an array whose rank or a size is not known, or a tuple / list / dict holding such an item."""
    if value is UNKNOWN:
        return True
    if isinstance(value, ArrayType):
        return value.has_ellipsis or not all(isinstance(d, int | str) for d in value.shape)
    if type(value) is Seq:
        for item in value.items:
            if value.kind == "dict" and type(item) is Seq and len(item.items) == 2:
                item = item.items[1]
            if item is UNKNOWN or (type(item) is ArrayType and lost(item)):
                return True
    return False


def parts(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """The sub-expressions a value is computed from, in the order their loss is blamed: the receiver or
    callee, then operands and arguments."""
    t = type(node)
    if t is cst.Call:
        assert isinstance(node, cst.Call)
        if type(node.func) is cst.Attribute:  # `x.reshape(...)`: the receiver too
            return (node.func, node.func.value, *(a.value for a in node.args))
        return (node.func, *(a.value for a in node.args))
    if t is cst.Attribute:
        assert isinstance(node, cst.Attribute)
        return (node.value,)
    if t is cst.BinaryOperation:
        assert isinstance(node, cst.BinaryOperation)
        return (node.left, node.right)
    if t is cst.UnaryOperation:
        assert isinstance(node, cst.UnaryOperation)
        return (node.expression,)
    if t is cst.Subscript:
        assert isinstance(node, cst.Subscript)
        return (node.value, *(e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)))
    if t is cst.Tuple or t is cst.List or t is cst.Set:
        return tuple(e.value for e in node.elements)  # type: ignore[attr-defined]
    if t is cst.Dict:
        assert isinstance(node, cst.Dict)
        return tuple(e.value for e in node.elements)
    if t is cst.Comparison:
        assert isinstance(node, cst.Comparison)
        return (node.left, *(c.comparator for c in node.comparisons))
    if t is cst.IfExp:
        assert isinstance(node, cst.IfExp)
        return (node.body, node.orelse)
    if t is cst.BooleanOperation:
        assert isinstance(node, cst.BooleanOperation)
        return (node.left, node.right)
    if t is cst.NamedExpr:
        assert isinstance(node, cst.NamedExpr)
        return (node.value,)
    if t is cst.ListComp or t is cst.GeneratorExp or t is cst.SetComp:
        return (node.elt,)  # type: ignore[attr-defined]
    if t is cst.DictComp:
        assert isinstance(node, cst.DictComp)
        return (node.value,)
    return ()


def of_name(frame: Any, node: cst.Name) -> Cause:
    """A name's cause: that of the value its binding was given, else what left it unknown."""
    name = node.value
    f = frame
    while f is not None:
        if name in f.vars:
            got = f.lost.get(name)
            return got if got is not None else Cause(PYTHON, "value joined over a loop or branches", node)
        f = f.parent
    return _unbound(frame, node)


def _unbound(frame: Any, node: cst.Name) -> Cause:
    """A name no frame binds: an import of a project module that does not define it, else a name unknown."""
    imported = frame.an.imports.get(node.value)
    if isinstance(imported, str):
        return Cause(UNKNOWN_IMPORT, imported, node)
    return Cause(UNKNOWN_NAME, node.value, node)


def name_if_lost(frame: Any, node: cst.Name) -> Cause | None:
    """The cause of a name read in `frame`, where its binding there (or in an enclosing frame) is lost."""
    name = node.value
    f = frame
    while f is not None:
        if name in f.vars:
            if not lost(f.vars[name]):
                return None
            got = f.lost.get(name)
            return got if got is not None else Cause(PYTHON, "value joined over a loop or branches", node)
        f = f.parent
    return None


def origin(
    node: cst.CSTNode, value: Any, frame: Any, called: tuple[Any, ...] | None, returned: dict[int, Cause]
) -> Cause:
    """The cause of a lost value that none of its parts explains: the expression itself. `called`: the
    callee value and whether every argument was read, where `node` is the call just made; `returned`:
    the causes of functions' lost return values (by their definition's node)."""
    if type(node) is cst.Call:
        if called is None:
            return Cause(PYTHON, _call_label(node), node)
        func, ok = called
        if not ok and func is not UNKNOWN:
            star = "**kwargs call" if any(a.star == "**" for a in node.args) else "*args call"
            return Cause(PYTHON, star, node)
        return _called(node, func, frame, returned)
    if type(node) is cst.Name:
        return of_name(frame, node)
    if type(node) is cst.Attribute:
        return _attribute(node, frame)
    if type(node) is cst.Subscript:
        return Cause(PYTHON, "item of a container", node)
    if type(node) is cst.BinaryOperation or type(node) is cst.UnaryOperation:
        return Cause(OP_RULE, type(node.operator).__name__, node)
    if type(node) in (cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp):
        return Cause(PYTHON, "comprehension", node)
    if type(node) is cst.Yield:
        return Cause(PYTHON, "yield", node)
    if type(node) is cst.IfExp:
        return Cause(PYTHON, "conditional expression", node)
    if type(node) is cst.BooleanOperation:
        return Cause(PYTHON, "and / or", node)
    if type(node) is cst.Dict:
        return Cause(PYTHON, "dict with ** items", node)
    if type(node) in (cst.Tuple, cst.List):
        return Cause(PYTHON, "starred item", node)
    return Cause(PYTHON, type(node).__name__, node)


def _attribute(node: cst.Attribute, frame: Any) -> Cause:
    attr = node.attr.value
    counter = frame.an.coverage
    recv = counter.receiver if counter is not None and counter.receiver[0] is node.value else None
    value = recv[1] if recv is not None else None
    if isinstance(value, InstanceRef | BuildingRef):
        return _instance_attribute(value.cls, attr, node)
    if isinstance(value, ClassInfo):
        return Cause(ATTRIBUTE, "class attribute not known", node, f"{value.name}.{attr}")
    if isinstance(value, ArrayType):
        return Cause(UNMODELLED, f"array.{attr}", node)
    kind = type(value).__name__ if value is not None else "value"
    return Cause(ATTRIBUTE, f"attribute of a {kind}", node, render(node) or f".{attr}")


def _instance_attribute(cls: ClassInfo, attr: str, node: cst.CSTNode) -> Cause:
    c = _classified(cls, attr, node)
    return Cause(c.kind, c.label, c.node, c.detail, cls, attr)


def _classified(cls: ClassInfo, attr: str, node: cst.CSTNode) -> Cause:
    """An attribute of an instance not known: a field, one a method assigns, one of a library base class."""
    where = f"{cls.name}.{attr}"
    if attr in cls.fields or attr in cls.order:
        return Cause(ATTRIBUTE, "field without a known value", node, where)
    setter = _setters(cls).get(attr)
    if setter is not None:
        label = f"attribute set in {setter}()" if setter in ("setup", "__init__") else "attribute set in a method"
        return Cause(ATTRIBUTE, label, node, where)
    if cls.bases:
        return Cause(LIBRARY, f"{cls.bases[0]}.{attr}", node, where)
    return Cause(ATTRIBUTE, "attribute the class does not define", node, where)


_SETTERS: dict[int, tuple[ClassInfo, int, dict[str, str]]] = {}


def _setters(cls: ClassInfo) -> dict[str, str]:
    """Attribute -> the first method (`setup` and `__init__` first) assigning `self.<attribute>` in the class."""
    hit = _SETTERS.get(id(cls))
    if hit is not None and hit[0] is cls and hit[1] == len(cls.methods):  # (methods added as the class runs)
        return hit[2]
    out: dict[str, str] = {}
    methods = sorted(cls.methods.items(), key=lambda kv: kv[0] not in ("setup", "__init__"))
    for name, ref in methods:
        fn = getattr(ref, "node", None)
        if not isinstance(fn, cst.FunctionDef) or not fn.params.params:
            continue
        me = fn.params.params[0].name.value
        for target in _assigned(fn):
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == me:
                out.setdefault(target.attr.value, name)
    if len(_SETTERS) > 256:
        _SETTERS.clear()
    _SETTERS[id(cls)] = (cls, len(cls.methods), out)
    return out


def _assigned(fn: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The targets of the assignment statements in a function's body, at any depth (nested functions too)."""
    found: list[cst.BaseExpression] = []
    todo: list[cst.CSTNode] = [fn.body]
    while todo:
        node = todo.pop()
        t = type(node)
        if t is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                e = target.target
                found.extend(x.value for x in e.elements) if type(e) in (cst.Tuple, cst.List) else found.append(e)
        elif t is cst.AnnAssign:
            found.append(node.target)  # type: ignore[attr-defined]
        elif t is cst.Expr or t in _EXPRESSIONS:
            continue  # no statements inside (a lambda's body is an expression)
        else:
            todo.extend(child_nodes(node))
    return found


_EXPRESSIONS = (cst.Call, cst.Name, cst.Attribute, cst.Subscript, cst.BinaryOperation, cst.Return, cst.Raise)


def _called(node: cst.Call, func: Any, frame: Any, returned: dict[int, Cause]) -> Cause:
    inner = func.args[0] if isinstance(func, PartialRef) and func.args else None
    if isinstance(inner, HaikuTransformed) or (isinstance(inner, FuncRef) and _HAIKU_RUNS == _qual(func)):
        func = inner.func if isinstance(inner, HaikuTransformed) else inner  # haiku's init / apply: f's return
    while isinstance(func, PartialRef):
        func = func.func
    if isinstance(func, QualRef):
        return _library(canonical_name(func.name), frame, node)
    if isinstance(func, MethodRef):
        if isinstance(func.receiver, ArrayType):
            op = METHODS.get(func.name)
            if op is None or op not in frame.an.ops:
                return Cause(UNMODELLED, f"array.{func.name}", node)
            return Cause(OP_RULE, op, node)
        return Cause(CALLEE, _call_label(node), node)
    if isinstance(func, FuncRef):
        got = returned.get(id(func.node))
        return got if got is not None else Cause(FUNCTION, func.name, node)
    if isinstance(func, InstanceRef | BuildingRef):
        call = func.cls.methods.get("__call__")
        got = returned.get(id(call.node)) if isinstance(call, FuncRef) else None
        return got if got is not None else Cause(MODULE, f"{func.cls.name}.__call__", node)
    if isinstance(func, LayerRef):
        return Cause(MODULE, getattr(func, "name", None) or _call_label(node), node)
    if isinstance(func, ModuleMethodRef):
        return Cause(MODULE, _call_label(node), node)
    if isinstance(func, ClassInfo):
        return Cause(PYTHON, f"{func.name}(...)", node)
    if func is UNKNOWN:
        if type(node.func) is cst.Name:
            c = _unbound(frame, node.func)
            return Cause(c.kind, c.label, node)
        return Cause(CALLEE, _call_label(node), node)
    return Cause(CALLEE, f"{_call_label(node)} ({type(func).__name__})", node)


_HAIKU_RUNS = "<haiku>.in_run"  # `@hk.testing.transform_and_run`'s function


def _qual(func: PartialRef) -> str:
    return func.func.name if isinstance(func.func, QualRef) else ""


def _library(name: str, frame: Any, node: cst.CSTNode) -> Cause:
    if name in frame.an.ops:
        return Cause(OP_RULE, name, node)
    top = name.split(".", 1)[0]
    project = getattr(frame.an, "project", None)
    if project is not None and project.owns(name):
        return Cause(UNKNOWN_IMPORT, name, node)
    return Cause(UNMODELLED if top in _MODELLED_FAMILY else LIBRARY, name, node)


def _call_label(node: cst.Call) -> str:
    inner = render(node.func)
    return f"{inner}(...)" if inner else "call"


def note(frame: Any, node: cst.CSTNode, kind: str, label: str) -> None:
    """Where the analysis itself knows why it lost `node`'s value (before `ev` sees it)."""
    counter = frame.an.coverage
    if counter is not None:
        counter.noted[id(node)] = Cause(kind, label, node)


def binding(frame: Any, source: cst.CSTNode | None, form: str, target: cst.CSTNode | None) -> Any:
    """Sets what the names bound next in `frame` take their cause from: the expression they are given
    (`source`), else the Python form that binds them (`form`: a `for` target, tuple unpacking); returns the
    setting it replaced, for `restore`."""
    counter = frame.an.coverage
    if counter is None:
        return None
    prev = (counter.source, counter.form, counter.form_node)
    counter.source, counter.form, counter.form_node = source, form, target
    return prev


def restore(frame: Any, prev: Any) -> None:
    if prev is not None:
        counter = frame.an.coverage
        counter.source, counter.form, counter.form_node = prev


def parameters(frame: Any, ref: Any, standalone: bool, arguments: dict[str, cst.CSTNode]) -> None:
    """The causes of a function's parameters bound to lost values: the argument's at the call site (where
    this file's analysis saw it), else the parameter itself."""
    counter = frame.an.coverage
    node = ref.node
    where: dict[str, cst.CSTNode] = {}
    if isinstance(node, cst.FunctionDef | cst.Lambda):
        ps = node.params
        for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params):
            where[p.name.value] = p
        for star, text in ((ps.star_arg, "*args parameter"), (ps.star_kwarg, "**kwargs parameter")):
            if isinstance(star, cst.Param):
                where[star.name.value] = star
                if star.name.value in frame.vars and lost(frame.vars[star.name.value]):
                    frame.lost[star.name.value] = Cause(PYTHON, text, star)
    for name, value in frame.vars.items():
        if name in frame.lost or not lost(value):
            continue
        arg = arguments.get(name)
        c = counter.cause_of(arg, counter.caller) if arg is not None and counter.caller is not None else None
        if c is None:
            of = "method" if getattr(ref, "owner", None) is not None else "function"
            label = f"unannotated parameter of a {of}" if standalone else "argument of a call in another module"
            c = Cause(PARAMETER, label, where.get(name, node), f"{ref.name}({name})")
        frame.lost[name] = c
