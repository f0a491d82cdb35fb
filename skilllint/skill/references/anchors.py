"""Anchors of Markdown files (SL307): the heading ids a `file.md#anchor` link may name, and the
closest one to a missing anchor."""

from __future__ import annotations

import re

from ... import lazyre
from ..text import markdown
from ...fsafe import UnsafeFile, read_capped
from ..package import SkillPackage
from .graph import reference_graph


def closest_anchor(wanted: str, anchors: list[str]) -> list[str]:
    """The heading anchor the author probably meant: a close spelling, else the one
    sharing the longest start (at least 4 characters: `#auth` for `#authentication`)."""
    import difflib  # only to suggest an anchor (kept off a warm run's start-up)

    close = difflib.get_close_matches(wanted, anchors, n=1, cutoff=0.6)
    if close:
        return close
    def shared(anchor: str) -> int:
        n = 0
        for a, b in zip(anchor, wanted):
            if a != b:
                break
            n += 1
        return n
    best = max(anchors, key=shared, default=None)
    if best is None or shared(best) < 4 or sum(1 for a in anchors if shared(a) == shared(best)) > 1:
        return []
    return [best]


_ID_NAME = lazyre.compile(r"[^\s}]+")


_ID_TAIL = lazyre.compile(r"\s*(?:#+\s*)?")


LINE_ANCHOR = lazyre.compile(r"^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$")


# An id or name attribute of an HTML tag. The tag's text stops at the next tag's start
# (<(?![A-Za-z])): that tag's own search finds the same attribute, where a scan from each of
# many tags with no ">" would run to the end of the line.
_HTML_ANCHOR = lazyre.compile(
    r"<[A-Za-z](?:[^<>]|<(?![A-Za-z]))*?\s(?:id|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE
)


def _heading_id(line: str) -> str | None:
    r"""The id of a heading's ``{#id}`` attribute: group 1 of ``\{#([^\s}]+)[^}]*\}\s*#*\s*$``.
    Only the line's last "}" can close it, and the "{#" that opens it comes after the "}"
    before: found with two rfinds, where that regex scans from every "{#" to a "}"."""
    close = line.rfind("}")
    if close < 0 or _ID_TAIL.fullmatch(line, close + 1) is None:
        return None
    start = line.find("{#", line.rfind("}", 0, close) + 1)
    while 0 <= start < close:
        name = _ID_NAME.match(line, start + 2, close)
        if name is not None:
            return name.group()
        start = line.find("{#", start + 1)
    return None


def anchors_of(package: SkillPackage, target: str):
    """Heading anchors (GitHub slugs, -1/-2 for duplicates) and HTML ids/names of a document."""
    graph = reference_graph(package)
    if target == package.skill_md_name:
        text, offset = package.body, package.body_start_line
    elif target in graph.texts:
        text, offset = graph.texts[target], 0
    else:
        try:
            data = read_capped(package.root / target, package.max_bytes).data
        except UnsafeFile:
            return None
        if b"\x00" in data[:8192]:
            return None
        text, offset = data.decode("utf-8", errors="replace").replace("\r\n", "\n"), 0
    found, code = markdown.scan_headings(text, offset)
    headings: dict[str, markdown.Heading] = {}
    for heading in found:
        headings.setdefault(heading.anchor, heading)
    html: set[str] = set()
    for number, line in enumerate(text.split("\n"), start=1 + offset):
        if number in code:
            continue
        if "{#" in line:  # `## Title {#id}`: an explicit heading id (Pandoc, kramdown, MkDocs attr_list)
            attribute = _heading_id(line)
            if attribute:
                html.add(attribute)
        if "=" not in line:
            continue
        for match in _HTML_ANCHOR.finditer(line):
            html.add(next(g for g in match.groups() if g is not None))
    return headings, html
