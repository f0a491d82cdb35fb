"""Splitting SKILL.md into frontmatter and body, the way each surface does it.

Surfaces disagree on where the frontmatter ends (SL010):

* ``canonical``: the first line is ``---`` (trailing blanks allowed) and the
  frontmatter closes at the next line whose text is ``---``. This is what the
  spec describes and what skilllint reports positions against.
* ``skills-ref``: ``content.split("---", 2)``: the first ``---`` anywhere after
  the opening closes it, even inside a value (S-REF ``parser.py``).
* ``quick-validate``: ``re.match(r"^---\\n(.*?)\\n---", content, re.DOTALL)``:
  the first line *starting* with ``---`` (Anthropic and Codex quick_validate.py).
* ``codex``: first line ``trim() == "---"``, closes at the next line whose
  trimmed text is ``---``, even inside a block scalar; empty frontmatter is an
  error (S-CX-LOAD ``extract_frontmatter``).

All of them read text with universal newlines (Python's ``read_text`` and
Rust's ``lines()``), so CRLF never changes the split; none strips a BOM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BOM = "\ufeff"


@dataclass(frozen=True, eq=False, repr=False)
class Split:
    """Where one splitter finds the frontmatter.

    ``status``: ``ok`` | ``missing`` | ``unclosed`` | ``empty``.
    ``yaml``: the YAML text the surface hands its parser (``ok`` only).
    ``yaml_line``/``yaml_column``: file position (0-based) of the first YAML
    character, so positions inside ``yaml`` can be mapped back to the file.
    ``close_line``: 0-based line holding the closing fence (``ok`` only).
    ``close_column``: column where the closing ``---`` starts on that line.
    """

    status: str
    yaml: str = ""
    yaml_line: int = 1
    yaml_column: int = 0
    close_line: int = -1
    close_column: int = 0


@dataclass(frozen=True, eq=False, repr=False)
class SourceText:
    """SKILL.md decoded, with the facts that parsing rules need."""

    text: str  # decoded with universal newlines, BOM kept
    lines: list[str]  # without line endings, BOM stripped from the first line
    has_bom: bool
    crlf_lines: int  # lines that ended with CRLF in the file
    line_ending: str  # "\n", "\r\n" or "\r": the file's most common line ending (what a fix's new lines end with)

    @classmethod
    def from_text(cls, raw_text: str) -> "SourceText":
        crlf = raw_text.count("\r\n")
        text = raw_text.replace("\r\n", "\n").replace("\r", "\n")
        has_bom = text.startswith(BOM)
        lines = text.split("\n")
        if has_bom:
            lines[0] = lines[0][1:]
        cr = raw_text.count("\r") - crlf
        lf = raw_text.count("\n") - crlf
        # The most common; a tie goes to CRLF, then LF; no line break at all: LF.
        ending = "\r\n" if crlf and crlf >= max(lf, cr) else "\r" if cr > lf else "\n"
        return cls(text, lines, has_bom, crlf, ending)


def canonical(source: SourceText) -> Split:
    """The spec's split, tolerant of a BOM (reported separately as SL003)."""
    lines = source.lines
    if not lines or lines[0].rstrip() != "---":
        return Split("missing")
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return Split("ok", "\n".join(lines[1:index]), 1, 0, index, 0)
    return Split("unclosed")


def leading_junk(source: SourceText) -> str | None:
    """Why a file that has a frontmatter somewhere does not start with it.

    Returns ``"bom"``, ``"blank-lines"`` or None.
    """
    if source.has_bom and source.lines and source.lines[0].rstrip() == "---":
        return "bom"
    for line in source.lines:
        if line.strip() == "":
            continue
        return "blank-lines" if line.rstrip() == "---" and source.lines[0].strip() == "" else None
    return None


def skills_ref(source: SourceText) -> Split:
    content = source.text
    if not content.startswith("---"):
        return Split("missing")
    end = content.find("---", 3)
    if end < 0:
        return Split("unclosed")
    close_line = content.count("\n", 0, end)
    close_column = end - (content.rfind("\n", 0, end) + 1)
    return Split("ok", content[3:end], 0, 3, close_line, close_column)


_QUICK_VALIDATE = re.compile(r"^---\n(.*?)\n---", re.DOTALL)


def quick_validate(source: SourceText) -> Split:
    content = source.text
    if not content.startswith("---"):
        return Split("missing")
    match = _QUICK_VALIDATE.match(content)
    if match is None:
        return Split("unclosed")
    close_line = content.count("\n", 0, match.end(1) + 1)
    return Split("ok", match.group(1), 1, 0, close_line, 0)


def codex(source: SourceText) -> Split:
    lines = source.text.split("\n")
    if not lines or lines[0].strip() != "---":
        return Split("missing")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            if index == 1:
                return Split("empty")
            column = len(lines[index]) - len(lines[index].lstrip())
            return Split("ok", "\n".join(lines[1:index]), 1, 0, index, column)
    return Split("unclosed")


SPLITTERS = {
    "canonical": canonical,
    "skills-ref": skills_ref,
    "quick-validate": quick_validate,
    "codex": codex,
}
