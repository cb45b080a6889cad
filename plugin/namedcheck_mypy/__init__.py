"""namedcheck's mypy plugin: `plugins = ["namedcheck_mypy"]`.

Array annotations (`f32[(5, 7), {'b': 2}]`) become mypy types (`namedcheck.shaped.Shaped[Literal[...]]`),
so mypy's own assignment, argument and return checks compare shapes. Expressions get their types from
namedcheck's analyzer (the engine), and its diagnostics are reported as `error: [NC202] ...  [namedcheck]`.
"""

from __future__ import annotations

from mypy.plugin import Plugin

from namedcheck_mypy.hooks import NamedcheckPlugin


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return NamedcheckPlugin
