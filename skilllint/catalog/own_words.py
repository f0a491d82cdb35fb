"""What a skill's own body says it is about: its headings and its opening, as one text.

SL513 routes this text against the catalog a surface renders, as a query a user could
have written in the skill's own words: a body that routes first to a sibling's catalog
line is one the model may confuse with that sibling. Only prose is read: fenced code,
HTML comments, tables and link targets say how, not what.
"""

from __future__ import annotations

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
_MARKUP = lazyre.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)|<[^<>\n]*>|[*_`>#|]")


def own_words(body: str) -> str:
    """The body's headings (but those that only structure a document) and its first prose
    lines, up to :data:`OPENING_WORDS` words, with Markdown markup taken out."""
    lines = body.split("\n")
    code = fenced_lines(lines)  # 1-based
    headings: list[str] = []
    opening: list[str] = []
    words = 0
    in_comment = False
    for number, line in enumerate(lines):
        if number + 1 in code:
            continue
        stripped = line.strip()
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        heading = atx_heading(stripped)
        if heading is not None:
            title = heading[1] or ""
            if title and not _STRUCTURAL.fullmatch(title.strip()):
                headings.append(title)
            continue
        if words >= OPENING_WORDS or not stripped or stripped.startswith("|"):
            continue
        text = _MARKUP.sub(lambda m: m.group(1) or " ", stripped)
        taken = text.split()[: OPENING_WORDS - words]
        words += len(taken)
        opening.append(" ".join(taken))
    return " ".join(headings + opening)
