"""The data-driven corpus: every program in tests/cases/ with its expectations written inline.

- `# expect: NC202` (or `# expect: NC201, NC202`) on a line: exactly these codes are reported there.
- `# reveal: f32[(2, 5)]` on an assignment: the analyzer infers exactly this type for its value.
Lines without `expect` must be silent: no false positives.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from namedcheck.analyzer.check import analyse_for_test

CASES = Path(__file__).parent / "cases"
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9_,\s]+?)\s*(?:#|$)")
REVEAL = re.compile(r"#\s*reveal:\s*(.+?)\s*$")


def expectations(source: str) -> tuple[set[tuple[int, str]], dict[int, str]]:
    expected: set[tuple[int, str]] = set()
    reveals: dict[int, str] = {}
    for i, line in enumerate(source.splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            expected |= {(i, c.strip()) for c in m.group(1).split(",") if c.strip()}
        r = REVEAL.search(line)
        if r:
            reveals[i] = r.group(1)
    return expected, reveals


@pytest.mark.parametrize("case", sorted(CASES.rglob("*.py")), ids=lambda p: str(p.relative_to(CASES)))
def test_case(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    expected, reveals = expectations(source)
    diags, revealed = analyse_for_test(source, case.name)
    got = {(d.line, d.code) for d in diags}
    missing, unexpected = expected - got, got - expected
    detail = "\n".join(
        f"  unexpected {c} at line {ln}: {d.message}"
        for d in diags
        for (ln, c) in [(d.line, d.code)]
        if (ln, c) in unexpected
    )
    assert not missing and not unexpected, (
        f"{case.name}: missing {sorted(missing)}; unexpected {sorted(unexpected)}\n{detail}"
    )
    for line, want in reveals.items():
        assert line in revealed, f"{case.name}:{line}: no assignment recorded on this line"
        assert repr(revealed[line]) == want, f"{case.name}:{line}: inferred {revealed[line]!r}, expected {want}"


def test_corpus_covers_every_code() -> None:
    """Each diagnostic code this issue owns has at least one wrong case in the corpus."""
    from namedcheck.engine.codes import CODES

    seen: set[str] = set()
    for case in CASES.rglob("*.py"):
        seen |= {c for _, c in expectations(case.read_text(encoding="utf-8"))[0]}
    missing = sorted(c for c in CODES if c != "NC000" and c not in seen)
    assert not missing, f"codes without a wrong case in tests/cases: {missing}"
