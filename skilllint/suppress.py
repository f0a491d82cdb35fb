"""Inline suppression comments.

Markdown (markdownlint style), outside fenced code:
  ``<!-- skilllint-disable SL310 SL311 -->`` … ``<!-- skilllint-enable SL310 -->``
  ``<!-- skilllint-disable-next-line SL310 -->``, ``<!-- skilllint-disable-line SL310 -->``
  ``<!-- skilllint-disable-file SL201 -->``
Frontmatter (a YAML comment on the offending line):
  ``description: … # skilllint: disable=SL113,SL131``
No codes means every code. A code also matches as a prefix (``SL1``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

# The head of a Markdown suppression comment; its codes run to the first "-->" after it.
_MD_HEAD = re.compile(r"<!--\s*skilllint-(disable-next-line|disable-line|disable-file|disable|enable)\b")
# The codes are taken whole ((?=(…))\1: a lookahead is never re-entered), so the trailing
# \s* never competes with them for spaces.
_YAML = re.compile(r"#\s*skilllint:\s*disable(?:=(?=([A-Za-z0-9_, ]+))\1)?\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
ALL = "*"


def _comments(line: str):
    """(kind, codes text) of each suppression comment of ``line``, as the regex
    ``<!--\\s*skilllint-(kind)\\b(.*?)-->`` finds them, in one pass: that regex
    looked for a "-->" from every opener; here an opener without one ends the search,
    as no later opener can have one either."""
    at = line.find("<!--")
    while at >= 0:
        head = _MD_HEAD.match(line, at)
        if head is None:
            at = line.find("<!--", at + 1)
            continue
        close = line.find("-->", head.end())
        if close < 0:
            return
        yield head.group(1), line[head.end() : close]
        at = line.find("<!--", close + 3)


def _codes(text: str) -> set[str]:
    codes = {c.strip().upper() for c in re.split(r"[\s,]+", text) if c.strip()}
    return codes or {ALL}


@dataclass
class Suppressions:
    """Which codes are silenced on which lines of one file (1-based)."""

    file_codes: set[str] = field(default_factory=set)
    line_codes: dict[int, set[str]] = field(default_factory=dict)
    ranges: list[tuple[int, int, set[str]]] = field(default_factory=list)  # start, end (inclusive)
    # code -> (range starts in order, the furthest end up to each): built on first use, so
    # each diagnostic costs a few lookups, not a pass over thousands of ranges
    _by_code: dict[str, tuple[list[int], list[int]]] | None = field(default=None, repr=False, compare=False)
    _indexed: int = field(default=-1, repr=False, compare=False)  # len(ranges) when built

    def suppresses(self, code: str, line: int) -> bool:
        if _matches(code, self.file_codes) or _matches(code, self.line_codes.get(line, ())):
            return True
        if not self.ranges:
            return False
        if self._by_code is None or self._indexed != len(self.ranges):
            self._by_code, self._indexed = _index(self.ranges), len(self.ranges)
        for key in _keys(code):
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


def _keys(code: str) -> list[str]:
    """The written codes that cover ``code``: all, and each of its prefixes (``SL1`` covers ``SL101``)."""
    return [ALL, *(code[:end] for end in range(1, len(code) + 1))]


def _matches(code: str, codes) -> bool:
    return any(key in codes for key in _keys(code))


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


def parse(lines: list[str], frontmatter_end: int = 0) -> Suppressions:
    """Collect suppressions from a file's lines.

    ``frontmatter_end``: 1-based line of the closing ``---`` (0 when there is
    no frontmatter); YAML comments count only above it, HTML comments only
    below it.
    """
    result = Suppressions()
    if "skilllint" not in "".join(lines):
        return result  # the common case, decided in one scan
    open_ranges: dict[str, int] = {}
    fence: str | None = None
    last = len(lines)
    for index, line in enumerate(lines, start=1):
        if index <= frontmatter_end:
            match = _YAML.search(line)
            if match:
                result.line_codes.setdefault(index, set()).update(_codes(match.group(1) or ""))
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is not None or "skilllint-" not in line:
            continue
        for kind, written in _comments(line):
            codes = _codes(written)
            if kind == "disable-file":
                result.file_codes.update(codes)
            elif kind == "disable-line":
                result.line_codes.setdefault(index, set()).update(codes)
            elif kind == "disable-next-line":
                result.line_codes.setdefault(index + 1, set()).update(codes)
            elif kind == "disable":
                for code in codes:
                    open_ranges.setdefault(code, index)
            else:  # enable
                closing = list(open_ranges) if ALL in codes else [c for c in codes if c in open_ranges]
                for code in closing:
                    result.ranges.append((open_ranges.pop(code), index, {code}))
    for code, start in open_ranges.items():
        result.ranges.append((start, last, {code}))
    return result
