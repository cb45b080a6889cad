"""Reading source files safely: only a regular file (symlinks followed) of at most a size cap is read; a
FIFO or device is never opened for reading (no blocking, no endless data)."""

from __future__ import annotations

import io
import re
import tokenize

# the one guarded reader: every read of a checked file, an imported module, a stub, standard input or a file
# `infer` annotates goes through it (it lives in the engine so that the stub loader can use it too)
from namedcheck.engine.readfile import Unreadable, read_bytes, read_regular, read_stream, read_text, write_regular


def source_lines(source: str) -> list[str]:
    """Lines as Python's tokenizer counts them: only \\n, \\r\\n and \\r end a line (`str.splitlines` also
    splits at form feeds, \\x0b, \\x1c-\\x1e, \\x85, U+2028 and U+2029)."""
    return _LINE_BREAK.split(source.removesuffix("\n").removesuffix("\r")) if source else []


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


__all__ = [
    "Unreadable",
    "decode_source",
    "read_bytes",
    "read_regular",
    "read_stream",
    "read_text",
    "source_encoding",
    "source_lines",
    "write_regular",
]


def source_encoding(data: bytes) -> str:
    """The encoding `decode_source` reads a file's bytes in: its coding line's, else UTF-8 (a file written
    back keeps it)."""
    if b"coding" not in data[:400]:
        return "utf-8"
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        return "utf-8"


def decode_source(data: bytes) -> str:
    """A file's bytes decoded as Python decodes source: its coding line or BOM, else UTF-8 (raises
    SyntaxError for an unknown or conflicting coding line, UnicodeDecodeError for bytes not in it)."""
    if b"coding" not in data[:400]:  # (a coding line is on line one or two)
        return data.decode("utf-8")
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)
