"""Reading source files safely: only a regular file (symlinks followed) of at most a size cap is read; a
FIFO or device is never opened for reading (no blocking, no endless data)."""

from __future__ import annotations

import os
import re
import stat

_KINDS = [
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
]


def read_regular(path: str, max_bytes: int) -> bytes | str:
    """The file's bytes, or why it is not read: only a regular file (symlinks followed) of at most
    `max_bytes` is read; a FIFO or device is never opened for reading (no blocking, no endless data)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
            return f"it is {kind}, not a regular file"
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the two calls
                return "it is not a regular file"
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(max_bytes + 1)
        finally:
            os.close(fd)
    except OSError as e:
        return e.strerror or str(e)
    return data


def source_lines(source: str) -> list[str]:
    """Lines as Python's tokenizer counts them: only \\n, \\r\\n and \\r end a line (`str.splitlines` also
    splits at form feeds, \\x0b, \\x1c-\\x1e, \\x85, U+2028 and U+2029)."""
    return _LINE_BREAK.split(source.removesuffix("\n").removesuffix("\r")) if source else []


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


__all__ = ["read_regular", "source_lines"]
