"""What incremental work needs of a project file's bytes, read once while its (mtime, size) stay the same:
the sha256 of the bytes, its import statements and the config-file defaults its flags name.

One table per process (`FACTS`). The CLI saves it beside its result cache and loads it at the next run, as
mypy keeps its cache's metadata: an unchanged tree's dependency fingerprints then cost a `stat` per file,
no read and no parse. Inside `FACTS.run()` (one CLI run, one request of a long-lived process) a file is
stat'ed once: what the run computes from the table (fingerprints) is computed once per module.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from namedcheck.analyzer.imports import CONFIG_FILE_FLAG, config_file_defaults
from namedcheck.analyzer.sources import read_bytes, read_regular

# an import statement: at a line's start, or after `;` / `:` (`if TYPE_CHECKING: import x`). Read with a
# regular expression, a file may seem to import more than it does (a docstring's "import x"), never less.
IMPORT_STATEMENT = re.compile(
    r"(?:^|(?<=[;:]))[ \t]*(?:from[ \t]+(?P<dots>\.*)(?P<module>[\w.]*)[ \t]+import[ \t]+(?P<what>\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+(?P<names>[^\n#;]+))",
    re.M,
)
MAX_SCANNED_BYTES = 5 * 1024 * 1024  # a larger file's imports are not read (nor is it checked by default)
FACTS_FILE = "files-v1.json"
MAX_FACTS_BYTES = 64 * 1024 * 1024
SETTLE_NS = 2_000_000_000  # a file modified this recently may change again within its mtime's tick: not saved


def import_statements(text: str) -> str:
    """A file's import statements, one per line (continuation lines joined first)."""
    if "\\\n" in text:
        text = text.replace("\\\n", " ")
    return "\n".join(m[0].strip() for m in IMPORT_STATEMENT.finditer(text))


@dataclass(frozen=True, slots=True)
class Facts:
    """One file's facts at one (mtime in ns, size); `digest` None: unreadable or over the cap."""

    stamp: tuple[int, int]
    digest: bytes | None
    imports: str
    config_defaults: tuple[str | None, ...] = ()

    def as_json(self) -> list[object]:
        return [*self.stamp, self.digest.hex() if self.digest else None, self.imports, list(self.config_defaults)]

    @staticmethod
    def from_json(row: object) -> Facts | None:
        if not (isinstance(row, list) and len(row) == 5):
            return None
        mtime, size, digest, imports, defaults = row
        if not (
            isinstance(mtime, int)
            and isinstance(size, int)
            and isinstance(digest, str | None)
            and isinstance(imports, str)
            and isinstance(defaults, list)
            and all(isinstance(d, str | None) for d in defaults)
        ):
            return None
        try:
            raw = bytes.fromhex(digest) if digest is not None else None
        except ValueError:
            return None
        return Facts((mtime, size), raw, imports, tuple(defaults))


def _stamp(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


class FactTable:
    """Files' facts by path, re-read when a file's (mtime, size) moved."""

    def __init__(self) -> None:
        self._by_path: dict[str, Facts] = {}
        self._seen: set[str] = set()  # stat'ed in this run (`run()`): trusted until it ends
        self.depth = 0
        self.generation = 0  # moves at each run's start and at each change seen outside a run
        self.changed = False  # something to save

    @property
    def in_run(self) -> bool:
        return self.depth > 0

    @contextmanager
    def run(self) -> Iterator[None]:
        """A scope in which each file is stat'ed once (the files of one CLI run, of one editor request)."""
        if self.depth == 0:
            self._seen.clear()
            self.generation += 1
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                self._seen.clear()
                self.generation += 1

    def facts(self, path: Path | str) -> Facts:
        key = str(path)
        hit = self._by_path.get(key)
        if hit is not None and self.depth and key in self._seen:
            return hit
        stamp = _stamp(key)
        if hit is None or hit.stamp != stamp or stamp[0] < 0:
            hit = self._read(key, stamp)
            self._by_path[key] = hit
            self.changed = True
            if not self.depth:
                self.generation += 1
        if self.depth:
            self._seen.add(key)
        return hit

    def fresh(self, path: Path | str) -> Facts:
        """The file's facts after a `stat` (inside a run too): what the disk holds now."""
        self._seen.discard(str(path))
        return self.facts(path)

    def current(self, path: Path | str) -> bool:
        """Whether the file's (mtime, size) are still those its facts were read at (a stat, run or not)."""
        hit = self._by_path.get(str(path))
        return hit is not None and _stamp(str(path)) == hit.stamp

    @staticmethod
    def _read(path: str, stamp: tuple[int, int]) -> Facts:
        try:
            data = read_bytes(Path(path), MAX_SCANNED_BYTES)
        except OSError:  # unreadable or over the cap: its names are Unknown, whatever it holds
            return Facts(stamp, None, "")
        text = data.decode("utf-8", errors="replace")
        defaults = tuple(config_file_defaults(text)) if CONFIG_FILE_FLAG in text else ()
        return Facts(stamp, hashlib.sha256(data).digest(), import_statements(text), defaults)

    # ---- kept across runs (the CLI's cache directory) --------------------------------------------
    def load(self, directory: Path) -> None:
        """The facts a previous run saved in `directory` (a missing, damaged or foreign file: none)."""
        data = read_regular(str(directory / FACTS_FILE), MAX_FACTS_BYTES)
        if isinstance(data, str):
            return
        try:
            saved = json.loads(data)
            rows = saved["files"] if saved.get("version") == 1 else {}
        except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
            return
        if not isinstance(rows, dict):
            return
        for key, row in rows.items():
            facts = Facts.from_json(row)
            if facts is not None and isinstance(key, str) and key not in self._by_path:
                self._by_path[key] = facts

    def save(self, directory: Path) -> None:
        """Writes the table into `directory` atomically when it changed (files modified in the last
        `SETTLE_NS` left out: a second edit in the same mtime tick would go unseen)."""
        if not self.changed:
            return
        settled = time.time_ns() - SETTLE_NS
        rows = {k: f.as_json() for k, f in self._by_path.items() if 0 <= f.stamp[0] < settled}
        payload = json.dumps({"version": 1, "files": rows}).encode()
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(payload)
            os.replace(tmp, directory / FACTS_FILE)
            self.changed = False
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def __len__(self) -> int:
        return len(self._by_path)


FACTS = FactTable()

__all__ = ["FACTS", "IMPORT_STATEMENT", "MAX_SCANNED_BYTES", "FactTable", "Facts", "import_statements"]
