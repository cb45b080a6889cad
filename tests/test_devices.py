"""The device count: `[tool.namedcheck] devices` (one count or a list, each checked), a program's own
`XLA_FLAGS`, and the symbol `ndev` where nothing states it. Each program is checked by the command line in a
temporary project under each configuration (exact codes and lines), and run under JAX with 8 CPU devices:
the right ones run, the wrong ones raise the error the diagnostic stands for."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from namedcheck.cli.config import ConfigError, load_config
from namedcheck.cli.main import main

# name -> program; under JAX with 8 devices it raises RAISES[name] (a part of the message) or runs
PROGRAMS: dict[str, str] = {
    # a mesh and per-device batches sized from the devices: right for 8; 32 rows do not split over 256
    "mesh_from_devices": """
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


        def make_mesh():
            return Mesh(np.array(jax.devices()).reshape(-1, 4), ("data", "model"))


        def shard_batch(batch):
            n = jax.local_device_count()
            return batch.reshape(n, -1, batch.shape[-1])


        def main():
            mesh = make_mesh()
            batch = jnp.ones((32, 3))
            per_device = batch.reshape(jax.device_count(), -1, 3)
            x = jax.device_put(batch, NamedSharding(mesh, P("data")))
            return shard_batch(batch), per_device, x


        if __name__ == "__main__":
            main()
    """,
    # a mesh shape from a config whose product is not the device count
    "mesh_config_shape": """
        import dataclasses

        from jax.experimental import mesh_utils
        from jax.sharding import Mesh


        @dataclasses.dataclass
        class Config:
            data: int = 2
            model: int = 8


        def build(cfg):
            devices = mesh_utils.create_device_mesh((cfg.data, cfg.model))
            return Mesh(devices, ("data", "model"))


        if __name__ == "__main__":
            build(Config())
    """,
    # a mesh shape written as a config string, split and parsed: 3 does not divide the devices
    "mesh_config_string": """
        import jax
        import numpy as np
        from jax.sharding import Mesh

        MESH_SHAPE = "3,-1"


        def build(spec):
            dims = [int(d) for d in spec.split(",")]
            return Mesh(np.array(jax.devices()).reshape(dims), ("data", "model"))


        if __name__ == "__main__":
            build(MESH_SHAPE)
    """,
    # a batch split one chunk per device: 12 rows over 8 (or 256) devices
    "split_per_device": """
        import jax
        import jax.numpy as jnp


        def per_device(z, n):
            return jnp.stack(jnp.split(z, n))


        if __name__ == "__main__":
            per_device(jnp.ones((12, 5)), jax.device_count())
    """,
    # a batch pmapped directly: 16 rows need 16 devices (256 are enough)
    "pmap_batch": """
        import jax
        import jax.numpy as jnp


        def loss(x):
            return jnp.sum(x**2)


        def epoch(batch_size, dim):
            batch = jnp.ones((batch_size, dim))
            return jax.pmap(loss)(batch)


        if __name__ == "__main__":
            epoch(16, 4)
    """,
    # the program states its own count before importing jax: it holds whatever the configuration says
    "own_xla_flags": """
        import os

        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
        import jax
        import jax.numpy as jnp


        def shard(x):
            return x.reshape((jax.device_count(), x.shape[0] // jax.device_count()) + x.shape[1:])


        if __name__ == "__main__":
            shard(jnp.ones((10, 3)))
    """,
    # jax.make_mesh takes the first devices, and never infers a -1
    "make_mesh": """
        import jax


        def meshes():
            small = jax.make_mesh((2, 2), ("data", "model"))
            full = jax.make_mesh((jax.device_count() // 2, 2), ("data", "model"))
            inferred = jax.make_mesh((-1, 2), ("data", "model"))
            return small, full, inferred


        if __name__ == "__main__":
            meshes()
    """,
}

RAISES = {
    "mesh_config_shape": "Number of devices 8 must equal the product of mesh_shape (2, 8)",
    "mesh_config_string": "cannot reshape array of size 8 into shape (3,newaxis)",
    "split_per_device": "array split does not result in an equal division",
    "pmap_batch": "cannot select an axis to squeeze out",
    "own_xla_flags": "cannot reshape array of shape (10, 3) (size 30) into shape (8, 1, 3)",
    "make_mesh": "must equal the product of mesh_shape (-1, 2)",
}

# configuration (pyproject `devices`, None: no key) -> program -> {(line, code)}; NC505 / NC203 lines are
# the programs' lines above (1-based, after dedent)
NONE: dict[str, set[tuple[int, str]]] = {
    "mesh_from_devices": set(),
    "mesh_config_shape": set(),
    "mesh_config_string": set(),
    "split_per_device": set(),
    "pmap_batch": set(),
    "own_xla_flags": {(9, "NC203")},
    "make_mesh": {(7, "NC505")},
}
EIGHT = {
    **NONE,
    "mesh_config_shape": {(14, "NC505")},
    "mesh_config_string": {(10, "NC203")},
    "split_per_device": {(6, "NC203")},
    "pmap_batch": {(11, "NC505")},
}
# 32 rows split over 256 devices (two reshapes), and placed over a mesh axis of 64 devices
OVER_256 = {(13, "NC203"), (19, "NC203"), (20, "NC604")}
EXPECTED: dict[str, dict[str, set[tuple[int, str]]]] = {
    "none": NONE,
    "8": EIGHT,
    "[8, 256]": {**EIGHT, "mesh_from_devices": OVER_256},
    "256": {**EIGHT, "mesh_from_devices": OVER_256, "pmap_batch": set()},
}


def _source(name: str) -> str:
    return textwrap.dedent(PROGRAMS[name]).lstrip("\n")


def _project(root: Path, devices: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if devices != "none":
        (root / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = {devices}\n")
    for name in PROGRAMS:
        (root / f"{name}.py").write_text(_source(name))
    return root


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    rc = main(["check", "--no-cache", "--format", "json", "-j", "1", *args])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    return json.loads(out)


@pytest.mark.parametrize("devices", list(EXPECTED))
def test_codes_and_lines_under_each_configuration(tmp_path, monkeypatch, capsys, devices):
    root = _project(tmp_path / "proj", devices)
    monkeypatch.chdir(root)
    found = _check(capsys, ".")
    got: dict[str, set[tuple[int, str]]] = {name: set() for name in PROGRAMS}
    for d in found:
        got[Path(d["path"]).stem].add((d["line"], d["code"]))
    assert got == EXPECTED[devices]


def test_a_list_says_under_which_count_it_fails(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "proj", "[8, 256]")
    monkeypatch.chdir(root)
    by_file = {Path(d["path"]).stem: d["message"] for d in _check(capsys, ".")}
    assert by_file["mesh_from_devices"].endswith("(with 256 devices)")  # 32 rows over 256 devices
    assert "(with" not in by_file["split_per_device"]  # 12 rows split over 8 or 256: wrong under both
    assert by_file["pmap_batch"].endswith("(with 8 devices)")
    assert "(with" not in by_file["own_xla_flags"]  # the program's own count: checked once


def test_stdin_and_the_result_cache_see_the_count(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "proj", "8")
    monkeypatch.chdir(root)
    source = _source("pmap_batch")
    monkeypatch.setattr(sys, "stdin", io.StringIO(source))
    rc = main(["check", "-", "--stdin-filename", "pmap_batch.py", "--format", "json"])
    out, _ = capsys.readouterr()
    assert rc == 1 and [(d["line"], d["code"]) for d in json.loads(out)] == [(11, "NC505")]
    # cached under devices = 8; another count re-checks the file instead of replaying that result
    assert main(["check", "--format", "json", "-j", "1", "pmap_batch.py"]) == 1
    capsys.readouterr()
    (root / "pyproject.toml").write_text("[tool.namedcheck]\ndevices = 256\n")
    assert main(["check", "--format", "json", "-j", "1", "pmap_batch.py"]) == 0
    assert json.loads(capsys.readouterr()[0]) == []


def test_the_setting_is_validated(tmp_path):
    for value, want in (("8", (8,)), ("[8, 256, 8]", (8, 256))):
        (tmp_path / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = {value}\n")
        assert load_config(tmp_path).devices == want
    for bad in ("0", "[]", "'8'", "true", "[8, -1]", "2.5"):
        (tmp_path / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = {bad}\n")
        with pytest.raises(ConfigError, match="devices must be a device count"):
            load_config(tmp_path)


def test_the_editor_and_the_plugin_worker_use_the_configuration(tmp_path):
    from namedcheck.analyzer.incremental import DocumentAnalyser
    from namedcheck.analyzer.session import Session
    from namedcheck_mypy.worker import _configured_devices

    root = _project(tmp_path / "proj", "8")
    path = str(root / "pmap_batch.py")
    assert _configured_devices(path) == (8,)
    session = Session(devices=load_config(root).devices, editor=True)
    got = DocumentAnalyser(path, session=session).analyse(_source("pmap_batch")).diagnostics
    assert [(d.line, d.code) for d in got] == [(11, "NC505")]
    assert Session(editor=True).check(path, _source("pmap_batch")).diagnostics == []
    # a list in the editor: its analyzer (values, replays) runs under the first count, the others add theirs
    listed = Session(devices=(8, 256), editor=True)
    many = str(root / "mesh_from_devices.py")
    analyser = DocumentAnalyser(many, session=listed)
    for _ in range(2):  # the second analysis of an edited buffer replays what the first analysed under 8
        text = _source("mesh_from_devices") + "\n" * _
        got = analyser.analyse(text).diagnostics
        assert {(d.line, d.code) for d in got} == OVER_256
        assert all(d.message.endswith("(with 256 devices)") for d in got)


def test_programs_under_jax_with_8_devices(tmp_path):
    """Right programs run, wrong ones raise what their diagnostic says (JAX 0.10, 8 CPU devices)."""
    for name in PROGRAMS:
        (tmp_path / f"{name}.py").write_text(_source(name))
    runner = textwrap.dedent(
        """
        import json, runpy, sys
        out = {}
        for name in sys.argv[1:]:
            try:
                runpy.run_path(name + ".py", run_name="__main__")
                out[name] = None
            except Exception as e:
                out[name] = f"{type(e).__name__}: {e}"
        print(json.dumps(out))
        """
    )
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    proc = subprocess.run(
        [sys.executable, "-c", runner, *PROGRAMS], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in PROGRAMS:
        if name in RAISES:
            assert results[name] is not None and RAISES[name] in results[name], (name, results[name])
        else:
            assert results[name] is None, (name, results[name])
    # the same programs under EIGHT: exactly the wrong ones are reported
    assert {n for n, found in EIGHT.items() if found} == set(RAISES)


def test_make_mesh_never_infers_a_minus_one(tmp_path):
    """NC505 for a -1 in jax.make_mesh whatever the count: JAX raises under 1, 4 and 8 devices (an IndexError
    under 1, a ValueError otherwise)."""
    script = "import jax\ntry:\n    jax.make_mesh((-1, 2), ('a', 'b'))\nexcept Exception:\n    print('raised')\n"
    for n in (1, 4, 8):
        env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={n}", JAX_PLATFORMS="cpu")
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
        assert proc.stdout.strip() == "raised", (n, proc.stderr[-500:])


def test_verdicts_under_256_devices():
    """What `devices = 256` reports in mesh_from_devices (OVER_256) raises under 256 CPU devices, and the
    pmapped batch of 16 it leaves alone runs."""
    script = textwrap.dedent(
        """
        import jax, jax.numpy as jnp, numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        mesh = Mesh(np.array(jax.devices()).reshape(-1, 4), ("data", "model"))
        batch = jnp.ones((32, 3))
        for f in (
            lambda: batch.reshape(jax.device_count(), -1, 3),
            lambda: batch.reshape(jax.local_device_count(), -1, batch.shape[-1]),
            lambda: jax.device_put(batch, NamedSharding(mesh, P("data"))),
            lambda: jax.pmap(lambda x: jnp.sum(x**2))(jnp.ones((16, 4))),
        ):
            try:
                f()
                print("ok")
            except Exception as e:
                print(type(e).__name__)
        """
    )
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=256", JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert proc.stdout.split() == ["TypeError", "TypeError", "IndivisibleError", "ok"], proc.stderr[-800:]


@pytest.mark.parametrize(
    ("header", "count"),
    [
        ('import os\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\nimport jax\n', 4),
        (
            'import os\nos.environ["XLA_FLAGS"] = ("--xla_cpu_foo=1 " "--xla_force_host_platform_device_count=16")\n'
            "from jax import numpy\n",
            16,
        ),
        ("from os import environ\nenviron['XLA_FLAGS'] = '--xla_force_host_platform_device_count=2'\nimport jax\n", 2),
        # set after jax is imported: too late to matter
        ('import os\nimport jax\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\n', None),
        # left to the environment, or not a literal
        (
            'import os\nos.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")\nimport jax\n',
            None,
        ),
        (
            'import os\nN = 4\nos.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={N}"\nimport jax\n',
            None,
        ),
        # a literal, then another write before the import
        (
            'import os\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\n'
            'os.environ["XLA_FLAGS"] += " --xla_dump_to=/tmp"\nimport jax\n',
            None,
        ),
        ('import os\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=0"\nimport jax\n', None),
        # a test module's CPU setting (jax-llm-examples' tests)
        ('import jax\njax.config.update("jax_platforms", "cpu")\njax.config.update("jax_num_cpu_devices", 4)\n', 4),
        # without the platform, the count of CPU devices is not the run's
        ('import jax\njax.config.update("jax_num_cpu_devices", 4)\n', None),
    ],
)
def test_the_count_a_program_states(header, count):
    import libcst as cst

    from namedcheck.analyzer.devices import stated_count

    assert stated_count(cst.parse_module(header + "x = 1\n")) == count


def test_a_library_sized_by_the_count_is_checked_where_it_is_called(tmp_path, monkeypatch, capsys):
    """The count reaches the project modules a file calls into (one project per count); a library function
    analysed on its own never assumes one."""
    root = tmp_path / "proj"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "__init__.py").write_text("")
    (root / "lib" / "sharding.py").write_text(
        "import jax\n\n\ndef per_device(x):\n    return x.reshape(jax.device_count(), -1, x.shape[-1])\n"
    )
    (root / "main.py").write_text(
        "import jax.numpy as jnp\n\nfrom lib.sharding import per_device\n\n\n"
        "def main():\n    return per_device(jnp.ones((16, 3)))\n"
    )
    monkeypatch.chdir(root)
    assert _check(capsys, ".") == []  # no count: the symbol ndev divides nothing provably
    for devices, want in (("8", []), ("[8, 256]", [(5, "NC203", "(with 256 devices)")]), ("32", [(5, "NC203", "")])):
        (root / "pyproject.toml").write_text(f"[tool.namedcheck]\ndevices = {devices}\n")
        got = [(d["line"], d["code"], d["message"]) for d in _check(capsys, ".")]
        assert [(line, code) for line, code, _ in got] == [(line, code) for line, code, _ in want], devices
        assert all(m.endswith(end) for (_, _, m), (_, _, end) in zip(got, want))
        assert all(Path(d["path"]).name == "sharding.py" for d in _check(capsys, "."))
