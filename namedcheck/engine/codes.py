"""Every diagnostic code: its title and its `namedcheck explain` text (what, wrong, right)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    title: str
    explanation: str
    wrong: str
    right: str


_CODES: list[Code] = [
    Code("NC000", "internal error",
         "namedcheck failed while analysing this file. The rest of the run goes on; please report it "
         "with the file that triggers it.", "", ""),
    Code("NC001", "file does not parse",
         "The file is not valid Python 3 syntax, so nothing in it can be checked.",
         "def f(x:\n    return x\n", "def f(x):\n    return x\n"),
    Code("NC101", "malformed annotation",
         "An array annotation must be `dtype[(dims...)]` or `dtype[(dims...), {'name': size}]` "
         "with a tuple of sizes first and an optional dict of named axes second.",
         "x: f32[5]", "x: f32[(5,)]"),
    Code("NC102", "invalid size in annotation",
         "A size is a non-negative int or a symbol (an identifier string).",
         "x: f32[(-1, 7)]", "x: f32[('N', 7)]"),
    Code("NC103", "named axis repeated in annotation",
         "Each axis name appears once in a named shape; named axes are unordered.",
         "x: f32[(), {'b': 2, 'b': 3}]", "x: f32[(), {'b': 2}]"),
    Code("NC104", "more than one `...` in a shape",
         "`...` stands for any number of leading dimensions and may appear at most once.",
         "x: f32[(..., 3, ...)]", "x: f32[(..., 3)]"),
    Code("NC105", "annotation part is not a literal",
         "Sizes and axis names must be written literally so they can be checked before the program runs.",
         "x: f32[(n, 7)]", "x: f32[('n', 7)]"),
    Code("NC201", "positional broadcasting mismatch",
         "Positional shapes broadcast right-aligned: each pair of sizes must be equal or one of them 1.",
         "a: f32[(3, 4)]\nb: f32[(5,)]\na + b", "a: f32[(3, 4)]\nb: f32[(4,)]\na + b"),
    Code("NC202", "named axis size conflict",
         "Named axes broadcast by name: the result carries every name of every operand, and a name must "
         "have one size everywhere. There is no size-1 stretching of named axes.",
         "x: f32[(), {'b': 4}]\ny: f32[(), {'b': 8}]\nx + y",
         "x: f32[(), {'b': 4}]\ny: f32[(), {'c': 8}]\nx + y  # f32[(), {'b': 4, 'c': 8}]"),
    Code("NC203", "op shape rule violated",
         "An op's own shape rule: contraction sizes of dot / matmul / tensordot / einsum, element counts "
         "of reshape, matching sizes for concatenate / stack, indices within bounds.",
         "x: f32[(3, 4)]\ny: f32[(5, 6)]\njnp.dot(x, y)", "x: f32[(3, 4)]\ny: f32[(4, 6)]\njnp.dot(x, y)"),
    Code("NC301", "value does not match its declared type",
         "An annotated assignment or a return whose inferred type differs from the annotation: "
         "positional sizes, rank or named axes.",
         "def f(x: f32[(3,)]) -> f32[(4,)]:\n    return x",
         "def f(x: f32[(3,)]) -> f32[(3,)]:\n    return x"),
    Code("NC302", "argument does not match parameter annotation",
         "An argument's positional shape must match the parameter's, and every named axis the parameter "
         "declares must be present with its size. Extra named axes are lifted through the call "
         "(vmap semantics) and appear on the result.",
         "def g(x: f32[(3,)]) -> f32[()]: ...\ny: f32[(4,)]\ng(y)",
         "def g(x: f32[(3,)]) -> f32[()]: ...\ny: f32[(3,)]\ng(y)"),
    Code("NC303", "symbol bound to two sizes",
         "A symbol in a signature is bound at the call and must have one size across all parameters.",
         "def g(x: f32[('N',)], y: f32[('N',)]) -> f32[()]: ...\ng(jnp.zeros(3), jnp.zeros(4))",
         "def g(x: f32[('N',)], y: f32[('N',)]) -> f32[()]: ...\ng(jnp.zeros(3), jnp.zeros(3))"),
    Code("NC304", "dtype mismatch",
         "The inferred dtype clearly differs from the declared one (JAX promotion rules, weak Python "
         "scalars included; 32/64-bit pairs are not told apart since x64 is usually off).",
         "x: i32[(3,)] = jnp.zeros(3)", "x: f32[(3,)] = jnp.zeros(3)"),
    Code("NC701", "axis argument out of range",
         "A reduction, collective or axis-taking op names a positional axis the value does not have.",
         "x: f32[(3, 4)]\njnp.sum(x, axis=2)", "x: f32[(3, 4)]\njnp.sum(x, axis=1)"),
    Code("NC702", "einsum spec error",
         "A named einsum spec (`'n{b,k},{k,m}->n{b,m}'`) is malformed, its letters do not match the "
         "operands' ranks, or it mentions a named axis for one operand that has it while skipping it for "
         "another operand that also has it.",
         "x: f32[(5,), {'b': 2, 'k': 7}]\ny: f32[(), {'k': 7}]\njnp.einsum('n{k},{}->n', x, y)",
         "x: f32[(5,), {'b': 2, 'k': 7}]\ny: f32[(), {'k': 7}]\njnp.einsum('n{k},{k}->n', x, y)"),
]

CODES: dict[str, Code] = {c.code: c for c in _CODES}


def matches(code: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Whether a code is selected by any prefix pattern (`NC2` selects NC201, NC202, ...)."""
    return any(code.startswith(p.strip().upper()) for p in patterns if p.strip())
