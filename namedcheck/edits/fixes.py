"""Fixes of diagnostics, as edits of the source (one representation for `check --fix`, json / SARIF
`fixes` and the editor's code actions)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer.chunks import Chunk, ChunkPositions, ChunkSyntaxError, split
from namedcheck.analyzer.parsing import parse_checked
from namedcheck.diagnostic import Diagnostic, Edit, Fix
from namedcheck.engine.codes import NC002, NC404, NC501, NC601, NC602, NC705, NC802, NC805, NC807, NC809, NC811, NC825
from namedcheck.engine.maps import Spec
from namedcheck.engine.values import ArrayType

_IGNORE_LIST = re.compile(r"#\s*namedcheck:\s*ignore\[([A-Za-z0-9_,\s]*)\]")


def ignore_fix(source: str, d: Diagnostic) -> Fix:
    """`# namedcheck: ignore[NCxxx]` at the end of the diagnostic's line (added to a list already there)."""
    lines = source.splitlines()
    text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    m = _IGNORE_LIST.search(text)
    if m is not None:
        at = m.end(1)
        edit = Edit(d.line, at + 1, d.line, at + 1, f", {d.code}")
    else:
        end = len(text.rstrip())
        edit = Edit(d.line, end + 1, d.line, len(text) + 1, f"  # namedcheck: ignore[{d.code}]")
    return Fix(f"Ignore {d.code} on this line", True, (edit,))


# ---- locating nodes -----------------------------------------------------------------------------------


class Located:
    """The parsed chunks of a source with positions in the file, parents and top-level definitions."""

    def __init__(
        self, source: str, chunks: list[tuple[int, Chunk]], values: list[tuple[cst.CSTNode, Any]] | None = None
    ) -> None:
        self.source = source
        self.chunks = chunks
        self.values: dict[int, list[Any]] = {}
        for node, v in values or ():
            self.values.setdefault(id(node), []).append(v)
        self._parents: dict[int, dict[int, cst.CSTNode]] = {}

    def chunk_of(self, line: int) -> tuple[int, Chunk] | None:
        return ChunkPositions(self.chunks).chunk_at(line)

    def span(self, node: cst.CSTNode) -> tuple[int, int, int, int] | None:
        """1-based (line, column, end line, end column) of a node, end exclusive."""
        r = ChunkPositions(self.chunks).get(node)
        return None if r is None else (r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)

    def nodes_at(self, d: Diagnostic) -> list[cst.CSTNode]:
        """Nodes whose span is exactly the diagnostic's, outermost first."""
        at = self.chunk_of(d.line)
        if at is None:
            return []
        offset, chunk = at
        want = (d.line - offset, d.column - 1, d.end_line - offset, d.end_column - 1)
        return [
            n for n, r in chunk.positions().items() if (r.start.line, r.start.column, r.end.line, r.end.column) == want
        ]

    def within(self, d: Diagnostic) -> list[cst.CSTNode]:
        """Nodes inside the diagnostic's span, in source order."""
        at = self.chunk_of(d.line)
        if at is None:
            return []
        offset, chunk = at
        lo, hi = (d.line - offset, d.column - 1), (d.end_line - offset, d.end_column - 1)
        found = [
            (r.start.line, r.start.column, n)
            for n, r in chunk.positions().items()
            if lo <= (r.start.line, r.start.column) and (r.end.line, r.end.column) <= hi
        ]
        return [n for _, _, n in sorted(found, key=lambda t: (t[0], t[1]))]

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        for _, chunk in self.chunks:
            table = self._parents.get(id(chunk))
            if table is None:
                table = self._parents[id(chunk)] = {}
                todo: list[cst.CSTNode] = [chunk.module]
                while todo:
                    n = todo.pop()
                    for c in n.children:
                        table[id(c)] = n
                        todo.append(c)
            if id(node) in table:
                return table[id(node)]
        return None

    def function_named(self, name: str) -> cst.FunctionDef | None:
        found = None
        for _, chunk in self.chunks:
            for s in chunk.module.body:
                if isinstance(s, cst.FunctionDef) and s.name.value == name:
                    found = s
        return found

    def lax_spelling(self) -> tuple[str, Edit | None]:
        """How this module spells jax.lax, and an import edit when it has none."""
        jax_alias = None
        last_import = 0
        for offset, chunk in self.chunks:
            for s in chunk.module.body:
                if not isinstance(s, cst.SimpleStatementLine):
                    continue
                for small in s.body:
                    if (
                        isinstance(small, cst.ImportFrom)
                        and not small.relative
                        and small.module is not None
                        and isinstance(small.names, tuple | list)
                    ):
                        last_import = offset + chunk.line_count
                        mod = chunk.module.code_for_node(small.module)
                        for a in small.names:
                            if mod == "jax" and chunk.module.code_for_node(a.name) == "lax":
                                return (a.asname.name.value if a.asname else "lax"), None
                    elif isinstance(small, cst.Import):
                        last_import = offset + chunk.line_count
                        for a in small.names:
                            full = chunk.module.code_for_node(a.name)
                            local = a.asname.name.value if a.asname else None  # type: ignore[union-attr]
                            if full == "jax.lax" and local:
                                return local, None
                            if full == "jax":
                                jax_alias = local or "jax"
        if jax_alias is not None:
            return f"{jax_alias}.lax", None
        line = last_import + 1
        return "lax", Edit(line, 1, line, 1, "from jax import lax\n")

    def spelling(self, *names: str) -> str | None:
        """How this module's top-level imports spell one of the dotted `names` (`jax.sharding.PartitionSpec`
        imported `as P` -> `P`, `import jax` -> `jax.P`), or None."""
        found: dict[str, str] = {}  # a full dotted name -> its local spelling
        for _, chunk in self.chunks:
            for s in chunk.module.body:
                for small in s.body if isinstance(s, cst.SimpleStatementLine) else ():
                    if (
                        isinstance(small, cst.ImportFrom)
                        and not small.relative
                        and small.module is not None
                        and isinstance(small.names, tuple | list)
                    ):
                        mod = chunk.module.code_for_node(small.module)
                        for a in small.names:
                            full = f"{mod}.{chunk.module.code_for_node(a.name)}"
                            found[full] = a.asname.name.value if a.asname else full.rpartition(".")[2]
                    elif isinstance(small, cst.Import):
                        for a in small.names:
                            full = chunk.module.code_for_node(a.name)
                            found[full] = a.asname.name.value if a.asname else full  # type: ignore[union-attr]
        for name in names:
            if name in found:
                return found[name]
        for name in names:
            for full, local in sorted(found.items(), key=lambda kv: -len(kv[0])):  # the longest module first
                if name.startswith(full + "."):
                    return local + name[len(full) :]
        return None


# ---- the fixes ----------------------------------------------------------------------------------------


def attach_fixes(
    diags: list[Diagnostic],
    source: str,
    chunks: list[tuple[int, Chunk]] | None = None,
    values: list[tuple[cst.CSTNode, Any]] | None = None,
) -> list[Diagnostic]:
    """The diagnostics with their `fixes` (the source's chunks are split here when not given; `values`, the
    analysis's expression values, let a fix see what the message does not say)."""
    if not any(d.code in _FIXERS for d in diags):
        return diags
    if chunks is None:
        try:
            chunks = split(source)
        except ChunkSyntaxError:
            return diags
    loc = Located(source, chunks, values)
    out = []
    for d in diags:
        fixer = _FIXERS.get(d.code)
        fixes: list[Fix] = []
        if fixer is not None:
            try:
                fixes = fixer(loc, d)
            except Exception:  # a fix is a convenience: never let it break the check
                fixes = []
        out.append(replace(d, fixes=tuple(fixes)) if fixes else d)
    return out


def _code(loc: Located, node: cst.CSTNode) -> str:
    return cst.Module(body=()).code_for_node(node)


def _replace(loc: Located, node: cst.CSTNode, text: str) -> Edit | None:
    s = loc.span(node)
    return None if s is None else Edit(s[0], s[1], s[2], s[3], text)


def _names(value: Any) -> tuple[str, ...] | None:
    """A list of axis names from a diagnostic's `data` (None when it is not one)."""
    if not isinstance(value, list | tuple) or not all(isinstance(a, str) for a in value):
        return None
    return tuple(value)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _spec_text(value: Any) -> str | None:
    """A sharding from a diagnostic's `data` (per dim its mesh axes, or None) as the PartitionSpec stating it:
    `P('data', None)`; None when it is not one."""
    if not isinstance(value, list) or not all(e is None or _names(e) for e in value):
        return None
    return repr(Spec(tuple(tuple(e) if e else None for e in value)))


def _pcast(loc: Located, node: cst.BaseExpression, axes: tuple[str, ...]) -> tuple[str, Edit | None]:
    lax, imp = loc.lax_spelling()
    return f"{lax}.pcast({_code(loc, node)}, {axes!r}, to='varying')", imp


def _argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[index].value if index < len(positional) else None


def _item(expr: cst.BaseExpression, i: int, several: bool) -> cst.BaseExpression | None:
    """Item `i` of an output: the expression itself for a single output, an element of a tuple literal."""
    if not several:
        return expr
    if isinstance(expr, cst.Tuple) and i < len(expr.elements) and not isinstance(expr.elements[i], cst.StarredElement):
        return expr.elements[i].value
    return None


def _fix_nc602(loc: Located, d: Diagnostic) -> list[Fix]:
    axes, op, kind = _names(d.data.get("axes")), d.data.get("op"), d.data.get("kind")
    call = next((n for n in loc.nodes_at(d) if isinstance(n, cst.Call)), None)
    if axes is None or call is None:
        return []
    target: cst.BaseExpression | None = None
    if kind == "init":
        init = (
            {"lax.scan": (1, "init"), "lax.fori_loop": (3, "init_val"), "lax.while_loop": (2, "init_val")}.get(op)
            if isinstance(op, str)
            else None
        )
        item = _int(d.data.get("carry_item"))
        arg = _argument(call, *init) if init else None
        target = _item(arg, item or 0, item is not None) if arg is not None else None
        title = f"Make the initial carry varying over {', '.join(map(repr, axes))} (lax.pcast)"
    elif kind == "branch":
        i, b, union_axes = _int(d.data.get("output")), _int(d.data.get("branch")), _names(d.data.get("union"))
        if i is None or b is None or union_axes is None or not isinstance(op, str):
            return []
        union = set(axes) | set(union_axes)
        edits: list[Edit] = []
        for k, fn in enumerate(_branches(call, op)):
            outputs = _outputs(loc, fn)
            target = (
                _item(outputs[0], i, isinstance(outputs[0], cst.Tuple))
                if outputs is not None and len(outputs) == 1
                else None
            )
            if target is None:
                if k == b:
                    return []
                continue
            need = axes if k == b else _missing(loc.values.get(id(target), []), union)
            if need:
                text, imp = _pcast(loc, target, need)
                e = _replace(loc, target, text)
                if e is None:
                    return []
                edits += [x for x in (imp, e) if x is not None and x not in edits]
        if not edits:
            return []
        return [
            Fix(
                f"Make the branches' outputs vary over {', '.join(map(repr, sorted(union)))} (lax.pcast)",
                True,
                tuple(edits),
            )
        ]
    if target is None:
        return []
    text, imp = _pcast(loc, target, axes)
    edit = _replace(loc, target, text)
    if edit is None:
        return []
    return [Fix(title, True, tuple(e for e in (imp, edit) if e is not None))]


def _branches(call: cst.Call, op: str) -> list[cst.BaseExpression | None]:
    if op == "lax.cond":
        return [_argument(call, 1, "true_fun"), _argument(call, 2, "false_fun")]
    branches = _argument(call, 1, "branches")
    if op == "lax.switch" and isinstance(branches, cst.List | cst.Tuple):
        return [e.value for e in branches.elements]
    return []


def _missing(values: list[Any], union: set[str]) -> tuple[str, ...]:
    """The axes of `union` that no recorded value of a branch output is known to vary over (none when its
    values are not known exactly)."""
    arrays = [v for v in values if isinstance(v, ArrayType)]
    if not arrays or not all(v.vary_exact for v in arrays):
        return ()
    return tuple(sorted(union - set().union(*(v.varying for v in arrays))))


def _outputs(loc: Located, fn: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
    """The returned expressions of a lambda or of a module-level function named here."""
    if isinstance(fn, cst.Lambda):
        return [fn.body]
    if isinstance(fn, cst.Name):
        f = loc.function_named(fn.value)
        if f is None:
            return None
        found: list[cst.BaseExpression] = []

        class Returns(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return node is f

            def visit_Lambda(self, node: cst.Lambda) -> bool:
                return False

            def visit_Return(self, node: cst.Return) -> None:
                if node.value is not None:
                    found.append(node.value)

        f.visit(Returns())
        return found or None
    return None


def _mapped_function(loc: Located, spec_node: cst.CSTNode) -> cst.BaseExpression | None:
    """The function a shard_map's argument node belongs to: `shard_map(f, ...)` or `@partial(shard_map, ...)`."""
    arg = loc.parent(spec_node)
    call = loc.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call):
        return None
    deco = loc.parent(call)
    if isinstance(deco, cst.Decorator):
        fn = loc.parent(deco)
        return fn.name if isinstance(fn, cst.FunctionDef) else None
    return _argument(call, 0, "f")


def _fix_nc601(loc: Located, d: Diagnostic) -> list[Fix]:
    axis = d.data.get("axis")
    spec = next(iter(loc.nodes_at(d)), None)
    if not isinstance(axis, str) or not isinstance(spec, cst.Call):
        return []
    fixes: list[Fix] = []
    split: Fix | None = None
    entries = [a for a in spec.args if a.keyword is None]
    if len(entries) == len(spec.args) and not any(a.star for a in entries):
        none_at = next(
            (i for i, a in enumerate(entries) if isinstance(a.value, cst.Name) and a.value.value == "None"), None
        )
        texts = [_code(loc, a.value) for a in entries]
        if none_at is not None:
            texts[none_at] = repr(axis)
        elif not texts:
            texts = []  # P(): the output's rank is not known here (a 0-d output takes no spec entry)
        else:
            first = entries[0].value
            inner = [_code(loc, e.value) for e in first.elements] if isinstance(first, cst.Tuple) else [texts[0]]
            texts[0] = "(" + ", ".join([*inner, repr(axis)]) + ")"
        edit = _replace(loc, spec, f"{_code(loc, spec.func)}({', '.join(texts)})") if texts else None
        if edit is not None:
            split = Fix(f"Add {axis!r} to out_specs (the output is then split over {axis!r})", False, (edit,), True)
    fn = _mapped_function(loc, spec)
    outputs = _outputs(loc, fn)
    if outputs and not any(isinstance(o, cst.Tuple) for o in outputs):
        lax, imp = loc.lax_spelling()
        for reduce in ("psum", "pmean"):
            edits = [_replace(loc, o, f"{lax}.{reduce}({_code(loc, o)}, {axis!r})") for o in outputs]
            if all(e is not None for e in edits):
                fixes.append(
                    Fix(
                        f"Reduce the output over {axis!r} with lax.{reduce} before returning",
                        False,
                        tuple(e for e in (imp, *edits) if e is not None),
                        reduce == "pmean",
                    )
                )
    # the forgotten psum (each device holds a partial sum) is the usual cause: its fix keeps the output's shape
    # and is the one `--unsafe-fixes` applies; splitting the output over the axis (a bigger output: the partial
    # results side by side) and pmean are suggestions only
    return fixes + ([split] if split is not None else [])


def _fix_nc404(loc: Located, d: Diagnostic) -> list[Fix]:
    name = d.data.get("axis")
    node = next(iter(loc.nodes_at(d)), None)
    if not isinstance(name, str) or not isinstance(node, cst.List) or not node.elements:
        return []
    first = loc.span(node.elements[0])
    if first is None:
        return []
    return [
        Fix(
            f"Place {name!r} at position 0 of out_axes",
            True,
            (Edit(first[0], first[1], first[0], first[1], f"{name!r}, "),),
        )
    ]


def _fix_name(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC705 / NC501: the closest bound or mesh axis name, within edit distance 2."""
    wrong, known = d.data.get("axis"), _names(d.data.get("known"))
    if not isinstance(wrong, str) or known is None:
        return []
    scored = sorted((distance(wrong, n), n) for n in set(known) if n != wrong)
    best = [n for s, n in scored if s <= 2 and s == scored[0][0]] if scored else []
    # the name is wrong wherever the statement's lines spell it (in_specs and out_specs alike)
    lines = replace(d, column=1, end_column=10**6)
    strings = [n for n in loc.within(lines) if isinstance(n, cst.SimpleString) and n.evaluated_value == wrong]
    if not strings:
        return []
    fixes = []
    for name in best:
        edits = []
        for s in strings:
            quote = s.quote
            e = _replace(loc, s, f"{s.prefix}{quote}{name}{quote}")
            if e is not None:
                edits.append(e)
        if edits:
            fixes.append(Fix(f"Replace axis {wrong!r} by {name!r}", False, tuple(edits)))
    return fixes


def distance(a: str, b: str) -> int:
    """Levenshtein edit distance."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _fix_nc802(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC802: the contraction with `out_sharding=` the sharding of its non-contracting dims (the engine's `data`
    names it when it uses each mesh axis once); JAX accepts it and computes the same values. Safe in module
    code; inside a function the operands' shardings are those of the call analysed (another call may pass
    others, and would get this result sharding), so unsafe there."""
    return _out_sharding(loc, d, "the sharding of the non-contracting dims")


def _fix_nc805(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC805: the reshape JAX rejects for its operand's sharding, given `out_sharding=` (JAX's own message asks
    for it): the dims the reshape leaves alone keep their sharding, the reshaped ones are unsharded. The same
    values; safe in module code, unsafe inside a function (another call may pass another sharding)."""
    return _out_sharding(loc, d, "the dims it leaves alone keep their sharding")


def _out_sharding(loc: Located, d: Diagnostic, why: str) -> list[Fix]:
    """`out_sharding=<data['out_sharding']>` added to the call (or `a @ b` as `jnp.matmul(a, b, out_sharding=)`)."""
    wanted = _spec_text(d.data.get("out_sharding"))
    p = loc.spelling("jax.sharding.PartitionSpec", "jax.P")
    node = next(iter(loc.nodes_at(d)), None)
    if wanted is None or p is None or node is None:
        return []
    spec = p + wanted[1:]
    safe = not _in_function(loc, node)
    title = f"Pass out_sharding={wanted} ({why})"
    if (
        isinstance(node, cst.Call)
        and node.args
        and all(a.star == "" for a in node.args)
        and not any(a.keyword is not None and a.keyword.value == "out_sharding" for a in node.args)
    ):
        end = loc.span(node)  # inserted before the closing parenthesis (a trailing comma kept)
        if end is None or end[3] < 2:
            return []
        text = f"out_sharding={spec}" if isinstance(node.args[-1].comma, cst.Comma) else f", out_sharding={spec}"
        return [Fix(title, safe, (Edit(end[2], end[3] - 1, end[2], end[3] - 1, text),))]
    matmul = loc.spelling("jax.numpy.matmul")
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply) and matmul:
        edit = _replace(loc, node, f"{matmul}({_code(loc, node.left)}, {_code(loc, node.right)}, out_sharding={spec})")
        return [Fix(title, safe, (edit,))] if edit is not None else []
    return []


def _fix_nc807(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC807: `with_sharding_constraint` (an assertion under all-Explicit axes) becomes `reshard`, which takes
    the same positional arguments (a spec, a NamedSharding, a pytree of them) and moves the value to that
    sharding whatever it was: the same values, for every call."""
    node = next(iter(loc.nodes_at(d)), None)
    reshard = loc.spelling("jax.sharding.reshard", "jax.reshard")
    if (
        not isinstance(node, cst.Call)
        or reshard is None
        or len(node.args) != 2
        or any(a.star or a.keyword is not None for a in node.args)
    ):  # reshard's keywords are named otherwise
        return []
    edit = _replace(loc, node.func, reshard)
    return (
        [
            Fix(
                "Use jax.sharding.reshard (with all mesh axes Explicit, with_sharding_constraint only asserts)",
                True,
                (edit,),
            )
        ]
        if edit is not None
        else []
    )


def _fix_nc825(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC825: `with_sharding_constraint` naming Explicit axes becomes `reshard`, which JAX's message proposes:
    the same values, the value given that Explicit sharding. Only where reshard takes the sharding as written
    (a NamedSharding, or a spec under `jax.set_mesh`: `data["reshard_ok"]`)."""
    if not d.data.get("reshard_ok"):
        return []
    return [
        replace(f, title="Use jax.sharding.reshard (with_sharding_constraint takes only Auto axes here)")
        for f in _fix_nc807(loc, d)
    ]


_LOOP_BODY = {"lax.scan": (0, "f"), "lax.fori_loop": (2, "body_fun"), "lax.while_loop": (1, "body_fun")}


def _resharded(loc: Located, node: cst.CSTNode, spec: str) -> Edit | None:
    """`reshard(<node>, P(...))` in place of the node, spelled with this module's imports."""
    reshard = loc.spelling("jax.sharding.reshard", "jax.reshard")
    p = loc.spelling("jax.sharding.PartitionSpec", "jax.P")
    if reshard is None or p is None:
        return None
    return _replace(loc, node, f"{reshard}({_code(loc, node)}, {p}{spec[1:]})")


def _fix_nc809(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC809: the loop body's carry output resharded back to the sharding the carry entered with (reshard
    moves data, never values: the loop computes the same). Safe for a loop in module code whose body is a
    lambda or a function this loop alone names; unsafe where another loop or call may pass other shardings.
    A carry of several items is left alone (`data` names the item, the body's return spells a tree)."""
    spec, op = _spec_text(d.data.get("spec")), d.data.get("op")
    node = next(iter(loc.nodes_at(d)), None)
    if spec is None or op not in _LOOP_BODY or d.data.get("carry_item") is not None or not isinstance(node, cst.Call):
        return []
    fn = _argument(node, *_LOOP_BODY[op])
    outs = _outputs(loc, fn)
    if not outs:
        return []
    carries: list[cst.BaseExpression] = []
    for out in outs:
        if op == "lax.scan":
            if not (
                isinstance(out, cst.Tuple)
                and len(out.elements) == 2
                and not any(isinstance(e, cst.StarredElement) for e in out.elements)
            ):
                return []
            out = out.elements[0].value
        if isinstance(out, cst.Tuple | cst.List | cst.Dict):
            return []
        carries.append(out)
    edits = [_resharded(loc, c, spec) for c in carries]
    if any(e is None for e in edits):
        return []
    alone = (
        isinstance(fn, cst.Lambda)
        or isinstance(fn, cst.Name)
        and len(re.findall(rf"\b{re.escape(fn.value)}\b", loc.source)) == 2
    )  # its def and this loop
    return [
        Fix(
            f"Reshard the body's carry output back to {spec}",
            alone and not _in_function(loc, node),
            tuple(e for e in edits if e is not None),
        )
    ]


def _fix_nc811(loc: Located, d: Diagnostic) -> list[Fix]:
    """NC811 on an annotated assignment or a return: the value resharded to the annotation's sharding (the
    same values). Safe in module code; in a function the value's sharding is that of the call analysed."""
    spec = _spec_text(d.data.get("spec"))
    node = next(iter(loc.nodes_at(d)), None)
    if spec is None or node is None or d.data.get("target") not in ("assignment", "return"):
        return []
    edit = _resharded(loc, node, spec)
    return (
        [Fix(f"Reshard the value to the annotation's {spec}", not _in_function(loc, node), (edit,))]
        if edit is not None
        else []
    )


def _in_function(loc: Located, node: cst.CSTNode) -> bool:
    n: cst.CSTNode | None = node
    while n is not None:
        if isinstance(n, cst.FunctionDef | cst.Lambda):
            return True
        n = loc.parent(n)
    return False


def _fix_nc002(loc: Located, d: Diagnostic) -> list[Fix]:
    """An unused suppression: its unused codes out of the comment, or the comment out when nothing else is
    left in it (the edit the analysis worked out, `data["edit"]`: start and end column, new text). Safe:
    only a comment changes."""
    edit = d.data.get("edit") if d.data else None
    if not (isinstance(edit, list) and len(edit) == 3 and all(isinstance(v, int) for v in edit[:2])):
        return []
    start, end, text = edit
    if not isinstance(text, str):
        return []
    codes = ", ".join(c for c in d.data.get("codes", []) if isinstance(c, str) and c) or "the suppression"
    return [Fix(f"Remove unused {codes}", True, (Edit(d.line, start, d.line, end, text),))]


_FIXERS: dict[str, Callable[[Located, Diagnostic], list[Fix]]] = {
    NC002: _fix_nc002,
    NC802: _fix_nc802,
    NC805: _fix_nc805,
    NC807: _fix_nc807,
    NC825: _fix_nc825,
    NC809: _fix_nc809,
    NC811: _fix_nc811,
    NC602: _fix_nc602,
    NC601: _fix_nc601,
    NC404: _fix_nc404,
    NC705: _fix_name,
    NC501: _fix_name,
}
FIXABLE = frozenset(_FIXERS)


# ---- applying fixes -----------------------------------------------------------------------------------


def apply_edits(source: str, edits: list[Edit]) -> str:
    """The source with non-overlapping edits applied (an edit overlapping an earlier one is skipped)."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def offset(line: int, column: int) -> int:
        return starts[min(line - 1, len(lines))] + column - 1

    spans = sorted(
        ((offset(e.line, e.column), offset(e.end_line, e.end_column), e.text) for e in edits),
        key=lambda t: (t[0], t[1]),
    )
    out, at = [], 0
    for a, b, text in spans:
        if a < at:
            continue
        out.append(source[at:a])
        out.append(text)
        at = b
    out.append(source[at:])
    return "".join(out)


def chosen_edits(diags: list[Diagnostic], unsafe: bool, codes: list[str] | None = None) -> tuple[list[Edit], int]:
    """The edits of the first applicable fix of each diagnostic (fixes whose edits overlap another chosen
    fix wait for the next round); how many diagnostics they fix (their codes appended to `codes`)."""
    edits: list[Edit] = []
    taken: list[tuple[tuple[int, int], tuple[int, int]]] = []
    imports: set[str] = set()
    n = 0
    for d in diags:
        fix = next((f for f in d.fixes if f.applies(unsafe)), None)
        if fix is None:
            continue
        spans = [((e.line, e.column), (e.end_line, e.end_column)) for e in fix.edits if e.text not in imports]
        if any(a < tb and ta < b or a == b == ta for a, b in spans for ta, tb in taken):
            continue
        for e in fix.edits:
            if e.line == e.end_line and e.column == e.end_column == 1 and e.text.startswith("from jax import"):
                if e.text in imports:
                    continue
                imports.add(e.text)
            edits.append(e)
        taken.extend(spans)
        n += 1
        if codes is not None:
            codes.append(d.code)
    return edits, n


# ---- the command line: check --fix / --unsafe-fixes ------------------------------------------------


def fixed_text(
    path: str, recheck: Callable[[str], list[Diagnostic]], unsafe: bool, rounds: int = 5, write: bool = False
) -> tuple[str | None, str | None, list[str]]:
    """(the text read, the text after the fixes, the codes fixed) of one file; the texts are None when the
    file cannot be read. `write`: the fixed text is written back (atomically, over the text read only)."""
    from namedcheck.analyzer.sources import read_bytes, write_regular

    try:  # the guarded reader (a file replaced by a FIFO or a device meanwhile is left alone)
        data = read_bytes(path, 64 * 1024 * 1024)
        first = source = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None, None, []
    codes: list[str] = []
    for _ in range(rounds):
        diags = recheck(source)
        done: list[str] = []
        edits, _n = chosen_edits(diags, unsafe, done)
        if not edits:
            break
        new = apply_edits(source, edits)
        try:
            parse_checked(new)
        except Exception:  # never write a file that no longer parses (or that the guard refuses)
            break
        if write:
            try:  # atomically, and only over the text read (an editor's save meanwhile is kept)
                write_regular(path, new.encode("utf-8"), expected=data)
            except OSError:
                break
            data = new.encode("utf-8")
        source = new
        codes.extend(done)
    return first, source, codes
