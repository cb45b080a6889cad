"""A module as top-level chunks (one statement, or a decorated definition, with the comments before the
next), each parsed on its own and cached by its text: an edit re-parses only the chunk it touches.

Each chunk's text passes the resource guard (`budget.python_rejects`) before libcst parses it. Identical
chunks of one file (two equal statements) get distinct trees (the cache key holds the occurrence), so each
reports at its own position. The cache is bounded by count and by the size of the texts it holds (least
recently used first out)."""

from __future__ import annotations

import io
import tokenize
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

_CONTINUATIONS = ("else", "elif", "except", "finally")
_DEFINITIONS = ("def ", "async ", "class ")
MAX_CACHED_CHUNKS = 4_000
# characters of chunk text the cache holds: a parsed chunk with its positions takes about 140 bytes per
# character of text (measured over namedcheck's own sources), so ~21 MB at most, full after ~1,500 unique edits
# of a definition; open files larger than this together (over ~4,000 lines) are re-parsed on each edit, as
# the command line parses them
MAX_CACHED_CHARS = 150_000

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A mapping bounded by entry count and by total weight (the caller's measure of an entry's memory):
    past either, the least recently used entries leave."""

    def __init__(self, max_entries: int, max_weight: int) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self.weight = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def get(self, key: K) -> V | None:
        hit = self._data.get(key)
        if hit is None:
            return None
        self._data.move_to_end(key)
        return hit[0]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def put(self, key: K, value: V, weight: int = 1) -> None:
        old = self._data.pop(key, None)
        if old is not None:
            self.weight -= old[1]
        self._data[key] = (value, weight)
        self.weight += weight
        while self._data and (len(self._data) > self.max_entries or self.weight > self.max_weight):
            _, (_, w) = self._data.popitem(last=False)
            self.weight -= w

    def pop(self, key: K) -> V | None:
        old = self._data.pop(key, None)
        if old is None:
            return None
        self.weight -= old[1]
        return old[0]

    def clear(self) -> None:
        self._data.clear()
        self.weight = 0


class ChunkSyntaxError(Exception):
    """A chunk does not parse: the file has a syntax error (the caller reports NC001)."""


@dataclass(eq=False)
class Chunk:
    """One parsed top-level chunk; positions are relative to the chunk (line 1 = its first line)."""

    text: str
    module: cst.Module
    _positions: Any = None
    _names: tuple[dict[str, int], dict[str, int], dict[str, int]] | None = None
    _enclosing: dict[int, cst.FunctionDef] | None = None
    line_count: int = field(init=False)

    def __post_init__(self) -> None:
        self.line_count = self.text.count("\n") + (0 if self.text.endswith("\n") or not self.text else 1)

    @property
    def definition(self) -> cst.FunctionDef | cst.ClassDef | None:
        """The function or class this chunk defines, when that is all it holds."""
        body = self.module.body
        if len(body) == 1 and isinstance(body[0], cst.FunctionDef | cst.ClassDef):
            return body[0]
        return None

    def positions(self) -> Any:
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions

    def names(self) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        """Counts of names used, called (`f(...)`) and defined (`def f`) in the chunk."""
        if self._names is None:
            from namedcheck.analyzer.module import name_counts

            self._names = name_counts(self.module)
        return self._names

    def enclosing(self) -> dict[int, cst.FunctionDef]:
        if self._enclosing is None:
            from namedcheck.analyzer.module import _enclosing_functions

            self._enclosing = _enclosing_functions(self.module)
        return self._enclosing


# (text, occurrence in its file) -> its chunk (False: it does not parse on its own)
_cache: LRU[tuple[str, int], Chunk | bool] = LRU(MAX_CACHED_CHUNKS, MAX_CACHED_CHARS)


def parse_chunk(text: str, occurrence: int = 0) -> Chunk | None:
    """The chunk for `text` (cached), or None when it does not parse on its own (or the resource guard
    refuses it). `occurrence`: how many chunks of the same text come before it in its file (each gets its
    own tree: a node's position is that of its occurrence)."""
    key = (text, occurrence)
    hit = _cache.get(key)
    if hit is not None:
        return hit if isinstance(hit, Chunk) else None
    from namedcheck.analyzer.parsing import parse_checked

    try:  # the guard first: refused or invalid, the whole file's check says why
        chunk: Chunk | None = Chunk(text, parse_checked(text))
    except Exception:
        chunk = None
    _cache.put(key, chunk if chunk is not None else False, len(text) + 64)
    return chunk


def chunk_starts(lines: list[str]) -> list[int]:
    """Indices of the lines that start a top-level statement, by a cheap look at column 0 (a line inside a
    string or brackets may be taken for one: such a split does not parse and `split_exact` is used)."""
    starts = [0]
    in_decorator = lines[0].startswith("@") if lines else False
    for i in range(1, len(lines)):
        line = lines[i]
        c = line[:1]
        if not c or c in " \t\r\n#)]}'\"\\":
            continue
        if in_decorator:
            if line.startswith(_DEFINITIONS):
                in_decorator = False
            continue
        word = line.split(None, 1)[0].rstrip(":")
        if word in _CONTINUATIONS:
            continue
        starts.append(i)
        in_decorator = line.startswith("@")
    return starts


def split_exact(source: str) -> list[int]:
    """Start lines of top-level statements from Python's tokenizer (raises ChunkSyntaxError)."""
    starts = [0]
    depth = 0
    at_start = True
    in_decorator = False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.INDENT:
                depth += 1
            elif tok.type == tokenize.DEDENT:
                depth -= 1
            elif tok.type == tokenize.NEWLINE:
                at_start = True
            elif tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            elif at_start:
                at_start = False
                if depth == 0 and tok.start[0] - 1 > 0:
                    if in_decorator or tok.string in _CONTINUATIONS:
                        in_decorator = tok.string == "@" or (
                            in_decorator and tok.string not in ("def", "class", "async")
                        )
                        continue
                    starts.append(tok.start[0] - 1)
                in_decorator = depth == 0 and tok.string == "@"
    except (tokenize.TokenError, IndentationError, SyntaxError) as e:
        raise ChunkSyntaxError(str(e)) from None
    return sorted(set(starts))


def split(source: str) -> list[tuple[int, Chunk]]:
    """The source's chunks with the 0-based line each starts at (raises ChunkSyntaxError)."""
    lines = source.splitlines(keepends=True)
    if not lines:
        return []
    for starts in (chunk_starts(lines), None):
        if starts is None:
            starts = split_exact(source)
        out = []
        bounds = [*starts, len(lines)]
        seen: dict[str, int] = {}
        for a, b in zip(bounds, bounds[1:]):
            text = "".join(lines[a:b])
            n = seen[text] = seen.get(text, -1) + 1
            chunk = parse_chunk(text, n)
            if chunk is None:
                break
            out.append((a, chunk))
        else:
            return out
    raise ChunkSyntaxError("a top-level statement does not parse")


def shifted(r: CodeRange, lines: int) -> CodeRange:
    return CodeRange(CodePosition(r.start.line + lines, r.start.column), CodePosition(r.end.line + lines, r.end.column))


class ChunkPositions:
    """Node positions across chunks (as `PositionProvider` gives them for one module), shifted to the file."""

    def __init__(self, chunks: list[tuple[int, Chunk]]) -> None:
        self.chunks = chunks
        # the positions of the chunks resolved so far, with their chunk's line offset: one lookup per node
        # (searching the chunks one by one for each node made a file's lookups quadratic in its chunks)
        self._seen: dict[cst.CSTNode, tuple[int, CodeRange]] = {}
        self._resolved = 0  # how many chunks (in order) have their positions in `_seen`

    def get(self, node: cst.CSTNode, default: Any = None) -> CodeRange | None:
        hit = self._seen.get(node)
        while hit is None and self._resolved < len(self.chunks):
            offset, chunk = self.chunks[self._resolved]
            self._resolved += 1
            positions = chunk.positions()
            self._seen.update((n, (offset, r)) for n, r in positions.items())
            hit = self._seen.get(node)
        return default if hit is None else shifted(hit[1], hit[0])

    def __contains__(self, node: object) -> bool:
        return isinstance(node, cst.CSTNode) and self.get(node) is not None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        r = self.get(node)
        if r is None:
            raise KeyError(node)
        return r

    def chunk_at(self, line: int) -> tuple[int, Chunk] | None:
        """The chunk holding 1-based file line `line`."""
        found = None
        for offset, chunk in self.chunks:
            if offset < line:
                found = (offset, chunk)
            else:
                break
        return found
