"""The comparison oracle for skilllint's Markdown line scanners: a full CommonMark parse.

markdown-it-py (CommonMark, plus GFM tables) parses the text; what the scanners in
``skilllint.skill.text.markdown`` find cheaply (headings with GitHub anchors, links, images and
reference definitions with 1-based file positions, fenced code) the tests check
against what this parse finds. It lives in the tests so that skilllint itself never
needs markdown-it-py (a test-extra dependency).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote

from skilllint.skill.text.markdown import _DEFINITION, Heading, Link, github_anchor


@dataclass(frozen=True)
class Block:
    """A block's kind and line range (code, fence, list item, table row, paragraph, HTML)."""

    kind: str  # "code" | "fence" | "list_item" | "table_row" | "paragraph" | "html"
    start: int  # 1-based first line
    end: int  # 1-based last line (inclusive)
    info: str = ""  # fence info string


@dataclass
class MarkdownDocument:
    """The parts of a Markdown file the scanners are compared on: headings, links and blocks."""

    headings: list[Heading] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def code_lines(self) -> set[int]:
        lines: set[int] = set()
        for block in self.blocks:
            if block.kind in ("code", "fence"):
                lines.update(range(block.start, block.end + 1))
        return lines


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def parse(text: str, line_offset: int = 0) -> MarkdownDocument:
    """Parse Markdown ``text`` whose first line is file line ``line_offset + 1``."""
    tokens = _parser().parse(text)
    lines = text.split("\n")
    doc = MarkdownDocument()
    anchor_counts: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        start, end = token.map[0] + 1 + line_offset, token.map[1] + line_offset
        if token.type == "heading_open":
            inline = tokens[index + 1]
            title = "".join(
                " " if child.type in ("softbreak", "hardbreak") else child.content
                for child in inline.children or ()
                if child.type in ("text", "code_inline", "softbreak", "hardbreak")
            )
            slug = github_anchor(title)
            seen = anchor_counts.get(slug, 0)
            anchor_counts[slug] = seen + 1
            doc.headings.append(Heading(int(token.tag[1]), title, start, slug if not seen else f"{slug}-{seen}"))
        elif token.type in ("fence", "code_block"):
            doc.blocks.append(Block("fence" if token.type == "fence" else "code", start, end, token.info.strip()))
        elif token.type == "list_item_open":
            doc.blocks.append(Block("list_item", start, end))
        elif token.type == "tr_open":
            doc.blocks.append(Block("table_row", start, end))
        elif token.type == "paragraph_open":
            doc.blocks.append(Block("paragraph", start, end))
        elif token.type == "html_block":
            doc.blocks.append(Block("html", start, end))
        elif token.type == "inline":
            _collect_links(token, lines, token.map[0], token.map[1], line_offset, doc)
    code = doc.code_lines()
    for number, line in enumerate(lines, start=1 + line_offset):
        if "]:" in line and number not in code:
            match = _DEFINITION.match(line)
            if match:
                dest = match.group("dest").strip("<>")
                doc.links.append(Link("definition", dest, match.group("label"), number, match.start("dest") + 1))
    return doc


def _collect_links(token, lines: list[str], first: int, last: int, offset: int, doc: MarkdownDocument) -> None:
    search_from = (first, 0)
    children = token.children or []
    for position, child in enumerate(children):
        if child.type == "link_open":
            kind = "autolink" if child.markup == "autolink" else "link"
            target = child.attrGet("href") or ""
            text = ""
            for inner in children[position + 1 :]:
                if inner.type == "link_close":
                    break
                text += inner.content
        elif child.type == "image":
            kind, target, text = "image", child.attrGet("src") or "", child.content
        else:
            continue
        line, column = _locate(lines, first, last, search_from, target)
        if line >= 0:
            search_from = (line, column)
        doc.links.append(Link(kind, target, text, (line if line >= 0 else first) + 1 + offset, max(column, 0) + 1))


def _locate(lines: list[str], first: int, last: int, start: tuple[int, int], target: str) -> tuple[int, int]:
    """Find where a destination is written (markdown-it normalises it, so try both)."""
    candidates = [target, unquote(target)]
    for line_index in range(start[0], min(last, len(lines))):
        from_col = start[1] if line_index == start[0] else 0
        for candidate in candidates:
            if not candidate:
                continue
            col = lines[line_index].find(candidate, from_col)
            if col >= 0:
                return line_index, col
    return -1, -1


def unclosed_fence(text: str, line_offset: int = 0) -> int | None:
    """The file line of a fence CommonMark leaves open to the end of the text (at the top level or in
    a container that runs to the end), when lines with text follow it; else None."""
    lines = text.split("\n")
    last = len(text.rstrip().split("\n"))
    for token in _parser().parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        final = lines[end - 1].strip() if end - 1 < len(lines) else ""
        closed = end - start >= 2 and final[:1] == token.markup[0] and set(final) <= {token.markup[0]} and len(final) >= len(token.markup)
        if not closed and end >= last and any(line.strip() for line in lines[start + 1 :]):
            return start + 1 + line_offset
    return None
