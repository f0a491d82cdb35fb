"""Prose that tries to override the agent's instructions or hide what it does from the user (SL806),
and the phrases SL802 shares with it.

Three kinds of phrase, each an attack's own wording rather than a word list tuned to one text:

- an **override**: "ignore (all) previous instructions", "disregard the system prompt", "forget
  your prior rules";
- a **rule escape**: "you are now DAN / in developer mode / unrestricted / no longer bound by …"
  (not "you are now a strict grader": skills switch the agent's role legitimately);
- **concealment** from the user: "do not tell the user", "without the user knowing", "hide this from
  the user" (not "don't tell the user about each tool call": that is how much to narrate).

A security write-up quotes such phrases; it is told apart by what surrounds the phrase: code (a
fenced block, a code span), quotation marks around it, a block quote, or a section or document that
names what it shows (prompt injection, jailbreak, attack, malicious, example, pattern, detect…).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import lazyre

_DETERMINERS = r"(?:(?:all|any|every|the|your|of|these|those|my)\s+){0,3}"
_EARLIER = r"(?:previous|prior|preceding|above|earlier|original|initial|system|existing|safety|developer|other)"
_RULES = r"(?:instructions?|prompts?|rules|guidelines|directions|directives|guardrails|restrictions|constraints|policies|messages)"
OVERRIDE = (
    rf"\b(?:ignore|disregard|forget|override|bypass|discard)\s+{_DETERMINERS}{_EARLIER}\s+{_RULES}\b"
    rf"|\b(?:ignore|disregard|forget|override|bypass)\s+(?:the\s+|your\s+)?system\s+prompt\b"
    r"|\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|above|before)\b"
)
ESCAPE = (
    r"\byou\s+are\s+now\s+(?:DAN\b|in\s+(?:developer|god|jailbreak|unrestricted|debug)\s+mode\b"
    r"|(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken)\b|free\s+(?:from|of)\s+(?:all\s+|any\s+|your\s+)?"
    r"(?:rules|restrictions|guidelines)\b|no\s+longer\s+(?:bound|restricted|limited)\b)"
)
_TELL = r"(?:tell|inform|notify|alert|mention\s+(?:this|it|that)\s+to|reveal\s+(?:this|it|that)\s+to)"
CONCEAL = (
    rf"\b(?:do\s+not|don't|don’t|never)\s+{_TELL}\s+the\s+user\b(?!\s+about\s+(?:each|every)\b)"
    r"|\bwithout\s+(?:the\s+user(?:'s|’s)?\s+(?:knowing|knowledge|noticing|seeing)|(?:telling|informing|notifying|alerting)\s+the\s+user)\b"
    r"|\b(?:hide|conceal)\s+(?:this|it|these|that|them|(?:the|your|any)\s+\w+)\s+from\s+the\s+user\b"
    r"|\bkeep\s+(?:this|it|these|that)\s+(?:secret|hidden)\s+from\s+the\s+user\b"
)
PHRASES = lazyre.compile(f"(?P<override>{OVERRIDE})|(?P<escape>{ESCAPE})|(?P<conceal>{CONCEAL})", re.IGNORECASE)
_QUICK = lazyre.compile(r"(?i)ignore|disregard|forget|override|bypass|discard|you\s+are\s+now|the\s+user")

# What names a quoted phrase as an example or an attack: the section or document is about it.
WRITE_UP = lazyre.compile(
    r"(?i)\b(?:prompt[- ]injections?|injections?|jailbreak\w*|attack\w*|attacker\w*|malicious|adversar\w*|exploit\w*|"
    r"red[- ]team\w*|threat\w*|payloads?|examples?|e\.g\.|such as|patterns?|detect\w*|scan\w*|suspicious|phishing|"
    r"poison\w*|manipulat\w*|hostile|untrusted|override-style)"
)
_GATED = lazyre.compile(r"[^.!?\n]*?\b(?:until|before|unless|yet)\b")
_HEADING = lazyre.compile(r"^ {0,3}#{1,6}\s")
_QUOTES = (('"', '"'), ("“", "”"), ("‘", "’"), ("«", "»"), ("'", "'"))

KINDS = {
    "override": "tells the agent to set aside its instructions",
    "escape": "tells the agent it is free of its rules",
    "conceal": "tells the agent to hide what it does from the user",
}


@dataclass(frozen=True)
class Phrase:
    start: int  # offset in the text
    end: int
    kind: str  # override | escape | conceal


def find_phrases(text: str) -> list[Phrase]:
    """Every override, rule escape and concealment phrase of ``text`` (code included: callers judge)."""
    if _QUICK.search(text) is None:
        return []
    found = []
    for match in PHRASES.finditer(text):
        kind = match.lastgroup or "override"
        if kind == "conceal" and _GATED.match(text, match.end(), min(match.end() + 200, len(text))):
            continue  # "do not tell the user until the report is ready": when to say it, not whether
        found.append(Phrase(match.start(), match.end(), kind))
    return found


def quoted(line: str, start: int, end: int) -> bool:
    """Whether ``line[start:end]`` lies inside quotation marks on its line, or the line is a block quote."""
    if line.lstrip().startswith(">"):
        return True
    before, after = line[:start], line[end:]
    for opening, closing in _QUOTES:
        if opening == closing:
            if opening == "'" and before.count("'") % 2 == 0:
                continue
            if before.count(opening) % 2 == 1 and opening in after:
                return True
        elif before.rfind(opening) > before.rfind(closing) and closing in after:
            return True
    # A quote that runs on: the phrase opens a quotation ("…) that the line does not close.
    return before.rstrip().endswith(('"', "“", "(")) and bool(WRITE_UP.search(before))


def in_write_up(lines: list[str], index: int, rel: str) -> bool:
    """Whether line ``index`` (0-based) sits in a section or document that names what it shows as
    an example or an attack: the file's name, its title, the heading above the line, or the
    line and the two before it."""
    if WRITE_UP.search(rel.rpartition("/")[2].replace("-", " ").replace("_", " ")):
        return True
    heading = None
    for back in range(index, max(index - 60, -1), -1):
        if _HEADING.match(lines[back]):
            heading = lines[back]
            break
    title = next((line for line in lines[:40] if line.startswith("# ")), "")
    window = "\n".join(lines[max(index - 2, 0) : index + 1])
    return any(WRITE_UP.search(part) for part in (heading or "", title, window))
