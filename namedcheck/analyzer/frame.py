"""One scope's abstract interpretation: statements update an environment of engine values,
expressions become engine calls. Engine failures are reported at the expression that broke a rule."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import libcst as cst

from namedcheck.analyzer import mapcalls
from namedcheck.analyzer.literals import ANNOTATION_HEADS, NotALiteral, literal_value, parse_annotation_subscript
from namedcheck.analyzer.refs import (
    ClassInfo,
    DevicesVal,
    FuncRef,
    GradRef,
    InstanceRef,
    MappedRef,
    MeshVal,
    MethodRef,
    PartialRef,
    QualRef,
    TypeAlias,
)
from namedcheck.engine import ops as engine_ops
from namedcheck.engine.algebra import dim_arith, is_number
from namedcheck.engine.attributes import array_attribute, length, size_value
from namedcheck.engine.dtypes import ALIASES
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import EMPTY_ENV, AxisEnv, scan_slice
from namedcheck.engine.names import METHODS, OPERATORS, VARARG_METHODS, canonical_name
from namedcheck.engine.ops.transforms import grad_type
from namedcheck.engine.signature import compare_declared
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, DtypeRef, Seq, literal

if TYPE_CHECKING:
    from namedcheck.analyzer.module import ModuleAnalyzer

_DTYPE_MODULES = {"jax.numpy", "numpy", "jax.dtypes"}
_TRANSPARENT = {"jax.jit", "jax.checkpoint", "jax.remat", "jax.named_call", "namedcheck.checked",
                "jax.ad_checkpoint.checkpoint", "functools.wraps"}
_BUILTIN_DTYPES = {"float": "f32", "int": "i32", "bool": "bool_", "complex": "c64"}


class _Dyn:
    """A slice bound that is not statically known."""

    def __repr__(self) -> str:
        return "?"


DYN = _Dyn()


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


def _has_array(v: Any) -> bool:
    return isinstance(v, ArrayType) or (isinstance(v, Seq) and v.kind == "tuple"
                                        and any(isinstance(i, ArrayType) for i in v.items))


class Frame:
    """A function body (or the module body) being analysed."""

    def __init__(self, an: ModuleAnalyzer, parent: Frame | None, declared_return: Any = None,
                 lenient: bool = False, quiet: bool = False, env: AxisEnv | None = None,
                 function: FuncRef | None = None) -> None:
        self.an = an
        self.parent = parent
        self.vars: dict[str, Any] = {}
        self.declared_return = declared_return
        self.returns: list[Any] = []
        self.lenient = lenient  # analysing under a call's types: extra named axes are lifted, not wrong
        # Under a call's types, a branch may be infeasible for those types (`if np.ndim(b) == 1:`), so
        # conditional code reports nothing there; straight-line code does.
        self.quiet = quiet
        self.cond_depth = 0
        # named axes, mesh and manual axes in scope (inherited from the defining or calling frame)
        self.env: AxisEnv = env if env is not None else (parent.env if parent is not None else EMPTY_ENV)
        self.function = function  # the function analysed standalone, for NC705's escape check
        self.class_info: ClassInfo | None = None  # set on a class body's frame

    @property
    def silent(self) -> bool:
        return self.quiet or (self.lenient and self.cond_depth > 0)

    # ---- names -------------------------------------------------------------------------------
    def forget_if_mutable(self, node: cst.BaseExpression, any_value: bool = False) -> None:
        """A list or dict held in a variable that something may mutate (a method call such as
        `.append`, an item assignment, passing it to a function) is no longer known."""
        if not isinstance(node, cst.Name):
            return
        f: Frame | None = self
        while f is not None:
            if node.value in f.vars:
                v = f.vars[node.value]
                if any_value or (isinstance(v, Seq) and v.kind in ("list", "dict")):
                    f.vars[node.value] = UNKNOWN
                return
            f = f.parent

    def lookup(self, name: str) -> Any:
        f: Frame | None = self
        while f is not None:
            if name in f.vars:
                return f.vars[name]
            f = f.parent
        if name in self.an.imports:
            return QualRef(self.an.imports[name])
        if name in _BUILTIN_DTYPES:
            return DtypeRef(_BUILTIN_DTYPES[name])
        if name in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[name])
        if name in ("len", "range", "print", "isinstance", "tuple", "list"):
            return QualRef(f"builtins.{name}")
        return UNKNOWN

    def report(self, node: cst.CSTNode, err: RuleError) -> None:
        if self.silent:
            return
        if err.code == "NC705" and self.function is not None:
            self.an.defer_unbound_name(self.function, node, err)  # it may yet be called under a map
            return
        self.an.report(node, err)

    # ---- statements ----------------------------------------------------------------------------
    def run_block(self, body: Any) -> None:
        stmts = body.body if isinstance(body, (cst.IndentedBlock, cst.Module)) else (
            body.body if isinstance(body, cst.SimpleStatementSuite) else body)
        for s in stmts:
            self.run_stmt(s)

    def run_stmt(self, s: cst.CSTNode) -> None:
        if isinstance(s, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in s.body:
                self.run_small(small)
        elif isinstance(s, cst.FunctionDef):
            self.define_function(s)
        elif isinstance(s, cst.ClassDef):
            self.define_class(s)
        elif isinstance(s, cst.If):
            self.ev(s.test)
            self.branches([s.body, s.orelse])
        elif isinstance(s, cst.For):
            it = self.ev(s.iter)
            elem = UNKNOWN
            if isinstance(it, ArrayType):
                elem = scan_slice(it)  # iterating an array walks its leading dimension
            self.loop(s, lambda f: f.assign(s.target, elem))
        elif isinstance(s, cst.While):
            self.ev(s.test)
            self.loop(s, lambda f: None)
        elif isinstance(s, cst.With):
            saved = self.env
            for item in s.items:
                v = self.ev(item.item)
                if isinstance(v, MeshVal):  # `with Mesh(...)`, `with jax.set_mesh(mesh)`
                    self.env = replace(self.env, mesh=v.info)
                if item.asname is not None:
                    self.assign(item.asname.name, v if isinstance(v, (ArrayType, MeshVal)) else UNKNOWN)
            self.run_block(s.body)
            self.env = saved
        elif isinstance(s, cst.Try | cst.TryStar):
            self.run_block(s.body)
            self.cond_depth += 1
            for h in s.handlers:
                if h.name is not None:
                    self.assign(h.name.name, UNKNOWN)
                self.run_block(h.body)
            self.cond_depth -= 1
            if s.orelse is not None:
                self.run_block(s.orelse.body)
            if s.finalbody is not None:
                self.run_block(s.finalbody.body)
        # Match and anything else: not analysed (Unknown is silent)

    def branches(self, blocks: list[Any]) -> None:
        """Analyse alternatives on copies of the environment; merge, keeping only what agrees."""
        before = dict(self.vars)
        results = []
        self.cond_depth += 1
        for b in blocks:
            self.vars = dict(before)
            if b is None:
                pass
            elif isinstance(b, cst.If):
                self.ev(b.test)
                self.branches([b.body, b.orelse])
            elif isinstance(b, cst.Else):
                self.run_block(b.body)
            else:
                self.run_block(b)
            results.append(self.vars)
        self.cond_depth -= 1
        merged: dict[str, Any] = {}
        for k in set().union(*results):
            vals = [r.get(k, before.get(k, UNKNOWN)) for r in results]
            merged[k] = vals[0] if all(same_value(v, vals[0]) for v in vals) else UNKNOWN
        self.vars = merged

    def loop(self, s: cst.For | cst.While, bind_target: Any) -> None:
        before = dict(self.vars)
        bind_target(self)
        self.run_block(s.body)
        changed = {k for k in before if k in self.vars and not same_value(before[k], self.vars[k])}
        if changed:
            for k in self.vars:
                if k in changed or k not in before:
                    self.vars[k] = UNKNOWN
        if s.orelse is not None:
            self.run_block(s.orelse.body)

    def run_small(self, s: cst.BaseSmallStatement) -> None:
        if isinstance(s, cst.Assign):
            v = self.ev(s.value)
            self.an.reveal(s, v)
            for t in s.targets:
                self.assign(t.target, v)
        elif isinstance(s, cst.AnnAssign):
            declared = self.annotation(s.annotation.annotation)
            if s.value is not None:
                v = self.ev(s.value)
                self.an.reveal(s, v)
                self.check_declared(declared, v, s.value, f"`{label(s.target) or 'the target'}`")
            else:
                v = UNKNOWN
            self.assign(s.target, declared if isinstance(declared, (ArrayType, Seq)) else v)
        elif isinstance(s, cst.AugAssign):
            op = OPERATORS.get(type(s.operator).__name__.replace("Assign", ""))
            left, right = self.ev(s.target), self.ev(s.value)
            v = self.apply_op(op, [left, right], [s.target, s.value], s) if op else UNKNOWN
            self.assign(s.target, v)
        elif isinstance(s, cst.Return):
            v = self.ev(s.value) if s.value is not None else Const(None)
            self.returns.append(v)
            if s.value is not None:
                self.check_declared(self.declared_return, v, s.value, "the return value")
        elif isinstance(s, cst.Expr):
            self.ev(s.value)
        elif isinstance(s, cst.Assert):
            self.ev(s.test)
        elif isinstance(s, cst.Import | cst.ImportFrom):
            self.an.add_import(s)
        elif isinstance(s, cst.Del):
            pass

    def check_declared(self, declared: Any, v: Any, node: cst.CSTNode, what: str) -> None:
        if declared is None:
            return
        try:
            compare_declared(declared, v, what, lifted_ok=self.lenient)
        except RuleError as e:
            self.report(node, e)

    def assign(self, target: cst.BaseExpression, v: Any) -> None:
        if isinstance(target, cst.Name):
            self.vars[target.value] = v
        elif isinstance(target, cst.Tuple | cst.List):
            elems = target.elements
            if isinstance(v, Seq) and len(v.items) == len(elems) and not any(
                    isinstance(e, cst.StarredElement) for e in elems):
                for e, item in zip(elems, v.items):
                    self.assign(e.value, item)
            else:
                for e in elems:
                    self.assign(e.value, UNKNOWN)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, UNKNOWN)
        elif isinstance(target, cst.Subscript):
            self.forget_if_mutable(target.value)  # `xs[0] = ...`, `d['k'] = ...`
        elif isinstance(target, cst.Attribute) and target.attr.value in ("shape", "dtype"):
            self.forget_if_mutable(target.value, any_value=True)  # numpy: `a.shape = (2, 3)`
        # other attributes: state we do not track

    def define_class(self, c: cst.ClassDef) -> None:
        """A class body: annotated fields become the types of `self.<field>` in its methods."""
        info = ClassInfo(c.name.value)
        inner = Frame(self.an, self)
        inner.class_info = info
        body = c.body.body if isinstance(c.body, cst.IndentedBlock) else ()
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        t = inner.annotation(small.annotation.annotation)
                        if isinstance(t, ArrayType):
                            info.fields[small.target.value] = t
        inner.run_block(c.body)
        self.vars[c.name.value] = UNKNOWN

    def define_function(self, fn: cst.FunctionDef) -> None:
        info = self.class_info
        plain_method = info is not None and not any(
            isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
            for d in fn.decorators)
        # Methods do not see their class body's names: their scope is the class's enclosing scope.
        scope = self.parent if info is not None and self.parent is not None else self
        ref = FuncRef(fn, scope, fn.name.value, info if plain_method else None)
        if info is not None and plain_method:
            info.methods[fn.name.value] = ref
        value: Any = ref
        for d in reversed(fn.decorators):
            deco = self.ev(d.decorator)
            if isinstance(deco, QualRef) and canonical_name(deco.name) in _TRANSPARENT:
                continue
            if isinstance(deco, PartialRef) and isinstance(deco.func, QualRef) and \
                    canonical_name(deco.func.name) in _TRANSPARENT:
                continue
            value = self.call_value(deco, [value], {}, [None], {}, d) \
                if isinstance(deco, PartialRef | QualRef | MappedRef) else UNKNOWN
            if isinstance(value, MappedRef):
                self.an.mapped.add(id(fn))
        self.vars[fn.name.value] = value
        self.an.analyse_standalone(ref)

    # ---- annotations ---------------------------------------------------------------------------
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
        if mod == "namedcheck" and last in ANNOTATION_HEADS:
            return last
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
                return self.annotation(cst.parse_expression(text)) if isinstance(text, str) else None
            except cst.ParserSyntaxError:
                return None
        if isinstance(node, cst.Name | cst.Attribute):
            v = self.ev(node)
            return v.type if isinstance(v, TypeAlias) else None
        if not isinstance(node, cst.Subscript):
            return None
        head = self.annotation_head(node.value)
        if head in ANNOTATION_HEADS:
            try:
                return parse_annotation_subscript(head, node)  # type: ignore[arg-type]
            except RuleError as e:
                if not (dynamic_ok and e.code == "NC105"):
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
    def ev(self, node: cst.BaseExpression | None) -> Any:
        if node is None:
            return UNKNOWN
        try:
            value = self._ev(node)
        except RuleError as e:
            self.report(node, e)
            return UNKNOWN
        if self.an.types is not None and (self.function is not None or self.parent is None) \
                and _has_array(value):
            self.an.types[id(node)] = (node, value)
        return value

    def _ev(self, node: cst.BaseExpression) -> Any:
        if isinstance(node, cst.Name):
            return self.lookup(node.value)
        if isinstance(node, cst.Integer | cst.Float | cst.SimpleString | cst.ConcatenatedString | cst.Ellipsis):
            try:
                return Const(literal_value(node))
            except (NotALiteral, ValueError):
                return UNKNOWN
        if isinstance(node, cst.Imaginary):
            return Const(complex(node.value.replace("_", "")))
        if isinstance(node, cst.Tuple | cst.List):
            items = []
            for e in node.elements:
                v = self.ev(e.value)
                if isinstance(e, cst.StarredElement):
                    if not isinstance(v, Seq):
                        return UNKNOWN
                    items.extend(v.items)
                else:
                    items.append(v)
            return Seq(tuple(items), "tuple" if isinstance(node, cst.Tuple) else "list")
        if isinstance(node, cst.Attribute):
            recv = self.ev(node.value)
            if isinstance(recv, Seq) and recv.kind in ("list", "dict"):
                self.forget_if_mutable(node.value)  # `xs.append(...)`, `d.update(...)`
                return UNKNOWN
            if isinstance(recv, ArrayType) and node.attr.value == "resize":
                self.forget_if_mutable(node.value, any_value=True)  # numpy's in-place resize
            return self.attribute(recv, node.attr.value, node)
        if isinstance(node, cst.Call):
            return self.call(node)
        if isinstance(node, cst.BinaryOperation):
            op = OPERATORS.get(type(node.operator).__name__)
            left, right = self.ev(node.left), self.ev(node.right)
            return self.apply_op(op, [left, right], [node.left, node.right], node) if op else UNKNOWN
        if isinstance(node, cst.UnaryOperation):
            v = self.ev(node.expression)
            if isinstance(node.operator, cst.Minus) and isinstance(v, Const) and isinstance(v.value, (int, float)):
                return Const(-v.value)
            op = OPERATORS.get(type(node.operator).__name__)
            return self.apply_op(op, [v], [node.expression], node) if op else UNKNOWN
        if isinstance(node, cst.Comparison):
            left = self.ev(node.left)
            vals = [self.ev(c.comparator) for c in node.comparisons]
            if len(node.comparisons) == 1:
                op = OPERATORS.get(type(node.comparisons[0].operator).__name__)
                if op:
                    return self.apply_op(op, [left, vals[0]], [node.left, node.comparisons[0].comparator], node)
            return UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            self.ev(node.left)
            self.ev(node.right)
            return UNKNOWN
        if isinstance(node, cst.Subscript):
            return self.subscript(node)
        if isinstance(node, cst.IfExp):
            self.ev(node.test)
            a, b = self.ev(node.body), self.ev(node.orelse)
            return a if same_value(a, b) else UNKNOWN
        if isinstance(node, cst.Lambda):
            return FuncRef(node, self, "<lambda>")
        if isinstance(node, cst.NamedExpr):
            v = self.ev(node.value)
            self.assign(node.target, v)
            return v
        if isinstance(node, cst.Set):
            return Seq(tuple(self.ev(e.value) for e in node.elements), "tuple")
        if isinstance(node, cst.Dict):
            pairs = []
            for e in node.elements:
                if not isinstance(e, cst.DictElement):
                    self.ev(e.value)
                    return UNKNOWN
                pairs.append(Seq((self.ev(e.key), self.ev(e.value))))
            return Seq(tuple(pairs), "dict")
        return UNKNOWN

    def attribute(self, recv: Any, attr: str, node: cst.CSTNode) -> Any:
        if isinstance(recv, QualRef):
            mod = canonical_name(recv.name + ".x").rpartition(".")[0]
            if mod in _DTYPE_MODULES and attr in ALIASES and attr not in ("float", "int", "bool", "complex"):
                return DtypeRef(ALIASES[attr])
            if mod == "jax.numpy" and attr == "newaxis":
                return Const(None)
            if recv.name.startswith("jax.sharding") and attr == "PartitionSpec":
                return QualRef("jax.sharding.PartitionSpec")
            return QualRef(f"{recv.name}.{attr}")
        if isinstance(recv, InstanceRef):
            if attr in recv.cls.fields:
                return recv.cls.fields[attr]
            if attr in recv.cls.methods:
                return PartialRef(recv.cls.methods[attr], (recv,))
            return UNKNOWN
        if isinstance(recv, DevicesVal) and attr == "reshape":
            return MethodRef(recv, "reshape")
        if isinstance(recv, ArrayType):
            if attr == "T":
                return self.apply_named("jax.numpy.transpose", [recv], {}, [None], node)
            value = array_attribute(recv, attr)
            if value is not NotImplemented:
                return value
            if attr in METHODS:
                return MethodRef(recv, attr)
        return UNKNOWN

    def subscript(self, node: cst.Subscript) -> Any:
        if isinstance(node.value, cst.Name | cst.Attribute) and self.annotation_head(node.value) in ANNOTATION_HEADS:
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
                bounds = []
                for b in (s.lower, s.upper, s.step):
                    v = self.ev(b) if b is not None else Const(None)
                    bounds.append(v.value if isinstance(v, Const) and (v.value is None or isinstance(v.value, int))
                                  else v.dim if isinstance(v, DimVal) and isinstance(v.dim, int) else DYN)
                parts.append(Const(slice(*bounds)))
        idx = parts[0] if len(parts) == 1 and not _trailing_comma(node) else Seq(tuple(parts))
        if isinstance(recv, DevicesVal):
            s = idx.value if isinstance(idx, Const) and isinstance(idx.value, slice) else None
            if s is not None and s.start in (None, 0) and isinstance(s.stop, int) and s.step in (None, 1):
                return DevicesVal((s.stop,))
            return DevicesVal((None,))
        if isinstance(recv, Seq) and recv.kind == "dict":  # `params['w']`
            for pair in recv.items:
                if same_value(pair.items[0], idx):
                    return pair.items[1]
            return UNKNOWN
        if isinstance(recv, Seq):
            try:
                key = literal(idx)
                if isinstance(key, int) and not isinstance(key, bool):
                    return recv.items[key]
                if isinstance(key, slice) and all(b is None or isinstance(b, int) for b in (key.start, key.stop, key.step)):
                    return Seq(recv.items[key], recv.kind)
            except Exception:
                return UNKNOWN
            return UNKNOWN
        if isinstance(recv, ArrayType):
            return self.apply_named("operator.getitem", [recv, idx], {}, [node.value, None], node)
        return UNKNOWN

    def ev_args(self, args: Any) -> tuple[list[Any], dict[str, Any], list[Any], dict[str, str], bool]:
        pos: list[Any] = []
        kw: dict[str, Any] = {}
        nodes: list[Any] = []
        kwl: dict[str, str] = {}
        ok = True
        for a in args:
            v = self.ev(a.value)
            if a.star == "*":
                if isinstance(v, Seq):
                    pos.extend(v.items)
                    nodes.extend([None] * len(v.items))
                else:
                    ok = False
            elif a.star == "**":
                ok = False
            elif a.keyword is not None:
                kw[a.keyword.value] = v
                lab = label(a.value)
                if lab:
                    kwl[a.keyword.value] = lab
            else:
                pos.append(v)
                nodes.append(a.value)
        return pos, kw, nodes, kwl, ok

    def call(self, node: cst.Call) -> Any:
        func = self.ev(node.func)
        pos, kw, nodes, kwl, ok = self.ev_args(node.args)
        if not isinstance(func, QualRef):  # a function of ours, or an unknown one, may mutate its arguments
            for a in node.args:
                self.forget_if_mutable(a.value)
        if not ok:
            return UNKNOWN
        return self.call_value(func, pos, kw, nodes, kwl, node)

    def call_value(self, func: Any, pos: list[Any], kw: dict[str, Any], nodes: list[Any],
                   kwl: dict[str, str], node: cst.CSTNode, env: AxisEnv | None = None,
                   as_map_body: bool = False) -> Any:
        """Call a function value. `env` overrides the axes in scope (a map body); `as_map_body`
        analyses an annotated body under the call's types too (so its ops see the map's context)."""
        if env is not None and env is not self.env:
            saved, self.env = self.env, env
            try:
                return self.call_value(func, pos, kw, nodes, kwl, node, None, as_map_body)
            finally:
                self.env = saved
        if isinstance(func, QualRef):
            name = canonical_name(func.name)
            special = self.transform(name, pos, kw, node)
            if special is not NotImplemented:
                return special
            return self.apply_named(name, pos, kw, nodes, node, kwl)
        if isinstance(func, MappedRef):
            return mapcalls.call_mapped(self, func, pos, kw, node)
        if isinstance(func, MethodRef) and isinstance(func.receiver, DevicesVal):
            return mapcalls.reshape_devices(func.receiver, pos)
        if isinstance(func, MethodRef):
            op = METHODS[func.name]
            if func.name in VARARG_METHODS and len(pos) > 1:
                pos, nodes = [Seq(tuple(pos))], [None]
            elif func.name in VARARG_METHODS and len(pos) == 1 and isinstance(pos[0], (Const, DimVal)) \
                    and func.name == "reshape":
                pos = [Seq((pos[0],))]
            return self.apply_named(op, [func.receiver, *pos], kw, [None, *nodes], node, kwl)
        if isinstance(func, FuncRef):
            return self.an.call_function(func, pos, kw, nodes, node, self, as_map_body)
        if isinstance(func, PartialRef):
            return self.call_value(func.func, [*func.args, *pos], {**dict(func.kwargs), **kw},
                                   [None] * len(func.args) + nodes, kwl, node, None, as_map_body)
        if isinstance(func, GradRef):
            value = self.call_value(func.func, pos, kw, nodes, kwl, node)
            try:
                g = grad_type(pos, literal(func.argnums))
            except Exception:
                g = UNKNOWN
            if func.has_aux:
                aux = value.items[1] if isinstance(value, Seq) and len(value.items) == 2 else UNKNOWN
                value = value.items[0] if isinstance(value, Seq) and len(value.items) == 2 else UNKNOWN
                g = Seq((g, aux)) if not func.with_value else g
            if func.with_value:
                return Seq((Seq((value, aux)) if func.has_aux else value, g))
            return g
        if isinstance(func, DtypeRef) and len(pos) == 1 and isinstance(pos[0], ArrayType):
            return pos[0].with_dtype(func.code)
        return UNKNOWN

    def transform(self, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
        """Function transformations and builtins the front end resolves itself."""
        built = mapcalls.construct(self, name, pos, kw, node)
        if built is not NotImplemented:
            return built
        if name in _TRANSPARENT:
            return pos[0] if pos else PartialRef(QualRef(name), (), tuple(kw.items()))
        if name == "functools.partial":
            return PartialRef(pos[0], tuple(pos[1:]), tuple(kw.items())) if pos else UNKNOWN
        if name in ("jax.grad", "jax.value_and_grad"):
            if not pos:
                return UNKNOWN
            has_aux = kw.get("has_aux", Const(False))
            return GradRef(pos[0], kw.get("argnums", Const(0)), name == "jax.value_and_grad",
                           isinstance(has_aux, Const) and has_aux.value is True)
        if name == "builtins.len":
            return length(pos[0]) if len(pos) == 1 else UNKNOWN
        if name.startswith("builtins."):
            return UNKNOWN
        return NotImplemented

    def apply_op(self, op: str | None, vals: list[Any], nodes: list[Any], node: cst.CSTNode) -> Any:
        if op is None:
            return UNKNOWN
        if len(vals) == 2 and all(_is_size(v) for v in vals):
            try:  # sizes: `d // heads`, `x.shape[0] * 2`
                d = dim_arith(op, *(v.value if isinstance(v, Const) else v.dim for v in vals))
            except KeyError:
                return UNKNOWN
            return size_value(d)
        if all(isinstance(v, Const) for v in vals):
            return UNKNOWN  # other plain Python arithmetic
        if not any(isinstance(v, ArrayType) for v in vals):
            return UNKNOWN
        sides = ("the left operand", "the right operand") if len(vals) == 2 else ("the operand",)
        return self.apply_named(op, vals, {}, nodes, node, fallback=sides)

    def apply_named(self, name: str, pos: list[Any], kw: dict[str, Any], nodes: list[Any],
                    node: cst.CSTNode, kwl: dict[str, str] | None = None,
                    fallback: tuple[str, ...] = ()) -> Any:
        op = self.an.ops.get(name)
        if op is None:
            return UNKNOWN
        labels = tuple(label(n) if n is not None else None for n in nodes)
        if fallback:  # operators: name an operand we cannot render by its side
            labels = tuple(lab or fb for lab, fb in zip(labels, fallback))
        try:
            return engine_ops.run(op, pos, kw, labels, kwl, self.env)  # type: ignore[arg-type]
        except RuleError as e:
            self.report(node, e)
            return UNKNOWN


def _is_size(v: Any) -> bool:
    return isinstance(v, DimVal) or (isinstance(v, Const) and is_number(v.value))


def _trailing_comma(node: cst.Subscript) -> bool:
    return len(node.slice) == 1 and node.slice[0].comma is not cst.MaybeSentinel.DEFAULT


def same_value(a: Any, b: Any) -> bool:
    """Two analysis values agree (equal and of one kind); used to merge branches and returns."""
    if a is b:
        return True
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False
