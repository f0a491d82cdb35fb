"""Whose files a passage of Markdown names (SL301).

A path in backticks or prose that names no file of the package is a missing reference only when
the text offers it as the skill's own. Authors also write about files that are someone else's:
an example ("e.g. `scripts/rotate.py`"), another skill's file ("`other-skill`'s
`references/x.md`"), a file the reader is to create ("Add `references/x.md`", a label above a
code block that spells the file out), the user's project, a clone the scripts live in, the
generator of an auto-generated page, or the layout a guide about writing skills teaches.

The judgement reads, for each mention, its sentence (across the lines of its paragraph or list
item), the line that introduces its list or table ("Move detailed content to `references/`:"),
its paragraph, the document, and the skill (one whose description says it writes skills). The
mention's own sentence comes first: an instruction to use
the file ("Read `references/x.md`", "See …", "Run …") keeps it the skill's whatever the wider
passage says, so a real reference beside illustrations is still reported.
"""

from __future__ import annotations

from ... import lazyre
from .markdown import closes_fence, fence_opening, is_atx_heading

# -- the mention's sentence ---------------------------------------------------------------
# Before the path: an illustration, or a place the text gives to someone else.
_EXAMPLE = r"\b(?:e\.\s?g\.|for example|for instance|such as|examples?\b[*_]*\s*[:(—–-])"
# An illustration alone: what follows is a sample value, not the text's own (SL703 reads commands with it).
OFFERED_AS_EXAMPLE = lazyre.compile(r"(?i)" + _EXAMPLE)
_EXAMPLE_OR_ELSEWHERE = lazyre.compile(
    r"(?i)" + _EXAMPLE + r"|\b(?:your|(?:the )?user's|(?:the )?project's|(?:the )?repository's|(?:the )?repo's|(?:the )?plugin's)\s"
    r"|\bplugin (?:root|directory|folder)\b"
)
# Right before the path, a named owner: "`other-skill`'s `references/x.md`", "Acme's `scripts/x`",
# "`other-skill`'s recipe (`references/x.md`)", "`other-skill` — its `references/x.md`" (a name in
# backticks, not a path).
_NAMED_OWNER = lazyre.compile(
    r"(?:`[^`\n]{1,80}`['’]s?|\b([A-Za-z][\w-]{0,40})['’]s)\s+`?$"
    r"|`[^`\n]{1,80}`['’]s?(?:\s+[\w-]{1,40}){1,4}\s*\(`?$"
    r"|`[^`\n/.]{1,80}`\s*[—–:-]{1,2}\s*its\s+`?$"
)
_NOT_AN_OWNER = frozenset({"it", "that", "what", "there", "here", "let", "who", "skill", "one", "he", "she", "this"})
# After the path: a file the text imagines ("a `scripts/rotate.py` script would be helpful").
_HYPOTHETICAL = lazyre.compile(r"\b(?:would|could|might) be\b")
# After the path: a file the user supplies ("… `assets/logo.png`, or ask the user to add it").
_USERS_TO_SUPPLY = lazyre.compile(
    r"(?i)\b(?:ask|have|let) (?:the )?users? to (?:add|provide|supply|create|upload)\b"
    r"|\b(?:the )?user (?:adds|provides|supplies|creates|uploads)\b"
)
# Right before the path, a file the reader makes: "create `x`", "add a new `x`", "store the
# examples in `x`", "move the details to `x`".
_MAKING = lazyre.compile(
    r"(?i)(?:\b(?:create|creates|creating|add|adds|adding|generate|generates|scaffold|touch)"
    r"(?:\s+(?:a|an|the|new|empty|your|own|file|folder|directory|script|document|called|named)){0,3}"
    r"|\b(?:store|stores|keep|keeps|put|puts|place|places|save|saves|record|records)(?:\s+[^\s`.;:!?]+){1,6}\s+(?:in|into|under)"
    r"|\b(?:move|moves|copy|copies|write|writes|save|saves|output)(?:\s+[^\s`.;:!?]+){0,6}\s+(?:to|into))"
    r"\s+`?$"
)
# Before the path, in its sentence: the text tells the agent to use the file now.
_USE = lazyre.compile(
    r"(?i)\b(?:read|reads|see|load|loads|consult|open|follow|run|runs|execute|invoke|use|uses|refer to|check|review)"
    r"(?:\s+(?:the|this|that|file|script|guide|document|reference|template|also|first|then|at|in|from))*\s+`?$"
)
_SENTENCE_BREAK = lazyre.compile(r"[.!?;]\s+(?=[A-Z`*])")
_ABBREVIATION_END = lazyre.compile(r"(?i)(?:\b[a-z]\.[a-z]|\betc|\bvs|\bcf)$")

# -- the wider passage -------------------------------------------------------------------
# A list's or table's introducing sentence that makes files ("Move detailed content to
# `references/`:", "**Fix:** Create a `references/` directory …:") or speaks of some other skill
# ("When building a hooks skill, the analysis shows:").
_LEAD_LABEL = lazyre.compile(r"^\W*(?:\*\*[^*\n]{1,40}\*\*|__[^_\n]{1,40}__)\s*")
_MAKING_LEAD = lazyre.compile(
    r"(?i)^\W*(?:create|add|move|put|store|keep|save|generate|scaffold|organi[sz]e|split|place|bundle)\b"
)
_OTHER_SKILL = lazyre.compile(r"(?i)\b(?:a|an|another|each|every|any)\s+(?:[\w`-]+\s+){0,2}skill\b")
# A paragraph that says its page was generated: the paths it names are the generator's.
_GENERATED = lazyre.compile(r"(?i)\b(?:auto-?generated|generated (?:from|by)|do not edit)\b")
# A sentence that says files live in a clone or another repository: the document's paths that name
# no file of the package are that repository's ("the scripts live in a local clone of …").
_ELSEWHERE_CLONE = lazyre.compile(
    r"(?i)\b(?:live|lives|reside|resides|are|is|kept|located)\s+(?:in|inside|within)\s+(?:a|an|the|your|that|this)\s+"
    r"(?:local\s+|separate\s+|cloned\s+)?(?:clone|checkout|(?:separate|upstream|external|other|source)\s+(?:repository|repo))\b"
)
_LIST_ITEM = lazyre.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")
# A skill whose description says it writes skills: its paths describe the layouts it teaches.
_TEACHES_SKILLS = lazyre.compile(
    r"(?i)\b(?:creat|writ|author|build|develop|design|improv|scaffold|structur|organi[sz])\w*\s+"
    r"(?:(?:a|an|new|the|agent|claude|your|good|effective)\s+){0,3}(?:skills?|SKILL\.md)\b"
)

_BLOCK_LINES = 40  # lines of a paragraph joined to read a sentence that wraps


def teaches_writing_skills(package) -> bool:
    """Whether the skill's name or description says it creates, writes or structures skills."""
    mapping = package.canonical.mapping
    if not isinstance(mapping, dict):
        return False
    text = " ".join(str(mapping.get(key, ""))[:2000] for key in ("name", "description"))
    return _TEACHES_SKILLS.search(text.replace("-", " ")) is not None


class Passages:
    """The passages of one Markdown text, for judging the mentions in it that name no file.

    ``lines`` are the text's lines, ``offset`` the file line of the first minus one, ``code``
    the file lines of fenced code. The layout is read once, on the first question."""

    def __init__(self, lines: list[str], offset: int, code: set[int], teaches_skills: bool = False) -> None:
        self.lines = lines
        self.offset = offset
        self.code = code
        self.teaches_skills = teaches_skills
        self.block_start: list[int] | None = None  # per line: first line of its paragraph or item
        self.lead_in: list[int | None] = []  # per line: the line introducing its list or table
        self.cloned_elsewhere = False
        self._blocks: dict[int, tuple[str, list[int]]] = {}
        # per paragraph or lead-in line, judged once (a paragraph can hold thousands of mentions)
        self._generated_blocks: dict[int, bool] = {}
        self._leads: dict[int, bool] = {}

    def sentence_around(self, number: int, start: int) -> tuple[str, str]:
        """The text of the sentence before file line ``number``, column ``start`` (0-based), across
        the lines of its paragraph or list item, and the text after it."""
        if self.block_start is None:
            self._layout()
        index = number - 1 - self.offset
        if not 0 <= index < len(self.lines):
            return "", ""
        return _sentence_around(*self._in_block(index, start))

    def not_the_skills(self, number: int, start: int, path: str) -> bool:
        """Whether the mention of ``path`` at file line ``number``, column ``start`` (0-based)
        names a file that is not the skill's own."""
        if self.block_start is None:
            self._layout()
        index = number - 1 - self.offset
        if not 0 <= index < len(self.lines):
            return False
        text, at = self._in_block(index, start)
        before, after = _sentence_around(text, at)
        if (
            _EXAMPLE_OR_ELSEWHERE.search(before)
            or _named_owner(before)
            or _HYPOTHETICAL.search(after)
            or _USERS_TO_SUPPLY.search(after)
            or _MAKING.search(before[-200:])
            or self._generated(index, text)
        ):
            return True
        if _USE.search(before[-120:]):
            return False  # "Read `references/x.md`": the skill's, whatever the passage says
        if self._label_of_a_code_block(index, path):
            return True
        lead = self.lead_in[index]
        if lead is not None and self._lead_gives_away(lead):
            return True
        return self.cloned_elsewhere or self.teaches_skills

    # -- layout -------------------------------------------------------------------------

    def _layout(self) -> None:
        """Each line's paragraph or list item and the line introducing its list or table, in
        one pass; and whether a sentence says the files live in a clone."""
        lines, code, offset = self.lines, self.code, self.offset
        block_start: list[int] = []
        lead_in = self.lead_in
        start = 0
        previous_blank = True  # the next text line starts a paragraph
        in_list = False
        lead: int | None = None
        last_text: int | None = None  # last line of the latest paragraph outside a list
        for index, line in enumerate(lines):
            stripped = line.strip()
            if not stripped or index + 1 + offset in code or is_atx_heading(line):
                block_start.append(index)
                if index + 1 + offset not in code and is_atx_heading(line):
                    in_list, lead, last_text = False, None, None
                lead_in.append(lead if in_list else None)
                previous_blank = True
                continue
            if _LIST_ITEM.match(line) or stripped.startswith("|"):
                if not in_list:
                    in_list = True
                    lead = last_text if last_text is not None and lines[last_text].rstrip(" *_").endswith(":") else None
                start = index
            elif previous_blank:
                if not (in_list and line[:1].isspace()):  # not a list item's indented paragraph
                    in_list, lead = False, None
                start = index
            if not in_list:
                last_text = index
            block_start.append(start)
            lead_in.append(lead if in_list else None)
            previous_blank = False
            if not self.cloned_elsewhere and ("clone" in line or "checkout" in line or "repo" in line):
                self.cloned_elsewhere = _ELSEWHERE_CLONE.search(line) is not None
        self.block_start = block_start

    def _in_block(self, index: int, column: int) -> tuple[str, int]:
        """The joined text of line ``index``'s paragraph or item (its first _BLOCK_LINES lines;
        a line past them stands alone) and the position of ``column`` in it."""
        first = self.block_start[index]
        if index - first >= _BLOCK_LINES:
            return self.lines[index], column
        cached = self._blocks.get(first)
        if cached is None:
            parts: list[str] = []
            starts: list[int] = []
            length = 0
            end = first
            while end < len(self.lines) and len(parts) < _BLOCK_LINES and (end == first or self.block_start[end] == first):
                starts.append(length)
                parts.append(self.lines[end])
                length += len(self.lines[end]) + 1
                end += 1
            cached = self._blocks[first] = (" ".join(parts), starts)
        text, starts = cached
        return text, starts[index - first] + column

    def _generated(self, index: int, text: str) -> bool:
        key = self.block_start[index] if index - self.block_start[index] < _BLOCK_LINES else index
        known = self._generated_blocks.get(key)
        if known is None:
            known = self._generated_blocks[key] = _GENERATED.search(text) is not None
        return known

    def _lead_gives_away(self, lead: int) -> bool:
        """Whether the sentence introducing a list gives its items to someone else."""
        known = self._leads.get(lead)
        if known is None:
            text, _ = self._in_block(lead, 0)
            known = self._leads[lead] = _judged_by_lead(_SENTENCE_BREAK.split(text[-400:])[-1])
        return known

    def _label_of_a_code_block(self, index: int, path: str) -> bool:
        """A heading or a short label line ("**File:** `scripts/x.sh`") right above a fenced
        block that does not name the file: the block spells the file out, so the text shows a
        file to write, not one the skill ships. ("Run `scripts/x.py`:" above the command that
        runs it is a use, and the block names the file.)"""
        lines = self.lines
        if len(lines[index]) > 160:
            return False
        following = index + 1
        while following < len(lines) and following - index <= 2 and not lines[following].strip():
            following += 1
        opening = fence_opening(lines[following]) if following < len(lines) else None
        if opening is None:
            return False
        name = path.rstrip("/").rsplit("/", 1)[-1]
        body = following + 1
        while body < len(lines) and body - following <= _BLOCK_LINES and not closes_fence(lines[body], opening):
            if name in lines[body]:
                return False
            body += 1
        return True


def _sentence_around(text: str, at: int) -> tuple[str, str]:
    """The part of ``at``'s sentence before it (up to 400 characters) and after it (200)."""
    before = text[max(0, at - 400) : at]
    for match in reversed(list(_SENTENCE_BREAK.finditer(before))):
        # "e.g. `x`" is no sentence end; the look-back is a few characters, not the window
        if not _ABBREVIATION_END.search(before, max(0, match.start() - 4), match.start()):
            before = before[match.end() :]
            break
    after = text[at : at + 200]
    end = _SENTENCE_BREAK.search(after)
    return before, after[: end.start() if end else len(after)]


def _named_owner(before: str) -> bool:
    match = _NAMED_OWNER.search(before[-130:])
    return match is not None and (match.group(1) or "").lower() not in _NOT_AN_OWNER


def _judged_by_lead(sentence: str) -> bool:
    unlabelled = sentence[_LEAD_LABEL.match(sentence).end() :] if _LEAD_LABEL.match(sentence) else sentence
    return bool(
        _MAKING_LEAD.search(unlabelled)
        or _OTHER_SKILL.search(sentence)
        or _EXAMPLE_OR_ELSEWHERE.search(sentence)
        or _HYPOTHETICAL.search(sentence)
    )
