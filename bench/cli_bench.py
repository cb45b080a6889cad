"""CLI benchmarks (SPEC section 7). Prints ratios against baselines measured in the same run.

1. `namedcheck check` on one 1,000-line annotated file, whole process, against
   `python -c "import libcst"` (target <= 1.5x).
2. `namedcheck check` over the installed jax package against a libcst parse of the same files
   (target <= 1.0x: files with nothing to check are skipped; all cores are used).
   With --full, the tree is also analysed with the relevance filter bypassed, to report how long
   analysing every file would take and that no file raises an internal error.

    python bench/cli_bench.py [--runs 5] [--tree PATH] [--full]
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

FUNCTION = '''

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
'''
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
import sys, pathlib, libcst
for f in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):
    try:
        libcst.parse_module(f.read_text(encoding='utf-8'))
    except Exception:
        pass
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", help="tree for the second benchmark (default: the installed jax package)")
    ap.add_argument("--full", action="store_true", help="also analyse every file of the tree (slow)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "model.py"
        n = thousand_line_file(f)
        out = subprocess.run(namedcheck_cmd("--format", "json", str(f)), capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr  # the benchmark file is clean
        base = timed([sys.executable, "-c", "import libcst"], args.runs)
        cold = timed(namedcheck_cmd("--no-cache", str(f)), args.runs, cwd=tmp)
        subprocess.run(namedcheck_cmd(str(f)), capture_output=True, cwd=tmp)  # fill the cache
        warm = timed(namedcheck_cmd(str(f)), args.runs, cwd=tmp)
        print(f"one file ({n} lines), whole process: python -c 'import libcst' {base * 1000:.0f} ms; "
              f"namedcheck check cold (--no-cache) {cold * 1000:.0f} ms = {cold / base:.2f}x, "
              f"warm (unchanged file, cache hit) {warm * 1000:.0f} ms = {warm / base:.2f}x (target <= 1.5x)")

    tree = args.tree
    if tree is None:
        spec = importlib.util.find_spec("jax")
        if spec is None or not spec.submodule_search_locations:
            print("tree: jax is not installed; pass --tree PATH")
            return
        tree = next(iter(spec.submodule_search_locations))
    files = list(Path(tree).rglob("*.py"))
    runs = max(1, args.runs // 2)
    base = timed([sys.executable, "-c", PARSE_TREE, tree], runs)
    with tempfile.TemporaryDirectory() as tmp:
        ours = timed(namedcheck_cmd("--no-cache", tree), runs, cwd=tmp)
        out = subprocess.run(namedcheck_cmd("--no-cache", "--format", "json", tree), capture_output=True,
                             text=True, cwd=tmp)
    diags = json.loads(out.stdout or "[]")
    internal = sum(1 for d in diags if d["code"] == "NC000")
    print(f"tree ({len(files)} files, {tree}): namedcheck check --no-cache {ours:.2f} s with {os.cpu_count()} cores, "
          f"libcst parse of the same files {base:.2f} s, ratio {ours / base:.2f}x (target <= 1.0x); "
          f"{len(diags)} diagnostics, {internal} internal errors")
    if args.full:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from namedcheck.analyzer.check import check_source
        t = time.perf_counter()
        errors = 0
        for p in files:
            src = p.read_text(encoding="utf-8", errors="replace")
            errors += sum(1 for d in check_source(src, str(p), force=True) if d.code == "NC000")
        full = time.perf_counter() - t
        print(f"tree, every file analysed (filter bypassed, one process): {full:.1f} s, "
              f"{full / base:.2f}x the parse; {errors} internal errors")


if __name__ == "__main__":
    main()
