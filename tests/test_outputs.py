"""Machine-readable outputs carry hints and rule help; --statistics; the summary line; the progress line."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from namedcheck.cli import summary
from namedcheck.cli.main import main
from namedcheck.cli.output import render_github, render_json, render_sarif
from namedcheck.diagnostic import Diagnostic, Related
from namedcheck.engine.codes import CODES, CODES_MD, DEFAULT_HINTS, FAMILIES, codes_markdown, family, help_uri

ROOT = Path(__file__).resolve().parent.parent

BAD = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)], y: f32[(5,)]):
    return x + y


def g(x: f32[(), {'b': 4}], y: f32[(), {'b': 8}]):
    return x * y


def h(x: f32[(3, 4)], y: f32[(7,)]):
    return x - y
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bad.py").write_text(BAD)
    (tmp_path / "pkg" / "good.py").write_text(
        "from namedcheck import f32\n\ndef f(x: f32[(3,)]) -> f32[(3,)]:\n    return x * 2\n"
    )
    (tmp_path / "pkg" / "unrelated.py").write_text("x = [1, 2] + 3\n")
    return tmp_path


def test_every_code_has_a_hint_a_family_and_a_help_link():
    assert set(DEFAULT_HINTS) == set(CODES)
    for code in CODES:
        assert code[:3] in FAMILIES and family(code) != "other"
        assert help_uri(code) == f"{CODES_MD.resolve().as_uri()}#{code.lower()}"


def test_help_links_resolve_to_the_docs_that_ship():
    """json `url` / SARIF `helpUri` name a file that exists (the package's docs/, the checkout's through the link
    namedcheck/docs) and a heading of that file for the code; no link to a web address that does not exist."""
    from urllib.parse import unquote, urlparse

    for code in CODES:
        uri = urlparse(help_uri(code) or "")
        assert uri.scheme == "file" and uri.fragment == code.lower()
        path = Path(unquote(uri.path))
        assert path.is_file() and path.name == "codes.md"
        assert f"\n## {code}\n" in path.read_text(encoding="utf-8")
    assert (ROOT / "namedcheck" / "docs").resolve() == (ROOT / "docs").resolve()


def test_no_link_to_a_repository_or_index_entry_that_does_not_exist():
    """namedcheck is published nowhere yet: no github.com/namedcheck address in what users read or get."""
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "pyproject.toml", ROOT / ".pre-commit-hooks.yaml"]
    files += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "namedcheck").rglob("*.py"))
    files += sorted((ROOT / "plugin").rglob("*.py"))
    found = [str(p.relative_to(ROOT)) for p in files if "github.com/namedcheck" in p.read_text(encoding="utf-8")]
    assert found == []
    assert "pip install 'namedcheck[" not in (ROOT / "README.md").read_text(encoding="utf-8")


def test_json_url_is_null_and_sarif_has_no_help_uri_without_the_docs(monkeypatch, tmp_path):
    """A package installed without its data files: no link at all rather than a dead one."""
    from namedcheck.engine import codes

    monkeypatch.setattr(codes, "CODES_MD", tmp_path / "missing" / "codes.md")
    d = Diagnostic("a.py", 1, 1, 1, 2, "NC202", "odd")
    assert json.loads(render_json([d]))[0]["url"] is None
    rule = json.loads(render_sarif([d]))["runs"][0]["tool"]["driver"]["rules"][0]
    assert "helpUri" not in rule and rule["id"] == "NC202"


def test_docs_codes_md_is_generated_from_codes_py():
    """helpUri anchors (#nc202) exist: docs/codes.md has a `## NC202` heading per code, in sync with codes.py."""
    text = (ROOT / "docs" / "codes.md").read_text()
    assert text == codes_markdown(), "regenerate: python -m namedcheck.cli.output --codes-md > docs/codes.md"
    assert re.findall(r"^## (NC\d{3})$", text, re.M) == list(CODES)


def test_json_carries_hint_and_url(project, capsys):
    _, out, _ = run(capsys, "check", "pkg", "--format", "json", "--no-cache")
    data = json.loads(out)  # pure JSON: no summary line on stdout
    assert all(d["hint"] for d in data)
    assert data[1]["hint"] == "a named axis has one size everywhere; named axes never stretch from size 1"
    assert data[1]["url"] == help_uri("NC202")


def test_sarif_rules_have_help_uri_tags_and_results_carry_hints(project, capsys):
    _, out, _ = run(capsys, "check", "pkg", "--format", "sarif", "--no-cache")
    run_ = json.loads(out)["runs"][0]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert sorted(rules) == ["NC201", "NC202"]
    r = rules["NC202"]
    assert r["shortDescription"]["text"] == CODES["NC202"].title
    assert r["fullDescription"]["text"] == CODES["NC202"].explanation
    assert r["help"]["text"].startswith("NC202: named axis size conflict\n\n" + CODES["NC202"].explanation)
    assert "Wrong:" in r["help"]["text"] and "```python" in r["help"]["markdown"]
    assert r["helpUri"] == help_uri("NC202")
    assert r["properties"]["tags"] == ["namedcheck", "shape"]
    for res in run_["results"]:
        assert run_["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert "\nhint: " in res["message"]["text"] and res["properties"]["hint"]


def test_sarif_for_an_unknown_code_and_no_hint():
    doc = json.loads(render_sarif([Diagnostic("a.py", 1, 1, 1, 2, "NC999", "odd")]))
    assert doc["runs"][0]["tool"]["driver"]["rules"] == [{"id": "NC999", "shortDescription": {"text": "NC999"}}]
    assert doc["runs"][0]["results"][0]["message"]["text"] == "odd"


def test_github_annotation_has_title_and_hint_on_a_second_line():
    d = Diagnostic("p, q.py", 3, 5, 3, 9, "NC202", "Named axis 'b' has size 4 in `x` and size 8 in `y`", "fix: it")
    line = render_github([d])
    assert line == (
        "::error file=p%2C q.py,line=3,col=5,endLine=3,endColumn=9,title=NC202 named axis size "
        "conflict::Named axis 'b' has size 4 in `x` and size 8 in `y`%0Ahint: fix: it"
    )


def test_statistics_counts_per_code(project, capsys):
    code, out, _ = run(capsys, "check", "pkg", "--statistics", "--no-cache")
    assert code == 1
    lines = out.splitlines()
    assert lines[:2] == ["2\tNC201\tpositional broadcasting mismatch", "1\tNC202\tnamed axis size conflict"]
    assert re.fullmatch(
        r"Checked 3 files \(2 analysed\) in \d+\.\d\d s: 3 errors in 1 file; "
        r"shapes known for 25% of 4 array expressions \(ranks for 25%\)",
        lines[2],
    )
    _, out, _ = run(capsys, "check", "pkg", "--statistics", "--format", "json", "--no-cache")
    assert json.loads(out) == [
        {"code": "NC201", "name": "positional broadcasting mismatch", "count": 2},
        {"code": "NC202", "name": "named axis size conflict", "count": 1},
    ]


def test_summary_line_counts_files_analysed_and_errors(project, capsys):
    code, out, _ = run(capsys, "check", "pkg", "--no-cache")
    assert code == 1
    assert re.fullmatch(
        r"Checked 3 files \(2 analysed\) in \d+\.\d\d s: 3 errors in 1 file; "
        r"shapes known for 25% of 4 array expressions \(ranks for 25%\)",
        out.splitlines()[-1],
    )
    code, out, _ = run(capsys, "check", "pkg/good.py", "pkg/unrelated.py", "--no-cache")
    assert code == 0
    assert out.splitlines()[-2:] == ["All checks passed.", out.splitlines()[-1]]
    assert re.fullmatch(
        r"Checked 2 files \(1 analysed\) in \d+\.\d\d s: 0 errors in 0 files; "
        r"shapes known for 100% of 1 array expression \(ranks for 100%\)",
        out.splitlines()[-1],
    )


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_only_on_a_terminal_for_long_runs(monkeypatch):
    monkeypatch.setattr(summary, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(summary, "PROGRESS_EVERY", 0.0)
    tty = _Tty()
    p = summary.Progress(25, tty)
    for _ in range(25):
        p.tick()
    p.close()
    text = tty.getvalue()
    assert "namedcheck: checked 1/25 files" in text and "checked 25/25 files" in text
    assert text.endswith("\r\033[K")  # erased before the results are printed
    pipe = io.StringIO()
    p = summary.Progress(25, pipe)  # not a terminal: nothing
    for _ in range(25):
        p.tick()
    p.close()
    assert pipe.getvalue() == ""
    short = _Tty()
    p = summary.Progress(3, short)  # a short run: nothing
    for _ in range(3):
        p.tick()
    assert short.getvalue() == ""


def test_json_run_keeps_stderr_quiet_off_a_terminal(project, capsys):
    _, out, err = run(capsys, "check", "pkg", "--format", "json", "--no-cache")
    assert err == "" and out.lstrip().startswith("[")


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_statistics_with_sarif_or_github_is_refused_as_ruff_does(project, capsys, fmt):
    """ruff prints statistics as text or json only; for other formats it stops with an error. So does
    namedcheck: exit 2, the reason on stderr, and under sarif still one valid (empty) document."""
    code, out, err = run(capsys, "check", "pkg", "--statistics", "--format", fmt, "--no-cache")
    assert code == 2 and f"--statistics prints text or json, not --format {fmt}" in err
    if fmt == "sarif":
        assert json.loads(out)["runs"][0]["results"] == []
    else:
        assert out == ""


ODD_NAMES = ["ünï cödé 名前.py", "new\nline.py", "esc\x1b[31mred.py", "tab\there.py", "100% +x.py", "a:b.py"]


def test_sarif_uris_are_percent_encoded_relative_references():
    """RFC 3986 URI references: a space `%20`, a newline `%0A`, ESC `%1B`, a tab `%09`, UTF-8 escapes; no
    `./`; relative to %SRCROOT% (the working directory), an absolute path a file: URI."""
    from urllib.parse import unquote, urlparse

    diags = [
        Diagnostic(f"./pkg/{name}", 1, 1, 1, 2, "NC201", "m", related=(Related(f"pkg/{name}", 2, 1, 2, 2, "n"),))
        for name in ODD_NAMES
    ]
    diags.append(Diagnostic("/abs/dir x/f.py", 1, 1, 1, 2, "NC201", "m"))
    doc = json.loads(render_sarif(diags))
    run_ = doc["runs"][0]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == Path.cwd().as_uri() + "/"
    for name, res in zip(ODD_NAMES, run_["results"]):
        loc = res["locations"][0]["physicalLocation"]["artifactLocation"]
        rel = res["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
        assert loc == rel  # the same file, the same spelling
        assert loc["uriBaseId"] == "%SRCROOT%"
        assert re.fullmatch(r"[A-Za-z0-9\-._~/%]+", loc["uri"]), loc["uri"]  # unreserved characters and escapes
        assert unquote(loc["uri"]) == f"pkg/{name}"
    last = run_["results"][-1]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert last == {"uri": "file:///abs/dir%20x/f.py"} and urlparse(last["uri"]).scheme == "file"
    assert "%09" in run_["results"][3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]


def test_control_characters_in_file_names_are_escaped_in_text_tab_included():
    from namedcheck.cli.output import render_text

    diags = [
        Diagnostic(f"./{name}", 1, 1, 1, 2, "NC201", "m", related=(Related(name, 2, 1, 2, 2, "n"),))
        for name in ("tab\there.py", "new\nline.py", "esc\x1b[31mred.py")
    ]
    text = render_text(diags, lambda _p, _l: "")
    assert "./tab\\there.py:1:1: NC201" in text and "note: tab\\there.py:2:1" in text
    assert "./new\\nline.py:1:1" in text and "./esc\\x1b[31mred.py:1:1" in text
    assert not any(c in text for c in "\t\x1b")
    gh = render_github(diags)
    assert "\t" not in gh and "\x1b" not in gh


def test_json_related_paths_have_the_form_of_their_diagnostics_path():
    """`check .` prints `./pkg/a.py`: its related locations too (not `pkg/b.py`); an absolute path's related
    locations are absolute; a plain relative path's stay as they are."""
    import os

    rel = (Related("pkg/b.py", 2, 1, 2, 2, "n"), Related("../up.py", 1, 1, 1, 2, "u"))
    data = json.loads(
        render_json(
            [
                Diagnostic("./pkg/a.py", 1, 1, 1, 2, "NC201", "m", related=rel),
                Diagnostic("pkg/a.py", 1, 1, 1, 2, "NC201", "m", related=rel),
                Diagnostic(os.path.abspath("pkg/a.py"), 1, 1, 1, 2, "NC201", "m", related=rel),
            ]
        )
    )
    assert [r["path"] for r in data[0]["related"]] == ["./pkg/b.py", "../up.py"]
    assert [r["path"] for r in data[1]["related"]] == ["pkg/b.py", "../up.py"]
    assert [r["path"] for r in data[2]["related"]] == [os.path.abspath("pkg/b.py"), os.path.abspath("../up.py")]


def test_a_deeply_nested_pyproject_is_a_configuration_error_naming_the_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    for value in ("[" * 100_000 + "]" * 100_000, "{a=" * 5_000 + "1" + "}" * 5_000):
        (tmp_path / "pyproject.toml").write_text(f"[tool.namedcheck]\nexclude = {value}\n")
        code, out, err = run(capsys, "check", "a.py", "--no-cache", "--no-daemon", "--format", "json")
        assert code == 2 and json.loads(out) == []
        assert (
            f"{tmp_path / 'pyproject.toml'}: cannot read [tool.namedcheck]: arrays or tables nested too deeply" in err
        )
        assert "internal error" not in err


def test_a_cache_folder_that_is_a_symlink_is_not_used(tmp_path, monkeypatch, capsys):
    """A committed `.namedcheck_cache` symlink: a warning, the run goes on without the cache, nothing written
    where it points."""
    project = tmp_path / "p"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "pyproject.toml").write_text("[tool.namedcheck]\n")
    (project / "bad.py").write_text(BAD)
    (project / ".namedcheck_cache").symlink_to(outside)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "check", ".", "--no-daemon")
    assert code == 1 and "Found 3 errors." in out
    assert ".namedcheck_cache is a symbolic link" in err and "running without the cache" in err
    assert list(outside.iterdir()) == []
