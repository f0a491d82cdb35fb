"""The context of a mention in SKILL.md (SL310): whether the sentence, list item, table row or
headings around a reference say when to load or run its target."""

from __future__ import annotations

import re

from ... import lazyre
from ..text.markdown import CODE_SPAN as _CODE_SPAN
from ..text.markdown import NextFind, fenced_lines, table_cells

# Cues settled on the corpus (rulebook/SL310-*/README.md lists them with examples).
# A mention passes when its context says more than the file's own name:
#   1. a condition: when, if, before, after, while, during, unless, only, once,
#      in case, whenever, until, whether, depending on, always, first, now, …
#      or a failure word (fails, error, missing, stuck) that is not the file's
#      own name; vacuous ones ("if needed", "as needed", "on demand") do not count;
#   2. a purpose: "to <verb>" ("to fill a form") or "for <subject>" ("for the
#      error codes"); "for details", "for more" name nothing;
#   3. a subject: words that are neither pointer fillers ("see", "full",
#      "details", "reference") nor the file's own name — "`forms.md` — filling
#      PDF forms" names what the file is for;
#   4. a table row whose other cell says anything (a routing table);
#   5. an ordered list item that is an instruction (a step of a procedure);
#   6. the lead-in of its list ("When a user provides a document:") or its
#      parent item;
#   7. the governing heading: conditional ("When the build fails", "If …",
#      "For …", "Before …"), a step ("Step 2", "Phase 1", "Sub-step 2a") or a
#      failure ("Troubleshooting", "Errors"); the innermost heading may also be
#      a task ("Deploying", "Generate the report"). Title headings (#) and
#      topic headings ("References", "Quick Reference", "API") do not count;
#   8. a "when" label ("When to read:", "Load when:") of the innermost section above the
#      mention, under the heading that holds it, or right under its paragraph or list item;
#      the item's own sub-items count as the item (those naming another file do not).

SENTINEL = "\x01"  # marks the mention inside a joined block


_HEADING_OPEN = lazyre.compile(r" {0,3}(#{1,6})[ \t]+")


_BULLET = lazyre.compile(r"^([ \t]*)(?:[-*+]|(\d{1,3})[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")


_QUOTE = lazyre.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")


_SENTENCE_END = lazyre.compile(r"(?<=[.!?])[\"')\]*_]*\s+(?=[\"'(\[*_`>\x01]*[A-Z0-9`\[*\x01])")


_DEFINITION_LABEL = lazyre.compile(r"^ {0,3}\[((?!\^)[^\]]+)\]:")  # `[^1]:` is a footnote


_BOLD_LABEL = lazyre.compile(r"^\s*(\*\*|__)(.+?)\1")
# A short label at a line's start ending with a colon: "When to read: …" (at most five words).
_PLAIN_LABEL = lazyre.compile(r"^\s*((?:[^\W\d_][\w'-]*[ \t]+){0,4}[^\W\d_][\w'-]*)[ \t]*:(?:[ \t]|$)")


_CONDITION = lazyre.compile(
    r"\b(?:when|whenever|if|unless|before|after|while|during|once|until|whether|only|"
    r"in case|as soon as|each time|every time|depending on|based on|in order to|instead of|rather than|"
    r"otherwise|fails?|failing|failed|failures?|errors?|broken|missing|stuck|"
    r"always|never|first|now|upfront|up front|at (?:the )?start|beforehand|(?:start|begin) (?:here|with)|"
    r"must (?:first |always )?(?:read|load|see|consult|open|follow|review|study))\b"
)


# What a label names a situation with: a word that asks when ("When to read", "Use if", "In
# case of"), or a word of time with its object ("Before delivering", "During setup"); the
# word of time alone ("Before:", "After:") frames an example.
_WHEN_WORD = lazyre.compile(r"\b(?:when|whenever|if|unless|in case)\b|^(?:before|after|during|while|once|until)[ \t]+[a-z]")


_VACUOUS_CONDITION = lazyre.compile(
    r"\b(?:if|when|as|where|whenever)\s+(?:needed|necessary|required|applicable|relevant|appropriate|desired|"
    r"useful|helpful|wanted|in doubt|you need (?:it|them|more|more details|details)|you want (?:more|details))\b"
    r"|\bon demand\b|\bif (?:any|so)\b|\bonly (?:the )?(?:relevant|needed|necessary)\b"
)


_TO_VERB = lazyre.compile(r"\bto ([a-z][a-z-]+)")


_NOT_VERB_AFTER_TO = frozenset(
    "the a an this that these those it its your our their his her my each every all any some more other another "
    "one two three be and or of in on for with from by as at into onto upon date see it's".split()
)


# Pointer verbs and fillers: a sentence made only of these (and the file's
# name) says nothing about when to load the file.
_STOPWORDS = frozenset(
    """
    a an the this that these those it its it's they them their there here is are was were be been being do does did
    and or but nor so of in on at by to from with within into onto for about as than then also too very just
    you your yours we our us i me my he she his her one ones all any each every some more most much many few
    other others another such same own both either neither not no can could should would will shall may might
    must need needs needed have has had get gets got make makes made let lets use uses used using via per etc
    e.g i.e eg ie vs see read reading load loading open opening refer referring consult consulting check checking
    view follow following look looking go find found lives live located location stored kept available provided
    includes included include contains contain containing covers cover covering describes describe explains
    explain lists list documents document shows show full complete detailed details detail
    further additional extra info information reference references referenced documentation docs doc guide
    guides guidance file files folder directory bundled below above section sections page pages content contents
    material materials resource resources notes note overview explanation explanations instructions instruction
    everything anything something rest else comprehensive extended in-depth deeper deep extensive
    thorough exhaustive specific entire whole relevant appropriate corresponding respective related
    quick quickly later next please mandatory required important critical
    skill skill's script scripts template templates example examples sample samples tool tools
    specification specifications spec specs guideline guidelines structure format formats convention conventions
    protocol combined step-by-step sub-steps steps methodology walkthrough tutorial manual handbook cheatsheet
    cheat-sheet playbook catalog catalogue index summary search grep pattern patterns rule rules option options
    definitions syntax code topic topics subject subjects area areas aspect aspects
    md py sh js ts txt markdown
    """.split()
)


_WORD = lazyre.compile(r"[a-z0-9][a-z0-9'’+#-]*")


# A link or image, as !?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\) matches it
# (group 1: its text; a nested [...] holds no [), in three parts (_sub_links): in one regex
# the destination of each of many unclosed links ("![](![](…") scans the rest of the line.
_LINK_OPEN = lazyre.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(")


_DESTINATION_END = lazyre.compile(r"[)\s]")


# Tried where a destination ends, never after a blank ((?<!\s): nor does a search try it in a run)
_LINK_CLOSE = lazyre.compile(r"(?<!\s)(?:\s+\"[^\"]*\")?\)")


_FILE_EXT = r"(?:md|markdown|mdx|txt|rst|py|sh|bash|js|mjs|cjs|ts|ps1|rb|pl|json|ya?ml|toml|html|csv|xml)"


# A path starts where a run of path characters starts (the lookbehinds): tried from
# every character of a 100,000-character run, the folder loops would be quadratic.
_PATHISH = lazyre.compile(
    rf"(?<![\w.{{}}$@~/-])(?:\{{baseDir\}}|\$\{{CLAUDE_SKILL_DIR\}}|\.{{1,2}})?/?(?:[\w.{{}}$@~-]+/)+[\w.{{}}$@*-]*\.{_FILE_EXT}\b"
    rf"|(?<![\w./-])(?:\.{{1,2}}/)?(?:[\w-]+/)+(?![\w-])|\b[\w.-]+\.{_FILE_EXT}\b"
)


# On text that starts with no blank (_label_reason's): a leading \s* would let the label start
# anywhere in a run of blanks, and each start rescan the run.
_LABEL = lazyre.compile(r"^(?:\*\*|__)?([^*_:|]{2,80}?)(?:\*\*|__)?\s*[:—–-]\s")


# Governing headings at any level (below the title): conditions, steps, failures.
_SITUATION_HEADING = lazyre.compile(
    r"^(?:when|whenever|if|for|before|after|during|while|once|unless|on|in case|"
    r"step|steps|phase|stage|sub-?step|round|part \d|troubleshoot\w*|"
    r"(?:method|option|approach|alternative|variant) (?:\d{1,2}|[a-d])(?=[:.)\s]|$)|"  # one of numbered choices
    r"errors?|error handling|failures?|common (?:issues|errors|problems|mistakes)|known issues|debug\w*|recover\w*|"
    r"fallbacks?)\b",
)


# The innermost heading may also name a task.
_TASK_HEADING = lazyre.compile(
    r"^(?:how to|to [a-z]+|decision|decisions|routing|choose|choosing|select|selecting|pick|which|what to|"
    r"where to|use cases?|usage|quick ?start|getting started)\b"
)


_PROCEDURE_VERBS = frozenset(
    """
    adapt add address adopt aggregate align analyze analyse annotate apply ask assess audit authenticate benchmark
    bootstrap build calculate call capture check choose clarify classify clean close cluster collect commit compare
    compile compose configure confirm connect convert create debug decide define deliver deploy derive design detect
    determine diagnose dispatch document draft draw emit enable ensure establish estimate evaluate execute expand
    explore export extract fill find fix gather generate grade handle identify implement import index infer ingest
    initialize init inspect install instrument integrate interpret interview investigate invoke iterate locate map
    measure merge migrate modify monitor optimize orchestrate organize outline package parse plan populate prepare
    present prioritize process produce propose publish query rank record recommend refactor release remove render
    report reproduce request research resolve restore retrieve review revise rewrite route run scaffold scan score
    search select send set setup ship sketch specify split start structure submit summarize synthesize test trace
    track transform translate triage troubleshoot tune update upgrade upload validate verify wait wire wrap write
    """.split()
)


_NON_GERUNDS = frozenset(
    "string strings thing things something nothing anything everything spring ring king bring sing wing "
    "sibling siblings ceiling during morning evening padding".split()
)


def _heading(line: str) -> tuple[int, str] | None:
    r"""A line's ATX heading level and text, as groups 1 and 2 of
    ``^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`` read them: the text without its tail of
    blanks, closing hashes and blanks. The tail is cut with rstrip: in that regex three
    quantifiers compete for a run of blanks, cubic in its length."""
    match = _HEADING_OPEN.match(line)
    if match is None:
        return None
    return len(match.group(1)), line[match.end() :].rstrip(" \t").rstrip("#").rstrip(" \t")


class BodyContext:
    """Cheap line views of SKILL.md: headings outside fences, blocks, items, rows."""

    def __init__(self, lines: list[str], body_start: int) -> None:
        self.lines = lines
        self.start = body_start
        self.fenced = fenced_lines(lines[body_start:], body_start)  # 1-based file lines
        self.headings: list[tuple[int, int, str]] = []  # (0-based index, level, text)
        for index in range(body_start, len(lines)):
            line = lines[index]
            if line.lstrip(" ")[:1] == "#" and (index + 1) not in self.fenced:
                heading = _heading(line)
                if heading:
                    self.headings.append((index, *heading))
        self._heading_at = {h[0] for h in self.headings}

    def label_uses(self, line: int) -> list[tuple[int, int]]:
        """Where the label of the reference definition on ``line`` is used (``[text][label]``, ``[label]``)."""
        match = _DEFINITION_LABEL.match(self.lines[line - 1]) if 0 < line <= len(self.lines) else None
        if match is None:
            return []
        label = match.group(1).strip().lower()
        uses = []
        for index in range(self.start, len(self.lines)):
            text = self.lines[index]
            if index == line - 1 or "[" not in text or (index + 1) in self.fenced:
                continue
            lowered = text.lower()
            for probe in (f"][{label}]", f"[{label}]"):
                column = lowered.find(probe)
                if column >= 0:
                    uses.append((index + 1, column + 1))
                    break
        return uses

    def has_condition(self, line: int, column: int, target: str, subject: bool = True) -> bool:
        return self.explain(line, column, target, subject) is not None

    def explain(self, line: int, column: int, target: str, subject: bool = True) -> str | None:
        """Why the mention at (line, column) has a load condition, or None.

        ``subject``: whether naming the file's subject counts (cue 3 above)."""
        index = line - 1
        if index < self.start or index >= len(self.lines):
            return None
        words = _target_words(target)
        text = self.lines[index]
        if index in self._heading_at:
            heading = _heading(text)[1]
            reason = _heading_reason(heading, innermost=True) or _segment_reason(heading, words, subject)
            if reason:
                return f"heading ({reason})"
            # "### [api.md](references/api.md)" then "**When to read:** …": the section the
            # heading opens is the file's, and its label line says when
            if self._section_label(index, self._section_end(index)):
                return "section label (condition)"
            return None
        stripped = _QUOTE.sub("", text)
        if stripped.lstrip().startswith("|"):
            reason = self._row_reason(index, column - (len(text) - len(stripped)))
        else:
            reason = self._prose_reason(index, column, words, subject)
        if reason:
            return reason
        governing = self._governing(index)
        for position, (_, level, heading) in enumerate(governing):
            if level == 1:
                continue  # the title names the skill, not a situation
            reason = _heading_reason(heading, innermost=position == 0)
            if reason:
                return f"heading ({reason})"
        if governing and governing[0][1] > 1 and self._section_label(governing[0][0], index):
            return "section label (condition)"
        return None

    def _section_label(self, heading: int, index: int) -> bool:
        """Whether the section under the heading at line ``heading`` says when it applies in a label
        line above the mention: "**When to use:** SPA calling a protected API", "When to read: …".
        What a section's label line says of the section holds for the files it names."""
        return any(self._when_label(i) for i in range(heading + 1, index))

    def _when_label(self, i: int) -> bool:
        """Whether line ``i`` (0-based) opens with a label that names a situation and nothing else
        ("**When to use:**", "When to read:", "Load when:", "During setup:"). A label that names
        its own subject ("When to use `--with` vs `uv add`") does not, nor one that is a bare word
        of time or a failure: "**Before:**" and "**After:**" frame a code example, "**Error:**" a
        message."""
        if (i + 1) in self.fenced:
            return False
        line = _QUOTE.sub("", self.lines[i])
        label = _BOLD_LABEL.match(line)
        plain = None if label else _PLAIN_LABEL.match(line)
        text = label.group(2) if label else plain.group(1) if plain else None
        if not text or "`" in text or len(text.split()) > 3:
            return False
        text = _VACUOUS_CONDITION.sub(" ", text.rstrip(": ").lower()).strip()
        return bool(_WHEN_WORD.search(text))

    def _section_end(self, heading: int) -> int:
        """The 0-based index of the first heading after the one at ``heading``, or the end."""
        return next((h[0] for h in self.headings if h[0] > heading), len(self.lines))

    def _label_after(self, last: int) -> bool:
        """Whether the first non-blank line after line ``last`` (0-based) is a "when" label
        ("`references/api.md`" then "**When to read:** a call fails"): a label line says when
        of what stands right above it."""
        i = last + 1
        while i < len(self.lines) and i < last + 3 and not _QUOTE.sub("", self.lines[i]).strip() and (i + 1) not in self.fenced:
            i += 1
        return i < len(self.lines) and i not in self._heading_at and self._when_label(i)

    # -- tables -------------------------------------------------------------------

    def _row_reason(self, index: int, column: int) -> str | None:
        """A routing table: another cell of the row names the situation."""
        row = _QUOTE.sub("", self.lines[index])
        for start, end in table_cells(row):
            if start - 1 <= column - 1 <= end:
                continue  # the mention's own cell, or a pipe beside it
            cell = row[start:end]
            rest = _CODE_SPAN.sub(lambda m: " " if _PATHISH.fullmatch(m.group(2).strip()) else m.group(2), _sub_links(cell, lambda _: " "))
            rest = _PATHISH.sub(" ", rest)
            if re.search(r"[^\W_]", rest) and not re.fullmatch(r"\s*(?:[-:]+|yes|no|n/?a|✓|✔|✗|x)\s*", rest, re.I):
                return "table row"
        return None

    # -- prose: paragraphs and list items --------------------------------------------

    def _prose_reason(self, index: int, column: int, words: set[str], subject: bool) -> str | None:
        first, last = self._block(index)
        lines = [_QUOTE.sub("", self.lines[i]) for i in range(first, last + 1)]
        at = index - first
        cut = max(0, column - 1 - (len(self.lines[index]) - len(lines[at])))
        line = lines[at]
        if len(line) > 2 * SENTENCE_WINDOW:  # the mention's surroundings, and the line's start (a bullet)
            lo, hi = max(0, cut - SENTENCE_WINDOW), cut + SENTENCE_WINDOW
            head = line[: min(lo, LINE_HEAD)]
            lines[at] = head + (" " if lo > len(head) else "") + line[lo:cut] + SENTINEL + line[cut:hi]
        else:
            lines[at] = line[:cut] + SENTINEL + line[cut:]
        item = next((i for i in range(at, -1, -1) if _BULLET.match(lines[i])), None)
        if item is None:
            text = " ".join(line.strip() for line in lines)
            reason = _segment_reason(_sentence(text), words, subject)
            if reason:
                return f"sentence ({reason})"
            if _follow_up_condition(text, words):
                return "next sentence (condition)"
            label = _BOLD_LABEL.match(text)
            if label and label.start(2) < text.find(SENTINEL):
                inner = label.group(2).replace(SENTINEL, "")
                if re.match(r"\s*(?:step\s+)?\d+[a-z]?[.):]", inner, re.IGNORECASE):
                    return "paragraph label (step)"
                reason = _segment_reason(inner, words, subject)
                if reason:
                    return f"paragraph label ({reason})"
            if self._label_after(last):
                return "label below (condition)"
            return None
        end = at
        while end + 1 < len(lines) and not _BULLET.match(lines[end + 1]):
            end += 1
        bullet = _BULLET.match(lines[item])
        indent = len(bullet.group(1).expandtabs(4))
        own = [lines[item][bullet.end():].strip()] + [line.strip() for line in lines[item + 1 : end + 1]]
        end, described = _sub_items(lines, end, indent)
        plain = " ".join(own + described).replace(SENTINEL, "")
        reason = _segment_reason(plain, words, subject) or (_label_reason(plain, words) if subject else None)
        if reason:
            return f"list item ({reason})"
        if end == len(lines) - 1 and self._label_after(last):
            return "label below (condition)"  # the item ends its list, and the label stands right under it
        if bullet.group(2) is not None and len(_WORD.findall(_strip(plain))) >= 2:
            return "list item (step)"  # an instruction in an ordered list: a step of a procedure
        lead = self._lead_in(first + item, len(bullet.group(1).expandtabs(4)))
        if lead is not None:
            kind, lead_text, lead_ordered = lead
            cleaned = _strip(lead_text)
            if _condition_in(cleaned) or _to_verb(cleaned):
                return f"{kind} (condition)"
            if kind == "lead-in" and _for_purpose(cleaned, words):
                return "lead-in (purpose)"  # "For DDD context mapping and ACL implementations, see:"
            if kind == "lead-in" and cleaned.rstrip().endswith("?"):
                return "lead-in (question)"  # "**Having issues?**" then a list: the situation each item answers
            if kind == "parent item" and (lead_ordered or (subject and _content(cleaned, words))):
                return "parent item"
        return None

    def _block(self, index: int) -> tuple[int, int]:
        """The run of non-blank lines around ``index`` (not crossing headings, fences or tables)."""

        def stop(i: int) -> bool:
            if i < self.start or i >= len(self.lines) or i in self._heading_at or (i + 1) in self.fenced:
                return True
            line = _QUOTE.sub("", self.lines[i]).strip()
            return not line or line.startswith("|")

        # At most BLOCK_LINES each way: a paragraph of thousands of lines, each with a mention,
        # was read whole for every mention (quadratic); a sentence never runs that long.
        first = index
        while index - first < BLOCK_LINES and not stop(first - 1):
            first -= 1
        last = index
        while last - index < BLOCK_LINES and not stop(last + 1):
            last += 1
        return first, last

    def _lead_in(self, item: int, indent: int) -> tuple[str, str, bool] | None:
        """The parent item, or the line introducing the list (ending with ':')."""
        i = item - 1
        while i >= self.start and i not in self._heading_at:
            line = _QUOTE.sub("", self.lines[i])
            if (i + 1) in self.fenced or not line.strip():
                i -= 1
                continue
            bullet = _BULLET.match(line)
            own = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))
            if bullet:
                if len(bullet.group(1).expandtabs(4)) < indent:
                    return "parent item", line[bullet.end():], bullet.group(2) is not None
                i -= 1
                continue
            if own > 0 and (own >= indent or indent == 0):
                i -= 1  # a continuation line of an earlier item
                continue
            stripped = line.strip().rstrip("*_ ")
            if stripped.endswith((":", "?")):
                return "lead-in", stripped, False
            return None
        return None

    def _governing(self, index: int) -> list[tuple[int, int, str]]:
        """The headings whose sections contain line ``index``, innermost first."""
        stack: list[tuple[int, int, str]] = []
        for heading in self.headings:
            if heading[0] >= index:
                break
            while stack and stack[-1][1] >= heading[1]:
                stack.pop()
            stack.append(heading)
        return list(reversed(stack))


SENTENCE_WINDOW = 600  # characters read on each side of a mention for its sentence (longer: cut)


LINE_HEAD = 200  # characters kept from the start of a long line (where a bullet or label stands)


BLOCK_LINES = 40  # lines of a paragraph read on each side of a mention


def _sub_items(lines: list[str], end: int, indent: int) -> tuple[int, list[str]]:
    """The sub-items of the list item whose own lines end at ``end`` (its bullet at ``indent``
    columns): the last line they reach, and the text of each that names no file of its own.
    A sub-item describes its parent ("- [api.md](references/api.md)" then "  - Use when a call
    fails"); one holding a link or a path is about that other file, and says nothing of this one."""
    described: list[str] = []
    while end + 1 < len(lines):
        bullet = _BULLET.match(lines[end + 1])
        if bullet is None or len(bullet.group(1).expandtabs(4)) <= indent:
            break
        start = end = end + 1
        while end + 1 < len(lines) and not _BULLET.match(lines[end + 1]):
            end += 1
        text = " ".join([lines[start][bullet.end():]] + lines[start + 1 : end + 1])
        if "](" not in text and not _PATHISH.search(text):
            described.append(text.strip())
    return end, described


def _sentence(text: str) -> str:
    """The sentence of ``text`` that holds the mention (marked by SENTINEL), without the mark."""
    offset = text.find(SENTINEL)
    # A sentence longer than the window is cut at its edges: reading the whole paragraph for
    # each mention made a paragraph of thousands of mentions quadratic.
    lo = max(0, offset - SENTENCE_WINDOW)
    text, offset = text[lo : offset + SENTENCE_WINDOW], offset - lo
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.end() > offset:
            return text[start : match.start()].replace(SENTINEL, "").strip()
        start = match.end()
    return text[start:].replace(SENTINEL, "").strip()


# What opens a sentence that goes on about the file the previous one named: "Read that
# file when …", "Load it before …", "Use these only if …".
_BACK_REFERENCE = lazyre.compile(
    r"\b(?:it|them|(?:this|that|these|those)(?:[ \t]+(?:file|files|document|documents|guide|guides|reference|"
    r"references|page|pages|one|ones))?)\b",
    re.IGNORECASE,
)


def _follow_up_condition(text: str, words: set[str]) -> bool:
    """Whether the sentence right after the mention's (in the same paragraph or item) refers
    back to the file ("Detailed documentation lives in `references/details.md`. Read that
    file when the tier above is insufficient.") and holds a condition: the condition is the
    file's, one sentence on."""
    offset = text.find(SENTINEL)
    if offset < 0:
        return False
    window = text[offset : offset + SENTENCE_WINDOW]
    ends = [m for m in _SENTENCE_END.finditer(window)]
    if not ends:
        return False
    start = ends[0].end()
    stop = ends[1].start() if len(ends) > 1 else len(window)
    following = _strip(window[start:stop])
    return bool(_BACK_REFERENCE.search(following)) and _condition_in(following, words)


def _sub_links(text: str, replace) -> str:
    """``text`` with each link or image replaced by ``replace(its text)``: the matches of
    _LINK_OPEN, then the destination to the first ")" or blank (NextFind: looked up once for
    all the links of the text), then _LINK_CLOSE."""
    destination_end = NextFind(text, _DESTINATION_END.compiled())
    kept: list[str] = []
    done = at = 0
    tried: tuple[int, re.Match | None] = (-1, None)  # links that share a destination end share its close
    while (link := _LINK_OPEN.search(text, at)) is not None:
        end = destination_end(link.end())
        if end >= 0 and tried[0] != end:
            tried = (end, _LINK_CLOSE.match(text, end))
        close = tried[1] if end >= 0 else None
        if close is None:
            at = link.start() + 1
            continue
        kept += (text[done : link.start()], replace(link.group(1)))
        done = at = close.end()
    kept.append(text[done:])
    return "".join(kept)


def _strip(text: str) -> str:
    """Lower-case prose with links reduced to their text and paths removed."""
    text = _sub_links(text, lambda label: f" {label} ")
    text = _CODE_SPAN.sub(lambda m: " " if _PATHISH.search(m.group(2)) else f" {m.group(2)} ", text)
    text = _PATHISH.sub(" ", text)
    text = re.sub(r"[*_~`>#]|\{baseDir\}|\$\{CLAUDE_SKILL_DIR\}", " ", text)
    return " ".join(text.lower().split())


def _target_words(target: str) -> set[str]:
    """Words of the target's path: a sentence that only restates them says nothing new."""
    pieces = re.split(r"[/_.\s-]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", target))
    words = {p.lower() for p in pieces if p}
    return words | {w[:5] for w in words if len(w) >= 5}


_FAILURE_WORD = lazyre.compile(r"fail|error|broken|missing|stuck")


def _condition_in(text: str, target_words: set[str] | None = None) -> bool:
    """A condition word; a failure word that only repeats the file's name
    ("**Errors**: `api-errors.md`") is a label, not a condition."""
    for match in _CONDITION.finditer(_VACUOUS_CONDITION.sub(" ", text)):
        word = match.group(0)
        if target_words and _FAILURE_WORD.match(word) and _restates(word, target_words):
            continue
        return True
    return False


def _to_verb(text: str) -> bool:
    return any(
        m.group(1) not in _NOT_VERB_AFTER_TO and not m.group(1)[0].isdigit() for m in _TO_VERB.finditer(text)
    )


def _content(text: str, target_words: set[str]) -> bool:
    """A word that is neither a pointer filler nor part of the file's own name."""
    for word in _WORD.findall(text):
        word = word.strip("'’-")
        if len(word) < 3 or word in _STOPWORDS or word.isdigit() or _restates(word, target_words):
            continue
        return True
    return False


def _restates(word: str, target_words: set[str]) -> bool:
    """Whether ``word`` only repeats the file's name (``Layout`` for LAYOUT.md, ``data`` for getdata.md)."""
    if word in target_words or word[:5] in target_words or word.rstrip("s") in target_words:
        return True
    return len(word) >= 4 and any(word in t for t in target_words if len(t) > len(word))


def _segment_reason(segment: str, words: set[str], subject: bool = True) -> str | None:
    cleaned = _strip(segment)
    if _condition_in(cleaned, words):
        return "condition"
    if _to_verb(cleaned) or _for_purpose(cleaned, words):
        return "purpose"
    if subject and _content(cleaned, words):
        return "subject"
    return None


_FOR = lazyre.compile(r"\bfor ((?:[^.;:()—–]|\.(?=\S))+)")


def _for_purpose(text: str, target_words: set[str]) -> bool:
    """``for the error codes`` names a need; ``for details``, ``for more`` do not."""
    return any(_content(m.group(1), target_words) for m in _FOR.finditer(text))


def _label_reason(text: str, words: set[str]) -> str | None:
    """``**Form filling**: see forms.md`` — the item's label names the subject."""
    match = _LABEL.match(text)
    if match and _content(_strip(match.group(1)), words):
        return "label"
    return None


def _procedural(text: str) -> bool:
    first = _WORD.match(text)
    if not first:
        return False
    word = first.group(0)
    return word in _PROCEDURE_VERBS or (len(word) > 5 and word.endswith("ing") and word not in _NON_GERUNDS)


def _heading_reason(heading: str, innermost: bool) -> str | None:
    text = _strip(heading)
    if _SITUATION_HEADING.match(text) or _condition_in(text):
        return "situation"
    if innermost and text.rstrip().endswith("?"):
        return "situation"  # "## Having issues?": a question names the situation the section answers
    text = re.sub(r"^(?:\d+[a-z]?[.)]?\s+|[ivx]+\.\s+)", "", text)  # "3. Review the task"
    if _SITUATION_HEADING.match(text):
        return "situation"
    if innermost and (_TASK_HEADING.match(text) or _procedural(text)):
        return "task"
    return None
