"""CLI benchmarks (SPEC section 7). Prints ratios against baselines measured in the same run.

1. `namedcheck check` on one 1,000-line annotated file, whole process, against
   `python -c "import libcst"` (target <= 1.5x).
2. `namedcheck check` over real code: the installed jax package plus flax, equinox and easydel
   pip-installed (--no-deps) into a temporary directory, every file that mentions jax analysed,
   against a libcst parse of the same files on one core (target <= 0.8x; the checker uses all cores).
   Prints lines/s, diagnostics and internal errors. `--tree PATH` (repeatable) replaces the trees;
   `--no-install` keeps to the installed jax.
   With --full, the trees are also analysed in one process, to report the analysis time alone.

    python bench/cli_bench.py [--runs 5] [--tree PATH ...] [--no-install] [--full]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FUNCTION = """

def block_{i}(x: f32[('B', 64)], w: f32[(64, 128)], b: f32[(128,)], s: f32[(), {{'heads': 8}}]) -> f32[('B', 128)]:
    h = jnp.dot(x, w) + b
    h = jax.nn.relu(h)
    scale = jnp.sum(s, axis='heads')
    z: f32[('B', 128)] = h * scale
    m = jnp.mean(z, axis=-1, keepdims=True)
    v = jnp.var(z, axis=-1, keepdims=True)
    y = (z - m) / jnp.sqrt(v + 1e-5)
    q = y.reshape(-1, 2, 64)
    q = jnp.swapaxes(q, 1, 2)
    return q.reshape(-1, 128)
"""
HEADER = "import jax\nimport jax.numpy as jnp\nfrom namedcheck import f32, i32\n"


def thousand_line_file(path: Path) -> int:
    body = HEADER
    i = 0
    while body.count("\n") < 1000:
        body += FUNCTION.format(i=i)
        i += 1
    path.write_text(body)
    return body.count("\n")


def timed(cmd: list[str], runs: int, cwd: str | None = None) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def namedcheck_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "namedcheck", "check", *args]


PARSE_TREE = """
import sys, pathlib, re, libcst
for tree in sys.argv[1:]:
    for f in sorted(pathlib.Path(tree).rglob('*.py')):
        src = f.read_text(encoding='utf-8', errors='replace')
        if not re.search('jax|namedcheck|xmap', src):
            continue
        try:
            libcst.parse_module(src)
        except Exception:
            pass
"""
PACKAGES = ("flax", "equinox", "easydel")


def installed_trees(tmp: str) -> list[str]:
    """The installed jax package, plus PACKAGES pip-installed (no dependencies) into `tmp`."""
    trees = []
    spec = importlib.util.find_spec("jax")
    if spec is not None and spec.submodule_search_locations:
        trees.append(next(iter(spec.submodule_search_locations)))
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", tmp, *PACKAGES],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        print(f"pip install {' '.join(PACKAGES)} failed; measuring jax alone:\n{r.stderr[-500:]}")
        return trees
    return trees + [str(Path(tmp) / p) for p in PACKAGES if (Path(tmp) / p).is_dir()]


def jax_lines(trees: list[str]) -> tuple[int, int]:
    """Files and lines of the trees' files that mention jax (the ones the checker analyses)."""
    files = lines = 0
    for tree in trees:
        for f in Path(tree).rglob("*.py"):
            src = f.read_text(encoding="utf-8", errors="replace")
            if "jax" in src or "namedcheck" in src or "xmap" in src:
                files += 1
                lines += src.count("\n")
    return files, lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--tree",
        action="append",
        help="a tree for the second benchmark (repeatable; default: jax, flax, equinox, easydel)",
    )
    ap.add_argument("--no-install", action="store_true", help="measure the installed jax package only")
    ap.add_argument("--full", action="store_true", help="also analyse every file of the tree (slow)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "model.py"
        n = thousand_line_file(f)
        out = subprocess.run(namedcheck_cmd("--format", "json", str(f)), capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr  # the benchmark file is clean
        base = timed([sys.executable, "-c", "import libcst"], args.runs)
        floor = timed(
            [sys.executable, "-c", "import sys, libcst; libcst.parse_module(open(sys.argv[1]).read())", str(f)],
            args.runs,
        )
        cold = timed(namedcheck_cmd("--no-cache", str(f)), args.runs, cwd=tmp)
        subprocess.run(namedcheck_cmd(str(f)), capture_output=True, cwd=tmp)  # fill the cache
        warm = timed(namedcheck_cmd(str(f)), args.runs, cwd=tmp)
        print(
            f"one file ({n} lines), whole process: python -c 'import libcst' {base * 1000:.0f} ms; "
            f"namedcheck check cold (--no-cache) {cold * 1000:.0f} ms = {cold / base:.2f}x, "
            f"warm (unchanged file, cache hit) {warm * 1000:.0f} ms = {warm / base:.2f}x (target <= 1.5x); "
            f"libcst's own parse of the file, whole process {floor * 1000:.0f} ms = {floor / base:.2f}x"
        )

    with tempfile.TemporaryDirectory() as pkgs:
        trees = args.tree or (installed_trees(pkgs) if not args.no_install else installed_trees_jax_only())
        if not trees:
            print("trees: jax is not installed; pass --tree PATH")
            return
        tree_bench(trees, max(1, args.runs // 2), args.full)


def installed_trees_jax_only() -> list[str]:
    spec = importlib.util.find_spec("jax")
    return [next(iter(spec.submodule_search_locations))] if spec and spec.submodule_search_locations else []


def tree_bench(trees: list[str], runs: int, full: bool) -> None:
    files, lines = jax_lines(trees)
    base = timed([sys.executable, "-c", PARSE_TREE, *trees], runs)
    with tempfile.TemporaryDirectory() as tmp:
        ours = timed(namedcheck_cmd("--no-cache", *trees), runs, cwd=tmp)
        out = subprocess.run(
            namedcheck_cmd("--no-cache", "--format", "json", *trees), capture_output=True, text=True, cwd=tmp
        )
    diags = json.loads(out.stdout or "[]")
    internal = sum(1 for d in diags if d["code"] == "NC000")
    names = ", ".join(Path(t).name for t in trees)
    print(
        f"trees ({names}: {files} files mentioning jax, {lines} lines): namedcheck check --no-cache {ours:.1f} s "
        f"with {os.cpu_count()} cores = {lines / ours:.0f} lines/s; libcst parse of the same files on one core "
        f"{base:.1f} s; ratio {ours / base:.2f}x (target <= 0.8x); {len(diags)} diagnostics, {internal} internal "
        f"errors"
    )
    for d in diags:
        print(f"  {d['path']}:{d['line']}: {d['code']} {d['message']}")
    if full:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from namedcheck.analyzer.check import check_source

        t = time.perf_counter()
        for tree in trees:
            for p in Path(tree).rglob("*.py"):
                check_source(p.read_text(encoding="utf-8", errors="replace"), str(p))
        one = time.perf_counter() - t
        print(f"trees analysed in one process (parse + analysis): {one:.1f} s, {one / base:.2f}x the parse")


if __name__ == "__main__":
    main()
