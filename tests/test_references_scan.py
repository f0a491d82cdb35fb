"""The reference scan's shared work: fenced lines found once per file and kept on the
graph, the looser fence rule the path scan keeps, and the cheap pre-filters of the
generic-pointer search (SL306/SL311), each pinned to what it stands for."""

from __future__ import annotations

import re

import pytest

from skilllint.skill.text import markdown
from skilllint.skill.package import SkillPackage
from skilllint.skill.references import generic_pointers as rules

from conftest import write_skill
from skilllint.skill.references.graph import reference_graph

FRONT = "---\nname: demo\ndescription: D. Use when x.\n---\n"


def package_of(tmp_path, body, files=()):
    skill = write_skill(tmp_path, "demo", FRONT + body)
    for rel, text in files:
        path = skill / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return SkillPackage(skill, tmp_path)


def test_the_graph_keeps_each_scanned_files_fenced_lines(tmp_path):
    body = "See [a](references/a.md).\n\n```bash\ncat references/gone.md\n```\n"
    files = [("references/a.md", "Intro\n~~~\n[b](b.md)\n~~~\n[b](b.md)\n"), ("references/b.md", "end\n")]
    package = package_of(tmp_path, body, files)
    graph = reference_graph(package)
    assert set(graph.fenced) == set(graph.texts) == {"SKILL.md", "references/a.md", "references/b.md"}
    for source, text in graph.texts.items():
        offset = package.body_start_line if source == "SKILL.md" else 0
        assert graph.fenced[source] == markdown.fenced_lines(text.split("\n"), offset)
    assert graph.fenced["SKILL.md"] == {7, 8, 9}  # file lines: the body starts on line 5
    assert graph.fenced["references/a.md"] == {2, 3, 4}
    assert [(r.source, r.line) for r in graph.references] == [("SKILL.md", 5), ("references/a.md", 5)]


@pytest.mark.parametrize("indent", ["\t", "\u00a0", " \t "])
def test_paths_in_a_fence_indented_with_other_whitespace_are_skipped(tmp_path, indent):
    # The path scan opens a fence after up to 3 whitespace characters of any kind
    # (CommonMark allows spaces only): its paths are code, not references.
    body = f"Intro.\n{indent}```\npython scripts/run.py\n{indent}```\nThen scripts/run.py.\n"
    graph = reference_graph(package_of(tmp_path, body, [("scripts/run.py", "")]))
    assert [(r.line, r.kind, r.path) for r in graph.references] == [(9, "plain", "scripts/run.py")]


def test_the_path_scan_closes_a_fence_on_any_marker_with_its_first_three_characters(tmp_path):
    # ```` opens both; ``` closes the path scan's fence (not CommonMark's: too short), and the
    # last ```` opens the path scan's again: scripts/c.py is code to it, the link is a link.
    body = "````\nscripts/a.py\n```\nscripts/b.py\n````\nscripts/c.py [c](scripts/c.py)\n"
    graph = reference_graph(package_of(tmp_path, body, [("scripts/a.py", ""), ("scripts/b.py", ""), ("scripts/c.py", "")]))
    assert [(r.line, r.kind, r.path) for r in graph.references] == [(10, "link", "scripts/c.py")]


@pytest.mark.parametrize(
    "top, words",
    [
        ({"references", "scripts", "assets"}, ("reference", "scripts", "assets")),  # "references" holds "reference"
        ({"Docs", "template"}, ("docs", "templates")),
        ({"doc"}, ("docs",)),  # "docs" names a `doc/` folder too
        ({"src", "lib"}, ()),
        (set(), ()),
        ({"references", "ſcripts"}, None),  # a non-ASCII name: every line may name it
    ],
)
def test_pointer_words_are_the_words_that_can_name_a_folder(top, words):
    assert rules._pointer_words(top) == words


def test_folder_word_forms_are_what_the_pointer_pattern_can_name():
    # The pre-filter looks for these forms: a word _FOLDER_WORDS gained later must be listed too.
    pattern = rules._FOLDER_WORDS.pattern
    forms = set()
    for group in ("word", "plural"):
        alternatives = re.search(rf"\(\?P<{group}>([a-z?|]+)\)", pattern).group(1)
        for alternative in alternatives.split("|"):
            forms.update({alternative[:-2], alternative[:-1]} if alternative.endswith("?") else {alternative})
    assert forms == set(rules._FOLDER_WORD_FORMS)


def test_pointer_words_agree_with_folder_for_word():
    for top in ({"references"}, {"Scripts", "docs"}, {"workflow", "examples"}, {"resource"}):
        words = rules._pointer_words(top)
        for form in rules._FOLDER_WORD_FORMS:
            if rules._folder_for_word(form, top) is not None:
                assert any(word in form for word in words), (top, form)


def test_lines_with_words_ignore_ascii_letter_case():
    text = "intro\nCheck the REFERENCES folder.\nno\nsee Scripts/\nthe reference é😀 guide\n"
    assert rules._lines_with_words(text, ("reference", "scripts"), 10) == {12, 14, 15}
    assert rules._lines_with_words(text, (), 10) == set()


@pytest.mark.parametrize(
    "body, folder",
    [
        ("If anything is unclear, check the REFERENCES folder.\n", "references"),
        ("If anything is unclear, check the Scripts directory.\n", "scripts"),
        ("If anything is unclear, check the ſcripts folder.\n", "ſcripts"),  # re's IGNORECASE: ſ is s
        ("For details, see `references/`.\n", "references"),
    ],
)
def test_generic_pointers_found_past_the_prefilters(tmp_path, body, folder):
    package = package_of(tmp_path, body, [(f"{folder}/a.md", "x\n"), (f"{folder}/b.md", "y\n")])
    assert [(p.line, p.message.split(" without")[0]) for p in rules._find_generic_pointers(package)] == [
        (5, f"this sentence points to the folder `{folder}/`")
    ]
