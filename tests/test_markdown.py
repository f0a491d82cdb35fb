"""The Markdown line scanners: headings with GitHub anchors, links with file positions, fenced
code; checked against a full CommonMark parse (markdown_oracle, markdown-it-py)."""

import pytest
from conftest import LINEAR_AT_4X, growth
from markdown_oracle import parse

from skilllint.skill.text import markdown

SAMPLE = """# Title

See [the API](references/api.md#errors) and ![diagram](assets/a.png).

## Use it: now!

- item with `code` and [runner](scripts/run.py)

```bash
[notalink](foo.md)
```

| file | when |
|---|---|
| [rows](references/r.md) | after a 500 |

## Title

[def]: references/def.md
"""


def test_the_oracle_finds_links_images_and_definitions_with_file_positions():
    doc = parse(SAMPLE, line_offset=10)
    found = [(link.kind, link.target, link.text, link.line, link.column) for link in doc.links]
    assert ("link", "references/api.md#errors", "the API", 13, 15) in found
    assert ("image", "assets/a.png", "diagram", 13, 56) in found
    assert ("link", "scripts/run.py", "runner", 17, 33) in found
    assert ("link", "references/r.md", "rows", 25, 10) in found
    assert ("definition", "references/def.md", "def", 29, 8) in found
    assert not any(link.target == "foo.md" for link in doc.links), "links in fenced code are not links"


def test_headings_get_github_anchors_with_duplicate_suffixes():
    doc = parse(SAMPLE)
    assert [(h.level, h.anchor) for h in doc.headings] == [(1, "title"), (2, "use-it-now"), (2, "title-1")]


def test_blocks_carry_line_ranges():
    doc = parse(SAMPLE)
    kinds = {(b.kind, b.start, b.end) for b in doc.blocks}
    assert ("fence", 9, 11) in kinds
    assert ("list_item", 7, 8) in kinds
    assert ("table_row", 15, 15) in kinds
    assert doc.code_lines() == {9, 10, 11}


def test_cheap_scanners_agree_with_the_full_parse():
    text = SAMPLE + "\nSetext title\nover two lines\n---\n\n### `code` and *emph* with ld_preload <-> x\n"
    full = parse(text)
    headings, code = markdown.scan_headings(text)
    assert [(h.line, h.anchor) for h in headings] == [(h.line, h.anchor) for h in full.headings]
    assert code == full.code_lines()
    links, _ = markdown.scan_links(text)
    assert sorted((l.kind, l.target, l.line, l.column) for l in links) == sorted(
        (l.kind, l.target, l.line, l.column) for l in full.links
    )


# -- the shared scanning helpers: each pinned to the straightforward form it replaced --------

import re  # noqa: E402
import time  # noqa: E402

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})")


def _fenced_line_by_line(lines: list[str], line_offset: int = 0) -> set[int]:
    """The fence scan as it was: one Python step per line (the spec fenced_lines keeps)."""
    inside: set[int] = set()
    fence = None
    for index, line in enumerate(lines, start=1 + line_offset):
        match = _FENCE_OPEN.match(line)
        if fence is None:
            if match and not (match.group(2)[0] == "`" and "`" in line[match.end() :]):
                fence = (match.group(2)[0], len(match.group(2)))
                inside.add(index)
            continue
        inside.add(index)
        if match and match.group(2)[0] == fence[0] and len(match.group(2)) >= fence[1] and not line[match.end() :].strip():
            fence = None
    return inside


# Whole lines that open, close or only look like fences, and characters to cut them up.
_FENCE_LINES = st.sampled_from(
    ["```", "````", "```py", "``` ", "``` x", "``` `x`", "   ```", "    ```", "  ~~~~", "~~~", "~~~~~ ", "`````",
     "\t```", "\u00a0```", "a```", "``", "text", "", " \t", "\r", "é😀"]
)
_FENCE_TEXTS = st.one_of(
    st.lists(_FENCE_LINES, max_size=25).map("\n".join),
    st.lists(st.sampled_from(["```", "~~~", "`", "~", " ", "   ", "\n", "\n", "a", "\t"]), max_size=40).map("".join),
)


@given(st.lists(st.sampled_from(["```", "````", "```py", "``` x", "   ```", "  ~~~~", "~~~", "`````", "``` `x`", "text", ""]), max_size=25))
def test_the_command_reading_of_fences_is_commonmarks_where_they_agree(lines):
    """One fence scanner: :func:`markdown.fenced_blocks` (how a reader of commands takes fences) reads
    a text with no fence indented past three spaces and no Markdown template block as
    :func:`markdown.fence_blocks` (CommonMark) does."""
    text = "\n".join(lines)
    assert [(numbers[0], numbers[-1]) for _, numbers in markdown.fenced_blocks(lines, 0)] == markdown.fence_blocks(text)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # any blanks before a fence: one in a list item's text is one
        (["1. Run:", "     ```bash", "     make", "     ```"], [("bash", [2, 3, 4])]),
        # a Markdown template's own blocks nest in it; CommonMark would end it at the first bare fence
        (["```markdown", "# Title", "```bash", "x", "```", "more", "```", "after"], [("markdown", [1, 2, 3, 4, 5, 6, 7])]),
        (["```sh", "x"], [("sh", [1, 2])]),  # unclosed: to the end
    ],
)
def test_fenced_blocks_as_a_reader_of_commands_takes_them(body, expected):
    assert markdown.fenced_blocks(body, 0) == expected
    assert markdown.fenced_blocks(["---", "name: x", "---", *body], 3) == [(info, [n + 3 for n in numbers]) for info, numbers in expected]


@given(_FENCE_TEXTS, st.integers(0, 30))
def test_fenced_lines_agree_with_the_line_by_line_scan(text, offset):
    lines = text.split("\n")
    expected = _fenced_line_by_line(lines, offset)
    assert markdown.fenced_lines(lines, offset) == expected
    assert markdown.fenced_lines_in(text, offset) == expected
    assert markdown.fenced_lines_in(text, offset, markdown.fence_candidates(text, offset)) == expected


@given(_FENCE_TEXTS, st.integers(0, 30))
def test_fence_candidates_are_the_lines_a_marker_can_start(text, offset):
    lines = text.split("\n")
    expected = [
        number
        for number, line in enumerate(lines, start=1 + offset)
        if any(0 <= line.find(needle) <= 3 for needle in ("```", "~~~"))
    ]
    found = markdown.fence_candidates(text, offset)
    assert [number for number, _ in found] == expected
    for number, start in found:  # the position is where that line starts
        assert text[start:].split("\n", 1)[0] == lines[number - 1 - offset]


def test_fence_candidates_stay_linear_on_hostile_text():
    def texts(q: int) -> list[str]:  # the whole size (q=1) or a quarter (q=4)
        return ["`" * (1_000_000 // q), "a~~~" * (250_000 // q), "x```\n" * (200_000 // q), "   ```" + "`" * (500_000 // q) + "\n" * (100_000 // q)]

    # A quadratic scan takes hours: two sizes compared in one run, by CPU time.
    for small, large in zip(texts(4), texts(1)):
        assert growth(markdown.fence_candidates, small, large) < LINEAR_AT_4X, large[:20]


_LOOKBEHIND_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


@given(st.lists(st.sampled_from(["`", "``", "```", "a", " ", "\n", "é", "\\", "|"]), max_size=40).map("".join))
def test_code_span_finds_what_the_lookbehind_first_form_finds(text):
    def spans(pattern):
        return [(m.span(), m.span(1), m.span(2)) for m in pattern.finditer(text)]

    assert spans(markdown.CODE_SPAN) == spans(_LOOKBEHIND_CODE_SPAN)


def test_links_outside_is_scan_links_on_lines_at_hand():
    text = SAMPLE + "\n<https://example.com> and [x](y.md) `[not](code.md)`\n"
    links, code = markdown.scan_links(text, 7)
    assert markdown.links_outside(text.split("\n"), code, 7) == links
    assert ("autolink", "https://example.com") in {(link.kind, link.target) for link in links}
    assert "code.md" not in {link.target for link in links}


def test_angle_brackets_that_are_not_an_html_tag_stay_in_the_slug():
    # `gcroot<T^>` (C++/CLI) is no tag in CommonMark: GitHub renders it as text and its slug keeps the T.
    text = (
        "### Pattern 3: gcroot<T^> for Native→Managed Callbacks\n\n"
        '## <a name="x"></a>Real <br/> tags and List<T> go\n\n'
        "## Map<K, V> is text\n"
    )
    headings, _ = markdown.scan_headings(text)
    assert [h.anchor for h in headings] == [
        "pattern-3-gcroott-for-nativemanaged-callbacks",
        "real--tags-and-list-go",
        "mapk-v-is-text",
    ]
    assert [h.anchor for h in headings] == [h.anchor for h in parse(text).headings]


_TAG_ATOMS = st.sampled_from(
    ["<", "</", "a", "B1", "-", " ", "\t", "\n", "=", '"', "'", "x", "_:", ".", "/", ">", "/>", "`", "<!--", "\x00", "é", "\u00a0"]
)


@given(st.lists(_TAG_ATOMS, max_size=30).map("".join))
def test_html_tag_is_what_markdown_it_reads_as_an_open_or_closing_tag(text):
    """The heading reducer drops inline HTML as markdown-it's tag pattern finds it, from an
    opener `<x` or `</x` (where the reducer asks)."""
    from markdown_it.common.html_re import HTML_TAG_RE

    for start in range(len(text)):
        if markdown._MARKUP_OPEN.match(text, start) and text[start] == "<":
            ours = markdown._HTML_TAG.match(text, start)
            theirs = HTML_TAG_RE.match(text, start)
            assert (ours and ours.span()) == (theirs and theirs.span()), (text, start)


# -- the fence and ATX-heading facts, against the full parse -----------------------------------
# Every reader of fences and headings outside the rules (passages, suppress, suppress_edit, the
# reference scan) asks these; the oracle is CommonMark's own reading.

_ORACLE_FENCE_LINES = st.sampled_from(
    ["```", "````", "```py", "``` ", "``` x", "``` `x`", "   ```", "    ```", "  ~~~~", "~~~", "~~~~~ ", "`````",
     "\t```", " \t```", "\t~~~", "a```", "``", "text", "", " \t", "é😀", "~~~ `x`"]
)


def _oracle_fences(text: str, offset: int) -> list[tuple[int, int]]:
    """(first, last) file lines of each fenced block markdown-it finds."""
    from markdown_oracle import _parser

    return [(t.map[0] + 1 + offset, t.map[1] + offset) for t in _parser().parse(text) if t.type == "fence"]


@given(st.lists(_ORACLE_FENCE_LINES, max_size=25).map("\n".join), st.integers(0, 30))
def test_fence_blocks_are_the_fenced_code_commonmark_reads(text, offset):
    # Where an unclosed block ends among trailing blank lines is a convention (markdown-it stops
    # at the last line with text; the scanner runs to the text's end): compared on the rest.
    lines = text.split("\n")

    def seen(blocks):
        return [first for first, _ in blocks], {
            n for first, end in blocks for n in range(first, end + 1) if n - offset <= len(lines) and lines[n - 1 - offset].strip()
        }

    assert seen(markdown.fence_blocks(text, offset)) == seen(_oracle_fences(text, offset))


@given(st.lists(_ORACLE_FENCE_LINES, max_size=25))
def test_fence_opening_and_closing_read_lines_as_fence_blocks_does(lines):
    blocks, opening, opened = [], None, 0
    for number, line in enumerate(lines, start=1):
        if opening is None:
            opening = markdown.fence_opening(line)
            opened = number
        elif markdown.closes_fence(line, opening):
            blocks.append((opened, number))
            opening = None
    if opening is not None:
        blocks.append((opened, max(len(lines), 1)))
    assert blocks == markdown.fence_blocks("\n".join(lines))


def test_a_tab_indented_marker_opens_no_fence():
    """A tab indents to column 4 (CommonMark): ``\\t```" is indented code, not a fence."""
    assert markdown.fence_opening("\t```") is None and markdown.fence_opening(" \t~~~") is None
    assert markdown.fence_opening("   ```py") == ("`", 3) and markdown.fence_opening("~~~~ `x`") == ("~", 4)
    assert markdown.fence_opening("``` `x`") is None  # a backtick after the run: inline code
    assert _oracle_fences("\t```\ncode\n\t```", 0) == []


_HEADING_LINES = st.sampled_from(
    ["#", "# x", "## x ##", "###### x", "####### x", "#x", " # x", "   # x", "    # x", "\t# x", " \t# x",
     "#\tx", "##", "# ", "#5 bolt", "\\# x", "text"]
)


@given(st.lists(_HEADING_LINES, max_size=12))
def test_atx_headings_are_the_lines_commonmark_reads_as_ones(lines):
    from markdown_oracle import _parser

    text = "\n\n".join(lines)  # blank lines between: no paragraph continues into the next line
    expected = {token.map[0] + 1 for token in _parser().parse(text) if token.type == "heading_open"}
    found = {number for number, line in enumerate(text.split("\n"), start=1) if markdown.is_atx_heading(line)}
    assert found == expected
    assert found == {number for number, line in enumerate(text.split("\n"), start=1) if markdown.atx_heading(line)}


@pytest.mark.parametrize(
    "row, cells",
    [
        ("| a | b |", [" a ", " b "]),
        ("  | a | b |  ", [" a ", " b "]),
        ("| a | b", [" a ", " b"]),  # the trailing pipe is optional: the last cell is a cell all the same
        ("a | b", ["a ", " b"]),
        ("| `x | y` | z |", [" `x | y` ", " z "]),  # a pipe in a code span is text, as a reader of the source sees it
        ("| a \\| b | c |", [" a \\| b ", " c "]),  # an escaped pipe is text
        ("| `a` | ``b | ` c`` |", [" `a` ", " ``b | ` c`` "]),
        ("|", [""]),
        ("", [""]),
    ],
)
def test_table_cells_are_the_text_between_the_pipes(row, cells):
    """One splitter of table rows, for the mention context (SL310) and the folder-mention scan (SL306, SL311)."""
    assert [row[start:end] for start, end in markdown.table_cells(row)] == cells
