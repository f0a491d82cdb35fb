"""Markdown read line by line: the headings (with GitHub-style anchors), links, images,
reference definitions and fenced code the rules need, with 1-based file positions.

These scanners do not build a full CommonMark parse: the tests compare them with one
(tests/markdown_oracle.py, markdown-it-py), which skilllint itself does not need.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ... import lazyre


@dataclass(frozen=True, eq=False, repr=False)
class Heading:
    """An ATX or setext heading and its GitHub-style anchor."""

    level: int
    text: str
    line: int  # 1-based line in the file
    anchor: str


@dataclass(frozen=True)
class Link:
    """A link, image, reference definition or autolink, where its destination is written."""

    kind: str  # "link" | "image" | "definition" | "autolink"
    target: str  # the destination as written (not decoded)
    text: str
    line: int  # 1-based file position of the destination
    column: int


_PUNCT = lazyre.compile(r"[^\w\- ]", re.UNICODE)


def github_anchor(text: str) -> str:
    """GitHub's heading slug: lowercase, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFC", text).strip().lower()
    return _PUNCT.sub("", text).replace(" ", "-")


# A label that opens with `^` is a footnote (GitHub, Pandoc, PHP Markdown Extra), not a link.
_DEFINITION = lazyre.compile(r"^ {0,3}\[(?P<label>(?!\^)[^\]]+)\]:\s*(?P<dest><[^>]*>|\S+)")


# -- The line scanners ----------------------------------------------------------
# The reference graph needs only the links outside code, and anchors only the headings:
# a full parse is not needed for either (tests/test_markdown.py compares the two).

# A fence marker line: group 2 the marker run, group 3 the rest of the line. Matched at a
# line's start inside the whole text (MULTILINE: ^ holds after any "\n").
_FENCE_MARKER = lazyre.compile(r"^( {0,3})(`{3,}|~{3,})([^\n]*)", re.MULTILINE)


class CodeSpan:
    """One code span, read as a match of :data:`CODE_SPAN`: group 0 the whole span,
    group 1 the opening backtick run, group 2 the code between the runs."""

    __slots__ = ("string", "_bounds")

    def __init__(self, string: str, start: int, code_start: int, code_end: int, end: int) -> None:
        self.string = string
        self._bounds = ((start, end), (start, code_start), (code_start, code_end))

    def span(self, group: int = 0) -> tuple[int, int]:
        return self._bounds[group]

    def start(self, group: int = 0) -> int:
        return self._bounds[group][0]

    def end(self, group: int = 0) -> int:
        return self._bounds[group][1]

    def group(self, group: int = 0) -> str:
        start, end = self._bounds[group]
        return self.string[start:end]


_BACKTICK_RUN = lazyre.compile(r"`+")
# When every run is one backtick, a span is a backtick and the next one on its line: a line holds
# at most one backtick without a partner, so the scan to the line's end happens once a line.
_SINGLE_TICK_SPAN = lazyre.compile(r"(`)([^`\n]+)`")


class CodeSpans:
    r"""The code spans of a text, each a whole run of backticks up to the first later run
    of the same length on the same line: the matches of
    ``(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)``, with its groups (:class:`CodeSpan`).

    Found from the list of backtick runs, each looked at once: a regex tries every run
    as an opener and, where no run of its length follows, scans on to the end of the
    line; on a long line of runs of many lengths that is far from linear."""

    def finditer(self, text: str):
        if "``" not in text:
            # The common case, in C: the same spans, as re.Match objects with the same groups
            # (returned, not yielded from: no generator frame per line).
            return _SINGLE_TICK_SPAN.finditer(text)
        return self._spans(text)

    def _spans(self, text: str):
        runs = [match.span() for match in _BACKTICK_RUN.finditer(text)]
        if len(runs) < 2:
            return
        # The closing run of each run: the next run of the same length on the same line.
        line, counted = 0, 0
        keys = []
        for start, end in runs:
            line += text.count("\n", counted, start)
            counted = start
            keys.append((line, end - start))
        closer: list[int | None] = [None] * len(runs)
        latest: dict[tuple[int, int], int] = {}
        for index in range(len(runs) - 1, -1, -1):
            closer[index] = latest.get(keys[index])
            latest[keys[index]] = index
        index = 0
        while index < len(runs):
            close = closer[index]
            if close is None:
                index += 1  # no run of its length follows: text, not an opener
                continue
            yield CodeSpan(text, runs[index][0], runs[index][1], runs[close][0], runs[close][1])
            index = close + 1

    def sub(self, replace, text: str) -> str:
        """``text`` with each span replaced by ``replace(span)``."""
        if "``" not in text:
            return _SINGLE_TICK_SPAN.sub(replace, text)  # the common case, in C, as finditer
        pieces: list[str] = []
        done = 0
        for span in self.finditer(text):
            pieces.append(text[done : span.start()])
            pieces.append(replace(span))
            done = span.end()
        if not pieces:
            return text
        pieces.append(text[done:])
        return "".join(pieces)


CODE_SPAN = CodeSpans()
# No two quantifiers may compete for the same characters, or a 100 KB line backtracks for
# minutes: whitespace runs are matched atomically ((?=(\s*))\N: a lookahead is never
# re-entered); a nested [...] holds no further [. Nor may a part scan on past the start of
# the next link, or each of many unclosed links scans the rest of the line: an <…>
# destination holds no <, a (…) title no ( (as CommonMark has them).
_INLINE_LINK = lazyre.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\((?=(\s*))\3"
    r"(?P<dest><[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?=(\s*))\5(?:(?<=\s)(?:\"[^\"]*\"|'[^']*'|\([^()]*\))(?=(\s*))\6)?\)"
)
_AUTOLINK = lazyre.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*)>")


def fenced_lines(lines: list[str], line_offset: int = 0) -> set[int]:
    """1-based file lines inside fenced code blocks (fences included)."""
    return fenced_lines_in("\n".join(lines), line_offset)


def fenced_lines_in(text: str, line_offset: int = 0, candidates: list[tuple[int, int]] | None = None) -> set[int]:
    """:func:`fenced_lines` of a whole text (lines separated by "\\n"), visiting
    only the lines that can open or close a fence (``candidates``: the text's
    :func:`fence_candidates`, when the caller has them); the lines between are
    added as ranges."""
    inside: set[int] = set()
    for first, last in fence_blocks(text, line_offset, candidates):
        inside.update(range(first, last + 1))
    return inside


def fence_blocks(text: str, line_offset: int = 0, candidates: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """(first, last) file lines of each fenced code block of a text, fences included, in
    order; an unclosed one runs to the text's last line. ``candidates`` as for
    :func:`fenced_lines_in`."""
    return [(first, last) for first, last, _ in _fences(text, line_offset, candidates)]


# A Markdown block is the template of a document the skill writes (a README, an issue body), and
# authors nest the document's own fenced blocks in it with the same three backticks.
TEMPLATE_FENCES = frozenset({"markdown", "md", "mdx", "gfm"})


def fenced_blocks(lines: list[str], start: int) -> list[tuple[str, list[int]]]:
    """The fenced code blocks of a body as a reader of its commands takes them: (info word in lower
    case, 1-based line numbers from the opening fence to the closing one, or to the end of the file
    when it is never closed), for the lines from ``start`` (0-based) on.

    Two readings differ from :func:`fence_blocks`' CommonMark: a fence may be indented by any
    blanks (a fence in a list item's text is one), and in a Markdown block (:data:`TEMPLATE_FENCES`)
    a fence with an info word ("```bash") opens the template's own nested block, and the bare fence
    after it closes that one, not the template. CommonMark would end the template there and read
    the rest of it as the skill's text and commands, which is not what its author wrote."""
    body = "\n".join(lines[start:])
    found = _fences(body, start, _indented_candidates(body, start), indented=True, nesting=TEMPLATE_FENCES)
    return [(info, list(range(first, last + 1))) for first, last, info in found]


def _fences(
    text: str,
    line_offset: int,
    candidates: list[tuple[int, int]] | None,
    indented: bool = False,
    nesting: frozenset[str] = frozenset(),
) -> list[tuple[int, int, str]]:
    """The one fence scanner: (first, last, info word in lower case) of each fenced block. A block
    opens at a run of three or more backticks or tildes (after at most three spaces, or any blanks
    when ``indented``; for backticks with no backtick after them), and closes at a bare run of its character
    at least as long. In a block whose info word is in ``nesting``, a fence of its character at
    least as long with an info word opens a nested block that the next bare fence closes."""
    if candidates is None:
        candidates = fence_candidates(text, line_offset)
    blocks: list[tuple[int, int, str]] = []
    fence: tuple[str, int] | None = None  # (marker character, run length) of the open block
    opened, info, nested = 0, "", 0
    for number, start in candidates:
        match = _INDENTED_FENCE.match(text, start) if indented else _FENCE_MARKER.match(text, start)
        if match is None:
            continue
        run, rest = match.group(2), match.group(3)
        if fence is None:
            if _opens(run, rest):
                fence, opened, info, nested = (run[0], len(run)), number, _info_word(rest), 0
        elif _closes(run, rest, fence):
            if nested:
                nested -= 1
                continue
            blocks.append((opened, number, info))
            fence = None
        elif info in nesting and run[0] == fence[0] and len(run) >= fence[1] and _info_word(rest):
            nested += 1
    if fence is not None:  # an unclosed fence runs to the end of the text
        blocks.append((opened, line_offset + text.count("\n") + 1, info))
    return blocks


def unclosed_fence(text: str, line_offset: int = 0) -> int | None:
    """The file line of a fence that opens a code block never closed, so that the rest of the text
    is code (CommonMark: an unclosed block runs to the end of the document), or None. Only a fence
    both readings leave open counts: CommonMark's (at most three spaces before it) and a reader's
    of any indent (:func:`fenced_blocks`), so that fences of a list item, indented with its text
    and paired there, are not taken for a CommonMark block left open. A fence on the text's last
    non-blank line hides nothing and is not reported."""
    body_end = line_offset + text.rstrip().count("\n") + 1
    strict = _fences(text, line_offset, None)
    if not strict or not _runs_to_end(text, line_offset, strict[-1]):
        return None
    loose = _fences(text, line_offset, _indented_candidates(text, line_offset), indented=True)
    if not loose or not _runs_to_end(text, line_offset, loose[-1]):
        return None
    opened = strict[-1][0]
    if opened >= body_end:
        return None
    lines = text.split("\n")
    index = opened - line_offset - 1
    return None if _list_item_holds(lines, index) else opened


# A list item's first line: a bullet or an ordered marker, and what follows it.
_LIST_ITEM = lazyre.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$")


def _list_item_holds(lines: list[str], index: int) -> bool:
    """Whether the indented fence at ``lines[index]`` lies in a list item that CommonMark closes
    before the text ends: the nearest line above it indented less is a list item, which either
    opened a fence on its own line ("2. ```sh", which this fence closes) or ends at a later line
    indented less than the fence (a fenced block ends with its container)."""
    line = lines[index]
    indent = len(line) - len(line.lstrip(" \t"))
    if indent == 0:
        return False
    for above in range(index - 1, -1, -1):
        text = lines[above]
        if not text.strip():
            continue
        if len(text) - len(text.lstrip(" \t")) >= indent:
            continue
        item = _LIST_ITEM.match(text)
        if item is None:
            return False
        if _FENCE_MARKER.match(item.group(2)) is not None:
            return True  # the item's own line opened the block this fence closes
        return any(t.strip() and len(t) - len(t.lstrip(" \t")) < indent for t in lines[index + 1 :])
    return False


def _runs_to_end(text: str, line_offset: int, block: tuple[int, int, str]) -> bool:
    """Whether a block :func:`_fences` returned is one left open (it ends at the text's last line
    without a closing fence there)."""
    first, last, _ = block
    if last != line_offset + text.count("\n") + 1:
        return False
    final = text.rsplit("\n", 1)[-1]
    match = _INDENTED_FENCE.match(final)
    return not (match is not None and not match.group(3).strip() and first != last)


def _info_word(rest: str) -> str:
    """The first word of a fence's info string, in lower case ("" for none)."""
    words = rest.split(None, 1)
    return words[0].split("`", 1)[0].lower() if words else ""


# A fence as a reader of commands takes it: any blanks before it (:func:`fenced_blocks`).
_INDENTED_FENCE = lazyre.compile(r"^([^\S\n]*)(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_INDENTED_FENCE_START = lazyre.compile(r"^[^\S\n]*(?:```|~~~)", re.MULTILINE)


def _indented_candidates(text: str, line_offset: int) -> list[tuple[int, int]]:
    """(file line number, text position of the line's start) of every line that starts, after
    blanks, with three backticks or tildes: one scan of the text, the other lines only counted."""
    found: list[tuple[int, int]] = []
    number, counted = 1 + line_offset, 0
    for match in _INDENTED_FENCE_START.finditer(text):
        number += text.count("\n", counted, match.start())
        counted = match.start()
        found.append((number, match.start()))
    return found


# A line that is a bare fence: it can close a block, never open one with an info word.
FENCE_LINE = lazyre.compile(r"^\s*(`{3,}|~{3,})\s*$")


def fence_opening(line: str) -> tuple[str, int] | None:
    """(marker character, run length) when ``line`` opens a fenced code block (CommonMark:
    three or more backticks or tildes after at most three spaces, and for backticks no
    backtick after them; a tab indents to column 4, so a tab-indented marker is code text,
    not a fence); else None."""
    match = _FENCE_MARKER.match(line)
    if match is None or not _opens(match.group(2), match.group(3)):
        return None
    return match.group(2)[0], len(match.group(2))


def closes_fence(line: str, opening: tuple[str, int]) -> bool:
    """Whether ``line`` closes the block :func:`fence_opening` returned ``opening`` for: a run
    of its character at least as long, with nothing after it but blanks."""
    match = _FENCE_MARKER.match(line)
    return match is not None and _closes(match.group(2), match.group(3), opening)


def _opens(run: str, rest: str) -> bool:
    return not (run[0] == "`" and "`" in rest)  # ``` followed by a backtick is inline code


def _closes(run: str, rest: str, opening: tuple[str, int]) -> bool:
    return run[0] == opening[0] and len(run) >= opening[1] and not rest.strip()


# What looks like a fence marker to a reader though CommonMark may disagree: any blank for the
# indent (a tab, a no-break space), no info-string check.
_FENCE_LIKE = lazyre.compile(r"^[^\S\n]{0,3}(`{3,}|~{3,})", re.MULTILINE)


def fence_like_lines(text: str, line_offset: int = 0, candidates: list[tuple[int, int]] | None = None) -> set[int]:
    """File lines inside what looks like fenced code, fences included, where CommonMark may
    read prose (a tab-indented ``` after a paragraph, which its author meant as code): every
    fence-like marker line, and the lines between one and the next that starts with its first
    three characters. The reference scan skips these besides :func:`fenced_lines_in`'s, so a
    path in such a block is not taken for a mention. ``candidates`` as for :func:`fenced_lines_in`."""
    if candidates is None:
        candidates = fence_candidates(text, line_offset)
    skipped: set[int] = set()
    fence: str | None = None
    opened = 0
    for number, start in candidates:
        marker = _FENCE_LIKE.match(text, start)
        if marker is None:
            continue
        skipped.add(number)
        if fence is None:
            fence, opened = marker.group(1)[:3], number
        elif marker.group(1).startswith(fence):
            skipped.update(range(opened + 1, number))
            fence = None
    if fence is not None:  # unclosed: code to the end
        skipped.update(range(opened + 1, line_offset + text.count("\n") + 2))
    return skipped


def fence_candidates(text: str, line_offset: int = 0) -> list[tuple[int, int]]:
    """(file line number, text position of the line's start) of every line where
    ``` or ~~~ begins at most 3 characters in, in order: the only lines that can be
    fence markers (a marker allows at most 3 characters of indentation).

    str.find jumps from one candidate to the next, far cheaper than a Python step
    or a regex attempt per line; each line is looked at once per needle (linear
    even on a line of a million backticks)."""
    starts: set[int] = set()
    for needle in ("```", "~~~"):
        if needle[0] not in text:
            continue  # one character is found far faster than three: most texts hold no "~"
        at = text.find(needle)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            if at - start <= 3:
                starts.add(start)
            end = text.find("\n", at)
            if end < 0:
                break
            at = text.find(needle, end + 1)  # the next line holding the needle
    found: list[tuple[int, int]] = []
    number, counted = 1 + line_offset, 0  # the file line number of text position `counted`
    for start in sorted(starts):
        number += text.count("\n", counted, start)
        counted = start
        found.append((number, start))
    return found


def _blank(match: re.Match) -> str:
    """A match replaced by as many spaces (columns keep their places)."""
    return " " * len(match.group(0))


def table_cells(row: str) -> list[tuple[int, int]]:
    """(start, end) columns in ``row`` of each cell of a table row: the text between its pipes,
    the leading and the trailing pipe optional. An escaped pipe (``\\|``) is text, and so is
    a pipe inside a code span, as a reader of the source sees it (GFM would split the cell
    there: it splits a row before it reads code spans)."""
    masked = (CODE_SPAN.sub(_blank, row) if "`" in row else row).replace("\\|", "  ")
    start = len(masked) - len(masked.lstrip())
    end = len(masked.rstrip())
    if masked.startswith("|", start):
        start += 1
    if end > start and masked[end - 1] == "|":
        end -= 1
    bounds = [start - 1, *(at for at in range(start, end) if masked[at] == "|"), end]
    return [(left + 1, right) for left, right in zip(bounds, bounds[1:])]


def scan_links(text: str, line_offset: int = 0) -> tuple[list[Link], set[int]]:
    """Links, images and reference definitions outside fenced code, with file
    positions; and the set of fenced lines (what a full CommonMark parse finds
    of them)."""
    code = fenced_lines_in(text, line_offset)
    if "](" not in text and "]:" not in text and "<" not in text:
        return [], code  # nothing a link, definition or autolink needs
    return links_outside(text.split("\n"), code, line_offset), code


def links_outside(lines: list[str], code: set[int], line_offset: int = 0) -> list[Link]:
    """:func:`scan_links` for a caller that has the text's lines (the first is file
    line ``line_offset + 1``) and its fenced lines ``code`` already."""
    links: list[Link] = []
    for index, line in enumerate(lines, start=1 + line_offset):
        # Needs "](", "]:" or "<"; one-character tests first: they are several times faster.
        if ("<" not in line and ("]" not in line or ("](" not in line and "]:" not in line))) or index in code:
            continue
        # Blank out code spans so a link written inside backticks is not a link.
        masked = CODE_SPAN.sub(_blank, line) if "`" in line else line
        definition = _DEFINITION.match(masked) if "]:" in masked else None
        if definition:
            dest = definition.group("dest")
            links.append(Link("definition", dest.strip("<>"), definition.group("label"), index, definition.start("dest") + 1 + (1 if dest.startswith("<") else 0)))
            continue
        if "](" in masked:
            for match in _INLINE_LINK.finditer(masked):
                dest = match.group("dest")
                column = match.start("dest") + 1
                if dest.startswith("<"):
                    dest, column = dest[1:-1], column + 1
                links.append(Link("image" if match.group(1) else "link", dest, match.group(2), index, column))
        if "<" in masked:
            for match in _AUTOLINK.finditer(masked):
                links.append(Link("autolink", match.group(1), match.group(1), index, match.start(1) + 1))
    return links


_ATX_OPEN = lazyre.compile(r" {0,3}(#{1,6})(?:([ \t]+)|$)")


def is_atx_heading(line: str) -> bool:
    """Whether ``line`` is an ATX heading (:func:`atx_heading` without reading its text)."""
    return _ATX_OPEN.match(line) is not None


def atx_heading(line: str) -> tuple[int, str | None] | None:
    r"""A line's ATX heading level and text (None for a bare ``##``), as groups 1 and 2 of
    ``^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`` read them: the text stops
    before the longest tail of blanks, or of blanks, hashes and blanks. The tail is cut
    with rstrip: in that regex three quantifiers compete for a run of blanks, cubic in
    its length."""
    match = _ATX_OPEN.match(line)
    if match is None:
        return None
    level = len(match.group(1))
    if match.group(2) is None:
        return level, None
    text = line[match.end() :].rstrip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed.endswith((" ", "\t")):
        text = unclosed.rstrip(" \t")
    return level, text


_SETEXT = lazyre.compile(r"^ {0,3}(=+|-+)[ \t]*$")


def scan_headings(text: str, line_offset: int = 0) -> tuple[list[Heading], set[int]]:
    """Headings outside fenced code with their GitHub anchors (``-1``, ``-2`` for
    repeats), and the fenced lines (what a full CommonMark parse finds of them). Inline markup is reduced as GitHub's slugger sees the text."""
    lines = text.split("\n")
    code = fenced_lines_in(text, line_offset)
    headings: list[Heading] = []
    counts: dict[str, int] = {}
    paragraph: list[tuple[int, str]] = []  # the open paragraph a setext underline would promote

    def add(level: int, title: str, number: int) -> None:
        title = _plain_heading_text(title)
        slug = github_anchor(title)
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        headings.append(Heading(level, title, number, slug if not seen else f"{slug}-{seen}"))

    for number, line in enumerate(lines, start=1 + line_offset):
        if number in code or not line.strip():
            paragraph = []
            continue
        atx = atx_heading(line) if "#" in line[:4] else None  # an ATX "#" comes after at most 3 spaces
        if atx:
            add(atx[0], atx[1] or "", number)
            paragraph = []
        elif paragraph and _SETEXT.match(line):
            add(1 if line.strip()[0] == "=" else 2, " ".join(t.strip() for _, t in paragraph), paragraph[0][0])
            paragraph = []
        elif not (not paragraph and line.startswith((" " * 4, "\t"))):
            paragraph.append((number, line))
    return headings, code


# Link/image text kept, code ticks and HTML tags dropped, emphasis marks dropped
# (an underscore only at a word's edge: `ld_preload` keeps its underscore): the matches of
# !?\[([^\]]*)\]\([^)]*\)|`([^`]*)`|</?[A-Za-z][^>]*>|(\*\*|\*|~~|(?<!\w)__?|__?(?!\w))
# replaced by group 1, group 2 or nothing. That regex, tried at each of 100,000 "[" or "<a"
# with no closer, scans to the end of the line from each; here an opener is matched
# alone and its closer looked up with NextFind.
_MARKUP_OPEN = lazyre.compile(r"!?\[|`|</?[A-Za-z]|\*\*|\*|~~|(?<!\w)__?|__?(?!\w)")


class NextFind:
    """Where ``needle`` (a string, or a compiled pattern) next occurs in ``text`` at or after
    a start (-1: nowhere), for starts that never decrease: an answer holds until a start
    passes it, so the text is scanned once in all, not once per opener."""

    def __init__(self, text: str, needle) -> None:
        self.text, self.needle = text, needle
        self.start, self.found = len(text) + 1, -1  # nothing asked yet

    def __call__(self, start: int) -> int:
        if not (self.start <= start and (self.found == -1 or start <= self.found)):
            self.start = start
            if isinstance(self.needle, str):
                self.found = self.text.find(self.needle, start)
            else:
                match = self.needle.search(self.text, start)
                self.found = match.start() if match else -1
        return self.found


# CommonMark's open and closing tags (spec, "Raw HTML"), the two kinds of inline HTML an
# opener `<x` or `</x` can begin; character classes as markdown-it-py writes them
# (tests/test_markdown.py compares the two). No two quantifiers compete for a character:
# an attribute starts after blanks, an unquoted value holds none.
_ATTRIBUTE_VALUE = r"""(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*")"""
_ATTRIBUTE = r"(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*" + _ATTRIBUTE_VALUE + r")?)"
_HTML_TAG = lazyre.compile(
    r"<[A-Za-z][A-Za-z0-9\-]*" + _ATTRIBUTE + r"*\s*/?>"  # open tag
    r"|</[A-Za-z][A-Za-z0-9\-]*\s*>"  # closing tag
)


def _html_tag_at(text: str, start: int) -> bool:
    return _HTML_TAG.match(text, start) is not None


def _plain_heading_text(title: str) -> str:
    """A heading's text without link targets, code ticks, HTML tags and emphasis marks."""
    bracket, paren, tick, angle = (NextFind(title, c) for c in "])`>")
    kept: list[str] = []
    done = at = 0  # copied up to `done`; the next opener is looked for from `at`
    while (opener := _MARKUP_OPEN.search(title, at)) is not None:
        start, end = opener.span()
        first = title[start]
        if first in "![":  # a link or an image: its text is kept
            close = bracket(end)
            after = paren(close + 2) if close >= 0 and title.startswith("(", close + 1) else -1
            if after < 0:
                at = start + 1  # "![" failed: its "[" is tried on its own
                continue
            kept += (title[done:start], title[end:close])
            done = at = after + 1
        elif first == "`":  # code: the text between the ticks is kept
            close = tick(end)
            if close < 0:
                at = end
                continue
            kept += (title[done:start], title[end:close])
            done = at = close + 1
        elif first == "<":  # an HTML tag: dropped
            close = angle(end)
            if close < 0 or not _html_tag_at(title, start):
                at = start + 1  # `gcroot<T^>` is text, not a tag: GitHub's slug keeps its letters
                continue
            kept.append(title[done:start])
            done = at = close + 1
        else:  # an emphasis mark: dropped
            kept.append(title[done:start])
            done = at = end
    kept.append(title[done:])
    return "".join(kept).strip()
