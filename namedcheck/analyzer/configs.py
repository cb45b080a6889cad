"""Configuration a program builds at run time, as values: `ml_collections.ConfigDict` and attribute bags
(`types.SimpleNamespace`, `argparse.Namespace`) with the fields code sets on them, argparse parsers and absl
flags with their defaults.

A flag's or a command-line option's default is what the program uses only when nothing on the command line
changes it: it is a known value only in analyses reached from the program's entry point (`Frame.entry`: the
`if __name__ == "__main__":` block, `app.run(main)`, and what they call). Analysed on its own, a library
function reading `FLAGS.batch_size` sees an unknown size (a symbol named after it).

A `ConfigDict` is mutable and may be shared. Its value (`ConfigVal`) carries a token naming the object; an
assignment `config.model.width = 64` rebinds the local variable to the updated value and forgets the object
in every other variable that holds it (an alias), and an object the function did not make itself (a
parameter's, a global's) is forgotten everywhere (`memo.RUN.configs` for the checked file's run,
`ProgramState.mutated` when a module's body does it as it loads): callers' copies would be stale.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from namedcheck.analyzer.memo import RUN
from namedcheck.analyzer.parsing import child_nodes
from namedcheck.analyzer.refs import QualRef
from namedcheck.analyzer.scope import FrameState
from namedcheck.engine.names import canonical_name
from namedcheck.engine.values import UNKNOWN, Const, Seq

_TOKENS = itertools.count(1)

CONFIG_CONSTRUCTORS = {
    "ml_collections.ConfigDict",
    "ml_collections.FrozenConfigDict",
    "ml_collections.config_dict.ConfigDict",
    "ml_collections.config_dict.FrozenConfigDict",
    "ml_collections.config_dict.create",
    "ml_collections.config_dict.config_dict.ConfigDict",
    "ml_collections.config_dict.config_dict.FrozenConfigDict",
    "types.SimpleNamespace",
    "argparse.Namespace",
    "easydict.EasyDict",
}
_PARSERS = {"argparse.ArgumentParser"}
_ABSL_DEFINES = {
    "absl.flags.DEFINE_integer",
    "absl.flags.DEFINE_float",
    "absl.flags.DEFINE_string",
    "absl.flags.DEFINE_bool",
    "absl.flags.DEFINE_boolean",
    "absl.flags.DEFINE_enum",
    "absl.flags.DEFINE_list",
}
FLAGS_OBJECTS = {"absl.flags.FLAGS"}
# methods of a ConfigDict that return it (or None) without changing it
_KEEPING = {"lock", "unlock", "copy_and_resolve_references", "unlocked", "ignore_type"}
_TYPES = {"builtins.int": int, "builtins.float": float, "builtins.str": str}


@dataclass(frozen=True, slots=True)
class ConfigVal:
    """A config object: the fields set on it so far (a field not listed is not known). `token` names the object
    (two values with one token are the same object)."""

    token: int
    fields: tuple[tuple[str, Any], ...] = ()
    complete: bool = True  # every field the object has is listed (`config.get(k, default)` may use the default)

    def get(self, name: str) -> Any:
        for k, v in self.fields:
            if k == name:
                return v
        return UNKNOWN

    def with_field(self, name: str, value: Any) -> ConfigVal:
        kept = tuple((k, v) for k, v in self.fields if k != name)
        return ConfigVal(self.token, (*kept, (name, value)), self.complete)

    def join_with(self, other: object) -> Any:
        """Branches that set different fields: the fields they agree on (engine `join` calls this)."""
        from namedcheck.engine.values import join

        if not isinstance(other, ConfigVal) or other.token != self.token:
            return UNKNOWN
        mine, theirs = dict(self.fields), dict(other.fields)
        kept = tuple((k, join([v, theirs[k]])) for k, v in mine.items() if k in theirs)
        return ConfigVal(self.token, kept, self.complete and other.complete and mine.keys() == theirs.keys())


@dataclass(frozen=True, slots=True)
class ConfigMethod:
    """`config.get`, `config.update`, ...: a method of a config object."""

    config: ConfigVal
    name: str


@dataclass(eq=False, slots=True)
class ParserVal:
    """An `argparse.ArgumentParser` (or one of its argument groups): each option's destination and default."""

    options: dict[str, Any] = field(default_factory=dict)
    written: dict[str, cst.CSTNode] = field(default_factory=dict)  # each option's `add_argument` call


@dataclass(frozen=True, slots=True)
class ParserMethod:
    parser: ParserVal
    name: str


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A config flag's default config file (`config_flags.DEFINE_config_file`): the module whose `get_config()`
    the flag holds when the command line names no other."""

    module: str


@dataclass(frozen=True, slots=True)
class FlagsVal:
    """absl's `flags.FLAGS`; `name` set: one flag's holder (`flags.DEFINE_integer(...)` returns one)."""

    name: str | None = None


@dataclass(frozen=True, slots=True)
class Setting:
    """A size a setting gave: where it was set, the note that says so, and its value."""

    site: cst.CSTNode
    note: str
    value: int


class ProgramState:
    """What one program's analysis shares across its modules: absl flag defaults, and the config objects
    mutated where their holders' copies cannot follow."""

    def __init__(self) -> None:
        self.flags: dict[str, Any] = {}
        self.mutated: set[int] = set()
        # where each setting was written: (config token, field) / flag name -> the node that set it
        self.set_at: dict[Any, cst.CSTNode] = {}
        # expression nodes that read settings (`config.d`, a name computed from some) -> the settings read
        self.read_at: dict[int, tuple[Setting, ...]] = {}
        # built instances (dataclass configs): id -> (the instance, field -> the argument that set it)
        self.built: dict[int, tuple[Any, dict[str, cst.CSTNode]]] = {}
        # `**config` arguments: the expression node -> the config it spread
        self.spread: dict[int, Any] = {}


def program_of(f: FrameState) -> ProgramState:
    state = getattr(f.an, "program", None)
    if state is None:
        state = ProgramState()
        f.an.program = state
    return state


# ---- building --------------------------------------------------------------------------------------------
def construct(f: FrameState, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """A call of a config / parser / flag constructor; NotImplemented for other names."""
    if name in CONFIG_CONSTRUCTORS:
        made = from_mapping(pos[0] if pos else None, kw)
        for arg in node.args if isinstance(node, cst.Call) else ():
            if arg.keyword is not None:  # `config_dict.create(D=96, H=9)`: each field set at its argument
                program_of(f).set_at[(made.token, arg.keyword.value)] = arg
        return made
    if name in _PARSERS:
        return ParserVal()
    if name in ("ml_collections.config_flags.DEFINE_config_file", "ml_collections.config_flags.DEFINE_config_dict"):
        flag = _const_str(pos[0] if pos else kw.get("name"))
        given = pos[1] if len(pos) > 1 else kw.get("default" if name.endswith("file") else "config", Const(None))
        if flag is not None:
            _define(f, flag, _config_file(f, given) if name.endswith("file") else given)
            program_of(f).set_at[flag] = node
        return FlagsVal(flag)
    if name in _ABSL_DEFINES:
        flag = _const_str(pos[0] if pos else kw.get("name"))
        if flag is None:
            return UNKNOWN
        default = pos[1] if len(pos) > 1 else kw.get("default", UNKNOWN)
        _define(f, flag, _plain_default(default))
        program_of(f).set_at[flag] = node
        return FlagsVal(flag)
    return NotImplemented


def _define(f: FrameState, flag: str, default: Any) -> None:
    """A flag defined: by a project module's body as it loads, for every run of the program (it loads once);
    by the checked file's own code, for its run only (`memo.RUN`: another script may define the same name)."""
    if RUN.loading:
        program_of(f).flags[flag] = default
    else:
        RUN.change(f.an.log, "flag", (flag, default))


def flag_default(f: FrameState, name: str) -> Any:
    """A flag's default in this run (the checked file's own definition first)."""
    if name in RUN.flags:
        return RUN.flags[name]
    return program_of(f).flags.get(name, UNKNOWN)


def is_mutated(f: FrameState, token: int) -> bool:
    """Whether a config object was changed where its holders' copies cannot follow (in this run, or by a
    module's body as it loaded)."""
    return token in RUN.configs or token in program_of(f).mutated


def from_mapping(source: Any, kw: dict[str, Any]) -> ConfigVal:
    """`ConfigDict({...})`, `SimpleNamespace(a=1)`, `ConfigDict(other)`: nested dicts become configs."""
    fields: dict[str, Any] = {}
    complete = source is None
    if isinstance(source, ConfigVal):
        fields.update(source.fields)
        complete = source.complete
    elif isinstance(source, Seq) and source.kind == "dict":
        complete = True
        for pair in source.items:
            key = pair.items[0] if isinstance(pair, Seq) and len(pair.items) == 2 else None
            if isinstance(key, Const) and isinstance(key.value, str):
                fields[key.value] = _nested(pair.items[1])
            else:
                complete = False
    fields.update({k: _nested(v) for k, v in kw.items()})
    return ConfigVal(next(_TOKENS), tuple(fields.items()), complete)


def _nested(v: Any) -> Any:
    return from_mapping(v, {}) if isinstance(v, Seq) and v.kind == "dict" else v


def _config_file(f: FrameState, default: Any) -> Any:
    """The config module a config flag loads by default (`imports.config_file`), as a `ConfigFile`."""
    from pathlib import Path

    from namedcheck.analyzer.imports import config_file

    path = getattr(f.an, "path", None) or getattr(f.an, "file", None)
    project = getattr(f.an, "project", None)
    literal = _const_str(default)
    if (
        path is None
        or project is None
        or (literal is None and not (isinstance(default, Const) and default.value is None))
    ):
        return UNKNOWN
    found = config_file(Path(path), literal)
    named = project.index.module_name(found) if found is not None else None
    return ConfigFile(named[0]) if named is not None else UNKNOWN


def _load_config(f: FrameState, config: ConfigFile, node: cst.CSTNode | None) -> Any:
    project = getattr(f.an, "project", None)
    factory = project.resolve(f"{config.module}.get_config") if project is not None else None
    if factory is None or node is None:
        return UNKNOWN
    return f.call_value(factory, [], {}, [], {}, node)


def _const_str(v: Any) -> str | None:
    return v.value if isinstance(v, Const) and isinstance(v.value, str) else None


def _plain_default(v: Any) -> Any:
    return v if isinstance(v, Const) else (v if isinstance(v, Seq) else UNKNOWN)


# ---- reading ---------------------------------------------------------------------------------------------
def attribute(f: FrameState, recv: Any, attr: str, node: cst.CSTNode | None = None) -> Any:
    """`config.width`, `config.get`, `FLAGS.batch_size`, `parser.add_argument`; NotImplemented otherwise.
    A setting read at `node` remembers where it was set (`relate_settings`)."""
    program = program_of(f)
    if isinstance(recv, ConfigVal):
        if attr in ("get", "update", "to_dict", *_KEEPING):
            return ConfigMethod(recv, attr)
        if is_mutated(f, recv.token):
            return UNKNOWN
        value = recv.get(attr)
        _note_read(program, node, program.set_at.get((recv.token, attr)), value)
        return value
    if isinstance(recv, QualRef) and canonical_name(recv.name) in FLAGS_OBJECTS:
        recv = FlagsVal()  # `FLAGS.batch_size`
    if isinstance(recv, FlagsVal):
        name = recv.name if recv.name is not None else attr
        if (recv.name is not None and attr != "value") or not f.entry:
            return UNKNOWN  # not reached from the entry point: a command line may set the flag
        value = flag_default(f, name)
        if isinstance(value, ConfigFile):  # `FLAGS.config`: the default config file's `get_config()`
            return _load_config(f, value, node)
        _note_read(program, node, program.set_at.get(name), value, f"the default of flag `{name}`")
        return value
    if isinstance(recv, ParserVal) and attr in ("add_argument", "add_argument_group", "parse_args", "parse_known_args"):
        return ParserMethod(recv, attr)
    return NotImplemented


def note_instance(f: FrameState, inst: Any, node: cst.CSTNode, nodes: list[Any], base: Any = None) -> None:
    """`Config(d_model=64)`, `dataclasses.replace(base, d_model=64)`: where each field of a built instance was
    given (for `relate_settings`)."""
    order = inst.cls.order
    program = program_of(f)
    before = program.built.get(id(base)) if base is not None else None
    given: dict[str, cst.CSTNode] = dict(before[1]) if before is not None and before[0] is base else {}
    given.update({order[i]: n for i, n in enumerate(nodes) if i < len(order) and n is not None})
    for arg in node.args if isinstance(node, cst.Call) else ():
        if arg.keyword is not None:
            given[arg.keyword.value] = arg
        elif arg.star == "**" and isinstance(spread := program.spread.get(id(arg.value)), ConfigVal):
            for field_name, _ in spread.fields:  # `DoConfig(**c.model)`: where the config set each field
                site = program.set_at.get((spread.token, field_name))
                if site is not None:
                    given.setdefault(field_name, site)
    program.built[id(inst)] = (inst, given)


def note_field(f: FrameState, inst: Any, attr: str, node: cst.CSTNode, value: Any) -> None:
    """`config.d_model` read from a built instance: remember where that value was written."""
    program = program_of(f)
    built = program.built.get(id(inst))
    given = built[1] if built is not None and built[0] is inst else {}  # else the class body's default
    _note_read(program, node, given[attr] if attr in given else inst.cls.written.get(attr), value)


def _note_read(
    program: ProgramState, node: cst.CSTNode | None, site: cst.CSTNode | None, value: Any, what: str | None = None
) -> None:
    if node is None:
        return
    if site is None or not isinstance(value, Const) or not isinstance(value.value, int):
        program.read_at.pop(id(node), None)  # (what an earlier analysis of the node read is not read here)
        return
    shown = what or (f"`{_text(node)}`" if _text(node) else "the setting")
    program.read_at[id(node)] = (Setting(site, f"{shown} is {value.value}, set here", value.value),)


def _text(node: cst.CSTNode) -> str | None:
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.insert(0, node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    return ".".join([node.value, *parts])


def reads_in(f: Any, *nodes: cst.CSTNode | None) -> tuple[Setting, ...]:
    """The settings expressions read (`config.d // heads`, a name computed from settings)."""
    read_at = program_of(f).read_at
    if not read_at:
        return ()
    out: dict[tuple[int, str], Setting] = {}
    todo = [n for n in nodes if n is not None]
    while todo:
        n = todo.pop()
        for setting in read_at.get(id(n), ()):
            out[(id(setting.site), setting.note)] = setting
        todo.extend(child_nodes(n))
    return tuple(out.values())


def bound(f: Any, name: str, value_node: cst.BaseExpression) -> None:
    """`d = config.d_model`, `steps = n // config.batch`: reads of `d` in this scope read those settings (for the
    notes of `relate_settings`)."""
    reads = reads_in(f, value_node)
    if reads:
        f.setting_names[name] = reads
    else:
        f.setting_names.pop(name, None)


def name_read(f: Any, node: cst.Name) -> None:
    """A name bound to settings read at `node` (see `bound`; a parameter given one, `passed_settings`)."""
    frame = f
    while frame is not None and node.value not in frame.vars:  # the scope the name is bound in (a closure's)
        frame = frame.parent
    reads = frame.setting_names.get(node.value) if frame is not None and frame.setting_names else None
    if reads:
        program_of(f).read_at[id(node)] = reads


def arguments_of(names: list[str], nodes: list[Any], call: cst.CSTNode) -> dict[str, cst.CSTNode]:
    """Each parameter of a call -> the argument expression given for it (positional or keyword)."""
    out = {name: arg for name, arg in zip(names, nodes) if arg is not None}
    for arg in call.args if isinstance(call, cst.Call) else ():
        if arg.keyword is not None:
            out[arg.keyword.value] = arg.value
    return out


def given_argument(f: Any, node: cst.CSTNode) -> bool:
    """`node` is a parameter still holding the argument the call site gave it."""
    return isinstance(node, cst.Name) and node.value in f.arguments and node.value not in f.rebound


def relate_argument(f: Any, err: Any, node: cst.CSTNode) -> None:
    """A value read through a parameter (`cfg.width` with `cfg` a parameter): the argument the call gave it."""
    if isinstance(node, cst.Name) and node.value in f.arguments and node.value not in f.rebound:
        err.relate(f.arguments[node.value], f"`{node.value}` is given this argument here")


def passed_settings(f: Any, names: list[str], nodes: list[Any], call: cst.CSTNode) -> dict[str, Any]:
    """The settings each parameter of a call is given (`train(cfg.batch_size)`): the callee's reads of it read
    them too."""
    if not program_of(f).read_at:
        return {}
    out: dict[str, Any] = {}
    for name, arg in zip(names, nodes):
        if arg is not None and (reads := reads_in(f, arg)):
            out[name] = reads
    for arg in call.args if isinstance(call, cst.Call) else ():
        if arg.keyword is not None and (reads := reads_in(f, arg.value)):
            out[arg.keyword.value] = reads
    return out


def relate_settings(f: FrameState, err: Any, roots: list[cst.CSTNode], every: bool = False) -> None:
    """`config.d_model` is 512, set here: the settings read in the expressions that made a failing op's
    operands (and in the op itself), as related locations of its error."""
    mentioned = set(re.findall(r"\d+", str(getattr(err, "message", ""))))  # settings the sizes shown can't be: out
    for setting in reads_in(f, *roots):
        if every or str(setting.value) in mentioned:
            err.relate(setting.site, setting.note)


def mapping_items(f: FrameState, v: Any, node: cst.CSTNode | None = None) -> dict[str, Any] | None:
    """What `**v` (written at `node`) passes: every key of a config whose fields are all known, or of a dict
    with string keys (None when some key is not known)."""
    if isinstance(v, ConfigVal):
        if not v.complete or is_mutated(f, v.token):
            return None
        if node is not None:
            program_of(f).spread[id(node)] = v
        return dict(v.fields)
    if isinstance(v, Seq) and v.kind == "dict":
        out: dict[str, Any] = {}
        for pair in v.items:
            key = pair.items[0] if isinstance(pair, Seq) and len(pair.items) == 2 else None
            if not (isinstance(key, Const) and isinstance(key.value, str)):
                return None
            out[key.value] = pair.items[1]
        return out
    return None


def item(f: FrameState, recv: Any, key: Any) -> Any:
    """`config['width']`; NotImplemented when `recv` is not a config."""
    if not isinstance(recv, ConfigVal):
        return NotImplemented
    if not (isinstance(key, Const) and isinstance(key.value, str)) or is_mutated(f, recv.token):
        return UNKNOWN
    return recv.get(key.value)


def call_method(f: FrameState, method: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """A config's or a parser's method called; NotImplemented for other values."""
    if isinstance(method, ConfigMethod):
        cfg = method.config
        if method.name == "get":
            key = _const_str(pos[0]) if pos else None
            if key is None or is_mutated(f, cfg.token):
                return UNKNOWN
            if key in dict(cfg.fields) or not cfg.complete:
                return cfg.get(key)
            return pos[1] if len(pos) > 1 else kw.get("default", Const(None))
        if method.name == "update":  # changes the object: what it holds is no longer known here
            _forget(f, cfg.token)
            return Const(None)
        if method.name in ("copy_and_resolve_references", "unlocked", "ignore_type"):
            return cfg
        return Const(None) if method.name in ("lock", "unlock") else UNKNOWN
    if isinstance(method, ParserMethod):
        parser = method.parser
        if method.name == "add_argument_group":
            return ParserMethod(parser, "group")
        if method.name == "add_argument":
            dest = _add_option(parser, pos, kw)
            if dest is not None:
                parser.written[dest] = node
            return UNKNOWN
        ns = ConfigVal(next(_TOKENS), tuple(parser.options.items()) if f.entry else (), complete=False)
        for dest, written in parser.written.items():
            program_of(f).set_at[(ns.token, dest)] = written
        return ns if method.name == "parse_args" else Seq((ns, UNKNOWN), "tuple")
    return NotImplemented


def _add_option(parser: ParserVal, pos: list[Any], kw: dict[str, Any]) -> str | None:
    """Record one option's default; its destination (None: not known)."""
    names = [s for p in pos if (s := _const_str(p)) is not None]
    dest = _const_str(kw.get("dest"))
    if dest is None:
        longs = [n for n in names if n.startswith("--")]
        chosen = longs[0] if longs else (names[0] if names else None)
        if chosen is None:
            return None
        dest = chosen.lstrip("-").replace("-", "_")
    if names and not names[0].startswith("-"):  # a positional argument: given on every command line
        parser.options[dest] = UNKNOWN
        return dest
    action = _const_str(kw.get("action"))
    if action in ("store_true", "store_false"):
        default: Any = kw.get("default", Const(action == "store_false"))
    else:
        default = kw.get("default", Const(None))
    kind = kw.get("type")
    convert = _TYPES.get(getattr(kind, "name", "")) if kind is not None else None
    if convert is not None and isinstance(default, Const) and isinstance(default.value, str):
        try:
            default = Const(convert(default.value))
        except ValueError:
            default = UNKNOWN
    parser.options[dest] = _plain_default(default)
    return dest


# ---- mutation --------------------------------------------------------------------------------------------
def assign_field(f: Any, target: cst.Attribute, value: Any) -> bool:
    """`config.model.width = 64`: the config held in a local variable updated; True when handled."""
    path: list[str] = [target.attr.value]
    base: cst.BaseExpression = target.value
    while isinstance(base, cst.Attribute):
        path.insert(0, base.attr.value)
        base = base.value
    if not isinstance(base, cst.Name):
        return False
    root = f.lookup(base.value)
    if not isinstance(root, ConfigVal):
        return False
    owner = _owned_config(root, path[:-1])
    if owner is None:  # an intermediate field is not a known config: nothing known there changes
        return True
    program_of(f).set_at[(owner.token, path[-1])] = target
    local = base.value in f.vars and owner.token not in getattr(f, "param_tokens", ())
    _forget(f, owner.token, keep=base.value if local else None)
    if local:
        f.vars[base.value] = _updated(root, path, value)
    return True


def _owned_config(root: ConfigVal, path: list[str]) -> ConfigVal | None:
    cur: Any = root
    for name in path:
        cur = cur.get(name) if isinstance(cur, ConfigVal) else None
    return cur if isinstance(cur, ConfigVal) else None


def _updated(cfg: ConfigVal, path: list[str], value: Any) -> ConfigVal:
    if len(path) == 1:
        return cfg.with_field(path[0], value)
    inner = cfg.get(path[0])
    assert isinstance(inner, ConfigVal)  # _owned_config found the path
    return cfg.with_field(path[0], _updated(inner, path[1:], value))


def _forget(f: Any, token: int, keep: str | None = None) -> None:
    """The config object `token` changed: forgotten in every variable that holds it other than `keep`, and
    (when no local variable is updated) in every copy the analysis holds elsewhere."""
    if keep is None:
        if RUN.loading:  # a module's body as it loads: for every run
            program_of(f).mutated.add(token)
        else:
            RUN.change(f.an.log, "config", token)
        return
    frame = f
    while frame is not None:
        for k, v in list(frame.vars.items()):
            if k != keep and token in tokens_of([v]):
                frame.vars[k] = _without(v, token)
        frame = frame.parent


def _without(v: Any, token: int) -> Any:
    if isinstance(v, ConfigVal):
        if v.token == token:
            return UNKNOWN
        return ConfigVal(v.token, tuple((k, _without(x, token)) for k, x in v.fields))
    if isinstance(v, Seq):
        return Seq(tuple(_without(x, token) for x in v.items), v.kind)
    return v


def tokens_of(values: Any) -> set[int]:
    """The config objects reachable from these values (a function's parameters: objects it did not make)."""
    out: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, ConfigVal):
            out.add(v.token)
            stack.extend(x for _, x in v.fields)
        elif isinstance(v, Seq):
            stack.extend(v.items)
    return out


__all__ = [
    "ConfigMethod",
    "ConfigVal",
    "FlagsVal",
    "ParserMethod",
    "ParserVal",
    "ProgramState",
    "Setting",
    "assign_field",
    "attribute",
    "call_method",
    "construct",
    "from_mapping",
    "note_field",
    "note_instance",
    "bound",
    "arguments_of",
    "given_argument",
    "passed_settings",
    "relate_argument",
    "reads_in",
    "item",
    "mapping_items",
    "name_read",
    "relate_settings",
    "tokens_of",
]
