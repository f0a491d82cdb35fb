"""SL704: Claude Code's argument substitution in SKILL.md's code (skilllint/rules/scripts/sl70x_scripts.py, skilllint/argument_substitution.py).

Claude Code replaces `$N` (``/\\$(\\d+)(?!\\w)/g``) in SKILL.md's body with the skill's
arguments, code blocks included. The rule reports a `$N` in code written for another
program (awk, SQL, a regex replacement, a shell script, a programming language),
and in other code only when the skill takes no arguments.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import deadline, lint_json, write_skill

from skilllint.skill.scripts import argument_substitution as S

FENCE = "```"


def skill(base: Path, body: str, frontmatter: str = "", files: dict[str, str] | None = None) -> Path:
    (base / ".git").mkdir(parents=True, exist_ok=True)
    text = (
        "---\nname: demo\ndescription: A test skill for argument substitution. Use when testing skilllint.\n"
        f"{frontmatter}---\n\n# demo\n\n{body}"
    )
    folder = write_skill(base, "demo", text)
    for rel, content in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(content, encoding="utf-8")
    return folder


def findings(folder: Path, target: str = "claude-code") -> list[dict]:
    return lint_json("--target", target, "--select", "SL704", str(folder), cwd=folder.parent)["diagnostics"]


def places(found: list[dict]) -> list[tuple[int, int]]:
    return [(d["line"], d["column"]) for d in found]


# Body line n is SKILL.md line n + 7 (frontmatter of 4 lines, a blank, the title, a blank).
FOREIGN = f"""List them: `git branch -v | awk '{{print $1}}'`.

{FENCE}bash
free -g | awk 'NR==2 {{print "free:", $4}}'
echo "${{1}}" and $(1) and $1x and $ARGUMENTS[1]
{FENCE}

{FENCE}python
rows = await pool.fetch("SELECT * FROM users WHERE id = $1", user_id)
name = re.sub(r"(\\w+)", "<$1>", name)
{FENCE}

{FENCE}sh
usage() {{
  echo "Usage: $0 target"
}}
{FENCE}

{FENCE}perl
print "$1\\n" if /(\\d+)/;
{FENCE}
"""


@pytest.mark.parametrize("frontmatter", ["", "argument-hint: '[branch]'\n"])
def test_code_written_for_another_program_is_reported_whether_or_not_the_skill_takes_arguments(tmp_path, frontmatter):
    found = findings(skill(tmp_path, FOREIGN, frontmatter))
    offset = 8 + (1 if frontmatter else 0)  # SKILL.md line of body line 1
    assert places(found) == [
        (offset, 41),  # awk in a code span
        (offset + 3, 38),  # awk in a shell block; `${1}`, `$(1)`, `$1x` and `$ARGUMENTS[1]` on the next line are not `$N`
        (offset + 8, 57),  # SQL
        (offset + 9, 27),  # a regex replacement
        (offset + 14, 16),  # a shell function's `$0`
        (offset + 19, 8),  # perl
    ], found
    messages = [d["message"] for d in found]
    assert messages[0] == (
        "`$1` in this awk program is Claude Code's argument placeholder: when the skill is invoked, Claude Code "
        "replaces `$1` with the skill's 2nd argument, or with nothing when fewer are given, before the model reads "
        "SKILL.md, code blocks included; write the field as `$(1)`, which awk reads the same and Claude Code leaves alone"
    )
    assert "in this SQL" in messages[2] and "named parameters" in messages[2]
    assert "in this regex replacement" in messages[3] and "`${1}`" in messages[3]
    assert "`$0` in this shell script" in messages[4] and "1st argument" in messages[4] and "write `${0}`" in messages[4]
    assert "in this perl code" in messages[5]
    assert all(d["severity"] == "warning" for d in found)


PLAIN = f"""Check out the branch: `git checkout $1`.

{FENCE}bash
gh pr view $1 --json title
{FENCE}

{FENCE}
$0 and $2 in an untagged block
{FENCE}
"""


def test_plain_code_is_reported_when_the_skill_takes_no_arguments(tmp_path):
    found = findings(skill(tmp_path, PLAIN))
    assert places(found) == [(8, 37), (11, 12), (15, 1)], found
    assert "`$0` and `$2` in this code are Claude Code's argument placeholders" in found[2]["message"]
    assert "declare `argument-hint`" in found[2]["message"]


@pytest.mark.parametrize(
    "frontmatter, extra",
    [
        ("argument-hint: '[pr-number]'\n", ""),
        ("arguments: [pr]\n", ""),
        ("", "Review $ARGUMENTS.\n"),
        ("", "The pull request is $0; its base branch is $1.\n"),
    ],
)
def test_plain_code_is_the_feature_when_the_skill_takes_arguments(tmp_path, frontmatter, extra):
    assert findings(skill(tmp_path, PLAIN + extra, frontmatter)) == []


def test_amounts_and_prose_are_not_code(tmp_path):
    body = (
        "A run costs $1 or $2.50; the threshold is $600.\n\n"
        f"{FENCE}\nRevenue: $52.3M (exceeded by $2.3M), CAC $1,200, paid $600 YTD\n{FENCE}\n\n"
        f"{FENCE}python\nprice = 2000  # $20.00\n{FENCE}\n"
    )
    assert findings(skill(tmp_path, body)) == []


def test_a_backslash_does_not_escape(tmp_path):
    body = f"{FENCE}python\nprint(r'\\$1')\n{FENCE}\n"
    assert places(findings(skill(tmp_path, body))) == [(9, 10)]


def test_only_skill_md_is_substituted(tmp_path):
    files = {"references/queries.md": f"{FENCE}sql\nSELECT * FROM t WHERE id = $1\n{FENCE}\n", "scripts/run.sh": 'echo "$1"\n'}
    assert findings(skill(tmp_path, "See references/queries.md.\n", files=files)) == []


def test_only_claude_code_substitutes(tmp_path):
    folder = skill(tmp_path, FOREIGN)
    assert findings(folder, "agentskills") == []
    assert findings(folder, "codex") == []


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("$1", ["1"]),
        ("$10 $0", ["10", "0"]),
        ("$1x $1_ $12a", []),  # a word character after the digits: no placeholder
        ("$1- $1. $1é $1)", ["1", "1", "1", "1"]),  # JavaScript's \w is ASCII
        ("${1} $(1) $ARGUMENTS[1] $a1", []),
        ("\\$1 $$2", ["1", "2"]),
    ],
)
def test_the_placeholder_pattern_is_claude_codes(text, tokens):
    assert [m.group(1) for m in S.POSITIONAL.finditer(text)] == tokens


# -- hostile input ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_line_of_many_placeholders_is_judged_in_linear_time(tmp_path, monkeypatch):
    # Every question about a line (an awk call before the token? SQL? a replacement call?) is asked once
    # per line: asked once per token, a line of 100,000 `$1` costs 100,000 scans of the line. The
    # questions are counted: the searches of their patterns, for two pieces of code.
    from skilllint.skill.scripts import argument_substitution

    class Counted:
        def __init__(self, pattern):
            self.pattern, self.searches = pattern, 0

        def search(self, *args, **kwargs):
            self.searches += 1
            return self.pattern.search(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self.pattern, name)

    questions = {name: Counted(getattr(argument_substitution, name)) for name in ("_AWK_CALL", "_SQL_WORDS", "_REPLACEMENT_CALL")}
    for name, counted in questions.items():
        monkeypatch.setattr(argument_substitution, name, counted)
    tokens = 100_000
    line = "x = s.replace(/a/, 'b'); awk '{print " + "$1 " * tokens + "}' WHERE"
    body = f"{FENCE}python\n{line}\n{FENCE}\n\n`awk '{{print {'$1 ' * tokens}}}'`\n"
    folder = skill(tmp_path, body)
    with deadline():  # a hang guard
        found = findings(folder)
    assert places(found) == [(9, 38), (12, 14)]
    assert "`$1` in this awk program" in found[0]["message"] and "`$1` in this awk program" in found[1]["message"]
    asked = {name: counted.searches for name, counted in questions.items()}
    assert all(count <= 2 for count in asked.values()), asked  # once per piece of code, not per token
