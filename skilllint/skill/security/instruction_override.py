"""Prose that tries to override the agent's instructions or hide what it does from the user (SL806),
and the phrases SL802 shares with it.

Three kinds of phrase, each an attack's own wording rather than a word list tuned to one text:

- an **override**: "ignore (all) previous instructions", "disregard the system prompt", "forget
  your prior rules";
- a **rule escape**: "you are now DAN / in developer mode / unrestricted / no longer bound by …"
  (not "you are now a strict grader": skills switch the agent's role legitimately);
- **concealment** from the user: "do not tell the user", "without the user knowing", "hide this from
  the user" (not "don't tell the user about each tool call": that is how much to narrate; nor "do not
  tell the user to restart": that is what to ask of the user).

A security write-up quotes such phrases; it is told apart by what surrounds the phrase: code (a
fenced block, a code span), quotation marks around it, a block quote, or a section or document that
names what it shows (prompt injection, jailbreak, attack, malicious, example, pattern, detect…).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ... import lazyre

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
# Each phrase tried where it can start, found from a word it must hold: a plain search of the text
# (lowered) for each such word is several times faster than one search with the whole pattern.
_OVERRIDE_AT = lazyre.compile(OVERRIDE, re.IGNORECASE)
_ESCAPE_AT = lazyre.compile(ESCAPE, re.IGNORECASE)
_CONCEAL_AT = lazyre.compile(CONCEAL, re.IGNORECASE)
_NEGATION_BEFORE = lazyre.compile(r"(?i)\b(?:do\s+not|don't|don’t|never)\s+\Z")  # before "tell" (searched with an end)
_YOU_ARE_BEFORE = lazyre.compile(r"(?i)\byou\s+are\s+\Z")  # before "now"
# (word, where the phrase starts: "at" the word, or "negation"/"you-are" before it, the pattern)
_ANCHORS = (
    *(((word, "at", "override") for word in ("ignor", "disregard", "forget", "overrid", "bypass", "discard"))),
    ("now", "you-are", "escape"),
    *(((word, "negation", "conceal") for word in ("tell", "inform", "notify", "alert", "mention", "reveal"))),
    *(((word, "at", "conceal") for word in ("without", "hide", "conceal", "keep"))),
)
# What names a quoted phrase as an example or an attack: the section or document is about it.
WRITE_UP = lazyre.compile(
    r"(?i)\b(?:prompt[- ]injections?|injections?|jailbreak\w*|attack\w*|attacker\w*|malicious|adversar\w*|exploit\w*|"
    r"red[- ]team\w*|threat\w*|payloads?|examples?|e\.g\.|such as|patterns?|detect\w*|scan\w*|suspicious|phishing|"
    r"poison\w*|manipulat\w*|hostile|untrusted|override-style)"
)
_CLAUSE_END = lazyre.compile(r"[.!?\n]")
_GATE = lazyre.compile(r"\b(?:until|before|unless|yet)\b")
_ASKED_TO = lazyre.compile(r"[ \t]+to[ \t]+[A-Za-z]")  # "tell the user to <verb>": a request relayed
_HEADING = lazyre.compile(r"^ {0,3}#{1,6}\s")
QUOTE_REACH = 400  # characters of a line read for the words around a phrase (a heading, a title)
_QUOTES = (('"', '"'), ("“", "”"), ("‘", "’"), ("«", "»"))
_QUOTE_MARKS = frozenset(mark for pair in _QUOTES for mark in pair)

KINDS = {
    "override": "tells the agent to set aside its instructions",
    "escape": "tells the agent it is free of its rules",
    "conceal": "tells the agent to hide what it does from the user",
}


@dataclass(frozen=True, eq=False, repr=False)
class Phrase:
    start: int  # offset in the text
    end: int
    kind: str  # override | escape | conceal


def find_phrases(text: str) -> list[Phrase]:
    """Every override, rule escape and concealment phrase of ``text`` (code included: callers judge)."""
    lowered = text.lower()
    if len(lowered) != len(text):  # lowering changed a length (U+0130): offsets would not agree
        matches = [(m.start(), m.end(), m.lastgroup or "override") for m in PHRASES.finditer(text)]
    else:
        matches = _anchored(text, lowered)
    found = []
    for start, end, kind in sorted(set(matches)):
        if kind == "conceal":
            rest = text[end : end + 200]
            if _ASKED_TO.match(rest):
                continue  # "do not tell the user to restart": what to ask of the user, not what to hide
            stop = _CLAUSE_END.search(rest)
            if _GATE.search(rest, 0, stop.start() if stop else len(rest)):
                continue  # "do not tell the user until the report is ready": when to say it, not whether
        if found and start < found[-1].end:
            continue  # one phrase inside another
        found.append(Phrase(start, end, kind))
    return found


def _anchored(text: str, lowered: str) -> list[tuple[int, int, str]]:
    patterns = {"override": _OVERRIDE_AT, "escape": _ESCAPE_AT, "conceal": _CONCEAL_AT}
    before = {"negation": _NEGATION_BEFORE, "you-are": _YOU_ARE_BEFORE}
    matches = []
    find = lowered.find
    for word, where, kind in _ANCHORS:
        at = find(word)
        while at >= 0:
            start = at
            if where != "at":
                lead = before[where].search(text, max(at - 20, 0), at)
                start = lead.start() if lead is not None else -1
            if start >= 0:
                match = patterns[kind].match(text, start)
                if match is not None:
                    matches.append((match.start(), match.end(), kind))
            at = find(word, at + 1)
    return matches


class Quotes:
    """The quotation marks of one line, found once, so each phrase on it is placed between them by a
    search rather than a count through the line."""

    def __init__(self, line: str) -> None:
        self.block = line.lstrip().startswith(">")
        self.at = {mark: [i for i, c in enumerate(line) if c == mark] for mark in _QUOTE_MARKS if mark in line}

    def _before(self, mark: str, offset: int) -> int:
        return bisect.bisect_left(self.at.get(mark, ()), offset)

    def _last_before(self, mark: str, offset: int) -> int:
        positions = self.at.get(mark, ())
        index = bisect.bisect_left(positions, offset)
        return positions[index - 1] if index else -1

    def around(self, start: int, end: int) -> bool:
        """Whether ``start:end`` lies inside quotation marks on the line, or the line is a block quote."""
        if self.block:
            return True
        for opening, closing in _QUOTES:
            after = len(self.at.get(closing, ())) - self._before(closing, end)
            if not after:
                continue
            if opening == closing:
                if self._before(opening, start) % 2 == 1:
                    return True
            elif self._last_before(opening, start) > self._last_before(closing, start):
                return True
        return False


class WriteUps:
    """Where a text names what it shows as an example or an attack: its file name, its title, the
    heading of each section (each line's section found by a search, not a walk back)."""

    def __init__(self, lines: list[str], rel: str) -> None:
        self.lines = lines
        self.named_file = WRITE_UP.search(rel.rpartition("/")[2].replace("-", " ").replace("_", " ")) is not None
        title = next((line for line in lines[:40] if line.startswith("# ")), "")
        self.named_title = WRITE_UP.search(title[:QUOTE_REACH]) is not None
        self.headings = [index for index, line in enumerate(lines) if line.lstrip(" ").startswith("#") and _HEADING.match(line)]
        self._named_heading: dict[int, bool] = {}

    def around(self, index: int, start: int, end: int) -> bool:
        """Whether the phrase at ``start:end`` of line ``index`` (0-based) sits in a write-up: the
        file's name or title, the heading of its section (at most 60 lines above), or the text just
        before and after it (the line and the two before) name an attack or an example."""
        if self.named_file or self.named_title:
            return True
        at = bisect.bisect_right(self.headings, index) - 1
        if at >= 0 and index - self.headings[at] <= 60:
            heading = self.headings[at]
            named = self._named_heading.get(heading)
            if named is None:
                named = self._named_heading[heading] = WRITE_UP.search(self.lines[heading][:QUOTE_REACH]) is not None
            if named:
                return True
        line = self.lines[index]
        # Near the phrase only: a long line of phrases is not searched through once per phrase.
        near = [self.lines[back][-QUOTE_REACH:] for back in range(max(index - 2, 0), index)]
        near.append(line[max(start - QUOTE_REACH, 0) : end + QUOTE_REACH])
        return WRITE_UP.search("\n".join(near)) is not None
