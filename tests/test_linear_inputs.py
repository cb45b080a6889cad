"""Input that once stalled a run: each is answered right at a size where the old quadratic or unbounded code
took minutes (stress-turn4.md), and the bounds that replaced them are exact. Times are the stress bench's
business (bench/stress.py hostile: long_comment, einsum_spec, parameterized_product, devices_list); these
tests assert results and structure, never a duration."""

from __future__ import annotations

from pathlib import Path

import pytest

from namedcheck.analyzer import entry, module, suppressions
from namedcheck.analyzer.budget import CallCut, Guard, Limits, clock
from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.session import Session
from namedcheck.cli.config import MAX_DEVICE_COUNTS, ConfigError, load_config
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops import einsum

TAIL = "w = jnp.zeros((4, 8)) + jnp.ones((5, 8))\n"


def _codes(source: str, **kw: object) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in check_source(source, "t.py", **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text,judged",
    [
        ("x = 1  # noqa: NC201\n", True),
        ("x = 1  # type: ignore[NC203]\n", True),
        ("x = 1  # namedcheck: ignore\n", True),
        ("x = 1  # noqa: E501\n", False),
        ("x = 1  # type: ignore\n", False),
        ("x = 1  # noqa\ny = 'NC201'\n", False),  # a code on another line is not the marker's
        ("z = 1  " + "#noqa NC1 " * 50_000 + "\n", False),  # 500 KB of markers naming no whole code
        ("z = 1  " + "#noqa NC1 " * 50_000 + "NC204\n", True),
    ],
)
def test_which_texts_hold_a_judged_marker(text: str, judged: bool) -> None:
    assert suppressions.may_judge(text) is judged


def test_a_long_comment_line_keeps_the_bug_after_it() -> None:
    source = "import jax.numpy as jnp\nz = 1  " + "#noqa NC1 " * 40_000 + "\n" + TAIL
    assert _codes(source) == [(3, "NC201")]


def test_an_einsum_spec_of_20_000_letters_is_read_and_quoted_short() -> None:
    spec = "a" * 20_000 + "!,b->a"
    with pytest.raises(RuleError) as e:
        einsum.parse_term(spec, "a" * 20_000 + "!")
    assert e.value.code == "NC702" and len(str(e.value)) < 400
    assert einsum.parse_term("ab...cd", " ab...cd{x, y} ") == einsum.Term("ab.cd", ("x", "y"))
    source = f'import jax.numpy as jnp\nx = jnp.einsum("{spec}", jnp.zeros((4,)), jnp.zeros((4,)))\n' + TAIL
    assert _codes(source) == [(2, "NC702"), (3, "NC201")]


def test_a_parameterized_product_builds_only_the_sets_it_analyses(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    real = entry.itertools.product

    def counting(*lists: object) -> object:
        for combo in real(*lists):  # type: ignore[call-overload]
            made.append(1)
            yield combo

    monkeypatch.setattr(entry.itertools, "product", counting)
    names = [f"p{i}" for i in range(8)]  # 10**8 sets
    source = (
        "import jax.numpy as jnp\nfrom absl.testing import parameterized\n\nV = list(range(10))\n\n\n"
        "class T(parameterized.TestCase):\n"
        f"    @parameterized.product({', '.join(f'{k}=V' for k in names)})\n"
        f"    def test_x(self, {', '.join(names)}):\n"
        "        x = jnp.zeros((p0 + 1, 2)) + jnp.zeros((3, 3, 3))\n\n\n" + TAIL
    )
    assert _codes(source) == [(10, "NC201"), (13, "NC201")]
    assert len(made) <= entry.MAX_PARAMETER_SETS + 1


def _in_project(main: Path) -> list:
    """`main`'s diagnostics with its project's modules followed, as every front end checks it."""
    return Session().check(main, main.read_text(), str(main)).all


def _ring(tmp_path: Path, n: int) -> Path:
    """`n` modules in a ring of helper calls, each calling the next three times, then a real bug."""
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    for i in range(n):
        j = (i + 1) % n
        (tmp_path / f"m{i}.py").write_text(
            f"import jax.numpy as jnp\nimport m{j}\n\n\ndef f(x, k):\n    if k <= 0:\n        return x\n"
            f"    y = m{j}.f(x, k - 1) + m{j}.f(x, k - 2)\n    return y + m{j}.g(x, k - 1)\n\n\n"
            f"def g(x, k):\n    if k <= 0:\n        return x * 2\n    return m{j}.f(x, k - 1) + m{j}.g(x, k - 3)\n"
        )
    main = tmp_path / "main.py"
    main.write_text("import jax.numpy as jnp\nimport m0\n\nz = m0.f(jnp.zeros((4, 8)), 1000)\n" + TAIL)
    return main


def test_a_cycle_of_modules_is_followed_to_the_shared_depth_and_the_file_goes_on(tmp_path: Path) -> None:
    main = _ring(tmp_path, 60)
    seen: list[int] = []
    real = Guard.checkpoint

    def spy(self: Guard) -> None:
        seen.append(self.call_depth)
        real(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Guard, "checkpoint", spy)
        found = _in_project(main)
    assert [(d.line, d.code) for d in found] == [(5, "NC201")]
    assert max(seen) <= module.MAX_CALL_DEPTH  # nested calls counted across modules, not per module


def test_a_call_past_its_share_of_the_budget_is_unknown_and_the_file_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    (tmp_path / "helper.py").write_text(
        "import jax.numpy as jnp\n\n\ndef f(x):\n    y = x + 1\n    z = y * 2\n    return jnp.tanh(z)\n"
    )
    main = tmp_path / "main.py"
    main.write_text("import jax.numpy as jnp\nimport helper\n\nz = helper.f(jnp.zeros((4, 8)))\n" + TAIL)
    cut: list[bool] = []
    real = Guard.checkpoint

    def expired(self: Guard) -> None:
        if self.call_deadline is not None:  # inside the outermost followed call: its share is spent
            cut.append(True)
            raise CallCut
        real(self)

    monkeypatch.setattr(Guard, "checkpoint", expired)
    found = _in_project(main)
    assert cut and [(d.line, d.code) for d in found] == [(5, "NC201")]


def test_an_outermost_call_gets_a_share_of_the_time_left() -> None:
    guard = Guard(Limits(time_budget=10.0))
    share = guard.call_share() - clock()
    assert 4.0 < share <= 5.0
    late = Guard(Limits(time_budget=10.0), deadline=clock() - 1)
    assert late.call_share() <= clock()


def test_the_counts_of_a_devices_list_share_one_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    deadlines: list[float] = []
    real = Guard.__init__

    def spy(self: Guard, limits: Limits, deadline: float | None = None) -> None:
        real(self, limits, deadline)
        deadlines.append(self.deadline)

    monkeypatch.setattr(Guard, "__init__", spy)
    source = "import jax\nimport jax.numpy as jnp\n\nn = len(jax.devices())\nx = jnp.zeros((n, 8)) + jnp.ones((3, 8))\n"
    found = check_source(source, "t.py", devices=(1, 2, 3, 4))
    assert [d.code for d in found] == ["NC201"]  # fails under 1, 2 and 4 devices
    assert len(deadlines) == 4 and len(set(deadlines)) == 1


def test_a_devices_list_longer_than_the_cap_is_a_configuration_error(tmp_path: Path) -> None:
    counts = ", ".join(str(i) for i in range(1, MAX_DEVICE_COUNTS + 2))
    (tmp_path / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = [{counts}]\n")
    with pytest.raises(ConfigError, match=f"at most {MAX_DEVICE_COUNTS}"):
        load_config(tmp_path)
    counts = ", ".join(str(i) for i in range(1, MAX_DEVICE_COUNTS + 1))
    (tmp_path / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = [{counts}]\n")
    assert len(load_config(tmp_path).devices) == MAX_DEVICE_COUNTS


def test_a_product_of_300_factors_is_a_chain_not_nesting() -> None:
    names = [f"n{i}" for i in range(300)]
    source = (
        f"import jax.numpy as jnp\n\n\ndef f({', '.join(names)}):\n"
        f"    x = jnp.zeros(({' * '.join(names)}, 4))\n    return x + jnp.ones((3, 5))\n\n\n" + TAIL
    )
    assert _codes(source) == [(6, "NC201"), (9, "NC201")]
    deep = "import jax.numpy as jnp\nx = " + "[" * 210 + "1" + "]" * 210 + "\n" + TAIL
    assert [c for _, c in _codes(deep)] == ["NC001"]  # nested brackets are nesting: refused as before
