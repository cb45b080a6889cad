"""Jupyter notebooks (`.ipynb`) as ruff checks them: the code cells' text concatenated into one module (a
cell after another, each ending a line), IPython's magics (`%time`, `!pip`, `x = !ls`, `obj?`) masked as
`pass` and a cell magic's cell (`%%bash`) as comments, so every line keeps its number. A diagnostic of that
module is put back at its cell: `data["cell"]` (1-based, counting every cell of the notebook as Jupyter
shows them), `data["cell_line"]` / `data["cell_end_line"]` (1-based in the cell). Read as JSON, never as
Python; a notebook that is not valid JSON of the notebook format is one NC001 saying why."""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from namedcheck.diagnostic import Diagnostic, Related
from namedcheck.engine.codes import NC001

SUFFIX = ".ipynb"
_LINE_MAGIC = re.compile(r"^\s*(?:[%!]|[\w.\[\],][\w.\[\], ]*=\s*[%!])")  # a target starts with no space: linear
_HELP = re.compile(r"^\s*[\w.]+\s*\?{1,2}\s*$|^\s*\?{1,2}[\w.]+\s*$")


class NotebookError(ValueError):
    """A notebook that cannot be read: not JSON, or not the notebook format."""


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


@dataclass(frozen=True)
class Notebook:
    """The code cells as one module: its text, and where each cell starts in it."""

    source: str
    starts: tuple[int, ...]  # 1-based line of the module where each code cell starts
    cells: tuple[int, ...]  # each code cell's number (1-based, among all the notebook's cells)
    python: bool = True  # False: the notebook's language is not Python (not checked)

    def cell_at(self, line: int) -> tuple[int, int]:
        """(cell number, line in that cell) of a line of the module."""
        if not self.starts:
            return 1, line
        i = max(0, bisect.bisect_right(self.starts, line) - 1)
        return self.cells[i], line - self.starts[i] + 1


def read_notebook(data: bytes | str) -> Notebook:
    """The notebook's code cells as one module; `NotebookError` says what is wrong with one that cannot be read."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        raise NotebookError(f"it is not valid JSON ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise NotebookError("it is not in the notebook format: expected a JSON object with a list of `cells`")
    language = _language(doc)
    lines: list[str] = []
    starts: list[int] = []
    cells: list[int] = []
    for number, cell in enumerate(doc["cells"], 1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"cell {number} is not a notebook cell: expected an object with a `cell_type`")
        if cell["cell_type"] != "code":
            continue
        text = _text(cell.get("source", ""), number)
        cell_lines = text.splitlines() or [""]
        starts.append(len(lines) + 1)
        cells.append(number)
        lines.extend(_masked(cell_lines))
    source = "".join(ln + "\n" for ln in lines)
    return Notebook(source, tuple(starts), tuple(cells), language in (None, "python"))


def _language(doc: dict[str, Any]) -> str | None:
    meta = doc.get("metadata")
    info = meta.get("language_info") if isinstance(meta, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name.lower() if isinstance(name, str) else None


def _text(source: Any, number: int) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise NotebookError(f"cell {number}'s `source` is not text: expected a string or a list of strings")


def _masked(lines: list[str]) -> list[str]:
    """A cell's lines with IPython's syntax masked, line for line."""
    if lines and lines[0].lstrip().startswith("%%"):  # a cell magic: the cell is not Python
        return ["#" + ln if ln else "#" for ln in lines]
    out = []
    for ln in lines:
        if _LINE_MAGIC.match(ln) or _HELP.match(ln):
            indent = ln[: len(ln) - len(ln.lstrip())]
            out.append(f"{indent}pass")
        else:
            out.append(ln)
    return out


def in_cells(diags: list[Diagnostic], path: str, nb: Notebook) -> list[Diagnostic]:
    """The notebook's diagnostics (those at `path`) with their cell and line in it (`data`), related
    locations in the notebook named by cell."""
    out = []
    for d in diags:
        if d.path != path:
            out.append(d)
            continue
        cell, line = nb.cell_at(d.line)
        end_cell, end = nb.cell_at(d.end_line)
        if end_cell != cell:  # never past its own cell
            end = line
        related = tuple(_related(r, path, nb) for r in d.related)
        data = {**dict(d.data), "cell": cell, "cell_line": line, "cell_end_line": end}
        out.append(replace(d, data=data, related=related))
    return out


def _related(r: Related, path: str, nb: Notebook) -> Related:
    if r.path != path:
        return r
    cell, line = nb.cell_at(r.line)
    end_cell, end = nb.cell_at(r.end_line)
    return replace(r, line=line, end_line=end if end_cell == cell else line, message=f"cell {cell}: {r.message}")


def unreadable_notebook(display: str, e: NotebookError) -> Diagnostic:
    """The one diagnostic of a notebook that cannot be read."""
    return Diagnostic(
        display,
        1,
        1,
        1,
        1,
        NC001,
        f"Notebook is not checked: {e}",
        "save the notebook again from Jupyter, or leave it out (`extend-exclude` in [tool.namedcheck])",
    )
