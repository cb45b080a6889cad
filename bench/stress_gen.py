"""Generated hostile programs for the stress suite (`bench/stress.py hostile`, tests/stress/): one generator per
kind, each taking a size, with the outcome namedcheck must give for it.

A kind's text is written with `import jax` at the top or without it (a file that never mentions jax takes the
relevance shortcut: only the project's import scan parses it). Outcomes, for the hostile file itself:
`clean` (valid Python the checker can handle: no diagnostic), `bug` (the NC201 on its last line reported, no
NC001: nothing before it used up the budget), `nc001` (exactly one NC001) or `either` (no
diagnostic, or exactly one NC001: Python may accept it, and namedcheck may or may not be able to check it).
A file without `import jax` may always be skipped: its outcome is `clean` or `either`.
Special kinds (a symlink to itself, a FIFO, /dev/zero) are made on disk by `make_special`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

JAX_HEADER = "import jax\nimport jax.numpy as jnp\n"


@dataclass(frozen=True)
class Kind:
    name: str
    make: Callable[[int, bool], bytes]  # (size, with jax) -> the file's bytes (empty for special kinds)
    size: int  # the size the issue reports (the default run)
    quick: int  # a size for `--quick` and the CI tests (still past what the guard must refuse)
    expect: str  # clean | nc001 | either (with `import jax`; see the module docstring)
    special: str = ""  # symlink-self | fifo | devzero: made on disk, not written
    stdin: bool = True  # can be given on stdin (`check -`)
    stub: bool = True  # worth trying as a stub file (stub-paths)
    heavy: bool = False  # large on disk (tens of MB): fewer modes in --quick
    config: Callable[[int], str] | None = None  # extra `[tool.namedcheck]` lines for a size


def _text(body: str, jax: bool, pre: str = "") -> bytes:
    return (pre + (JAX_HEADER if jax else "") + body).encode()


def bool_chain(n: int, jax: bool) -> bytes:
    return _text("a = 1\nx = " + " and ".join(["a"] * n) + "\n", jax)


def or_chain(n: int, jax: bool) -> bytes:
    return _text("a = 0\nx = " + " or ".join(["a"] * n) + "\n", jax)


def binary_chain(n: int, jax: bool) -> bytes:
    return _text("x = " + " + ".join(["1"] * n) + "\n", jax)


def unary_chain(n: int, jax: bool) -> bytes:
    return _text("x = " + "-" * n + "1\n", jax)


def compare_chain(n: int, jax: bool) -> bytes:
    return _text("a = 1\nx = " + " < ".join(["a"] * n) + "\n", jax)


def attribute_chain(n: int, jax: bool) -> bytes:
    return _text("import os\nx = os" + ".path" * n + "\n", jax)


def call_chain(n: int, jax: bool) -> bytes:
    return _text("def f():\n    return f\n\n\nx = f" + "()" * n + "\n", jax)


def subscript_chain(n: int, jax: bool) -> bytes:
    return _text("a = [0]\nx = a" + "[0]" * n + "\n", jax)


def dotted_import(n: int, jax: bool) -> bytes:
    return _text("import " + ".".join(["a"] * n) + "\n", jax)


def nested_lambda(n: int, jax: bool) -> bytes:
    return _text("f = " + "lambda: " * n + "0\n", jax)


def nested_fstring(n: int, jax: bool) -> bytes:
    # PEP 701 nesting (the same quotes inside): a syntax error before Python 3.12
    return _text("x = " + 'f"{' * n + "1" + '}"' * n + "\n", jax)


def deep_brackets(n: int, jax: bool) -> bytes:
    return _text("x = " + "(" * n + "1" + ")" * n + "\ny = " + "[" * n + "]" * n + "\n", jax)


def implicit_strings(n: int, jax: bool) -> bytes:
    return _text("x = (\n" + "".join(f'    "s{i}"\n' for i in range(n)) + ")\ny = " + ' "a"' * n + "\n", jax)


def tab_space(n: int, jax: bool) -> bytes:
    """Indentation Python accepts: blocks of tabs, blocks of spaces, and a tab after spaces used consistently."""
    parts = []
    for i in range(n):
        parts.append(f"def f{i}(a):\n\tif a:\n\t\treturn {i}\n\treturn a\n\n\n")
        parts.append(f"def g{i}(a):\n        if a:\n        \treturn {i}\n        return a\n\n\n")
        parts.append(f"def h{i}(a):\n  \tx = a\n  \tif x:\n  \t    return x\n  \treturn {i}\n\n\n")
    return _text("".join(parts), jax)


def latin1_coding(n: int, jax: bool) -> bytes:
    head = b"# -*- coding: latin-1 -*-\n"
    body = b"".join(b's%d = "caf\xe9 \xa9 \xfc"\n' % i for i in range(n))
    return head + (JAX_HEADER.encode() if jax else b"") + body


def bad_hex_escape(n: int, jax: bool) -> bytes:
    return _text('x = b"\\x.0"\n' + "y = 1\n" * n, jax)


def nul_byte(n: int, jax: bool) -> bytes:
    return _text("x = 1\n" * n, jax) + b"y = 2\x00\n"


def _comprehension(depth: int, gens: int, width: int, jax: bool) -> str:
    """`depth` nested list comprehensions, each with `gens` generators over a `width`-element tuple."""
    seq = "(" + ", ".join(str(i + 1) for i in range(width)) + ")"
    expr = "jnp.ones((2,)) * v0_0" if jax else "v0_0"
    for level in range(depth):
        expr = "[" + expr + "".join(f" for v{level}_{g} in {seq}" for g in range(gens)) + "]"
    return expr


def comprehension_generators(n: int, jax: bool) -> bytes:
    """Comprehensions `n` deep, each with two generators over two elements (4**n elements)."""
    return _text(f"xs = {_comprehension(n, 2, 2, jax)}\n", jax)


def generator_sums(n: int, jax: bool) -> bytes:
    """Generator expressions summed `n` deep, each over two elements."""
    expr = "jnp.ones((2,))" if jax else "1"
    start = "jnp.zeros((2,))" if jax else "0"
    for i in range(n):
        expr = f"sum(({expr} * v{i} for v{i} in (1, 2)), {start})"
    return _text(f"x = {expr}\n", jax)


def comprehension_wide(n: int, jax: bool) -> bytes:
    """`n` generators over four elements, four comprehensions deep."""
    return _text(f"xs = {_comprehension(4, n, 4, jax)}\n", jax)


def comprehension_nested_source(n: int, jax: bool) -> bytes:
    """A list comprehension over `n` nested comprehensions."""
    src = "[jnp.ones((3,)) * w for w in (1, 2, 3)]" if jax else "(1, 2, 3)"
    for i in range(n):
        src = f"[v{i} for v{i} in {src}]"
    return _text(f"xs = [x + 1 for x in {src}]\n", jax)


def huge_loop(n: int, jax: bool) -> bytes:
    """Loops over literal ranges of 10**n iterations (the analysis unrolls known ranges)."""
    x = "jnp.zeros((3,))" if jax else "0"
    one = "jnp.ones((3,))" if jax else "1"
    return _text(
        f"x = {x}\nfor i in range(10**{n}):\n    x = x + {one}\n"
        f"for i in range(1000):\n    for j in range(1000):\n        for k in range(1000):\n            x = x + {one}\n"
        f"ys = [x + {one} * i for i in range(10**{n})]\n"
        f"def f(k):\n    return f(k + 1) + {one}\n\n\nz = f(0)\n",
        jax,
    )


def analysis_heavy(n: int, jax: bool) -> bytes:
    """`n` MB of array statements, under the default size cap (parse and analysis within the budgets)."""
    line = "y{i} = jnp.ones((3, 4)) @ jnp.ones((4, 5)) + x\n" if jax else "y{i} = [1, 2, 3] + x\n"
    head = "x = jnp.zeros((3, 5))\n" if jax else "x = []\n"
    out, size, i = [head], len(head), 0
    while size < n * 1_000_000:
        s = line.format(i=i)
        out.append(s)
        size += len(s)
        i += 1
    return _text("".join(out), jax)


def big_file(n: int, jax: bool) -> bytes:
    """`n` MB of short statements (past the default 5 MB cap)."""
    line = b"x = 1\n"
    return _text("", jax) + line * (n * 1_000_000 // len(line))


def long_line(n: int, jax: bool) -> bytes:
    """A single `n` MB line."""
    return _text("", jax) + b"x = [" + b"1, " * (n * 1_000_000 // 3) + b"]\n"


# A genuine bug after the hostile part: a kind whose outcome is `bug` must still report it (a scan or a cut
# that used up the file's budget lost it, exit 0).
TAIL_BUG = "w = jnp.zeros((4, 8)) + jnp.ones((5, 8))\n"


def long_comment(n: int, jax: bool) -> bytes:
    """A comment line of `n` `#noqa NC1` markers (the suppression scan was quadratic in them)."""
    return _text("z = 1  " + "#noqa NC1 " * n + "\n" + (TAIL_BUG if jax else ""), jax)


def einsum_spec(n: int, jax: bool) -> bytes:
    """An einsum spec of `n` letters then a character no operand may hold (the term pattern backtracked)."""
    body = f'x = jnp.einsum("{"a" * n}!,b->a", jnp.zeros((4,)), jnp.zeros((4,)))\n' if jax else ""
    return _text(body + (TAIL_BUG if jax else ""), jax)


def parameterized_product(n: int, jax: bool) -> bytes:
    """`parameterized.product` over `n` lists of 10 values (10**n sets; the first 8 are analysed)."""
    names = [f"p{i}" for i in range(n)]
    return _text(
        "from absl.testing import absltest, parameterized\n\nV = list(range(10))\n\n\n"
        "class T(parameterized.TestCase):\n"
        f"    @parameterized.product({', '.join(f'{k}=V' for k in names)})\n"
        f"    def test_x(self, {', '.join(names)}):\n"
        "        x = p0 + 1\n\n\n" + (TAIL_BUG if jax else ""),
        jax,
    )


def devices_list(n: int, jax: bool) -> bytes:
    """A file that reads the device count, checked under a configured list of counts (`devices_config`)."""
    body = (
        "import numpy as np\n\ndevs = jax.devices()\nn = len(devs)\narr = np.array(jax.devices()).reshape(-1, 1)\n"
        "x = jnp.zeros((n, 8)) + jnp.ones((n, 8))\n"
    )
    return _text(body + (TAIL_BUG if jax else ""), jax)


def devices_config(n: int) -> str:
    return f"devices = [{', '.join(str(i) for i in range(1, n + 1))}]\n"


def special(n: int, jax: bool) -> bytes:
    return b""


KINDS: dict[str, Kind] = {
    k.name: k
    for k in [
        Kind("bool_chain", bool_chain, 100_000, 20_000, "either"),
        Kind("or_chain", or_chain, 20_000, 20_000, "either"),
        Kind("binary_chain", binary_chain, 20_000, 5_000, "either"),
        Kind("unary_chain", unary_chain, 100_000, 20_000, "either"),
        Kind("compare_chain", compare_chain, 20_000, 10_000, "either"),
        Kind("attribute_chain", attribute_chain, 20_000, 10_000, "either"),
        Kind("call_chain", call_chain, 20_000, 10_000, "either"),
        Kind("subscript_chain", subscript_chain, 20_000, 10_000, "either"),
        Kind("dotted_import", dotted_import, 20_000, 20_000, "either"),
        Kind("nested_lambda", nested_lambda, 5_000, 5_000, "either"),
        Kind("nested_fstring", nested_fstring, 2_000, 500, "either"),
        Kind("deep_brackets", deep_brackets, 10_000, 1_000, "either"),
        Kind("implicit_strings", implicit_strings, 10_000, 5_000, "clean"),
        Kind("tab_space", tab_space, 300, 50, "clean"),
        Kind("latin1_coding", latin1_coding, 1_000, 50, "clean"),
        Kind("bad_hex_escape", bad_hex_escape, 10, 10, "nc001"),
        Kind("nul_byte", nul_byte, 10, 10, "nc001"),
        Kind("comprehension_generators", comprehension_generators, 20, 20, "either"),
        Kind("generator_sums", generator_sums, 20, 20, "either"),
        Kind("comprehension_wide", comprehension_wide, 64, 64, "either"),
        Kind("comprehension_nested_source", comprehension_nested_source, 100, 100, "either"),
        Kind("huge_loop", huge_loop, 9, 9, "either"),
        Kind("analysis_heavy", analysis_heavy, 4, 1, "either", stdin=True, stub=False, heavy=True),
        Kind("big_file", big_file, 50, 6, "nc001", heavy=True),
        Kind("long_line", long_line, 10, 6, "nc001", heavy=True),
        Kind("long_comment", long_comment, 40_000, 10_000, "bug"),
        Kind("einsum_spec", einsum_spec, 20_000, 20_000, "bug"),
        Kind("parameterized_product", parameterized_product, 8, 7, "bug"),
        Kind("devices_list", devices_list, 16, 16, "bug", config=devices_config),
        Kind("self_symlink", special, 0, 0, "either", special="symlink-self", stdin=False),
        Kind("fifo", special, 0, 0, "either", special="fifo", stdin=False),
        Kind("devzero", special, 0, 0, "either", special="devzero"),
    ]
}


def expected(kind: Kind, jax: bool) -> str:
    """The outcome for the hostile file itself: a file without jax may be skipped (no diagnostic)."""
    if jax:
        return kind.expect
    return "clean" if kind.expect in ("clean", "bug") else "either"


def make_special(kind: Kind, path: Path) -> None:
    """Put the special file at `path` (a symlink to itself, a FIFO nobody writes, a link to /dev/zero)."""
    if kind.special == "symlink-self":
        os.symlink(path.name, path)
    elif kind.special == "fifo":
        os.mkfifo(path)
    elif kind.special == "devzero":
        os.symlink("/dev/zero", path)
    else:
        raise ValueError(kind.special)


def write_kind(kind: Kind, path: Path, size: int, jax: bool) -> None:
    if kind.special:
        make_special(kind, path)
    else:
        path.write_bytes(kind.make(size, jax))
