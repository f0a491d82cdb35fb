"""Whether a long Markdown document opens with a table of contents (SL312)."""

from __future__ import annotations

import re

from ... import lazyre
from ..text.markdown import NextFind, fenced_lines

_TOC_TITLE = lazyre.compile(
    r"^ {0,3}(?:#{1,6}\s+)?(?:\*\*|__)?(?:table of contents|contents|toc|on this page|in this (?:file|document|guide|page|reference)|sections)"
    r"(?:\*\*|__)?\s*(?::\s*)?(?:(?:\*\*|__)\s*)?$",
    re.IGNORECASE,
)


_ANCHOR_END = lazyre.compile(r"[)\s]")


_ANCHOR_ITEM = lazyre.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\*\*|__)?\[[^\]]+\]\(#[^)\s]+\)")


def _anchor_links(line: str) -> int:
    r"""How many times ``\]\(#[^)\s]+\)`` matches ``line``: each "](#" whose anchor runs to a
    ")" (not a blank), the end looked up once for all (NextFind)."""
    found, at = 0, 0
    anchor_end = NextFind(line, _ANCHOR_END.compiled())
    while (start := line.find("](#", at)) >= 0:
        end = anchor_end(start + 3)
        if end < 0:
            break
        if line[end] == ")" and end > start + 3:
            found, at = found + 1, end + 1
        else:
            at = start + 1
    return found


def has_toc(lines: list[str], window: int = 40) -> bool:
    """A table of contents starting in the first ``window`` lines: a heading or a
    line named Contents (or alike), two list items that link to the file's own
    headings (``- [Setup](#setup)``), or three such links in any form."""
    fenced = fenced_lines(lines[:window])
    anchors = items = 0
    for number, line in enumerate(lines[:window], start=1):
        if number in fenced:
            continue
        if _TOC_TITLE.match(line):
            return True
        if "](#" in line:
            anchors += _anchor_links(line)
            items += 1 if _ANCHOR_ITEM.match(line) else 0
            if anchors >= 3 or items >= 2:
                return True
    return False
