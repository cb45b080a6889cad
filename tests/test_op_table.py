"""The op table stays honest: every procedural rule has a stub, every stub op has a rule or a
declarative signature, every method and operator maps to a known op, and stubs parse."""

from __future__ import annotations

from namedcheck.engine.names import METHODS, OPERATORS, canonical_name
from namedcheck.engine.ops import RULE
from namedcheck.engine.ops.registry import OPS, OpRecord, family_key, register
from namedcheck.engine.stubs import op_table


def test_every_rule_has_a_stub():
    table = op_table()
    shapes = {n: r.shape for n, r in OPS.items() if r.shape is not None and not r.is_family}
    missing = sorted(n for n in shapes if n not in table)
    assert not missing, f"procedural rules with no stub signature: {missing}"
    for name, fn in shapes.items():
        assert table[name].family == RULE and table[name].rule is fn, f"{name}: the stub does not bind its @rule"


def _misregistered(table: dict) -> list[str]:
    families = {family_key(op.family) for op in table.values() if op.family not in (None, RULE)}
    return sorted(
        f"{name} ({', '.join(r.fields())})"
        for name, r in OPS.items()
        if r.fields() and name not in table and name not in families
    )


def test_every_registration_names_a_known_op():
    """Shape, VMA, sharding and unreduced rules all name an op of the table or a rule family the stubs use."""
    table = op_table()
    assert not _misregistered(table), f"rules registered for no op (a typo?): {_misregistered(table)}"
    assert {"shape", "vma", "sharding", "unreduced"} == {f for r in OPS.values() for f in r.fields()}


def test_every_registered_rule_takes_a_call():
    """A decorator that slipped onto a helper (a helper written between `@rule(...)` and its function) registers
    the helper: every rule's first parameter is the call."""
    import inspect

    for name, r in OPS.items():
        for f in ("shape", "vma", "sharding"):
            fn = getattr(r, f)
            if fn is not None:
                assert list(inspect.signature(fn).parameters)[:1] == ["call"], (name, f, fn.__name__)


def test_a_registration_with_a_typo_is_caught(monkeypatch):
    monkeypatch.setitem(OPS, "jax.lax.pusm", OpRecord("jax.lax.pusm"))
    register("vma", "jax.lax.pusm")(lambda call, vin, result: vin)
    assert _misregistered(op_table()) == ["jax.lax.pusm (vma)"]


def test_every_stub_op_is_determined():
    for name, op in op_table().items():
        assert op.rule is not None or op.signature.returns is not None, name


def test_methods_and_operators_resolve():
    table = op_table()
    for target in [*METHODS.values(), *OPERATORS.values()]:
        assert canonical_name(target) in table, target


def test_aliases_resolve_to_known_ops():
    table = op_table()
    for alias in [
        "jax.scipy.special.logsumexp",
        "numpy.sum",
        "jax._src.lax.parallel.psum",
        "jax.numpy.concat",
        "jax._src.numpy.lax_numpy.reshape",
        "jax.numpy.amax",
    ]:
        assert canonical_name(alias) in table, alias


def test_table_is_substantial():
    table = op_table()
    assert len(table) > 200
    assert {
        "jax.numpy.einsum",
        "jax.numpy.matmul",
        "jax.lax.psum",
        "jax.nn.one_hot",
        "operator.getitem",
        "jax.numpy.linalg.inv",
    } <= set(table)
