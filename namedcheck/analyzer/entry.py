"""A program's entry points as calls: `absl.app.run(main)`, `fire.Fire(main)`, and test runners
(`absltest.main()`, `unittest.main()`) running each test method of the module's test cases, after `setUp`,
once per parameter set of `parameterized.parameters` / `product` / `named_parameters`. The `if __name__ ==
"__main__":` block itself is run by `module.ModuleAnalyzer.run`; what it calls is analysed with
`Frame.entry` set (flag defaults are values there, see analyzer/configs.py)."""

from __future__ import annotations

import itertools
from typing import Any

import libcst as cst

from namedcheck.analyzer import haiku, nn_modules
from namedcheck.analyzer.refs import BuildingRef, ClassInfo, FuncRef, InstanceRef, PartialRef, QualRef
from namedcheck.analyzer.scope import FrameState
from namedcheck.engine.names import canonical_name
from namedcheck.engine.values import UNKNOWN, Const, Seq

_TEST_MAINS = {"absl.testing.absltest.main", "unittest.main"}
_TEST_BASES = {
    "absl.testing.absltest.TestCase",
    "absl.testing.parameterized.TestCase",
    "unittest.TestCase",
    "chex.TestCase",
}
# context managers whose block is expected to raise: what it reports is what the test wants
_EXPECTING = ("assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertRaisesWithLiteralMatch", "raises")
MAX_PARAMETER_SETS = 8  # parameter sets of one test method analysed (the first ones)


def construct(f: FrameState, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """A call that runs the program's entry (`app.run(main)`, `absltest.main()`); NotImplemented otherwise."""
    if name in _TEST_MAINS:
        run_tests(f, node)
        f.ended = True  # the runner exits the program
        return Const(None)
    if name in ("absl.app.run", "fire.Fire") and pos:
        argv = [Seq((UNKNOWN,), "list")] if name == "absl.app.run" else []
        out = f.call_value(pos[0], argv, {}, [None] * len(argv), {}, node)
        if name == "absl.app.run":
            f.ended = True  # it exits the program when `main` returns
        return out
    return NotImplemented


def run_tests(f: FrameState, node: cst.CSTNode) -> None:
    """The test methods (`test*`) of the test-case classes in scope, each called on an instance that its
    `setUp` built, with each of its first parameter sets."""
    for value in list(f.vars.values()):
        if not isinstance(value, ClassInfo) or not _TEST_BASES & set(value.bases):
            continue
        instance = _set_up(f, value, node)
        for name, method in value.methods.items():
            func = haiku.in_run(method) or method  # `@hk.testing.transform_and_run`: run inside a transform
            if name.startswith("test") and isinstance(func, FuncRef):
                for args, kwargs in _parameter_sets(f, func):
                    bound = PartialRef(method, (instance, *args), tuple(kwargs.items()))
                    # (called from the method itself: where its values come from is the test, not the runner)
                    f.call_value(bound, [], {}, [], {}, method.node)


def _set_up(f: FrameState, cls: ClassInfo, node: cst.CSTNode) -> InstanceRef:
    setup = cls.methods.get("setUp")
    if setup is None:
        return InstanceRef(cls, ())
    building = BuildingRef(cls, {})
    # (called from the method itself, as the tests are: what it gives comes from `setUp`, not the runner)
    f.call_value(setup, [building], {}, [None], {}, setup.node if isinstance(setup, FuncRef) else node)
    return nn_modules.built_instance(building)


def _parameter_sets(f: FrameState, method: FuncRef) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The argument sets `parameterized` decorators give a test method (one empty set when it has none)."""
    node = method.node
    sets: list[tuple[tuple[Any, ...], dict[str, Any]]] = [((), {})]
    for d in node.decorators if isinstance(node, cst.FunctionDef) else ():
        call = d.decorator
        if not isinstance(call, cst.Call):
            continue
        func = f.ev(call.func)
        name = canonical_name(func.name).rpartition(".")[2] if isinstance(func, QualRef) else ""
        pos = [f.ev(a.value) for a in call.args if a.keyword is None and a.star == ""]
        kws = {a.keyword.value: f.ev(a.value) for a in call.args if a.keyword is not None}
        if name == "product":
            choices = [(k, _items(v)) for k, v in kws.items()]
            if any(c is None for _, c in choices):
                return []
            sets = [
                ((), dict(zip([k for k, _ in choices], combo)))
                # the first sets only: the whole product of a few long lists is millions of dicts
                for combo in itertools.islice(itertools.product(*[c or () for _, c in choices]), MAX_PARAMETER_SETS)
            ]
        elif name in ("parameters", "named_parameters"):
            sets = [s for case in pos if (s := _one_set(case, named=name == "named_parameters")) is not None]
            if len(sets) != len(pos):
                return []
        else:
            continue
    return sets[:MAX_PARAMETER_SETS]


def _items(v: Any) -> tuple[Any, ...] | None:
    return v.items if isinstance(v, Seq) and v.kind in ("list", "tuple") else None


def _one_set(case: Any, named: bool) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    if isinstance(case, Seq) and case.kind == "dict":
        kwargs: dict[str, Any] = {}
        for pair in case.items:
            key = pair.items[0] if isinstance(pair, Seq) and len(pair.items) == 2 else None
            if not (isinstance(key, Const) and isinstance(key.value, str)):
                return None
            if key.value != "testcase_name":
                kwargs[key.value] = pair.items[1]
        return (), kwargs
    if isinstance(case, Seq) and case.kind == "tuple":
        return (case.items[1:] if named else case.items), {}
    return None if named else ((case,), {})


# what JAX raises for the errors the rules report (NameError: an unbound axis name)
_JAX_ERRORS = {"Exception", "BaseException", "TypeError", "ValueError", "NameError", "AssertionError"}


def catches_jax_errors(s: cst.Try | cst.TryStar) -> bool:
    """A `try` whose handlers catch what JAX raises for the rules' errors (or anything): its body may fail on
    purpose (a probe, a fallback), so it reports nothing."""
    for h in s.handlers:
        if h.type is None:
            return True
        kinds = h.type.elements if isinstance(h.type, cst.Tuple) else [h.type]
        for k in kinds:
            t = k.value if isinstance(k, cst.Element) else k
            name = t.attr.value if isinstance(t, cst.Attribute) else t.value if isinstance(t, cst.Name) else None
            if name in _JAX_ERRORS:
                return True
    return False


def expects_failure(item: cst.BaseExpression) -> bool:
    """`with self.assertRaises(...):`, `with pytest.raises(...):`: the block is meant to fail."""
    func = item.func if isinstance(item, cst.Call) else None
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name in _EXPECTING


__all__ = ["MAX_PARAMETER_SETS", "catches_jax_errors", "construct", "expects_failure", "run_tests"]
