"""pytest as an entry point: a test module (`test_*.py`, `*_test.py`) is run by pytest, which calls each test
function (`def test*` at module level, and in `class Test*` without `__init__`) with its arguments: the value
sets of `@pytest.mark.parametrize` (stacked decorators: their product; the first `MAX_PARAMETER_SETS`), and
for the other parameters the fixtures of the module and of the `conftest.py` files above it (`@pytest.fixture`,
called with their own fixtures; a generator fixture gives what it yields). A test is analysed with those values
as a call, as `absltest.main()` runs a test case's methods (analyzer/entry.py); a parameter set marked `xfail` or
`skip`, an `indirect` parametrization, and a fixture with `params=` are left out (the test is still analysed on
its own, with its parameters Unknown)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer.entry import MAX_PARAMETER_SETS  # (the first sets, as for absl tests)
from namedcheck.analyzer.imports import conftest_files
from namedcheck.analyzer.refs import ClassInfo, FuncRef, InstanceRef, IterRef, PartialRef, QualRef
from namedcheck.engine.names import canonical_name
from namedcheck.engine.values import UNKNOWN, Const, Seq

MAX_FIXTURE_DEPTH = 4  # fixtures requesting fixtures, followed this deep
# calls after which the test does not go on (pytest skips or fails it there)
STOPPING = frozenset({"pytest.skip", "pytest.xfail", "pytest.fail", "pytest.exit", "sys.exit", "os._exit"})
_STOPPING_NAMES = frozenset(name.rpartition(".")[2] for name in STOPPING)
_STOPPING_METHODS = frozenset({"skipTest", "fail"})  # `self.skipTest(...)` in a test case


def is_test_module(path: Any) -> bool:
    """Whether pytest collects the file by its name (its default `python_files`)."""
    if path is None:
        return False
    name = Path(str(path)).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def stops(f: Any, call: cst.Call) -> bool:
    """`pytest.skip(...)`, `pytest.fail(...)`, `sys.exit()`, `self.skipTest(...)`: the path ends at the call."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        return func.attr.value in _STOPPING_METHODS
    last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if last not in _STOPPING_NAMES:
        return False  # (evaluated only then: evaluating `xs.append` again would count as a second use)
    try:
        v = f.ev(func)
    except Exception:
        return False
    return isinstance(v, QualRef) and canonical_name(v.name) in STOPPING


def run_tests(top: Any, path: Any) -> None:
    """Analyse every test of a pytest module (whose top frame is `top`) with its parametrizations and fixtures."""
    fixtures = Fixtures(top, path)
    for s in top.an.module.body:
        if isinstance(s, cst.FunctionDef) and s.name.value.startswith("test"):
            _run_one(top, FuncRef(s, top, s.name.value), None, fixtures)  # (the function, not what decorators make)
    for name, value in list(top.vars.items()):
        if isinstance(value, ClassInfo) and name.startswith("Test") and "__init__" not in value.methods:
            if value.bases:  # (a unittest / absl test case: its runner is entry.run_tests)
                continue
            instance = InstanceRef(value, ())
            for mname, method in value.methods.items():
                if mname.startswith("test") and isinstance(method, FuncRef):
                    _run_one(top, method, instance, fixtures)


def _run_one(top: Any, test: FuncRef, instance: Any, fixtures: Fixtures) -> None:
    node = test.node
    assert isinstance(node, cst.FunctionDef)
    if _marked(top, node.decorators, ("skip", "xfail")):
        return  # (not run, or expected to fail: what it reports is what it wants)
    sets = _parametrizations(top, node)
    if sets is None:
        return
    params = [p.name.value for p in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]]
    if instance is not None:
        params = params[1:]
    for given in sets:
        kwargs = dict(given)
        for p in params:
            if p not in kwargs:
                kwargs[p] = _fixture_value(top, p, fixtures, 0, node)
        bound = PartialRef(test, (instance,) if instance is not None else (), tuple(kwargs.items()))
        top.call_value(bound, [], {}, [], {}, node)


def _marked(f: Any, decorators: Any, marks: tuple[str, ...]) -> bool:
    """A `@pytest.mark.<mark>` (or `@pytest.mark.<mark>(...)`) decorator among `decorators`."""
    for d in decorators:
        e = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if isinstance(e, cst.Attribute) and e.attr.value in marks:
            v = f.ev(e)
            if isinstance(v, QualRef) and canonical_name(v.name).startswith("pytest.mark."):
                return True
    return False


def _parametrizations(f: Any, node: cst.FunctionDef) -> list[list[tuple[str, Any]]] | None:
    """The keyword sets the `parametrize` decorators give the test (one empty set without any); None when one
    cannot be read (an `indirect` one, argument values not known as a list)."""
    layers: list[list[list[tuple[str, Any]]]] = []
    for d in node.decorators:
        call = d.decorator
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            continue
        if call.func.attr.value != "parametrize":
            continue
        func = f.ev(call.func)
        if not (isinstance(func, QualRef) and canonical_name(func.name) == "pytest.mark.parametrize"):
            continue
        layer = _one_parametrize(f, call)
        if layer is None:
            return None
        layers.append(layer)
    sets = [[kv for part in combo for kv in part] for combo in itertools.product(*layers)] if layers else [[]]
    return sets[:MAX_PARAMETER_SETS]


def _one_parametrize(f: Any, call: cst.Call) -> list[list[tuple[str, Any]]] | None:
    pos = [a for a in call.args if a.keyword is None and a.star == ""]
    kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    names_node = pos[0].value if pos else kws.get("argnames")
    values_node = pos[1].value if len(pos) > 1 else kws.get("argvalues")
    if names_node is None or values_node is None or "indirect" in kws:
        return None
    names = _arg_names(f.ev(names_node))
    if not names:
        return None
    rows: list[list[Any]] = []
    if isinstance(values_node, cst.List | cst.Tuple):  # written out: `pytest.param(...)` entries are read
        for el in values_node.elements:
            if isinstance(el, cst.StarredElement):
                return None
            row = _row(f, el.value, len(names))
            if row is not None:
                rows.append(row)
            if len(rows) >= MAX_PARAMETER_SETS:
                break
    else:
        items = f.ev(values_node)
        if not (isinstance(items, Seq) and items.kind in ("list", "tuple")):
            return None
        for item in items.items[:MAX_PARAMETER_SETS]:
            row = _unpack(item, len(names))
            if row is None:
                return None
            rows.append(row)
    return [list(zip(names, row)) for row in rows]


def _arg_names(v: Any) -> list[str]:
    if isinstance(v, Const) and isinstance(v.value, str):
        return [n.strip() for n in v.value.split(",") if n.strip()]
    if isinstance(v, Seq) and all(isinstance(i, Const) and isinstance(i.value, str) for i in v.items):
        return [i.value for i in v.items]
    return []


def _row(f: Any, node: cst.BaseExpression, n: int) -> list[Any] | None:
    """One entry of a written-out argument list: its values (None: marked xfail / skip, or not `n` of them)."""
    if isinstance(node, cst.Call):
        func = f.ev(node.func)
        if isinstance(func, QualRef) and canonical_name(func.name) == "pytest.param":
            marks = [a.value for a in node.args if a.keyword is not None and a.keyword.value == "marks"]
            if any(_mentions_skip(m) for m in marks):
                return None
            values = [f.ev(a.value) for a in node.args if a.keyword is None and a.star == ""]
            return values if len(values) == n else None
    return _unpack(f.ev(node), n)


def _mentions_skip(node: cst.CSTNode) -> bool:
    code = cst.Module([]).code_for_node(node)
    return "xfail" in code or "skip" in code


def _unpack(item: Any, n: int) -> list[Any] | None:
    if n == 1:
        return [item]
    if isinstance(item, Seq) and item.kind in ("list", "tuple") and len(item.items) == n:
        return list(item.items)
    return None


class Fixtures:
    """The fixtures a test of one module may request, by name: the module's own first, then those of the
    `conftest.py` files from its directory up (each loaded as a project module, for the name asked)."""

    def __init__(self, top: Any, path: Any) -> None:
        self.top = top
        self.known: dict[str, FuncRef | None] = {}
        _collect(top, self.known)
        self.conftests: list[str] = []
        project = getattr(top.an, "project", None)
        self.project = project
        if project is None or path is None:
            return
        for conftest in conftest_files(path):
            named = project.index.module_name(conftest)
            if named is not None:
                self.conftests.append(named[0])

    def get(self, name: str) -> FuncRef | None:
        """The fixture function named `name` (None: no fixture of that name is known)."""
        if name in self.known:
            return self.known[name]
        self.known[name] = None
        project = self.project
        if project is None:
            return None
        for mod in self.conftests:
            an = project.load(mod, name)
            if an is None or getattr(an, "top", None) is None:
                continue
            found: dict[str, FuncRef | None] = {}
            _collect(an.top, found)
            if found.get(name) is not None:
                self.known[name] = found[name]
                break
        return self.known[name]


def _collect(frame: Any, found: dict[str, FuncRef | None]) -> None:
    """The fixture functions a module defines at its top level (the functions, not what `pytest.fixture`
    makes of them)."""
    for s in frame.an.module.body:
        if not isinstance(s, cst.FunctionDef):
            continue
        name = s.name.value
        v = FuncRef(s, frame, name)
        for d in s.decorators:
            call = d.decorator if isinstance(d.decorator, cst.Call) else None
            e = call.func if call is not None else d.decorator
            try:
                q = frame.ev(e)
            except Exception:
                continue
            if not (isinstance(q, QualRef) and canonical_name(q.name) == "pytest.fixture"):
                continue
            kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None} if call else {}
            if "params" in kws:
                break  # its value is `request.param`: one per parameter, not followed
            alias = frame.ev(kws["name"]) if "name" in kws else None
            key = alias.value if isinstance(alias, Const) and isinstance(alias.value, str) else name
            found.setdefault(key, v)
            break


def _fixture_value(top: Any, name: str, fixtures: Fixtures, depth: int, at: cst.CSTNode) -> Any:
    """What the fixture `name` gives a test (Unknown: none known, or too deep); `at`: the test, where the
    call is made from."""
    fixture = fixtures.get(name)
    if fixture is None or depth >= MAX_FIXTURE_DEPTH:
        return UNKNOWN
    node = fixture.node
    assert isinstance(node, cst.FunctionDef)
    params = [p.name.value for p in [*node.params.posonly_params, *node.params.params]]
    kwargs = {p: _fixture_value(top, p, fixtures, depth + 1, at) for p in params if p != name}
    try:
        out = top.call_value(fixture, [], kwargs, [], {}, at)
    except Exception:
        return UNKNOWN
    if isinstance(out, IterRef):  # a generator fixture: what it yields before the test runs
        return out.head if out.head is not None else out.item
    return out
