"""Analyse one module: imports, function signatures, interprocedural calls, located diagnostics."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer import causes, configs, iteration, jaxconfig, mutation, origins, pytest_entry, widths
from namedcheck.analyzer.budget import CallCut, Guard
from namedcheck.analyzer.configs import ProgramState
from namedcheck.analyzer.coverage import CoverageCounter
from namedcheck.analyzer.frame import Frame
from namedcheck.analyzer.imports import absolute_import
from namedcheck.analyzer.literals import stated
from namedcheck.analyzer.memo import CallLog, memo_key
from namedcheck.analyzer.parsing import walk
from namedcheck.analyzer.positions import positions_of
from namedcheck.analyzer.refs import BuildingRef, ClassInfo, FuncRef, InstanceRef, MappedRef, QualRef
from namedcheck.analyzer.suppressions import comments, may_judge, removal, suppressed
from namedcheck.diagnostic import Diagnostic, Related, merge_contexts
from namedcheck.engine.codes import CODES, NC002, NC302
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import AxisEnv, check_cooccurrence
from namedcheck.engine.ops import Op
from namedcheck.engine.signature import (
    KWONLY,
    NORMAL,
    POSONLY,
    VARARGS,
    VARKW,
    Param,
    Signature,
    apply,
    bind,
    declared_value,
)
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq, join

MAX_CALL_DEPTH = 12
STEP_BUDGET_BASE = 5_000
STEP_BUDGET_PER_STMT = 20
CALL_STEPS = 5  # a followed call counts as this many statements
MAX_CONTEXTS = 8  # other analysis contexts of one finding kept for its notes
MAX_RECURSION = 2  # calls of one function active at once (recursion with growing arguments is not followed)
# (`jax.default_prng_impl("rbg")` and `jax.enable_custom_prng()` are context managers setting the same flags)
_PRNG_CONFIG = re.compile(r"enable_custom_prng|default_prng_impl|JAX_ENABLE_CUSTOM_PRNG|JAX_DEFAULT_PRNG_IMPL")


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


def _extra_keywords(sig: Signature, values: dict[str, Any]) -> Any:
    """`**kwargs` of a call: a dict of the keywords no other parameter takes; Unknown where the call spread a
    mapping not known (`calls.open_keywords` leaves its `**` there)."""
    named = {p.name for p in sig.params}
    extra = {k: v for k, v in values.items() if k not in named}
    if "**" in extra:
        return UNKNOWN
    return Seq(tuple(Seq((Const(k), v)) for k, v in extra.items()), "dict")


class ModuleAnalyzer:
    value_log: list[tuple[cst.CSTNode, Any]] | None = None  # set by the editor front end (namedcheck/lsp)
    # an editor's open file loaded as a dependency: the values its importers' calls give its expressions, with
    # their outermost call (hover shows what a function is called with, and from where)
    call_values: list[tuple[cst.CSTNode, Any, Any]] | None = None
    why_log: list[tuple[cst.CSTNode, Any]] | None = None  # (expression, cause of its lost value): the editor's
    coverage: CoverageCounter | None = None  # set by `Session.check` for a checked file (analyzer/coverage.py)
    # every name binding's (target name node, value), each analysis of it; set by `namedcheck types`
    # (analyzer/bindings.py)
    bindings: list[tuple[cst.CSTNode, Any, Any]] | None = None

    def __init__(
        self,
        module: cst.Module,
        ops: dict[str, Op],
        record: bool = False,
        record_types: bool = False,
        project: Any = None,
        modname: str | None = None,
        is_package: bool = False,
        dependency: bool = False,
    ) -> None:
        self.module = module
        # whole-project analysis (analyzer/project.py): the project, this module's dotted name, and
        # whether it runs as a quiet dependency of a checked file (body only, no standalone analyses)
        self.project = project
        self.modname = modname
        self.is_package = is_package
        self.dependency = dependency
        self.top: Frame | None = None
        self._globals_changed: frozenset[str] | None = None
        self.path: Any = None
        self.file: Any = None  # the checked file's path (`path` is set for the project's dependencies)
        self.source: str | None = None  # the file's text, where the front end has it (saves a code generation)
        self._yields: bool | None = None  # whether that text has `yield` (yields_somewhere)
        # expression node id -> (node, value) of the module body and of functions analysed under their
        # own annotations (what mypy sees); filled only for the mypy plugin
        self.types: dict[int, tuple[cst.CSTNode, Any]] | None = {} if record_types else None
        self.ops = ops
        self.imports: dict[str, str] = {}
        self.found: dict[tuple[int, str], tuple[cst.CSTNode, RuleError]] = {}
        # the same code at the same node in other analysis contexts (other calls): notes of its diagnostic
        self.also: dict[tuple[int, str], list[RuleError]] = {}
        # call analyses: key -> (result, what it reported (replayed on a hit), complete: no bound cut it short)
        self.memo: dict[Any, tuple[Any, tuple[Any, ...], bool]] = {}
        self.partial_memos: list[Any] = []  # keys of `memo` entries made incomplete (forgotten per checked file)
        self.log: CallLog = getattr(project, "log", None) or CallLog()
        self.program: ProgramState = getattr(project, "program", None) or ProgramState()
        self.active: set[Any] = set()
        self.depth = 0
        self.signatures: dict[int, tuple[Signature, Frame]] = {}
        self.record = record
        self.revealed: list[tuple[cst.CSTNode, Any]] = []
        self.analysed: set[int] = set()
        self.mapped: set[int] = set()  # functions decorated by a map
        self.under_map: set[int] = set()  # functions analysed with a map's axes in scope
        self.unbound_names: list[tuple[FuncRef | MappedRef, cst.CSTNode, RuleError]] = []  # NC705, decided last
        self._escaping: set[str] | None = None
        self._prng_configured: bool | None = None
        self.device_count: int | None = None  # the run's device count, where module code states it
        # the count the run states (configuration, the program's XLA_FLAGS; analyzer/devices.py); None: `ndev`
        self.devices: int | None = getattr(project, "devices", None)
        self.devices_read = False  # the analysis read the device count
        self.func_flags: dict[int, Any] = {}  # JAX flags a decorator sets on a function's body (analyzer/jaxconfig.py)
        self.checker_only: set[int] = set()  # functions whose only decorators are run-time checkers (`@jaxtyped`)
        self.traced: set[int] = set()  # functions `@jax.jit` (and the like) traces: their arguments are JAX arrays
        self.sets_flags: frozenset[str] = frozenset()  # JAX flags the module's functions set (callers lose them)
        self._device_counts: set[int] = set()
        self._enclosing: dict[int, cst.FunctionDef] | None = None
        self._positions: Any = None
        # Work bound: statements analysed. Past it, calls are no longer followed into bodies (their
        # results are Unknown), so analysis time stays roughly linear in the file's size.
        self.steps = 0
        # a function of this module calls jax.set_mesh: after a call of one, the caller's context mesh is not known
        self.sets_mesh = False
        self.budget = STEP_BUDGET_BASE + STEP_BUDGET_PER_STMT * _count_statements(module)
        self.guard: Guard | None = None  # the file's time and memory budgets (analyzer/budget.py)
        self.running: dict[int, int] = {}  # function node id -> its calls being analysed now
        # suppressions (analyzer/suppressions.py): the mypy plugin (the one front end recording types) leaves
        # `# type: ignore` to mypy, which honours and judges it; unused ones (NC002) are judged only when the
        # file's analysis was whole (no call cut short by a bound, no budget, not a quiet dependency)
        self.host_type_ignores = record_types
        self.judge_suppressions = not dependency
        self.cuts_at_start = self.log.cuts

    # ---- bookkeeping -----------------------------------------------------------------------------
    def report(self, node: cst.CSTNode, err: RuleError) -> None:
        key = (id(node), err.code)
        if key not in self.found:
            self.found[key] = (node, err)
        elif not self.another_context(key, (node, err)):
            return
        if self.log.recording:
            self.log.recording[-1].append((self, key, (node, err)))

    def another_context(self, key: tuple[int, str], item: tuple[cst.CSTNode, RuleError]) -> bool:
        """The code found again at a node, in another analysis context: kept (a few) for its diagnostic's notes
        when it says something else; whether it was."""
        err = item[1]
        first = self.found[key][1]
        others = self.also.setdefault(key, [])
        if len(others) >= MAX_CONTEXTS or any(_same_finding(e, err) for e in (first, *others)):
            return False
        others.append(err)
        return True

    def file_guard(self) -> Guard | None:
        """The checked file's budget: this analyzer's own, or (a project module analysed for a checked file)
        its project's, which that file's analysis set."""
        return self.guard if self.guard is not None else getattr(self.project, "guard", None)

    def globals_changed(self) -> frozenset[str]:
        """The module-level names a function of the module changes when it runs (computed once)."""
        if self._globals_changed is None:
            self._globals_changed = mutation.globals_changed_by_functions(
                self.source if self.source is not None else self.module.code
            )
        return self._globals_changed

    def call_root(self) -> CallPath | None:
        """The calls the checked file's analysis follows now, the outermost first (each its caller's analyzer and
        node), if any."""
        guard = self.file_guard()
        return guard.call_root if guard is not None else None

    def checkpoint(self) -> None:
        """Raise `budget.BudgetExceeded` once the file's time or memory budget is spent."""
        guard = self.file_guard()
        if guard is not None:
            guard.checkpoint()

    def reveal(self, stmt: cst.CSTNode, value: Any) -> None:
        if self.record:
            self.revealed.append((stmt, value))

    def add_import(self, s: cst.Import | cst.ImportFrom) -> None:
        if isinstance(s, cst.Import):
            for a in s.names:
                full = _dotted(a.name)
                if full is None:
                    continue
                if a.asname is not None and isinstance(a.asname.name, cst.Name):
                    self.imports[a.asname.name.value] = full
                else:
                    top = full.split(".")[0]
                    self.imports[top] = top
        else:
            if isinstance(s.names, cst.ImportStar):
                return
            mod = _dotted(s.module) if s.module is not None else None
            if s.relative:
                mod = self._absolute(mod, len(s.relative))
            if mod is None:
                return
            for a in s.names:
                name = _dotted(a.name)
                if name is None:
                    continue
                local = a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name) else name
                self.imports[local] = f"{mod}.{name}"

    def _absolute(self, mod: str | None, level: int) -> str | None:
        """A relative import's module, where this module's dotted name is known."""
        if self.modname is None:
            return None
        return absolute_import(mod, level, self.modname, self.is_package)

    def import_value(self, name: str) -> Any:
        """The value of an imported name: a project module's function, class, constant or module when
        the project knows it, else a `QualRef` to the library name."""
        q = self.imports[name]
        if self.project is not None and self.project.owns(q):
            v = self.project.resolve(q)
            return v if v is not None else UNKNOWN
        return QualRef(q)

    def export(self, name: str) -> Any:
        """A module-level name as other modules import it (None when this module does not bind it)."""
        if self.top is not None and name in self.top.vars:
            v = self.top.vars[name]
            if name in self.globals_changed() and not isinstance(v, FuncRef | ClassInfo | QualRef):
                # a module-level value a function of this module changes (a cache, a registry, `global N`):
                # read elsewhere, it holds whatever ran before, not what the module body gave it
                return UNKNOWN
            return v
        if name in self.imports:  # a re-export (`from .layers import Dense` in `__init__.py`)
            return self.import_value(name)
        return None

    def reset_calls(self) -> None:
        """A new checked file: forget the diagnostics of the last one and the call analyses that depended on
        where they were called from (cut short by a depth, recursion or work bound); complete ones are kept
        with the diagnostics they found, which a later call replays (`CallLog`)."""
        for k in self.partial_memos:
            entry = self.memo.get(k)
            if entry is not None and not entry[2]:
                del self.memo[k]
        self.partial_memos = []
        self.active.clear()
        self.found.clear()
        self.also.clear()
        self.unbound_names = []
        self.steps = 0
        self.depth = 0

    def prng_configured(self) -> bool:
        """Whether the module configures JAX's PRNG (custom / typed keys, another default implementation):
        then a raw key's shape is not the default one."""
        if self._prng_configured is None:
            text = self.source if self.source is not None else self.module.code
            self._prng_configured = _PRNG_CONFIG.search(text) is not None
        return self._prng_configured

    def note_device_count(self, n: int) -> None:
        """Module code laid out all devices as `n`: the run has `n` devices (two different counts: unknown)."""
        self._device_counts.add(n)
        self.device_count = n if self._device_counts == {n} else None

    # ---- the walk --------------------------------------------------------------------------------
    def run(self) -> None:
        # module code runs outside any map: a name no map or mesh around a collective binds is unbound (NC705)
        text = self.source if self.source is not None else self.module.code
        flags, self.sets_flags = jaxconfig.scan(self.module, text, self.file if self.file is not None else self.path)
        top = Frame(self, None, env=AxisEnv(definitive=True, flags=flags))
        self.top = top
        # Module-level functions are visible from every body, whatever their order in the file.
        for s in self.module.body:
            if isinstance(s, cst.FunctionDef):
                top.vars[s.name.value] = FuncRef(s, top, s.name.value)
        if self.dependency:  # imported, not run as a script: its `__main__` block does not run
            top.quiet = True
            top.run_block([s for s in self.module.body if not _is_main_guard(s)])
            return
        for s in self.module.body:
            if top.ended:
                break
            if _is_main_guard(s):  # run as a script: the block runs, and it is the program's entry point
                assert isinstance(s, cst.If)
                top.entry = True
                top.run_block(s.body)
                top.entry = False
            else:
                top.run_stmt(s)
        if not top.ended and pytest_entry.is_test_module(self.file):
            pytest_entry.run_tests(top, self.file)  # pytest calls its tests with their parameters and fixtures

    def signature(self, ref: FuncRef) -> Signature:
        cached = self.signatures.get(id(ref.node))
        if cached is not None:
            return cached[0]
        f: Frame = ref.scope
        p = ref.node.params
        checked = self._checked_at_run_time(ref)
        params: list[Param] = []
        for i, prm in enumerate([*p.posonly_params, *p.params]):
            params.append(
                Param(
                    prm.name.value,
                    POSONLY if i < len(p.posonly_params) else NORMAL,
                    prm.default is not None,
                    self._param_annotation(f, prm, checked),
                )
            )
        if isinstance(p.star_arg, cst.Param):
            params.append(Param(p.star_arg.name.value, VARARGS, True, None))
        for prm in p.kwonly_params:
            params.append(
                Param(prm.name.value, KWONLY, prm.default is not None, self._param_annotation(f, prm, checked))
            )
        if p.star_kwarg is not None:
            params.append(Param(p.star_kwarg.name.value, VARKW, True, None))
        returns = None
        if isinstance(ref.node, cst.FunctionDef) and ref.node.returns is not None:
            returns = stated(f.annotation(ref.node.returns.annotation), checked)
        sig = Signature(f"`{ref.name}`", tuple(params), returns)
        self.signatures[id(ref.node)] = (sig, f)
        return sig

    @staticmethod
    def _param_annotation(f: Frame, prm: cst.Param, checked: bool) -> Any:
        if prm.annotation is None:
            return None
        a = stated(f.annotation(prm.annotation.annotation), checked)
        return a if isinstance(a, ArrayType) else None

    def _checked_at_run_time(self, ref: FuncRef) -> bool:
        """Whether jaxtyping checks the function's annotations when it runs: a run-time checker decorates it
        (`@jaxtyped(typechecker=beartype)`, `@beartype`, `@typechecked`) or the module installs jaxtyping's
        import hook."""
        if "install_import_hook" in (getattr(self, "source", None) or ""):
            return True
        f: Frame = ref.scope
        return any(f.run_time_checker(d.decorator) for d in getattr(ref.node, "decorators", ()))

    def _defaults(self, ref: FuncRef) -> dict[str, Any]:
        f: Frame = ref.scope
        out = {}
        p = ref.node.params
        for prm in [*p.posonly_params, *p.params, *p.kwonly_params]:
            if prm.default is not None:
                out[prm.name.value] = f.ev(prm.default)
        return out

    def body_values(
        self,
        ref: FuncRef,
        values: dict[str, Any],
        extra: tuple[Any, ...],
        declared_return: Any,
        lenient: bool,
        quiet: bool = False,
        env: AxisEnv | None = None,
        standalone: bool = False,
        nc705_owner: FuncRef | MappedRef | None = None,
        entry: bool = False,
        settings: dict[str, Any] | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> Any:
        """Analyse a function body with parameters bound to `values`; the joined return value.
        `nc705_owner`: the function analysed on its own that this call is part of (NC705 waits for it)."""
        frame = Frame(self, ref.scope, declared_return, lenient, quiet, env, ref if standalone else None)
        frame.code = ref.node  # the function running (`super()` finds its class)
        if id(ref.node) in self.func_flags:  # `@config.<flag>(value)` on the function
            frame.env = jaxconfig.applied(frame.env, self.func_flags[id(ref.node)])
        frame.nc705_owner = nc705_owner
        frame.entry = entry
        if settings:
            frame.setting_names = dict(settings)  # parameters given settings (`analyzer/configs.passed_settings`)
        if arguments:
            frame.arguments = arguments  # the call site's argument expressions (`configs.relate_argument`)
        frame.param_tokens = frozenset(configs.tokens_of(values.values()))
        sig = self.signature(ref)
        # a default is the value only when a call leaves the parameter out: a function analysed on its own
        # may be called with anything (its callers are analysed with what they pass)
        defaults = {} if standalone else self._defaults(ref)
        for prm in sig.params:
            if prm.kind == VARARGS:  # analysed on its own, `*args` may hold anything
                frame.vars[prm.name] = UNKNOWN if standalone else Seq(extra)
            elif prm.kind == VARKW:  # the call's other keywords (Unknown analysed on its own or given `**unknown`)
                frame.vars[prm.name] = UNKNOWN if standalone else _extra_keywords(sig, values)
            else:
                v = values.get(prm.name, defaults.get(prm.name, UNKNOWN))
                if id(ref.node) in self.traced:
                    v = widths.traced(v, frame.env)
                if v is UNKNOWN and isinstance(prm.annotation, ArrayType):
                    # unknown at the call: the body's own annotation (which says nothing of varying axes)
                    v = declared_value(prm.annotation, UNKNOWN, frame.env.manual)
                frame.vars[prm.name] = v
        if self.bindings is not None and isinstance(ref.node, cst.FunctionDef | cst.Lambda):
            p = ref.node.params
            star = [a for a in (p.star_arg, p.star_kwarg) if isinstance(a, cst.Param)]
            for node in [*p.posonly_params, *p.params, *p.kwonly_params, *star]:
                self.bindings.append((node.name, frame.vars.get(node.name.value, UNKNOWN), self.call_root()))
        if self.coverage is not None:
            frame.defining = ref.node
            causes.parameters(frame, ref, standalone, arguments or {})
        if isinstance(ref.node, cst.Lambda):
            out = frame.ev(ref.node.body)
            if self.coverage is not None:
                self.coverage.returning(ref.node, ref.node.body, out)
            return out
        if self.yields_somewhere() and iteration.is_generator(ref.node):  # calling it gives an iterator of its items
            frame.yields = []
            frame.run_block(ref.node.body)
            return iteration.generated(frame.yields)
        frame.run_block(ref.node.body)
        rets = frame.returns or [Const(None)]
        return join(rets)

    def yields_somewhere(self) -> bool:
        """Whether the module's text has `yield` at all (else none of its functions is a generator)."""
        if self._yields is None:
            self._yields = "yield" in (self.source if self.source is not None else self.module.code)
        return self._yields

    def _standalone_binding(self, ref: FuncRef, me: Any = None) -> tuple[dict[str, Any], AxisEnv, Signature]:
        """A function's parameters analysed on its own (annotated ones their types, the rest Unknown; a method's
        `self` the instance `me`, by default its class's instance with typed fields), the axis environment, and
        its signature."""
        sig = self.signature(ref)
        values: dict[str, Any] = {p.name: p.annotation for p in sig.params if isinstance(p.annotation, ArrayType)}
        for prm in ref.node.params.params if isinstance(ref.node, cst.FunctionDef) else ():  # a stated sharding
            if prm.name.value in values and prm.annotation is not None:
                values[prm.name.value] = origins.placed(values[prm.name.value], prm.annotation, keep_written=False)
        scope_env: AxisEnv = ref.scope.env
        declared = frozenset(n for v in values.values() for n, _ in v.named)
        env = AxisEnv(
            mesh=scope_env.mesh,
            definitive=bool(values),
            declared=declared,
            mesh_set=scope_env.mesh_set,
            flags=scope_env.flags,
        )
        if ref.owner is not None and sig.params and sig.params[0].annotation is None:
            values[sig.params[0].name] = me if me is not None else InstanceRef(ref.owner)  # `self`: fields typed
            env = replace(env, declared=declared | {n for t in ref.owner.fields.values() for n, _ in t.named})
        return values, env, sig

    def built_by(self, ref: FuncRef, cls: Any) -> tuple[tuple[str, Any], ...] | None:
        """What a builder of `cls` (`__init__`, a linen module's `setup`, a method of this module) assigns to
        `self` when it runs as analysed on its own (its parameters Unknown unless annotated): the building
        instance's values, computed quietly (its own analysis reports) once per class; None past the call bounds
        or while it is being computed."""
        key = memo_key(("built by", id(ref.node), ref.scope, cls))
        if key is None or key in self.active:
            return None
        hit = self.memo.get(key)
        if hit is not None:
            out: Any = self.log.replayed(hit)
            return out
        if self.depth >= MAX_CALL_DEPTH or self.steps > self.budget:
            self.log.cuts += 1  # what it would find depends on where it is asked from
            return None
        building = BuildingRef(cls, {})
        values, env, sig = self._standalone_binding(ref, building)

        def run() -> tuple[tuple[str, Any], ...]:
            self.body_values(ref, values, (), sig.returns, lenient=False, quiet=True, env=env, standalone=True)
            return tuple(building.values.items())

        self.checkpoint()
        self.steps += CALL_STEPS
        self.active.add(key)
        self.depth += 1
        try:
            built: tuple[tuple[str, Any], ...] = self.memoised(key, run)
        finally:
            self.depth -= 1
            self.active.discard(key)
        return built

    def analyse_standalone(self, ref: FuncRef) -> None:
        """A function's body under its own annotations (unannotated parameters are Unknown)."""
        if id(ref.node) in self.analysed or self.dependency:
            return
        self.analysed.add(id(ref.node))
        values, env, sig = self._standalone_binding(ref)
        self.depth += 1
        running = self.running.get(id(ref.node), 0)
        self.running[id(ref.node)] = running + 1
        try:
            self.body_values(ref, values, (), sig.returns, lenient=False, env=env, standalone=True)
        finally:
            self.depth -= 1
            self.running[id(ref.node)] = running

    def call_function(
        self,
        ref: FuncRef,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        node: cst.CSTNode,
        caller: Frame,
        as_map_body: bool = False,
    ) -> Any:
        """A call to a function of this module: check against its signature, or analyse its body."""
        sig = self.signature(ref)
        b = bind(sig.params, pos, kw)
        if b is None:
            causes.note(caller, node, causes.PYTHON, "arguments that do not bind to the signature")
            return UNKNOWN
        values, extra = b
        if ref.traced:  # `jax.jit(f)(x)`: a numpy float64 array is float32 inside (without x64)
            values = {k: widths.traced(v, caller.env) for k, v in values.items()}
            extra = tuple(widths.traced(v, caller.env) for v in extra)
        from namedcheck.analyzer.scope import label

        names = [p.name for p in sig.params]
        labels = {names[i]: lab for i, n in enumerate(nodes) if i < len(names) and n is not None and (lab := label(n))}
        result: Any = UNKNOWN
        if sig.annotated or sig.returns is not None:
            try:
                result = apply(sig, values, NC302, labels)
            except RuleError as e:
                if e.code.startswith("NC8"):
                    origins.relate_placements(e, [(labels.get(k), v) for k, v in values.items()])
                elif e.code.startswith(("NC2", "NC3")):
                    origins.relate_calls(e, list(values.values()))
                caller.report(node, e)
                return UNKNOWN
        in_map = bool(caller.env.named or caller.env.manual)
        if in_map:
            self.under_map.add(id(ref.node))
        # a body run eagerly is analysed even under a return annotation: what JAX checks only outside a trace
        # (eager gathers, committed arguments) is found nowhere else
        eager = self._runs_eagerly(ref, node, caller)
        # a return annotation with parameters left open is not the whole contract: what the body does with the
        # arguments this call passes is checked as for an unannotated function (the annotation is still the result)
        open_params = sig.returns is not None and any(
            p.annotation is None and p.kind in (POSONLY, NORMAL, KWONLY) and p.name not in ("self", "cls")
            for p in sig.params
        )
        whole_body = eager or open_params
        if sig.returns is not None and not (as_map_body or in_map or whole_body):
            try:
                check_cooccurrence(result, caller.env)
            except RuleError as e:
                caller.report(node, e)
                return UNKNOWN
            return result
        self.steps += CALL_STEPS
        env = caller.env if caller.env.eager == eager else replace(caller.env, eager=eager)
        # the defining scope is part of the key: a nested function sees its enclosing call's values
        key = memo_key(
            (id(ref.node), ref.scope, tuple(sorted(values.items())), extra, caller.silent, env, caller.entry)
        )
        running = self.running.get(id(ref.node), 0)
        hit = self.memo.get(key) if key is not None else None
        guard = self.file_guard()  # (nested calls across modules count toward its depth)
        if hit is not None:
            out = origins.forget(self.log.replayed(hit))  # found for another call: its origins are not ours
        elif (
            self.depth >= MAX_CALL_DEPTH
            or (guard is not None and guard.call_depth >= MAX_CALL_DEPTH)  # nested across modules
            or (key is not None and key in self.active)
            or self.steps > self.budget
            or running >= MAX_RECURSION
        ):
            self.log.cuts += 1  # what this call would find depends on where it is made from
            causes.note(caller, node, causes.BUDGET, "call depth, recursion or step budget")
            return UNKNOWN
        else:
            self.checkpoint()
            if key is not None:
                self.active.add(key)
            self.depth += 1
            self.running[id(ref.node)] = running + 1
            outermost = guard is not None and guard.call_deadline is None
            outer_path = guard.call_root if guard is not None else None
            if guard is not None:
                guard.call_depth += 1
                if outermost:
                    guard.call_deadline = guard.call_share()
                # the calls followed now, from the outermost in: where the values they give come from
                guard.call_root = (*(() if outermost or outer_path is None else outer_path), (caller.an, node))
            owner = caller.function if caller.function is not None else caller.nc705_owner
            passed = {
                k: origins.passed(v, node, nodes[names.index(k)] if k in names[: len(nodes)] else None, k)
                for k, v in values.items()
            }  # the call site, a cause of what the body finds
            counter = self.coverage
            saved = counter.caller if counter is not None else None
            if counter is not None:
                counter.caller = caller  # the arguments' causes (analyzer/causes.parameters)
            try:
                out = self.memoised(
                    key,
                    lambda: self.body_values(
                        ref,
                        passed,
                        extra,
                        None,
                        lenient=True,
                        quiet=caller.silent,
                        env=env,
                        nc705_owner=owner,
                        entry=caller.entry,
                        settings=configs.passed_settings(caller, names, nodes, node),
                        arguments=configs.arguments_of(names, nodes, node),
                    ),
                )
            except CallCut:
                if not outermost:
                    raise
                self.log.cuts += 1  # the call's result is unknown; the rest of the file is still checked
                out = UNKNOWN
            finally:
                if counter is not None:
                    counter.caller = saved
                self.depth -= 1
                self.running[id(ref.node)] = running
                if key is not None:
                    self.active.discard(key)
                if guard is not None:
                    guard.call_depth -= 1
                    guard.call_root = None if outermost else outer_path
                    if outermost:
                        guard.call_deadline = None
        if out is UNKNOWN and sig.returns is not None:
            return declared_value(result, UNKNOWN, caller.env.manual)
        if whole_body and sig.returns is not None and not (as_map_body or in_map):
            return result  # the annotation states what the call gives, as without the body's analysis
        return origins.returned(out, node)

    def _runs_eagerly(self, ref: FuncRef, node: cst.CSTNode, caller: Frame) -> bool:
        """Whether this call runs the function's body op by op, outside any trace (`AxisEnv.eager`): a direct
        call `f(...)`, from code that runs eagerly (module-level statements, or such a body), of an undecorated
        function (or one decorated only by run-time checkers, `@jaxtyped(typechecker=beartype)`) of this module whose name is never used but to call it (so never jitted, mapped or
        rebound)."""
        return (
            (caller.parent is None or caller.env.eager)
            and not caller.env.named
            and not caller.env.manual
            and caller.an is self
            and ref.owner is None
            and isinstance(ref.node, cst.FunctionDef)
            and (not ref.node.decorators or id(ref.node) in self.checker_only)
            and isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == ref.name
            and not self.escapes(ref)
        )

    def memoised(self, key: Any, compute: Any) -> Any:
        """`compute()` once per key (None: not memoised): its value, with what it reported recorded and replayed
        on each later hit (see `CallLog`)."""
        log = self.log
        if log.models:  # a flax init / apply collecting the parameters its layers make: every layer must run
            key = None
        hit = self.memo.get(key) if key is not None else None
        if hit is not None:
            return log.replayed(hit)
        cuts = log.cuts
        log.recording.append([])
        try:
            out = compute()
        finally:
            effects = log.recording.pop()
            if log.recording:
                log.recording[-1].extend(effects)
        if key is not None:
            self.memo[key] = (out, tuple(effects), log.cuts == cuts)
            if log.cuts != cuts:
                self.partial_memos.append(key)
        return out

    def escapes(self, ref: FuncRef) -> bool:
        """Whether a function is used other than by direct calls (passed to a map, stored, decorated
        by one): then a name its body uses may be bound where it is called."""
        if id(ref.node) in self.mapped or isinstance(ref.node, cst.Lambda):
            return True
        if self._escaping is None:
            self._escaping = _escaping_names(self.module)
        return ref.name in self._escaping

    # ---- results ---------------------------------------------------------------------------------
    def defer_unbound_name(self, ref: FuncRef | MappedRef, node: cst.CSTNode, err: RuleError) -> None:
        """NC705 found analysing a function on its own: reported at the end unless the function turns
        out to run under a map (called from a map body, passed to one, or used as a value); found analysing a
        map's body where the map is written (`ref` the map): reported unless the map is passed to another."""
        self.unbound_names.append((ref, node, err))
        if self.log.recording:
            self.log.recording[-1].append((self, None, (ref, node, err)))

    def _settle_unbound_names(self) -> None:
        for ref, node, err in self.unbound_names:
            if isinstance(ref, MappedRef):
                if not ref.wrapped:
                    self.report(node, err)
            elif id(ref.node) not in self.under_map and not self.escapes(ref) and not self._enclosing_may_map(ref):
                self.report(node, err)
        self.unbound_names = []

    def _enclosing_may_map(self, ref: FuncRef) -> bool:
        """A function defined inside another runs when that one runs: if an enclosing function may run
        under a map (called from a map body, passed to one), so may this one."""
        if self._enclosing is None:
            self._enclosing = _enclosing_functions(self.module)
        outer = self._enclosing.get(id(ref.node))
        while outer is not None:
            if (
                id(outer) in self.under_map
                or id(outer) in self.mapped
                or self.escapes(FuncRef(outer, None, outer.name.value))
            ):
                return True
            outer = self._enclosing.get(id(outer))
        return False

    def diagnostics(self, path: str, lines: list[str]) -> list[Diagnostic]:
        self._settle_unbound_names()
        judge = self.judge_suppressions and self.log.cuts == self.cuts_at_start and may_judge("\n".join(lines))
        if not self.found and not self.revealed and not judge:
            return []
        positions = self.positions()
        out = []
        seen: dict[int, set[str]] = {}  # line -> the codes found there, silenced or not
        for key, (node, err) in list(self.found.items()):
            if node not in positions:  # a node of another project module (a map written there, called here)
                owner = self._owner_of(node)
                if owner is not None:  # reported in its own file, with its diagnostics
                    for e in (err, *self.also.get(key, ())):
                        if key not in owner.found:
                            owner.found[key] = (node, e)
                        else:
                            owner.another_context(key, (node, e))
                continue
            r = positions[node]
            seen.setdefault(r.start.line, set()).add(err.code)
            line_text = lines[r.start.line - 1] if r.start.line - 1 < len(lines) else ""
            if suppressed(line_text, err.code, not self.host_type_ignores):
                continue
            for e in (err, *self.also.get(key, ())):  # the other contexts become its notes (merge_contexts)
                out.append(
                    Diagnostic(
                        path,
                        r.start.line,
                        r.start.column + 1,
                        r.end.line,
                        r.end.column + 1,
                        e.code,
                        e.message,
                        e.hint,
                        severity=getattr(CODES.get(e.code), "severity", "error"),
                        data=e.data,
                        related=self.related_locations(path, e),
                    )
                )
        if judge:
            out.extend(self.unused_suppressions(path, lines, seen))
        return merge_contexts(out)

    def unused_suppressions(self, path: str, lines: list[str], seen: dict[int, set[str]]) -> list[Diagnostic]:
        """NC002 for each NC code of a suppression comment that silenced nothing on its line, on lines of
        the analysed statements; inside functions only when no other project module imports this one (a
        call from there may need it). A line whose comments silence NC002 itself is not judged."""
        marks = comments("\n".join(lines) + "\n")
        if not marks:
            return []
        positions = self.positions()
        spans = [positions[st] for st in self.module.body if st in positions]
        inside = [(r.start.line, r.end.line) for r in spans]
        if self._imported_elsewhere():
            functions = [positions[f] for f in _functions(self.module) if f in positions]
            outside_functions = [(r.start.line, r.end.line) for r in functions]
        else:
            outside_functions = []
        out = []
        for line, found in sorted(marks.items()):
            if not any(a <= line <= b for a, b in inside) or any(a <= line <= b for a, b in outside_functions):
                continue
            codes = seen.get(line, set())
            text = lines[line - 1] if line - 1 < len(lines) else ""
            if suppressed(text, NC002, not self.host_type_ignores):  # NC002 named, or a bare marker
                continue
            for s in found:
                if s.kind == "type" and self.host_type_ignores:
                    continue
                unused = [(c, a, b) for c, a, b in s.judged() if not s.used_by(c, codes)]
                if not unused:
                    continue
                named = ", ".join(c for c, _, _ in unused if c) or "every code"
                kind = {"noqa": "# noqa", "type": "# type: ignore", "namedcheck": "# namedcheck: ignore"}[s.kind]
                start, end, new = removal(text, s, unused)
                col = (unused[0][1] if unused[0][0] else s.start) + 1
                end_col = (unused[-1][2] if unused[-1][0] else s.end) + 1
                out.append(
                    Diagnostic(
                        path,
                        line,
                        col,
                        line,
                        end_col,
                        NC002,
                        f"`{kind}` names {named}, which nothing reports on this line",
                        data={"codes": [c for c, _, _ in unused], "edit": [start + 1, end + 1, new]},
                    )
                )
        return out

    def _imported_elsewhere(self) -> bool:
        """Whether another module of the project imports this one (unknown: yes)."""
        if self.project is None:
            return False
        try:
            return bool(self.project.importers_of([self.file])) if self.file is not None else True
        except Exception:
            return True

    def related_locations(self, path: str, err: RuleError) -> tuple[Related, ...]:
        """`err`'s causes elsewhere located: a node of this module (in `path`) or of another loaded project
        module (in its file), or a location given as such; anchors not found are left out."""
        out: list[Related] = []
        asides: list[Related] = []
        for anchor, message in err.related:
            if isinstance(anchor, Related):
                out.append(anchor)
                continue
            aside = isinstance(anchor, origins.Aside)
            if aside:
                anchor = anchor.node
            where: tuple[str, Any] | None = None
            positions = self.positions()
            if anchor in positions:
                where = (path, positions[anchor])
            else:
                owner = self._owner_of(anchor)
                target = getattr(self.project, "target", None)  # the checked file whose call found it
                if owner is not None and owner.path is not None:
                    where = (self.project.display(owner.path), owner.positions()[anchor])
                elif target is not None and target[0] is not self and anchor in target[0].positions():
                    where = (target[1], target[0].positions()[anchor])
            if where is not None:
                r = where[1]
                rel = Related(where[0], r.start.line, r.start.column + 1, r.end.line, r.end.column + 1, message)
                (asides if aside else out).append(rel)
        lines = {(r.path, r.line) for r in out}
        for r in asides:  # a sharding written on a line of its own (not inside a placement already named)
            if (r.path, r.line) not in lines:
                lines.add((r.path, r.line))
                out.append(r)
        return tuple(dict.fromkeys(out))

    def _owner_of(self, node: cst.CSTNode) -> Any:
        """The loaded project module whose syntax tree holds `node` (None when none does)."""
        found = getattr(self.project, "analyzers", None)
        analyzers = found() if found is not None else []
        target = getattr(self.project, "target", None)  # the checked file's project may have loaded it (a base's
        if target is not None and target[0].project is not None and target[0].project is not self.project:
            analyzers = [*analyzers, *target[0].project.analyzers()]  # module's notes in a script's own module)
        for an in analyzers:
            if an is not self and node in an.positions():
                return an
        return None

    def positions(self) -> Any:
        """Source positions of every node (resolved once: it costs a code generation pass)."""
        if self._positions is None:
            self._positions = positions_of(self.module, self.source)  # large modules: statement by statement
        return self._positions

    def types_by_span(self) -> dict[tuple[int, int, int, int], Any]:
        """Recorded expression values by (line, column, end line, end column), columns 0-based; a
        parenthesised expression is also found by its span inside the parentheses."""
        if not self.types:
            return {}
        positions = self.positions()
        out: dict[tuple[int, int, int, int], Any] = {}
        for node, v in self.types.values():
            r = positions.get(node)
            if r is None:
                continue
            v = _engine_value(v)  # (the plugin's worker pickles them: no analyzer references)
            out[(r.start.line, r.start.column, r.end.line, r.end.column)] = v
            k = len(getattr(node, "lpar", ()))
            if k and len(getattr(node, "rpar", ())) == k:
                out[(r.start.line, r.start.column + k, r.end.line, r.end.column - k)] = v
        return out

    def revealed_by_line(self) -> dict[int, Any]:
        positions = self.positions()
        out: dict[int, Any] = {}
        for node, v in self.revealed:  # a body analysed several times: the last known value wins
            if node not in positions:
                continue
            line = positions[node].start.line
            if v is not UNKNOWN or line not in out:
                out[line] = v
        return out


def _engine_value(v: Any) -> Any:
    """A recorded value with the analyzer's own references (functions, classes, instances) inside a tuple, list or
    dict made Unknown: what leaves the analysis (the mypy plugin's worker pickles it) holds engine values only."""
    if isinstance(v, Seq):
        return replace(v, items=tuple(_engine_value(i) for i in v.items))
    return v if isinstance(v, ArrayType | Const) or v is UNKNOWN else UNKNOWN


class _Nesting(cst.CSTVisitor):
    def __init__(self) -> None:
        self.stack: list[cst.FunctionDef] = []
        self.enclosing: dict[int, cst.FunctionDef] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.stack:
            self.enclosing[id(node)] = self.stack[-1]
        self.stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        if self.stack:
            self.enclosing[id(node)] = self.stack[-1]


def _enclosing_functions(module: cst.Module) -> dict[int, cst.FunctionDef]:
    """Function (and lambda) node id -> the function it is defined in, for nested definitions."""
    v = _Nesting()
    module.visit(v)
    return v.enclosing


def name_counts(module: cst.CSTNode) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Counts of the names used, called (`f(...)`) and defined (`def f`) under a node (read from the fields)."""
    names: dict[str, int] = {}
    called: dict[str, int] = {}
    defined: dict[str, int] = {}
    for n in walk(module):
        if isinstance(n, cst.Name):
            names[n.value] = names.get(n.value, 0) + 1
        elif isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
            called[n.func.value] = called.get(n.func.value, 0) + 1
        elif isinstance(n, cst.FunctionDef):
            defined[n.name.value] = defined.get(n.name.value, 0) + 1
    return names, called, defined


def _escaping_names(module: cst.Module) -> set[str]:
    """Names used other than as a plain call's callee or a function's name."""
    names, called, defined = name_counts(module)
    return {n for n, k in names.items() if k > called.get(n, 0) + defined.get(n, 0)}


def _count_statements(module: cst.Module) -> int:
    """Statements of a module, counted without a visitor pass (cheap)."""
    n = 0
    todo: list[Any] = list(module.body)
    while todo:
        s = todo.pop()
        n += 1
        body = getattr(s, "body", None)
        if isinstance(body, cst.IndentedBlock):
            todo.extend(body.body)
        for part in ("orelse", "handlers", "finalbody"):
            sub = getattr(s, part, None)
            if isinstance(sub, tuple | list):
                todo.extend(sub)
            elif sub is not None:
                todo.append(sub)
    return n


def _is_main_guard(s: cst.CSTNode) -> bool:
    """`if __name__ == "__main__":`"""
    return (
        isinstance(s, cst.If)
        and isinstance(s.test, cst.Comparison)
        and isinstance(s.test.left, cst.Name)
        and s.test.left.value == "__name__"
    )


def _functions(module: cst.Module) -> list[cst.CSTNode]:
    """Every function of a module (definitions, nested ones and methods included, and lambdas): what
    another module's call may run."""
    return [n for n in walk(module) if isinstance(n, cst.FunctionDef | cst.Lambda)]


def _same_finding(a: RuleError, b: RuleError) -> bool:
    """Two findings of a code at one node that say the same (message, and notes' texts at the same anchors)."""
    return a.message == b.message and [(id(x), m) for x, m in a.related] == [(id(x), m) for x, m in b.related]


Via = tuple[str, int] | None  # (resolved file, line) of an outermost call; None: the file's own analysis
CallPath = tuple[tuple[Any, Any], ...]  # the calls followed, the outermost first: (caller's analyzer, call node)


def via(root: CallPath | None) -> Via:
    """Where an outermost call was made: (resolved file, line), the line of the first statement of a test or
    entry function called as a whole (its `def` line runs when the module loads); None: no call (the
    function's or module's own analysis)."""
    return _site(root[0]) if root else None


def via_path(root: CallPath | None) -> tuple[tuple[str, int], ...] | None:
    """Where each call of a path was made, the outermost first (None: no call, or a site not placed)."""
    if not root:
        return None
    sites = [_site(hop) for hop in root]
    return tuple(s for s in sites if s is not None) or None


def _site(hop: tuple[Any, Any]) -> Via:
    an, node = hop
    path = an.path if an.path is not None else an.file
    if path is None:
        return None
    if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock) and node.body.body:
        node = node.body.body[0]
    try:
        r = an.positions().get(node)
        return (str(Path(path).resolve()), r.start.line) if r is not None else None
    except Exception:
        return None
