"""The docs users read: a short README in the type-checker-clean spelling, links that resolve, a CLI reference
that lists every flag and configuration key, the quick start CI runs, one README table row per code."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from namedcheck.cli.main import build_parser
from namedcheck.engine.codes import CODES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A markdown heading's anchor as GitHub and most renderers make it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def test_readme_is_a_users_readme():
    lines = README.splitlines()
    assert len(lines) <= 250, len(lines)
    # what it is first, then how to install it for use (no package index name: it is on none)
    assert lines[0] == "# namedcheck" and README.index("## Install") < README.index("## Quick start")
    assert "pip install 'namedcheck" not in README and 'pip install "namedcheck' not in README
    for extra in ("mypy", "lsp", "runtime"):
        assert f"/path/to/namedcheck[{extra}]" in README, extra


def test_readme_leads_with_the_type_checker_clean_spelling():
    first_annotation = re.search(r"f32\[[^\]]", README)
    assert first_annotation is not None and README[first_annotation.start() :].startswith("f32[Array, Dims(")
    literal = README.index("f32[(5, 7), {'batch': 20}]")
    assert literal > README.index("## Annotations") > README.index("f32[Array, Dims(5, 7, batch=20)]")


def test_quick_start_is_what_ci_runs():
    """The README's two quick-start commands: one sets up and runs the main job, one runs the tests (.ci/run)."""
    block = README[README.index("## Quick start") :].split("```bash\n", 1)[1].split("```", 1)[0]
    setup, tests = block.strip().splitlines()
    assert setup == "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/namedcheck check examples/"
    assert tests == ".venv/bin/python -m pytest -n auto"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for step in ("pip install --quiet -e '.[dev]'", "python -m pytest -n auto", "namedcheck check examples/"):
        assert step in ci, step


def test_every_code_has_one_readme_row():
    rows = re.findall(r"^\| (NC\d{3}(?:, NC\d{3})*) \|", README, re.M)
    listed = [code for row in rows for code in row.split(", ")]
    assert sorted(listed) == sorted(CODES)


def test_relative_links_resolve():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                broken.append(f"{page.name}: {target} (no web links: namedcheck is published nowhere yet)")
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        opt
        for action in parser._actions
        if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)
        for opt in action.option_strings
        if opt.startswith("--")
    }


def test_cli_reference_lists_every_flag_and_key():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {opt}" for name, p in sub.choices.items() for opt in _options(p) if f"`{opt}" not in text]
    for name in sub.choices:
        if f"namedcheck {name}" not in text:
            missing.append(f"namedcheck {name}")
    import namedcheck.cli.config as config

    keys = re.search(r"known = \{([^}]*)\}", Path(config.__file__).read_text(encoding="utf-8"))
    assert keys is not None
    for key in [*re.findall(r'"([a-z-]+)"', keys.group(1)), *config._NUMBERS]:
        if not re.search(rf"^{re.escape(key)} = ", text, re.M):
            missing.append(f"[tool.namedcheck] {key}")
    assert missing == []


def test_neovim_snippet_turns_inlay_hints_on():
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    lua = text[text.index("```lua") :].split("```", 2)[1]
    assert "vim.lsp.inlay_hint.enable()" in lua and "inlayHints = true" in lua
