"""The sentence around a folder mention in one scanned Markdown file (SL306, SL311): its block,
its sentence, the words that send the reader into the folder or only say where material lives,
and whether the text around it names a file of the folder (:mod:`skilllint.skill.references.generic_pointers`
finds the mentions and asks)."""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left, bisect_right

from ... import lazyre
from ..text import markdown
from ..text.markdown import CODE_SPAN
from ..inventory import is_document


# Words that send the reader into a folder: "see", "read from", "load … from", "use one in".
_DIRECTIVES = lazyre.compile(
    r"\b(?:see|read|load|consult|check|refer to|look (?:in|at|into|through)|browse|open|study|review|use|run|execute)\b",
    re.IGNORECASE,
)


# Words that only say where material lives: "lives in", "available in", "documented in", "reference files".
# A sentence with these alone is an overview when the document names the files elsewhere.
_LOCATIONS = lazyre.compile(
    r"\b(?:lives?|located|available|found|documented|details?|detailed|more information|deep[- ]dives?"
    r"|reference (?:material|files|docs|documents|documentation|guides)|guides)\b",
    re.IGNORECASE,
)


# Sentences that act on the folder rather than send the reader into it.
_NOT_POINTER = lazyre.compile(
    r"\b(?:never|don't|do not|must not|write (?:to|into)|save (?:to|into)|put (?:it|them)|place (?:it|them)"
    r"|copy|create|add (?:it|them|new))\b",
    re.IGNORECASE,
)


# What may stand right before a folder that the sentence points into.
_LEAD_IN = lazyre.compile(
    r"(?:\b(?:in|from|under|at|inside|within|into|see|check|consult|browse|study|open|and|or)"
    r"(?:\s+(?:the|this|a|our|its|the skill's|this skill's|skill's))?\s*|,\s*|^\W*(?:the\s+)?)$",
    re.IGNORECASE,
)


# Starts where a run of `, [ and ! starts (the lookbehind): tried inside the run, it would scan
# to the run's end from every character of it.
_LEAD_TAIL = lazyre.compile(r"(?<![`\[!])[`\[!]*(?:\{baseDir\}/|\$\{CLAUDE_SKILL_DIR\}/|\$CLAUDE_SKILL_DIR/|\./)?$")


_SENTENCE_END = lazyre.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[(_\"'])")


_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


_BLOCK_START = lazyre.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|)")


_LIST_OR_TABLE = lazyre.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\|)")


_HEADING = lazyre.compile(r"^\s{0,3}#{1,6}\s")


_RULE = lazyre.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")


_DESTINATION_END = lazyre.compile(r"[)\s]")


_FILE_NAME = lazyre.compile(r"^[\w./-]*\w\.[A-Za-z0-9]{1,8}$")


def _bracket_links(text: str, destination_end, filled: bool):
    r"""(start, end, destination start, destination end) of each ``[text](destination)``,
    as ``\[[^\]]*\]\((destination)\)`` finds them, the destination running to the first
    ``destination_end`` (a character, or a pattern of one) that must be a ")"; ``filled``:
    an empty destination is none. The closers are looked up once for all the links
    (markdown.NextFind): in a regex each of many "[" or "](" without them scans to the end."""
    bracket, stop = markdown.NextFind(text, "]"), markdown.NextFind(text, destination_end)
    at = 0
    while (start := text.find("[", at)) >= 0:
        close = bracket(start + 1)
        if close < 0:
            return  # no "]" after this "[": none after a later one either
        if not text.startswith("(", close + 1):
            at = start + 1
            continue
        end = stop(close + 2)
        if end < 0:
            return
        if text[end] != ")" or (filled and end == close + 2):
            at = start + 1
            continue
        yield start, end + 1, close + 2, end
        at = end + 1


# Characters on either side of a mention that its sentence is judged by. Real sentences are
# far shorter; a longer run of text (a file that is one paragraph, a line of a megabyte) is
# judged near each mention, so that every mention costs the same whatever the file's size.
_WINDOW = 1000


# A heading's text, or a list item's title: its bold lead ("1. **Ocean Depths** - …") or the text
# up to a dash or colon that ends it ("- Ocean Depths: …").
_TITLE = lazyre.compile(r"\s{0,3}(?:#{1,6}\s+|(?:[-*+]|\d{1,9}[.)])\s+(?:\*\*|__)?)([^*_:\n]{1,80}?)(?:\*\*|__|\s+[-\u2013\u2014]\s|:|\s*$)")


def _title_slug(text: str) -> str:
    """Lowercase words joined by single hyphens: "Ocean Depths" and `ocean_depths` agree."""
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


class ScannedDocument:
    """One scanned Markdown file, for judging the sentence around a folder mention.

    What the questions need is worked out once per file and kept: each line's block
    (paragraph or list item), each block's text and sentence ends, the headings, the
    references per line, the lines that name a file of a folder, whether a list after a
    line names one. A file with thousands of mentions then costs time in proportion to
    its size, not to its size times its mentions."""

    def __init__(self, lines: list[str], offset: int, fenced: set[int], refs: list, inventory):
        self.lines = lines
        self.offset = offset
        self.fenced = fenced
        self.refs = refs
        self.inventory = inventory
        self._names: dict[str, set[str]] = {}
        self._stems: dict[str, set[str]] = {}
        self._first: dict[int, int] = {}  # file line -> first line of its block
        self._last: dict[int, int] = {}  # file line -> last line of its block
        self._blocks: dict[tuple[int, int], tuple[str, list[int]]] = {}  # (first, last) -> text, where each line starts in it
        self._sentences: dict[str, tuple[list[int], list[int], int, bool]] = {}  # context -> sentence ends, tail facts
        self._cells: dict[int, list[tuple[int, int]]] = {}  # table row line -> its cells
        self._by_line: dict[int, tuple[list[int], list]] | None = None  # line -> (0-based columns, refs) by column
        self._headings: list[int] | None = None
        self._naming: dict[str, list[int]] = {}  # folder -> lines naming a file in it
        self._lists: dict[tuple[int, bool, str], bool] = {}  # _list_names_file's answers
        self._titles: set[str] | None = None  # slugs of the headings' and list items' titles
        self._direct: dict[str, list[str]] = {}  # "folder/" -> names of the files directly in it

    # line numbers below are file lines (1-based); indexes into self.lines are 0-based

    def text(self, number: int) -> str:
        index = number - 1 - self.offset
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def is_generic(
        self, number: int, column: int, folder: str, explicit: bool, cue_required: bool = True, lead_required: bool = True
    ) -> bool:
        """Whether the mention at (file line, 0-based column) points into ``folder`` without naming a file there."""
        if explicit:  # a link: judge from its opening bracket, not its destination
            line = self.text(number)
            opening = line.rfind("[", 0, max(column - 1, 0))
            if opening >= 0:
                column = opening - 1 if opening > 0 and line[opening - 1] == "!" else opening
        context, start, _, first, last = self._context(number, column)
        if context is None:
            return False
        low, high = _window(*self._sentence(context, start), start)
        sentence = context[low:high]
        before = context[low:start]
        if lead_required and not _LEAD_IN.search(_LEAD_TAIL.sub("", before)):
            return False
        if _NOT_POINTER.search(_strip_code(before)):
            return False
        plain = _strip_code(sentence)
        directive = bool(_DIRECTIVES.search(plain)) or not cue_required
        if not directive and not _LOCATIONS.search(plain):
            return False
        if self.names_files(number, column, folder, section=True):
            return False
        if self._has_entry_document(folder):
            return False  # "See `examples/basic-upload/` for a working project": its README is where to start
        # "Reference files are located at `references/`" with the files named further on: an overview;
        # "read the relevant one in `references/`" after a list mapping situations to its files: a reminder.
        # The agent reads the whole document, so files named anywhere in it, before or after, count.
        return not self._document_names_file(folder)

    def names_files(self, number: int, column: int, folder: str, section: bool) -> bool:
        """Whether files in ``folder`` are named around the mention: in its sentence,
        in a list or table right after it, or (``section``) anywhere in its section."""
        context, start, _, first, last = self._context(number, column)
        if context is None:
            return True
        sentence_start, sentence_end = self._sentence(context, start)
        low, high = _window(sentence_start, sentence_end, start)
        if self._names_file(context, low, high, number, column, first, last, folder):
            return True
        if self._followed_by_files(context, sentence_end, first, last, folder):
            return True
        return section and self._section_names_file(number, folder)

    def _context(self, number: int, column: int):
        """(text, start of the mention in it, end, first line, last line) of the block around a mention.

        A table row is its own block: the cell holding the mention, or the whole
        row when the cell holds nothing but the mention. Otherwise the block is
        the paragraph or list item (consecutive non-blank lines)."""
        line = self.text(number)
        if number in self.fenced:
            return None, 0, 0, number, number
        if line.lstrip().startswith("|"):
            cells = self._cells.get(number)
            if cells is None:
                cells = self._cells[number] = markdown.table_cells(line)
            at = bisect_right(cells, (column, len(line) + 1)) - 1  # the last cell starting at or before the column
            if at >= 0 and cells[at][0] <= column < cells[at][1]:
                cell_start, cell_end = cells[at]
                cell = line[cell_start:cell_end]
                core = _strip_code(cell).strip()
                core = _without_links(core).strip(" *_")
                if not core:  # the cell is just the mention: the row is the context
                    return line, column, column, number, number
                return cell, column - cell_start, column - cell_start, number, number
            return line, column, column, number, number
        first, last = self._block_of(number)
        text, starts = self._block(first, last)
        start = starts[number - first] + max(0, column - (len(line) - len(line.lstrip())))
        return text, start, start, first, last

    def _block_of(self, number: int) -> tuple[int, int]:
        """(first, last) line of the block holding line ``number``: up while the line above
        continues it, down while the line below does (each answer kept for the lines passed)."""
        first = self._first.get(number)
        if first is None:
            passed = []
            current = number
            while True:
                known = self._first.get(current)
                if known is not None:
                    first = known
                    break
                passed.append(current)
                previous = current - 1
                if previous - 1 - self.offset < 0 or previous in self.fenced:
                    first = current
                    break
                text = self.text(previous)
                if not text.strip() or _BLOCK_START.match(self.text(current)) or _HEADING.match(text) or text.lstrip().startswith("|"):
                    first = current
                    break
                current = previous
            for line in passed:
                self._first[line] = first
        last = self._last.get(number)
        if last is None:
            passed = []
            current = number
            while True:
                known = self._last.get(current)
                if known is not None:
                    last = known
                    break
                passed.append(current)
                following = current + 1
                if following - 1 - self.offset >= len(self.lines) or following in self.fenced:
                    last = current
                    break
                text = self.text(following)
                if not text.strip() or _BLOCK_START.match(text):
                    last = current
                    break
                current = following
            for line in passed:
                self._last[line] = last
        return first, last

    def _block(self, first: int, last: int) -> tuple[str, list[int]]:
        """The block's text (its lines stripped, joined by spaces) and where each line starts in it."""
        got = self._blocks.get((first, last))
        if got is None:
            parts = [self.text(n).strip() for n in range(first, last + 1)]
            starts = []
            at = 0
            for part in parts:
                starts.append(at)
                at += len(part) + 1
            got = self._blocks[(first, last)] = (" ".join(parts), starts)
        return got

    def _sentence_ends(self, context: str) -> tuple[list[int], list[int], int, bool]:
        """(starts, ends) of the sentence breaks in ``context``, the length of its text without
        trailing whitespace, and whether it ends with a colon (before ` *_`)."""
        info = self._sentences.get(context)
        if info is None:
            starts: list[int] = []
            ends: list[int] = []
            for match in _SENTENCE_END.finditer(context):
                if context.endswith(_ABBREVIATIONS, 0, match.start()):
                    continue
                starts.append(match.start())
                ends.append(match.end())
            info = self._sentences[context] = (starts, ends, len(context.rstrip()), context.rstrip(" *_").endswith(":"))
        return info

    def _sentence(self, context: str, position: int) -> tuple[int, int]:
        starts, ends, _, _ = self._sentence_ends(context)
        after = bisect_left(starts, position)  # the first break at or after the mention
        return (ends[after - 1] if after else 0), (starts[after] if after < len(starts) else len(context))

    def _names_file(self, context: str, start: int, end: int, number: int, column: int, first: int, last: int, folder: str) -> bool:
        """Whether the sentence names a file in ``folder`` (a reference or a bare file name found there)."""
        sentence = context[start:end]
        for ref in self._refs_within(start, end, number, column, first, last):
            if self._under(ref, folder) and _mentioned_in(ref, sentence):
                return True
        return self._bare_names(sentence, folder)

    def _refs_within(self, start: int, end: int, number: int, column: int, first: int, last: int):
        """The references written inside ``start:end`` of the context of the mention at
        (``number``, ``column``): the block's lines, or the table row, near the mention."""
        if self.text(number).lstrip().startswith("|"):
            # A cell or the row: columns of the line, shifted by the cell's start at most.
            places = [(number, column - (end - start) - 1, column + (end - start) + 1)]
        else:
            _, starts = self._block(first, last)
            places = []
            for index in range(max(bisect_right(starts, start) - 1, 0), bisect_right(starts, end)):
                raw = self.text(first + index)
                lead = len(raw) - len(raw.lstrip())
                places.append((first + index, start - starts[index] + lead, end - starts[index] + lead))
        by_line = self._refs_by_line()
        for line, low, high in places:
            found = by_line.get(line)
            if found is None:
                continue
            columns, refs = found
            for at in range(bisect_left(columns, low), bisect_right(columns, high)):
                yield refs[at]

    def _refs_by_line(self) -> dict[int, tuple[list[int], list]]:
        if self._by_line is None:
            by_line: dict[int, list] = {}
            for ref in self.refs:
                by_line.setdefault(ref.line, []).append(ref)
            self._by_line = {}
            for line, refs in by_line.items():
                refs.sort(key=lambda r: r.column)
                self._by_line[line] = ([r.column - 1 for r in refs], refs)
        return self._by_line

    def _followed_by_files(self, context: str, sentence_end: int, first: int, last: int, folder: str) -> bool:
        """Whether a list or table right after the block names files in ``folder``
        (\"The `references/` folder contains:\" followed by the files)."""
        block = self.text(first)
        if _LIST_OR_TABLE.match(block):
            _, _, text_end, colon = self._sentence_ends(context)
            if text_end > sentence_end or not colon:
                return False  # a list item pointing somewhere: its siblings are not its files
        return self._list_names_file(last + 1, False, folder)

    def _list_names_file(self, number: int, seen_item: bool, folder: str) -> bool:
        """Whether the list or table starting at or after line ``number`` (past blank lines,
        and a heading or rule before its first item) names a file in ``folder``; each
        answer is kept for every line passed, as the lists after many mentions are one."""
        total = len(self.lines) + self.offset
        passed = []
        answer = False
        while True:
            key = (number, seen_item, folder)
            known = self._lists.get(key)
            if known is not None:
                answer = known
                break
            passed.append(key)
            if number > total or number in self.fenced:
                break
            text = self.text(number)
            if not text.strip() or (not seen_item and (_HEADING.match(text) or _RULE.match(text))):
                number += 1  # "… lives in `references/`." then "## References" and the table of files
                continue
            if _HEADING.match(text):
                break
            if not (_LIST_OR_TABLE.match(text) or (seen_item and text.startswith((" ", "\t")))):
                break
            found = self._refs_by_line().get(number)
            if (found is not None and any(self._under(ref, folder) for ref in found[1])) or self._bare_names(text, folder):
                answer = True
                break
            number, seen_item = number + 1, True
        for key in passed:
            self._lists[key] = answer
        return answer

    def _section_names_file(self, number: int, folder: str) -> bool:
        """Whether the section holding line ``number`` (heading to heading) names a file in ``folder``."""
        if self._headings is None:
            self._headings = [
                n for n in range(self.offset + 1, self.offset + len(self.lines) + 1) if n not in self.fenced and _HEADING.match(self.text(n))
            ]
        headings = self._headings
        above = bisect_left(headings, number)
        top = headings[above - 1] if above else self.offset + 1
        below = bisect_right(headings, number)
        bottom = headings[below] - 1 if below < len(headings) else self.offset + len(self.lines)
        naming = self._naming_lines(folder)
        at = bisect_left(naming, top)
        return at < len(naming) and naming[at] <= bottom

    def _document_names_file(self, folder: str, before: int | None = None) -> bool:
        """Whether the document names a file in ``folder`` (only on lines before ``before`` when given)."""
        end = self.offset + len(self.lines) if before is None else before - 1
        naming = self._naming_lines(folder)
        if naming and naming[0] <= end:
            return True
        return before is None and self._lists_folder_by_title(folder)

    def _has_entry_document(self, folder: str) -> bool:
        """Whether ``folder`` is a unit with its own entry document: a README (any extension, or
        none) or an index page directly in it. An agent sent to such a folder does not list it and
        guess: it opens the document written to be read first (as a person, or a repository host,
        does), which says what the rest is for. A project manifest is no such document: a
        folder of templates that shares one `package.json` is still a bag of files."""
        if folder in (".", ""):
            return False  # the package itself: its entry is SKILL.md, the document being read
        prefix = folder.rstrip("/") + "/"
        for name in self._names_directly_in(prefix):
            stem, suffix = posixpath.splitext(name.lower())
            if stem == "readme" or (stem == "index" and is_document(name)):
                return True
        return False

    def _names_directly_in(self, prefix: str) -> list[str]:
        names = self._direct.get(prefix)
        if names is None:
            names = self._direct[prefix] = [
                entry.rel[len(prefix) :]
                for entry in self.inventory.files()
                if entry.rel.startswith(prefix) and "/" not in entry.rel[len(prefix) :]
            ]
        return names

    def _lists_folder_by_title(self, folder: str) -> bool:
        """Whether the document's headings and list items name every file directly in ``folder``
        by title, and there are several: "1. **Ocean Depths** - …" for `themes/ocean-depths.md`.
        The choice the reader makes among those titles picks the file ("read the corresponding
        theme file from `themes/`"). All of them, not some: one title that happens to match one
        file of a larger folder says nothing about the rest."""
        if folder in (".", ""):
            return False
        prefix = folder.rstrip("/") + "/"
        stems = {
            _title_slug(posixpath.splitext(entry.rel[len(prefix) :])[0])
            for entry in self.inventory.files()
            if entry.rel.startswith(prefix) and "/" not in entry.rel[len(prefix) :]
        }
        if len(stems) < 2:
            return False
        if self._titles is None:
            self._titles = {
                _title_slug(match.group(1))
                for number in range(self.offset + 1, self.offset + len(self.lines) + 1)
                if number not in self.fenced and (match := _TITLE.match(self.text(number)))
            }
        return stems <= self._titles

    def _naming_lines(self, folder: str) -> list[int]:
        """The lines, in order, holding a reference to a file in ``folder`` or (outside code) a bare name of one."""
        found = self._naming.get(folder)
        if found is None:
            lines = {ref.line for ref in self.refs if self._under(ref, folder)}
            # A line names a file of the folder only in backticks, after the folder's path, in a
            # link or by a name with its extension (_bare_names); a line with none of them is
            # passed over without a call.
            prefix = folder.rstrip("/") + "/" if folder not in (".", "") else None
            for index, text in enumerate(self.lines, start=self.offset + 1):
                # fenced code counts too: `node scripts/fetch.js` in a block names the file.
                # A name with its extension in the prose ("- **init-motion.sh** - one-command
                # setup") has a dot.
                if index in lines or ("`" not in text and "](" not in text and "." not in text and (prefix is None or prefix not in text)):
                    continue
                if self._bare_names(text, folder):
                    lines.add(index)
            found = self._naming[folder] = sorted(lines)
        return found

    @staticmethod
    def _under(ref, folder: str) -> bool:
        """Whether ``ref`` names a file in ``folder`` (a missing file counts: it is named, SL301 reports it)."""
        if ref.target_kind != "file" and ref.status != "missing":
            return False
        target = ref.resolved or ref.path
        return folder in (".", "") or target.startswith(folder.rstrip("/") + "/")

    def _stems_of(self, folder: str, names: set[str]) -> set[str]:
        """Distinctive stems (a word joined by `-` or `_` to more) of the files directly in ``folder``, each
        stem of one file only: a document that lists its cases or templates by stem names them."""
        stems = self._stems.get(folder)
        if stems is None:
            counts: dict[str, int] = {}
            for name in names:
                if "/" not in name:
                    stem = posixpath.splitext(name)[0]
                    if stem != name and _STEM.match(stem) and ("-" in stem[1:-1] or "_" in stem[1:-1]):
                        counts[stem] = counts.get(stem, 0) + 1
            stems = self._stems[folder] = {stem for stem, count in counts.items() if count == 1}
        return stems

    def _bare_names(self, text: str, folder: str) -> bool:
        names = self._names.get(folder)
        if names is None:
            prefix = "" if folder in (".", "") else folder.rstrip("/") + "/"
            names = set()
            for entry in self.inventory.files():
                if entry.rel.startswith(prefix):
                    rest = entry.rel[len(prefix) :]
                    names.add(rest)
                    names.add(posixpath.basename(rest))
            self._names[folder] = names
        if "`" in text:
            stems = self._stems_of(folder, names)
            for match in CODE_SPAN.finditer(text):
                token = match.group(2).strip()
                if _FILE_NAME.match(token) and (token in names or posixpath.basename(token) in names):
                    return True
                if token in stems:
                    return True  # `small-inline-workflow` in a table of cases names small-inline-workflow.json
        prefix = folder.rstrip("/") + "/"
        if folder not in (".", "") and prefix in text:
            # The folder's path with a file after it, in prose or in code, whatever precedes it:
            # `node <skill-dir>/scripts/fetch.js`, "3. Read templates/fuzzer-skill.md"
            at = text.find(prefix)
            while at >= 0:
                start = at + len(prefix)
                match = _PATH_REST.match(text, start)
                if match is not None and match.group(0).rstrip(".") in names:
                    return True
                at = text.find(prefix, match.end() if match is not None else start)  # each character once
        if "](" in text:
            for _, _, start, end in _bracket_links(text, _DESTINATION_END.compiled(), filled=True):
                if posixpath.basename(text[start:end]) in names:
                    return True
        # A file name with its extension in the prose ("**Use dangerous-command-guard.py** (see scripts/)"):
        # as distinctive as in a code span.
        for word in text.split():
            token = word.strip("*_()[]{}<>\"',;:!?")
            if "." in token.strip(".") and posixpath.basename(token.rstrip(".")) in names:
                return True
        return False


_PATH_REST = lazyre.compile(r"[\w.-]+(?:/[\w.-]+)*")


# A file stem, as distinctive as a name must be to name one file: words joined by a
# separator, not a plain word that code spans hold for other reasons.
_STEM = lazyre.compile(r"^[A-Za-z][\w-]*$")  # a separator inside is checked apart: one class, no overlap


def _window(start: int, end: int, position: int) -> tuple[int, int]:
    """The sentence ``start:end`` around ``position``, at most _WINDOW characters on either side."""
    return max(start, position - _WINDOW), min(end, position + _WINDOW)


def _without_links(text: str) -> str:
    r"""``text`` without its ``[text](destination)`` links (the matches of \[[^\]]*\]\([^)]*\))."""
    pieces, done = [], 0
    for start, end, _, _ in _bracket_links(text, ")", filled=False):
        pieces.append(text[done:start])
        done = end
    return "".join(pieces) + text[done:]


def _strip_code(text: str) -> str:
    return CODE_SPAN.sub(lambda _: " ", text)


def _mentioned_in(ref, sentence: str) -> bool:
    return ref.raw in sentence
