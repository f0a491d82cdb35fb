"""SL901 unused-suppression: a suppression comment that suppressed nothing in this run (ruff's RUF100)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import LINEAR_CALLS_AT_4X, growth, run_cli, write_skill

DESCRIPTION = "Drafts release notes for the team. Use when the user asks for release notes."


def skill(name: str, body: str = "", description: str = DESCRIPTION, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\n{body}"


def lint(root: Path, *args: str) -> list[dict]:
    code, out, err = run_cli("check", "--output-format", "json", "--exit-zero", "--no-cache", "--target", "agentskills", *args, ".", cwd=root)
    assert code == 0, err
    return json.loads(out)["diagnostics"]


def unused(root: Path, *args: str) -> list[tuple[int, int, str]]:
    return [(d["line"], d["column"], d["message"]) for d in lint(root, *args) if d["code"] == "SL901"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_a_code_that_silenced_nothing_is_reported_at_the_code(root):
    write_skill(
        root,
        "skills/notes",
        skill(
            "notes",
            "<!-- skilllint-disable-next-line SL301 -- the build writes it -->\n"
            "Read `references/gone.md` when asked.\n"
            "<!-- skilllint-disable-next-line SL301, SL310 -- stale -->\n"
            "Plain text.\n",
        ),
    )
    found = unused(root)
    assert found == [
        (9, 34, "`SL301` in this suppression comment suppressed nothing: no SL301 finding on line 10"),
        (9, 41, "`SL310` in this suppression comment suppressed nothing: no SL310 finding on line 10"),
    ]
    assert "SL301" not in {d["code"] for d in lint(root)}  # the first comment did its work


def test_every_form_is_judged(root):
    write_skill(
        root,
        "skills/notes",
        skill(
            "notes",
            "<!-- skilllint-disable SL310 -->\nText.\n<!-- skilllint-enable SL310 -->\n"  # 8-10: a range
            "Text <!-- skilllint-disable-line SL301 -->\n"  # 11
            "<!-- skilllint-disable-file SL201 -->\n",  # 12
            extra="license: MIT  # skilllint: disable=SL121 -- kept for the marketplace\n",  # 4
        ),
    )
    messages = {line: message for line, _, message in unused(root)}
    assert messages == {
        4: "`SL121` in this suppression comment suppressed nothing: no SL121 finding on line 4",
        8: "`SL310` in this suppression comment suppressed nothing: no SL310 finding on lines 8-10",
        11: "`SL301` in this suppression comment suppressed nothing: no SL301 finding on line 11",
        12: "`SL201` in this suppression comment suppressed nothing: no SL201 finding in this file",
    }


def test_a_suppression_for_a_rule_that_did_not_run_is_not_unused(root):
    write_skill(root, "skills/notes", skill("notes", "<!-- skilllint-disable-file SL310 SL312 SL107 -->\nText.\n"))
    # SL310 runs by default; SL312 is opt-in; SL107 does not apply to agentskills
    assert [m for _, _, m in unused(root)] == ["`SL310` in this suppression comment suppressed nothing: no SL310 finding in this file"]
    assert unused(root, "--select", "SL1,SL901") == []  # SL310 not selected
    assert len(unused(root, "--extend-select", "SL312")) == 2
    assert unused(root, "--ignore", "SL901") == []


def test_blanket_comments_are_judged_and_cannot_silence_their_own_report(root):
    write_skill(
        root,
        "skills/notes",
        skill("notes", "Text <!-- skilllint-disable-line -->\n<!-- skilllint-disable-file -->\n<!-- skilllint-disable-next-line SL3 -->\nText.\n"),
    )
    assert [(line, column) for line, column, _ in unused(root)] == [(7, 11), (8, 6), (9, 34)]
    assert unused(root)[0][2] == "this suppression comment suppressed nothing: no finding on line 7"
    # a comment that names SL901 silences it; that one is used then
    write_skill(root, "skills/notes", skill("notes", "Text <!-- skilllint-disable-line -->\n<!-- skilllint-disable-file SL901 -->\n"))
    assert unused(root) == []


def test_a_redundant_disable_is_reported(root):
    write_skill(
        root,
        "skills/notes",
        skill("notes", "<!-- skilllint-disable SL301 -->\nSee `references/a.md`.\n<!-- skilllint-disable SL301 -->\nSee `references/b.md`.\n"),
    )
    assert [(line, m) for line, _, m in unused(root)] == [
        (9, "`SL301` in this suppression comment suppressed nothing: an earlier comment disabled SL301 here already")
    ]


def test_catalog_findings_count(root):
    write_skill(root, "skills/one", skill("one", extra="").replace(f"description: {DESCRIPTION}", f"description: {DESCRIPTION}  # skilllint: disable=SL510"))
    write_skill(root, "skills/two", skill("two"))
    assert {(d["code"], d["path"]) for d in lint(root)} == {("SL510", "skills/two/SKILL.md")}
    # the other skill's description differs now: SL510 ran on the catalog and found nothing
    write_skill(root, "skills/two", skill("two", description="Files expense reports from receipts. Use when the user sends a receipt."))
    assert [(line, m) for line, _, m in unused(root)] == [
        (3, "`SL510` in this suppression comment suppressed nothing: no SL510 finding on line 3")
    ]
    assert unused(root, "--ignore", "SL510") == []


def test_rules_never_cached_and_a_warm_cache_give_the_same_verdict(root, tmp_path):
    # SL520 is never cached: it runs in its own pass (in a forked process when the cache is warm
    # and the tree is large), and what its findings used must still count
    drafts = "<!-- skilllint-disable-file SL520 -- drafts stay hidden -->\n"
    write_skill(root, ".agents/skills/.drafts/notes", skill("notes", drafts))
    write_skill(root, ".agents/skills/tools", skill("tools", "<!-- skilllint-disable-file SL520 -->\n", description="Runs the tools. Use when asked to run tools."))
    for index in range(50):  # enough skills for the background process of a warm run
        write_skill(root, f".agents/skills/s{index:02}", skill(f"s{index:02}", description=f"Handles case {index} of the queue. Use when case {index} comes up."))
    cache = tmp_path / "cache"
    verdicts = []
    for _ in range(3):  # cold, warm, warm
        code, out, err = run_cli(
            "check", "--output-format", "json", "--exit-zero", "--target", "codex", "--cache-dir", str(cache), "--jobs", "2", ".", cwd=root
        )
        assert code == 0, err
        doc = json.loads(out)
        verdicts.append(sorted((d["path"], d["line"], d["message"]) for d in doc["diagnostics"] if d["code"] in ("SL901", "SL520")))
    assert verdicts[0] == [
        (
            ".agents/skills/tools/SKILL.md",
            7,
            "`SL520` in this suppression comment suppressed nothing: no SL520 finding in this file",
        )
    ]
    assert verdicts[1] == verdicts[0] and verdicts[2] == verdicts[0]


def test_fixes(root):
    text = skill(
        "notes",
        "<!-- skilllint-disable-next-line SL310 -- stale -->\n"  # 7: the whole line goes
        "Text <!-- skilllint-disable-line SL301, SL310 -->\n"  # 8: both unused: the comment goes
        "<!-- skilllint-disable-next-line SL301 SL310 SL311 -->\n"  # 9: SL301 used, the others go
        "See `references/gone.md`.\n"  # 10
        "Text <!-- skilllint-disable-line -->\n"  # 11: blanket: unsafe
        "<!-- skilllint-disable-file SL2 -->\n",  # 12: a prefix: unsafe
        extra="license: MIT  # skilllint: disable=SL121\n",
    )
    folder = write_skill(root, "skills/notes", text)
    code, out, err = run_cli("check", "--fix", "--no-cache", "--target", "agentskills", ".", cwd=root)
    fixed = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert fixed == skill(
        "notes",
        "Text\n"
        "<!-- skilllint-disable-next-line SL301 -->\n"
        "See `references/gone.md`.\n"
        "Text <!-- skilllint-disable-line -->\n"
        "<!-- skilllint-disable-file SL2 -->\n",
        extra="license: MIT\n",
    ), fixed
    # the second --fix changes nothing; the unsafe ones need --unsafe-fixes
    run_cli("check", "--fix", "--no-cache", "--target", "agentskills", ".", cwd=root)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == fixed
    run_cli("check", "--fix", "--unsafe-fixes", "--no-cache", "--target", "agentskills", ".", cwd=root)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == skill(
        "notes", "Text\n<!-- skilllint-disable-next-line SL301 -->\nSee `references/gone.md`.\nText\n", extra="license: MIT\n"
    )
    assert unused(root) == []


def test_a_comment_on_the_last_line_without_a_line_break_goes_with_the_break_before(root):
    folder = write_skill(root, "skills/notes", skill("notes", "Text.\n<!-- skilllint-disable-file SL201 -->"))
    run_cli("check", "--fix", "--no-cache", "--target", "agentskills", ".", cwd=root)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == skill("notes", "Text.")


def test_many_comments_are_judged_in_bounded_time(root):
    def tree(comments: int, codes: int) -> Path:
        lines = [f"Line {i} <!-- skilllint-disable-line SL301 SL3{i % 100:02} -->" for i in range(comments)]
        lines.append("<!-- skilllint-disable-file " + " ".join(f"SL{i}" for i in range(codes)) + " -->")
        write_skill(root / str(comments), "skills/notes", skill("notes", "\n".join(lines) + "\n"))
        ((root / str(comments)) / ".git").mkdir()
        return root / str(comments)

    small, large = tree(5_000, 25_000), tree(20_000, 100_000)
    assert len(unused(large, "--select", "ALL")) == 50  # at most 50 findings of one rule in one file
    # every comment once, every code once: four times of each, about four times the calls (each
    # comment judged against every other: sixteen)
    assert growth(lambda folder: unused(folder, "--select", "ALL"), small, large, measure="calls") < LINEAR_CALLS_AT_4X
