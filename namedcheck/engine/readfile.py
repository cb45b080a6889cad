"""The one guarded reader (re-exported by `analyzer/sources.py`; here so that the engine's stub loader uses it
too): only a regular file (symlinks followed) of at most a size cap is read; a FIFO, a device or a socket is
never opened for reading, so no read blocks and none is endless. A stream (standard input) is read with the
same cap and an idle limit."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from typing import BinaryIO

_KINDS = [
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
]


class Unreadable(OSError):
    """A path the guarded reader does not read (an `OSError`, so that `except OSError` still holds): its
    `reason` says why ("it is a FIFO, not a regular file", "it is larger than 5 MB", an OS error)."""

    def __init__(self, reason: str, too_large: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.too_large = too_large  # the file exists and is regular, only over the cap

    def __str__(self) -> str:
        return self.reason


def read_regular(path: str, max_bytes: int) -> bytes | str:
    """The file's bytes (at most `max_bytes + 1` of them: more than `max_bytes` means the file is over the
    cap), or why it is not read: only a regular file (symlinks followed) is read; a FIFO or device is never
    opened for reading (no blocking, no endless data)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
            return f"it is {kind}, not a regular file"
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # replaced between the two calls
                return "it is not a regular file"
            # never a buffer of the cap's size: a file grows only by what is read
            want = max(0, max_bytes) + 1
            chunks: list[bytes] = []
            while want > 0:
                chunk = os.read(fd, min(want, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                want -= len(chunk)
        finally:
            os.close(fd)
    except (OSError, ValueError, OverflowError) as e:  # ValueError: a NUL in the path
        return (e.strerror if isinstance(e, OSError) else None) or str(e)
    return b"".join(chunks)


def _size(max_bytes: int) -> str:
    mb = max_bytes / (1024 * 1024)
    return f"{mb:g} MB" if mb >= 1 else f"{max_bytes} bytes"


def read_bytes(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """`read_regular`'s bytes, or `Unreadable` (an OSError) saying why not, over the cap included."""
    data = read_regular(os.fspath(path), max_bytes)
    if isinstance(data, str):
        raise Unreadable(data)
    if len(data) > max_bytes:
        raise Unreadable(f"it is larger than {_size(max_bytes)}", too_large=True)
    return data


def read_text(path: str | os.PathLike[str], max_bytes: int, errors: str = "strict") -> str:
    """`read_bytes` as UTF-8 text (UnicodeDecodeError unless `errors` says otherwise)."""
    return read_bytes(path, max_bytes).decode("utf-8", errors)


def read_stream(stream: BinaryIO, max_bytes: int, idle: float | None = None) -> bytes:
    """At most `max_bytes` of a stream (standard input): `Unreadable` past the cap (`/dev/zero` ends there),
    or when no byte arrives for `idle` seconds (a FIFO whose writer never writes; None: wait)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream (tests, embedders)
        data = stream.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise Unreadable(f"it is larger than {_size(max_bytes)}", too_large=True) from None
        return data
    import select

    chunks: list[bytes] = []
    total = 0
    last = time.monotonic()
    while True:
        if idle is not None:
            try:
                ready = select.select([fd], [], [], max(0.0, idle - (time.monotonic() - last)))[0]
            except (OSError, ValueError):
                ready = [fd]
            if not ready:
                raise Unreadable(f"no data arrived for {idle:g} s")
        chunk = os.read(fd, min(max_bytes + 1 - total, 1 << 20))
        if not chunk:
            break
        last = time.monotonic()
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise Unreadable(f"it is larger than {_size(max_bytes)}", too_large=True)
    return b"".join(chunks)


def write_regular(path: str | os.PathLike[str], data: bytes, expected: bytes | None = None) -> None:
    """Replace a regular file's content atomically (a temporary file beside the real file, then a rename, its
    permissions kept; a symlink keeps pointing at it); `Unreadable` when it is no longer a regular file or,
    with `expected`, no longer holds those bytes (someone saved it meanwhile: nothing is written)."""
    real = os.path.realpath(os.fspath(path))
    if expected is not None:
        now = read_regular(real, len(expected))  # more bytes than expected, when it grew
        if isinstance(now, str):
            raise Unreadable(now)
        if now != expected:
            raise Unreadable("it changed since it was read; not written")
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except OSError as e:
        raise Unreadable(e.strerror or str(e)) from None
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=".namedcheck-", suffix=".tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


__all__ = ["Unreadable", "read_regular", "read_bytes", "read_text", "read_stream", "write_regular"]
