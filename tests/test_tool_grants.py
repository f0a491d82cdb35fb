"""What `allowed-tools` pre-approves (skilllint/skill/fields/tool_grants.py, SL805)."""

from __future__ import annotations

import pytest
from conftest import run_cli, write_skill

from skilllint.rule import Rule, severities
from skilllint.skill.fields.tool_grants import entries, too_broad


@pytest.mark.parametrize(
    ("value", "split"),
    [
        ("Read Grep Bash(git diff:*)", ["Read", "Grep", "Bash(git diff:*)"]),
        ("Read, WebFetch, Bash", ["Read", "WebFetch", "Bash"]),
        ("Read,Write,Bash(node:*),Bash(npx *eas-cli@*)", ["Read", "Write", "Bash(node:*)", "Bash(npx *eas-cli@*)"]),
        (["Read", " Bash(ls *) ", "", 3], ["Read", "Bash(ls *)"]),
        (None, []),
        ({"Bash": True}, []),
    ],
)
def test_entries_split_as_claude_code_splits_them(value, split):
    assert entries(value) == split


@pytest.mark.parametrize(
    "entry",
    [
        "Bash", "Bash(*)", "Bash(* )", "Bash(:*)", "Bash(sh:*)", "Bash(/bin/bash:*)", "Bash(bash -c:*)", "Bash(zsh -lc *)",
        "Bash(env:*)", "Bash(env LANG=C:*)", "Bash(sudo:*)", "Bash(timeout 60:*)", "Bash(xargs *)",
        "Bash(python3:*)", "Bash(python3.12 -c:*)", "Bash(node:*)", "Bash(perl -e *)", "PowerShell", "PowerShell(pwsh:*)",
        "Write", "Edit", "MultiEdit", "NotebookEdit", "Write(**)", "Edit(//**)", "Edit(/**)", "Write(~/**)",
        # a file of shell code, a package runner, a tool whose subcommand runs a command line
        "Bash(source:*)", "Bash(.:*)", "Bash(npx:*)", "Bash(uvx:*)", "Bash(npm:*)", "Bash(npm exec:*)", "Bash(uv:*)",
        "Bash(uv run:*)", "Bash(poetry run:*)", "Bash(pnpm dlx *)", "Bash(bundle exec:*)",
        # an install runs the package's build or lifecycle hooks; `run` runs the project's scripts
        "Bash(pip:*)", "Bash(pip install:*)", "Bash(pip3 install *)", "Bash(npm install:*)", "Bash(npm run:*)",
        "Bash(cargo run:*)", "Bash(go run:*)", "Bash(gem install:*)",
    ],
)
def test_what_approves_every_command_or_every_write(entry):
    assert too_broad(entry) is not None


@pytest.mark.parametrize(
    "entry",
    [
        "Read", "Grep", "Glob", "WebFetch", "Task", "mcp__sentry__search_issues", "mcp__plugin_asana_asana__*",
        "Bash(git diff:*)", "Bash(ls *)", "Bash(npm run test:*)", "Bash(python scripts/report.py:*)",
        "Bash(bash scripts/build.sh:*)", "Bash(sudo apt-get install:*)", "Bash(node build.js *)",
        "Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)", "Bash()", "Edit(/src/**)", "Write(reports/*.md)",
        "Edit(CHANGELOG.md)", "Azure MCP/documentation",
        # a lookup that runs nothing; a runner's subcommand that names what it runs
        "Bash(command -v:*)", "Bash(command -V *)", "Bash(npm exec eslint:*)", "Bash(uv run pytest:*)",
        "Bash(pip install requests:*)", "Bash(pip list:*)", "Bash(npm install lodash:*)", "Bash(cargo build:*)",
    ],
)
def test_scoped_grants_are_left_alone(entry):
    assert too_broad(entry) is None


def _sl805(tmp_path, frontmatter_tools: str) -> list[str]:
    write_skill(
        tmp_path,
        "notes",
        f"---\nname: notes\ndescription: Keeps meeting notes. Use when the user asks for notes.\n{frontmatter_tools}\n---\n\n# Notes\n",
    )
    code, out, _ = run_cli("check", "--target", "claude-code", "--select", "SL805", "--output-format", "concise", str(tmp_path))
    return [line.split(": warning: ")[0].rsplit("/", 1)[-1] for line in out.splitlines() if "[SL805]" in line]


def test_each_broad_entry_is_reported_where_it_is_written(tmp_path):
    assert _sl805(tmp_path, "allowed-tools: Read Bash(git log:*) Bash Write(**)") == ["SKILL.md:4:37", "SKILL.md:4:42"]


def test_a_list_entry_is_reported_at_its_item(tmp_path):
    assert _sl805(tmp_path, "allowed-tools:\n  - Read\n  - Bash(sh:*)\n  - Grep") == ["SKILL.md:6:5"]


def test_only_claude_code_is_told(tmp_path):
    write_skill(tmp_path, "notes", "---\nname: notes\ndescription: Keeps notes. Use when asked.\nallowed-tools: Bash\n---\n# Notes\n")
    code, out, _ = run_cli("check", "--target", "agentskills", "--select", "SL805", "--output-format", "concise", str(tmp_path))
    assert "SL805" not in out


def test_a_security_severity_out_of_range_is_refused_when_the_rule_is_defined():
    with pytest.raises(TypeError, match="security_severity"):

        class Graver(Rule):  # noqa: F841
            code = "SLX99"
            name = "graver"
            summary = "x"
            severity = severities("warning: all")
            security_severity = 11.0

            def check(self, package, ctx):
                return iter(())
