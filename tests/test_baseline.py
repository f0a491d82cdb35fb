"""The baseline (`check --write-baseline FILE`, `check --baseline FILE`, `baseline = "…"`), end to end."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import deadline, run_cli, write_skill
from test_hostile import run as run_audited
from test_hostile import skill as hostile_skill
from test_hostile import tree  # noqa: F401 - a fixture
from test_hostile import usage_error

HEAD = "---\nname: notes\ndescription: Drafts release notes. Use when the user asks for release notes.\n---\n"


def body(*lines: str) -> str:
    return HEAD + "# Notes\n\n" + "\n".join(lines) + "\n"


def check(*args: str, cwd: Path) -> tuple[int, str, str]:
    return run_cli("check", *args, cwd=cwd)


def findings(*args: str, cwd: Path) -> tuple[dict, str]:
    code, out, err = run_cli("check", "--output-format", "json", *args, cwd=cwd)
    assert code in (0, 1), err
    return json.loads(out), err


def messages(doc: dict) -> list[str]:
    return [d["message"] for d in doc["diagnostics"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write_skill(root, "skills/notes", body("Read `references/missing-a.md` first.", "", "Then `references/missing-b.md`."))
    return root


def skill_md(repo: Path) -> Path:
    return repo / "skills" / "notes" / "SKILL.md"


# -- the round trip -----------------------------------------------------------------------------


def test_round_trip_survives_moved_lines_and_reports_only_what_changed(repo):
    before, _ = findings(".", cwd=repo)
    assert [d["code"] for d in before["diagnostics"]] == ["SL301", "SL301"]

    code, out, err = check("--write-baseline", "baseline.json", ".", cwd=repo)
    assert code == 0 and out == ""
    assert "wrote 2 baseline entries to baseline.json" in err

    # lines inserted above both findings: their line numbers move, the baseline still holds them
    skill_md(repo).write_text(
        body("A new first paragraph.", "", "Another one.", "", "Read `references/missing-a.md` first.", "", "Then `references/missing-b.md`."),
        encoding="utf-8",
    )
    code, out, err = check("--baseline", "baseline.json", ".", cwd=repo)
    assert code == 0, out + err
    assert "All checks passed" in out and "2 more findings in the baseline (not shown)." in out
    assert "no longer occur" not in out + err

    # a new problem: only it is reported, and it fails the run
    write_skill(repo, "skills/Bad_Name", "---\nname: Bad_Name\ndescription: Drafts. Use when asked.\n---\n")
    doc, _ = findings("--baseline", "baseline.json", ".", cwd=repo)
    assert [d["code"] for d in doc["diagnostics"]] == ["SL104"]
    assert doc["summary"]["baseline"] == {"file": "baseline.json", "matched": 2, "no_longer_occurring": 0}
    assert check("--baseline", "baseline.json", ".", cwd=repo)[0] == 1

    # a problem fixed: its entry no longer occurs, said on stderr, in the summary and in JSON
    shutil.rmtree(repo / "skills" / "Bad_Name")
    skill_md(repo).write_text(body("Read `references/missing-a.md` first."), encoding="utf-8")
    code, out, err = check("--baseline", "baseline.json", ".", cwd=repo)
    assert code == 0
    assert "1 baseline entry no longer occurs: `skilllint check --write-baseline baseline.json` drops it." in out
    assert "skilllint: 1 baseline entry no longer occurs" in err
    doc, _ = findings("--baseline", "baseline.json", ".", cwd=repo)
    assert doc["diagnostics"] == [] and doc["summary"]["baseline"]["no_longer_occurring"] == 1
    # and writing it again shrinks it
    assert "wrote 1 baseline entry" in check("--write-baseline", "baseline.json", ".", cwd=repo)[2]
    assert len(json.loads((repo / "baseline.json").read_text(encoding="utf-8"))["entries"]) == 1


def test_equal_keys_are_counted(repo):
    line = "See `references/gone.md`."
    skill_md(repo).write_text(body(line, "", line), encoding="utf-8")
    assert check("--write-baseline", "b.json", ".", cwd=repo)[0] == 0
    entries = json.loads((repo / "b.json").read_text(encoding="utf-8"))["entries"]
    assert len(entries) == 2 and entries[0]["fingerprint"] == entries[1]["fingerprint"]
    skill_md(repo).write_text(body(line, "", line, "", line), encoding="utf-8")
    doc, _ = findings("--baseline", "b.json", ".", cwd=repo)
    assert len(doc["diagnostics"]) == 1 and doc["summary"]["baseline"]["matched"] == 2
    skill_md(repo).write_text(body(line), encoding="utf-8")
    doc, _ = findings("--baseline", "b.json", ".", cwd=repo)
    assert doc["diagnostics"] == [] and doc["summary"]["baseline"]["no_longer_occurring"] == 1


def test_the_file_is_stable_sorted_json_for_review(repo):
    check("--write-baseline", "b.json", ".", cwd=repo)
    first = (repo / "b.json").read_bytes()
    assert first.endswith(b"}\n") and b"\r" not in first
    document = json.loads(first)
    assert document["version"] == 1
    entry = document["entries"][0]
    assert list(entry) == ["code", "path", "fingerprint", "message", "text"]
    assert entry["path"] == "skills/notes/SKILL.md" and entry["text"] == "references/missing-a.md"
    assert "does not exist" in entry["message"]
    assert all("line" not in e for e in document["entries"])
    # moving lines, or writing from elsewhere, gives the same bytes
    skill_md(repo).write_text(
        body("Intro.", "", "", "Then `references/missing-b.md`.", "", "Read `references/missing-a.md` first."), encoding="utf-8"
    )
    check("--write-baseline", str(repo / "b.json"), str(repo), cwd=repo.parent)
    assert (repo / "b.json").read_bytes() == first


def test_paths_are_relative_to_the_baseline_file_and_work_from_anywhere(repo, tmp_path):
    (repo / "ci").mkdir()
    assert check("--write-baseline", "ci/skilllint-baseline.json", "skills", cwd=repo)[0] == 0
    document = json.loads((repo / "ci" / "skilllint-baseline.json").read_text(encoding="utf-8"))
    assert {e["path"] for e in document["entries"]} == {"../skills/notes/SKILL.md"}
    # from a subfolder, naming the tree differently
    code, out, err = check("--baseline", "../ci/skilllint-baseline.json", "notes", cwd=repo / "skills")
    assert code == 0 and "All checks passed" in out, out + err
    # from outside the repository
    code, out, err = check("--baseline", str(repo / "ci" / "skilllint-baseline.json"), str(repo), cwd=tmp_path)
    assert code == 0 and "All checks passed" in out, out + err
    # another checkout, somewhere else
    moved = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(repo, moved)
    code, out, err = check("--baseline", "ci/skilllint-baseline.json", ".", cwd=moved)
    assert code == 0 and "All checks passed" in out, out + err


def test_a_different_finding_on_the_same_line_is_not_absorbed(repo):
    check("--write-baseline", "b.json", ".", cwd=repo)
    skill_md(repo).write_text(body("Read `references/missing-c.md` first.", "", "Then `references/missing-b.md`."), encoding="utf-8")
    doc, _ = findings("--baseline", "b.json", ".", cwd=repo)
    assert [d["message"].split("`")[1] for d in doc["diagnostics"]] == ["references/missing-c.md"]
    assert doc["summary"]["baseline"] == {"file": "b.json", "matched": 1, "no_longer_occurring": 1}


# -- configuration ------------------------------------------------------------------------------


def test_baseline_in_the_configuration_is_relative_to_it(repo):
    (repo / ".skilllint.toml").write_text('baseline = "lint/baseline.json"\n', encoding="utf-8")
    (repo / "lint").mkdir()
    assert check("--write-baseline", "lint/baseline.json", ".", cwd=repo)[0] == 0
    code, out, err = check(".", cwd=repo / "skills" / "notes")
    assert code == 0 and "2 more findings in the baseline" in out, out + err
    # --no-baseline reports everything; --baseline FILE replaces the configured one
    doc, _ = findings("--no-baseline", ".", cwd=repo)
    assert len(doc["diagnostics"]) == 2 and "baseline" not in doc["summary"]
    (repo / "empty.json").write_text('{"version": 1, "entries": []}\n', encoding="utf-8")
    doc, _ = findings("--baseline", "empty.json", ".", cwd=repo)
    assert len(doc["diagnostics"]) == 2 and doc["summary"]["baseline"]["matched"] == 0


def test_a_configured_baseline_that_is_missing_says_how_to_write_it(repo):
    (repo / ".skilllint.toml").write_text('baseline = "baseline.json"\n', encoding="utf-8")
    code, out, err = check(".", cwd=repo / "skills")
    assert code == 2 and out == ""
    assert "baseline.json: baseline file not found; `skilllint check --write-baseline ../baseline.json` writes one" in err
    # writing it needs no baseline to exist
    assert check("--write-baseline", "baseline.json", ".", cwd=repo)[0] == 0


def test_the_schema_knows_the_key(repo):
    (repo / ".skilllint.toml").write_text("baseline = 3\n", encoding="utf-8")
    code, _, err = check(".", cwd=repo)
    assert code == 2 and "baseline: 3 is not of type 'string'" in err


@pytest.mark.parametrize("value", ["../outside.json", "/etc/passwd", "~/baseline.json", "sub/../../outside.json"])
def test_a_configured_baseline_outside_its_project_is_refused(repo, value):
    (repo.parent / "outside.json").write_text('{"version": 1, "entries": []}\n', encoding="utf-8")
    (repo / ".skilllint.toml").write_text(f"baseline = {json.dumps(value)}\n", encoding="utf-8")
    code, out, err = check(".", cwd=repo)
    assert code == 2 and out == ""
    assert "leads outside" in err and "--baseline" in err and "Traceback" not in err
    # the command line may name any file
    doc, _ = findings("--baseline", str(repo.parent / "outside.json"), ".", cwd=repo)
    assert len(doc["diagnostics"]) == 2 and doc["summary"]["baseline"]["matched"] == 0


def test_a_configured_baseline_is_reached_through_real_folders_only(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "baseline.json").write_text('{"version": 1, "entries": []}\n', encoding="utf-8")
    os.symlink(outside, repo / "lint")
    (repo / ".skilllint.toml").write_text('baseline = "lint/baseline.json"\n', encoding="utf-8")
    code, out, err = check(".", cwd=repo)
    assert code == 2 and "cannot read the baseline" in err and "not a folder" in err, err
    # a link as the file itself is not followed either
    os.unlink(repo / "lint")
    (repo / "lint").mkdir()
    os.symlink(outside / "baseline.json", repo / "lint" / "baseline.json")
    code, out, err = check(".", cwd=repo)
    assert code == 2 and "symbolic link" in err, err


@pytest.mark.e2e
def test_a_configuration_shipped_in_the_tree_makes_skilllint_read_nothing_outside(tree):  # noqa: F811 - the fixture
    hostile_skill(tree.root, "skills/x")
    (tree.root / "skilllint.toml").write_text(f"baseline = {json.dumps(str(tree.canary))}\n", encoding="utf-8")
    assert "leads outside" in usage_error(run_audited(tree, "check", ".", label="baseline outside the tree", expect=(2,)))
    os.symlink(tree.canary.parent, tree.root / "lint")
    (tree.root / "skilllint.toml").write_text('baseline = "lint/canary.txt"\n', encoding="utf-8")
    said = usage_error(run_audited(tree, "check", ".", label="baseline through a link", expect=(2,)))
    assert "cannot read the baseline" in said
    os.unlink(tree.root / "lint")
    os.symlink(tree.canary, tree.root / "canary.json")
    (tree.root / "skilllint.toml").write_text('baseline = "canary.json"\n', encoding="utf-8")
    said = usage_error(run_audited(tree, "check", ".", label="baseline that is a link", expect=(2,)))
    assert "symbolic link" in said


# -- bad baseline files ---------------------------------------------------------------------------


BAD_FILES = {
    "not JSON": (b"{not json", "invalid JSON"),
    "not UTF-8": (b'{"version": 1, "entries": ["\xff"]}', "not UTF-8"),
    "a list": (b"[]", "expected a JSON object"),
    "no version": (b'{"entries": []}', "no integer `version`"),
    "a boolean version": (b'{"version": true, "entries": []}', "no integer `version`"),
    "a later version": (b'{"version": 2, "entries": []}', "format version 2; this skilllint reads version 1"),
    "no entries": (b'{"version": 1}', "`entries` is not a list"),
    "an entry that is no object": (b'{"version": 1, "entries": [3]}', "entries[0] is not an object"),
    "an entry without fingerprint": (
        b'{"version": 1, "entries": [{"code": "SL301", "path": "a"}]}',
        "entries[0]: `fingerprint` is not a non-empty string",
    ),
    "a path that is no string": (
        b'{"version": 1, "entries": [{"code": "SL301", "path": ["a"], "fingerprint": "x"}]}',
        "entries[0]: `path` is not a non-empty string",
    ),
    "deeply nested": (b'{"version": 1, "entries": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "not a skilllint baseline"),
    "empty": (b"", "invalid JSON"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_baseline_is_a_clear_error(repo, case):
    data, said = BAD_FILES[case]
    (repo / "b.json").write_bytes(data)
    code, out, err = check("--baseline", "b.json", ".", cwd=repo)
    assert code == 2 and out == "", err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skilllint: error: b.json: "), err
    assert said in lines[0]


def test_a_missing_baseline_or_one_that_is_no_file_is_a_clear_error(repo):
    code, _, err = check("--baseline", "nowhere.json", ".", cwd=repo)
    assert code == 2 and "nowhere.json: baseline file not found; `skilllint check --write-baseline nowhere.json` writes one" in err
    (repo / "folder.json").mkdir()
    code, _, err = check("--baseline", "folder.json", ".", cwd=repo)
    assert code == 2 and "cannot read the baseline (is a directory, not a regular file)" in err
    os.mkfifo(repo / "fifo.json")
    with deadline():  # a FIFO is refused, never waited on
        code, _, err = check("--baseline", "fifo.json", ".", cwd=repo)
    assert code == 2 and "cannot read the baseline" in err and "fifo" in err.lower()


def test_a_baseline_over_the_size_cap_is_refused_unread(repo, monkeypatch):
    from skilllint.app import baseline

    monkeypatch.setattr(baseline, "MAX_BASELINE_BYTES", 100)
    (repo / "b.json").write_text('{"version": 1, "entries": []}' + " " * 200, encoding="utf-8")
    code, _, err = check("--baseline", "b.json", ".", cwd=repo)
    assert code == 2 and "larger than 100 bytes" in err


def test_write_baseline_errors(repo):
    code, _, err = check("--write-baseline", "no/such/folder/b.json", ".", cwd=repo)
    assert code == 2 and "cannot write no/such/folder/b.json" in err
    (repo / "b.json").mkdir()
    code, _, err = check("--write-baseline", "b.json", ".", cwd=repo)
    assert code == 2 and "cannot write b.json" in err
    code, _, err = check("--write-baseline", "c.json", "--diff", ".", cwd=repo)
    assert code == 2 and "--write-baseline" in err and not (repo / "c.json").exists()
    code, _, err = check("--baseline", "x.json", "--no-baseline", ".", cwd=repo)
    assert code == 2 and "not allowed with argument" in err


def test_writing_replaces_the_file_atomically_and_never_writes_through_a_link(repo, tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("keep me\n", encoding="utf-8")
    os.symlink(target, repo / "b.json")
    assert check("--write-baseline", "b.json", ".", cwd=repo)[0] == 0
    assert target.read_text(encoding="utf-8") == "keep me\n"  # the link was replaced, not written through
    assert not (repo / "b.json").is_symlink() and json.loads((repo / "b.json").read_text(encoding="utf-8"))["version"] == 1
    assert [p.name for p in repo.iterdir() if p.name.startswith(".tmp-")] == []
    mask = os.umask(0)
    os.umask(mask)
    assert (repo / "b.json").stat().st_mode & 0o777 == 0o666 & ~mask  # as any new file the user makes


# -- one filter before every output -------------------------------------------------------------------


def test_statistics_sarif_and_github_output_leave_out_the_baseline(repo):
    check("--write-baseline", "b.json", ".", cwd=repo)
    write_skill(repo, "skills/Bad_Name", "---\nname: Bad_Name\ndescription: Drafts. Use when asked.\n---\n")
    code, out, _ = check("--baseline", "b.json", "--statistics", ".", cwd=repo)
    assert code == 1 and "SL104" in out and "SL301" not in out and "Found 1 problem" in out
    assert "2 more findings in the baseline (not shown)." in out
    code, out, _ = check("--baseline", "b.json", "--output-format", "github", "--report", "sarif=out.sarif", ".", cwd=repo)
    assert "SL104" in out and "SL301" not in out and "2 more findings in the baseline" in out
    results = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["SL104"]
    code, out, _ = check("--baseline", "b.json", "--output-format", "concise", ".", cwd=repo)
    assert out.count("\n") == 1 and "[SL104]" in out


def test_fix_first_then_filter(repo):
    text = HEAD.replace("---\n# ", "") + "# Notes\n\nRead `references/missing-a.md` first.\n"
    text = text.replace("description:", "version: 1.0\ndescription:")
    skill_md(repo).write_text(text, encoding="utf-8")
    check("--write-baseline", "b.json", "--target", "agentskills", ".", cwd=repo)
    codes = {e["code"] for e in json.loads((repo / "b.json").read_text(encoding="utf-8"))["entries"]}
    assert codes == {"SL122", "SL301"}
    code, out, err = check("--baseline", "b.json", "--fix", "--target", "agentskills", ".", cwd=repo)
    assert code == 0, out + err
    assert "version: 1.0" not in skill_md(repo).read_text(encoding="utf-8")  # fixed although accepted
    assert "Fixed 1 problem." in out and "1 baseline entry no longer occurs" in out


def test_the_cap_per_rule_and_file_does_not_hide_new_findings_behind_accepted_ones(repo):
    lines = [f"Step {i}: read `references/gone-{i}.md`." for i in range(70)]
    skill_md(repo).write_text(body(*lines), encoding="utf-8")
    code, _, err = check("--write-baseline", "b.json", ".", cwd=repo)
    assert "wrote 70 baseline entries" in err  # not the 50 a report shows
    doc, _ = findings("--baseline", "b.json", ".", cwd=repo)
    assert doc["diagnostics"] == [] and doc["summary"]["left_out"] == 0
    skill_md(repo).write_text(body(*lines, *[f"New {i}: `references/new-{i}.md`." for i in range(60)]), encoding="utf-8")
    doc, _ = findings("--baseline", "b.json", ".", cwd=repo)
    assert len(doc["diagnostics"]) == 50 and doc["summary"]["left_out"] == 10
    assert all("new-" in m for m in messages(doc))
    assert doc["summary"]["baseline"] == {"file": "b.json", "matched": 70, "no_longer_occurring": 0}


def test_a_name_that_is_not_utf8_or_hides_characters_round_trips(repo):
    weird = os.fsdecode(b"caf\xe9\xe2\x80\xae")  # a byte that is no UTF-8, then a bidi override
    write_skill(repo, f"skills/{weird}", "---\nname: Bad_Name\ndescription: Drafts. Use when asked.\n---\n")
    assert check("--write-baseline", "b.json", ".", cwd=repo)[0] == 0
    raw = (repo / "b.json").read_bytes()
    raw.decode("utf-8")  # the file is UTF-8 text
    assert b"\\udce9" in raw and b"\\u202e" in raw and "\u202e".encode() not in raw
    code, out, err = check("--baseline", "b.json", ".", cwd=repo)
    assert code == 0 and "All checks passed" in out, out + err


def test_only_entries_in_the_trees_searched_can_be_gone(repo):
    write_skill(repo, "skills/Other_Name", "---\nname: Other_Name\ndescription: Drafts. Use when asked.\n---\n")
    assert "wrote 3 baseline entries" in check("--write-baseline", "b.json", ".", cwd=repo)[2]
    # a pre-commit run names the changed files of one skill: the other skill's entry is not gone
    code, out, err = check("--baseline", "b.json", "skills/notes/SKILL.md", cwd=repo)
    assert code == 0 and "no longer occur" not in out + err, out + err
    code, out, err = check("--baseline", "b.json", "skills/notes", cwd=repo)
    assert code == 0 and "no longer occur" not in out + err, out + err
    # a skill deleted whole: a run over the folder that held it says its entry is gone
    shutil.rmtree(repo / "skills" / "Other_Name")
    assert "no longer occur" not in "".join(check("--baseline", "b.json", "skills/notes", cwd=repo)[1:])
    code, out, err = check("--baseline", "b.json", "skills", cwd=repo)
    assert "1 baseline entry no longer occurs" in out and "1 baseline entry no longer occurs" in err


def test_writing_from_a_run_on_some_skills_keeps_the_others_entries(repo):
    write_skill(repo, "skills/Other_Name", "---\nname: Other_Name\ndescription: Drafts. Use when asked.\n---\n")
    check("--write-baseline", "b.json", ".", cwd=repo)
    before = json.loads((repo / "b.json").read_text(encoding="utf-8"))["entries"]
    assert len(before) == 3
    skill_md(repo).write_text(body("Read `references/missing-a.md` first."), encoding="utf-8")
    code, _, err = check("--write-baseline", "b.json", "skills/notes/SKILL.md", cwd=repo)
    assert code == 0 and "wrote 2 baseline entries to b.json (1 kept for files or rules this run did not lint)" in err
    after = json.loads((repo / "b.json").read_text(encoding="utf-8"))["entries"]
    assert [e for e in after if "Other_Name" in e["path"]] == [e for e in before if "Other_Name" in e["path"]]
    assert len(after) == 2
    # a full run rewrites it whole
    shutil.rmtree(repo / "skills" / "Other_Name")
    assert "wrote 1 baseline entry to b.json\n" in check("--write-baseline", "b.json", ".", cwd=repo)[2]


def test_a_run_with_fewer_rules_neither_loses_nor_drops_the_others_entries(repo):
    write_skill(repo, "skills/Other_Name", "---\nname: Other_Name\ndescription: Drafts. Use when asked.\n---\n")
    check("--write-baseline", "b.json", ".", cwd=repo)  # SL301 twice, SL104
    code, out, err = check("--baseline", "b.json", "--select", "SL1", ".", cwd=repo)
    assert code == 0 and "no longer occur" not in out + err, out + err
    code, out, err = check("--baseline", "b.json", "--ignore", "SL104", ".", cwd=repo)
    assert code == 0 and "no longer occur" not in out + err, out + err
    code, _, err = check("--write-baseline", "b.json", "--select", "SL1", ".", cwd=repo)
    assert "wrote 3 baseline entries to b.json (2 kept for files or rules this run did not lint)" in err
    assert sorted(e["code"] for e in json.loads((repo / "b.json").read_text(encoding="utf-8"))["entries"]) == ["SL104", "SL301", "SL301"]
