"""libcst parsing of source that CPython's own parser has accepted, without libcst's node validation.

libcst validates every node it constructs (`CSTNode.__post_init__` -> `_validate`), which is a third of
`parse_module`'s time and is redundant for a tree its own parser built from text that is valid Python
(libcst says as much beside that call). `parse_module(source, trusted=True)` skips it, for text that
`budget.python_rejects` has just seen CPython accept (`budget.cpython_accepted`); any other text (syntax
newer than the running Python, a syntax error) is parsed with validation, as before. The validation hook is
switched per thread, so nodes built elsewhere (fixes, the language server) are always validated.
"""

from __future__ import annotations

import threading
from typing import Any

import libcst as cst
from libcst._nodes.base import CSTNode

_STATE = threading.local()


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
