"""SL512 description-without-trigger beyond its rule-book example."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import lint_json, write_skill
from skilllint.catalog.description_trigger import find_trigger

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


# -- the cue list, on descriptions quoted from the corpus ---------------------------

PASSES = [
    "Use when implementing any feature or bugfix, before writing implementation code",
    "Fuzzing dictionaries guide fuzzers with domain-specific tokens. Use when fuzzing parsers, protocols, or format-specific code.",
    "Use this skill when a user needs a screenshot, website thumbnail, full-page capture, or PDF of a public webpage",
    "Ruzzy is a coverage-guided Ruby fuzzer by Trail of Bits. Use for fuzzing pure Ruby code and Ruby C extensions.",
    "You MUST use this before any creative work - creating features, building components, adding functionality.",
    "Hunts for the other instances of a bug already found. Use immediately after a vulnerability turns up in a file.",
    "Turn vague \"what did I do?\" into impact statements. Trigger for: \"brag\", \"log work\", \"what did I do\".",
    "Socratic mentoring for junior developers. Guides through questions, never answers. Triggers: \"help me understand\", \"I'm stuck\".",
    "Document analysis with inline source screenshots. When you ask Copilot to analyze a document, Eyeball generates a Word doc.",
    "Interactive training for the GitHub Copilot CLI. Guided lessons, quizzes and a full reference. Say \"cliexpert\" to start.",
    "When user is asking for guidance for which role to assign to an identity, this agent helps them.",
    "Guidance for distinctive, intentional visual design when building new UI or reshaping an existing one.",
    "Route gh-aw workflow design/create/debug/upgrade requests to the right prompts.",
    "Generate a map of all files relevant to a task before making changes",
    "Activate this skill when a student provides study material and a syllabus, and wants to prepare for an exam.",
    "Foundation skill for Power Automate. Load this skill first when connecting an agent to Power Automate.",
    "Whenever asked to create an issue, commit messages, to push code, or create a PR, use this skill.",
    "Design Azure infrastructure. When to use this skill: - \"Create X on Azure\"",
    "Diagnoses slow Qdrant search. Use when someone reports 'search is slow' or 'high latency'.",
    "Helps with deployment questions. Use PROACTIVELY after any change to the pipeline.",
]

FLAGS = [
    "Create a README.md file for the project",
    "Get best practices for C# async programming",
    "Toolkit for interacting with and testing local web applications using Playwright. Supports verifying frontend functionality, debugging UI behavior, capturing browser screenshots, and viewing browser logs.",
    "Safely analyzes and cleans up local git branches and worktrees by categorizing them as merged, squash-merged, superseded, or active work.",
    "React 18.3.1 and React 19 dependency compatibility matrix.",
    "Structured Autonomy Planning Prompt",
    # a condition on the input is not a trigger
    "Convert a text-based document to markdown following instructions from prompt, or if a documented option is passed, follow the instructions for that option.",
    # "answer a few questions" is a step of the workflow, not a request it serves
    "Interactive onboarding that learns your communication style. Paste in examples of updates, answer a few questions, and roundup calibrates itself.",
    # a scope, not a moment
    "CommunityToolkit.Mvvm Messenger pub/sub for decoupled communication. Use across WPF, WinUI 3, .NET MAUI, Uno, and Avalonia.",
    "Shuffle repetitive JSON objects safely by validating schema consistency before randomising entries.",
    "Syntax: `/remember [>domain [scope]] lesson clue` where scope is `global` (default), `user`, `workspace`, or `ws`.",
]


@pytest.mark.parametrize("text", PASSES)
def test_cue_found(text: str) -> None:
    assert find_trigger(text) is not None, text


@pytest.mark.parametrize("text", FLAGS)
def test_no_cue(text: str) -> None:
    assert find_trigger(text) is None, find_trigger(text)


def test_whitespace_and_case_do_not_matter() -> None:
    assert find_trigger("Reviews plans.\n  USE\n   WHEN the plan changes.") is not None


# -- the rule through the CLI --------------------------------------------------------


def sl512(tmp_path: Path, *extra: str) -> list[dict]:
    return lint_json(str(tmp_path), "--select", "SL512", *extra, cwd=tmp_path)["diagnostics"]


def skill(tmp_path: Path, name: str, frontmatter: str) -> None:
    write_skill(tmp_path, name, f"---\nname: {name}\n{frontmatter}---\n\n# {name}\n\nSteps.\n")


def test_reported_with_span_and_message(tmp_path: Path) -> None:
    skill(tmp_path, "readme-writer", "description: Create a README.md file for the project\n")
    [found] = sl512(tmp_path, "--target", "agentskills")
    assert found["code"] == "SL512"
    assert found["severity"] == "info"
    assert "not when to use it" in found["message"] and "Use when" in found["message"]
    assert (found["line"], found["column"]) == (3, 14)


def test_trigger_passes(tmp_path: Path) -> None:
    skill(tmp_path, "readme-writer", "description: Create a README.md file. Use when the user asks for a README.\n")
    assert sl512(tmp_path, "--target", "all") == []


@pytest.mark.parametrize(
    "frontmatter",
    [
        "",  # missing: SL111
        "description: ''\n",  # empty: SL112
        "description: '   '\n",  # blank: SL112
        "description: [a, b]\n",  # not a string: SL112
        "description: 42\n",
    ],
)
def test_missing_or_not_string_is_left_to_sl111_sl112(tmp_path: Path, frontmatter: str) -> None:
    skill(tmp_path, "odd", frontmatter)
    assert sl512(tmp_path, "--target", "all") == []


def test_block_scalar_description(tmp_path: Path) -> None:
    skill(tmp_path, "folded", "description: >\n  Reviews plans for risk.\n  Use when a plan\n  changes.\n")
    assert sl512(tmp_path, "--target", "agentskills") == []
    skill(tmp_path, "folded2", "description: >\n  Reviews plans\n  for risk.\n")
    assert len(sl512(tmp_path, "--target", "agentskills")) == 1


def test_when_to_use_spares_claude_code_only(tmp_path: Path) -> None:
    skill(
        tmp_path,
        "planner",
        "description: Reviews Terraform plans for risk.\nwhen_to_use: When the user shares a plan output.\n",
    )
    assert sl512(tmp_path, "--target", "claude-code") == []
    [found] = sl512(tmp_path, "--target", "claude-code,agentskills")
    assert found["targets"] == ["agentskills"]


def test_applies_to_every_target() -> None:
    from skilllint.rules.catalog.sl51x_selection import DescriptionWithoutTrigger
    from skilllint.targets import TARGETS

    for target_id in TARGETS:
        assert DescriptionWithoutTrigger.applies_to(target_id), target_id


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not available")
def test_corpus_count() -> None:
    """The measured figure in the rule book: 375 of 1,445 descriptions lack a trigger."""
    found = lint_json(str(CORPUS), "--select", "SL512", "--target", "agentskills")["diagnostics"]
    assert len(found) == 375
    paths = {d["path"] for d in found}
    assert not any("obra__superpowers" in p for p in paths)


@pytest.mark.parametrize(
    "description",
    [
        "Lints JavaScript. TRIGGERS - lint, eslint, style check",
        "Lints JavaScript. Keywords: lint, eslint, prettier",
        "Lints JavaScript. Trigger phrases – fix my lint errors",
    ],
)
def test_an_explicit_trigger_list_states_when(description: str) -> None:
    from skilllint.catalog.description_trigger import find_trigger

    assert find_trigger(description) is not None


def test_a_keyword_inside_prose_is_no_trigger_list() -> None:
    from skilllint.catalog.description_trigger import find_trigger

    assert find_trigger("Runs keyword-based search over key-value stores") is None
