"""Progressive disclosure of a skill's bundled files: the facts SL303, SL304, SL310 and SL312 share
(documents, scripts, names and hop chains; what a nested skill is, the inventory says); each rule's own reading is in
:mod:`skilllint.skill.references.resource_reach`, :mod:`skilllint.skill.references.mention_context` and :mod:`skilllint.skill.references.document_toc`.

SKILL.md should point one hop to focused files (SL303), every bundled file
should be reachable from something in the package (SL304), each reference
from SKILL.md should say when to load or run its target (SL310), and a long
referenced document should open with a table of contents (SL312).

All four read the reference graph (:mod:`skilllint.skill.references.graph`); SL310 judges
the context of a mention from cheap line scans (the sentence, the list item
and its lead-in, the table row and its header, the governing headings), never
from a full Markdown parse.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import Iterator

from ... import lazyre
from ...diagnostics import Related, Span
from ..inventory import is_script
from ..text.markdown import is_atx_heading
from ..package import SkillPackage

DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst")


def suffix_of(rel: str) -> str:
    return posixpath.splitext(rel)[1].lower()


def is_document(rel: str) -> bool:
    return suffix_of(rel) in DOCUMENT_SUFFIXES


def mention_span(reference) -> Span:
    return Span(reference.line, reference.column, reference.line, reference.end_column)


_WILDCARD = lazyre.compile(r"\*|\{[\w-]+\}|<[\w-]+>")


_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.{}<>$@/*-")


def is_named(text: str, name: str) -> bool:
    """``name`` in ``text`` as a whole file name (``x.md`` in ``refs/x.md``, not in ``fix.md``)."""
    start = text.find(name)
    while start >= 0:
        before = text[start - 1] if start else " "
        end = start + len(name)
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "_.-") and not (after.isalnum() or after in "_-"):
            return True
        start = text.find(name, start + 1)
    return False


class NamedBy:
    """What SKILL.md names without a resolvable path: wildcard or placeholder
    paths (`shared/managed-agents-*.md`, `{lang}/README.md`) and bare file names.
    Built on first use: most packages never ask."""

    def __init__(self, text: str, inventory=None) -> None:
        self.text = text
        self.inventory = inventory
        self._patterns: list[re.Pattern] | None = None
        self._name_counts: dict[str, int] | None = None

    @property
    def patterns(self) -> list[re.Pattern]:
        if self._patterns is None:
            self._patterns = []
            text, covered = self.text, 0  # the text up to `covered` is in a token already taken
            for marker in _WILDCARD.finditer(text):
                start, end = marker.start(), marker.end()
                if start < covered:
                    continue  # `a*b*c`: one token, expanded once (each marker expanding it was quadratic)
                while start > covered and text[start - 1] in _PATH_CHARS:
                    start -= 1
                while end < len(text) and text[end] in _PATH_CHARS:
                    end += 1
                covered = end
                pattern = self._pattern(text[start:end].strip("./"))
                if pattern is not None:
                    self._patterns.append(pattern)
        return self._patterns

    @staticmethod
    def _pattern(token: str) -> re.Pattern | None:
        if "/" not in token and "." not in token:
            return None
        pattern = re.sub(r"\{[\w-]+\}|<[\w-]+>|\$\{?\w+\}?", "*", token)
        pattern = re.sub(r"^(?:\*/)+", "", pattern)
        stem = posixpath.splitext(posixpath.basename(pattern))[0]
        if "*" not in pattern or len(stem.replace("*", "")) < 3:  # `references/*.md` names no file
            return None
        return re.compile(fnmatch.translate(pattern).replace(".*", "[^/]*"))

    def names(self, rel: str) -> bool:
        name = posixpath.basename(rel)
        if self._unique(name):
            if is_named(self.text, name):
                return True
        elif is_named(self.text, rel) or is_named(self.text, "/".join(rel.split("/")[-2:])):
            return True  # a name several files share names one only with its folder
        return any(p.fullmatch(rel) or p.fullmatch(rel.split("/", 1)[-1]) for p in self.patterns)


    def _unique(self, name: str) -> bool:
        """Whether one file of the package has this name: only then does SKILL.md's bare
        `impl.md` tell the agent which file it means."""
        if self.inventory is None:
            return True
        if self._name_counts is None:
            self._name_counts = {}
            for entry in self.inventory.files():
                base = posixpath.basename(entry.rel)
                self._name_counts[base] = self._name_counts.get(base, 0) + 1
        return self._name_counts.get(name, 0) <= 1


def links_back(graph, target: str, source: str) -> bool:
    """Whether the link from ``source`` goes back up: to a file in a folder above it that
    itself references ``source`` ("Back to: [Main README](../README.md)"). That file leads
    to ``source``, so it is no step further down. Two files of side-by-side folders that
    name each other are not this: the second one is still a hop deeper than the first."""
    above, below = posixpath.dirname(target), posixpath.dirname(source)
    if above == below or not (above == "" or below.startswith(above + "/")):
        return False
    back = graph.first_reference_to(target, source)
    return back is not None and back.status == "ok"


def in_linked_folder(folders: set[str], rel: str) -> bool:
    """Whether ``rel`` is a file of one of ``folders`` (package paths SKILL.md links as folders):
    the agent lists a linked folder and opens a file it holds, one hop from SKILL.md. A listing
    shows one level: a file in a subfolder is a hop further."""
    return posixpath.dirname(rel) in folders


def script_input(script_folders: set[str], source: str, target: str) -> bool:
    """Whether ``target`` is data (neither a document nor a script) that ``source`` documents
    as data: ``source`` is the page named after it (`attributes.md` for `attributes.json`),
    or sits in a folder of scripts, where a page names the files its scripts read or write,
    which the script opens when run. The agent runs the script or has the data's
    description already; it has no chain of pages to follow to the data."""
    if is_document(target) or is_script(target):
        return False
    if posixpath.splitext(source)[0] == posixpath.splitext(target)[0]:
        return True  # `attributes.md` explains `attributes.json`: the page is the data's description
    return posixpath.dirname(source) in script_folders


def beside_source(package: SkillPackage, reference) -> bool:
    """Whether a bare file name (no folder) resolved from the skill root also names a file
    in the mentioning file's own folder: a reader takes it for that one (a subfolder's
    README saying each example holds a `README.md` means neither the root's README nor a
    hop to it)."""
    if reference.explicit or "/" in reference.path:
        return False
    folder = posixpath.dirname(reference.source)
    if not folder:
        return False
    beside = posixpath.join(folder, reference.path)
    return beside != reference.resolved and package.inventory.kind_of(beside) == "file"


# A section that records the document's own history: what it names changed, it is not
# a pointer to follow ("## Changelog", "## Revision history", "## Release notes").
_RECORD_HEADING = lazyre.compile(
    r"^ {0,3}#{1,6}[ \t]+(?:change[ -]?log|changes|history|revision history|version history|release notes)\b",
    re.IGNORECASE,
)


class RecordSections:
    """Per scanned file, the line ranges under a record heading (:data:`_RECORD_HEADING`)
    up to the next heading of the same or a higher level."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self._ranges: dict[str, list[tuple[int, int]]] = {}

    def in_record(self, source: str, line: int) -> bool:
        if source not in self._ranges:
            self._ranges[source] = self._find(source)
        return any(start < line < end for start, end in self._ranges[source])

    def _find(self, source: str) -> list[tuple[int, int]]:
        text = self.graph.texts.get(source)
        if not text or "#" not in text:
            return []
        fenced = self.graph.fenced.get(source, set())  # referenced files count their lines from 1
        ranges: list[tuple[int, int]] = []
        open_at: tuple[int, int] | None = None  # (line, level) of the open record heading
        for number, line in enumerate(text.split("\n"), start=1):
            if number in fenced or not is_atx_heading(line):
                continue
            level = len(line.lstrip(" ")) - len(line.lstrip(" ").lstrip("#"))
            if open_at is not None and level <= open_at[1]:
                ranges.append((open_at[0], number))
                open_at = None
            if open_at is None and _RECORD_HEADING.match(line):
                open_at = (number, level)
        if open_at is not None:
            ranges.append((open_at[0], len(text.split("\n")) + 1))
        return ranges


# The mention is what a verb of writing acts on ("Create or update `SPEC.md`", "author or
# update `SKILL.md`, `SPEC.md`"): the text before it ends in the verb and a list of names.
_WRITTEN_BEFORE = lazyre.compile(
    r"\b(?:create|update|write|author|edit|generate|draft|produce|scaffold|fill in|maintain)"
    r"(?:[ \t]+(?:or|and)[ \t]+[a-z]+)?[ \t]+(?:(?:a|an|the|its|new)[ \t]+)?"
    r"(?:`[^`\n]{1,120}`[ \t,]*(?:(?:and|or)[ \t]+)?)*`?$",  # the mention's own opening tick
    re.IGNORECASE,
)


_WRITTEN_WINDOW = 160  # characters before a mention that can hold its verb and list


def only_written(package: SkillPackage, graph, skill_md: str, rel: str) -> bool:
    """Whether SKILL.md names ``rel`` only as something to write: the object of a verb of
    writing, or a file listed with `SKILL.md` itself (the parts of a skill being authored:
    the `SKILL.md` a SKILL.md talks about is never its own). The agent then never reads
    ``rel`` on the way, so what ``rel`` links to is no hop of a chain it follows."""
    mentions = [r for r in graph.from_file(skill_md) if r.resolved == rel]
    if not mentions:
        return False
    lines = package.source.lines
    for mention in mentions:
        if mention.explicit or not 0 < mention.line <= len(lines):
            return False  # a link is a pointer to open it
        line = lines[mention.line - 1]
        cell_start = line.rfind("|", 0, max(mention.column - 1, 0)) + 1
        cell_end = line.find("|", mention.end_column - 1)
        cell = line[cell_start : cell_end if cell_end >= 0 else len(line)]
        before = line[max(cell_start, mention.column - 1 - _WRITTEN_WINDOW) : max(mention.column - 1, 0)]
        if f"`{skill_md}`" in cell or _WRITTEN_BEFORE.search(before):
            continue
        return False
    return True


def hop_count(count: int) -> str:
    return f"a chain of {count} hops"


def hop_notes(package: SkillPackage, graph, chain: list[str]) -> Iterator[Related]:
    """One note per hop before the reported one (where each file names the next), then the target."""
    hops = len(chain) - 1
    for number, (parent, child) in enumerate(zip(chain[:-2], chain[1:-1]), start=1):
        mention = next(
            (r for r in graph.references if r.source == parent and r.resolved == child and r.status == "ok"), None
        )
        if mention is not None:
            yield Related(f"hop {number} of {hops}: {parent} → {child}", package.root / parent, mention_span(mention))
    yield Related(f"the file reached: {chain[-1]}", package.root / chain[-1], Span.point(1))
