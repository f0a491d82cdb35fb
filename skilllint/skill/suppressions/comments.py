"""Inline suppression comments.

Markdown (markdownlint style), outside fenced code:
  ``<!-- skilllint-disable SL310 SL311 -->`` … ``<!-- skilllint-enable SL310 -->``
  ``<!-- skilllint-disable-next-line SL310 -->``, ``<!-- skilllint-disable-line SL310 -->``
  ``<!-- skilllint-disable-file SL201 -->``
Frontmatter (a YAML comment on the offending line):
  ``description: … # skilllint: disable=SL113,SL131``
No codes means every code. A code also matches as a prefix (``SL1``).

Either form may end with a reason after two or more dashes set off by blanks, as ESLint
writes it: ``<!-- skilllint-disable-next-line SL310 -- generated file -->``,
``version: 1  # skilllint: disable=SL122 -- read by the plugin manifest``. The reason is
not read as codes: a word of it such as ``SL`` would otherwise silence a whole family.

:func:`parse` also keeps each comment as a :class:`Directive` (where it is, its codes
and the lines each covers) and :meth:`Suppressions.suppresses` remembers what it
silenced, so that SL901 can tell a comment that suppressed nothing.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..text.markdown import fence_blocks

# The head of a Markdown suppression comment; its codes run to the first "-->" after it.
_MD_HEAD = re.compile(r"<!--\s*(skilllint-(disable-next-line|disable-line|disable-file|disable|enable))\b")
# The codes are taken whole ((?=(…))\1: a lookahead is never re-entered), so the trailing
# \s* never competes with them for spaces; a reason follows two or more dashes after a blank.
_YAML = re.compile(r"#\s*(skilllint:\s*disable)(?:=(?=([A-Za-z0-9_, ]+))\2)?\s*(?:(?<=\s)-{2,}(?:\s.*)?)?$")
# Where the reason starts: two or more dashes with a blank (or the text's edge) on each side.
_REASON = re.compile(r"(?:^|\s)-{2,}(?:\s|$)")
_CODE = re.compile(r"[^\s,]+")
ALL = "*"
UNUSED_SUPPRESSION = "SL901"
"""The rule that reports a suppression comment that suppressed nothing: a comment without
codes does not silence it (that comment is what it reports); one that names it does."""


@dataclass(frozen=True, eq=False, repr=False)
class Directive:
    """One suppression comment. Offsets are 0-based into its line's text; ``codes`` are
    the written codes, upper-cased, each with its offsets (none: every code)."""

    kind: str  # disable, disable-line, disable-next-line, disable-file, enable, or yaml (a frontmatter comment)
    line: int  # 1-based
    start: int  # the comment: "<!--" up to past "-->"; in the frontmatter, "#" up to the end of the line
    end: int
    keyword: tuple[int, int]  # "skilllint-disable-next-line", "skilllint: disable"
    codes: tuple[tuple[str, int, int], ...]
    reason: str

    @property
    def written(self) -> tuple[str, ...]:
        """The codes as the comment applies them (``ALL`` when it names none)."""
        return tuple(code for code, _, _ in self.codes) or (ALL,)


def _comment_spans(line: str):
    """(kind, keyword span, start of the codes text, offset of its "-->", start of the
    comment) of each Markdown suppression comment of ``line``, as the regex
    ``<!--\\s*skilllint-(kind)\\b(.*?)-->`` finds them, in one pass: that regex looked for
    a "-->" from every opener; here an opener without one ends the search, as no later
    opener can have one either."""
    at = line.find("<!--")
    while at >= 0:
        head = _MD_HEAD.match(line, at)
        if head is None:
            at = line.find("<!--", at + 1)
            continue
        close = line.find("-->", head.end())
        if close < 0:
            return
        yield head.group(2), head.span(1), head.end(), close, at
        at = line.find("<!--", close + 3)


def _comments(line: str):
    """(kind, codes text) of each Markdown suppression comment of ``line``."""
    for kind, _, start, close, _ in _comment_spans(line):
        yield kind, line[start:close]


def _codes_and_reason(line: str, start: int, end: int) -> tuple[tuple[tuple[str, int, int], ...], str]:
    """The written codes of ``line[start:end]`` with their offsets, and the reason after them."""
    text = line[start:end]
    reason = ""
    marker = _REASON.search(text)
    if marker is not None:
        reason = text[marker.end() :].strip()
        text = text[: marker.start()]
    codes = tuple((m.group().upper(), start + m.start(), start + m.end()) for m in _CODE.finditer(text))
    return codes, reason


@dataclass(eq=False, repr=False)
class Suppressions:
    """Which codes are silenced on which lines of one file (1-based)."""

    file_codes: set[str] = field(default_factory=set)
    line_codes: dict[int, set[str]] = field(default_factory=dict)
    ranges: list[tuple[int, int, set[str]]] = field(default_factory=list)  # start, end (inclusive)
    directives: list[Directive] = field(default_factory=list)
    # (directive index, written code) -> the lines it covers (first, last); a `disable` that
    # reopens a range already open covers nothing
    covers: dict[tuple[int, str], tuple[int, int]] = field(default_factory=dict)
    # (code, line) of every finding :meth:`suppresses` silenced
    hits: set[tuple[str, int]] = field(default_factory=set)
    # code -> (range starts in order, the furthest end up to each): built on first use, so
    # each diagnostic costs a few lookups, not a pass over thousands of ranges
    _by_code: dict[str, tuple[list[int], list[int]]] | None = field(default=None, repr=False, compare=False)
    _indexed: int = field(default=-1, repr=False, compare=False)  # len(ranges) when built

    def suppresses(self, code: str, line: int) -> bool:
        if self._covered(code, line):
            self.hits.add((code, line))
            return True
        return False

    def _covered(self, code: str, line: int) -> bool:
        keys = _keys(code)
        if _matches(keys, self.file_codes) or _matches(keys, self.line_codes.get(line, ())):
            return True
        if not self.ranges:
            return False
        if self._by_code is None or self._indexed != len(self.ranges):
            self._by_code, self._indexed = _index(self.ranges), len(self.ranges)
        for key in keys:
            found = self._by_code.get(key)
            if found is not None:
                starts, reach = found
                at = bisect.bisect_right(starts, line) - 1
                if at >= 0 and reach[at] >= line:
                    return True
        return False

    @property
    def empty(self) -> bool:
        return not (self.file_codes or self.line_codes or self.ranges)

    def silenced(self, index: int, written: str, hits: Hits) -> bool:
        """Whether directive ``index``'s code ``written`` covers one of ``hits``."""
        span = self.covers.get((index, written))
        return span is not None and hits.any_within(written, *span)


class Hits:
    """(code, line) pairs of silenced findings, asked by a written code and a range of lines."""

    def __init__(self, pairs) -> None:
        by_code: dict[str, list[int]] = {}
        for code, line in pairs:
            by_code.setdefault(code, []).append(line)
        for lines in by_code.values():
            lines.sort()
        self._by_code = by_code
        self._codes = Prefixes(by_code)
        self._answers: dict[tuple[str, int, int], bool] = {}  # a comment may repeat one code many times

    def any_within(self, written: str, first: int, last: int) -> bool:
        key = (written, first, last)
        answer = self._answers.get(key)
        if answer is None:
            answer = False
            for code in self._codes.covered_by(written):
                lines = self._by_code[code]
                at = bisect.bisect_left(lines, first)
                if at < len(lines) and lines[at] <= last:
                    answer = True
                    break
            self._answers[key] = answer
        return answer


class Prefixes:
    """Codes, looked up by a written code that covers them (a code, a prefix or ``ALL``)."""

    def __init__(self, codes) -> None:
        self._covered: dict[str, list[str]] = {}
        for code in codes:
            for key in _keys(code):
                self._covered.setdefault(key, []).append(code)

    def covered_by(self, written: str) -> list[str]:
        return self._covered.get(written, [])

    def covers_any(self, written: str) -> bool:
        return written in self._covered


def _keys(code: str) -> list[str]:
    """The written codes that cover ``code``: all (but for SL901), and each of its
    prefixes (``SL1`` covers ``SL101``)."""
    prefixes = [code[:end] for end in range(1, len(code) + 1)]
    return prefixes if code == UNUSED_SUPPRESSION else [ALL, *prefixes]


def _matches(keys: list[str], codes) -> bool:
    return any(key in codes for key in keys)


def _index(ranges: list[tuple[int, int, set[str]]]) -> dict[str, tuple[list[int], list[int]]]:
    by_code: dict[str, list[tuple[int, int]]] = {}
    for start, end, codes in ranges:
        for code in codes:
            by_code.setdefault(code, []).append((start, end))
    index = {}
    for code, spans in by_code.items():
        spans.sort()
        reach, furthest = [], 0
        for _, end in spans:
            furthest = max(furthest, end)
            reach.append(furthest)
        index[code] = ([start for start, _ in spans], reach)
    return index


def body_fences(lines: list[str], frontmatter_end: int = 0) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each fenced code block below the frontmatter, fences
    included (:func:`skilllint.skill.text.markdown.fence_blocks`): comments there are code, not read."""
    return fence_blocks("\n".join(lines[frontmatter_end:]), frontmatter_end)


def parse(lines: list[str], frontmatter_end: int = 0) -> Suppressions:
    """Collect suppressions from a file's lines.

    ``frontmatter_end``: 1-based line of the closing ``---`` (0 when there is
    no frontmatter); YAML comments count only above it, HTML comments only
    below it.
    """
    result = Suppressions()
    if "skilllint" not in "".join(lines):
        return result  # the common case, decided in one scan
    open_ranges: dict[str, tuple[int, int]] = {}  # code -> (first line, directive index)
    fenced = {number for first, end in body_fences(lines, frontmatter_end) for number in range(first, end + 1)}
    last = len(lines)
    directives = result.directives
    for index, line in enumerate(lines, start=1):
        if index <= frontmatter_end:
            match = _YAML.search(line)
            if match:
                if match.group(2):
                    codes, reason = _codes_and_reason(line, match.start(2), len(line))
                else:  # no codes: the reason, if any, follows the keyword
                    codes, reason = _codes_and_reason(line, match.end(1), len(line))
                    codes = ()
                directive = Directive("yaml", index, match.start(), len(line), match.span(1), codes, reason)
                directives.append(directive)
                written = directive.written
                result.line_codes.setdefault(index, set()).update(written)
                for code in written:
                    result.covers[(len(directives) - 1, code)] = (index, index)
            continue
        if "skilllint-" not in line or index in fenced:
            continue
        for kind, keyword, start, close, opener in _comment_spans(line):
            codes, reason = _codes_and_reason(line, start, close)
            directive = Directive(kind, index, opener, close + 3, keyword, codes, reason)
            directives.append(directive)
            number = len(directives) - 1
            written = directive.written
            if kind == "disable-file":
                result.file_codes.update(written)
                covered = (1, max(last, 1))
            elif kind == "disable-line":
                result.line_codes.setdefault(index, set()).update(written)
                covered = (index, index)
            elif kind == "disable-next-line":
                result.line_codes.setdefault(index + 1, set()).update(written)
                covered = (index + 1, index + 1)
            elif kind == "disable":
                for code in written:
                    open_ranges.setdefault(code, (index, number))
                continue
            else:  # enable
                closing = list(open_ranges) if ALL in written else [c for c in written if c in open_ranges]
                for code in closing:
                    first, opened_by = open_ranges.pop(code)
                    result.ranges.append((first, index, {code}))
                    result.covers[(opened_by, code)] = (first, index)
                continue
            for code in written:
                result.covers[(number, code)] = covered
    for code, (first, opened_by) in open_ranges.items():
        result.ranges.append((first, last, {code}))
        result.covers[(opened_by, code)] = (first, last)
    return result
