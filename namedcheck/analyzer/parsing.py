"""Every parse of a file's text: `parse_checked` (libcst), `parse_ast` (CPython's `ast`, the import scan) and
`parse_expression` (a string annotation) run the resource guard (`budget.python_rejects`) first, so no
text reaches a native parser that could crash the process or run past the file's budgets; a refusal is
`Unparsable` with its location and message (one NC001 for a checked file, Unknown for a dependency).
`decode_source` decodes bytes as Python does (a coding line, a BOM).

libcst parsing of source that CPython's own parser has accepted, without libcst's node validation.

libcst validates every node it constructs (`CSTNode.__post_init__` -> `_validate`), which is a third of
`parse_module`'s time and is redundant for a tree its own parser built from text that is valid Python
(libcst says as much beside that call). `parse_module(source, trusted=True)` skips it, for text that
`budget.python_rejects` has just seen CPython accept (`budget.cpython_accepted`); any other text (syntax
newer than the running Python, a syntax error) is parsed with validation, as before. The validation hook is
switched per thread, so nodes built elsewhere (fixes, the language server) are always validated.
"""

from __future__ import annotations

import ast
import io
import threading
import tokenize
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst._nodes.base import CSTNode

from namedcheck.analyzer.sources import decode_source  # (re-exported: read before a parse)

if TYPE_CHECKING:
    from namedcheck.analyzer.budget import Limits

_STATE = threading.local()


class Unparsable(Exception):
    """A text the guard refused or no parser accepts: where, and why (an NC001's message)."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


def parse_checked(source: str, limits: Limits | None = None) -> Any:
    """The libcst module of `source` after the guard let it through (raises `Unparsable`: refused, or a
    syntax error at CPython's location where CPython rejected the text too, else at libcst's)."""
    from namedcheck.analyzer.budget import python_rejects

    rejected = python_rejects(source, limits)
    if rejected is not None:
        raise Unparsable(*rejected)
    return parse_guarded(source)


def parse_guarded(source: str) -> Any:
    """The libcst module of `source`, which the last `python_rejects` call let through (raises
    `Unparsable`)."""
    from namedcheck.analyzer.budget import cpython_accepted, cpython_error

    trusted = cpython_accepted(source)
    try:
        return parse_module(source, trusted=trusted)
    except cst.ParserSyntaxError as e:
        if trusted:  # valid Python libcst rejects: a tab / space mix its tokenizer misreads, too many
            # joined strings; the same text, every line and column kept, rewritten for it
            from namedcheck.analyzer.budget import unjoined

            for rewritten in (_respaced, unjoined):
                text = rewritten(source)
                if text is None or text == source:
                    continue
                try:
                    return parse_module(text, trusted=True)
                except Exception:
                    continue
        cpython = cpython_error(source)
        if cpython is not None:
            raise Unparsable(cpython[0], cpython[1], f"File does not parse: {cpython[2]}") from None
        raise Unparsable(e.raw_line, e.raw_column + 1, f"File does not parse: {e.message}") from None
    except (RecursionError, MemoryError):
        raise Unparsable(1, 1, "File is not checked: it nests too deeply for the parser") from None
    except Exception as e:  # libcst raises a few other errors for odd inputs
        raise Unparsable(1, 1, f"File does not parse: {e}") from None


def _respaced(source: str) -> str | None:
    """`source` with each tab in a statement's indentation replaced by one space: the same columns, and the
    same blocks (CPython accepts a tab / space mix only when it nests the same with a tab as one column as
    with a tab as eight); None when Python's tokenizer fails on it or there is no tab."""
    if "\t" not in source:
        return None
    lines = source.splitlines(keepends=True)
    starts: list[tuple[int, int]] = []
    at_start = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                at_start = True
            elif tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
                continue
            elif at_start:
                at_start = False
                starts.append(tok.start)
    except (tokenize.TokenError, SyntaxError):
        return None
    for row, col in starts:
        line = lines[row - 1]
        if "\t" in line[:col]:
            lines[row - 1] = line[:col].replace("\t", " ") + line[col:]
    return "".join(lines)


def parse_ast(source: str | bytes, limits: Limits | None = None) -> ast.Module | None:
    """CPython's `ast` of a file's text or bytes (decoded as Python does) after the guard, or None (refused,
    undecodable or not valid Python): for cheap scans (a file's imports)."""
    from namedcheck.analyzer.budget import accepted_tree, python_rejects

    try:
        text = decode_source(source) if isinstance(source, bytes) else source
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
    if python_rejects(text, limits) is not None:
        return None
    return accepted_tree(text)


def parse_expression(text: str) -> Any:
    """The libcst expression of `text` (a string annotation) after the guard, or None (refused, or not an
    expression)."""
    from namedcheck.analyzer.budget import refused

    if "\0" in text or refused(text) is not None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text.strip(), mode="eval")  # nests within CPython's limits: libcst's parse is safe
        return cst.parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, cst.ParserSyntaxError):
        return None


def _post_init(self: CSTNode) -> None:
    if not getattr(_STATE, "trusted", False):
        self._validate()


def _install() -> None:
    if CSTNode.__dict__.get("__post_init__") is not _post_init:
        CSTNode.__post_init__ = _post_init  # type: ignore[method-assign]


def parse_module(source: str, trusted: bool = False) -> Any:
    """`libcst.parse_module(source)`; `trusted`: CPython's parser accepted `source` (nodes not validated)."""
    if not trusted:
        return cst.parse_module(source)
    _install()
    _STATE.trusted = True
    try:
        return cst.parse_module(source)
    finally:
        _STATE.trusted = False


class OwnScope(cst.CSTVisitor):
    """A visitor of one body's own statements: it does not enter the functions, lambdas and classes defined in
    it (their returns and loop exits are theirs)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


# fields of a syntax node that hold only punctuation and layout, never a node a value or a diagnostic is at
_SYNTAX_ONLY = ("whitespace", "lpar", "rpar", "comma", "semicolon", "leading_lines", "header", "footer", "newline")
_NODE_FIELDS: dict[type, tuple[str, ...] | None] = {}


def child_nodes(node: CSTNode) -> list[CSTNode]:
    """A node's children that may hold values (punctuation and layout left out), read from its fields: what
    `node.children` gives for a walk over expressions, without the visitor libcst builds it with (the
    hot path of walks over every assignment's value)."""
    out: list[CSTNode] = []
    fields = _NODE_FIELDS  # (a type's entry is made by `node_fields`; its lookup replaces an ABC `isinstance`)
    for name in fields.get(type(node)) or node_fields(type(node)) or ():
        v: Any = getattr(node, name, None)
        t = type(v)
        if t is tuple or t is list:
            for x in v:
                tx = type(x)
                if (fields[tx] if tx in fields else node_fields(tx)) is not None:
                    out.append(x)
        elif (fields[t] if t in fields else node_fields(t)) is not None:
            out.append(v)
    return out


def walk(node: CSTNode) -> Iterator[CSTNode]:
    """`node` and every node under it that may hold values, in a visitor's order (pre-order, fields in
    order), read from the fields (`child_nodes`): a cheap stand-in for a `CSTVisitor` pass."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        children = child_nodes(n)
        children.reverse()
        todo.extend(children)


def node_fields(t: type) -> tuple[str, ...] | None:
    """The fields of a libcst node type that may hold nodes (None: `t` is not a node type); memoised."""
    if t in _NODE_FIELDS:
        return _NODE_FIELDS[t]
    hit = None
    if issubclass(t, cst.CSTNode):
        names = getattr(t, "__dataclass_fields__", {})
        hit = tuple(n for n in names if not any(s in n for s in _SYNTAX_ONLY))
    _NODE_FIELDS[t] = hit
    return hit
