"""The resource guard: per-file bounds on what parsing and analysis may cost.

Before any parser sees a file, a linear pre-scan of its tokens (`scan`) estimates how deep each statement's
syntax tree nests and how much parsing the file costs: a chain or nesting past `MAX_CHAIN` (libcst's native
parser takes time quadratic in the depth and crashes the process past a few thousand levels; CPython's
raises RecursionError), more joined strings, blocks or `elif`s than the parsers take, or a parse predicted
to take past the file's time or memory budget are NC001 for a checked file (Unknown for a dependency).
Then CPython's own parser (C, milliseconds) checks it: a NUL byte, nesting Python rejects, an invalid
escape and an expression nested deeper than `MAX_NESTING` are NC001; other syntax errors are libcst's to
report (at CPython's location when libcst fails too). Every parse goes through `analyzer/parsing.py`. During the
analysis, a file gets a time budget and the process a memory budget; past either, the analysis of the
file stops: what it found is kept, what is not analysed stays Unknown, and one NC001 says the file was cut
short (`stopped_note`). The analyzer calls `Guard.checkpoint` in every loop whose trip count comes from the
program; `interrupting` backstops them with a timer.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

MAX_NESTING = 200  # CPython's own limit on nested brackets; real code stays under 50
MAX_CHAIN = 500  # the pre-scan's depth estimate of one statement (libcst: up to 0.25 s at 500, crashes past 7,000)
MAX_BLOCKS = 100  # nested blocks (CPython's own limit on indentation levels)
MAX_ELIF = 1000  # `elif`s of one `if` (each nests the next in CPython's tree and in libcst's)
MAX_FSTRINGS = 25  # same-quote nested f-strings (3.12), one per two levels; libcst: 0.1 s at 50 levels, 3 s at 300
MAX_JOINED = 3000  # adjacent string literals in one expression: libcst's parser rejects more
# libcst's parse cost, measured on jax, flax and generated chains (on a loaded 2-core machine, so generous):
# texts shorter than this are never refused for their parse cost (under 8,000 tokens and a few statements of the
# deepest chains `refused` lets through: well under 5 s and 100 MB), so the editor skips the scan for them
PARSE_COST_CHARS = 8_000
PARSE_TOKENS_PER_SECOND = 20_000  # 18k-50k on real files
PARSE_SECONDS_PER_DEPTH2 = 1e-6  # a statement nesting d levels adds up to d * d microseconds (subscripts)
PARSE_KB_PER_TOKEN = 3.0  # peak memory of libcst's tree: 2.3-3.0 KB per token on real files
DEFAULT_TIME_BUDGET = 10.0  # CPU seconds of analysis per file (`clock`)
DEFAULT_MEMORY_BUDGET = 1024  # MB of resident memory one file's analysis may add to the process
DEFAULT_MAX_FILE_SIZE = 5  # MB read per file
_TOO_DEEP = re.compile(r"nested|too many|too deeply|too complex")  # CPython's errors about nesting
_MEMORY_EVERY = 256  # checkpoints between two reads of the resident set size


@dataclass(frozen=True)
class Limits:
    """Per-file bounds; `[tool.namedcheck]` time-budget, memory-budget and max-file-size set them."""

    time_budget: float = DEFAULT_TIME_BUDGET
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    max_file_size: int = DEFAULT_MAX_FILE_SIZE


_CPU_CLOCK = hasattr(time, "pthread_getcpuclockid") and hasattr(time, "clock_gettime")
WALL_FACTOR = 3.0  # a file's analysis stops past this many times its budget in real time, CPU time left or not


def clock() -> float:
    """The time budgets' clock: the CPU seconds the calling thread has run (where the platform has a clock per
    thread; else real time). A file's budget counts its own work, not the other processes of a loaded machine
    (on a busy 2-core machine real time ran 2-3 times the CPU time, and files cut short varied from run to
    run), nor another thread of the same process (an editor's)."""
    return time.thread_time() if _CPU_CLOCK else time.monotonic()


def thread_clock(ident: int) -> Any:
    """`clock` of the thread `ident` read from another thread (the timer of `interrupting`)."""
    if _CPU_CLOCK:
        try:
            clk = time.pthread_getcpuclockid(ident)
            return lambda: time.clock_gettime(clk)
        except (OSError, OverflowError):
            pass
    return time.monotonic


class BudgetExceeded(BaseException):  # noqa: N818  (not an Exception: rule code never swallows it)
    """The file's analysis ran past its time or memory budget."""


class CallCut(BaseException):  # noqa: N818  (not an Exception: rule code never swallows it)
    """A followed call ran past its share of the file's time budget: its result is unknown, the file goes on."""


CALL_SHARE = 0.5  # of the file's remaining time, what one outermost followed call may use


class Guard:
    """Checkpoints for one file's analysis: raise `BudgetExceeded` past the deadline or the memory bound."""

    def __init__(self, limits: Limits, deadline: float | None = None) -> None:
        self.limits = limits  # (a dependency's parse is bounded by them too: Project.parse)
        # `deadline`: one file's analyses share it (a file checked under several device counts)
        self.deadline = clock() + limits.time_budget if deadline is None else deadline  # on `clock`
        # and in real time, a bound however loaded the machine is (`WALL_FACTOR` times the budget)
        self.wall_deadline = time.monotonic() + WALL_FACTOR * limits.time_budget
        # the memory one file's analysis may add to the process (a process that already holds jax, an editor's
        # or a test runner's state, is not charged to the file)
        self.memory_pages = resident_pages() + limits.memory_budget * 1024 * 1024 // _PAGE
        self.count = 0
        # followed calls nested now, across every module the file's analysis enters (each module's analyzer
        # counts only its own), and the deadline of the outermost one (`CallCut` past it)
        self.call_depth = 0
        self.call_deadline: float | None = None
        # the followed calls now, the outermost first (each its caller's analyzer and the call node): where the
        # values the calls give other modules' names come from (`namedcheck types`' `via` and its `path`)
        self.call_root: tuple[tuple[Any, Any], ...] | None = None

    def checkpoint(self) -> None:
        now = clock()
        if now > self.deadline or time.monotonic() > self.wall_deadline:
            raise BudgetExceeded("time")
        if self.call_deadline is not None and now > self.call_deadline:
            raise CallCut
        self.count += 1
        if self.count % _MEMORY_EVERY == 0 and resident_pages() >= self.memory_pages:
            raise BudgetExceeded("memory")

    def call_share(self) -> float:
        """The deadline of an outermost followed call: a share of the time left, so the rest of the file is
        still checked when a call (a cycle of modules, a deep call tree) uses up its share."""
        now = clock()
        return now + max(0.0, self.deadline - now) * CALL_SHARE


ALARM_GRACE = 0.5  # seconds past the deadline before the timer stops work no checkpoint reached


def _left(guard: Guard, cpu: Any) -> float:
    """Seconds until the timer of `interrupting` stops the work: the CPU time left to the budget and its grace,
    or the real time left to the wall bound, whichever ends first (`cpu`: the analysing thread's `clock`)."""
    return min(guard.deadline + ALARM_GRACE - cpu(), guard.wall_deadline + ALARM_GRACE - time.monotonic())


class TimeUp(BudgetExceeded):
    """`BudgetExceeded("time")` raised in a thread by the timer of `interrupting` (raised from its type alone)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(args or ("time",)))


@contextmanager
def interrupting(guard: Guard | None) -> Iterator[None]:
    """Backstop for the checkpoints: while the block runs, a timer raises `BudgetExceeded("time")`
    `ALARM_GRACE` seconds past the guard's deadline, wherever the analysis is (a comparison of two huge shared
    trees, a fold no checkpoint sees). In the main thread it is the real-time timer (SIGALRM) when no one else
    holds it; in another thread (a language server's analysis thread) a timer thread raises the exception in it
    (`PyThreadState_SetAsyncExc`). Either is seen between two bytecodes, as a signal handler is: a long call
    into C (a regex, a parser) ends first."""
    if guard is None:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        with _thread_timer(guard):
            yield
        return
    usable = (
        hasattr(signal, "setitimer")
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )
    if not usable:
        yield
        return

    def left() -> float:
        return _left(guard, clock)

    def stop(signum: int, frame: object) -> None:
        rest = left()
        if rest > 0:  # the CPU clock runs slower than real time: not yet spent, armed again for what is left
            signal.setitimer(signal.ITIMER_REAL, rest)
            return
        raise BudgetExceeded("time")

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(left(), 0.001))
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _thread_timer(guard: Guard) -> Iterator[None]:
    """`interrupting` in a thread other than the main one: `TimeUp` raised in it past the deadline and the grace
    while it is inside the block; one raised but not yet seen when the block ends is withdrawn."""
    import ctypes

    ident = threading.get_ident()
    now = thread_clock(ident)
    lock = threading.Lock()
    state = {"inside": True, "fired": False}
    done = threading.Event()

    def watch() -> None:
        # the thread's CPU clock runs slower than real time: wait for what is left of it, read it, again
        while not done.wait(max(_left(guard, now), 0.001)):
            if _left(guard, now) <= 0:
                break
        with lock:
            if state["inside"] and not done.is_set():
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(TimeUp))

    timer = threading.Thread(target=watch, name="namedcheck-budget", daemon=True)
    timer.start()
    try:
        yield
    finally:
        done.set()
        with lock:
            state["inside"] = False
            if state["fired"]:  # (a no-op when it was raised already)
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)


QUIET_DEFAULT_BUDGETS = "NAMEDCHECK_QUIET_DEFAULT_BUDGETS"  # set by the test suite (tests/conftest.py)


def budget_note_shown(reason: str, limits: Limits) -> bool:
    """Whether a file cut short by its `reason` budget gets the NC001 that says so: always, except where
    `NAMEDCHECK_QUIET_DEFAULT_BUDGETS` is set (the test suite) and that budget is the default one (on a slow
    machine a test's file may pass 10 s; tests that check the note set a small budget explicitly)."""
    if not os.environ.get(QUIET_DEFAULT_BUDGETS):
        return True
    default = Limits()
    if reason == "time":
        return limits.time_budget != default.time_budget
    return limits.memory_budget != default.memory_budget


def stopped_note(reason: str, limits: Limits) -> tuple[str, str]:
    """The message and hint of the NC001 a file cut short by its budget gets (what it found before is kept)."""
    if reason == "memory":
        spent, setting = f"its analysis took more than {limits.memory_budget} MB (memory-budget)", "memory-budget"
    else:
        spent, setting = f"its analysis ran past {limits.time_budget:g} s (time-budget)", "time-budget"
    return (
        f"File is only partly checked: {spent}; what was found before is reported, the rest of the file is unchecked",
        f"raise {setting} in [tool.namedcheck] of pyproject.toml, or split the file",
    )


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_pages() -> int:
    """The process's resident set size in pages (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def resident_mb() -> float:
    """The process's resident set size in MB (0 where /proc is not available)."""
    return resident_pages() * _PAGE / 2**20


_LAST_ACCEPTED: list[str] = []  # the last source CPython's parser accepted within limits (`cpython_accepted`)
_LAST_TREE: list[ast.Module] = []  # its `ast` tree
_LAST_ERROR: list[tuple[str, SyntaxError]] = []  # the last text CPython rejected with a plain syntax error
_ANY_VERSION = re.compile(r"\((?:value|unicode) error\)")  # an invalid escape: no Python version accepts it


def accepted_tree(source: str) -> ast.Module | None:
    """The `ast` tree of `source` when it is the text the last `python_rejects` call accepted (no second parse)."""
    return _LAST_TREE[0] if _LAST_TREE and cpython_accepted(source) else None


def cpython_accepted(source: str) -> bool:
    """Whether `source` is the text the last `python_rejects` call saw CPython's parser accept (valid Python
    of the running version, within the nesting limit): libcst may then skip validating its nodes."""
    return bool(_LAST_ACCEPTED) and _LAST_ACCEPTED[0] is source


def python_rejects(source: str, limits: Limits | None = None) -> tuple[int, int, str] | None:
    """(line, column, message) when `source` must not reach a parser: it holds a NUL byte, the pre-scan
    (`refused`) finds a chain, nesting or size past namedcheck's limits, CPython's parser finds it nests too
    deeply or holds an invalid escape, or its tree nests deeper than `MAX_NESTING`. Other syntax errors are
    left to libcst (which reads syntax newer than the running Python; `cpython_error` then has CPython's
    own location and message)."""
    _LAST_ACCEPTED.clear()
    _LAST_TREE.clear()
    _LAST_ERROR.clear()
    nul = source.find("\0")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        return line, nul - source.rfind("\n", 0, nul), "File does not parse: it contains a NUL byte (\\x00)"
    pre = refused(source, limits)
    if pre is not None:
        return pre
    try:
        with warnings.catch_warnings():  # invalid escape sequences and the like: not ours to report
            warnings.simplefilter("ignore")
            tree = cast(ast.Module, compile(source, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True))
    except SyntaxError as e:
        msg = e.msg or ""
        if _TOO_DEEP.search(msg) or _ANY_VERSION.match(msg):  # (an escape no Python version accepts)
            return e.lineno or 1, max(1, e.offset or 1), f"File does not parse: {msg}"
        _LAST_ERROR.append((source, e))
        return None  # libcst decides (and says where): it also knows syntax newer than this Python's
    except (RecursionError, MemoryError):
        line = _longest_line(source)
        return line, 1, "File does not parse: it nests too deeply for Python's own parser (the longest line)"
    except ValueError as e:  # e.g. NUL bytes on older Pythons
        return 1, 1, f"File does not parse: {e}"
    deep = _too_deep(tree)
    if deep is not None:
        return (
            deep,
            1,
            (
                f"File is not checked: an expression nests more than {MAX_NESTING} levels deep "
                f"(namedcheck's limit; real code stays far below it)"
            ),
        )
    _LAST_ACCEPTED.append(source)
    _LAST_TREE.append(tree)
    return None


def cpython_error(source: str) -> tuple[int, int, str] | None:
    """CPython's (line, column, message) for `source` when the last `python_rejects` call saw CPython's
    parser reject it with a plain syntax error (its location is the better one where libcst fails too)."""
    if _LAST_ERROR and _LAST_ERROR[0][0] is source:
        e = _LAST_ERROR[0][1]
        return e.lineno or 1, max(1, e.offset or 1), _located(e.msg or "invalid syntax", e.lineno or 1)
    return None


_DETECTED = re.compile(r" \(detected at line (\d+)\)$")


def _located(message: str, line: int) -> str:
    """CPython's message worded for where it is reported: an unterminated string is reported where it opens,
    and "(detected at line N)" named another line than the diagnostic's own."""
    m = _DETECTED.search(message)
    if m is None or int(m.group(1)) == line:
        return _DETECTED.sub("", message)
    return message[: m.start()] + f": it opens here, on line {line}, and is still open at line {m.group(1)}"


def refused(source: str, limits: Limits | None = None) -> tuple[int, int, str] | None:
    """(line, column, message) when the pre-scan (`scan`: linear, before any parser sees the text) finds
    what CPython's or libcst's parser cannot survive or would take past the file's budgets to parse."""
    s = scan(source)
    if s.chain > MAX_CHAIN:
        return (
            *_position(source, s.chain_at),
            f"File is not checked: a statement chains or nests about {s.chain:,} operations in one expression "
            f"(operators, `and` / `or`, conditionals, lambdas, attributes, calls, subscripts or dotted names; "
            f"namedcheck's limit is {MAX_CHAIN}, real code stays far below it)",
        )
    if s.joined > MAX_JOINED and unjoined(source) is None:  # (else libcst parses the text `unjoined` gives)
        return (
            *_position(source, s.joined_at),
            f"File is not checked: an expression joins {s.joined:,} adjacent string literals "
            f"(the parser's limit is {MAX_JOINED:,}; join them with `+` or a list and `str.join`)",
        )
    if s.fstrings > MAX_FSTRINGS:
        return (
            *_position(source, s.fstrings_at),
            f"File is not checked: f-strings nest {s.fstrings} levels deep (namedcheck's limit is {MAX_FSTRINGS})",
        )
    if s.blocks > MAX_BLOCKS:
        return (
            *_position(source, s.blocks_at),
            f"File is not checked: blocks nest {s.blocks} levels deep (Python's limit is {MAX_BLOCKS})",
        )
    if s.elifs > MAX_ELIF:
        return (
            *_position(source, s.elifs_at),
            f"File is not checked: an `if` has {s.elifs:,} `elif` branches (namedcheck's limit is {MAX_ELIF:,})",
        )
    lim = limits if limits is not None else Limits()
    seconds = s.tokens / PARSE_TOKENS_PER_SECOND + s.work * PARSE_SECONDS_PER_DEPTH2
    megabytes = s.tokens * PARSE_KB_PER_TOKEN / 1024
    # (a parse predicted under 5 s and 100 MB is never refused: a small budget cuts the analysis short instead,
    # and says so)
    if (seconds > lim.time_budget and seconds > 5) or (megabytes > lim.memory_budget and megabytes > 100):
        return (
            1,
            1,
            f"File is not checked: it is too large to check within the budget ({s.tokens:,} tokens: parsing "
            f"alone would take about {seconds:.0f} s and {megabytes:.0f} MB; time-budget {lim.time_budget:g} s, "
            f"memory-budget {lim.memory_budget} MB in [tool.namedcheck])",
        )
    return None


def _position(source: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of an offset (lines as Python counts them: \\n, \\r\\n or \\r end one)."""
    before = source[:offset]
    line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
    return line, offset - max(before.rfind("\n"), before.rfind("\r"))


def _longest_line(source: str) -> int:
    lengths = [len(line) for line in source.split("\n")]
    return lengths.index(max(lengths)) + 1


def _too_deep(tree: ast.AST) -> int | None:
    """The line of the first node nested more than MAX_NESTING expression levels deep, if any. Each level
    takes at least one character, so a one-line expression shorter than the levels left is not entered."""
    todo: list[tuple[ast.AST, int]] = [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, ast.stmt):
            depth = 0  # nested blocks are bounded by Python's own indentation limit
        elif isinstance(node, ast.expr):
            depth += 1
            if depth > MAX_NESTING:
                return node.lineno
            if node.lineno == node.end_lineno and (node.end_col_offset or 0) - node.col_offset < MAX_NESTING - depth:
                continue
        if isinstance(node, ast.BinOp):  # `n0 * n1 * ... * n299` is a chain (the pre-scan bounds it by
            # MAX_CHAIN), not nesting: an operand that is itself an operation stays at this level
            todo.extend((c, depth - 1 if isinstance(c, ast.BinOp) else depth) for c in (node.left, node.right))
            continue
        todo.extend((child, depth) for child in ast.iter_child_nodes(node))
    return None


# ---- the pre-scan: a linear pass over the tokens before any parser sees the text ---------------------------
_STRING_BODY = (
    r"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)"
    r'|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\Z)'
    r"|'[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*'?"
    r'|"[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*"?'
)
_TOKENS = re.compile(
    r"(\r\n|\r|\n)"  # 1: a line break
    r"|([ \t\f]+|\\(?:\r\n|\r|\n))"  # 2: blanks, a line continuation
    r"|(#[^\r\n]*)"  # 3: a comment
    r"|((?i:[rbuft]{0,2})(?:" + _STRING_BODY + r"))"  # 4: a string (unterminated ones end at the line's end)
    r"|([^\W\d]\w*)"  # 5: a name or keyword
    r"|(\.?\d[\w.]*)"  # 6: a number
    r"|([(\[{])"  # 7: an opening bracket
    r"|([)\]}])"  # 8: a closing bracket
    r"|(\*\*=|//=|>>=|<<=|\.\.\.|\*\*|//|>>|<<|->|:=|[-+*/%@&|^<>=!]=|[-+*/%@&|^~<>=.:,;!$?`])"  # 9: punctuation
    r"|(.)",  # 10: anything else
)
_KEYWORD_OPS = frozenset({"and", "or", "not", "in", "is", "if", "else", "lambda", "await", "yield", "for"})
_SEPARATORS = frozenset(
    {",", ";", "=", "->", "+=", "-=", "*=", "/=", "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=", "**="}
)
_NEUTRAL = frozenset({":", "!", "$", "?", "`"})
_FIELDS = re.compile(r"\{\{|\}\}|\{|\}")


@dataclass
class Scan:
    """What the pre-scan measured: the token count, the work its statements' depths predict (the sum of
    their squares: libcst's parse time grows with it), and the largest of each bound with its offset."""

    tokens: int = 0
    work: int = 0
    chain: int = 0  # the largest depth estimate of one statement
    chain_at: int = 0
    blocks: int = 0  # the most nested blocks
    blocks_at: int = 0
    elifs: int = 0  # the longest run of `elif`s
    elifs_at: int = 0
    joined: int = 0  # the longest run of implicitly joined strings
    joined_at: int = 0
    fstrings: int = 0  # the deepest nesting of f-strings in the same quotes
    fstrings_at: int = 0


def scan(source: str) -> Scan:
    """One linear pass over `source`'s tokens (a tolerant tokenizer: any text is scanned) estimating, for
    each statement, how deep its syntax tree nests: a chain of operators, keyword operators (`and`, `not`,
    `lambda`, a conditional), implicitly joined strings, attributes, calls and subscripts, each counts one
    level, brackets and f-string fields add their content's depth; separators (`,`, `=`, `;`) start a new
    operand. The estimate bounds the depth of CPython's and libcst's trees from above (both nest one node
    per chained operator or trailer), in time and memory linear in the text and at most `MAX_CHAIN` deep."""
    out = Scan()
    _scan(source, out, True)
    return out


def _ends(frame: list[int]) -> None:
    """A primary (atom and trailers) ends: its depth counts towards its operand's."""
    d = frame[1] + frame[2]
    if d > frame[3]:
        frame[3] = d
    frame[1] = frame[2] = 0


def _depth(frame: list[int]) -> int:
    """The depth of what a frame (a bracket's content, or a statement) holds so far."""
    _ends(frame)
    return max(frame[4], frame[0] + frame[3])


def _scan(source: str, out: Scan, module: bool) -> int:
    """Scan `source` (a module, or an f-string field's text), recording into `out`; its deepest estimate."""
    # a frame per open bracket (the statement's at the bottom): operators in the current operand, trailers
    # of the current primary, the deepest group in it, the deepest primary of the operand, the deepest
    # finished operand, and whether the bracket opened as a trailer (a call or subscript)
    stack = [[0, 0, 0, 0, 0, 0, 0]]
    frame = stack[0]
    primary = joined = dot = False  # the last token ends a primary / is a string / is a trailer's dot
    line_start = True
    indent = ""
    indents = [0]
    elifs: dict[int, int] = {}
    start = 0
    deepest = 0
    tokens = 0
    run = 0  # strings joined so far
    fstring = False  # an f-string left a field open
    for m in _TOKENS.finditer(source):
        kind = m.lastindex
        if kind == 2:
            if line_start:
                indent = m.group()
            continue
        if kind == 3:
            continue
        if kind == 1 or (kind == 9 and len(stack) == 1 and m.group() == ";"):
            if len(stack) > 1:
                continue
            if not line_start:  # the end of a statement
                d = _depth(frame)
                out.work += d * d
                if d > deepest:
                    deepest = d
                if d > out.chain:
                    out.chain, out.chain_at = d, start
                frame[:] = (0, 0, 0, 0, 0, 0, 0)
            if kind == 1:
                line_start = True
                indent = ""
            primary = joined = dot = False
            continue
        tokens += 1
        text = m.group()
        if line_start:
            line_start = False
            start = m.start()
            if module:
                width = len(indent.expandtabs(8))
                while width < indents[-1]:
                    indents.pop()
                if width > indents[-1]:
                    indents.append(width)
                    if len(indents) - 1 > out.blocks:
                        out.blocks, out.blocks_at = len(indents) - 1, start
                if text == "elif":
                    n = elifs[width] = elifs.get(width, 0) + 1
                    if n > out.elifs:
                        out.elifs, out.elifs_at = n, start
                elif text != "else":
                    elifs[width] = 0
        if kind == 5:  # a name or keyword
            if dot:
                pass  # an attribute: the primary goes on
            elif text in _KEYWORD_OPS:
                _ends(frame)
                frame[0] += 1
                primary = joined = dot = False
                continue
            else:
                _ends(frame)
            primary, joined, dot = True, False, False
        elif kind == 4:  # a string
            if joined:  # implicitly joined strings: libcst nests them, and parses at most 3,000
                run += 1
                if run > out.joined:
                    out.joined, out.joined_at = run, start
            else:
                _ends(frame)
                run = 1
            head = text[:2].lower()
            if ("f" in head or "t" in head) and "{" in text:
                inner, unclosed = _fields(text, out)
                if inner + 1 > frame[2]:
                    frame[2] = inner + 1
                # a field left open: an f-string nested in the same quotes (Python 3.12), which the string
                # pattern cuts at the inner quote; the next bracket is that field (libcst's parse of nested
                # f-strings costs some 30 times a chain's per level)
                fstring = fstring or unclosed
            primary, joined, dot = True, True, False
        elif kind == 6:  # a number
            _ends(frame)
            primary, joined, dot = True, False, False
        elif kind == 7:  # an opening bracket
            nested = frame[6] + 1 if fstring else frame[6]
            frame = [0, 0, 0, 0, 0, 1 if primary else 0, nested]
            stack.append(frame)
            if fstring:
                fstring = False
                if nested > out.fstrings:
                    out.fstrings, out.fstrings_at = nested, start
            if len(stack) > MAX_CHAIN:  # refused however the rest reads
                out.chain, out.chain_at = len(stack), start
                out.tokens += tokens
                return len(stack)
            primary = joined = dot = False
        elif kind == 8:  # a closing bracket
            if len(stack) > 1:
                closed = stack.pop()
                g = _depth(closed) + 1
                frame = stack[-1]
                if closed[5]:  # a call or subscript: one more trailer of the primary
                    frame[1] += 1
                    if g > frame[2]:
                        frame[2] = g
                else:  # a parenthesised expression, a display: a new primary
                    _ends(frame)
                    frame[2] = g
            primary, joined, dot = True, False, False
        elif kind == 9:  # punctuation
            if text == "." and primary:
                frame[1] += 1
                primary, joined, dot = False, False, True
                continue
            _ends(frame)
            if text in _SEPARATORS:  # a new operand
                if frame[0] + frame[3] > frame[4]:
                    frame[4] = frame[0] + frame[3]
                frame[0] = frame[3] = 0
            elif text == "...":
                primary, joined, dot = True, False, False
                continue
            elif text not in _NEUTRAL:
                frame[0] += 1  # an operator, unary or binary (a leading dot of a relative import too)
            primary = joined = dot = False
        else:
            primary = joined = dot = False
    if not line_start or len(stack) > 1:  # the text ends inside a statement
        d = max(_depth(f) + i for i, f in enumerate(reversed(stack)))
        out.work += d * d
        deepest = max(deepest, d)
        if d > out.chain:
            out.chain, out.chain_at = d, start
    out.tokens += tokens
    return deepest


def _fields(text: str, out: Scan) -> tuple[int, bool]:
    """The deepest estimate of an f-string's replacement fields (each scanned as an expression), and
    whether the last field is left open."""
    deepest = 0
    level = 0
    begin = 0
    for m in _FIELDS.finditer(text):
        t = m.group()
        if t == "{":
            if level == 0:
                begin = m.end()
            level += 1
        elif t == "}" and level > 0:
            level -= 1
            if level == 0:
                deepest = max(deepest, _scan(text[begin : m.start()], out, False))
    if level > 0:
        deepest = max(deepest, _scan(text[begin:], out, False))
    return deepest, level > 0


def unjoined(source: str) -> str | None:
    """`source` with every run of more than `MAX_JOINED` adjacent string literals (which libcst's parser
    rejects) made a name (`___`: Unknown to the analysis) followed by blanks, every line and column kept;
    None when a run cannot be rewritten so (a literal next to a letter, a multi-line literal outside
    brackets). The last text's answer is kept (the guard asks, then the parse)."""
    if _UNJOINED and _UNJOINED[0][0] is source:
        return _UNJOINED[0][1]
    _UNJOINED.clear()
    out = _unjoined(source)
    _UNJOINED.append((source, out))
    return out


_UNJOINED: list[tuple[str, str | None]] = []


def _unjoined(source: str) -> str | None:
    spans: list[tuple[int, int, str]] = []  # (start, end, replacement)
    run: list[tuple[int, int, int]] = []  # (start, end, bracket depth) of the strings of the current run
    depth = 0

    def rewrite() -> bool:
        if len(run) > MAX_JOINED:
            a, b, _ = run[0]
            if _LINE_BREAK.search(source, a, b) or source[a - 1 : a].isalnum() or source[b : b + 1].isalnum():
                return False
            spans.append((a, b, "_" * (b - a)))
            for a, b, d in run[1:]:
                text = source[a:b]
                if d == 0 and _LINE_BREAK.search(text):
                    return False
                spans.append((a, b, _NOT_BREAK.sub(" ", text)))
        run.clear()
        return True

    for m in _TOKENS.finditer(source):
        kind = m.lastindex
        if kind == 4:
            run.append((m.start(), m.end(), depth))
            continue
        if kind in (2, 3) or (kind == 1 and depth > 0):
            continue  # blanks, comments, line breaks inside brackets: the run goes on
        if not rewrite():
            return None
        if kind == 7:
            depth += 1
        elif kind == 8 and depth > 0:
            depth -= 1
    if not rewrite():
        return None
    if not spans:
        return None
    out: list[str] = []
    done = 0
    for a, b, text in spans:
        out.append(source[done:a])
        out.append(text)
        done = b
    out.append(source[done:])
    return "".join(out)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NOT_BREAK = re.compile(r"[^\r\n]")
