"""One answer: a file's diagnostics do not depend on which other files a run checks, in which order, on what
the cache or the process holds, nor on the front end. Over a small project in the style of real ones (a package
whose entry point reads a config file by path, a tests directory whose tests build their own configs and
assign a config's attribute), every scope, cold and warm cache, a fresh process and a long-lived one, and a
changed-files run (pre-commit's) give the same diagnostics per file."""

from __future__ import annotations

import ast
import itertools
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from namedcheck.analyzer.partial import ModuleOutline
from namedcheck.cli.main import main
from namedcheck.diagnostic import Diagnostic, Related, merge_contexts
from tests.test_warm_runs import _new_process

FILES = {
    "pyproject.toml": '[project]\nname = "nanolm"\nversion = "0.1"\n',
    "nanolm/__init__.py": "",
    # read by path (`config_flags.DEFINE_config_file`), imported by the tests: H does not divide D
    "nanolm/configs/default.py": '''
        """Default hyperparameters."""

        import ml_collections


        def get_config():
            cfg = ml_collections.ConfigDict()
            cfg.batch_size = 4
            cfg.model = ml_collections.config_dict.create(
                D=64,
                H=6,
                L=16,
                V=32,
            )
            return cfg
        ''',
    "nanolm/model.py": '''
        """A tiny attention model (2-space indented, as Google's code is)."""

        import dataclasses

        import jax
        import jax.numpy as jnp


        @dataclasses.dataclass
        class LMConfig:
          D: int
          H: int
          L: int
          V: int
          remat: bool = False


        def embed(cfg, tokens):
          table = jnp.zeros((cfg.V, cfg.D))
          x = table[tokens]
          pos = jnp.zeros((cfg.L + 1, cfg.D))
          return x + pos


        def attention(cfg, x):
          assert cfg.D % cfg.H == 0
          dh = cfg.D // cfg.H
          q = x.reshape(x.shape[0], x.shape[1], cfg.H, dh)
          return jnp.einsum("blhd,bmhd->bhlm", q, q)


        def attention_remat(cfg, x):
          return jax.checkpoint(attention, static_argnums=0)(cfg, x)


        def forward(cfg, tokens):
          x = jnp.zeros((tokens.shape[0], tokens.shape[1], cfg.D))
          layer = attention_remat if cfg.remat else attention
          return layer(cfg, x)
        ''',
    "nanolm/train.py": '''
        """Training from a config."""

        import jax.numpy as jnp

        from nanolm import model


        def train(c):
          cfg = model.LMConfig(**c.model)
          tokens = jnp.zeros((c.batch_size, cfg.L), jnp.int32)
          model.embed(cfg, tokens)
          return model.forward(cfg, tokens)
        ''',
    "nanolm/main.py": '''
        """The command line."""

        from absl import app, flags
        from ml_collections import config_flags

        from nanolm import train

        FLAGS = flags.FLAGS
        config_flags.DEFINE_config_file("config", "configs/default.py", "the hyperparameters")


        def main(argv):
          del argv
          train.train(FLAGS.config)


        if __name__ == "__main__":
          app.run(main)
        ''',
    "tests/model_test.py": '''
        """Tests of the model: their own configs, one attribute assigned after building."""

        import jax.numpy as jnp
        from absl.testing import absltest

        from nanolm import model, train
        from nanolm.configs import default


        class ModelTest(absltest.TestCase):

          def test_forward(self):
            cfg = model.LMConfig(D=16, H=4, L=8, V=32)
            cfg.remat = False
            model.forward(cfg, jnp.zeros((2, 8), jnp.int32))

          def test_embed(self):
            cfg = model.LMConfig(D=16, H=4, L=8, V=32)
            model.embed(cfg, jnp.zeros((2, 8), jnp.int32))

          def test_train(self):
            c = default.get_config()
            c.model.H = 4
            train.train(c)


        if __name__ == "__main__":
          absltest.main()
        ''',
}

Found = dict[tuple[Any, ...], tuple[Any, ...]]  # (path, line, column, code) -> (message, hint, notes)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        f = tmp_path / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(textwrap.dedent(text).lstrip("\n"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_DAEMON", "1")
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str], *args: str, fresh: bool = True) -> Found:
    """One `namedcheck check` (in a fresh process's state unless `fresh` is False: a long-lived process)."""
    if fresh:
        _new_process()
    main(["check", "-j", "1", "--format", "json", *args])
    out: Found = {}
    for d in json.loads(capsys.readouterr().out):
        where = (_rel(d["path"]), d["line"], d["column"], d["code"])
        assert where not in out, f"two diagnostics at {where}"  # one per location and code
        notes = tuple((_rel(r["path"]), r["line"], r["column"], r["message"]) for r in d["related"])
        out[where] = (d["message"], d["hint"], notes)
    return out


def _rel(path: str) -> str:
    """A path as this directory's relative one (a run given an absolute path reports absolute paths)."""
    return os.path.relpath(os.path.abspath(path))


def _under(found: Found, *dirs: str) -> Found:
    return {k: v for k, v in found.items() if k[0].split(os.sep)[0] in dirs}


def test_every_scope_order_and_cache_state_gives_the_same_diagnostics(project: Path, capsys) -> None:
    reference = _check(capsys, "--no-cache", ".")
    codes = sorted((k[0], k[1], k[3]) for k in reference)
    # the entry point's config bug (main.py reads configs/default.py by path) is found although the tests,
    # checked in the same run, assign a config's attribute and build configs that pass the assertion
    assert codes == [("nanolm/model.py", 22, "NC201"), ("nanolm/model.py", 26, "NC204")]
    assert_bug = reference[("nanolm/model.py", 26, 3, "NC204")]
    assert {n[0] for n in assert_bug[2]} == {"nanolm/configs/default.py"}  # where H and D are set
    # the size bug reached from three contexts: one diagnostic, the other contexts as notes
    broadcast = reference[("nanolm/model.py", 22, 10, "NC201")]
    assert [n for n in broadcast[2] if n[3].startswith("also with (4, 16, 64)")], broadcast
    scopes = [["."], [str(project)], ["nanolm"], ["nanolm", "tests"], ["tests", "nanolm"], ["nanolm/model.py"]]
    for scope in scopes:
        shutil_rm(project / ".namedcheck_cache")
        for state in ("--no-cache", "cold", "warm"):
            got = _check(capsys, *(["--no-cache"] if state == "--no-cache" else []), *scope)
            assert _under(got, "nanolm") == _under(reference, "nanolm"), (scope, state)


def test_a_long_lived_process_answers_as_a_fresh_one(project: Path, capsys) -> None:
    """What earlier runs of a process analysed (the daemon's, the editor's memory) changes no answer."""
    reference = _check(capsys, "--no-cache", ".")
    for scope in (["tests"], ["."], ["nanolm"], ["nanolm/configs/default.py"], ["tests", "nanolm"], ["."]):
        got = _check(capsys, "--no-cache", *scope, fresh=False)
        if scope == ["nanolm/configs/default.py"]:  # a changed-files run: what the config file causes
            key = ("nanolm/model.py", 26, 3, "NC204")
            assert got[key] == reference[key]
            continue
        dirs = {"nanolm", "tests"} if scope == ["."] else set(scope)
        assert _under(got, *dirs) == _under(reference, *dirs), scope


def test_a_changed_config_file_reports_what_it_causes_elsewhere(project: Path, capsys) -> None:
    """Pre-commit passes only the changed config file: the bug it causes in the model, where the program that
    reads it by path reaches it, is reported as a whole run reports it."""
    whole = _check(capsys, "--no-cache", ".")
    for state in ("--no-cache", "cold", "warm"):
        if state == "cold":
            shutil_rm(project / ".namedcheck_cache")
        got = _check(capsys, *(["--no-cache"] if state == "--no-cache" else []), "nanolm/configs/default.py")
        key = ("nanolm/model.py", 26, 3, "NC204")
        assert got[key] == whole[key], state
        assert set(got) <= set(whole)


def test_an_edit_of_the_config_file_is_seen_by_a_warm_cache(project: Path, capsys) -> None:
    """The config file read by path is in the cache key of the program that reads it."""
    assert ("nanolm/model.py", 26, 3, "NC204") in _check(capsys, ".")
    config = project / "nanolm/configs/default.py"
    config.write_text(config.read_text().replace("H=6", "H=8"))
    assert ("nanolm/model.py", 26, 3, "NC204") not in _check(capsys, ".")
    assert ("nanolm/model.py", 26, 3, "NC204") not in _check(capsys, "nanolm")


@pytest.mark.slow
def test_the_daemon_answers_every_scope_as_an_in_process_run(project: Path, capsys) -> None:
    """`namedcheck daemon` keeps what it analysed between requests: every scope's answer is still the in-process
    one, first and again (from its memory)."""
    import shutil
    import subprocess
    import sys
    import tempfile

    run = tempfile.mkdtemp(prefix="nc", dir="/tmp")  # a short private runtime directory (a socket path's limit)
    os.chmod(run, 0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": run}
    env.pop("NAMEDCHECK_NO_DAEMON", None)

    def nc(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "namedcheck", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return done.stdout

    try:
        assert "started" in nc("daemon", "start", "--idle-timeout", "30")
        for scope in (["tests"], ["."], ["nanolm"], ["nanolm/configs/default.py"], ["."]):
            served = nc("check", "--no-cache", "--format", "json", *scope)
            alone = nc("check", "--no-cache", "--format", "json", "--no-daemon", *scope)
            assert json.loads(served) == json.loads(alone), scope
    finally:
        nc("daemon", "stop")
        shutil.rmtree(run, ignore_errors=True)


def shutil_rm(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


# ---- the merge every front end shares ----------------------------------------------------------------
def _diag(message: str, *notes: Related) -> Diagnostic:
    return Diagnostic("m.py", 3, 5, 3, 9, "NC201", message, related=notes)


CONTEXTS = [
    _diag("shapes (2, 8) and (9,)", Related("t.py", 4, 1, 4, 2, "called here with `x` of shape (2, 8)")),
    _diag("shapes (4, 16) and (17,)", Related("main.py", 9, 3, 9, 4, "called here with `x` of shape (4, 16)")),
    _diag("shapes (2, 256) and (257,)", Related("./t2.py", 36, 1, 36, 2, "called here with `x` of shape (2, 256)")),
    _diag("shapes (2, 8) and (9,)"),
]


def test_contexts_merge_into_one_diagnostic_with_a_note_per_context() -> None:
    (merged,) = merge_contexts(CONTEXTS)
    assert merged.message == "shapes (2, 256) and (257,)"  # a canonical first: with notes, then by message
    notes = [(r.path, r.line, r.message) for r in merged.related]
    assert notes[0] == ("./t2.py", 36, "called here with `x` of shape (2, 256)")
    assert ("main.py", 9, "also with (4, 16), (17,)") in notes
    assert ("t.py", 4, "also with (2, 8), (9,)") in notes


def test_the_merge_does_not_depend_on_order_or_grouping() -> None:
    """A file's result is merged, then the run's: any order and grouping gives one answer."""
    want = merge_contexts(CONTEXTS)
    for order in itertools.permutations(CONTEXTS):
        assert merge_contexts(order) == want and merge_contexts(order)[0].related == want[0].related
        for cut in range(1, len(order)):
            again = merge_contexts([*merge_contexts(order[:cut]), *merge_contexts(order[cut:])])
            assert again == want and again[0].related == want[0].related
    assert merge_contexts(want)[0].related == want[0].related


def test_a_partly_parsed_module_keeps_its_columns_in_a_two_space_file() -> None:
    text = "import os\n\n\ndef f(x):\n  def g(y):\n    return y + 1\n  return g(x)\n\n\nz = 1\n"
    outline = ModuleOutline(text, ast.parse(text))
    module = outline.partial_module(outline.needed({"f"}))
    assert module.code.splitlines()[3:7] == text.splitlines()[3:7]
