"""Reading LSP frames (`Content-Length: N` headers, a blank line, N bytes of JSON) from an untrusted stream.

A malformed frame never leaves the reader deaf: a missing, non-numeric, zero or negative `Content-Length`,
binary garbage, a header that never ends, a body shorter than its declared length (the next frame's header
shows up inside it) or longer (its tail is not a header) are skipped, and reading resynchronises on the next
`Content-Length:` header. A frame larger than `MAX_FRAME` is skipped without being buffered. Each skip
leaves a note (`take_notes`) for the server to log. Memory stays bounded by `MAX_FRAME` plus one read.
"""

from __future__ import annotations

import os
import re
import threading
from typing import BinaryIO

MAX_FRAME = 64 * 1024 * 1024  # bytes of one message's body (a 5 MB buffer sent whole is far below it)
MAX_HEADER = 8 * 1024  # bytes of one frame's header block
_READ = 64 * 1024
_OVERLAP = 1100  # bytes re-scanned across two reads (longer than any header block _HEADER_RE matches)
_NAME = b"content-length:"
_NAME_RE = re.compile(rb"content-length:", re.IGNORECASE)
# a complete header block: where a declared length overran into the next frame (valid JSON never holds
# raw CR LF CR LF after a `Content-Length:` token: a JSON string cannot hold a raw line break)
_HEADER_RE = re.compile(rb"content-length:[ \t]*[0-9]+[ \t]*\r\n(?:[^\r\n]{0,1024}\r\n){0,16}\r\n", re.IGNORECASE)


class FrameReader:
    """Frames from a binary stream, one `next_frame()` at a time (blocking; run it off the event loop)."""

    def __init__(self, stream: BinaryIO, max_frame: int = MAX_FRAME) -> None:
        self.stream = stream
        try:  # read the descriptor itself: a thread blocked in it holds no lock of Python's buffered stdin
            self.fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.max_frame = max_frame
        self.buf = bytearray()
        self.eof = False
        self._notes: list[str] = []
        self._lock = threading.Lock()
        self.skipped = 0  # malformed frames and garbage runs skipped so far

    # ---- notes for the log -----------------------------------------------------------------------
    def note(self, message: str) -> None:
        with self._lock:
            self.skipped += 1
            if len(self._notes) < 100:
                self._notes.append(message)

    def take_notes(self) -> list[str]:
        with self._lock:
            out, self._notes = self._notes, []
        return out

    # ---- reading ---------------------------------------------------------------------------------
    def _fill(self) -> bool:
        if self.eof:
            return False
        read1 = getattr(self.stream, "read1", None)
        try:
            if self.fd is not None:
                data = os.read(self.fd, _READ)
            else:
                data = read1(_READ) if read1 is not None else self.stream.read(_READ)
        except (OSError, ValueError):
            data = b""
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def _drop(self, n: int, why: str | None) -> None:
        """Discard the first `n` buffered bytes; `why`: note it (unless they are only whitespace)."""
        dropped = bytes(self.buf[:n])
        del self.buf[:n]
        if why is not None and dropped.strip():
            self.note(f"{why} ({len(dropped)} bytes skipped)")

    def next_frame(self) -> bytes | None:
        """The next well-formed frame's body, or None at the end of the stream."""
        while True:
            m = _NAME_RE.search(self.buf)
            if m is None:
                keep = len(_NAME) - 1  # a header name split across two reads
                if len(self.buf) > keep:
                    self._drop(len(self.buf) - keep, "data outside any frame")
                if not self._fill():
                    self._drop(len(self.buf), "data outside any frame")
                    return None
                continue
            if m.start() > 0:
                self._drop(m.start(), "data outside any frame")
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEADER:
                    self._drop(len(_NAME), "a frame header that does not end")
                    continue
                if not self._fill():
                    self._drop(len(self.buf), "a frame header cut short by the end of the stream")
                    return None
                continue
            again = _NAME_RE.search(self.buf, 1, end)
            if again is not None:  # a header line without a usable block, then the next frame's header
                self._drop(again.start(), "a malformed frame header")
                continue
            length = _length(bytes(self.buf[:end]))
            if length is None:
                self._drop(end + 4, "a frame with a missing or invalid Content-Length")
                continue
            del self.buf[: end + 4]
            keep = length <= self.max_frame
            if not keep:
                self.note(f"a frame of {length} bytes (more than {self.max_frame}): skipped unread")
            body = self._body(length, keep)
            if body is not None and keep:
                return body
            if self.eof and not self.buf:
                return None

    def _body(self, length: int, keep: bool) -> bytes | None:
        """The body of a declared `length` (`keep` False: read past without buffering it; b""), or None when
        the next frame's header turns up inside it (the declared length ran past the body: reading resumes
        at that header) or the stream ends first."""
        gone = 0  # bytes of the body discarded already (not kept)
        scanned = 0
        while True:
            left = length - gone  # the body's bytes still to come, counted from the buffer's start
            found = _HEADER_RE.search(self.buf, max(0, scanned - _OVERLAP), min(len(self.buf), left + _OVERLAP))
            if found is not None and found.start() < left:
                self._drop(found.start(), "a frame shorter than its Content-Length")
                return None
            if len(self.buf) >= left:
                body = bytes(self.buf[:left]) if keep else b""
                del self.buf[:left]
                return body
            if not keep and len(self.buf) > 2 * _OVERLAP:
                cut = len(self.buf) - _OVERLAP
                del self.buf[:cut]
                gone += cut
            scanned = len(self.buf)
            if not self._fill():
                self._drop(len(self.buf), "a frame cut short by the end of the stream")
                return None


def _length(header: bytes) -> int | None:
    """The Content-Length of a header block (`Name: value` lines), None when it is missing or invalid."""
    length = None
    for line in header.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if not colon or not name.strip():
            return None
        if name.strip().lower() == b"content-length":
            v = value.strip()
            if not v.isdigit() or length is not None:
                return None
            length = int(v)
    return length if length else None


__all__ = ["FrameReader", "MAX_FRAME"]
