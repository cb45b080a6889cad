"""A content-addressed result cache, as ruff and mypy keep one: a file whose bytes, stubs and
namedcheck build are unchanged is not parsed again.

Per-file results depend on the file's own text, the contents of the project modules it imports, of the
`conftest.py` files pytest loads before it and of the config files its flags load (transitively: calls into
them are analysed), the JAX flags its conftests and the project's other test modules set, the roots its project's modules
are found under, the configured device counts, the budgets, the stubs and the analyzer's code, so the key
hashes exactly those. Nothing else: no file's result depends on which other files a run checks, nor in
which order (`analyzer/memo.RUN`). Entries are written atomically; a damaged or
unreadable entry is a miss; so is a corrupt one (each entry
names its key and carries a checksum of its diagnostics and coverage).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from namedcheck.analyzer.coverage_figures import Coverage
from namedcheck.diagnostic import Diagnostic, Related

CACHE_DIR_NAME = ".namedcheck_cache"
MAX_ENTRY_BYTES = 16 * 1024 * 1024
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "path": str,
    "line": int,
    "column": int,
    "end_line": int,
    "end_column": int,
    "code": str,
    "message": str,
    "hint": (str, type(None)),
    "severity": str,
    "data": dict,
    "related": list,
}


def usable_root(root: Path) -> Path | None:
    """`root` when its cache folder may be used; None (and a warning on stderr) when `.namedcheck_cache` is a
    symbolic link: a cloned repository could otherwise make the cache write wherever the link points."""
    import stat
    import sys

    where = root / CACHE_DIR_NAME
    try:
        st = os.lstat(where)
    except OSError:
        return root  # not there yet: created as a plain folder on the first write
    if stat.S_ISLNK(st.st_mode):
        from namedcheck.cli.output import shown_path

        try:
            target = os.readlink(where)
        except OSError:
            target = "?"
        print(
            f"namedcheck: warning: {shown_path(str(where))} is a symbolic link (to {shown_path(target)}), "
            "not a folder: running without the cache",
            file=sys.stderr,
        )
        return None
    return root


@lru_cache(maxsize=4)
def build_fingerprint(stub_paths: tuple[str, ...]) -> str:
    """Identifies the analyzer's code and stubs (names, sizes and mtimes: cheap stat calls)."""
    import namedcheck
    from namedcheck.engine.stubfiles import stub_files

    pkg = Path(namedcheck.__file__).resolve().parent
    h = hashlib.sha256(namedcheck.__version__.encode())
    for f in sorted([*pkg.rglob("*.py"), *stub_files(stub_paths)]):
        try:
            st = f.stat()
        except OSError:  # a dangling stub link (the run says so before checking anything)
            h.update(f"{f}:missing".encode())
            continue
        h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


class ResultCache:
    def __init__(self, root: Path, stub_paths: tuple[str, ...]) -> None:
        self.dir = root / CACHE_DIR_NAME
        self.fingerprint = build_fingerprint(stub_paths)

    def key(
        self,
        display: str,
        data: bytes,
        dependencies: str = "",
        devices: tuple[int, ...] = (),
        limits: object = None,
        roots: tuple[str, ...] = (),
        why: bool = False,
    ) -> str:
        """`dependencies`: a fingerprint of the project modules the file imports and the config files its flags
        load (their edits re-check it); `devices`: the configured device counts (another count re-checks it);
        `limits`: the budgets (a result cut short by one is cached too, and other budgets re-check it); `roots`:
        the roots of the file's project (which modules its imports name); `why`: the coverage's causes are
        located (`coverage --why`: an entry of its own)."""
        h = hashlib.sha256(self.fingerprint.encode())
        h.update(f"devices={','.join(map(str, devices))}\0limits={limits!r}\0{'why' if why else ''}\0".encode())
        if roots:
            h.update(("roots=" + "\0".join(roots) + "\0\0").encode())
        h.update(display.encode())
        h.update(b"\0")
        h.update(data)
        if dependencies:
            h.update(b"\0" + dependencies.encode())
        return h.hexdigest()

    def get(self, key: str) -> tuple[list[Diagnostic], Coverage | None] | None:
        """The entry's diagnostics and coverage (analyzer/coverage.py); None (a miss) for a missing, unreadable
        or corrupt entry: one that is not a small regular file, not the JSON this cache writes, for another
        key, or failing its checksum."""
        from namedcheck.cli.files import read_regular

        data = read_regular(str(self.dir / key[:2] / key), MAX_ENTRY_BYTES)
        if isinstance(data, str) or len(data) > MAX_ENTRY_BYTES:
            return None
        try:
            entry = json.loads(data)
            body = entry["diagnostics"]
            if entry["key"] != key or entry["sha256"] != hashlib.sha256(body.encode()).hexdigest():
                return None
            content = json.loads(body)
            coverage = content["coverage"]
            return (
                [_diagnostic(d) for d in content["diagnostics"]],
                None if coverage is None else Coverage.from_json(coverage),
            )
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None

    def put(self, key: str, diags: list[Diagnostic], coverage: Coverage | None = None) -> None:
        try:
            sub = self.dir / key[:2]
            if os.path.islink(self.dir) or os.path.islink(sub):  # never written through a link
                return
            if not self.dir.exists():
                self.dir.mkdir(parents=True, exist_ok=True)
                (self.dir / ".gitignore").write_text("# created by namedcheck\n*\n")
            sub.mkdir(exist_ok=True)
            body = json.dumps(
                {
                    "diagnostics": [{**d.as_json(), "hint": d.hint} for d in diags],
                    "coverage": None if coverage is None else coverage.entry(),
                }
            )
            payload = json.dumps({"key": key, "sha256": hashlib.sha256(body.encode()).hexdigest(), "diagnostics": body})
            fd, tmp = tempfile.mkstemp(dir=sub, prefix=".tmp-")
        except OSError:
            return  # a read-only tree still gets checked, just not cached
        try:
            try:
                _write_all(fd, payload.encode("utf-8"))
            finally:
                os.close(fd)
            os.replace(tmp, sub / key)
        except BaseException as e:  # a full disk: no empty or partial temporary file stays behind
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if not isinstance(e, OSError):
                raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _diagnostic(d: object) -> Diagnostic:
    """A cached diagnostic, its fields checked (TypeError when it is not one)."""
    if not isinstance(d, dict) or set(d) != set(_FIELDS) or not all(isinstance(d[k], t) for k, t in _FIELDS.items()):
        raise TypeError("not a cached diagnostic")
    return Diagnostic(**{**d, "related": tuple(Related.from_json(r) for r in d["related"])})
