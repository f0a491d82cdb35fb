"""Inline suppression in Markdown comments and frontmatter comments."""

from skilllint.skill.suppressions import comments as suppress

from conftest import lint_json, write_skill


def test_markdown_ranges_lines_and_file():
    lines = [
        "# t",  # 1
        "<!-- skilllint-disable SL310 -->",  # 2
        "a",  # 3
        "<!-- skilllint-enable SL310 -->",  # 4
        "b",  # 5
        "<!-- skilllint-disable-next-line SL301 -->",  # 6
        "c",  # 7
        "d <!-- skilllint-disable-line -->",  # 8
        "<!-- skilllint-disable-file SL2 -->",  # 9
    ]
    parsed = suppress.parse(lines)
    assert parsed.suppresses("SL310", 3) and not parsed.suppresses("SL310", 5)
    assert parsed.suppresses("SL301", 7) and not parsed.suppresses("SL301", 6)
    assert parsed.suppresses("SL999", 8)
    assert parsed.suppresses("SL201", 1) and parsed.suppresses("SL205", 100)
    assert not parsed.suppresses("SL101", 1)


def test_comments_inside_fenced_code_do_not_count():
    lines = ["```", "<!-- skilllint-disable-file -->", "```", "x"]
    assert suppress.parse(lines).empty


def test_fences_are_read_as_commonmark_reads_them():
    """A fence closes only with a bare run of its character at least as long: ```bash inside a
    ``` block is code, and so is the comment after it. A tab-indented ``` opens no fence (a tab
    is column 4: indented code), so the comment after it is read."""
    inside = ["```", "```bash", "<!-- skilllint-disable-file -->", "```", "x"]
    assert suppress.parse(inside).empty
    longer = ["````", "```", "<!-- skilllint-disable-file -->", "````", "x"]
    assert suppress.parse(longer).empty
    tabbed = ["\t```", "<!-- skilllint-disable-file SL201 -->", "x"]
    assert suppress.parse(tabbed).suppresses("SL201", 3)
    inline = ["``` `x` ```", "<!-- skilllint-disable-file SL201 -->"]  # inline code, no fence
    assert suppress.parse(inline).suppresses("SL201", 2)


def test_the_comment_editor_reads_fences_as_the_parser_does():
    from skilllint.app.suppress_edit import Silencer

    text = "---\nname: a\ndescription: b\n---\n```\n```bash\nx\n```\n\t```\ny\n"
    silencer = Silencer(text)
    assert silencer.fence_around(7) == (5, 8)  # ```bash does not close the block
    assert silencer.fence_around(9) is None and silencer.fence_around(10) is None


def test_unclosed_disable_runs_to_the_end():
    parsed = suppress.parse(["<!-- skilllint-disable SL201 -->", "a", "b"])
    assert parsed.suppresses("SL201", 3)


def test_frontmatter_comment_applies_to_its_line_only():
    lines = ["---", "version: 1  # skilllint: disable=SL122", "name: X_Y  # skilllint: disable", "---"]
    parsed = suppress.parse(lines, frontmatter_end=4)
    assert parsed.suppresses("SL122", 2) and not parsed.suppresses("SL121", 2)
    assert parsed.suppresses("SL104", 3)


def test_end_to_end(tmp_path):
    write_skill(
        tmp_path,
        "demo",
        "---\nname: demo\ndescription: Demo. Use when testing.\nversion: 1  # skilllint: disable=SL122\n"
        "colour: red\n---\n<!-- skilllint-disable-file SL201 -->\n" + "x\n" * 600,
    )
    codes = {d["code"] for d in lint_json(str(tmp_path), cwd=tmp_path)["diagnostics"]}
    assert "SL122" not in codes and "SL201" not in codes
    assert "SL121" in codes  # `colour` is not suppressed
