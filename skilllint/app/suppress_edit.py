"""The edit that silences one finding of SKILL.md with a suppression comment
(the language server's "Disable SLxxx for this line").

skilllint reads suppression comments in SKILL.md only (:mod:`skilllint.skill.suppressions.comments`):

* in the body, ``<!-- skilllint-disable-next-line SL310 -->`` on a line of its own above
  the finding's line (its indentation, so that a list item goes on), or the code added to
  such a comment already there (a second comment would take the first one's line); in a
  fenced code block, where comments are not read, ``<!-- skilllint-disable SL310 -->``
  above the fence and ``<!-- skilllint-enable SL310 -->`` below it;
* in the frontmatter, ``# skilllint: disable=SL113`` at the end of the line, or the code
  added to such a comment there.

Each proposal is checked before it is offered, on the text as it would be: skilllint's own
parser must read it as silencing the code on the finding's line (moved down by the lines
inserted), every suppression the text had must still hold, and the frontmatter must split
where it did and mean the same YAML. A proposal that fails is not offered (a line inside a
block scalar, say, where a ``#`` would be part of the value).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Callable

from ..skill.text import frontmatter, yamltree
from ..skill.suppressions import comments as suppress
from ..edits import LineIndex, apply_edits

# An existing comment the code can join: its keyword (the codes follow it).
_NEXT_LINE = re.compile(r"<!--[ \t]*skilllint-disable-next-line\b")
_YAML_DISABLE = re.compile(r"#[ \t]*skilllint:[ \t]*disable=")
_INDENT = re.compile(r"[ \t]*")
CHECK_BUDGET = 8 * 1024 * 1024  # characters the checks of one text's proposals may read: 8 of a 1 MiB SKILL.md


@dataclass(frozen=True, eq=False, repr=False)
class Proposal:
    """A way to silence a finding: a title and (start, end, replacement) edits, in
    code-point offsets into the text it was made for."""

    title: str
    edits: tuple[tuple[int, int, str], ...]
    shift: Callable[[int], int]  # a 1-based line of the old text -> that line in the new one


@dataclass(eq=False, repr=False)
class _Reading:
    """What skilllint reads of SKILL.md's text that an inserted comment must not change."""

    split: frontmatter.Split
    frontmatter_end: int  # 1-based line of the closing fence, 0 when there is no frontmatter
    suppressions: suppress.Suppressions
    _parsed: object = None

    @classmethod
    def of(cls, text: str) -> "_Reading":
        source = frontmatter.SourceText.from_text(text)
        split = frontmatter.canonical(source)
        end = split.close_line + 1 if split.status == "ok" else 0
        return cls(split, end, suppress.parse(source.lines, end))

    @property
    def meaning(self):
        """The frontmatter as its parser reads it (parsed on first use: an edit of the body
        leaves its text as it was, and the same text means the same)."""
        if self._parsed is None:
            self._parsed = _meaning(self.split.yaml) if self.split.status == "ok" else ()
        return self._parsed


class Silencer:
    """The proposals for the findings of one text of SKILL.md (as the editor holds it: any
    line endings, a byte-order mark); what it reads of that text is read once. Each check
    reads the whole text as it would be: past ``budget`` characters read so, no more
    proposals (a request for a whole long file asks for many)."""

    def __init__(self, text: str, budget: int = CHECK_BUDGET) -> None:
        self.text = text
        self.index = LineIndex(text)
        self.before = _Reading.of(text)
        self.budget = budget
        self._fences: list[tuple[int, int]] | None = None

    def disable(self, code: str, line: int) -> Proposal | None:
        """How to silence ``code`` on 1-based ``line``, or None where no comment skilllint reads can
        (or the budget is spent)."""
        index, before = self.index, self.before
        if not 1 <= line <= index.line_count:
            return None
        if not before.suppressions.empty and before.suppressions.suppresses(code, line):
            return None  # silenced already: nothing to add
        if line <= before.frontmatter_end:
            candidates = _in_frontmatter(index, code, line)
        else:
            candidates = _in_body(index, before.frontmatter_end, code, line, self.fence_around(line))
        for proposal in candidates:
            if self.budget < len(self.text):
                return None
            self.budget -= len(self.text)
            after = _Reading.of(apply_edits(self.text, proposal.edits))
            if after.suppressions.suppresses(code, proposal.shift(line)) and _keeps(before, after, proposal.shift):
                return proposal
        return None

    def fence_around(self, line: int) -> tuple[int, int] | None:
        """(first, last) 1-based lines of the fenced code block holding ``line``, fences
        included, as :func:`skilllint.skill.suppressions.comments.parse` reads fences; None outside one."""
        if self._fences is None:
            lines = [self.index.line(number) for number in range(self.index.line_count)]
            self._fences = suppress.body_fences(lines, self.before.frontmatter_end)
        at = bisect.bisect_right(self._fences, (line, self.index.line_count + 1)) - 1
        if at >= 0 and self._fences[at][0] <= line <= self._fences[at][1]:
            return self._fences[at]
        return None


def disable(text: str, code: str, line: int) -> Proposal | None:
    """:meth:`Silencer.disable` for one finding of ``text``."""
    return Silencer(text).disable(code, line)


def _in_frontmatter(index: LineIndex, code: str, line: int):
    title = f"Disable {code} for this line"
    text = index.line(line - 1)
    end = index.line_end(line - 1)
    existing = list(_YAML_DISABLE.finditer(text))
    if existing:
        at = index.line_start(line - 1) + existing[-1].end()
        yield Proposal(title, ((at, at, f"{code},"),), _same)
    yield Proposal(title, ((end, end, f"  # skilllint: disable={code}"),), _same)


def _in_body(index: LineIndex, frontmatter_end: int, code: str, line: int, fence: tuple[int, int] | None):
    title = f"Disable {code} for this line"
    if line - 1 > frontmatter_end:
        above = list(_NEXT_LINE.finditer(index.line(line - 2)))
        if above:
            at = index.line_start(line - 2) + above[-1].end()
            yield Proposal(title, ((at, at, f" {code}"),), _same)
    if fence is None or fence[0] == line:  # a comment inside a fence is not read (above its opening line is outside)
        text = index.line(line - 1)
        indent = _INDENT.match(text).group()
        at = index.line_start(line - 1)
        comment = f"{indent}<!-- skilllint-disable-next-line {code} -->{_ending(index, line)}"
        yield Proposal(title, ((at, at, comment),), lambda n: n + 1 if n >= line else n)
    if fence is not None:
        first, last = fence
        ending = _ending(index, first)
        opening = index.line_start(first - 1)
        closing = index.line_end(last - 1)
        edits = [(opening, opening, f"<!-- skilllint-disable {code} -->{ending}")]
        if last < index.line_count:  # an unclosed fence runs to the end: the range does too
            edits.append((closing, closing, f"{ending}<!-- skilllint-enable {code} -->"))
        yield Proposal(
            f"Disable {code} for this code block", tuple(edits), lambda n: n if n < first else n + 1 if n <= last else n + 2
        )


def _ending(index: LineIndex, line: int) -> str:
    """The line break after 1-based ``line``, else the text's first one, else LF."""
    text = index.text
    start = index.line_end(line - 1)
    if start < len(text):
        return "\r\n" if text.startswith("\r\n", start) else text[start]
    found = re.search(r"\r\n|\r|\n", text)
    return found.group() if found else "\n"


def _same(line: int) -> int:
    return line


def _keeps(before: _Reading, after: _Reading, shift: Callable[[int], int]) -> bool:
    """Whether ``after`` reads as ``before`` does, lines moved by ``shift``, but for the
    suppression added."""
    if before.split.status != after.split.status:
        return False
    if before.split.yaml != after.split.yaml and before.meaning != after.meaning:
        return False
    if before.frontmatter_end and shift(before.frontmatter_end) != after.frontmatter_end:
        return False
    old, new = before.suppressions, after.suppressions
    if not old.file_codes <= new.file_codes:
        return False
    if any(not codes <= new.line_codes.get(shift(n), set()) for n, codes in old.line_codes.items()):
        return False
    ranges = {(start, end, frozenset(codes)) for start, end, codes in new.ranges}
    return all((shift(start), shift(end), frozenset(codes)) in ranges for start, end, codes in old.ranges)


def _meaning(yaml: str):
    """The frontmatter as its parser reads it, positions aside (an error: its message)."""
    try:
        document = yamltree.parse(yaml)
    except yamltree.YamlError as exc:
        return ("error", exc.message)
    return [
        (node.kind, node.value if node.kind == "scalar" else None, node.style, node.tag, node.anchor, node.flow, node.alias)
        for node in yamltree.walk(document.root)
    ]
