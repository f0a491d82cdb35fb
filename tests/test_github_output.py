"""`--output-format github` (workflow commands), `auto`, `--report`, and the
problem matcher for the `concise` format.

Workflow commands are read back with a parser written after the Actions
runner's own (a command is a line starting `::` after leading white space;
properties split on `,` and the first `=`; `%25`, `%0D`, `%0A`, `%3A`, `%2C`
decoded), so escaping is checked by decoding, not by string comparison.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_cli, write_skill

from skilllint.diagnostics import Diagnostic, Related, Severity, Span
from skilllint.lint.engine import LintResult
from skilllint.output import printable
from skilllint.output.github import escape_data, escape_property, render_github

KNOWN = {"error", "warning", "notice", "group", "endgroup"}
BROKEN = "---\nname: Broken\ndescription: Use this when: broken\n---\n# B\n"
WARN_ONLY = "---\nname: warn-only\ndescription: Does things. Use when asked.\nversion: 1\n---\n# W\n"


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
    for old, new in pairs:
        text = text.replace(old, new)
    return text


def parse_command(line: str) -> tuple[str, dict[str, str], str] | None:
    """The runner's reading of one log line: (command, properties, data), or None."""
    stripped = line.lstrip()
    if not stripped.startswith("::"):
        return None
    end = stripped.find("::", 2)
    if end < 0:
        return None
    section, data = stripped[2:end], stripped[end + 2 :]
    name, _, props_text = section.partition(" ")
    props = {}
    for pair in filter(None, props_text.split(",")):
        key, sep, value = pair.partition("=")
        assert sep, f"malformed property {pair!r} in {line!r}"
        props[key] = _unescape(value, prop=True)
    return name, props, _unescape(data, prop=False)


def commands(text: str) -> list[tuple[str, dict[str, str], str]]:
    return [c for c in map(parse_command, text.splitlines()) if c is not None]


# -- escaping ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, data, prop",
    [
        ("plain", "plain", "plain"),
        ("100%", "100%25", "100%25"),
        ("a\nb", "a%0Ab", "a%0Ab"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("k: v, w", "k: v, w", "k%3A v%2C w"),
        ("%0A", "%250A", "%250A"),  # `%` first, or a literal %0A would decode to a newline
        ("::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"),
    ],
)
def test_escaping(raw, data, prop):
    assert escape_data(raw) == data
    assert escape_property(raw) == prop
    assert _unescape(data, prop=False) == raw and _unescape(prop, prop=True) == raw


def _diag(path: Path, line: int, severity: Severity = Severity.ERROR, message: str = "m", code: str = "SL101", **kw) -> Diagnostic:
    return Diagnostic(code, "name-missing", severity, ("agentskills",), message, path, Span(line, 2, line, 5), **kw)


def test_hostile_paths_and_messages_round_trip(tmp_path):
    path = tmp_path / "we:ird, name%0A" / "SKILL.md"
    message = "line one\nline two: 100% sure, really\r\n::warning::injected"
    related = (Related("partner, here: 50%", tmp_path / "b:c" / "SKILL.md", Span.point(3)),)
    out = render_github(LintResult([_diag(path, 7, message=message, related=related)], packages=1), tmp_path)
    (group, annotation, end) = commands(out)
    assert group == ("group", {}, "we:ird, name%0A/SKILL.md") and end[0] == "endgroup"
    kind, props, data = annotation
    assert kind == "error"
    assert props == {
        "file": "we:ird, name%0A/SKILL.md", "line": "7", "col": "2", "endLine": "7", "endColumn": "5",
        "title": "SL101 name-missing",
    }
    # The message's newlines are shown, not obeyed; nothing in it becomes a command.
    assert data.startswith("line one\\x0aline two: 100% sure, really\\x0d\\x0a::warning::injected\n")
    assert "note: partner, here: 50% (b:c/SKILL.md:3)" in data
    assert "targets: agentskills" in data
    assert all(c[0] in KNOWN for c in commands(out))


def test_a_path_that_looks_like_a_command_is_not_one(tmp_path):
    skill = write_skill(tmp_path, "::warning file=x::pwned", WARN_ONLY)
    code, out, _ = run_cli("check", "--output-format", "github", skill.name, cwd=tmp_path)
    assert code == 0
    parsed = commands(out)
    assert [c[0] for c in parsed] == ["group", "warning", "warning", "endgroup"]  # SL106 and SL122
    assert parsed[0][2] == parsed[1][1]["file"] == parsed[2][1]["file"] == "::warning file=x::pwned/SKILL.md"
    plain = [line for line in out.splitlines() if "SL122" in line and parse_command(line) is None]
    assert len(plain) == 1
    assert plain[0].startswith("./::warning file=x::pwned/SKILL.md:4:1: warning: ") and plain[0].endswith(" [SL122]")


# -- grouping and the plain log --------------------------------------------------------


def test_grouped_per_file_with_every_finding_also_plain(tmp_path):
    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / "skills", "Broken", BROKEN)
    write_skill(tmp_path / "skills", "warn-only", WARN_ONLY)
    code, out, _ = run_cli("check", "--output-format", "github", ".", cwd=tmp_path / "skills")
    assert code == 1
    _, concise, _ = run_cli("check", "--output-format", "concise", ".", cwd=tmp_path)
    lines = out.splitlines()
    groups = [i for i, line in enumerate(lines) if line.startswith("::group::")]
    assert [lines[i] for i in groups] == ["::group::skills/Broken/SKILL.md", "::group::skills/warn-only/SKILL.md"]
    annotations = [c for c in commands(out) if c[0] in ("error", "warning", "notice")]
    plain = [line for line in lines if parse_command(line) is None]
    # Paths relative to the repository root, the plain lines are the concise report.
    assert plain[:-1] == concise.splitlines()
    assert plain[-1].startswith("Found ") and "in 2 skills" in plain[-1]
    assert len(annotations) == len(plain) - 1
    for start, stop in zip(groups, groups[1:] + [len(lines)]):
        block = lines[start:stop]
        assert "::endgroup::" in block
        file = block[0][len("::group::"):]
        assert all(c[1]["file"] == file for c in commands("\n".join(block)) if c[0] in ("error", "warning", "notice"))
    assert not any(c[0] == "notice" and "title" in c[1] and "more findings" in c[1]["title"] for c in annotations)


def test_no_findings_is_one_plain_line(tmp_path):
    write_skill(tmp_path, "good", "---\nname: good\ndescription: Formats tables. Use when the user pastes a table.\n---\n# G\n")
    code, out, _ = run_cli("check", "--output-format", "github", "good", cwd=tmp_path)
    assert (code, out) == (0, "All checks passed (1 skill checked).\n")


# -- the per-step limit ----------------------------------------------------------------


def _result(tmp_path: Path, errors: int, warnings: int, info: int) -> LintResult:
    diags = [_diag(tmp_path / "a" / "SKILL.md", i + 1, Severity.ERROR) for i in range(errors)]
    diags += [_diag(tmp_path / "b" / "SKILL.md", i + 1, Severity.WARNING) for i in range(warnings)]
    diags += [_diag(tmp_path / "c" / "SKILL.md", i + 1, Severity.INFO) for i in range(info)]
    return LintResult(diags, packages=3)


@pytest.mark.parametrize("errors, warnings, info", [(10, 10, 10), (0, 0, 0), (3, 0, 10)])
def test_no_notice_while_everything_is_annotated(tmp_path, errors, warnings, info):
    parsed = commands(render_github(_result(tmp_path, errors, warnings, info), tmp_path))
    assert [c[0] for c in parsed].count("notice") == info
    assert [c[0] for c in parsed].count("error") == errors


@pytest.mark.parametrize(
    "errors, warnings, info, hidden",
    [(12, 0, 0, "2 errors are"), (0, 11, 3, "1 warning is"), (25, 40, 0, "15 errors, 30 warnings are"), (0, 0, 11, "2 info are")],
)
def test_one_notice_first_when_the_limit_hides_annotations(tmp_path, errors, warnings, info, hidden):
    out = render_github(_result(tmp_path, errors, warnings, info), tmp_path)
    parsed = commands(out)
    kind, props, data = parsed[0]
    assert kind == "notice" and props == {"title": "skilllint: more findings than annotations"}
    assert f"so {hidden} not annotated" in data
    limit_notices = [c for c in parsed if c[1].get("title") == props["title"]]
    assert len(limit_notices) == 1
    # Every finding is still annotated (GitHub drops the excess) and printed plain.
    assert sum(c[0] in ("error", "warning", "notice") for c in parsed) == errors + warnings + info + 1
    assert sum(parse_command(line) is None for line in out.splitlines()) == errors + warnings + info + 1


# -- auto, the config, --report -----------------------------------------------------------


@pytest.mark.parametrize("env, expected", [({"GITHUB_ACTIONS": "true"}, "github"), ({}, "full"), ({"GITHUB_ACTIONS": "false"}, "full")])
def test_auto_picks_github_inside_actions(tmp_path, monkeypatch, env, expected):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    code, out, _ = run_cli("check", "--output-format", "auto", "warn-only", cwd=tmp_path)
    assert code == 0
    assert ("::warning file=warn-only/SKILL.md," in out) == (expected == "github")
    assert ("   = help: skilllint rule SL122" in out) == (expected == "full")


def test_full_stays_the_default_inside_actions(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    _, out, _ = run_cli("check", "warn-only", cwd=tmp_path)
    assert "::warning" not in out and "= help:" in out


@pytest.mark.parametrize("value", ["github", "sarif", "auto"])
def test_the_config_accepts_the_new_formats(tmp_path, value, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    (tmp_path / ".skilllint.toml").write_text(f'output-format = "{value}"\n', encoding="utf-8")
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    code, out, err = run_cli("check", "warn-only", cwd=tmp_path)
    assert code == 0, err
    assert out.startswith('{\n  "$schema"') if value == "sarif" else out.startswith("::group::warn-only/SKILL.md")


def test_config_and_cli_accept_the_same_formats():
    from skilllint.config.keys import OUTPUT_FORMATS
    from skilllint.output import CHOICES

    assert OUTPUT_FORMATS == CHOICES
    code, _, err = run_cli("check", "--output-format", "bogus", ".")
    assert code == 2 and "invalid choice" in err


def test_report_writes_extra_formats_from_the_same_run(tmp_path):
    write_skill(tmp_path, "Broken", BROKEN)
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    (tmp_path / "out").mkdir()
    code, out, err = run_cli(
        "check", "--output-format", "github", "--report", "sarif=out/skilllint.sarif", "--report", "JSON=report.json", ".",
        cwd=tmp_path,
    )
    assert code == 1, err
    annotations = [c for c in commands(out) if c[0] in ("error", "warning", "notice")]
    sarif = json.loads((tmp_path / "out" / "skilllint.sarif").read_text(encoding="utf-8"))
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert len(annotations) == len(results) == len(report["diagnostics"]) >= 2
    assert [r["ruleId"] for r in results] == [d["code"] for d in report["diagnostics"]] == [c[1]["title"].split()[0] for c in annotations]


@pytest.mark.parametrize(
    "value, message",
    [("sarif", "expected FORMAT=FILE"), ("sarif=", "expected FORMAT=FILE"), ("xml=a.xml", "unknown format 'xml'"), ("json=out.txt", "already written")],
)
def test_bad_report_values_are_usage_errors(tmp_path, value, message):
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    code, _, err = run_cli("check", "-o", "out.txt", "--report", value, "warn-only", cwd=tmp_path)
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "out.txt").exists()  # refused before linting or writing anything


def test_an_unwritable_report_is_exit_2(tmp_path):
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    code, _, err = run_cli("check", "--report", "sarif=a-file/x.sarif", "warn-only", cwd=tmp_path)
    assert code == 2 and "cannot write a-file/x.sarif: Not a directory" in err and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".skilllint-report")] == []


def test_reports_make_the_folders_they_name(tmp_path):
    """`-o` and `--report` name a path of the user's choosing: its missing folders are made."""
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    code, out, err = run_cli(
        "check", "-o", "out/full/report.txt", "--report", "sarif=reports/ci/skilllint.sarif", "--report", "json=reports/x.json",
        "warn-only", cwd=tmp_path,
    )
    assert code == 0 and out == "", err
    assert "warn-only/SKILL.md:4:1" in (tmp_path / "out" / "full" / "report.txt").read_text(encoding="utf-8")
    sarif = json.loads((tmp_path / "reports" / "ci" / "skilllint.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"][0]["ruleId"] == "SL122"
    assert json.loads((tmp_path / "reports" / "x.json").read_text(encoding="utf-8"))["summary"]["total"] == 1
    # nothing but the reports: no temporary file left beside them
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file() and "warn-only" not in p.parts) == [
        "out/full/report.txt", "reports/ci/skilllint.sarif", "reports/x.json",
    ]


def test_a_report_replaces_a_file_whole_and_writes_through_a_pipe(tmp_path):
    """An existing report is replaced by a new file (a reader never sees it half written) that
    keeps its mode; a FIFO, like a device, is written in place, never replaced."""
    import os
    import stat
    import threading

    write_skill(tmp_path, "warn-only", WARN_ONLY)
    old = tmp_path / "old.json"
    old.write_text("stale", encoding="utf-8")
    old.chmod(0o640)
    before = old.stat().st_ino
    assert run_cli("check", "-o", "old.json", "--output-format", "json", "warn-only", cwd=tmp_path)[0] == 0
    assert old.stat().st_ino != before and stat.S_IMODE(old.stat().st_mode) == 0o640
    assert json.loads(old.read_text(encoding="utf-8"))["summary"]["total"] == 1
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    code, _, err = run_cli("check", "-o", "pipe", "--output-format", "concise", "warn-only", cwd=tmp_path)
    reader.join(30)
    assert code == 0, err
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and "[SL122]" in got[0]


# -- the problem matcher for `concise` ---------------------------------------------------------

MATCHER = ROOT / "skilllint" / "data" / "problem-matcher.json"


def _matcher() -> list[dict]:
    return json.loads(MATCHER.read_text(encoding="utf-8"))["problemMatcher"]


def test_problem_matcher_file_is_what_the_runner_accepts():
    matchers = _matcher()
    owners = [m["owner"] for m in matchers]
    assert owners and len({o.lower() for o in owners}) == len(owners)
    for matcher in matchers:
        assert matcher.get("severity", "").upper() in ("", "ERROR", "WARNING")
        assert len(matcher["pattern"]) == 1 and not matcher["pattern"][0].get("loop")
        pattern = matcher["pattern"][0]
        groups = re.compile(pattern["regexp"]).groups
        for key in ("file", "line", "column", "severity", "message", "code"):
            assert 0 < pattern[key] <= groups, key


def test_problem_matcher_reads_real_concise_output(corpus):
    code, concise, err = run_cli("check", ".", "--target", "all", "--select", "ALL", "--output-format", "concise", "--exit-zero", cwd=corpus)
    assert code == 0, err
    code, report, _ = run_cli("check", ".", "--target", "all", "--select", "ALL", "--output-format", "json", "--exit-zero", cwd=corpus)
    diagnostics = json.loads(report)["diagnostics"]
    lines = concise.splitlines()
    assert len(lines) == len(diagnostics) > 1000
    (matcher,) = _matcher()
    pattern = matcher["pattern"][0]
    regex = re.compile(pattern["regexp"])
    matched = 0
    for line, diag in zip(lines, diagnostics):
        match = regex.search(line)
        if diag["severity"] == "info":  # the runner has no 'info' severity; these stay in the log only
            assert match is None, line
            continue
        assert match, line
        matched += 1
        got = {key: match.group(pattern[key]) for key in ("file", "line", "column", "severity", "message", "code")}
        assert got == {
            "file": diag["path"], "line": str(diag["line"]), "column": str(diag["column"]),
            "severity": diag["severity"], "message": printable(diag["message"]), "code": diag["code"],
        }
    assert matched > 500


# -- a file name that is not UTF-8 ---------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("fmt", ["full", "concise", "json", "sarif", "github"])
def test_a_non_utf8_file_name_reaches_a_strict_stdout_in_every_format(tmp_path, fmt):
    import os
    import subprocess
    import sys

    skill = write_skill(tmp_path, "x", "---\nname: x\ndescription: Does x. Use when x.\n---\n# X\n")
    (skill / "references").mkdir()
    try:
        with open(os.fsencode(skill / "references") + b"/\xff{0}.md", "wb") as handle:
            handle.write(b"# U\n")
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    run = subprocess.run(
        [sys.executable, "-m", "skilllint", "check", "x", "--output-format", fmt, "--exit-zero", "--report", f"{fmt}=r.out"],
        cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False,
    )
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr.decode("utf-8", "replace")
    out = run.stdout.decode("utf-8")  # valid UTF-8, or this raises
    assert out == (tmp_path / "r.out").read_bytes().decode("utf-8")
    if fmt in ("full", "concise", "github"):
        assert "references/\\xff{0}.md" in out  # the byte shown, not a replacement character
    if fmt == "sarif":
        assert '"uri": "x/references/%FF%7B0%7D.md"' in out
