"""Does mypy with the plugin report exactly what `namedcheck check` reports, on real files?

One-line mutants of real optax / equinox / flax sources (`bench/realcode_mutants.py`, so that there
are diagnostics to compare) are written as separate modules; `namedcheck check --format json` and
mypy with the plugin (imports not followed: namedcheck's analysis does not need mypy's types) run over
them, and the (file, line, code) sets are compared.

    python bench/plugin_agreement.py [--limit 200] [--seed 0] [--packages optax equinox flax]

Prints the CLI's diagnostics, the plugin's, and those only one of them reports (each listed).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realcode_mutants import find_mutants  # noqa: E402

MYPY_CONFIG = """\
[mypy]
plugins = namedcheck_mypy
follow_imports = skip
ignore_missing_imports = True
show_column_numbers = True
"""
NC_ERROR = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: error: .*  \[(?P<code>NC\d{3})\]$")


def mutant_files(packages: list[str], limit: int, seed: int, work: Path) -> list[Path]:
    import random

    target = work / "pkgs"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), *packages],
        check=True,
        timeout=600,
    )
    found: list[str] = []
    for pkg in packages:
        for path in sorted((target / pkg).rglob("*.py")):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "jax" in text:
                found.extend(mutated for _, mutated in find_mutants(text, str(path)))
    random.Random(seed).shuffle(found)
    out = work / "mutants"
    out.mkdir()
    files = []
    for i, text in enumerate(found[:limit]):
        f = out / f"mutant_{i:04d}.py"
        f.write_text(_absolute_imports(text), encoding="utf-8")
        files.append(f)
    return files


def _absolute_imports(text: str) -> str:
    """`from .x import y` becomes `from _rel.x import y` (same lines): a lone module has no parent."""
    return re.sub(r"^(\s*from\s+)\.+(\w*)", lambda m: m[1] + "_rel" + ("." + m[2] if m[2] else ""), text, flags=re.M)


def cli_diagnostics(files: list[Path]) -> set[tuple[str, int, str]]:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "namedcheck"), "check", "--no-cache", "--format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return {(str(Path(d["path"]).resolve()), d["line"], d["code"]) for d in json.loads(done.stdout)}


def plugin_diagnostics(files: list[Path], work: Path) -> set[tuple[str, int, str]]:
    (work / "mypy.ini").write_text(MYPY_CONFIG)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(work / "mypy.ini"),
            "--no-incremental",
            "--no-error-summary",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=work,
    )
    if "error: " not in done.stdout or done.returncode > 1:
        print(f"mypy exited {done.returncode}:\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    found = set()
    for line in done.stdout.splitlines():
        m = NC_ERROR.match(line)
        if m:
            found.add((str((work / m["path"]).resolve()), int(m["line"]), m["code"]))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--packages", nargs="+", default=["optax", "equinox", "flax"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="namedcheck-plugin-agreement-") as tmp:
        work = Path(tmp)
        files = mutant_files(args.packages, args.limit, args.seed, work)
        cli, plugin = cli_diagnostics(files), plugin_diagnostics(files, work)
        print(f"{len(files)} mutant files of {', '.join(args.packages)}")
        print(
            f"CLI diagnostics: {len(cli)}; plugin diagnostics: {len(plugin)}; "
            f"missing from the plugin: {len(cli - plugin)}; only in the plugin: {len(plugin - cli)}"
        )
        for label, rows in (("missing", cli - plugin), ("extra", plugin - cli)):
            for path, line, code in sorted(rows):
                print(f"  {label}: {Path(path).name}:{line} {code}")
        return 0 if cli == plugin else 1


if __name__ == "__main__":
    sys.exit(main())
