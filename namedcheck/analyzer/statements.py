"""Statements of a scope: assignments, control flow, definitions (functions, classes), imports."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import (
    causes,
    chex,
    classes,
    configs,
    entry,
    facts,
    haiku,
    iteration,
    jaxconfig,
    mapcalls,
    nn_modules,
    origins,
    pytest_entry,
    sizes,
)
from namedcheck.analyzer.literals import stated
from namedcheck.analyzer.memo import RUN
from namedcheck.analyzer.placements import states_shardings
from namedcheck.analyzer.refs import (
    ClassInfo,
    FuncRef,
    InstanceRef,
    IterRef,
    MappedRef,
    MeshVal,
    PartialRef,
    QualRef,
)
from namedcheck.analyzer.scope import TRACED, TRANSPARENT, TRANSPARENT_CALLED, FrameState, label, same_value
from namedcheck.engine import maps
from namedcheck.engine.codes import NC204, NC811
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import scan_slice
from namedcheck.engine.names import OPERATORS, canonical_name
from namedcheck.engine.signature import compare_declared, declared_value
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, Seq, join


class Statements(FrameState):
    """Statements update the frame's environment of engine values."""

    def run_block(self, body: Any) -> None:
        stmts = (
            body.body
            if isinstance(body, (cst.IndentedBlock, cst.Module))
            else ([body] if isinstance(body, cst.SimpleStatementSuite) else body)  # `def f(_): return x`
        )
        for s in stmts:
            if self.ended:  # after a `return` / `raise` on every path: the rest does not run
                break
            self.run_stmt(s)

    def run_stmt(self, s: cst.CSTNode) -> None:
        self.an.steps += 1
        self.an.checkpoint()
        if isinstance(s, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in s.body:
                self.run_small(small)
        elif isinstance(s, cst.FunctionDef):
            self.define_function(s)
        elif isinstance(s, cst.ClassDef):
            self.define_class(s)
        elif isinstance(s, cst.If | cst.For | cst.While | cst.Try | cst.TryStar):
            before = self.env
            self.run_compound(s)
            if self.env != before:  # a `jax.set_mesh` that may not have run: the context mesh is not known
                self.env = replace(self.env, mesh_set=False)
        elif isinstance(s, cst.With):
            saved = self.env
            loops = []
            for item in s.items:
                before = self.env
                v = self.ev(item.item)
                if isinstance(v, jaxconfig.ConfigFlags):  # `with config.<flag>(value):`
                    self.env = jaxconfig.applied(self.env, v.flags)
                if isinstance(v, MeshVal):  # `with Mesh(...)`, `with jax.set_mesh(mesh)`
                    # only set_mesh sets JAX's context mesh (a legacy `with mesh:` sets none, keeps no outer one)
                    self.env = replace(self.env, mesh=v.info, mesh_set=self.env is not before and self.env.mesh_set)
                loops.extend(mapcalls.serial_loop_axes(self, item.item))
                if item.asname is not None:
                    prev = causes.binding(self, item.item, "with ... as", item)
                    self.assign(item.asname.name, v if isinstance(v, (ArrayType, MeshVal)) else UNKNOWN)
                    causes.restore(self, prev)
            if loops:  # `with serial_loop(name, n):` adds a resource axis for xmaps in the block
                self.env = replace(self.env, mesh=mapcalls.with_loops(self.env.mesh, loops))
            quiet = self.quiet
            if any(entry.expects_failure(item.item) for item in s.items):
                self.quiet = True  # `with self.assertRaises(...)`: the failure is what the test wants
            self.run_block(s.body)
            self.quiet = quiet
            self.env = saved
            self.ended = False  # a context manager may swallow the exception a `raise` in its block throws
        # Match and anything else: not analysed (Unknown is silent)

    def run_compound(self, s: cst.If | cst.For | cst.While | cst.Try | cst.TryStar) -> None:
        """`if` / `for` / `while` / `try`: the paths joined (statements.branches, loop)."""
        if isinstance(s, cst.If):
            taken = self.truth(s.test, self.ev(s.test))
            if taken is None:
                ended = self.branches([s.body, s.orelse], test=s.test)
                if ended[0] and not ended[1] and s.orelse is None:  # `if x.shape[-1] != d: raise ...`
                    facts.learn(self, s.test, holds=False)
            elif taken:  # the test's value is known: only the branch it takes runs
                self.run_block(s.body)
            elif isinstance(s.orelse, cst.If):
                self.run_compound(s.orelse)
            elif isinstance(s.orelse, cst.Else):
                self.run_block(s.orelse.body)
        elif isinstance(s, cst.For):
            it = iteration.iterable(self, self.ev(s.iter), s.iter)
            if iteration.unroll(self, s, it):  # a short known sequence: once per item
                return
            elem = UNKNOWN
            if isinstance(it, ArrayType):
                elem = scan_slice(it)  # iterating an array walks its leading dimension
            elif isinstance(it, IterRef):  # a generator, `zip` / `enumerate` over one, `itertools.cycle`, ...
                elem = it.item
            elif isinstance(it, Seq):
                elem = iteration.common_item(it)

            def bind(f: Statements) -> None:
                prev = causes.binding(f, s.iter, "for loop target", s.target)
                f.assign(s.target, elem)
                causes.restore(f, prev)

            self.loop(s, bind)
        elif isinstance(s, cst.While):
            self.ev(s.test)
            self.loop(s, lambda f: None)
        elif isinstance(s, cst.Try | cst.TryStar):
            self.skip_depth += 1
            quiet = self.quiet
            if entry.catches_jax_errors(s):  # `try: lax.axis_index(name) except NameError:`: a probe
                self.quiet = True
            self.run_block(s.body)
            self.quiet = quiet
            self.skip_depth -= 1
            self.cond_depth += 1
            for h in s.handlers:
                self.ended = False  # the body raised before its end: the handler runs
                if h.name is not None:
                    prev = causes.binding(self, None, "except ... as", h)
                    self.assign(h.name.name, UNKNOWN)
                    causes.restore(self, prev)
                self.run_block(h.body)
            self.cond_depth -= 1
            if s.orelse is not None:
                self.run_block(s.orelse.body)
            if s.finalbody is not None:
                self.run_block(s.finalbody.body)
            self.ended = False  # which paths end inside is not followed through the handlers

    def branches(self, blocks: list[Any], test: cst.BaseExpression | None = None) -> list[bool]:
        """Analyse alternatives on copies of the environment; merge, keeping only what agrees. Returns, per
        block, whether it always ends (returns or raises). `test`: an `if`'s, true in the first block and false
        in the second (a rank it states narrows a value there)."""
        before = dict(self.vars)
        lost_before = self.lost
        lost: dict[str, Any] = {}
        results = []
        ended = []
        self.cond_depth += 1
        for i, b in enumerate(blocks):
            self.vars = dict(before)
            self.lost = dict(lost_before)
            self.ended = False
            if test is not None:
                facts.narrow(self, test, holds=i == 0)
            if b is None:
                pass
            elif isinstance(b, cst.If):
                self.run_compound(b)
            elif isinstance(b, cst.Else):
                self.run_block(b.body)
            else:
                self.run_block(b)
            results.append(self.vars)
            ended.append(self.ended)
            lost = {**self.lost, **lost}  # (the first branch's cause of a name wins)
        self.cond_depth -= 1
        self.ended = all(ended)
        if not self.ended:  # only the paths that go on reach the code after the branches
            results = [r for r, e in zip(results, ended) if not e]
        merged: dict[str, Any] = {}
        for k in set().union(*results):
            vals = [r.get(k, before.get(k, UNKNOWN)) for r in results]
            merged[k] = join(vals)
        self.vars = merged
        if self.an.coverage is not None:  # a name the branches give values that do not agree
            where = next((b for b in blocks if b is not None), None)
            for k, v in merged.items():
                if k not in lost and causes.lost(v):
                    lost[k] = causes.Cause(causes.PYTHON, "branches that disagree", where, k)
        self.lost = lost
        return ended

    def loop(self, s: cst.For | cst.While, bind_target: Any) -> None:
        before = dict(self.vars)
        yielded = len(self.yields) if self.yields is not None else 0
        bind_target(self)
        self.skip_depth += 1
        self.run_block(s.body)
        self.skip_depth -= 1
        self.ended = False  # the body may run no time at all
        # what both the entry and one iteration agree on (a stated sharding alone is not a change)
        joined = {k: join([before[k], self.vars[k]]) for k in before if k in self.vars}
        changed = {k for k, v in joined.items() if not same_value(before[k], v)}
        self.vars.update(joined)
        if changed and self.yields is not None:  # later iterations may yield other values than the first
            self.yields[yielded:] = [UNKNOWN] * (len(self.yields) - yielded)
        if changed:
            for k in self.vars:
                if k not in before:
                    self.vars[k] = UNKNOWN
        if self.an.coverage is not None:  # a name a loop's iterations give values that do not agree
            for k in changed | (self.vars.keys() - before.keys() if changed else set()):
                if k not in self.lost and causes.lost(self.vars[k]):
                    self.lost[k] = causes.Cause(causes.PYTHON, "loop carry that changes", s, k)
        if s.orelse is not None:
            self.run_block(s.orelse.body)

    def run_small(self, s: cst.BaseSmallStatement) -> None:
        if isinstance(s, cst.Assign):
            v = self.ev(s.value)
            self.an.reveal(s, v)
            prev = causes.binding(self, s.value, "tuple unpacking", s)
            for t in s.targets:
                self.assign(t.target, sizes.unpacked_shape(self, t.target, s.value, v))
                if isinstance(t.target, cst.Name):
                    configs.bound(self, t.target.value, s.value)
            causes.restore(self, prev)
        elif isinstance(s, cst.AnnAssign):
            # (a jaxtyping annotation of a local is never checked by jaxtyping: documentation, not a fact)
            declared = stated(self.annotation(s.annotation.annotation), False)
            if s.value is not None:
                v = self.ev(s.value)
                self.an.reveal(s, v)
                self.check_declared(declared, v, s.value, f"`{label(s.target) or 'the target'}`")
            else:
                v = UNKNOWN
            prev = causes.binding(self, s.value, "annotation without a value", s)
            self.assign(
                s.target, declared_value(declared, v, self.env.manual) if isinstance(declared, (ArrayType, Seq)) else v
            )
            causes.restore(self, prev)
        elif isinstance(s, cst.AugAssign):
            op = OPERATORS.get(type(s.operator).__name__.replace("Assign", ""))
            left, right = self.ev(s.target), self.ev(s.value)
            v = self.apply_op(op, [left, right], [s.target, s.value], s) if op else UNKNOWN
            counter = self.an.coverage
            lhs = s.target if counter is not None and counter.cause_of(s.target, self) is not None else s.value
            prev = causes.binding(self, lhs, f"augmented assignment ({type(s.operator).__name__})", s)
            self.assign(s.target, v)
            causes.restore(self, prev)
        elif isinstance(s, cst.Return):
            v = self.ev(s.value) if s.value is not None else Const(None)
            self.returns.append(v)
            if self.an.coverage is not None and self.defining is not None and s.value is not None:
                self.an.coverage.returning(self.defining, s.value, v)
            if s.value is not None:
                self.check_declared(self.declared_return, v, s.value, "the return value")
            self.ended = True
        elif isinstance(s, cst.Raise):
            self.ended = True
        elif isinstance(s, cst.Expr):
            self.ev(s.value)
            if isinstance(s.value, cst.Call) and pytest_entry.stops(self, s.value):
                self.ended = True  # `pytest.skip(...)`, `sys.exit()`: nothing after it runs
            test = chex.assertion_test(self, s.value)  # `chex.assert_shape(x, (B, D))`: an assert in other words
            if test is not None:
                self.run_assertion(test, s, cst.Module([]).code_for_node(s.value), of_arrays=True)
        elif isinstance(s, cst.Assert):
            self.run_assertion(s.test, s, "assert " + cst.Module([]).code_for_node(s.test))
        elif isinstance(s, cst.Import | cst.ImportFrom):
            self.an.add_import(s)
        elif isinstance(s, cst.Del):
            pass

    def run_assertion(self, test: cst.BaseExpression, at: cst.CSTNode, text: str, of_arrays: bool = False) -> None:
        """An assertion's `test`: NC204 at `at` where it provably fails for the sizes that reach it (on every
        path), and what it states learned for what follows (`assert x.shape == (B, D)`). `of_arrays`: the test
        compares arrays' shapes (a chex assertion), whatever expressions give the arrays."""
        value = self.ev(test)
        sized = _compares_sizes(self, test, of_arrays)
        if self.truth(test, value) is False and self.cond_depth == 0 and sized:
            err = RuleError(
                NC204,
                f"`{text if len(text) <= 80 else text[:77] + '...'}` fails for the sizes that reach it: "
                f"the program stops with an AssertionError here",
            )
            configs.relate_settings(self, err, [test], every=True)
            self.report(at, err)
            self.ended = True
        facts.learn(self, test, holds=True)

    def check_declared(self, declared: Any, v: Any, node: cst.CSTNode, what: str) -> None:
        if declared is None:
            return
        try:
            compare_declared(declared, v, what, lifted_ok=self.lenient)
        except RuleError as e:
            if e.code == NC811 and e.data.get("what") == what:  # the whole value (a fix reshards it)
                e.data["target"] = "return" if what == "the return value" else "assignment"
            leaves = maps.tree_leaves(v)
            if e.code == NC811:
                origins.relate_placements(e, [(label(node) or None if len(leaves) == 1 else None, x) for x in leaves])
            elif e.code.startswith("NC3"):
                origins.relate_calls(e, leaves)
            self.report(node, e)

    def assign(self, target: cst.BaseExpression, v: Any) -> None:
        if isinstance(target, cst.Name):
            # a name a nested function rebinds (`nonlocal n; n += 1`) changes whenever that function runs, or is
            # traced: a value assigned here holds only until then
            self.vars[target.value] = UNKNOWN if target.value in self.rebound_elsewhere else v
            if self.an.bindings is not None:  # `namedcheck types` (analyzer/bindings.py)
                self.an.bindings.append((target, self.vars[target.value], self.an.call_root()))
            if self.an.coverage is not None:  # why the value is not known, where it is not (analyzer/causes.py)
                self.an.coverage.bound(self, target, v)
            if target.value in self.arguments:
                self.rebound.add(target.value)  # no longer the argument the call gave
        elif isinstance(target, cst.Tuple | cst.List):
            elems = target.elements
            if (
                isinstance(v, Seq)
                and len(v.items) == len(elems)
                and not any(isinstance(e, cst.StarredElement) for e in elems)
            ):
                for e, item in zip(elems, v.items):
                    self.assign(e.value, item)
            elif (parts := iteration.unpack_parts(elems, v)) is not None:  # `*hidden, last = layers`, `k1, k2 = keys`
                for e, item in zip(elems, parts):
                    self.assign(e.value, item)
            elif isinstance(v, ArrayType) and v.has_ellipsis:
                # a value of unknown structure (rows of an array, or a pytree's leaves): each part
                # varies as the whole does
                part = ArrayType.partial(v.varying, v.vary_exact)
                for e in elems:
                    self.assign(e.value, part)
            else:
                for e in elems:
                    self.assign(e.value, UNKNOWN)
        elif isinstance(target, cst.StarredElement):
            prev = causes.binding(self, None, "starred assignment", target)
            self.assign(target.value, UNKNOWN)
            causes.restore(self, prev)
        elif isinstance(target, cst.Subscript):
            if not iteration.set_item(self, target, v):  # `d['k'] = v`, `xs[0] = v` of a known one
                self.forget_if_mutable(target.value)
        elif isinstance(target, cst.Attribute) and target.attr.value in ("shape", "dtype"):
            self.forget_if_mutable(target.value, any_value=True)  # numpy: `a.shape = (2, 3)`
        elif isinstance(target, cst.Attribute):
            if configs.assign_field(self, target, v):  # `config.model.width = 64`
                return
            owner = self.ev(target.value)
            if nn_modules.record_attribute(self, owner, target.attr.value, v):  # `self.w = ...` in `__init__`
                return
            if isinstance(owner, InstanceRef) and owner.values is not None:
                # `cfg.batch = 8`: what built instances of the class hold there is no longer known (in this
                # run; for good when a module's body does it as it loads)
                if RUN.loading:
                    owner.cls.assigned = owner.cls.assigned | {(target.attr.value,)}
                else:
                    RUN.change(self.an.log, "class", (owner.cls, (target.attr.value,)))
        # other attributes: state we do not track

    def define_class(self, c: cst.ClassDef) -> None:
        """A class body: annotated fields become the types of `self.<field>` in its methods."""
        info = ClassInfo(c.name.value)
        inner = self.new_frame()
        inner.class_info = info
        body = c.body.body if isinstance(c.body, cst.IndentedBlock) else ()
        info.checked = any(self.run_time_checker(d.decorator) for d in c.decorators)
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        # a jaxtyping field is a fact where building the class checks it
                        t = stated(inner.annotation(small.annotation.annotation), info.checked)
                        if isinstance(t, ArrayType):
                            info.fields[small.target.value] = t
        inner.pending_methods = []
        inner.defined_methods = {}
        inner.run_block(c.body)
        classes.rebound_methods(inner, info)
        classes.describe(inner, c, info)
        self.vars[c.name.value] = info  # calling it builds an instance (analyzer/classes.py)
        # its methods are analysed on their own once the class is complete (its bases, fields and methods known),
        # as they run only after the class statement
        for ref in inner.pending_methods:
            self.an.analyse_standalone(ref)

    def run_time_checker(self, deco: cst.BaseExpression) -> bool:
        """A decorator that checks annotations when the function runs and leaves it as written: `@beartype`,
        `@jaxtyped(typechecker=beartype)`, typeguard's `@typechecked`."""
        v = self.ev(deco.func if isinstance(deco, cst.Call) else deco)
        return isinstance(v, QualRef) and canonical_name(v.name) in TRANSPARENT_CALLED

    def define_function(self, fn: cst.FunctionDef) -> None:
        info = self.class_info
        plain_method = info is not None and not any(
            isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
            for d in fn.decorators
        )
        # Methods do not see their class body's names: their scope is the class's enclosing scope.
        scope = self.parent if info is not None and self.parent is not None else self
        ref = FuncRef(fn, scope, fn.name.value, info if plain_method else None)
        kind = classes.accessor_kind(fn)
        if info is not None and plain_method:
            if kind != "setter":
                info.methods[fn.name.value] = ref
            if kind == "property":  # read as an attribute: the body runs on the instance
                info.properties.add(fn.name.value)
        elif info is not None:
            kinds = {d.decorator.value for d in fn.decorators if isinstance(d.decorator, cst.Name)}
            (info.classmethods if "classmethod" in kinds else info.staticmethods)[fn.name.value] = ref
        value: Any = ref
        checkers = 0
        for d in reversed(fn.decorators):
            if self.run_time_checker(d.decorator):
                checkers += 1
                continue
            deco = self.ev(d.decorator)
            if isinstance(deco, QualRef) and canonical_name(deco.name) in TRANSPARENT:
                if canonical_name(deco.name) in TRACED:
                    self.an.traced.add(id(fn))  # its arguments are JAX arrays inside (analyzer/widths.py)
                continue
            if isinstance(deco, jaxconfig.ConfigFlags):  # `@config.<flag>(value)`: the body runs with it
                self.an.func_flags[id(fn)] = self.an.func_flags.get(id(fn), ()) + deco.flags
                continue
            if (
                isinstance(deco, PartialRef)
                and isinstance(deco.func, QualRef)
                and canonical_name(deco.func.name) in TRANSPARENT
                and not states_shardings(deco.kwargs)
            ):
                if canonical_name(deco.func.name) in TRACED:
                    self.an.traced.add(id(fn))
                continue
            value = (
                self.call_value(deco, [value], {}, [None], {}, d)
                if isinstance(deco, PartialRef | QualRef | MappedRef)
                else UNKNOWN
            )
            if isinstance(value, MappedRef):
                self.an.mapped.add(id(fn))
        if info is not None and plain_method and haiku.in_run(value) is ref:
            info.methods[fn.name.value] = value  # `@hk.testing.transform_and_run`: the body runs in a transform
        if fn.decorators and checkers == len(fn.decorators):
            self.an.checker_only.add(id(fn))  # it runs as written, eagerly where called so
        if (
            info is not None
            and plain_method
            and kind != "setter"
            and any(_slices_arguments(self, d) for d in fn.decorators)
        ):
            # a library's lifted scan / vmap over the method (`@partial(nn.scan, in_axes=1)` on a linen
            # `__call__`): its body sees slices of the arguments, which calls through the instance do not model
            info.methods[fn.name.value] = UNKNOWN
        if (
            info is not None
            and plain_method
            and isinstance(value, MappedRef)
            and value.kind in ("vmap", "pmap")
            and fn.name.value not in ("__init__", "__call__", "setup")
        ):
            info.methods[fn.name.value] = value  # `obj.step(x)` calls the map with `self` as its first argument
        self.vars[fn.name.value] = value
        self.forget_rebound(fn, scope)
        if info is not None and self.pending_methods is not None:
            self.pending_methods.append(ref)  # analysed when the class statement is complete (`define_class`)
            if self.defined_methods is not None:  # (a later class-body statement may rebind the name)
                self.defined_methods[fn.name.value] = value
        else:
            self.an.analyse_standalone(ref)

    def forget_rebound(self, fn: cst.FunctionDef, scope: Any) -> None:
        """Names the function declares `nonlocal` (in its scope) or `global` (in the module) are rebound when it
        runs, which may be never, once per call, or once per trace under `jit`: from here on they are not known."""
        nonlocals, globals_ = _rebinds(fn)
        for name in nonlocals:
            f = scope
            while f is not None and name not in f.vars:
                f = f.parent
            f = f if f is not None else scope
            f.rebound_elsewhere = f.rebound_elsewhere | {name}
            f.vars[name] = UNKNOWN
        root = scope
        while root.parent is not None:
            root = root.parent
        for name in globals_:
            root.rebound_elsewhere = root.rebound_elsewhere | {name}
            if name in root.vars:
                root.vars[name] = UNKNOWN


_REBINDS: dict[int, tuple[cst.FunctionDef, frozenset[str], frozenset[str]]] = {}


def _rebinds(fn: cst.FunctionDef) -> tuple[frozenset[str], frozenset[str]]:
    """The names a function (or a function nested in it) declares `nonlocal` and `global` (statements only are
    walked: the declarations are statements; a class body's are about the class)."""
    hit = _REBINDS.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1], hit[2]
    nonlocals: set[str] = set()
    globals_: set[str] = set()
    todo: list[Any] = [fn.body]
    while todo:
        node = todo.pop()
        t = type(node)
        if t is cst.IndentedBlock or t is cst.SimpleStatementSuite:
            todo.extend(node.body)
        elif t is cst.SimpleStatementLine:
            for small in node.body:
                if type(small) is cst.Nonlocal:
                    nonlocals |= {n.name.value for n in small.names}
                elif type(small) is cst.Global:
                    globals_ |= {n.name.value for n in small.names}
        elif t is cst.FunctionDef or t is cst.With:
            todo.append(node.body)
        elif t is cst.For or t is cst.While:
            todo.append(node.body)
            if node.orelse is not None:
                todo.append(node.orelse.body)
        elif t is cst.If:
            todo.append(node.body)
            if node.orelse is not None:
                todo.append(node.orelse if type(node.orelse) is cst.If else node.orelse.body)
        elif t is cst.Try or t is cst.TryStar:
            todo.append(node.body)
            todo.extend(h.body for h in node.handlers)
            todo.extend(x.body for x in (node.orelse, node.finalbody) if x is not None)
    params = fn.params
    own = {p.name.value for p in [*params.params, *params.posonly_params, *params.kwonly_params]}
    out = (frozenset(nonlocals - own), frozenset(globals_))
    if len(_REBINDS) > 50_000:
        _REBINDS.clear()
    _REBINDS[id(fn)] = (fn, *out)
    return out


_SIZE_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def _compares_sizes(f: Statements, test: cst.BaseExpression, of_arrays: bool = False) -> bool:
    """An assertion about sizes: a comparison (`==`, `<`, ..., not `is` / `in`) of ints or shapes made of names,
    attributes, subscripts, int literals and arithmetic (no calls); `assert cfg is not None`, `assert False` or
    `assert len(args) == 2` are not."""
    if not isinstance(test, cst.Comparison) or not all(
        isinstance(c.operator, _SIZE_COMPARISONS) for c in test.comparisons
    ):
        return False
    operands = [test.left, *(c.comparator for c in test.comparisons)]
    return all((of_arrays or _plain_size_expression(o)) and _is_size_value(f.ev(o)) for o in operands)


_PLAIN = (cst.Name, cst.Attribute, cst.Subscript, cst.Integer, cst.BinaryOperation, cst.UnaryOperation, cst.Tuple)


def _plain_size_expression(node: cst.CSTNode) -> bool:
    if not isinstance(node, _PLAIN):  # no calls: `len(args)` of a container the analysis may know only in part
        return False
    inner = [c for c in node.children if isinstance(c, cst.BaseExpression)]
    for c in node.children:  # a tuple's elements, a subscript's index
        if isinstance(c, cst.Element | cst.SubscriptElement):
            item = c.value if isinstance(c, cst.Element) else c.slice
            inner.extend(x for x in ([item.value] if isinstance(item, cst.Index) else []) if x is not None)
    return all(_plain_size_expression(c) for c in inner)


def _is_size_value(v: Any) -> bool:
    if isinstance(v, Const):
        return isinstance(v.value, int) and not isinstance(v.value, bool)
    if isinstance(v, DimVal):
        return True
    return isinstance(v, Seq) and all(_is_size_value(i) for i in v.items)


_LIFTED_MAPS = ("scan", "vmap", "pmap", "map")  # a library's lifted transforms that map a method over an axis


def _slices_arguments(f: Any, d: cst.Decorator) -> bool:
    """A decorator that is a library's lifted scan / vmap (flax linen or nnx, haiku, equinox), bare, called with
    its options, or through `functools.partial`: the decorated body sees slices of what it is called with."""
    found: list[Any] = []
    try:
        found.append(f.ev(d.decorator))  # `partial(nn.scan, ...)`: a PartialRef
        if isinstance(d.decorator, cst.Call):
            found.append(f.ev(d.decorator.func))  # `nn.scan(...)` used as a decorator factory
    except Exception:
        return False
    for v in found:
        if isinstance(v, PartialRef):
            v = v.func
        if not isinstance(v, QualRef):
            continue
        name = canonical_name(v.name)
        if name.startswith(("flax.", "haiku.", "equinox.")) and name.rpartition(".")[2] in _LIFTED_MAPS:
            return True
    return False
