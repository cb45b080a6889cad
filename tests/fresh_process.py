"""Programs run under JAX each in a fresh process, as `python -c RUNNER ARGS` would, without each paying for
importing JAX: one server process per test process imports JAX (and the modules asked for) once, with no
backend started, and forks a child per program. A child starts from that state alone (nothing an earlier
program set: a mesh, a config flag, a backend), runs the runner with its `sys.argv[1:]`, and exits; its stdout,
stderr and exit status come back as a `subprocess.CompletedProcess`. The corpora under JAX
(`test_sharding_types_under_jax.py`, `test_models_under_jax.py`, `test_reach_python_under_jax.py`), the entry
points' calls, the test projects and the fixed programs of `test_fix.py` / `test_shd_rules.py` run this way."""

from __future__ import annotations

import atexit
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

SERVER = r"""
import os, sys, traceback
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ["JAX_PLATFORMS"] = "cpu"
import jax  # imported once, no backend started: each child starts its own
for name in sys.argv[1:]:
    __import__(name)
for line in sys.stdin:
    runner, out, err, *args = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            sys.argv = ["-c", *args]
            with open(runner, encoding="utf-8") as f:
                code = compile(f.read(), "<string>", "exec")
            exec(code, {"__name__": "__main__"})
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    _, wait = os.waitpid(pid, 0)
    sys.stdout.write(f"{os.waitstatus_to_exitcode(wait)}\n")
    sys.stdout.flush()
"""


class _Server:
    def __init__(self, preload: tuple[str, ...]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="nc-fresh-"))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, *preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a timeout ends the server and the child it waits for
        )
        self.runners: dict[str, Path] = {}
        self.count = 0

    def run(self, runner: str, args: tuple[str, ...], timeout: float) -> subprocess.CompletedProcess[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        path = self.runners.get(runner)
        if path is None:
            path = self.runners[runner] = self.dir / f"runner{len(self.runners)}.py"
            path.write_text(runner, encoding="utf-8")
        self.count += 1
        out, err = self.dir / f"{self.count}.out", self.dir / f"{self.count}.err"
        assert not any(c in a for a in args for c in "\t\n"), args
        self.proc.stdin.write("\t".join([str(path), str(out), str(err), *args]) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            if ready:
                raise RuntimeError("the server of fresh processes ended")
            raise subprocess.TimeoutExpired([runner, *args], timeout)
        done = subprocess.CompletedProcess([runner, *args], int(line), out.read_text(), err.read_text())
        out.unlink()
        err.unlink()
        return done

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()


_SERVERS: dict[tuple[str, ...], _Server] = {}


@atexit.register
def _close_all() -> None:
    for server in _SERVERS.values():
        server.close()


def run_fresh(
    runner: str, *args: str, preload: tuple[str, ...] = (), timeout: float = 300, check: bool = False
) -> subprocess.CompletedProcess[str]:
    """`python -c runner *args` in a fresh process forked from one that imported JAX and `preload` once (the
    environment is this process's: the suite's 8 CPU devices)."""
    server = _SERVERS.get(preload)
    if server is None or server.proc.poll() is not None:
        server = _SERVERS[preload] = _Server(preload)
    try:
        done = server.run(runner, args, timeout)
    except subprocess.TimeoutExpired:
        _SERVERS.pop(preload, None)
        raise
    if check and done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    return done
