"""Mutation recall for `bench/realcode.py mutants` (see that file's docstring for how to run it).

Mutation operators are one-line textual edits located with `ast`: the edited node lies on one line,
so line numbers never shift and the unmutated file's diagnostics stay comparable line by line.
RUNNABLE holds small sharded JAX programs written for this harness; their mutants are run under
real JAX (8 forced host CPU devices) and only those that make JAX raise are kept.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from realcode import (
    INTERNAL_CODES,
    Diagnostic,
    default_checker,
    located,
    location_line,
    package_sources,
    prepare_packages,
    run_checker,
    workdir,
)

NEAR_LINES = 2
JAX_TIMEOUT = 120.0
XLA_FLAGS = "--xla_force_host_platform_device_count=8"

# ----------------------------------------------------------------------------------------------
# Mutation operators


@dataclass(frozen=True)
class Mutant:
    origin: str  # package/relative path, or runnable:<name>
    function: str
    line: int  # 1-based, the only edited line
    kind: str
    context: str
    before: str
    after: str


@dataclass(frozen=True)
class Edit:
    line: int
    start: int  # byte offsets within the line
    end: int
    text: str


def call_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def one_line(node: ast.expr | ast.stmt) -> bool:
    return node.lineno == node.end_lineno


def segment(lines: Sequence[bytes], node: ast.expr) -> str:
    line = lines[node.lineno - 1]
    return line[node.col_offset : node.end_col_offset].decode("utf-8")


def replace(node: ast.expr, text: str) -> Edit:
    assert node.end_col_offset is not None
    return Edit(node.lineno, node.col_offset, node.end_col_offset, text)


def typo(name: str) -> str:
    """A plausible misspelling: swap the last two letters, or add an underscore to short names."""
    if len(name) >= 4 and name[-1] != name[-2]:
        return name[:-2] + name[-1] + name[-2]
    return name + "_"


def requote(value: str, like: str) -> str:
    """repr(value) in the quote style of the literal `like`."""
    text = repr(value)
    if like.startswith('"') and '"' not in value and "'" not in value:
        return '"' + text[1:-1] + '"'
    return text


def str_const(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


SPEC_CALLS = {"P", "PartitionSpec"}
REDUCING = {"psum", "pmean"}
COLLECTIVES = {"psum", "pmean", "pmax", "pmin", "all_gather", "ppermute", "psum_scatter", "all_to_all", "axis_index"}
AXIS_KWARGS = {"axis_name", "axis_names"}
LOOP_CALLS = {"scan", "fori_loop"}


class Finder(ast.NodeVisitor):
    """Collect (function, kind, context, node-based Edit) candidates in one module."""

    def __init__(self, source: bytes, allow_module_level: bool) -> None:
        self.lines = source.splitlines()
        self.stack: list[str] = []
        self.parents: dict[ast.AST, ast.AST] = {}
        self.found: list[tuple[str, str, str, Edit]] = []
        self.allow_module_level = allow_module_level
        self.axis_names: list[str] = []
        self.defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.has_shard_map = b"shard_map" in source
        self.imports_jax = b"import jax" in source

    # -- infrastructure
    def run(self, tree: ast.Module) -> list[tuple[str, str, str, Edit]]:
        axis_counts: Counter[str] = Counter()
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                self.defs.setdefault(parent.name, parent)
            if isinstance(parent, ast.Call) and call_name(parent.func) in SPEC_CALLS | {"Mesh", "make_mesh"}:
                for const in ast.walk(parent):
                    name = str_const(const)
                    if name and name.isidentifier():
                        axis_counts[name] += 1
        self.axis_names = [name for name, _ in axis_counts.most_common()]
        self.visit(tree)
        return self.found

    def quoted(self, value: str, like: ast.expr) -> str:
        return requote(value, segment(self.lines, like))

    def add(self, kind: str, context: str, edit: Edit) -> None:
        if not self.stack and not self.allow_module_level:
            return
        line = self.lines[edit.line - 1]
        if line[edit.start : edit.end].decode("utf-8", "replace") == edit.text:
            return
        self.found.append((self.stack[-1] if self.stack else "<module>", kind, context, edit))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def spec_context(self, node: ast.AST) -> str:
        parent = self.parents.get(node)
        hops = 0
        while parent is not None and hops < 4:
            if isinstance(parent, ast.keyword) and parent.arg:
                return parent.arg
            if isinstance(parent, ast.Call):
                name = call_name(parent.func)
                if name and name not in SPEC_CALLS:
                    return name
            parent = self.parents.get(parent)
            hops += 1
        return "other"

    def other_axis(self, current: str) -> str | None:
        others = [a for a in self.axis_names if a != current]
        return others[0] if others else None

    # -- the operators
    def visit_Call(self, node: ast.Call) -> None:
        name = call_name(node.func)
        if name in SPEC_CALLS:
            self.spec_mutations(node)
        elif name in COLLECTIVES and dotted(node.func) in {name, f"lax.{name}", f"jax.lax.{name}"}:
            self.collective_mutations(node, name)
        elif name in LOOP_CALLS and dotted(node.func) in {f"lax.{name}", f"jax.lax.{name}"}:
            self.carry_mutation(node, name)
        elif name == "einsum" and dotted(node.func) in {"einsum", "jnp.einsum", "jax.numpy.einsum"}:
            self.einsum_mutations(node)
        elif (
            name in {"dot", "matmul"}
            and len(node.args) >= 2
            and dotted(node.func) in {f"jnp.{name}", f"jax.numpy.{name}", f"lax.{name}", f"jax.lax.{name}"}
        ):
            self.transpose_operand(node.args[1], "jnp." + name)
        elif name == "reshape":
            self.reshape_mutation(node)
        elif name == "transpose" and isinstance(node.func, ast.Attribute):
            self.transpose_mutation(node)
        elif name == "vmap":
            self.vmap_mutation(node)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):
            self.transpose_operand(node.right, "@")
        self.generic_visit(node)

    def spec_mutations(self, node: ast.Call) -> None:
        context = self.spec_context(node)
        entries = node.args
        if any(isinstance(e, ast.Starred) for e in entries):
            return
        drop_kind = "out_specs_drop_axis" if context == "out_specs" else "spec_drop_axis"
        strings: list[tuple[ast.expr, str]] = []
        for entry in entries:
            if not one_line(entry):
                continue
            axis = str_const(entry)
            if axis is not None:
                strings.append((entry, axis))
                self.add(drop_kind, context, replace(entry, "None"))
            elif isinstance(entry, ast.Tuple) and len(entry.elts) >= 2 and all(str_const(e) for e in entry.elts):
                kept = [segment(self.lines, e) for e in entry.elts[:-1]]
                text = kept[0] if len(kept) == 1 else "(" + ", ".join(kept) + ")"
                self.add(drop_kind, context, replace(entry, text))
                strings.extend((e, str_const(e) or "") for e in entry.elts)
        # too long: None entries beyond any plausible rank
        if one_line(node) and node.end_col_offset is not None:
            close = node.end_col_offset - 1
            text = ", None, None, None, None" if entries else "None, None, None, None"
            self.add("spec_too_long", context, Edit(node.lineno, close, close, text))
        if strings:
            entry, axis = strings[0]
            others = [e for e in entries if e is not entry and one_line(e)]
            if others:
                self.add("spec_repeat_axis", context, replace(others[-1], self.quoted(axis, entry)))
            elif one_line(node) and node.end_col_offset is not None:
                close = node.end_col_offset - 1
                self.add("spec_repeat_axis", context, Edit(node.lineno, close, close, ", " + self.quoted(axis, entry)))
            self.add("spec_unknown_axis", context, replace(entry, self.quoted(typo(axis), entry)))

    def collective_axis_arg(self, node: ast.Call, name: str) -> ast.expr | None:
        if name == "axis_index":
            return node.args[0] if node.args else None
        for kw in node.keywords:
            if kw.arg in AXIS_KWARGS:
                return kw.value
        return node.args[1] if len(node.args) >= 2 else None

    def collective_mutations(self, node: ast.Call, name: str) -> None:
        if name in REDUCING and node.args and one_line(node) and not isinstance(node.args[0], ast.Starred):
            self.add("collective_remove", name, replace(node, segment(self.lines, node.args[0])))
        axis_arg = self.collective_axis_arg(node, name)
        if axis_arg is None or not one_line(axis_arg):
            return
        axis = str_const(axis_arg)
        if axis is None:
            return
        other = self.other_axis(axis)
        if other is not None:
            self.add("collective_axis_other", name, replace(axis_arg, self.quoted(other, axis_arg)))
        self.add("collective_axis_misspelt", name, replace(axis_arg, self.quoted(typo(axis), axis_arg)))

    def carry_mutation(self, node: ast.Call, name: str) -> None:
        if not (self.has_shard_map and self.imports_jax and self.axis_names):
            return
        body_pos = 0 if name == "scan" else 2
        body = node.args[body_pos] if len(node.args) > body_pos else None
        if not isinstance(body, ast.Name) or body.id not in self.defs:
            return
        fn = self.defs[body.id]
        returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
        if not returns or returns[-1].value is None:
            return
        value: ast.expr = returns[-1].value
        if name == "scan":
            if not isinstance(value, ast.Tuple) or len(value.elts) != 2:
                return
            value = value.elts[0]
        if isinstance(value, ast.Tuple) and value.elts:
            value = value.elts[0]
        if not one_line(value) or isinstance(value, ast.Starred):
            return
        text = segment(self.lines, value)
        if not isinstance(value, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
            text = f"({text})"
        edit = replace(value, f"{text} + jax.lax.axis_index({self.axis_names[0]!r})")
        saved, self.stack = self.stack, [fn.name]
        self.add("carry_varying", name, edit)
        self.stack = saved

    def einsum_mutations(self, node: ast.Call) -> None:
        spec_node = node.args[0] if node.args else None
        spec = str_const(spec_node)
        if spec is None or spec_node is None or "->" not in spec or not one_line(spec_node):
            return
        lhs, out = spec.replace(" ", "").split("->", 1)
        inputs = lhs.split(",")
        if len(inputs) >= 2 and inputs[0] != inputs[1]:
            swapped = ",".join([inputs[1], inputs[0], *inputs[2:]]) + "->" + out
            self.add("einsum_swap_operands", "einsum", replace(spec_node, self.quoted(swapped, spec_node)))
        letters = [c for c in out if c.isalpha()]
        if letters:
            candidates = [c for c in lhs if c.isalpha() and c not in out]
            unused = [c for c in "zyxwvutsrqponmlkjihgfedcba" if c not in spec]
            new = (candidates or unused or ["Z"])[0]
            mutated = lhs + "->" + out.replace(letters[-1], new, 1)
            self.add("einsum_output_letter", "einsum", replace(spec_node, self.quoted(mutated, spec_node)))

    def transpose_operand(self, operand: ast.expr, context: str) -> None:
        if not one_line(operand) or isinstance(operand, ast.Starred):
            return
        text = segment(self.lines, operand)
        if isinstance(operand, ast.Attribute) and operand.attr == "T":
            self.add("matmul_transpose", context, replace(operand, segment(self.lines, operand.value)))
            return
        if not isinstance(operand, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
            text = f"({text})"
        self.add("matmul_transpose", context, replace(operand, text + ".T"))

    def reshape_entries(self, node: ast.Call) -> list[ast.expr]:
        """The sizes of a reshape call written on one line each (`x.reshape(B, T, -1)`, `jnp.reshape(x, (B, -1))`)."""
        if isinstance(node.func, ast.Attribute) and dotted(node.func.value) in {"jnp", "np", "jax.numpy", "numpy"}:
            shape_args = node.args[1:2]
        else:
            shape_args = list(node.args)
        entries: list[ast.expr] = []
        for arg in shape_args:
            entries.extend(arg.elts if isinstance(arg, ast.Tuple | ast.List) else [arg])
        return [e for e in entries if one_line(e) and not isinstance(e, ast.Starred)]

    def reshape_mutation(self, node: ast.Call) -> None:
        receiver = segment(self.lines, node.func) if one_line(node.func) else ""
        if "devices" in receiver:
            return  # the device grid of a Mesh: its size is the device count, unknowable statically
        entries = self.reshape_entries(node)
        ints = [
            (e, e.value) for e in entries if isinstance(e, ast.Constant) and isinstance(e.value, int) and e.value > 1
        ]
        if ints:
            target, size = ints[-1]
            self.add("reshape_size", "reshape", replace(target, str(size + 1)))
            return
        others = [e for e in entries if not (isinstance(e, ast.Constant) and isinstance(e.value, int))]
        if others and len(entries) >= 2:
            other = others[-1]
            if isinstance(other, ast.Attribute) and other.attr == "shape":
                return  # x.reshape(y.shape): no single size to change
            self.add("reshape_size", "reshape", replace(other, f"({segment(self.lines, other)}) + 1"))

    def transpose_mutation(self, node: ast.Call) -> None:
        perm = node.args[0] if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple) else None
        elts = perm.elts if perm is not None else node.args
        if len(elts) < 3 or not all(isinstance(e, ast.Constant) and isinstance(e.value, int) for e in elts):
            return
        values = [int(getattr(e, "value", 0)) for e in elts]
        if not all(one_line(e) for e in elts) or elts[0].lineno != elts[-1].lineno:
            return
        values[-1], values[-2] = values[-2], values[-1]
        start, end = elts[0].col_offset, elts[-1].end_col_offset
        assert end is not None
        self.add("transpose_perm", "transpose", Edit(elts[0].lineno, start, end, ", ".join(map(str, values))))

    def vmap_mutation(self, node: ast.Call) -> None:
        in_axes: ast.expr | None = None
        for kw in node.keywords:
            if kw.arg == "in_axes":
                in_axes = kw.value
        if in_axes is None and len(node.args) >= 2:
            in_axes = node.args[1]
        if in_axes is None:
            return
        elts = in_axes.elts if isinstance(in_axes, ast.Tuple | ast.List) else [in_axes]
        for elt in elts:
            if not one_line(elt) or not isinstance(elt, ast.Constant):
                continue
            if elt.value is None:
                self.add("vmap_in_axes", "vmap", replace(elt, "0"))
                return
            if isinstance(elt.value, int) and not isinstance(elt.value, bool):
                self.add("vmap_in_axes", "vmap", replace(elt, "None" if len(elts) > 1 else str(elt.value + 1)))
                return


def find_mutants(source: str, origin: str, allow_module_level: bool = False) -> list[tuple[Mutant, str]]:
    """Every candidate one-line mutation of `source`, with the mutated text."""
    raw = source.encode("utf-8")
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError):
        return []
    finder = Finder(raw, allow_module_level)
    out: list[tuple[Mutant, str]] = []
    lines = raw.splitlines(keepends=True)
    seen: set[tuple[int, int, int, str]] = set()
    for function, kind, context, edit in finder.run(tree):
        key = (edit.line, edit.start, edit.end, edit.text)
        if key in seen:
            continue
        seen.add(key)
        old = lines[edit.line - 1]
        new = old[: edit.start] + edit.text.encode("utf-8") + old[edit.end :]
        mutated = b"".join([*lines[: edit.line - 1], new, *lines[edit.line :]]).decode("utf-8")
        mutant = Mutant(
            origin, function, edit.line, kind, context, old.decode("utf-8").strip(), new.decode("utf-8").strip()
        )
        out.append((mutant, mutated))
    return out


# ----------------------------------------------------------------------------------------------
# Scoring


def diag_key(d: Diagnostic) -> tuple[int, str, str]:
    return (d.line, d.code, d.message)


def flagged(mutant: Mutant, original: Sequence[Diagnostic], mutated: Sequence[Diagnostic]) -> list[Diagnostic]:
    before = {diag_key(d) for d in original}
    return [
        d
        for d in mutated
        if d.code not in INTERNAL_CODES and abs(d.line - mutant.line) <= NEAR_LINES and diag_key(d) not in before
    ]


@dataclass
class Scored:
    mutant: Mutant
    hits: list[Diagnostic]
    internal: list[Diagnostic]
    anywhere: list[Diagnostic]  # new diagnostics anywhere in the file (a looser, secondary figure)
    at_edit: tuple[bool, bool] = (False, False)  # `located(hits, file, edited line)`


CHUNK = 20


def check_files(checker: str, files: Sequence[Path], timeout: float, per_file: bool = False) -> list[list[Diagnostic]]:
    """Diagnostics of every file, each file checked as if alone.

    Default: a few files per checker process (no two with the same file name in one process, so
    no copy of a module stands in for another); `per_file`: one process per file. A chunk whose
    run fails is re-run one file at a time."""

    def alone(path: Path) -> list[Diagnostic]:
        run = run_checker(checker, [path], timeout)
        if run.error:
            return [Diagnostic(str(path), 1, 1, "NC000", f"checker run failed: {run.error[-300:]}")]
        return run.diagnostics

    if per_file:
        with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 2)) as pool:
            return list(pool.map(alone, files))
    chunks: list[list[int]] = []
    for i, path in enumerate(files):
        for chunk in chunks:
            if len(chunk) < CHUNK and all(files[j].name != path.name for j in chunk):
                chunk.append(i)
                break
        else:
            chunks.append([i])
    out: list[list[Diagnostic]] = [[] for _ in files]

    def one_chunk(chunk: list[int]) -> None:
        run = run_checker(checker, [files[j] for j in chunk], timeout)
        if run.error:
            for j in chunk:
                out[j] = alone(files[j])
            return
        index = {str(files[j]): j for j in chunk}
        index.update({str(files[j].resolve()): j for j in chunk})
        for d in run.diagnostics:
            j = index.get(d.path, index.get(str(Path(d.path).resolve()), -1))
            if j >= 0:
                out[j].append(d)

    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 2)) as pool:
        list(pool.map(one_chunk, chunks))  # the checker analyses a handful of files in one process
    return out


def score(
    checker: str,
    work: Path,
    originals: dict[str, str],
    mutants: Sequence[tuple[Mutant, str]],
    timeout: float,
    per_file: bool = False,
) -> tuple[list[Scored], dict[str, list[Diagnostic]]]:
    names = sorted(originals)
    orig_paths = []
    for i, origin in enumerate(names):
        path = work / "orig" / f"{i:05d}" / Path(origin).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(originals[origin], encoding="utf-8")
        orig_paths.append(path)
    orig_diags = dict(zip(names, check_files(checker, orig_paths, timeout, per_file), strict=True))
    mut_paths = []
    for i, (mutant, text) in enumerate(mutants):
        path = work / "mut" / f"{i:05d}" / Path(mutant.origin).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        mut_paths.append(path)
    mutated = check_files(checker, mut_paths, timeout, per_file)
    # The checker may change while this runs (it is being developed): check the originals again and
    # count a diagnostic of either run as "already there", so drift is never credited to a mutant.
    again = dict(zip(names, check_files(checker, orig_paths, timeout, per_file), strict=True))
    drift = sorted(n for n in names if {diag_key(d) for d in again[n]} != {diag_key(d) for d in orig_diags[n]})
    if drift:
        print(
            f"warning: the checker's output on {len(drift)} unmutated files changed during the run "
            f"(e.g. {drift[0]}); both runs count as the baseline"
        )
        for n in drift:
            seen = {diag_key(d) for d in orig_diags[n]}
            orig_diags[n] = orig_diags[n] + [d for d in again[n] if diag_key(d) not in seen]
    results = []
    for (mutant, _), diags, path in zip(mutants, mutated, mut_paths, strict=True):
        internal = [d for d in diags if d.code == "NC000"]
        before = {diag_key(d) for d in orig_diags[mutant.origin]}
        anywhere = [d for d in diags if d.code not in INTERNAL_CODES and diag_key(d) not in before]
        hits = flagged(mutant, orig_diags[mutant.origin], diags)
        results.append(Scored(mutant, hits, internal, anywhere, located(hits, path, mutant.line)))
    return results, orig_diags


def report(
    title: str,
    results: Sequence[Scored],
    orig_diags: dict[str, list[Diagnostic]],
    show_unflagged: bool,
    notes: dict[Mutant, str] | None = None,
) -> None:
    total = len(results)
    hit = sum(1 for r in results if r.hits)
    print(f"\n=== {title} ===")
    anywhere = sum(1 for r in results if r.anywhere)
    print(
        f"mutants: {total}   flagged: {hit} ({100.0 * hit / total if total else 0:.1f}%)   "
        f"(a new diagnostic anywhere in the file: {anywhere})"
    )
    print(location_line([r.at_edit for r in results if r.hits]))
    by_kind: dict[str, list[Scored]] = defaultdict(list)
    for r in results:
        by_kind[r.mutant.kind].append(r)
    for kind in sorted(by_kind):
        rs = by_kind[kind]
        k_hit = sum(1 for r in rs if r.hits)
        print(f"  {kind:<26} {k_hit:>4}/{len(rs):<4} ({100.0 * k_hit / len(rs):5.1f}%)")
    internal = [(r.mutant, d) for r in results for d in r.internal]
    if internal:
        print(f"internal errors on mutants: {len(internal)}")
        for mutant, d in internal[:20]:
            print(f"  {mutant.origin}:{mutant.line} [{mutant.kind}] {d.message[:200]}")
    false_alarms = [(origin, d) for origin, ds in sorted(orig_diags.items()) for d in ds]
    print(f"diagnostics on the unmutated files (false alarms unless real bugs): {len(false_alarms)}")
    for origin, d in false_alarms:
        print(f"  {origin}:{d.line}:{d.column}: {d.code} {d.message}")
    print("flagged mutants:")
    for r in results:
        if r.hits:
            d = r.hits[0]
            print(
                f"  + {r.mutant.origin}:{r.mutant.line} {r.mutant.function} [{r.mutant.kind}] "
                f"{r.mutant.after!r} -> {d.code} {d.message[:160]}"
            )
    if show_unflagged:
        print("missed mutants:")
        for r in results:
            if not r.hits:
                why = f"  JAX: {notes[r.mutant]}" if notes and r.mutant in notes else ""
                if r.anywhere:
                    d = r.anywhere[0]
                    why += f"  [elsewhere: line {d.line} {d.code} {d.message[:120]}]"
                print(
                    f"  - {r.mutant.origin}:{r.mutant.line} {r.mutant.function} [{r.mutant.kind}/"
                    f"{r.mutant.context}] {r.mutant.before!r} => {r.mutant.after!r}{why}"
                )


# ----------------------------------------------------------------------------------------------
# Installed sources (unverified)


def source_mutants(args: argparse.Namespace, base: Path) -> tuple[dict[str, str], list[tuple[Mutant, str]]]:
    packages = prepare_packages(args.packages, base / "pkgs", args.install_timeout)
    originals: dict[str, str] = {}
    by_kind: dict[str, list[tuple[Mutant, str]]] = defaultdict(list)
    for pkg in packages:
        if pkg.root is None:
            print(f"skipping {pkg.name}: {pkg.problem}")
            continue
        for path in package_sources(pkg.name, pkg.root):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "jax" not in text:
                continue
            origin = f"{pkg.name}:{path.relative_to(pkg.root)}"
            found = find_mutants(text, origin)
            if found:
                originals[origin] = text
                for mutant, mutated in found:
                    by_kind[mutant.kind].append((mutant, mutated))
    rng = random.Random(args.seed)
    for items in by_kind.values():
        rng.shuffle(items)
    chosen: list[tuple[Mutant, str]] = []
    pools = {k: list(v) for k, v in sorted(by_kind.items())}
    while len(chosen) < args.limit and any(pools.values()):
        for kind in list(pools):  # round robin: every kind is represented
            if pools[kind] and len(chosen) < args.limit:
                chosen.append(pools[kind].pop())
    used = {m.origin for m, _ in chosen}
    available = {k: len(v) for k, v in by_kind.items()}
    print(f"installed sources: {len(originals)} files with candidates; candidates per kind: {available}")
    return {k: v for k, v in originals.items() if k in used}, chosen


# ----------------------------------------------------------------------------------------------
# Runnable programs (verified)


# Runs many programs in one interpreter (jax imported once): each is exec'd in a fresh namespace as
# __main__ and any exception counts as "JAX raised". Prints one JSON line per program.
# An AssertionError raised by an `assert` of the program itself or by numpy.testing is a wrong
# number, not JAX rejecting the program: it does not count as raising. (JAX raises bare
# AssertionErrors too, e.g. for an unbound axis name; JAX_TRACEBACK_FILTERING=off keeps its frames.)
BATCH_RUNNER = """
import contextlib, io, json, sys, traceback
import jax  # noqa: F401  (imported once, with XLA_FLAGS already set)
for path in json.loads(sys.argv[1]):
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink):
            code = compile(open(path, encoding='utf-8').read(), path, 'exec')
            exec(code, {'__name__': '__main__', '__file__': path})
        result = [False, '']
    except BaseException as exc:  # the mutant's own failure, whatever it is
        text = str(exc).strip()
        why = (type(exc).__name__ + ': ' + text.splitlines()[0] if text else type(exc).__name__)[:200]
        frames = traceback.extract_tb(exc.__traceback__)
        last = frames[-1] if frames else None
        numeric = isinstance(exc, AssertionError) and last is not None and (
            'numpy' in last.filename or (last.filename == path and (last.line or '').startswith('assert')))
        result = [not numeric, ('numerical only: ' + why) if numeric else why]
    print(json.dumps([path, *result]), flush=True)
"""


def run_program(path: Path, timeout: float = JAX_TIMEOUT) -> tuple[bool, str]:
    """Run one program in its own interpreter; (JAX raised, first line of the error)."""
    env = dict(os.environ, XLA_FLAGS=XLA_FLAGS, JAX_PLATFORMS="cpu", JAX_TRACEBACK_FILTERING="off")
    cmd = [sys.executable, "-c", BATCH_RUNNER, json.dumps([str(path)])]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    for line in proc.stdout.splitlines():
        try:
            _, raised, why = json.loads(line)
        except (json.JSONDecodeError, ValueError):
            continue
        return bool(raised), str(why)
    return True, f"interpreter died (rc={proc.returncode}): {proc.stderr.strip()[-200:]}"


def run_programs(paths: Sequence[Path], timeout_each: float = JAX_TIMEOUT) -> list[tuple[bool, str]]:
    """Run many programs, a few interpreters each taking a chunk; a chunk that dies or hangs falls
    back to one process per remaining program."""
    workers = max(1, os.cpu_count() or 2)
    chunks = [list(paths[i::workers]) for i in range(workers)]
    env = dict(os.environ, XLA_FLAGS=XLA_FLAGS, JAX_PLATFORMS="cpu", JAX_TRACEBACK_FILTERING="off")

    def chunk_run(chunk: list[Path]) -> dict[str, tuple[bool, str]]:
        done: dict[str, tuple[bool, str]] = {}
        if not chunk:
            return done
        cmd = [sys.executable, "-c", BATCH_RUNNER, json.dumps([str(p) for p in chunk])]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, env=env, timeout=timeout_each * len(chunk) / 4 + 60
            )
            out = proc.stdout
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        for line in out.splitlines():
            try:
                path, raised, why = json.loads(line)
            except (json.JSONDecodeError, ValueError):
                continue
            done[path] = (bool(raised), str(why))
        for path in chunk:
            if str(path) not in done:
                done[str(path)] = run_program(path, timeout_each)
        return done

    results: dict[str, tuple[bool, str]] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(chunk_run, chunks):
            results.update(part)
    return [results[str(p)] for p in paths]


def runnable_mutants(work: Path) -> tuple[dict[str, str], list[tuple[Mutant, str]], dict[Mutant, str]]:
    originals = {f"runnable:{name}.py": text for name, text in RUNNABLE.items()}
    (work / "run").mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[str, Mutant | None, Path]] = []
    candidates: list[tuple[Mutant, str]] = []
    for origin, text in originals.items():
        path = work / "run" / "orig" / Path(origin.split(":", 1)[1])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        jobs.append((origin, None, path))
        for mutant, mutated in find_mutants(text, origin, allow_module_level=True):
            path = work / "run" / f"{len(candidates):05d}" / Path(origin.split(":", 1)[1])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(mutated, encoding="utf-8")
            candidates.append((mutant, mutated))
            jobs.append((origin, mutant, path))
    originals_idx = [i for i, job in enumerate(jobs) if job[1] is None]
    mutant_idx = [i for i, job in enumerate(jobs) if job[1] is not None]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 2)) as pool:
        clean = list(pool.map(lambda i: run_program(jobs[i][2]), originals_idx))  # each in its own process
    ran = run_programs([jobs[i][2] for i in mutant_idx])
    outcomes: list[tuple[bool, str]] = [(False, "")] * len(jobs)
    for i, outcome in [*zip(originals_idx, clean, strict=True), *zip(mutant_idx, ran, strict=True)]:
        outcomes[i] = outcome
    broken = [
        (origin, why)
        for (origin, mutant, _), (raised, why) in zip(jobs, outcomes, strict=True)
        if mutant is None and (raised or why)
    ]
    for origin, why in broken:
        print(f"UNMUTATED PROGRAM FAILS (excluded): {origin}: {why}")
    bad = {origin for origin, _ in broken}
    kept: list[tuple[Mutant, str]] = []
    notes: dict[Mutant, str] = {}
    texts = {m: t for m, t in candidates}
    silent: Counter[str] = Counter()
    numeric: Counter[str] = Counter()
    for (origin, maybe, _), (raised, why) in zip(jobs, outcomes, strict=True):
        if maybe is None or origin in bad:
            continue
        mutant = maybe
        if raised:
            kept.append((mutant, texts[mutant]))
            notes[mutant] = why
        elif why.startswith("numerical only"):
            numeric[mutant.kind] += 1
        else:
            silent[mutant.kind] += 1
    print(
        f"runnable programs: {len(originals) - len(bad)} run cleanly; {len(candidates)} mutants, "
        f"{len(kept)} make JAX raise (kept); JAX accepts per kind: {dict(sorted(silent.items()))}; "
        f"only a wrong number (assertion) per kind: {dict(sorted(numeric.items()))}"
    )
    return {k: v for k, v in originals.items() if k not in bad}, kept, notes


# ----------------------------------------------------------------------------------------------


def mutants(args: argparse.Namespace) -> int:
    checker: str = args.checker or default_checker()
    base, cleanup = workdir(args.keep)
    work = Path(tempfile.mkdtemp(prefix="mutants_", dir=base))
    try:
        summary: list[str] = []
        if not args.no_runnable:
            originals, kept, notes = runnable_mutants(work)
            results, orig_diags = score(checker, work / "runnable", originals, kept, args.timeout, args.per_file)
            report(
                "runnable programs, mutants that JAX rejects (verified recall)",
                results,
                orig_diags,
                args.show_unflagged,
                notes,
            )
            summary.append(share_line("verified recall (runnable, JAX raises)", results))
        if not args.runnable_only:
            originals, chosen = source_mutants(args, base)
            results, orig_diags = score(checker, work / "sources", originals, chosen, args.timeout, args.per_file)
            report("installed sources, mutants not run (unverified recall)", results, orig_diags, args.show_unflagged)
            summary.append(share_line("unverified recall (installed sources)", results))
        print("\n" + "\n".join(summary))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        cleanup()
    return 0


def share_line(label: str, results: Sequence[Scored]) -> str:
    hit = sum(1 for r in results if r.hits)
    pct = 100.0 * hit / len(results) if results else 0.0
    return f"{label}: {hit}/{len(results)} = {pct:.1f}%"


# ----------------------------------------------------------------------------------------------
# Runnable programs: small sharded JAX programs written for this harness. Each runs cleanly as is;
# the runner sets XLA_FLAGS=--xla_force_host_platform_device_count=8 before jax is imported.

RUNNABLE: dict[str, str] = {
    "collective_matmul": '''\
"""All-gather matmul overlapped with ppermute: x sharded on rows, the chunks travel around a ring."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ('x',))
N_DEV = 8


@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', None), P(None, 'x')), out_specs=P(None, 'x'))
def gathered_matmul(lhs, rhs):
    idx = lax.axis_index('x')
    rows = lhs.shape[0]
    perm = [(j, (j + 1) % N_DEV) for j in range(N_DEV)]
    out = jnp.zeros((rows * N_DEV, rhs.shape[1]), lhs.dtype)
    out = lax.pcast(out, 'x', to='varying')

    def body(i, carry):
        out, chunk = carry
        block = chunk @ rhs
        out = lax.dynamic_update_slice_in_dim(out, block, ((idx - i) % N_DEV) * rows, axis=0)
        chunk = lax.ppermute(chunk, 'x', perm)
        return out, chunk

    out, _ = lax.fori_loop(0, N_DEV, body, (out, lhs))
    return out


lhs = jnp.arange(64 * 16, dtype=jnp.float32).reshape(64, 16) / 100
rhs = jnp.ones((16, 32))
res = jax.jit(gathered_matmul)(lhs, rhs)
np.testing.assert_allclose(res, lhs @ rhs, rtol=1e-5)
print(res.shape)
''',
    "device_put_named": '''\
"""Place a batch and params with device_put + NamedSharding, then run a jitted forward."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('data', 'model'))

batch = np.ones((16, 8, 32), np.float32)
batch = jax.device_put(batch, NamedSharding(mesh, P('data', None, None)))
kernel = jax.device_put(jnp.ones((32, 64)), NamedSharding(mesh, P(None, 'model')))


@jax.jit
def forward(kernel, batch):
    logits = jnp.einsum('bsd,df->bsf', batch, kernel)
    return jax.nn.log_softmax(logits, axis=-1)


out = forward(kernel, batch)
print(out.shape, out.sharding)
''',
    "dp_train_step": '''\
"""Data-parallel linear regression: per-shard grads averaged with pmean inside shard_map."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))


def loss_fn(params, x, y):
    pred = x @ params['w'] + params['b']
    return jnp.mean((pred - y) ** 2)


def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    grads = lax.pmean(grads, 'data')
    loss = lax.pmean(loss, 'data')
    params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return params, loss


step = jax.jit(jax.shard_map(train_step, mesh=mesh, in_specs=(P(), P('data', None), P('data', None)),
                             out_specs=(P(), P())))

params = {'w': jnp.zeros((16, 3)), 'b': jnp.zeros((3,))}
x = jnp.ones((32, 16))
y = jnp.ones((32, 3))
for _ in range(2):
    params, loss = step(params, x, y)
print(float(loss))
''',
    "einsum_attention": '''\
"""Multi-head attention with einsum; heads sharded over 'model' with with_sharding_constraint."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('data', 'model'))
B, T, D, H = 4, 16, 64, 8
HEAD = D // H


def attention(x, wq, wk, wv, wo):
    q = jnp.einsum('btd,dhk->bthk', x, wq)
    k = jnp.einsum('btd,dhk->bthk', x, wk)
    v = jnp.einsum('btd,dhk->bthk', x, wv)
    q = jax.lax.with_sharding_constraint(q, NamedSharding(mesh, P('data', None, 'model', None)))
    scores = jnp.einsum('bqhk,bshk->bhqs', q, k) / np.sqrt(HEAD)
    probs = jax.nn.softmax(scores, axis=-1)
    ctx = jnp.einsum('bhqs,bshk->bqhk', probs, v)
    return jnp.einsum('bthk,hkd->btd', ctx, wo)


keys = jax.random.split(jax.random.key(0), 5)
x = jax.random.normal(keys[0], (B, T, D))
wq, wk, wv = (jax.random.normal(k, (D, H, HEAD)) * 0.02 for k in keys[1:4])
wo = jax.random.normal(keys[4], (H, HEAD, D)) * 0.02
out = jax.jit(attention)(x, wq, wk, wv, wo)
assert out.shape == (B, T, D)
print(out.mean())
''',
    "fsdp_all_gather": '''\
"""FSDP: weights sharded over 'fsdp' and all-gathered just in time for each layer."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ('fsdp',))


def init_layer(key, n_in, n_out):
    return jax.random.normal(key, (n_in, n_out)) / np.sqrt(n_in)


def forward(ws, x):
    for w_shard in ws:
        w = lax.all_gather(w_shard, 'fsdp', axis=0, tiled=True)
        x = jnp.tanh(x @ w)
    return x


def loss(ws, x):
    return lax.pmean(jnp.mean(forward(ws, x) ** 2), 'fsdp')


sizes = [64, 64, 64]
keys = jax.random.split(jax.random.key(1), len(sizes) - 1)
ws = [init_layer(k, m, n) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]
fsdp_loss = jax.shard_map(loss, mesh=mesh, in_specs=([P('fsdp', None)] * len(ws), P('fsdp', None)),
                          out_specs=P())
x = jnp.ones((16, 64))
print(jax.jit(fsdp_loss)(ws, x))
''',
    "jit_shardings": '''\
"""jit with explicit in_shardings / out_shardings on a 2D mesh."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('batch', 'hidden'))
x_sharding = NamedSharding(mesh, P('batch', None))
w_sharding = NamedSharding(mesh, P(None, 'hidden'))
out_sharding = NamedSharding(mesh, P('batch', 'hidden'))


def dense(x, w):
    return jax.nn.relu(jnp.matmul(x, w))


dense_sharded = jax.jit(dense, in_shardings=(x_sharding, w_sharding), out_shardings=out_sharding)
x = jnp.ones((16, 24))
w = jnp.ones((24, 10))
y = dense_sharded(x, w)
print(y.shape)
''',
    "layer_stack_scan": '''\
"""A stack of residual layers applied with lax.scan over stacked params, activations sharded by batch."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ('batch',))
N_LAYERS, D, F = 3, 16, 40


def layer(h, p):
    w_in, w_out = p
    z = jax.nn.relu(h @ w_in)
    h = h + z @ w_out
    return h, jnp.mean(h)


def model(params, x):
    h = x.reshape(x.shape[0], D)
    h, means = lax.scan(layer, h, params)
    return h.reshape(-1, 4, 4), means


keys = jax.random.split(jax.random.key(0), 2)
w_in = jax.random.normal(keys[0], (N_LAYERS, D, F)) * 0.1
w_out = jax.random.normal(keys[1], (N_LAYERS, F, D)) * 0.1
x = jax.device_put(jnp.ones((32, 4, 4)), NamedSharding(mesh, P('batch', None, None)))
out, means = jax.jit(model)((w_in, w_out), x)
assert out.shape == (32, 4, 4) and means.shape == (N_LAYERS,)
print(means)
''',
    "megatron_mlp": '''\
"""Megatron-style MLP: column-parallel w1, row-parallel w2, psum over the model axis."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

devices = np.array(jax.devices()).reshape(2, 4)
mesh = Mesh(devices, ('data', 'model'))


def mlp_block(x, w1, b1, w2):
    h = jax.nn.gelu(x @ w1 + b1)
    out = jnp.dot(h, w2)
    return lax.psum(out, 'model')


mlp = jax.shard_map(mlp_block, mesh=mesh,
                    in_specs=(P('data', None), P(None, 'model'), P('model'), P('model', None)),
                    out_specs=P('data', None))

key = jax.random.key(0)
k1, k2, k3 = jax.random.split(key, 3)
x = jax.random.normal(k1, (8, 32))
w1 = jax.random.normal(k2, (32, 128)) * 0.02
b1 = jnp.zeros((128,))
w2 = jax.random.normal(k3, (128, 32)) * 0.02
y = jax.jit(mlp)(x, w1, b1, w2)
assert y.shape == (8, 32)
print(y.sum())
''',
    "mesh_shape_sizes": '''\
"""Sizes taken from mesh.shape; local blocks reshaped inside shard_map; scan with an invariant carry."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))
n_x = mesh.shape['x']
n_y = mesh.shape['y']


def block_stats(block):
    tiles = block.reshape(2, 3, 5)
    partial = tiles.sum(axis=(1, 2))

    def step(total, row):
        total = total + lax.psum(row, ('x', 'y'))
        return total, total

    total, _ = lax.scan(step, jnp.zeros(()), partial)
    return total


data = jnp.arange(n_x * 6 * n_y * 5, dtype=jnp.float32).reshape(n_x * 6, n_y * 5)
stats = jax.shard_map(block_stats, mesh=mesh, in_specs=P('x', 'y'), out_specs=P())
print(jax.jit(stats)(data))
''',
    "microbatch_scan": '''\
"""Gradient accumulation over microbatches with lax.scan inside a data-parallel shard_map."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ('data',))
N_MICRO = 4


def loss_fn(w, x, y):
    return jnp.mean((jnp.dot(x, w) - y) ** 2)


def accumulate(w, xs, ys):
    xs = xs.reshape(N_MICRO, -1, xs.shape[-1])
    ys = ys.reshape(N_MICRO, -1)

    def micro_step(acc, batch):
        x, y = batch
        loss, g = jax.value_and_grad(loss_fn)(w, x, y)
        acc_loss, acc_g = acc
        return (acc_loss + lax.pmean(loss, 'data'), acc_g + lax.pmean(g, 'data')), None

    init = (jnp.zeros(()), jnp.zeros_like(w))
    (loss, grad), _ = lax.scan(micro_step, init, (xs, ys))
    return loss / N_MICRO, grad / N_MICRO


step = jax.shard_map(accumulate, mesh=mesh, in_specs=(P(), P('data'), P('data')), out_specs=(P(), P()))
w = jnp.zeros((10,))
xs = jnp.ones((64, 10))
ys = jnp.ones((64,))
loss, grad = jax.jit(step)(w, xs, ys)
print(loss, grad.shape)
''',
    "mlp_list_params": '''\
"""An MLP whose params come from a list comprehension; batch sharded with a NamedSharding."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def init_layer(key, m, n):
    w_key, b_key = jax.random.split(key)
    return jax.random.normal(w_key, (m, n)) / jnp.sqrt(m), jax.random.normal(b_key, (n,)) * 0.01


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


layer_sizes = [20, 48, 32, 10]
keys = jax.random.split(jax.random.key(0), len(layer_sizes) - 1)
params = [init_layer(k, m, n) for k, m, n in zip(keys, layer_sizes[:-1], layer_sizes[1:])]
mesh = Mesh(np.array(jax.devices()), ('batch',))
x = jax.device_put(jnp.ones((64, 20)), NamedSharding(mesh, P('batch', None)))
logits = jax.jit(mlp)(params, x)
assert logits.shape == (64, 10)
print(logits.sharding)
''',
    "reduce_scatter": '''\
"""ZeRO-style update: reduce-scatter the gradient with psum_scatter, update the local param shard."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('replica', 'shard'))


def sharded_update(param, grad):
    grad_shard = lax.psum_scatter(grad, 'shard', scatter_dimension=0, tiled=True)
    grad_shard = lax.pmean(grad_shard, 'replica')
    idx = lax.axis_index('shard')
    rows = grad_shard.shape[0]
    param_shard = lax.dynamic_slice_in_dim(param, idx * rows, rows, axis=0)
    new_shard = param_shard - 0.01 * grad_shard
    return new_shard


update = jax.shard_map(sharded_update, mesh=mesh, in_specs=(P(), P('replica')), out_specs=P('shard'))
param = jnp.ones((16, 8))
grad = jnp.ones((2 * 16, 8))
print(jax.jit(update)(param, grad).shape)
''',
    "set_mesh_infer": '''\
"""Explicit-axis mesh via jax.make_mesh and jax.set_mesh; shard_map with in_specs inferred."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('dp', 'tp'))


def local_norm(x):
    sq = jnp.sum(x * x, axis=1, keepdims=True)
    total = lax.psum(sq, 'tp')
    return x / jnp.sqrt(total)


with jax.set_mesh(mesh):
    x = jax.device_put(jnp.arange(8 * 6, dtype=jnp.float32).reshape(8, 6) + 1, P('dp', 'tp'))
    y = jax.shard_map(local_norm, out_specs=P('dp', 'tp'))(x)
    assert y.shape == (8, 6)
    print(jax.typeof(y))
''',
    "transpose_heads": '''\
"""Split and merge attention heads with reshape/transpose inside a sequence-sharded shard_map."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ('seq',))
B, T, H, K = 2, 32, 4, 6


def split_heads(x):
    b, t, _ = x.shape
    return x.reshape(b, t, H, K).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, t, k = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * k)


def per_head_scale(x, scale):
    heads = split_heads(x)
    heads = heads * scale[None, :, None, None]
    return merge_heads(heads)


f = jax.shard_map(per_head_scale, mesh=mesh, in_specs=(P(None, 'seq', None), P()), out_specs=P(None, 'seq', None))
x = jnp.ones((B, T, H * K))
scale = jnp.arange(H, dtype=jnp.float32)
print(jax.jit(f)(x, scale).shape)
''',
    "vmap_per_example": '''\
"""Per-example losses and gradients with vmap (params broadcast, examples mapped)."""
import jax
import jax.numpy as jnp


def predict(params, x):
    h = jnp.tanh(params['w1'] @ x + params['b1'])
    return params['w2'] @ h


def example_loss(params, x, label):
    logits = predict(params, x)
    return -jax.nn.log_softmax(logits)[label]


key = jax.random.key(0)
k1, k2, k3 = jax.random.split(key, 3)
params = {'w1': jax.random.normal(k1, (32, 12)), 'b1': jnp.zeros(32), 'w2': jax.random.normal(k2, (5, 32))}
xs = jax.random.normal(k3, (20, 12))
labels = jnp.arange(20) % 5
losses = jax.vmap(example_loss, in_axes=(None, 0, 0))(params, xs, labels)
grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, xs, labels)
assert losses.shape == (20,)
print(losses.mean(), grads['w1'].shape)
''',
}
