"""Imports added to a module as isort / ruff (I001) would place them: a name merged into the module's
existing `from M import ...` (names re-sorted), else a new statement in its section (future, standard
library, third party, first party, local), straight imports before `from` imports, modules in natural
order; names ordered by type (CONSTANTS, Classes, functions). Imports for type checkers only go under the
module's `if TYPE_CHECKING:` (one is added after its imports when it has none).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from namedcheck.analyzer.parsing import parse_checked
from namedcheck.diagnostic import Edit

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)


def _natural(s: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s.lower()))


def member_key(name: str) -> tuple[object, ...]:
    """ruff's order of imported names (order-by-type): CONSTANTS, then Classes, then the rest."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (kind, _natural(name), name)


@dataclass
class _Import:
    node: cst.CSTNode  # the Import / ImportFrom (a placeholder for one not yet written)
    line: int  # 1-based first and last line of the statement line
    end_line: int
    module: str
    is_from: bool
    section: int
    names: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[object, ...]:
        return (self.is_from, _natural(self.module), self.module)


def _dotted(node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node)


class ImportPlan:
    """What a module imports where, and the edits that add names to it."""

    def __init__(self, source: str, first_party: frozenset[str] = frozenset(), line_length: int = 88) -> None:
        self.lines = source.splitlines(keepends=True)
        self.first_party = first_party
        self.line_length = line_length
        wrapper = MetadataWrapper(parse_checked(source), unsafe_skip_copy=True)  # (the guard first; raises)
        self.module = wrapper.module
        self.indent = self.module.default_indent  # the file's own (a 2-space Google-style file gets 2 spaces)
        self.pos = wrapper.resolve(PositionProvider)
        self.top = self._block(self.module.body)
        self.docstring_end = 0
        body = self.module.body
        if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr):
            if isinstance(body[0].body[0].value, cst.SimpleString | cst.ConcatenatedString):
                self.docstring_end = self.pos[body[0]].end.line
        self.checking: cst.If | None = None  # the top-level `if TYPE_CHECKING:`
        for s in body:
            if isinstance(s, cst.If) and _dotted(s.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                self.checking = s
                break
        inner: Sequence[cst.CSTNode] = self.checking.body.body if self.checking is not None else ()
        self.typing_block = self._block(inner)

    def section(self, module: str, relative: bool) -> int:
        top = module.split(".")[0]
        if relative:
            return LOCAL
        if top == "__future__":
            return FUTURE
        if top in self.first_party:
            return FIRST_PARTY
        if top in sys.stdlib_module_names:
            return STDLIB
        return THIRD_PARTY

    def _block(self, body: Sequence[cst.CSTNode]) -> list[_Import]:
        """The first run of import statements of a body (each on its own statement line)."""
        out: list[_Import] = []
        for s in body:
            small = s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None
            if isinstance(small, cst.Import):
                mod = _dotted(small.names[0].name)
            elif isinstance(small, cst.ImportFrom):
                mod = "." * len(small.relative) + (_dotted(small.module) if small.module is not None else "")
            else:
                if out:
                    break
                continue
            names = (
                [_dotted(n.name) + (f" as {_dotted(n.asname.name)}" if n.asname else "") for n in small.names]
                if isinstance(small.names, list | tuple)
                else ["*"]
            )
            r = self.pos[s]
            out.append(
                _Import(
                    small,
                    r.start.line,
                    r.end.line,
                    mod,
                    isinstance(small, cst.ImportFrom),
                    self.section(mod, mod.startswith(".")),
                    names,
                )
            )
        return out

    # ---- what the module has ----------------------------------------------------------------------------
    def bound(self) -> dict[str, str]:
        """Names top-level imports bind outside `if TYPE_CHECKING:` -> the module they come from."""
        out: dict[str, str] = {}
        for s in self.module.body:
            if not isinstance(s, cst.SimpleStatementLine):
                continue
            for small in s.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.names, list | tuple):
                    mod = _dotted(small.module) if small.module is not None else "."
                    for n in small.names:
                        out[_dotted(n.asname.name) if n.asname else _dotted(n.name)] = f"{mod}.{_dotted(n.name)}"
                elif isinstance(small, cst.Import):
                    for n in small.names:
                        name = _dotted(n.asname.name) if n.asname else _dotted(n.name).split(".")[0]
                        out[name] = _dotted(n.name)
        return out

    def imports_at_runtime(self, module: str) -> bool:
        return any(i.module == module or i.module.startswith(module + ".") for i in self._all_top())

    def has_future_annotations(self) -> bool:
        return any(i.module == "__future__" and "annotations" in i.names for i in self._all_top())

    def _all_top(self) -> list[_Import]:
        out = []
        for s in self.module.body:
            out += self._block([s])
        return out

    # ---- edits ------------------------------------------------------------------------------------------
    def add_from(self, module: str, names: set[str], typing_only: bool = False) -> list[Edit]:
        """Edits that make `from module import names` hold (at run time, or under `if TYPE_CHECKING:`)."""
        block = self.typing_block if typing_only else self.top
        indent = self._checking_indent() if typing_only else ""
        for imp in block:
            if imp.is_from and imp.module == module and "*" not in imp.names:
                missing = names - {n.split(" as ")[0] for n in imp.names}
                if not missing:
                    return []
                merged = sorted({*imp.names, *missing}, key=lambda n: member_key(n.split(" as ")[0]))
                r = self.pos[imp.node]
                text = self._render(module, merged, indent)
                return [Edit(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1, text.strip())]
        if typing_only and self.checking is None:
            return []  # the caller adds the block with `typing_block_edit`
        return self._insert(
            block,
            _Import(cst.Pass(), 0, 0, module, True, self.section(module, False)),
            sorted(names, key=member_key),
            indent,
        )

    def add_import(self, module: str) -> list[Edit]:
        if any(not i.is_from and module in i.names for i in self.top):
            return []
        return self._insert(self.top, _Import(cst.Pass(), 0, 0, module, False, self.section(module, False)), [], "")

    def _render(self, module: str, names: list[str], indent: str) -> str:
        one = f"{indent}from {module} import {', '.join(names)}\n"
        if len(one.rstrip("\n")) <= self.line_length:
            return one
        inner = indent + self.indent
        return f"{indent}from {module} import (\n" + "".join(f"{inner}{n},\n" for n in names) + f"{indent})\n"

    def _checking_indent(self) -> str:
        """The indentation of the body of the module's `if TYPE_CHECKING:` (the file's own when it has none)."""
        body = self.checking.body if self.checking is not None else None
        own = body.indent if isinstance(body, cst.IndentedBlock) else None
        return own if own is not None else self.indent

    def _insert(self, block: list[_Import], new: _Import, names: list[str], indent: str) -> list[Edit]:
        text = self._render(new.module, names, indent) if new.is_from else f"{indent}import {new.module}\n"
        if not block:
            at = self.docstring_end + 1
            return [Edit(at, 1, at, 1, ("\n" if self.docstring_end else "") + text + self._trail(at))]
        same = [i for i in block if i.section == new.section]
        if same:
            after = [i for i in same if i.key > new.key]
            at = after[0].line if after else same[-1].end_line + 1
            return [Edit(at, 1, at, 1, text)]
        later = [i for i in block if i.section > new.section]
        if later:
            at = later[0].line
            return [Edit(at, 1, at, 1, text + "\n")]
        at = block[-1].end_line + 1
        return [Edit(at, 1, at, 1, "\n" + text)]

    def typing_block_edit(self, module_names: dict[str, set[str]]) -> list[Edit]:
        """A new `if TYPE_CHECKING:` block after the module's imports holding `from m import names` lines."""
        body = ""
        last = None
        for m, n in sorted(module_names.items(), key=lambda kv: (self.section(kv[0], False), _natural(kv[0]))):
            section = self.section(m, False)
            body += ("\n" if last is not None and section != last else "") + self._render(
                m, sorted(n, key=member_key), self.indent
            )
            last = section
        at = self.top[-1].end_line + 1 if self.top else self.docstring_end + 1
        return [Edit(at, 1, at, 1, "\nif TYPE_CHECKING:\n" + body + self._trail(at))]

    def future_annotations_edit(self) -> list[Edit]:
        """`from __future__ import annotations`, first after the docstring."""
        for imp in self.top:
            if imp.module == "__future__":
                return self.add_from("__future__", {"annotations"})
        if self.top:
            first = self.top[0].line
            return [Edit(first, 1, first, 1, "from __future__ import annotations\n\n")]
        at = self.docstring_end + 1
        lead = "\n" if self.docstring_end else ""
        return [Edit(at, 1, at, 1, lead + "from __future__ import annotations\n" + self._trail(at))]

    def _trail(self, at: int) -> str:
        """The blank lines to add after text inserted before line `at` so that the code after it stands as
        pycodestyle / ruff want it: two blank lines before a definition, one before other code."""
        blank = 0
        while at - 1 + blank < len(self.lines) and not self.lines[at - 1 + blank].strip():
            blank += 1
        if at - 1 + blank >= len(self.lines):
            return ""
        nxt = self.lines[at - 1 + blank].lstrip()
        want = 2 if nxt.startswith(("def ", "class ", "async def ", "@")) else 1
        return "\n" * max(0, want - blank)


def first_party_of(path: str) -> tuple[frozenset[str], int]:
    """The first-party top-level names (directories and modules at the project's root, ruff's `src = ["."]`)
    and the line length of the project around `path` (`_line_length`, else 88)."""
    here = Path(path).resolve().parent
    root = here
    for d in [here, *here.parents]:
        if (d / "pyproject.toml").is_file() or (d / ".git").exists():
            root = d
            break
    names: set[str] = set()
    length = 88
    try:
        for p in root.iterdir():
            if p.suffix == ".py":
                names.add(p.stem)
            elif p.is_dir() and (p / "__init__.py").is_file():
                names.add(p.name)
        text = (root / "pyproject.toml").read_text() if (root / "pyproject.toml").is_file() else ""
    except OSError:
        text = ""
    return frozenset(names), _line_length(text) or length


def _line_length(pyproject: str) -> int | None:
    """The line length the project's formatter keeps: `[tool.ruff]`, `[tool.pyink]` (Google's 80 columns) or
    `[tool.black]` `line-length`; None when none is stated or the file does not read."""
    import tomllib

    try:
        tools = tomllib.loads(pyproject).get("tool", {})
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None
    for name in ("ruff", "pyink", "black"):
        value = tools.get(name, {}).get("line-length") if isinstance(tools.get(name), dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and 20 <= value <= 1000:
            return value
    return None
