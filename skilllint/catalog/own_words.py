"""What a skill's own body says it is about: its headings and its opening, as one text.

SL513 routes this text against the catalog a surface renders, as a query a user could
have written in the skill's own words: a body that routes first to a sibling's catalog
line is one the model may confuse with that sibling. Only prose is read: fenced code,
HTML comments, tables and link targets say how, not what.
"""

from __future__ import annotations

from typing import Iterator

from .. import lazyre
from ..skill.text.markdown import atx_heading, fenced_lines

# How much of the opening is read: enough for what the skill is about, not its steps.
OPENING_WORDS = 80
# Headings that say where one is in a document, not what the skill is about.
_STRUCTURAL = lazyre.compile(
    r"(?i)(?:overview|introduction|summary|contents|table of contents|usage|examples?|notes?|references?|resources|"
    r"instructions|workflow|steps|quick ?start|getting started|prerequisites|requirements|setup|installation|"
    r"output(?: format)?|troubleshooting|faq|best practices|tips|see also|related(?: skills)?|when to use(?: this skill)?|"
    r"guidelines|important|checklist|limitations|common (?:mistakes|pitfalls)|anti-?patterns)\W*"
)
# A link's text stays, its target goes; tags and emphasis marks go. No part can run past the next
# opening bracket, so the attempts at a run of brackets stop at once: linear on any line.
_WORD = lazyre.compile(r"[^\W_]+")
_MARKUP = lazyre.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)|<[^<>\n]*>|[*_`>#|]")


def line_key(text: str) -> str:
    """A heading or prose line as a template repeats it: its lowercase words, numbering and
    markup left out ("## 1. Core Workflows" and "## Core workflows" are one line)."""
    return " ".join(word for word in _WORD.findall(text.lower()) if not word.isdigit())


def _read_lines(body: str) -> Iterator[tuple[bool, str]]:
    """The body's lines own_words reads, in order: (is a heading, its text), fenced code, HTML
    comments, tables and blank lines left out."""
    lines = body.split("\n")
    code = fenced_lines(lines)  # 1-based
    in_comment = False
    for number, line in enumerate(lines, start=1):
        if number in code:
            continue
        stripped = line.strip()
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        heading = atx_heading(stripped)
        if heading is not None:
            if heading[1]:
                yield True, heading[1]
            continue
        if stripped and not stripped.startswith("|"):
            yield False, stripped


def line_keys(body: str) -> set[str]:
    """:func:`line_key` of every line :func:`own_words` could read: what a catalog counts to
    find the lines a template gives many of its skills."""
    return {line_key(text) for _, text in _read_lines(body)}


def own_words(body: str, shared: frozenset[str] | set[str] = frozenset()) -> str:
    """The body's headings (but those that only structure a document) and its first prose
    lines, up to :data:`OPENING_WORDS` words, with Markdown markup taken out; a line whose
    :func:`line_key` is in ``shared`` (one a template gives many skills of the catalog, its
    section titles and its standard opening) is left out: it says what the template is, not
    what this skill is about."""
    headings: list[str] = []
    opening: list[str] = []
    words = 0
    for is_heading, text in _read_lines(body):
        if shared and line_key(text) in shared:
            continue
        if is_heading:
            if not _STRUCTURAL.fullmatch(text.strip()):
                headings.append(text)
            continue
        if words >= OPENING_WORDS:
            continue
        plain = _MARKUP.sub(lambda m: m.group(1) or " ", text)
        taken = plain.split()[: OPENING_WORDS - words]
        words += len(taken)
        opening.append(" ".join(taken))
    return " ".join(headings + opening)
