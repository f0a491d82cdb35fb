"""Text edits: positions in a file's text, and the edits a fix is made of.

Build edits with :func:`edit` or :func:`edits_between` from the exact text of the file
(decoded UTF-8, BOM and CR kept): they then carry code-point offsets into that text as
well as the 1-based span every output format shows, and the offsets are what is applied
(:func:`apply_edits`). Rules, the YAML and suppression-comment editors, the fixer
(:mod:`skilllint.app.fixes`) and the language server all build on these.
"""

from __future__ import annotations

import bisect
import difflib
import re
from pathlib import Path
from typing import Iterable

from .diagnostics import Edit, Span

LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what ends a line, as skilllint counts lines


# -- positions ---------------------------------------------------------------------------


class LineIndex:
    """Offsets and 1-based positions in one file's text, as skilllint counts
    them: lines end at ``\\n``, ``\\r\\n`` or ``\\r``; line 1 starts after a
    UTF-8 byte-order mark; columns count code points."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.bom = text.startswith("\ufeff")
        starts, ends = [0], []
        for match in LINE_BREAK.finditer(text):
            ends.append(match.start())
            starts.append(match.end())
        ends.append(len(text))
        self.starts, self.ends = starts, ends

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_start(self, index: int) -> int:
        """Offset where the text of 0-based line ``index`` starts (past a BOM on line 0)."""
        if index >= len(self.starts):
            return len(self.text)
        return self.starts[index] + (1 if index == 0 and self.bom else 0)

    def line_end(self, index: int) -> int:
        """Offset of 0-based line ``index``'s line break (or of the text's end)."""
        return self.ends[min(index, len(self.ends) - 1)]

    def line(self, index: int) -> str:
        return self.text[self.line_start(index) : self.line_end(index)]

    def offset(self, line: int, column: int) -> int:
        """The offset of a 1-based (line, column); a column past the line's end is its end."""
        if line > len(self.starts):
            return len(self.text)
        index = max(line, 1) - 1
        return min(self.line_start(index) + max(column, 1) - 1, self.line_end(index))

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of an offset (inside a line break: that line's end)."""
        index = bisect.bisect_right(self.starts, offset) - 1
        offset = min(offset, self.ends[index])
        return index + 1, max(offset - self.line_start(index), 0) + 1

    def span(self, start: int, end: int) -> Span:
        return Span(*self.position(start), *self.position(end))


def _keeps_crlf(text: str, offset: int) -> bool:
    """Whether ``offset`` does not fall between the CR and LF of one line break."""
    return not (0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n")


def edit(path: Path, index: LineIndex, start: int, end: int, replacement: str, trim: bool = True) -> Edit:
    """An edit replacing ``index.text[start:end]`` with ``replacement``.

    ``trim`` narrows it to the characters that really change (a common prefix
    and suffix are left alone), never splitting a CRLF pair."""
    text = index.text
    if trim:
        old = text[start:end]
        prefix = 0
        limit = min(len(old), len(replacement))
        while prefix < limit and old[prefix] == replacement[prefix]:
            prefix += 1
        suffix = 0
        limit -= prefix
        while suffix < limit and old[len(old) - 1 - suffix] == replacement[len(replacement) - 1 - suffix]:
            suffix += 1
        new_start, new_end = start + prefix, end - suffix
        text_new = replacement[prefix : len(replacement) - suffix]
        while new_start > start and not _keeps_crlf(text, new_start):
            new_start -= 1
            text_new = text[new_start] + text_new
        while new_end < end and not _keeps_crlf(text, new_end):
            text_new += text[new_end]
            new_end += 1
        start, end, replacement = new_start, new_end, text_new
    return Edit(path, index.span(start, end), replacement, start, end)


def edits_between(path: Path, old: str, new: str, index: LineIndex | None = None) -> tuple[Edit, ...]:
    """The edits that turn ``old`` (the file's whole text) into ``new``: one
    per changed run of lines, each narrowed to what changes."""
    index = index or LineIndex(old)
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    edits = []
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    # The lines both texts open and end with are left out of the comparison: a fix changes a few
    # lines, and SequenceMatcher's cost grows with the lines it is given (with autojunk off, with
    # how often each repeats: blank lines, fences) far more than a walk over equal lines costs.
    shorter = min(len(old_lines), len(new_lines))
    head = 0
    while head < shorter and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(
        None, old_lines[head : len(old_lines) - tail], new_lines[head : len(new_lines) - tail], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append(edit(path, index, offsets[head + i1], offsets[head + i2], "".join(new_lines[head + j1 : head + j2])))
    return tuple(edits)


# -- applying edits to a text ---------------------------------------------------------------


class FixError(Exception):
    """A fix cannot be applied to the text it was built for."""


def offsets(item: Edit, index: LineIndex) -> tuple[int, int]:
    """An edit's offsets: its own, else from its span (edits built by a plugin)."""
    if item.start is not None and item.end is not None:
        start, end = item.start, item.end
    else:
        start = index.offset(item.span.line, item.span.column)
        end = index.offset(item.span.end_line, item.span.end_column)
    if not 0 <= start <= end <= len(index.text):
        raise FixError(f"edit {start}..{end} is outside the file ({len(index.text)} characters)")
    return start, end


def apply_edits(text: str, ranges: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with non-overlapping (start, end, replacement) edits applied."""
    out, last = [], 0
    for start, end, replacement in sorted(ranges, key=lambda r: (r[0], r[1])):
        if start < last:
            raise FixError("overlapping edits")
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out)
