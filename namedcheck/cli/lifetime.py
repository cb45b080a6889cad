"""A helper process (a check worker, the mypy plugin's worker) that ends when the process it serves is gone,
even killed with `kill -9`, which runs no clean-up."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time


def end_with_parent(parent: int, status: int, poll: float, kernel_signal: bool = True) -> bool:
    """Arrange for this process to exit with `status` once `parent` is no longer its parent: on Linux the
    kernel kills it when the thread that started it ends (PR_SET_PDEATHSIG, when `kernel_signal`: only where
    that thread is the parent's main thread); everywhere, a daemon thread polls the parent's id every `poll`
    seconds. False when the parent is already gone (the caller ends at once)."""
    if kernel_signal and sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError, TypeError):
            pass
    if os.getppid() != parent:  # gone before the signal was asked for
        return False
    threading.Thread(target=_watch, args=(parent, status, poll), daemon=True, name="namedcheck-parent-watch").start()
    return True


def _watch(parent: int, status: int, poll: float) -> None:
    while os.getppid() == parent:
        time.sleep(poll)
    os._exit(status)
