"""Whether a description says when to use the skill: the trigger cues SL512 looks for.

An agent picks a skill from its catalog entry alone, so the description should
say in which situation to load the skill ("Use when …"). The cue list below was
derived from 527 descriptions of public skills (anthropics/skills, obra/superpowers,
github/awesome-copilot, trailofbits/skills); ``skilllint rule SL512`` gives the measurements.
"""

from __future__ import annotations

import re

from .. import lazyre

# Each cue: (name, pattern). A description with any cue states when to use the
# skill. Patterns are matched case-insensitively on the whitespace-collapsed text.
_WHO = r"(?:the |a |an |your |any )?(?:user|users|you|someone|developer|developers|operator|agent|claude|caller|team|people)"


_CUES: tuple[tuple[str, str], ...] = (
    # "Use when …", "Use this skill when …", "Use it for …", "Use PROACTIVELY …",
    # "Use immediately after …", "Should be used when …"
    (
        "use when/for/to …",
        r"\b(?:use|used|using|invoke|invoked|apply|applied|load|loaded|call|called|activate|activated|run|consult|trigger|triggered|choose|pick|reach for)"
        r"(?: (?:this|it|the|these|that|me)(?: \w+)?)?(?: (?:skill|workflow|guide|tool|prompt|agent|plugin))?"
        r"(?: (?:proactively|immediately|automatically|only|also|first|primarily|mainly|mostly|especially|right|directly|always))?"
        r" (?:when|whenever|if|once|before|after|during|while|upon|on|for|in response to|as soon as|any ?time|every ?time)\b",
    ),
    ("use proactively", r"\buse (?:this )?(?:skill )?proactively\b|\bproactively\b"),
    ("must/should use", r"\b(?:must|should|always|mandatory to) (?:be )?(?:use|used|invoke|invoked|load|loaded|consult|consulted)\b"),
    ("use … to …", r"(?:^|[.;:!?] |\()use (?:this|it)(?: skill)? (?:to|as)\b"),
    ("triggers on …", r"\btrigger(?:s|ed)?(?: \w+)? (?:on|when|by|for|if|with|include|includes|phrases?|words?|keywords?)\b|\btrigger (?:phrases?|words?|keywords?)\b|\btriggers?:"),
    ("when the user …", r"\b(?:when|whenever|if|once|after|before|as soon as) " + _WHO + r"\b"),
    ("when asked …", r"\b(?:when|whenever|once) (?:asked|requested|prompted|tasked|invoked|working|writing|building|creating|reviewing|debugging|implementing|designing|adding|editing|fixing|migrating|setting|starting|encountering|facing|dealing|handling|planning|investigating|analy[sz]ing|auditing|running|deploying|configuring|testing|modifying|refactoring|generating|choosing|deciding|evaluating|exploring|using|you're|you are|there's|there is|there are|a |an |any |the |code|tests?|something|it|on|in|about|completing|receiving|performing|preparing|porting|upgrading|developing|documenting|converting|investigating|triaging|responding|executing|finishing|about to)\b"),
    ("whenever …", r"\bwhenever\b"),
    ("… asks to …", r"\b(?:asks?|asked|asking|requests?|requested|requesting|wants?|wanting|needs?|mentions?|mentioned|says?|types?|invokes?)(?: \w+)? (?:to|for|about|that|a|an|the|help|whether|how)\b(?=.*\b(?:user|you|someone|operator|developer)\b)|\b(?:user|users|you|someone|operator|developer)s? (?:\w+ )?(?:asks?|asked|requests?|wants?|needs?|mentions?|says?|types?|invokes?|runs?)\b"),
    ("for questions about …", r"\b(?:for|on|answers?|handles?|covers?|answering|handling) (?:any )?(?:questions?|requests?|queries|tasks?|situations?|cases?|scenarios?) (?:about|on|like|involving|regarding|related|where|that|such|around|concerning)\b"),
    ("in response to …", r"\bin response to\b|\bupon\b"),
    ("quoted user phrase", r"(?:say|says|saying|type|types|typing|ask|asks|asking|phrases?|mention|mentions|like|e\.g\.,?|such as|keywords?|terms?)[:\s]+(?:\([^)]*\) )?[\"“'‘][^\"”'’]{2,60}[\"”'’]"),
    ("good for / ideal for …", r"\b(?:ideal|best|good|useful|helpful|perfect|suitable|designed|intended|meant|appropriate|essential|relevant|required|recommended|needed|necessary) (?:for|when|whenever|if|before|after|during)\b"),
    ("when … (situation)", r"(?:^|[.;:!?—–(] ?|, )when(?:ever)? \w+"),
    ("before/after … (moment)", r"(?:^|[.;:!?—–(] ?)(?:before|after|during|while) \w+ing\b"
     r"|\bbefore (?:making|proposing|answering|committing|merging|deploying|shipping|releasing|submitting|implementing|starting) (?:a |an |any |the )?\w+"
     r"|\bduring (?:a |an |the )?(?:[\w.-]+ )?(?:migration|upgrade|incident|deployment|onboarding)s?\b"),
    # An explicit list the author wrote for the router: "TRIGGERS - lint, eslint", "Keywords: …"
    ("trigger list", r"\b(?:triggers?|trigger (?:words?|phrases?|terms?)|keywords?|key ?phrases?)[ \t]*(?::|[-—–][ \t])"),
    ("handles … requests", r"\b(?:handles?|routes?|serves?|responds? to) [\w/ -]{0,60}?\b(?:requests|questions|queries)\b"),
)


CUES: tuple[tuple[str, lazyre.LazyPattern], ...] = tuple((name, lazyre.compile(p, re.IGNORECASE)) for name, p in _CUES)


SCAN_CHARS = 4096


def find_trigger(description: str) -> tuple[str, str] | None:
    """The first cue that says when to use the skill: (cue name, matched text), or None."""
    # No surface lists more than 1,536 characters of a description (Claude Code's cap); a cue
    # further on is never seen, and the cap keeps a 1 MB description cheap.
    text = " ".join(description[:SCAN_CHARS].split())
    for name, pattern in CUES:
        match = pattern.search(text)
        if match:
            return name, match.group(0)
    return None
