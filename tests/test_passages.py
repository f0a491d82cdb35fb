"""skilllint.skill.text.passages: whose files a passage names, read on its own (the SL301 behaviour on whole
skills is pinned in test_references.py), and a cost that grows with the text, not its square."""

from __future__ import annotations

import re
import time

import pytest

from skilllint.skill.text.passages import Passages


def judged(text: str, path: str, teaches: bool = False) -> bool:
    """The verdict on the first mention of ``path`` in ``text``."""
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        column = line.find(path)
        if column >= 0:
            return Passages(lines, 0, set(), teaches).not_the_skills(number, column, path)
    raise AssertionError(f"{path} not in the text")


@pytest.mark.parametrize(
    "text",
    [
        "see `model-selection`'s\n`references/catalog.md` for models",  # the owner on the line before
        "a `scripts/rotate.py` script would be helpful",
        "Add `references/orders.md` with a worked example.",
        "Save the report to `assets/report.html`.",
        "**File:** `scripts/loop.sh`\n\n```bash\necho start\n```",
        "Move detailed content to `references/`:\n\n- Patterns → `references/patterns.md`",
        "When building a hooks skill, the analysis shows:\n1. `references/patterns.md` for patterns",
        "> Auto-generated from docstrings.\n> Do not edit by hand: run `scripts/gen.py`.",
        "The scripts live in a local clone of the tools repository.\n\n## Use\n\nRun it: the entry point is `scripts/go.py`.",
    ],
)
def test_someone_elses_files(text):
    path = re.findall(r"(?:references|scripts|assets)/[\w./-]*\.\w+", text)[-1]
    assert judged(text, path)


@pytest.mark.parametrize(
    "text, teaches",
    [
        ("Read `references/checklist.md` before you start.", True),  # a use, even in a guide
        ("Run `scripts/check.py` on the input:\n\n```bash\npython scripts/check.py in.pdf\n```", False),
        ("The workflow uses:\n- `references/forms.md` for the field names", False),
        ("Field names are listed in `references/fields.md`.", False),
        ("it's `scripts/setup.sh` that installs the tools", False),
        ("Follow the skill's `references/steps.md`.", False),
    ],
)
def test_the_skills_own_files(text, teaches):
    path = re.findall(r"(?:references|scripts|assets)/[\w./-]*\.\w+", text)[0]
    assert not judged(text, path, teaches)


@pytest.mark.parametrize(
    "text",
    [
        # A tab indents to column 4: the ``` below is indented code text, not a fence, so the
        # line above it labels no fenced block (CommonMark; the oracle agrees, see test_markdown.py).
        "The field list is `references/fields.md`.\n\n\t```\n\tname: x\n\t```",
        # The block is the four-backtick one: the inner ```bash does not end it, and it names the file.
        "**File:** `scripts/loop.sh`\n\n````markdown\n```bash\nbash scripts/loop.sh\n```\n````",
    ],
)
def test_a_label_above_code_reads_the_fence_as_commonmark_does(text):
    path = re.findall(r"(?:references|scripts|assets)/[\w./-]*\.\w+", text)[0]
    assert not judged(text, path)


def test_a_guide_to_writing_skills_gives_away_what_it_does_not_tell_the_agent_to_use():
    text = "The patterns belong in `references/patterns.md`."
    assert judged(text, "references/patterns.md", teaches=True)
    assert not judged(text, "references/patterns.md", teaches=False)


def _seconds(lines: list[str], mentions: list[tuple[int, int, str]]) -> float:
    passages = Passages(lines, 0, set())
    start = time.perf_counter()
    for number, column, path in mentions:
        passages.not_the_skills(number, column, path)
    return time.perf_counter() - start


def _one_paragraph(count: int):
    line = " ".join(f"with `references/m{i}.md` and" for i in range(count))
    return [line], [(1, m.start() + 1, f"references/m{i}.md") for i, m in enumerate(re.finditer("`references/", line))]


def _one_list(count: int):
    lines = ["Move it to:"] + [f"- `references/x{i}.md` item" for i in range(count)]
    return lines, [(i + 2, 3, f"references/x{i}.md") for i in range(count)]


def _label_lines(count: int):
    lines = []
    for i in range(count):
        lines += [f"**File:** `scripts/s{i}.sh`", "```", "x" * 2000, "```"]
    return lines, [(4 * i + 1, 11, f"scripts/s{i}.sh") for i in range(count)]


@pytest.mark.parametrize("shape", [_one_paragraph, _one_list, _label_lines])
def test_judging_every_mention_costs_in_proportion_to_the_text(shape):
    # Eight times the mentions: linear work takes about eight times as long, work that
    # rereads the paragraph, the list or the code block per mention sixty-four times.
    small = min(_seconds(*shape(400)) for _ in range(3))
    large = _seconds(*shape(3200))
    assert large < 25 * small + 0.5, (small, large)
