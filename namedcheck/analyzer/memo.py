"""Memoised call analyses: the key of one analysis (argument values, axis environment, defining scope, and
what the checked file's run has changed in shared objects so far: `RUN`) and the log that lets a memo hit
replay what the analysis reported and changed; the process-wide memos a release empties, and the garbage
collector's setting for a process that analyses."""

from __future__ import annotations

import gc
from typing import Any, TypeVar

_Cache = TypeVar("_Cache", bound=dict[Any, Any])
_PROCESS_CACHES: list[dict[Any, Any]] = []


def process_cache(cache: _Cache) -> _Cache:
    """Register a module-level memo keyed by node or value identity (it keeps its keys alive): it is
    emptied with everything else a process kept from earlier checked files (`Project.release`), since
    a value it holds may reach closures, frames, analyzers and so whole parsed modules."""
    _PROCESS_CACHES.append(cache)
    return cache


def forget_process_caches() -> None:
    """Empty every registered module-level memo."""
    for cache in _PROCESS_CACHES:
        cache.clear()


COLLECT_AFTER = 200_000  # allocations between young collections (CPython's default: 700)


def tune_collector() -> None:
    """Set the cyclic collector for an analysing process (the command line, its workers, the daemon and the
    language server), as mypy does for its own: an analysis allocates millions of nodes and values that
    live for the whole run, and with CPython's default thresholds the collector walks them again and again
    (a third of a cold run's time on maxtext). Garbage in cycles is still collected, less often; a release
    of what a process kept collects at once (`Project.let_go_if_grown`)."""
    gc.set_threshold(COLLECT_AFTER, 30, 30)


class CallLog:
    """What call analyses found, so that a memoised call replays it (whole-project runs keep a dependency's
    complete call analyses from one checked file to the next; each file's result holds what its calls find).
    One per project, shared by its modules' analyzers."""

    def __init__(self) -> None:
        self.recording: list[list[tuple[Any, Any, Any]]] = []  # one list per call being analysed, innermost last
        self.cuts = 0  # calls not followed (depth, recursion, work bounds): an analysis that saw one is partial
        self.touched: set[Any] = set()  # analyzers a replay reported into during the current checked file
        # flax `init` / `apply` being analysed, innermost last: the parameters their layers make (analyses are not
        # memoised meanwhile, so that every layer runs; analyzer/nn_modules.py)
        self.models: list[Any] = []

    def replayed(self, entry: tuple[Any, tuple[tuple[Any, Any, Any], ...], bool]) -> Any:
        """A memoised analysis's value, its diagnostics (and deferred NC705s) reported again where found, and
        what it changed in shared objects (`RunState`) changed again."""
        out, effects, complete = entry
        if not complete:
            self.cuts += 1
        for an, key, item in effects:
            if isinstance(an, RunState):
                an.apply(key, item)
                continue
            if key is None:
                if item not in an.unbound_names:
                    an.unbound_names.append(item)
            elif key not in an.found:
                an.found[key] = item
            else:  # another context's finding at the same node: a note of its diagnostic
                an.another_context(key, item)
            self.touched.add(an)
        if self.recording:
            self.recording[-1].extend(effects)
        return out


class RunState:
    """What the analysis of one checked file (one program run) has changed so far in objects that outlive it:
    config objects changed where their holders' copies cannot follow (`configs._forget`), attributes of a
    class's built instances assigned after they were built, flags its own code defines. Forgotten when the
    next checked file starts (`begin`), so no file's analysis sees what another one did, whatever the run's
    scope and order; part of every memo key (`stamp`), and replayed on a memo hit. What a project module's
    body does while it loads (`loading`) is a fact of that module, kept with it instead (it loads once)."""

    def __init__(self) -> None:
        self.configs: set[int] = set()  # config tokens changed
        self.classes: dict[Any, frozenset[tuple[str, ...]]] = {}  # ClassInfo -> attribute paths assigned
        self.flags: dict[str, Any] = {}  # flag name -> its default, defined by the checked file's own run
        self.loading = 0  # project module bodies being loaded (their changes are theirs: not recorded here)
        self._stamp: Any = None

    def begin(self) -> None:
        """A new checked file: nothing another file's run changed is seen."""
        self.configs = set()
        self.classes = {}
        self.flags = {}
        self._stamp = None

    def stamp(self) -> Any:
        """What this run has changed so far, as a hashable value (identity of classes)."""
        if self._stamp is None:
            flags = tuple((k, self.flags[k]) for k in sorted(self.flags))
            self._stamp = (frozenset(self.configs), frozenset(self.classes.items()), flags)
        return self._stamp

    def apply(self, kind: str, item: Any) -> None:
        """One recorded change, made (again)."""
        if kind == "config":
            if item not in self.configs:
                self.configs.add(item)
                self._stamp = None
        elif kind == "class":
            cls, path = item
            had = self.classes.get(cls, frozenset())
            if path not in had:
                self.classes[cls] = had | {path}
                self._stamp = None
        elif kind == "flag":
            name, value = item
            self.flags[name] = value
            self._stamp = None

    def change(self, log: CallLog | None, kind: str, item: Any) -> None:
        """A change the checked file's run makes: recorded for a memo hit to replay it."""
        self.apply(kind, item)
        if log is not None and log.recording:
            log.recording[-1].append((self, kind, item))


RUN = RunState()  # the process's current checked file (analyses in one process run one at a time)


def memo_key(parts: tuple[Any, ...]) -> _Key | None:
    """A memo key of these parts and of what the checked file's run has changed so far (`RUN.stamp()`); None
    when one of them is not hashable (the analysis is then not memoised)."""
    try:
        return _Key((parts, RUN.stamp()))
    except TypeError:
        return None


class _Key:
    """A memo key whose (deep) hash is computed once."""

    __slots__ = ("parts", "h")

    def __init__(self, parts: tuple[Any, ...]) -> None:
        self.parts = parts
        self.h = hash(parts)

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.h == other.h and self.parts == other.parts


__all__ = ["RUN", "CallLog", "RunState", "memo_key"]
