"""The editor's analysis (the incremental `DocumentAnalyser` the language server runs) equals the command line's
(`check_source`) on the same text, over seeded random edit sequences of the corpus and of the examples: deleted,
duplicated and swapped lines, changed number literals, renamed identifiers, inserted blank and comment lines,
lines cut short. Each edit applies to the text the previous one left, and both analyses see every version."""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.incremental import DocumentAnalyser

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261126
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def _files() -> list[Path]:
    return sorted([*ROOT.glob("tests/cases/*.py"), *ROOT.glob("examples/**/*.py")])


def _delete(lines: list[str], rng: random.Random) -> None:
    if len(lines) > 1:
        del lines[rng.randrange(len(lines))]


def _duplicate(lines: list[str], rng: random.Random) -> None:
    if lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])


def _swap(lines: list[str], rng: random.Random) -> None:
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]


def _number(lines: list[str], rng: random.Random) -> None:
    spots = [(i, m) for i, line in enumerate(lines) for m in _NUMBER.finditer(line)]
    if spots:
        i, m = rng.choice(spots)
        new = str(rng.choice([0, 1, 2, 3, 4, 7, 8, 16, 32, 64, 128, int(m.group()) + 1]))
        lines[i] = lines[i][: m.start()] + new + lines[i][m.end() :]


def _rename(lines: list[str], rng: random.Random) -> None:
    spots = [(i, m) for i, line in enumerate(lines) for m in _IDENT.finditer(line)]
    if spots:
        i, m = rng.choice(spots)
        lines[i] = lines[i][: m.start()] + rng.choice(["x", "y", "w", "jnp", m.group() + "_2"]) + lines[i][m.end() :]


def _insert(lines: list[str], rng: random.Random) -> None:
    i = rng.randrange(len(lines) + 1)
    indent = re.match(r"[ \t]*", lines[i - 1]).group() if 0 < i <= len(lines) else ""  # type: ignore[union-attr]
    lines.insert(i, rng.choice(["\n", "# a comment\n", indent + "# an indented comment\n", indent + "\n"]))


def _truncate(lines: list[str], rng: random.Random) -> None:
    if lines:
        i = rng.randrange(len(lines))
        body = lines[i].rstrip("\n")
        if body:
            lines[i] = body[: rng.randrange(len(body))] + "\n"


EDITS: list[Callable[[list[str], random.Random], None]] = [
    _delete,
    _duplicate,
    _swap,
    _number,
    _rename,
    _insert,
    _truncate,
]


def _walk(path: Path, steps: int, seed: int) -> None:
    """`steps` random edits of one file in sequence: after each, the editor's diagnostics equal the CLI's (where
    the text does not parse, its NC001)."""
    rng = random.Random(seed)
    text = path.read_text()
    editor = DocumentAnalyser(str(path))
    for step in range(steps + 1):
        got = editor.analyse(text).diagnostics
        want = check_source(text, str(path))
        if any(d.code == "NC001" for d in want):  # a text that does not parse: the CLI's NC001, and the findings
            assert not any(d.code == "NC000" for d in got)  # of the chunks that parse (tests/test_lsp_partial.py)
            got = [d for d in got if d.code == "NC001"]
        assert got == want, f"{path.name}, seed {seed}, edit {step}:\n{text}"
        lines = text.splitlines(keepends=True)
        rng.choice(EDITS)(lines, rng)
        text = "".join(lines)


def _sample(count: int, seed: int) -> list[Path]:
    files = _files()
    return sorted(random.Random(seed).sample(files, min(count, len(files))))


@pytest.mark.parametrize("path", _sample(10, SEED), ids=lambda p: p.name)
def test_random_edits(path: Path) -> None:
    """Ten files, ten edits each (the CI part)."""
    _walk(path, 10, SEED + zlib.crc32(path.name.encode()) % 1000)


@pytest.mark.slow
@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_random_edits_long(path: Path) -> None:
    """Every file of the corpus and the examples, 30 edits each."""
    _walk(path, 30, SEED + 1)


DUPLICATES = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(4, 8)]):
    y = x @ x
    return y


y = f(jnp.ones((4, 8)))
y = f(jnp.ones((4, 8)))
z: f32[(4, 8)] = jnp.ones((4, 8))
w = z @ z
w = z @ z
"""


def test_identical_statements_each_report() -> None:
    """Two identical top-level statements each report at their own line (they once shared one parsed tree, so
    only the first did), before and after an edit that moves them."""
    editor = DocumentAnalyser("dup.py")
    for text in (DUPLICATES, "\n\n" + DUPLICATES, DUPLICATES):
        got = editor.analyse(text).diagnostics
        assert got == check_source(text, "dup.py")
        lines = text.splitlines()
        assert [d.line for d in got if d.code == "NC203"] == [
            i + 1 for i, line in enumerate(lines) if line.startswith("w = z @ z") or line == "    y = x @ x"
        ]


# ---- programs the random edits found (each once a difference or a crash) ---------------------------------------

CONFIG_MUTATED = """import jax.numpy as jnp
import ml_collections
def get_config():
    config = ml_collections.ConfigDict()
    config.model = ml_collections.ConfigDict()
    config.model.width = 16
    return config
def forward(x, config):
    w = jnp.ones((config.model.width, config.model.classes))
    return x @ w  # a comment
CONFIG = get_config()
def mutate_global():
    CONFIG.model.width = 12
def uses_global():
    x = jnp.ones((4, 12))
    return forward(x, CONFIG)  # silent: another function changes the global config
"""


def test_replay_keeps_what_other_functions_changed() -> None:
    """An edit of `forward` re-analyses `uses_global`; `mutate_global` was replayed without marking the global
    config as mutated, so the editor reported NC203 in `forward` where the CLI is silent."""
    editor = DocumentAnalyser("cfg.py")
    editor.analyse(CONFIG_MUTATED)
    edited = CONFIG_MUTATED.replace("# a comment", "# another comment")
    assert editor.analyse(edited).diagnostics == check_source(edited, "cfg.py") == []


def test_einsum_with_an_unknown_operand_sharding_and_out_sharding() -> None:
    """`P` never imported: the operands' shardings are unknown but `out_sharding=` is given (an NC000 KeyError
    in the einsum sharding rule before)."""
    text = (
        "import jax\nimport jax.numpy as jnp\n"
        "x_k = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\n"
        "w_k = jax.device_put(jnp.ones((16, 4)), P('data', None))\n"
        "e = jnp.einsum('ij,jk->ik', x_k, w_k, out_sharding=P('data'))\n"
    )
    assert check_source(text, "e.py") == []
