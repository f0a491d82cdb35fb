"""Each surface's frontmatter splitter, reproduced."""

from skilllint.skill.text import frontmatter
from skilllint.skill.text.frontmatter import SourceText


def split(text, how):
    return frontmatter.SPLITTERS[how](SourceText.from_text(text))


def test_canonical_split_and_body_start():
    s = split("---\nname: a\n---\n# Body\n", "canonical")
    assert (s.status, s.yaml, s.close_line) == ("ok", "name: a", 2)


def test_crlf_is_normalised_before_splitting():
    source = SourceText.from_text("---\r\nname: a\r\n---\r\nbody\r\n")
    assert source.crlf_lines == 4 and source.line_ending == "\r\n"
    assert frontmatter.canonical(source).yaml == "name: a"


def test_bom_is_tolerated_by_canonical_but_not_by_surfaces():
    text = "\ufeff---\nname: a\n---\n"
    assert split(text, "canonical").status == "ok"
    for how in ("skills-ref", "quick-validate", "codex"):
        assert split(text, how).status == "missing", how
    assert frontmatter.leading_junk(SourceText.from_text(text)) == "bom"


def test_leading_blank_lines_are_named():
    assert frontmatter.leading_junk(SourceText.from_text("\n\n---\nname: a\n---\n")) == "blank-lines"
    assert split("\n---\nname: a\n---\n", "canonical").status == "missing"


def test_skills_ref_splits_at_the_first_triple_dash_anywhere():
    text = "---\nname: a\ndescription: before --- after\n---\n"
    s = split(text, "skills-ref")
    assert s.status == "ok" and s.yaml == "\nname: a\ndescription: before "
    assert (s.close_line, s.close_column) == (2, 20)
    assert split(text, "canonical").close_line == 3


def test_quick_validate_closes_at_a_line_starting_with_dashes():
    text = "---\nname: a\n----- not yaml\nx: y\n---\n"
    assert split(text, "quick-validate").close_line == 2
    assert split(text, "canonical").close_line == 4


def test_codex_closes_at_an_indented_fence_inside_a_block_scalar():
    text = "---\ndescription: |\n  intro\n  ---\n  more\nname: a\n---\n"
    assert split(text, "codex").close_line == 3
    assert split(text, "canonical").close_line == 6


def test_codex_rejects_empty_frontmatter():
    assert split("---\n---\nbody\n", "codex").status == "empty"


def test_unclosed_and_missing():
    assert split("---\nname: a\n", "canonical").status == "unclosed"
    assert split("# hello\n---\n", "canonical").status == "missing"
    assert split("---\nname: a\n", "skills-ref").status == "unclosed"
