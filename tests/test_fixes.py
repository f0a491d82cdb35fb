"""Each fix on a realistic, hand-formatted SKILL.md: exactly the intended bytes change.

Every case writes a skill, runs ``skilllint check --fix`` (or ``--unsafe-fixes``)
in-process, and compares the whole file with the expected text, so a fix that
touched a comment, a quote, an indent or a line ending elsewhere fails. The
edit model and the frontmatter round trip are tested below, and a hypothesis
property test generates frontmatter with comments and odd quoting.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilllint.skill.fields import frontmatter_fixes
from skilllint.skill.text import yamledit, yamltree
from skilllint.diagnostics import Edit, Span
from skilllint.edits import LineIndex, apply_edits, edit, edits_between, offsets
from skilllint.skill.package import SkillPackage

from conftest import LINEAR_CALLS_AT_4X, growth, run_cli, write_skill


def fixed(tmp_path: Path, folder: str, text: str | bytes, *flags: str) -> tuple[str, str, str]:
    """Write the skill, run `check --fix` with ``flags``; return (new text, stdout, stderr)."""
    skill = write_skill(tmp_path, folder, text)
    code, out, err = run_cli("check", "--fix", "--exit-zero", *flags, folder, cwd=tmp_path)
    assert code == 0, err
    return (skill / "SKILL.md").read_bytes().decode("utf-8"), out, err


def findings(tmp_path: Path, folder: str, *flags: str) -> list[dict]:
    code, out, err = run_cli("check", "--output-format", "json", "--exit-zero", *flags, folder, cwd=tmp_path)
    assert code == 0, err
    return json.loads(out)["diagnostics"]


BODY = "\n# PDF form filler\n\nFill the form with `pdftk`; check every page before handing it back.\n"


# -- SL122 top-level version -> metadata.version ---------------------------------------------


def test_sl122_moves_version_in_place_when_there_is_no_metadata(tmp_path):
    text = (
        "---\n"
        "# Skill manifest: keep keys in this order.\n"
        "name: pdf-form-filler\n"
        "description: 'Fills PDF forms: from JSON, CSV or a list. Use when asked to fill a form.'\n"
        "version: 1.3.0   # bump on every release\n"
        "license: MIT  # see LICENSE\n"
        "---\n" + BODY
    )
    new, out, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL122")
    assert new == text.replace(
        "version: 1.3.0   # bump on every release\n", 'metadata:\n  version: "1.3.0"   # bump on every release\n'
    )
    assert "Fixed 1 problem." in out and "All checks passed" in out


def test_sl122_appends_to_an_existing_metadata_block_in_its_indentation(tmp_path):
    text = (
        "---\n"
        "name: pdf-form-filler\n"
        "version: '2.0'  # quoted on purpose\n"
        "description: >\n"
        "  Fills PDF forms from structured data.\n"
        "  Use when the user asks to fill a form.\n"
        "metadata:\n"
        "    author: forms-team   # owner\n"
        "    # tags are comma-separated\n"
        "    tags: \"pdf, forms\"\n"
        "\n"
        "# licence last\n"
        "license: Apache-2.0\n"
        "---\n" + BODY
    )
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL122")
    expected = text.replace("version: '2.0'  # quoted on purpose\n", "").replace(
        '    tags: "pdf, forms"\n', "    tags: \"pdf, forms\"\n    version: '2.0'  # quoted on purpose\n"
    )
    assert new == expected


def test_sl122_drops_a_duplicate_of_metadata_version(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Fills PDF forms.\nversion: 1.0\nmetadata:\n  version: \"1.0\"\n---\n" + BODY
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL122")
    assert new == text.replace("version: 1.0\n", "", 1)


def test_sl122_leaves_a_conflicting_metadata_version_to_the_author(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Fills PDF forms.\nversion: 2.0\nmetadata:\n  version: \"1.0\"\n---\n" + BODY
    write_skill(tmp_path, "pdf-form-filler", text)
    (finding,) = findings(tmp_path, "pdf-form-filler", "--select", "SL122")
    assert finding["fix"] is None
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL122")
    assert new == text


def test_sl122_into_an_empty_metadata_key(tmp_path):
    text = "---\nname: pdf-form-filler\nmetadata:   # filled in later\ndescription: Fills PDF forms.\nversion: 3\n---\n" + BODY
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL122")
    assert new == (
        "---\nname: pdf-form-filler\nmetadata:   # filled in later\n  version: \"3\"\ndescription: Fills PDF forms.\n---\n" + BODY
    )


# -- SL005 unquoted `: ` --------------------------------------------------------------------------


def test_sl005_quotes_the_value_and_keeps_the_comment_a_comment(tmp_path):
    text = (
        "---\n"
        "name: pdf-form-filler\n"
        "description: Fills PDF forms. Use when: the user has a form   # trigger phrase\n"
        "license: MIT\n"
        "---\n" + BODY
    )
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL005")
    assert new == text.replace(
        "description: Fills PDF forms. Use when: the user has a form   # trigger phrase",
        'description: "Fills PDF forms. Use when: the user has a form"   # trigger phrase',
    )


def test_sl005_fixes_several_lines_over_passes(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Use when: forms\ncompatibility: Needs: pdftk \"2.x\"\n---\n" + BODY
    new, out, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL005")
    assert new == (
        '---\nname: pdf-form-filler\ndescription: "Use when: forms"\ncompatibility: "Needs: pdftk \\"2.x\\""\n---\n' + BODY
    )
    assert "Fixed 2 problems." in out
    assert yamltree.to_python(yamltree.parse(new.split("---\n")[1]).root, "yaml12")["compatibility"] == 'Needs: pdftk "2.x"'


def test_sl005_no_fix_for_a_value_continued_on_the_next_line(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Fills forms. Use when: asked\n  to fill a PDF form\n---\n" + BODY
    write_skill(tmp_path, "pdf-form-filler", text)
    assert all(d["fix"] is None for d in findings(tmp_path, "pdf-form-filler", "--select", "SL005"))


# -- SL106 / SL104 name -> folder name (unsafe) ---------------------------------------------------


def test_sl106_name_differing_in_case_and_underscores_is_set_to_the_folder_name(tmp_path):
    text = "---\nname: 'PDF_Form Filler'   # display name\ndescription: Fills PDF forms.\n---\n" + BODY
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL106")
    assert new == text, "unsafe: not applied by --fix alone"
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL106", "--unsafe-fixes")
    assert new == text.replace("'PDF_Form Filler'", "'pdf-form-filler'")


def test_sl106_no_fix_when_the_name_is_another_word(tmp_path):
    text = "---\nname: form-helper\ndescription: Fills PDF forms.\n---\n" + BODY
    write_skill(tmp_path, "pdf-form-filler", text)
    (finding,) = findings(tmp_path, "pdf-form-filler", "--select", "SL106")
    assert finding["fix"] is None


def test_sl104_invalid_name_becomes_the_folder_name_with_unsafe_fixes(tmp_path):
    text = "---\nname: Form Filler!  # TODO rename\ndescription: Fills PDF forms.\n---\n" + BODY
    write_skill(tmp_path, "pdf-form-filler", text)
    (finding,) = findings(tmp_path, "pdf-form-filler", "--select", "SL104")
    assert finding["fix"]["applicability"] == "unsafe"
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL104", "--unsafe-fixes")
    assert new == text.replace("Form Filler!", "pdf-form-filler")


def test_no_name_fix_when_the_folder_name_is_itself_invalid(tmp_path):
    text = "---\nname: pdf_tools\ndescription: Fills PDF forms.\n---\n" + BODY
    write_skill(tmp_path, "PDF_Tools", text)
    assert all(d["fix"] is None for d in findings(tmp_path, "PDF_Tools", "--select", "SL104,SL106"))


# -- SL124 non-string metadata values -------------------------------------------------------------


def test_sl124_quotes_numbers_dates_and_booleans_keeping_their_text(tmp_path):
    text = (
        "---\n"
        "name: pdf-form-filler\n"
        "description: Fills PDF forms.\n"
        "metadata:\n"
        "  version: 1.10        # not 1.1!\n"
        "  updated: 2026-03-06\n"
        "  beta: yes\n"
        "  owner: 'forms team'\n"
        "  reviewer:            # nobody yet\n"
        "---\n" + BODY
    )
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL124")
    assert new == (
        # the comment keeps its column (the quotes take two of its leading spaces)
        text.replace("version: 1.10        #", 'version: "1.10"      #')
        .replace("updated: 2026-03-06", 'updated: "2026-03-06"')
        .replace("beta: yes", 'beta: "yes"')
    )


# -- SL125 allowed-tools --------------------------------------------------------------------------


def test_sl125_block_list_becomes_one_line_keeping_the_key_comment(tmp_path):
    text = (
        "---\n"
        "name: pdf-form-filler\n"
        "description: Fills PDF forms.\n"
        "allowed-tools:   # what the skill may run\n"
        "  - Read\n"
        "  - Bash(pdftk:*)\n"
        "license: MIT\n"
        "---\n" + BODY
    )
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL125")
    assert new == text.replace(
        "allowed-tools:   # what the skill may run\n  - Read\n  - Bash(pdftk:*)\n",
        "allowed-tools: Read Bash(pdftk:*) # what the skill may run\n",  # ruamel's spacing: the smaller change
    )


@pytest.mark.parametrize(
    "before, after",
    [
        ("allowed-tools: [Read, Write]  # flow", "allowed-tools: Read Write  # flow"),
        ("allowed-tools: 'Read, Grep, Bash(git log:*)'", "allowed-tools: 'Read Grep Bash(git log:*)'"),
        ("allowed-tools: ['Azure MCP/docs', Read]", None),  # a tool name with a space
        ("allowed-tools: \"Read, Grep\"", 'allowed-tools: "Read Grep"'),
        ("allowed-tools:\n  - Read   # files\n  - Grep", None),  # a comment inside the list would be lost
    ],
)
def test_sl125_forms(tmp_path, before, after):
    text = f"---\nname: pdf-form-filler\ndescription: Fills PDF forms.\n{before}\n---\n" + BODY
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL125")
    assert new == (text if after is None else text.replace(before, after))


# -- SL008 CRLF and SL003 BOM ---------------------------------------------------------------------


def test_sl008_converts_crlf_to_lf_and_nothing_else(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Fills PDF forms.  # crlf\n---\n" + BODY
    new, _, _ = fixed(tmp_path, "pdf-form-filler", text.replace("\n", "\r\n").encode(), "--select", "SL008")
    assert new == text


def test_fixes_keep_crlf_when_sl008_is_not_selected(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Fills PDF forms.\nversion: 1.0\n---\n" + BODY
    crlf = text.replace("\n", "\r\n")
    new, _, _ = fixed(tmp_path, "pdf-form-filler", crlf.encode(), "--select", "SL122")
    assert new == crlf.replace("version: 1.0\r\n", 'metadata:\r\n  version: "1.0"\r\n')


def test_sl003_removes_the_bom(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: Fills PDF forms.\n---\n" + BODY
    new, _, _ = fixed(tmp_path, "pdf-form-filler", b"\xef\xbb\xbf" + text.encode(), "--select", "SL003")
    assert new == text


# -- SL113 oversized description (unsafe) ---------------------------------------------------------

SENTENCE = "Fills PDF forms from structured data and checks every field it writes against the form's own rules. "


@pytest.mark.parametrize("style", ["plain", "double", "folded", "literal"])
def test_sl113_cuts_at_a_sentence_end_in_every_style(tmp_path, style):
    sentences = [SENTENCE.replace("Fills", f"Step {i} fills") for i in range(12)]
    value = "".join(sentences).strip()
    assert len(value) > 1024
    if style == "plain":
        written = f"description: {value}  # long"
    elif style == "double":
        written = f'description: "{value}"  # long'
    else:
        lines = "\n".join("  " + s.strip() for s in sentences)
        written = f"description: {'>' if style == 'folded' else '|'}  # long\n{lines}"
    text = f"---\nname: pdf-form-filler\n{written}\nlicense: MIT\n---\n" + BODY
    unchanged, _, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL113")
    assert unchanged == text
    new, out, _ = fixed(tmp_path, "pdf-form-filler", text, "--select", "SL113", "--unsafe-fixes")
    assert "All checks passed" in out
    description = yamltree.to_python(yamltree.parse(new.split("---\n")[1]).root, "yaml12")["description"]
    assert len(description) <= 1024 and description.rstrip().endswith("rules.")
    assert value.replace("\n", " ").startswith(description.rstrip().replace("\n", " "))
    assert len(description) > 900  # the last sentence end that fits, not the first
    assert new.count("# long") == 1 and new.endswith("license: MIT\n---\n" + BODY)
    assert new.splitlines()[:2] == text.splitlines()[:2]


def test_sl113_no_fix_without_a_sentence_end_in_the_limit(tmp_path):
    text = "---\nname: pdf-form-filler\ndescription: " + ("word " * 300).strip() + "\n---\n" + BODY
    write_skill(tmp_path, "pdf-form-filler", text)
    (finding,) = findings(tmp_path, "pdf-form-filler", "--select", "SL113")
    assert finding["fix"] is None


def test_sl113_does_not_cut_after_an_abbreviation(tmp_path):
    head = "Fills forms, e.g. " + "tax forms and " * 75 + "more. "
    text = "---\nname: pdf-form-filler\ndescription: " + head + "x" * 200 + ".\n---\n" + BODY
    write_skill(tmp_path, "pdf-form-filler", text)
    (finding,) = findings(tmp_path, "pdf-form-filler", "--select", "SL113")
    assert finding["fix"] is None  # `e.g.` is no sentence end; `more.` is past 1,024


# -- SL301 / SL305 references (unsafe) ---------------------------------------------------------------


def test_sl305_points_the_reference_at_the_one_file_differing_in_case(tmp_path):
    text = "---\nname: forms\ndescription: Fills forms.\n---\n# Forms\n\nRead [the guide](references/guide.md#setup) first.\n"
    skill = write_skill(tmp_path, "forms", text)
    (skill / "references").mkdir()
    (skill / "references" / "Guide.md").write_text("# Guide\n## Setup\n", encoding="utf-8")
    new, _, _ = fixed(tmp_path, "forms", text, "--select", "SL305", "--unsafe-fixes")
    assert new == text.replace("references/guide.md#setup", "references/Guide.md#setup")


def test_sl305_no_fix_when_two_files_differ_only_in_case(tmp_path):
    text = "---\nname: forms\ndescription: Fills forms.\n---\n# Forms\n\nRead `references/guide.md` first.\n"
    skill = write_skill(tmp_path, "forms", text)
    (skill / "references").mkdir()
    (skill / "references" / "Guide.md").write_text("# G\n", encoding="utf-8")
    (skill / "references" / "GUIDE.md").write_text("# G\n", encoding="utf-8")
    if any(p.name == "guide.md" for p in (skill / "references").iterdir()):
        pytest.skip("case-insensitive file system")
    assert all(d["fix"] is None for d in findings(tmp_path, "forms", "--select", "SL305"))


def test_sl301_reference_folder_singular_plural_in_skill_md(tmp_path):
    text = (
        "---\nname: forms\ndescription: Fills forms.\n---\n# Forms\n\n"
        "Read [the API notes](reference/api.md#auth) when a call fails; run `scripts/fill.py` after.\n"
        "Field names are in `reference/fields.md`.\n"
    )
    skill = write_skill(tmp_path, "forms", text)
    (skill / "references").mkdir()
    (skill / "references" / "api.md").write_text("# API\n## Auth\n", encoding="utf-8")
    (skill / "references" / "fields.md").write_text("# Fields\n", encoding="utf-8")
    (skill / "scripts").mkdir()
    (skill / "scripts" / "fill.py").write_text("print('fill')\n", encoding="utf-8")
    new, _, _ = fixed(tmp_path, "forms", text, "--select", "SL301")
    assert new == text  # unsafe
    new, out, _ = fixed(tmp_path, "forms", text, "--select", "SL301", "--unsafe-fixes")
    # The link moves, and so does the path in backticks: `reference/` is one of the spec's
    # folders for a skill's own files, read as the skill's even though the skill has none.
    assert new == text.replace("reference/", "references/")
    assert "Fixed 2 problems." in out and "All checks passed" in out


def test_sl301_reference_folder_singular_plural_in_a_referenced_file(tmp_path):
    text = "---\nname: forms\ndescription: Fills forms.\n---\n# Forms\n\nRead `references/steps.md` before filling.\n"
    skill = write_skill(tmp_path, "forms", text)
    (skill / "references").mkdir()
    steps = "# Steps\n\n1. See [fields](reference/fields.md) for names.\n"
    (skill / "references" / "steps.md").write_text(steps, encoding="utf-8")
    (skill / "references" / "fields.md").write_text("# Fields\n", encoding="utf-8")
    # Links resolve from their own file: references/reference/fields.md is missing,
    # references/references/fields.md too; no fix guesses across folders.
    assert all(d["fix"] is None for d in findings(tmp_path, "forms", "--select", "SL301"))
    (skill / "references" / "steps.md").write_text(steps.replace("reference/fields.md", "../reference/fields.md"), encoding="utf-8")
    run_cli("check", "--fix", "--unsafe-fixes", "--select", "SL301", "--exit-zero", "forms", cwd=tmp_path)
    assert (skill / "references" / "steps.md").read_text(encoding="utf-8") == steps.replace("reference/fields.md", "../references/fields.md")
    assert (skill / "SKILL.md").read_text(encoding="utf-8") == text


# -- the edit model -----------------------------------------------------------------------------


def test_line_index_counts_as_skilllint_reports():
    text = "\ufeffab\r\ncd\re\nf"
    index = LineIndex(text)
    assert index.position(0) == (1, 1) and index.position(1) == (1, 1) and index.position(3) == (1, 3)
    assert index.position(4) == (1, 3)  # between CR and LF: the end of line 1
    assert index.position(5) == (2, 1) and index.position(8) == (3, 1) and index.position(10) == (4, 1)
    assert index.offset(2, 2) == 6 and index.offset(1, 1) == 1 and index.offset(1, 99) == 3


def test_an_edit_is_narrowed_but_never_splits_a_crlf(tmp_path):
    text = "a: 1\r\nb: 2\r\n"
    index = LineIndex(text)
    narrowed = edit(tmp_path / "f", index, 0, len(text), "a: 1\r\nb: 3\r\n")
    assert (narrowed.start, narrowed.end, narrowed.text) == (9, 10, "3")
    assert narrowed.span == Span(2, 4, 2, 5)
    to_lf = edit(tmp_path / "f", index, 0, len(text), "a: 1\nb: 2\r\n")
    assert (to_lf.start, to_lf.end, to_lf.text) == (4, 6, "\n")
    assert to_lf.span == Span(1, 5, 2, 1)  # what an editor or SARIF consumer applies: the line break


def test_edits_between_and_back():
    old = "x\nname: a\ny\nz\n"
    new = "x\nname: b\ny\nw\nz\n"
    edits = edits_between(Path("f"), old, new)
    index = LineIndex(old)
    assert apply_edits(old, [(*offsets(e, index), e.text) for e in edits]) == new
    assert [e.text for e in edits] == ["b", "w\n"]


LINES = st.lists(st.sampled_from(["a\n", "b\n", "\n", "```\n", "x: 1\n", "c", "d\r\n"]), max_size=12).map("".join)


@given(LINES, LINES)
def test_edits_between_turn_any_text_into_any_other(old, new):
    index = LineIndex(old)
    assert apply_edits(old, [(*offsets(e, index), e.text) for e in edits_between(Path("f"), old, new, index)]) == new


def test_edits_between_compares_only_what_changed():
    # A long file of lines that repeat (blank lines, fences): comparing all of it for a change
    # in the frontmatter took seconds; the lines both texts open and end with are not compared.
    def texts(lines: int) -> tuple[str, str]:
        body = "".join(f"```\nline {i % 7}\n```\n\n" for i in range(lines))
        return "---\nname: a\n---\n" + body, "---\nname: b\n---\n" + body

    edits = edits_between(Path("f"), *texts(20_000))
    assert [e.text for e in edits] == ["b"]
    # The work, counted at 5,000 and 20,000 lines: four times (the lines are split and matched
    # once: x4.0); difflib comparing the whole texts of repeating lines: sixteen times (x16.0).
    assert growth(lambda pair: edits_between(Path("f"), *pair), texts(5_000), texts(20_000), measure="calls") < LINEAR_CALLS_AT_4X


def test_a_span_only_edit_from_a_plugin_applies_by_its_span():
    index = LineIndex("\ufeffname: a\r\nx\n")
    item = Edit(Path("f"), Span(1, 7, 1, 8), "b")
    assert apply_edits(index.text, [(*offsets(item, index), item.text)]) == "\ufeffname: b\r\nx\n"


# -- the frontmatter round trip -------------------------------------------------------------------


def test_roundtrip_only_where_ruamel_reproduces_the_text_exactly():
    def set_a(data):
        data["a"] = "Z"

    assert yamledit.roundtrip("a: 1   # c\nb:\n  - x\n  - y", set_a) == "a: Z   # c\nb:\n  - x\n  - y"
    # ruamel would re-indent the folded block (3 spaces) or re-space the flow list: no round trip.
    assert yamledit.roundtrip("a: 1\nb: >\n   folded\n   text\nc:\n    - x", set_a) is None
    assert yamledit.roundtrip("a: [1,2]\nb:   2", set_a) is None


def test_verify_rejects_a_lost_comment_and_a_changed_neighbour():
    fm = yamledit.Frontmatter.parse("a: 1  # one\nb: 2\nc: 3")
    expected = {s: {"a": "x", "b": 2 if s != "strict" else "2", "c": 3 if s != "strict" else "3"} for s in yamledit.SEMANTICS}
    assert yamledit.verify(fm, 'a: "x"  # one\nb: 2\nc: 3', {"a"}, expected)
    assert not yamledit.verify(fm, 'a: "x"\nb: 2\nc: 3', {"a"}, expected)  # comment lost
    assert not yamledit.verify(fm, 'a: "x"  # one\nb:  2\nc: 3', {"a"}, expected)  # neighbour re-spaced
    assert not yamledit.verify(fm, 'a: x  # one\nb: 2\nc: 3', {"a"}, {**expected, "yaml11": {"a": "y"}})


# -- property: a fix round trip leaves every untouched key byte-identical -------------------------

_KEYS = ["description", "license", "compatibility", "owner", "notes", "when_to_use", "argument-hint"]
_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ABC.,-_/()", min_size=1, max_size=24).map(str.strip).filter(bool)


@st.composite
def _scalar(draw) -> str:
    word = draw(_WORDS)
    style = draw(st.sampled_from(["plain", "single", "double", "folded", "literal", "number", "flow", "block-list"]))
    if style == "plain":
        return word if yamledit.plain_ok(word) else json.dumps(word)
    if style == "single":
        return "'" + word.replace("'", "''") + "'"
    if style == "double":
        return json.dumps(word + draw(st.sampled_from(["", "\t", ' "q"', " # not a comment"])))
    if style == "number":
        return draw(st.sampled_from(["1.0", "2", "0o17", "yes", "2026-03-06", "~", ".5"]))
    if style == "flow":
        return "[" + ", ".join(json.dumps(w) for w in draw(st.lists(_WORDS, min_size=1, max_size=3))) + "]"
    indent = draw(st.sampled_from(["  ", "    "]))
    if style == "block-list":
        return "\n" + "\n".join(f"{indent}- {json.dumps(w)}" for w in draw(st.lists(_WORDS, min_size=1, max_size=3)))
    lines = draw(st.lists(_WORDS, min_size=1, max_size=3))
    return ("> " if style == "folded" else "| ").rstrip() + "\n" + "\n".join(indent + w for w in lines)


@st.composite
def _frontmatter(draw) -> tuple[str, dict[str, str]]:
    keys = draw(st.lists(st.sampled_from(_KEYS), unique=True, min_size=1, max_size=5))
    name = draw(st.sampled_from(["name: forms", "name: 'Forms'  # shown", 'name: "FORMS"', "name: forms_  # x"]))
    blocks: list[tuple[str, str]] = [("name", name)]
    for key in keys:
        comment = draw(st.sampled_from(["", "  # why", " # a\ttab inside", "   #x"]))
        value = draw(_scalar())
        first, _, rest = value.partition("\n")
        line = f"{key}: {first}".rstrip() + comment
        blocks.append((key, line + ("\n" + rest if rest else "")))
    version = draw(st.sampled_from(["1.0", "'2.1'", '"3"', "4.0.1"]))
    meta = draw(st.sampled_from([None, "  author: me  # owner", "    team: forms\n    # a comment inside\n    size: 3", "  updated: 2026-03-06   # day\n  beta: yes"]))
    tools = draw(st.sampled_from([None, "allowed-tools:\n  - Read\n  - Bash(git:*)", "allowed-tools: [Read, Grep]  # flow", "allowed-tools: Read, Grep"]))
    if tools is not None:
        blocks.append(("allowed-tools", tools))
    if meta is not None:
        blocks.append(("metadata", "metadata:\n" + meta))
    position = draw(st.integers(min_value=0, max_value=len(blocks)))
    blocks.insert(position, ("version", f"version: {version}" + draw(st.sampled_from(["", "  # release"]))))
    separators = [draw(st.sampled_from(["", "\n", "\n# between keys", "\n\n"])) for _ in blocks]
    text = "\n".join(block + sep for (_, block), sep in zip(blocks, separators))
    return "# head comment\n" + text, dict(blocks)


def _apply(original: str, fix) -> str:
    index = LineIndex(original)
    return apply_edits(original, [(*offsets(e, index), e.text) for e in fix.edits])


_BUILDERS = {
    "SL122": (frontmatter_fixes.move_version, {"version", "metadata"}),
    "SL124": (frontmatter_fixes.quote_metadata_values, {"metadata"}),
    "SL125": (frontmatter_fixes.allowed_tools_string, {"allowed-tools"}),
    "SL106": (lambda p: frontmatter_fixes.set_scalar(p, "name", "forms", "set name", "unsafe"), {"name"}),
}


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_frontmatter(), st.sampled_from(sorted(_BUILDERS)))
def test_property_every_frontmatter_fix_leaves_untouched_keys_byte_identical(tmp_path_factory, generated, code):
    yaml_text, blocks = generated
    old_fm = yamledit.Frontmatter.parse(yaml_text)
    assert old_fm is not None, yaml_text
    folder = tmp_path_factory.mktemp("prop") / "forms"
    folder.mkdir()
    original = "---\n" + yaml_text + "\n---\n# Forms\n"
    (folder / "SKILL.md").write_text(original, encoding="utf-8")
    build, touched = _BUILDERS[code]
    fix = build(SkillPackage(folder))
    if fix is None:
        return
    new = _apply(original, fix)
    assert new.startswith("---\n# head comment\n") and new.endswith("\n---\n# Forms\n")
    new_yaml = new[len("---\n") : -len("\n---\n# Forms\n")]
    positions = [new_yaml.index(block) for key, block in blocks.items() if key not in touched]
    assert positions == sorted(positions), (code, yaml_text, new_yaml)
    new_fm = yamledit.Frontmatter.parse(new_yaml)
    assert new_fm is not None
    assert sorted(yamledit.comments(yaml_text, old_fm.document)) == sorted(yamledit.comments(new_yaml, new_fm.document))
    for semantics in yamledit.SEMANTICS:
        before = yamltree.to_python(old_fm.document.root, semantics)
        after = yamltree.to_python(new_fm.document.root, semantics)
        assert {k: v for k, v in after.items() if k not in touched} == {k: v for k, v in before.items() if k not in touched}


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_frontmatter())
def test_property_sl122_fix_leaves_untouched_keys_byte_identical(tmp_path_factory, generated):
    yaml_text, blocks = generated
    assert yamledit.Frontmatter.parse(yaml_text) is not None, yaml_text
    folder = tmp_path_factory.mktemp("prop") / "forms"
    folder.mkdir()
    original = "---\n" + yaml_text + "\n---\n# Forms\n"
    (folder / "SKILL.md").write_text(original, encoding="utf-8")
    package = SkillPackage(folder)
    fix = frontmatter_fixes.move_version(package)
    assert fix is not None, yaml_text  # a one-line version and a block or no metadata: always movable
    new = _apply(original, fix)
    new_yaml = new.split("\n---\n")[0][len("---\n") :]
    # Every untouched key's lines survive byte for byte, in the same order.
    positions = []
    for key, block in blocks.items():
        if key in ("version", "metadata"):
            continue
        assert block in new_yaml, (key, block, new_yaml)
        positions.append(new_yaml.index(block))
    assert positions == sorted(positions)
    # Every comment survives; the head comment and the body are untouched.
    old_fm, new_fm = yamledit.Frontmatter.parse(yaml_text), yamledit.Frontmatter.parse(new_yaml)
    assert sorted(yamledit.comments(yaml_text, old_fm.document)) == sorted(yamledit.comments(new_yaml, new_fm.document))
    assert new.startswith("---\n# head comment\n") and new.endswith("\n---\n# Forms\n")
    # It means what the fix says: version moved, as a string, all else equal.
    for semantics in yamledit.SEMANTICS:
        before = yamltree.to_python(old_fm.document.root, semantics)
        after = yamltree.to_python(new_fm.document.root, semantics)
        version = before.pop("version")
        assert "version" not in after and isinstance(after["metadata"]["version"], str)
        assert str(version).lower() == after["metadata"]["version"].lower() or semantics != "strict"
        after_meta, before_meta = after.pop("metadata"), before.pop("metadata", None) or {}
        assert {k: v for k, v in after_meta.items() if k != "version"} == before_meta
        assert after == before
