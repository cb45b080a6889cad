"""The language server's analysis thread: one daemon thread runs the analyses one at a time (the analyzer and its
sessions are not thread-safe), in the order they were asked for, while the asyncio loop thread reads and
writes frames and answers requests from finished analyses.

A job is the analysis of one document's text (keyed by its URI) or a change of the analysis state (a closed
buffer, a cleared configuration: never dropped). Asking again for a document whose text is already queued or
running shares that job; a newer text replaces its queued job (an older text is never analysed once a newer
one is asked for), and `drop` cancels it when an edit arrives before the debounced request. Each job's outcome
settles an asyncio future on the loop."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

STACK_BYTES = 64 * 1024 * 1024  # the thread's C stack (reserved, not used): deep trees recurse as on the main thread


@dataclass(eq=False)
class Job:
    key: str | None  # the document's URI; None: a change of state, run in order and never superseded
    text: str | None
    run: Callable[[], Any]
    future: asyncio.Future[Any]


class AnalysisWorker:
    """Runs jobs on one thread; submit, drop and stop are called from the loop thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.jobs: deque[Job] = deque()
        self.running: Job | None = None
        self.stopped = False
        self.cond = threading.Condition()
        size: int | None = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
        except (ValueError, RuntimeError):
            size = None
        try:
            self.thread = threading.Thread(target=self._serve, name="namedcheck-lsp-analysis", daemon=True)
            self.thread.start()
        finally:
            if size is not None:
                threading.stack_size(size)

    def submit(self, key: str, text: str, run: Callable[[], Any]) -> asyncio.Future[Any]:
        """The future of the analysis of `key` at `text`: the running or queued one of that text, else a new
        job (replacing a queued job of an older text, whose future is cancelled)."""
        with self.cond:
            job = self.running
            if job is not None and job.key == key and job.text == text and not job.future.cancelled():
                return job.future
            for job in list(self.jobs):
                if job.key != key:
                    continue
                if job.text == text and not job.future.cancelled():
                    return job.future
                self.jobs.remove(job)
                job.future.cancel()
            return self._queue(Job(key, text, run, self.loop.create_future()))

    def call(self, run: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run `run` on the analysis thread after the jobs queued before it."""
        with self.cond:
            return self._queue(Job(None, None, run, self.loop.create_future()))

    def drop(self, key: str) -> None:
        """Cancel the queued analysis of `key` (its text is outdated)."""
        with self.cond:
            for job in [j for j in self.jobs if j.key == key]:
                self.jobs.remove(job)
                job.future.cancel()

    def behind_others(self, future: asyncio.Future[Any]) -> bool:
        """Whether the job of `future` waits for another document's job (running, or queued before it)."""
        with self.cond:
            for job in [self.running, *self.jobs]:
                if job is None:
                    continue
                if job.future is future:
                    return False
                if job.key is not None:
                    return True
            return False

    def stop(self) -> None:
        """Run nothing more (the running job ends on its own; its outcome is dropped)."""
        with self.cond:
            self.stopped = True
            while self.jobs:
                self.jobs.popleft().future.cancel()
            self.cond.notify_all()

    def _queue(self, job: Job) -> asyncio.Future[Any]:
        if self.stopped:
            job.future.cancel()
        else:
            self.jobs.append(job)
            self.cond.notify_all()
        return job.future

    def _serve(self) -> None:
        while True:
            with self.cond:
                while not self.jobs and not self.stopped:
                    self.cond.wait()
                if self.stopped:
                    return
                job = self.running = self.jobs.popleft()
            try:
                result, error = job.run(), None
            except BaseException as e:  # (a BaseException from the analysis must not end the thread)
                result, error = None, e
            with self.cond:
                self.running = None
            try:
                self.loop.call_soon_threadsafe(_settle, job.future, result, error)
            except RuntimeError:  # the loop is closed: the server is exiting
                return


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled meanwhile (superseded, dropped, the server stopped)
        return
    if error is None:
        future.set_result(result)
    elif isinstance(error, Exception):
        future.set_exception(error)
    else:  # KeyboardInterrupt and the like cannot go through a future: said as an error
        future.set_exception(RuntimeError(f"{type(error).__name__}: {error}"))
