"""Calls of a scope: argument evaluation, function values, transforms, engine op calls."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import (
    causes,
    classes,
    configs,
    entry,
    equinox,
    haiku,
    iteration,
    jaxconfig,
    mapcalls,
    mutation,
    nn_modules,
    nnx,
    origins,
    placements,
    reveal,
    widths,
)
from namedcheck.analyzer.configs import ConfigMethod, ParserMethod
from namedcheck.analyzer.literals import str_method
from namedcheck.analyzer.refs import (
    AtRef,
    BuildingRef,
    ClassInfo,
    DevicesVal,
    FuncRef,
    GradRef,
    InitializerRef,
    InstanceRef,
    JitRef,
    LayerRef,
    MappedRef,
    MethodRef,
    ModuleMethodRef,
    NumberInfo,
    PartialRef,
    QualRef,
)
from namedcheck.analyzer.scope import TRACED, TRANSPARENT, FrameState, label
from namedcheck.analyzer.sizes import SIZE_PARAMS, size_arguments, sized_seq
from namedcheck.engine import ops as engine_ops
from namedcheck.engine.algebra import dim_arith, is_number
from namedcheck.engine.attributes import array_attribute, length, size_value
from namedcheck.engine.codes import NC603
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import AxisEnv, map_leaves
from namedcheck.engine.names import AT_OPS, METHODS, VARARG_METHODS, canonical_name, short_name
from namedcheck.engine.ops.collectives import LEAFWISE
from namedcheck.engine.ops.layers import is_layer
from namedcheck.engine.ops.transforms import grad_type
from namedcheck.engine.signature import KWONLY, NORMAL, POSONLY, VARKW
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, DtypeRef, NotLiteral, Seq, literal


class Calls(FrameState):
    """Calls become engine op calls, map boundaries, or analyses of the callee's body."""

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
            elif a.star == "**":  # `DoConfig(**c.model)`, `f(**{'d': 8})`: known keys only
                spread = configs.mapping_items(self, v, a.value)
                if spread is None:
                    ok = False
                    kw[_OPEN] = UNKNOWN  # an unknown mapping: any keyword it may set is not known
                else:
                    kw.update(spread)
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
        shown = reveal.revealed(self, node)  # `reveal_type(x)`, `reveal_locals()`: NC003 notes
        if shown is not NotImplemented:
            return shown
        param = nn_modules.self_param(self, node)  # `self.param('w', init, shape)` in a linen module
        if param is not NotImplemented:
            return param
        grown = iteration.grow_list(self, node)  # `xs.append(v)` of a list this scope holds
        if grown is not NotImplemented:
            return grown
        func = self.ev(node.func)
        pos, kw, nodes, kwl, ok = self.ev_args(node.args)
        # a function of ours, an unknown one, or one of a library not known to leave them alone (`random.shuffle`)
        # may mutate its list and dict arguments
        if not isinstance(func, QualRef) or not mutation.pure_library(func.name):
            for a in mutation.mutable_args(func, node.args, self.lookup):
                self.forget_if_mutable(a.value)
        if not ok and _OPEN in kw and not any(a.star == "*" for a in node.args):
            opened = self.open_keywords(func, len(pos), kw)  # `Block(dim=64, **cfg)` of a cfg not known
            ok, kw = opened is not None, opened or kw
        haiku.unknown_call(self, func, ok, node)  # inside hk.transform, a callee not known may make modules
        counter = self.an.coverage
        out = self.call_value(func, pos, kw, nodes, kwl, node) if ok else UNKNOWN
        if counter is not None:  # what was called, for the cause of a lost result (analyzer/causes.py)
            counter.called = (node, func, ok)
        return out

    def open_keywords(self, func: Any, npos: int, kw: dict[str, Any]) -> dict[str, Any] | None:
        """The keywords of a call with an unknown `**mapping` (`_OPEN` in `kw`): the ones written, and Unknown for
        every other parameter of the class or function it may set (its default no longer known); None where the
        callee's parameters are not known."""
        names: list[str] | None = None
        if isinstance(func, ClassInfo):
            init = func.methods.get("__init__")
            if init is None and func.kind == "fields":
                names = [n for n in func.order[npos:]]
            elif isinstance(init, FuncRef):
                func, npos = init, npos + 1
        if isinstance(func, FuncRef):
            owner = getattr(func.scope, "an", None) or self.an
            sig = owner.signature(func)  # type: ignore[union-attr]
            positional = [p for p in sig.params if p.kind in (POSONLY, NORMAL)]
            names = [p.name for p in positional[npos:] if p.kind == NORMAL]
            names += [p.name for p in sig.params if p.kind == KWONLY]
        if names is None:
            return None
        out = {k: v for k, v in kw.items() if k != _OPEN}
        out.update({n: UNKNOWN for n in names if n not in out})
        if isinstance(func, FuncRef) and any(p.kind == VARKW for p in sig.params):
            out[_OPEN] = UNKNOWN  # its `**kwargs` may hold any other keyword (module.body_values)
        return out

    def call_value(
        self,
        func: Any,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        kwl: dict[str, str],
        node: cst.CSTNode,
        env: AxisEnv | None = None,
        as_map_body: bool = False,
    ) -> Any:
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
            host = (  # numpy's arrays are never committed (an array of devices is a mesh's)
                func.name.startswith("numpy.")
                and name in placements.CREATION
                and not (pos and isinstance(pos[0], DevicesVal))
            )
            special = NotImplemented if host else self.transform(name, pos, kw, node)
            if special is not NotImplemented:
                return special
            origin = _origin(func.name)
            if name == "jax.numpy.reshape" and "out_sharding" not in kw:
                origin = "value"  # JAX forwards to the array's own method: numpy's reshape for a numpy array
            return self.apply_named(name, pos, kw, nodes, node, kwl, origin=origin)
        if isinstance(func, MappedRef | JitRef | GradRef):  # traced: numpy's float64 arrays are float32 inside
            pos = [widths.traced(v, self.env) for v in pos]
            kw = {k: widths.traced(v, self.env) for k, v in kw.items()}
        if isinstance(func, MappedRef):
            return mapcalls.call_mapped(self, func, pos, kw, node)
        if isinstance(func, JitRef):
            return placements.call_jit(self, func, pos, kw, nodes, kwl, node, as_map_body)
        if isinstance(func, MethodRef) and isinstance(func.receiver, Const):  # a method of a constant string
            folded = str_method(func.receiver.value, func.name, pos, kw)
            return folded if folded is not None else UNKNOWN
        if isinstance(func, MethodRef) and isinstance(func.receiver, DevicesVal):  # numpy's reshape rule is jnp's
            devs = func.receiver
            out = self.call_value(MethodRef(ArrayType(None, devs.shape), func.name), pos, kw, nodes, kwl, node)
            return mapcalls.devices_reshaped(devs, out)
        if isinstance(func, MethodRef) and isinstance(func.receiver, AtRef):  # `x.at[idx].set(v)`
            at = func.receiver
            return self.apply_named(
                AT_OPS + func.name, [at.array, at.index, *pos], kw, [at.node, None, *nodes], node, kwl
            )
        if isinstance(func, MethodRef):
            if func.receiver is UNKNOWN and any(v is UNKNOWN and isinstance(n, cst.Name) for v, n in zip(pos, nodes)):
                # `backend.reshape(tensor, shape)`: a receiver not known to be an array, given local names not known
                # to be sizes, may be any object with such a method (an einops backend, a wrapper); sizes written
                # as attributes or arithmetic (`x.reshape(self.n, cfg.d)`) are read as the array method's
                return UNKNOWN
            op = METHODS[func.name]
            if func.name in VARARG_METHODS and len(pos) > 1:
                pos, nodes = [sized_seq(self, pos, nodes)], [None]
            elif (
                func.name in VARARG_METHODS
                and len(pos) == 1
                and isinstance(pos[0], (Const, DimVal))
                and func.name == "reshape"
            ):
                pos = [Seq((pos[0],))]
            return self.apply_named(op, [func.receiver, *pos], kw, [None, *nodes], node, kwl, origin="value")
        if isinstance(func, FuncRef):  # analysed by the analyzer of its own module (another project module's)
            owner = getattr(func.scope, "an", None) or self.an
            out = owner.call_function(func, pos, kw, nodes, node, self, as_map_body)
            if owner.sets_mesh and self.env.mesh_set:  # the callee may have set another context mesh
                self.env = replace(self.env, mesh_set=False)
            if owner.sets_flags:  # the callee may have set a JAX flag: not known from here on
                self.env = jaxconfig.applied(self.env, jaxconfig.unknown(owner.sets_flags))
            return out
        if isinstance(func, PartialRef):
            return self.call_value(
                func.func,
                [*func.args, *pos],
                {**dict(func.kwargs), **kw},
                [None] * len(func.args) + nodes,
                kwl,
                node,
                None,
                as_map_body,
            )
        if isinstance(func, GradRef):
            value = self.call_value(func.func, pos, kw, nodes, kwl, node)
            try:
                g = equinox.gradient(pos, literal(func.argnums), func.filtered)  # modules: analyzer/equinox.py
                if g is NotImplemented:
                    g = grad_type(pos, literal(func.argnums))
            except NotLiteral:
                g = UNKNOWN
            if func.has_aux:
                aux = value.items[1] if isinstance(value, Seq) and len(value.items) == 2 else UNKNOWN
                value = value.items[0] if isinstance(value, Seq) and len(value.items) == 2 else UNKNOWN
                g = Seq((g, aux)) if not func.with_value else g
            if func.with_value:
                return Seq((Seq((value, aux)) if func.has_aux else value, g))
            return g
        if isinstance(func, ClassInfo) and haiku.is_module(func):  # an `hk.Module` subclass: haiku's names
            return haiku.construct(self, func, pos, kw, node)
        if isinstance(func, ClassInfo):  # `Config(d_model=64)`, `MLP(features=32)`, `Model(4, rngs=rngs)`
            built = nn_modules.construct(self, func, pos, kw, node)
            if built is NotImplemented:
                built = classes.construct(func, pos, kw)
                if isinstance(built, InstanceRef) and built.values is not None:
                    configs.note_instance(self, built, node, nodes)
                    if func.checked:  # `@jaxtyped(typechecker=beartype)` on the class: its fields are checked
                        classes.check_fields(self, func, pos, kw, nodes, node)
            return built
        if isinstance(func, InitializerRef):  # `init(key, (d, f), jnp.bfloat16)`
            shape = pos[1] if len(pos) > 1 else kw.get("shape", UNKNOWN)
            dtype = pos[2] if len(pos) > 2 else kw.get("dtype", DtypeRef("f32"))
            return self.apply_named("jax.numpy.zeros", [shape, dtype], {}, [None, None], node)
        if isinstance(func, ConfigMethod | ParserMethod):  # `config.get('d', 64)`, `parser.parse_args()`
            return configs.call_method(self, func, pos, kw, node)
        if isinstance(func, LayerRef) and func.op.startswith("haiku."):  # `hk.Linear(64)(x)`
            return haiku.call_layer(self, func, pos, kw, nodes, kwl, node)
        if isinstance(func, LayerRef):  # `nn.Dense(64)(x)`
            return nn_modules.call_layer(self, func, pos, kw, nodes, kwl, node)
        if isinstance(func, InstanceRef | BuildingRef) and haiku.is_module(func.cls):  # an `hk.Module`'s `__call__`
            return haiku.call_instance(self, func, pos, kw, nodes, kwl, node)
        if isinstance(func, InstanceRef | BuildingRef):  # `model(x)`, `self.block(h)`
            return nn_modules.call_instance(self, func, pos, kw, nodes, kwl, node)
        if isinstance(func, ModuleMethodRef):  # `model.apply(params, x)`
            return nn_modules.call_module_method(self, func, pos, kw, nodes, kwl, node)
        if (called := nnx.call(self, func, pos, kw, node)) is not NotImplemented:  # `rngs()`
            return called
        if isinstance(func, DtypeRef) and len(pos) == 1 and isinstance(pos[0], Const) and not kw:
            if _is_array_scalar(node, pos[0].value, func.code):  # `jnp.float32(1.0)`: a 0-d array
                return ArrayType.make(func.code, ())
            return _python_number(node, pos[0].value)  # `float('-inf')`, `int(2.0)`
        if isinstance(func, DtypeRef) and len(pos) == 1 and isinstance(pos[0], ArrayType):
            return pos[0].with_dtype(func.code)
        return UNKNOWN

    def transform(self, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
        """Function transformations and builtins the front end resolves itself."""
        if name.startswith("jax"):  # JAX configuration flags that change the rules (analyzer/jaxconfig.py)
            cfg = jaxconfig.construct(name, pos, kw)
            if isinstance(cfg, tuple):  # `jax.config.update(name, value)`: from here on in this scope
                self.env = jaxconfig.applied(self.env, cfg[1])
                return Const(None)
            if cfg is not NotImplemented:
                return cfg
        built = mapcalls.construct(self, name, pos, kw, node)
        if built is not NotImplemented:
            return built
        built = configs.construct(self, name, pos, kw, node)  # configs, parsers, flags
        if built is NotImplemented:
            built = entry.construct(self, name, pos, kw, node)  # `app.run(main)`, `absltest.main()`
        if built is not NotImplemented:
            return built
        if name == "functools.wraps":  # `wraps(fun)` is a decorator that returns what it decorates, not `fun`
            return PartialRef(QualRef(name), (), ())
        if name in TRACED and pos and isinstance(pos[0], FuncRef) and not pos[0].traced:
            f = pos[0]  # `jax.jit(f)`: f, whose numpy arguments are JAX arrays inside (f itself is not changed)
            return FuncRef(f.node, f.scope, f.name, f.owner, traced=True)
        if name in TRANSPARENT:
            return pos[0] if pos else PartialRef(QualRef(name), (), tuple(kw.items()))
        if is_layer(name) and name.startswith("haiku."):  # `hk.Linear(64)`: its module name taken now
            return haiku.build_layer(self, name, pos, kw, node)
        if is_layer(name):  # `nn.Dense(64)`: a layer, applied later by the engine's layer rule
            return nn_modules.build_layer(self, name, pos, kw, node)
        if name in _NUMBER_INFO:  # `jnp.finfo(cfg.dtype).min`: a scalar whatever the dtype's limits are
            code = pos[0].code if len(pos) == 1 and isinstance(pos[0], DtypeRef) else None
            return NumberInfo(code, name.endswith("iinfo"))
        wrapped = haiku.library_call(self, name, pos, kw, node)  # hk.transform, hk.get_parameter, ...
        if wrapped is NotImplemented:
            wrapped = nn_modules.library_call(self, name, pos, kw, node)
        if wrapped is not NotImplemented:
            return wrapped
        if name in ("numpy.random.default_rng", "numpy.random.RandomState"):  # a generator: its methods are ops
            return QualRef("numpy.random.Generator" if name.endswith("default_rng") else "numpy.random")
        if ".initializers." in name:  # `he_normal()` makes an initializer; `zeros` / `ones` are initializers
            if name.rpartition(".")[2] in ("zeros", "ones"):
                return self.call_value(InitializerRef(name), pos, kw, [None] * len(pos), {}, node)
            return InitializerRef(name)
        if name == "jax.typeof" and len(pos) == 1 and not kw:  # the abstract value: shape, dtype, sharding
            return pos[0] if isinstance(pos[0], ArrayType) else UNKNOWN
        if name == "jax.ShapeDtypeStruct":  # an abstract array of that shape and dtype (its sharding not kept)
            shape = pos[0] if pos else kw.get("shape", UNKNOWN)
            dtype = pos[1] if len(pos) > 1 else kw.get("dtype", UNKNOWN)
            return self.apply_named("jax.numpy.zeros", [shape, dtype], {}, [None, None], node)
        if name == "jax.lax.reshape" and _plain_lax_reshape(pos, kw):  # (operand, new_sizes, dimensions=None)
            extra = {"out_sharding": kw["out_sharding"]} if "out_sharding" in kw else {}
            return self.apply_named("jax.numpy.reshape", pos[:2], extra, [None, None], node)
        if name == "dataclasses.replace" and len(pos) == 1:  # a config with some fields changed
            changed = classes.replaced(pos[0], kw)
            if isinstance(changed, InstanceRef):
                configs.note_instance(self, changed, node, [], base=pos[0])
            return changed
        if name in ("functools.partial", "jax.tree_util.Partial"):
            return PartialRef(pos[0], tuple(pos[1:]), tuple(kw.items())) if pos else UNKNOWN
        if name in ("jax.grad", "jax.value_and_grad"):
            if not pos:
                return UNKNOWN
            has_aux = kw.get("has_aux", Const(False))
            return GradRef(
                pos[0],
                kw.get("argnums", Const(0)),
                name == "jax.value_and_grad",
                isinstance(has_aux, Const) and has_aux.value is True,
            )
        if name == "jax.random.PRNGKey" and getattr(self.an, "prng_configured", lambda: True)():
            return UNKNOWN  # the program configures the PRNG: the key may be typed, of another size
        handled = iteration.builtin(self, name, pos, kw, node)
        if handled is not NotImplemented:
            return handled
        if name in _SHAPE_FUNCTIONS and len(pos) == 1 and not kw:  # `jnp.shape(x)`, `np.ndim(x)`: x's attribute
            return shape_function(_SHAPE_FUNCTIONS[name], pos[0])
        if name in _BROADCAST_SHAPES and not kw:
            return broadcast_shapes_value(pos)
        if name == "builtins.isinstance" and len(pos) == 2 and not kw and isinstance(node, cst.Call):
            return python_isinstance(self, pos[0], node.args[1].value if len(node.args) == 2 else None)
        if name == "builtins.len":
            if len(pos) == 1 and isinstance(pos[0], DevicesVal):
                return length(ArrayType(None, pos[0].shape))
            return length(pos[0]) if len(pos) == 1 else UNKNOWN
        if name in ("jax.device_count", "jax.local_device_count") and not pos and not kw:
            return mapcalls.device_count(self)
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
        if len(vals) == 2 and (joined := _sequence_op(op, *vals)) is not None:
            return joined  # `[P('data')] * n_layers`, `xs + [x]`
        if all(isinstance(v, Const) for v in vals):
            return UNKNOWN  # other plain Python arithmetic
        if not any(isinstance(v, ArrayType) for v in vals):
            return UNKNOWN
        sides = ("the left operand", "the right operand") if len(vals) == 2 else ("the operand",)
        return self.apply_named(op, vals, {}, nodes, node, fallback=sides, origin="value")

    def apply_named(
        self,
        name: str,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        node: cst.CSTNode,
        kwl: dict[str, str] | None = None,
        fallback: tuple[str, ...] = (),
        origin: str = "jax",
    ) -> Any:
        """Apply an op by name. `origin`: who computes it, for its result's widths (analyzer/widths.py): "jax",
        "numpy" (a `numpy.*` function), "value" (an operator or method: the operands decide)."""
        op = self.an.ops.get(name)
        if op is None:
            return engine_ops.unmodelled(name, pos, kw, self.env)
        if name in LEAFWISE and pos and isinstance(pos[0], Seq):  # `lax.pmean(grads, 'data')`: leaf by leaf
            return map_leaves(
                pos[0],
                lambda leaf: (
                    self.apply_named(name, [leaf, *pos[1:]], kw, nodes, node, kwl, origin=origin)
                    if isinstance(leaf, ArrayType | Const)
                    else UNKNOWN
                ),
            )
        if name in SIZE_PARAMS:  # `jnp.eye(n)`: an int argument not known is the symbol `n`
            names = [p.name for p in op.signature.params]
            pos, kw = size_arguments(self, names, SIZE_PARAMS[name], pos, kw, nodes, node)
        labels = tuple(label(n) if n is not None else None for n in nodes)
        if fallback:  # operators: name an operand we cannot render by its side
            labels = tuple(lab or fb for lab, fb in zip(labels, fallback))
        try:
            # module-level statements run outside any trace (op by op): the engine may rely on it
            env = (
                self.env
                if self.parent is not None or self.env.eager
                else replace(self.env, eager=True, no_mesh=placements.context_mesh(self)[0] == "none")
            )
            out = engine_ops.run(op, pos, kw, labels, kwl, env)  # type: ignore[arg-type]
        except RuleError as e:
            self.report(_argument_node(op, e, nodes) or node, _related(self, e, pos, kw, labels, kwl, nodes, node))
            causes.note(self, node, causes.REPORTED, f"{e.code} at {short_name(name)}")
            return UNKNOWN
        out = _widths(op, name, origin, out, pos, kw, labels, kwl, env)
        return (
            origins.op_result(
                out,
                [*pos, *kw.values()],
                node,
                short_name(name),
                "out_sharding" in kw,
            )
            if isinstance(out, ArrayType | Seq)
            else out
        )


def _related(
    f: FrameState,
    e: RuleError,
    pos: list[Any],
    kw: dict[str, Any],
    labels: tuple[str | None, ...],
    kwl: dict[str, str] | None,
    nodes: list[Any],
    node: cst.CSTNode,
) -> RuleError:
    """An op's failure with its causes elsewhere: the placements of its operands (sharding codes; the items of
    a list written out, `jnp.concatenate([x, y])`, by their own labels), the calls whose arguments they are
    (shape codes)."""
    operands: list[tuple[str | None, Any]] = []
    for i, v in enumerate(pos):
        n = nodes[i] if i < len(nodes) else None
        if (
            isinstance(v, Seq)
            and isinstance(n, cst.List | cst.Tuple)
            and len(n.elements) == len(v.items)
            and not any(isinstance(x, cst.StarredElement) for x in n.elements)
        ):
            operands.extend((label(x.value), item) for x, item in zip(n.elements, v.items))
        else:
            operands.append((labels[i] if i < len(labels) else None, v))
    operands.extend(((kwl or {}).get(k), v) for k, v in kw.items())
    if e.code.startswith("NC8"):
        origins.relate_placements(e, operands)
    elif e.code.startswith(("NC2", "NC3")):
        origins.relate_calls(e, [v for _, v in operands])
        if e.code.startswith("NC2"):
            origins.relate_shapes(e, operands, node)
            made = [m[0] for _, v in operands if isinstance(v, ArrayType) and (m := origins.of(v).made) is not None]
            configs.relate_settings(f, e, [node, *made])
    elif e.code == NC603:  # a partly varying input: where it started varying
        for _, v in operands:
            for axis in sorted(v.varying) if isinstance(v, ArrayType) else ():
                started = origins.started_varying(v, axis)
                if started is not None:
                    e.relate(*started)
    return e


def _sequence_op(op: str, a: Any, b: Any) -> Seq | None:
    """Python list / tuple repetition and concatenation of known sequences (at most 256 items)."""
    if op == "jax.numpy.multiply":
        seq, n = (a, b) if isinstance(a, Seq) else (b, a)
        count = n.value if isinstance(n, Const) else n.dim if isinstance(n, DimVal) else None
        if (
            isinstance(seq, Seq)
            and seq.kind != "dict"
            and isinstance(count, int)
            and not isinstance(count, bool)
            and 0 <= count * len(seq.items) <= 256
        ):
            return iteration.bounded(Seq(seq.items * count, seq.kind))
    if (
        op == "jax.numpy.add"
        and isinstance(a, Seq)
        and isinstance(b, Seq)
        and a.kind == b.kind != "dict"
        and len(a.items) + len(b.items) <= 256
    ):
        return iteration.bounded(Seq(a.items + b.items, a.kind))
    return None


def _is_size(v: Any) -> bool:
    return isinstance(v, DimVal) or (isinstance(v, Const) and is_number(v.value))


_NUMBER_INFO = {"jax.numpy.finfo", "jax.numpy.iinfo", "numpy.finfo", "numpy.iinfo"}


def _is_array_scalar(node: cst.CSTNode, value: Any, code: str | None) -> bool:
    """`jnp.float32(1.0)`, `np.int32(3)`: a dtype object (an attribute, not a builtin's name) called on a number
    makes a rank-0 array of that dtype."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and code is not None
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
    )


def _python_number(node: cst.CSTNode, value: Any) -> Any:
    """A call of the builtin `float` / `int` on a constant: the Python number (Unknown where it raises)."""
    conv = {"float": float, "int": int}
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in conv):
        return UNKNOWN
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return UNKNOWN
    try:
        return Const(conv[node.func.value](value))
    except (ValueError, OverflowError):
        return UNKNOWN


def _argument_node(op: Any, e: RuleError, nodes: list[Any]) -> cst.CSTNode | None:
    """The argument a rule says its error is about (`data["at"]`, a parameter name), where it was passed
    positionally: the error is reported there (an einsum spec on its own line of a long call)."""
    at = e.data.get("at")
    names = [p.name for p in op.signature.params]
    if not isinstance(at, str) or at not in names:
        return None
    i = names.index(at)
    return nodes[i] if i < len(nodes) and isinstance(nodes[i], cst.CSTNode) else None


def _plain_lax_reshape(pos: list[Any], kw: dict[str, Any]) -> bool:
    """`lax.reshape(x, sizes[, None][, out_sharding=...])`: jnp.reshape's result (no `dimensions` transpose)."""
    dims = pos[2] if len(pos) > 2 else kw.get("dimensions", Const(None))
    return 2 <= len(pos) <= 3 and dims == Const(None) and set(kw) <= {"dimensions", "out_sharding"}


_OPEN = "**"  # a keyword `ev_args` gives for an unknown `**mapping`: the call is completed by `open_keywords`


def _origin(name: str) -> str:
    if name.startswith("einops."):
        return "value"  # einops computes with its input's library: a numpy array in, a numpy array out
    return "numpy" if name.startswith("numpy.") else "jax"


def _widths(
    op: Any,
    name: str,
    origin: str,
    out: Any,
    pos: list[Any],
    kw: dict[str, Any],
    labels: tuple[str | None, ...],
    kwl: dict[str, str] | None,
    env: AxisEnv,
) -> Any:
    """The result's dtypes with numpy's and x64's widths (analyzer/widths.py)."""
    if not isinstance(out, ArrayType | Seq):
        return out
    names = [p.name for p in op.signature.params]
    given, text = kw.get("dtype"), (kwl or {}).get("dtype")
    if given is None and "dtype" in names and names.index("dtype") < len(pos):
        i = names.index("dtype")
        given, text = pos[i], labels[i] if i < len(labels) else None
    # PRNG key data is uint32 whatever the widths (`PRNGKey`, `split`, `fold_in` under x64 too): a fixed dtype
    explicit = (given is not None and given != Const(None)) or name in widths.KEY_DATA
    keys = name.startswith("jax.random.")
    inputs = pos[:1] if name == "operator.getitem" else [*pos, *kw.values()]  # (an index's dtype is not the item's)
    return widths.result(out, origin, inputs, explicit, text in widths.BUILTIN_DTYPES, env, keys)


_BUILTIN_TYPES: dict[str, type] = {
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
}
_CONTAINERS = (list, tuple, dict, str)  # what an array never is (an int / float may be a numpy scalar)


def python_isinstance(f: Any, value: Any, types: cst.BaseExpression | None) -> Any:
    """`isinstance(v, list)`, `isinstance(v, (int, float))`, `isinstance(cost_fn, SqEuclidean)` where the answer is
    known: `v` a Python constant or a tuple / list / dict of known kind, or an array asked about containers (the
    types builtin names not rebound in the program), or an instance of a class of the program asked about
    classes of the program (classes.instance_of). Unknown otherwise (both branches of an `if` on it run)."""
    if isinstance(value, InstanceRef) and types is not None:
        return classes.instance_of(value, f.ev(types))
    wanted = _named_types(f, types)
    if wanted is None:
        return UNKNOWN
    if isinstance(value, Const) and type(value.value) in (type(None), bool, int, float, str):
        return Const(isinstance(value.value, wanted))
    if isinstance(value, Seq) and value.kind in ("list", "tuple", "dict"):
        return Const(issubclass(_BUILTIN_TYPES[value.kind], wanted))
    if isinstance(value, ArrayType) and all(t in _CONTAINERS for t in wanted):
        return Const(False)
    return UNKNOWN


def _named_types(f: Any, node: cst.BaseExpression | None) -> tuple[type, ...] | None:
    names = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node] if node is not None else []
    out: list[type] = []
    for n in names:
        if not (isinstance(n, cst.Name) and n.value in _BUILTIN_TYPES) or n.value in f.an.imports:
            return None
        g = f
        while g is not None:
            if n.value in g.vars:
                return None  # (a program's own `list`)
            g = g.parent
        out.append(_BUILTIN_TYPES[n.value])
    return tuple(out) or None


_SHAPE_FUNCTIONS = {f"{m}.{a}": a for m in ("jax.numpy", "numpy") for a in ("shape", "ndim", "size")}
_BROADCAST_SHAPES = {"jax.numpy.broadcast_shapes", "jax.lax.broadcast_shapes", "numpy.broadcast_shapes"}


def shape_function(attr: str, v: Any) -> Any:
    """`jnp.shape(x)`, `jnp.ndim(x)`, `jnp.size(x)`: the array's attribute (a Python number's: `()`, 0, 1)."""
    if isinstance(v, ArrayType):
        out = array_attribute(v, attr)
        return UNKNOWN if out is NotImplemented else out
    if isinstance(v, Const) and type(v.value) in (bool, int, float, complex):
        return {"shape": Seq(()), "ndim": Const(0), "size": Const(1)}[attr]
    return UNKNOWN


def broadcast_shapes_value(shapes: list[Any]) -> Any:
    """`lax.broadcast_shapes((3,), (2, 1))`: the broadcast shape of shapes of known int sizes (Unknown otherwise,
    and where they do not broadcast: the call raises)."""
    known: list[tuple[int, ...]] = []
    for sh in shapes:
        if not (isinstance(sh, Seq) and sh.kind in ("tuple", "list")):
            return UNKNOWN
        sizes = [i.value for i in sh.items if isinstance(i, Const) and type(i.value) is int]
        if len(sizes) != len(sh.items):
            return UNKNOWN
        known.append(tuple(sizes))
    rank = max((len(k) for k in known), default=0)
    out: list[int] = []
    for i in range(rank):
        dims = {k[len(k) - rank + i] for k in known if len(k) - rank + i >= 0} - {1}
        if len(dims) > 1:
            return UNKNOWN
        out.append(dims.pop() if dims else 1)
    return Seq(tuple(Const(d) for d in out))
