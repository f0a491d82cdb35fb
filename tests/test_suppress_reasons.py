"""A suppression comment may say why, after ` -- ` (ESLint's form): the reason is not read as codes."""

from skilllint.skill.suppressions import comments as suppress

from conftest import LINEAR_AT_4X, growth, lint_json, write_skill


def test_a_reason_after_the_codes_is_not_read_as_codes():
    parsed = suppress.parse(["<!-- skilllint-disable-next-line SL310 -- generated file, see SL docs -->", "x"])
    assert parsed.line_codes == {2: {"SL310"}}
    assert parsed.suppresses("SL310", 2)
    # "SL" in the reason would have silenced every SL code on the line
    assert not parsed.suppresses("SL101", 2) and not parsed.suppresses("SL301", 2)
    (directive,) = parsed.directives
    assert directive.reason == "generated file, see SL docs"
    assert [code for code, _, _ in directive.codes] == ["SL310"]


def test_a_comment_with_only_a_reason_still_silences_every_code():
    parsed = suppress.parse(["<!-- skilllint-disable-next-line -- vendored from upstream -->", "x"])
    assert parsed.suppresses("SL310", 2) and parsed.suppresses("SL101", 2)
    assert not parsed.suppresses("SL310", 1)


def test_every_markdown_form_takes_a_reason():
    lines = [
        "<!-- skilllint-disable SL310, SL311 -- legacy section -->",  # 1
        "a",  # 2
        "<!-- skilllint-enable SL310 -- legacy section ends -->",  # 3
        "b <!-- skilllint-disable-line SL301 --- a link the build creates -->",  # 4
        "<!-- skilllint-disable-file SL2 -- a reference page, long on purpose -->",  # 5
    ]
    parsed = suppress.parse(lines)
    assert parsed.suppresses("SL310", 2) and not parsed.suppresses("SL310", 4)
    assert parsed.suppresses("SL311", 4)  # still open: only SL310 was enabled again
    assert parsed.suppresses("SL301", 4) and not parsed.suppresses("SL302", 4)
    assert parsed.suppresses("SL201", 1) and not parsed.suppresses("SL101", 1)
    assert [d.reason for d in parsed.directives] == [
        "legacy section",
        "legacy section ends",
        "a link the build creates",
        "a reference page, long on purpose",
    ]


def test_dashes_without_blanks_around_them_are_no_separator():
    parsed = suppress.parse(["<!-- skilllint-disable-next-line SL310--x -->", "x"])
    assert parsed.line_codes == {2: {"SL310--X"}}  # one (unknown) code, as before: nothing silenced
    assert not parsed.suppresses("SL310", 2)


def test_frontmatter_comments_take_a_reason():
    lines = [
        "---",  # 1
        "version: 1  # skilllint: disable=SL122 -- the plugin manifest reads it",  # 2
        "name: X_Y  # skilllint: disable -- renamed in the next release",  # 3
        "colour: red  # skilllint: disable=SL121,SL127 --",  # 4
        "---",  # 5
    ]
    parsed = suppress.parse(lines, frontmatter_end=5)
    assert parsed.suppresses("SL122", 2) and not parsed.suppresses("SL121", 2)
    assert parsed.suppresses("SL104", 3) and parsed.suppresses("SL106", 3)
    assert parsed.suppresses("SL127", 4) and not parsed.suppresses("SL122", 4)
    assert [d.reason for d in parsed.directives] == ["the plugin manifest reads it", "renamed in the next release", ""]


def test_reasons_end_to_end(tmp_path):
    write_skill(
        tmp_path,
        "demo",
        "---\nname: demo\ndescription: Demo. Use when testing.\n"
        "version: 1  # skilllint: disable=SL122 -- the plugin manifest reads it\n"
        "colour: red\n---\n"
        "<!-- skilllint-disable-file SL201 -- a long checklist, read whole -->\n" + "x\n" * 600,
    )
    codes = {d["code"] for d in lint_json(str(tmp_path), cwd=tmp_path)["diagnostics"]}
    assert "SL122" not in codes and "SL201" not in codes
    assert "SL121" in codes  # `colour` is not suppressed


def test_reasons_are_found_in_linear_time():
    def lines(q: int) -> list[str]:  # the whole size (q=1) or a quarter (q=4)
        return [
            "<!-- skilllint-disable-next-line " + " -" * (300_000 // q) + "-->",
            "<!-- skilllint-disable-line SL1 " + "-" * (600_000 // q) + "x -->",
            "<!-- skilllint-disable-file " + "SL1 " * (150_000 // q) + "-- " + "-- " * (100_000 // q) + "-->",
        ]

    def frontmatter(q: int) -> list[str]:
        return ["---", "a: 1 # skilllint: disable=" + "SL1 " * (150_000 // q) + "-" * (300_000 // q) + "x", "---"]

    parsed = suppress.parse(lines(1))
    # linear: two sizes compared in one run, by CPU time
    assert growth(suppress.parse, lines(4), lines(1)) < LINEAR_AT_4X
    assert growth(lambda text: suppress.parse(text, frontmatter_end=3), frontmatter(4), frontmatter(1)) < LINEAR_AT_4X
    assert parsed.directives[2].written == ("SL1",) * 150_000
