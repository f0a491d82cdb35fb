"""The command line: verbs, output formats, exit codes."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, lint_json, run_cli, write_skill

SCHEMA = json.loads((ROOT / "skilllint" / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
GOOD = "---\nname: good\ndescription: Formats tables. Use when the user pastes a table.\n---\n# Good\n"
WARN_ONLY = "---\nname: warn-only\ndescription: Does things. Use when asked.\nversion: 1\n---\n# W\n"
BROKEN = "---\nname: Broken\ndescription: Use this when: broken\n---\n# B\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_skill(tmp_path, "good", GOOD)
    write_skill(tmp_path, "warn-only", WARN_ONLY)
    write_skill(tmp_path, "Broken", BROKEN)
    return tmp_path


def test_json_output_matches_its_schema(tree):
    report = lint_json(str(tree), "--target", "all", cwd=tree)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert report["version"] == "1"
    assert report["summary"]["packages"] == 3
    assert report["summary"]["total"] == len(report["diagnostics"])
    first = report["diagnostics"][0]
    assert not first["path"].startswith("/") and "\\" not in first["path"]


def test_json_schema_rejects_a_malformed_report():
    bad = {"version": "1", "tool": {"name": "skilllint", "version": "x"}, "diagnostics": [{"code": "SL1"}], "summary": {}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(bad)


def test_json_carries_fix_for_the_unquoted_colon(tree):
    report = lint_json(str(tree / "Broken"), cwd=tree)
    sl005 = next(d for d in report["diagnostics"] if d["code"] == "SL005")
    edit = sl005["fix"]["edits"][0]
    assert sl005["fix"]["applicability"] == "safe"
    assert edit["content"] == '"Use this when: broken"' and edit["line"] == 3


def test_concise_format(tree):
    code, out, _ = run_cli("check", "--output-format", "concise", "warn-only", cwd=tree)
    assert code == 0  # only a warning; fail-on defaults to error
    assert out.strip() == (
        "warn-only/SKILL.md:4:1: warning: [*] top-level `version` belongs under `metadata` as `metadata.version`: "
        "not a field of the specification [SL122]"
    )


def test_full_format_shows_source_line_targets_and_summary(tree):
    code, out, _ = run_cli("check", "Broken", cwd=tree)
    assert code == 1
    assert " 3 | description: Use this when: broken" in out
    assert "= targets: agentskills" in out
    assert "Found 1 problem (1 error, 0 warnings, 0 info) in 1 skill." in out


def test_clean_run_says_so(tree):
    code, out, _ = run_cli("check", "good", cwd=tree)
    assert code == 0 and "All checks passed" in out


def test_exit_codes_fail_on_and_exit_zero(tree):
    assert run_cli("check", "warn-only", cwd=tree)[0] == 0
    assert run_cli("check", "warn-only", "--fail-on", "warning", cwd=tree)[0] == 1
    assert run_cli("check", "Broken", cwd=tree)[0] == 1
    assert run_cli("check", "Broken", "--exit-zero", cwd=tree)[0] == 0


def test_default_verb_is_check(tree):
    code, out, _ = run_cli("--output-format", "concise", "Broken", cwd=tree)
    assert code == 1 and "[SL005]" in out


def test_statistics(tree):
    code, out, _ = run_cli("check", "--statistics", "--target", "all", ".", cwd=tree)
    assert code == 1
    assert any(line.split("\t")[1:2] == ["SL005"] and "[*]" in line for line in out.splitlines())


def test_output_file(tree):
    code, out, _ = run_cli("check", "-o", "report.json", "--output-format", "json", ".", cwd=tree)
    assert code == 1 and out == ""
    assert json.loads((tree / "report.json").read_text())["summary"]["packages"] == 3


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("check", "--target", "nosuch"), "unknown target"),
        (("check", "does-not-exist"), "no such file"),
        (("check", "--select", "SL999"), "matches no rule"),
        (("check", "--output-format", "xml"), "invalid choice"),
        (("rule", "SL999"), "no rule"),
    ],
)
def test_usage_errors_exit_2_cleanly(tree, args, fragment):
    code, _, err = run_cli(*args, cwd=tree)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_rule_prints_the_rule_book_page():
    code, out, _ = run_cli("rule", "SL106")
    assert code == 0 and out.startswith("# SL106 name-folder-mismatch")
    code, out, _ = run_cli("rule", "name-folder-mismatch", "--output-format", "json")
    assert json.loads(out)["code"] == "SL106"


def test_rule_all_prints_every_page():
    code, out, _ = run_cli("rule", "--all")
    assert code == 0 and "# SL001 skill-md-missing" in out and "# SL205 codex-prompt-bytes" in out


def test_config_schema_is_valid_json_schema():
    code, out, _ = run_cli("config", "--schema")
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "SL201" in schema["properties"]["rules"]["properties"]


@pytest.mark.e2e
def test_console_script_runs_as_a_module(tree):
    proc = subprocess.run(
        [sys.executable, "-m", "skilllint", "check", "--output-format", "concise", "Broken"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "[SL005]" in proc.stdout


@pytest.mark.e2e
def test_the_command_writes_everything_before_it_leaves_without_teardown(tree):
    """cli.run() ends with os._exit (no interpreter teardown): buffered output must be flushed first."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # a pipe is block-buffered then
    command = [sys.executable, "-m", "skilllint", "check"]
    small = subprocess.run([*command, "--output-format", "concise", "Broken"], cwd=tree, env=env, capture_output=True, timeout=120)
    assert small.returncode == 1 and b"[SL005]" in small.stdout  # a few lines: all still in the buffer at exit
    for i in range(120):  # a long report, many pipe buffers
        write_skill(tree, f"Bad_{i}", BROKEN.replace("Broken", f"Bad_{i}"))
    whole = subprocess.run([*command, "--output-format", "json", "."], cwd=tree, env=env, capture_output=True, timeout=120)
    assert whole.returncode == 1 and json.loads(whole.stdout)["summary"]["packages"] == 123
    # the reader leaves early (`| head`): no traceback, no "Exception ignored" at exit
    reader = subprocess.Popen([*command, "--output-format", "json", "."], cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.read(10)
    reader.stdout.close()
    _, err = reader.communicate(timeout=120)
    assert reader.returncode in (0, 1) and err == b""

@pytest.mark.e2e
def test_a_profiler_still_gets_its_data(tree, tmp_path):
    """Under cProfile (or coverage) the command exits normally, so the tool can write its data."""
    out = tmp_path / "run.prof"
    proc = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "skilllint", "check", "--output-format", "concise", "Broken"],
        cwd=tree,
        capture_output=True,
        timeout=120,
    )
    assert b"[SL005]" in proc.stdout and out.stat().st_size > 0  # (cProfile swallows the exit code)

@pytest.mark.e2e
def test_version_names_the_distribution(tmp_path):
    """`skilllint --version` says which distribution is installed: the PyPI project named
    skilllint is another tool with the same command."""
    from skilllint import DISTRIBUTION, __version__

    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout's skilllint, whatever is installed
    proc = subprocess.run([sys.executable, "-m", "skilllint", "--version"], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == f"skilllint {__version__} ({DISTRIBUTION})\n"
    assert DISTRIBUTION == "agent-skilllint" and proc.stderr == ""


@pytest.mark.e2e
def test_version_warns_when_the_other_skilllint_distribution_is_installed_too(tmp_path):
    """Both distributions install the `skilllint` package and command: with the other one in
    the same environment, files of one overwrite the other's, and `--version` says what to do."""
    site = tmp_path / "site"
    info = site / "skilllint-1.21.4.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: skilllint\nVersion: 1.21.4\n"
        "Summary: Static analysis linter for Claude Code plugins, skills, and agents\n",
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-m", "skilllint", "--version"], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0 and "(agent-skilllint)" in proc.stdout
    assert "the distribution `skilllint` 1.21.4 (Static analysis linter for Claude Code plugins" in proc.stderr
    assert "pip uninstall skilllint agent-skilllint`, then install agent-skilllint again" in proc.stderr


# A count and its noun agree in every output: "1 error", never "1 errors".
_DISAGREEING = re.compile(
    r"(?<![\d.,/~])1 (?:more )?(?:errors|warnings|skills|problems|findings|files|fixes|descriptions|places|notices|results|catalogs)\b"
    r"|\(s\)"
)


def _one_of_each(tmp_path: Path) -> Path:
    """One skill with one error (SL121, raised by the configuration) and one warning (SL122)."""
    write_skill(tmp_path, "one", "---\nname: one\ndescription: Does things. Use when asked.\nversion: 1\nbogus-key: x\n---\n# One\n")
    (tmp_path / ".skilllint.toml").write_text('[rules.SL121]\nseverity = "error"\n', encoding="utf-8")
    return tmp_path


def test_counts_agree_with_their_nouns_in_every_format(tmp_path):
    root = _one_of_each(tmp_path)
    seen = []
    for args in (["--output-format", "full"], ["--output-format", "github"], ["--statistics"], ["--output-format", "concise"]):
        code, out, err = run_cli("check", *args, "one", cwd=root)
        assert code == 1, err
        seen.append(out + err)
        assert not _DISAGREEING.search(out + err), (args, out + err)
    assert "(1 error, 1 warning, 0 info) in 1 skill." in seen[0] and "Found 2 problems in 1 skill." in seen[2]


def test_counts_agree_in_the_annotation_limit_notice(tmp_path):
    from skilllint.diagnostics import Diagnostic, Severity, Span
    from skilllint.lint.engine import LintResult
    from skilllint.output.github import limit_notice

    def diag(line, severity):
        return Diagnostic("SL101", "name-missing", severity, ("agentskills",), "m", tmp_path / "SKILL.md", Span(line, 1, line, 2))

    notice = limit_notice(LintResult([diag(1, Severity.ERROR)] + [diag(i, Severity.WARNING) for i in range(2, 13)], packages=1).diagnostics)
    assert "found 12 problems (1 error, 11 warnings, 0 info)" in notice and "1 warning is not annotated" in notice
    assert not _DISAGREEING.search(notice), notice


def test_counts_agree_in_catalog_findings_of_a_one_skill_catalog(tmp_path):
    """SL501-SL503 on a catalog of one skill: "a catalog of 1 skill", "its 1 description"."""
    write_skill(tmp_path / ".agents" / "skills", "solo", "---\nname: solo\ndescription: " + "Drafts release notes. " * 20 + "Use when asked.\n---\n# S\n")
    write_skill(tmp_path / ".claude" / "skills", "solo", "---\nname: solo\ndescription: " + "Drafts release notes. " * 20 + "Use when asked.\n---\n# S\n")
    messages = []
    for budget in ("60", "400"):
        (tmp_path / ".skilllint.toml").write_text(f"[catalog]\nbudget-chars = {budget}\n", encoding="utf-8")
        report = lint_json(".", "--target", "codex,claude-code", "--select", "SL5", "--no-cache", cwd=tmp_path)
        messages += [f"{d['code']}: {d['message']}" for d in report["diagnostics"]]
    assert {m[:5] for m in messages} >= {"SL501", "SL502", "SL503"}, messages
    for message in messages:
        assert not _DISAGREEING.search(message) and " 1 skills" not in message, message
