"""SL513 routing-confusion: a skill's own words routed against the catalog its surface renders."""

from __future__ import annotations

from pathlib import Path

from conftest import LINEAR_AT_4X, growth, lint_json, write_skill
from skilllint.catalog.own_words import OPENING_WORDS, own_words

CHARTS = "---\nname: chart-maker\ndescription: Draws bar, line and pie charts from CSV data. Use when the user asks for a chart or a plot of tabular data.\n---\n\n# Chart maker\n\nReads a CSV file and draws the chart the user asks for with matplotlib.\n"
SALES_BODY = "\n# Monthly revenue charts by region\n\nDraws a bar chart of revenue per region and a line chart of revenue per month from the sales CSV export.\n"


def sales(description: str) -> str:
    return f"---\nname: sales-summary\ndescription: {description}\n---\n{SALES_BODY}"


def findings(root: Path, *args: str) -> list[dict]:
    return [d for d in lint_json("--select", "SL513", *args, str(root))["diagnostics"] if d["code"] == "SL513"]


def test_own_words_are_the_headings_that_say_what_and_the_opening():
    body = (
        "# PDF forms\n\n## Overview\n\nFill and flatten PDF forms with pypdf.\n\n"
        "```python\nimport secret_words_in_code\n```\n\n<!-- a hidden comment -->\n\n| table | cell |\n\n## Usage\n\nRun it.\n"
    )
    words = own_words(body)
    assert words.startswith("PDF forms ")  # "Overview" and "Usage" only structure the document
    assert "Overview" not in words and "Usage" not in words
    assert "Fill and flatten PDF forms with pypdf." in words and "Run it." in words
    assert "secret_words_in_code" not in words and "hidden" not in words and "table" not in words


def test_the_opening_stops_after_a_bounded_number_of_words():
    body = "Intro " + "word " * 500 + "\n\nlater paragraph never read\n"
    words = own_words(body).split()
    assert len(words) == OPENING_WORDS and "later" not in words


def test_markdown_links_keep_their_text_not_their_target():
    assert own_words("See [the form guide](references/secret-target.md) for <b>details</b>.") == "See the form guide for details ."


def test_a_body_that_routes_to_a_sibling_is_reported_once_for_every_target(tmp_path):
    skills = tmp_path / ".agents" / "skills"
    write_skill(skills, "chart-maker", CHARTS)
    write_skill(skills, "sales-summary", sales("Summarises a sales export for the weekly meeting."))
    (found,) = findings(tmp_path, "--target", "agentskills,codex")
    assert found["path"].endswith("sales-summary/SKILL.md") and found["line"] == 3
    assert "route first to 'chart-maker'" in found["message"]
    assert sorted(found["targets"]) == ["agentskills", "codex"]
    assert found["related"][0]["path"].endswith("chart-maker/SKILL.md")


def test_a_description_that_says_what_the_body_is_about_is_quiet(tmp_path):
    skills = tmp_path / ".agents" / "skills"
    write_skill(skills, "chart-maker", CHARTS)
    write_skill(skills, "sales-summary", sales("Charts monthly revenue by region from a sales CSV export: a bar chart per region, a line chart per month."))
    assert findings(tmp_path, "--target", "agentskills,codex") == []


def test_off_by_default(tmp_path):
    skills = tmp_path / ".agents" / "skills"
    write_skill(skills, "chart-maker", CHARTS)
    write_skill(skills, "sales-summary", sales("Summarises a sales export for the weekly meeting."))
    assert [d for d in lint_json(str(tmp_path))["diagnostics"] if d["code"] == "SL513"] == []


def test_a_skill_the_codex_budget_leaves_out_is_not_this_rules_to_report(tmp_path):
    skills = tmp_path / ".agents" / "skills"
    write_skill(skills, "chart-maker", CHARTS)
    write_skill(skills, "sales-summary", sales("Summarises a sales export for the weekly meeting."))
    (tmp_path / "skilllint.toml").write_text('[catalog]\nbudget-chars = 40\n', encoding="utf-8")
    # 40 characters hold no description: the catalog is names only, cut to nothing (SL501/SL502 say so)
    assert findings(tmp_path, "--target", "codex") == []


def test_a_hostile_body_costs_linear_time():
    body = lambda n: "[" * n + "\n" + "<" * n + "\n" + "# " + "a" * n + "\n"  # noqa: E731
    assert growth(own_words, body(50_000), body(200_000)) < LINEAR_AT_4X  # two sizes, by CPU time


TEMPLATED = """---
name: {slug}-automation
description: Automate {app} tasks via Rube MCP (Composio). Always search tools first for current schemas.
---

# {app} Automation via Rube MCP

Automate {app} operations through Composio's {app} toolkit via Rube MCP.

## Prerequisites

- Rube MCP must be connected and the {app} connection active.

## Core Workflows

Pagination tokens expire and rate limits apply to bulk requests.

## Known Pitfalls

Rate limits apply; retry with backoff after HTTP 429 and refresh expired pagination tokens.
"""


def test_lines_a_template_gives_many_skills_do_not_route(tmp_path):
    """In a generated collection every skill carries the template's section titles and standard
    lines ("Core Workflows", "Known Pitfalls", rate limits and pagination): they say what the
    template is, not what a skill is about, and would route every skill to the one sibling whose
    line speaks of rate limits. The product's name is what routes each skill."""
    skills = tmp_path / ".agents" / "skills"
    for app in ("Asana", "Trello", "Jira", "Notion", "Linear"):
        write_skill(skills, f"{app.lower()}-automation", TEMPLATED.format(app=app, slug=app.lower()))
    write_skill(
        skills,
        "api-retry",
        "---\nname: api-retry\ndescription: Handles rate limits, HTTP 429 retries with backoff, expired pagination tokens and "
        "bulk requests in API clients. Use when a client hits known pitfalls of paginated APIs.\n---\n\n# API retries\n\n"
        "Retries API calls with backoff.\n",
    )
    assert findings(tmp_path, "--target", "agentskills") == []
