"""The op table stays honest: every procedural rule has a stub, every stub op has a rule or a
declarative signature, every method and operator maps to a known op, and stubs parse."""

from __future__ import annotations

from namedcheck.engine.names import METHODS, OPERATORS, canonical_name
from namedcheck.engine.ops import RULES
from namedcheck.engine.stubs import op_table


def test_every_rule_has_a_stub():
    table = op_table()
    missing = sorted(n for n in RULES if n not in table)
    assert not missing, f"procedural rules with no stub signature: {missing}"
    for name, fn in RULES.items():
        assert table[name].rule is fn, f"{name}: the stub does not bind its @rule"


def test_every_stub_op_is_determined():
    for name, op in op_table().items():
        assert op.rule is not None or op.signature.returns is not None, name


def test_methods_and_operators_resolve():
    table = op_table()
    for target in [*METHODS.values(), *OPERATORS.values()]:
        assert canonical_name(target) in table, target


def test_aliases_resolve_to_known_ops():
    table = op_table()
    for alias in ["jax.scipy.special.logsumexp", "numpy.sum", "jax._src.lax.parallel.psum",
                  "jax.numpy.concat", "jax._src.numpy.lax_numpy.reshape", "jax.numpy.amax"]:
        assert canonical_name(alias) in table, alias


def test_table_is_substantial():
    table = op_table()
    assert len(table) > 200
    assert {"jax.numpy.einsum", "jax.numpy.matmul", "jax.lax.psum", "jax.nn.one_hot", "operator.getitem",
            "jax.numpy.linalg.inv"} <= set(table)
