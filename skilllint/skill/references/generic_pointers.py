"""Folder mentions that leave the agent to guess (SL311), and what the sentence around a folder
mention says (SL306): each scanned Markdown file read once (a
:class:`~skilllint.skill.references.folder_mentions.ScannedDocument`), the pointers found in it."""

from __future__ import annotations

import re

from ... import lazyre
from ..text import markdown
from .folder_mentions import ScannedDocument
from ..package import SkillPackage
from .checks import usable
from .graph import reference_graph


class _Pointer:
    __slots__ = ("source", "line", "column", "end_column", "message")

    def __init__(self, source: str, line: int, column: int, end_column: int, message: str):
        self.source, self.line, self.column, self.end_column, self.message = source, line, column, end_column, message


# "check the references folder", "read the files in the scripts directory": a pointer with no path at all.
_FOLDER_WORDS = lazyre.compile(
    r"\b(?P<cue>see|read|load|consult|check|refer to|look (?:in|at|into|through)|browse|open|in|from|under)"
    r"\s+(?:(?:all|any|each|one) (?:of )?)?(?:the )?(?:files in the |documents in the )?(?:bundled |included |relevant )?"
    r"(?:(?P<word>references?|resources?|docs|scripts|templates|examples|assets|workflows)\s+(?:folder|directory|dir)\b"
    r"|(?<=the )(?P<plural>references)\b(?!\s+(?:folder|directory|dir)\b|/))",
    re.IGNORECASE,
)


def generic_pointers(package: SkillPackage, memo: dict) -> list[_Pointer]:
    """The pointers of SL311, found once per package run (``memo``: the rules' per-package scratch)."""
    key = "references.generic-pointers"
    if key not in memo:
        memo[key] = _find_generic_pointers(package, _documents(package, memo)) if usable(package) else []
    return memo[key]


def _documents(package: SkillPackage, memo: dict) -> dict[str, ScannedDocument]:
    """A :class:`ScannedDocument` for each scanned file, made once per package for SL306 and SL311."""
    key = "references.documents"
    if key not in memo:
        memo[key] = _documents_of(package)
    return memo[key]


def _documents_of(package: SkillPackage) -> dict[str, ScannedDocument]:
    graph = reference_graph(package)
    return {
        source: ScannedDocument(
            text.split("\n"),
            package.body_start_line if source == package.skill_md_name else 0,
            graph.fenced[source],
            graph.from_file(source),
            package.inventory,
        )
        for source, text in graph.texts.items()
    }


_POINTER_ADVICE = "the agent must list the folder and guess which file to load; name each file and say when to read it"


def _pointer_message(folder: str, explicit: bool) -> str:
    shown = folder if folder.endswith("/") else folder + "/"
    verb = "links to" if explicit else "points to"
    return f"this sentence {verb} the folder `{shown}` without naming a file in it: {_POINTER_ADVICE}"


def _find_generic_pointers(package: SkillPackage, documents: dict[str, ScannedDocument] | None = None) -> list[_Pointer]:
    """Every generic pointer in SKILL.md and the Markdown files it references (SL311; SL306 defers to it)."""
    if documents is None:
        documents = _documents_of(package)
    graph = reference_graph(package)
    inventory = package.inventory
    top = inventory.top_folders()
    words = _pointer_words(top)
    slashed = tuple(f"{name}/" for name in top)  # what a _bare_folders match holds
    pointers: list[_Pointer] = []
    for source, text in graph.texts.items():
        doc = documents[source]
        offset, lines, fenced, refs = doc.offset, doc.lines, doc.fenced, doc.refs
        # 1. References to a folder: links, and paths in backticks or prose.
        linked = {(r.line, r.resolved) for r in refs if r.explicit and r.target_kind == "dir"}
        for ref in refs:
            if ref.status != "ok" or ref.target_kind != "dir" or ref.resolved is None:
                continue
            if not ref.explicit and (ref.line, ref.resolved) in linked:
                continue  # [`reference/examples/`](reference/examples/): one pointer, judged as the link
            if doc.is_generic(ref.line, ref.column - 1, ref.resolved, explicit=ref.explicit):
                message = _pointer_message(ref.path, ref.explicit)
                pointers.append(_Pointer(source, ref.line, ref.column, ref.end_column, message))
        if not top:
            continue  # 2 needs a folder of the package, 3 too (so words is empty)
        folder_lines = {r.line for r in refs if r.target_kind == "dir"}
        word_lines = _lines_with_words(text, words, offset) if words is not None else None
        for index, line in enumerate(lines):
            number = index + 1 + offset
            # Only a line holding `name/` for a folder of the package (2) or a word
            # naming one (3) can hold a pointer: cheap tests before any regex.
            slash = "/" in line and any(map(line.__contains__, slashed))
            named = word_lines is None or number in word_lines
            if not (slash or named) or number in fenced or number in folder_lines:
                continue
            masked = _mask_code(line)
            # 2. `references/` alone in prose ("see references/ for details").
            if slash:
                for match in _bare_folders(masked, top):
                    folder = match.group(1)
                    if doc.is_generic(number, match.start(), folder, explicit=False):
                        pointers.append(_Pointer(source, number, match.start() + 1, match.end() + 1, _pointer_message(folder, False)))
            # 3. Folders named in words ("check the references folder", "see the references").
            if not named or not _FOLDER_WORDS.search(masked):
                continue
            for match in _FOLDER_WORDS.finditer(masked):
                group = "word" if match.group("word") else "plural"
                folder = _folder_for_word(match.group(group), top)
                if folder is None or source.startswith(folder.rstrip("/") + "/"):
                    # A page inside reference/ saying "the MCP SDK documentation in the references"
                    # is not sending its reader to the folder it is read from: the word means
                    # references in general (the docs it cites), and a page names its siblings.
                    continue
                cue_required = match.group("cue").lower() in ("in", "from", "under")
                column = match.start(group)
                if doc.is_generic(number, column, folder, explicit=False, cue_required=cue_required, lead_required=False):
                    pointers.append(_Pointer(source, number, column + 1, match.end() + 1, _pointer_message(folder, False)))
    pointers.sort(key=lambda p: (p.source, p.line, p.column))
    return pointers


# The words _FOLDER_WORDS can match as a folder's name, lowercased.
_FOLDER_WORD_FORMS = (
    "reference", "references", "resource", "resources", "docs", "scripts", "templates", "examples", "assets", "workflows"
)


def _pointer_words(top: set[str]) -> tuple[str, ...] | None:
    """The lowercase words of _FOLDER_WORDS that name a folder of ``top`` (step 3 of
    _find_generic_pointers looks only at lines holding one), or None: look at every line.

    Exact for ASCII folder names: _folder_for_word lowercases the matched word, and only an
    ASCII word lowercases to an ASCII name (the one non-ASCII letter that lowercases to ASCII,
    the Kelvin sign, matches no letter of these words), so the word is one of these forms,
    written in some ASCII letter case."""
    if not all(name.isascii() for name in top):
        return None
    words = [word for word in _FOLDER_WORD_FORMS if _folder_for_word(word, top) is not None]
    # A line holding "references" holds "reference": look for the shorter alone.
    return tuple(word for word in words if not any(other != word and other in word for other in words))


def _lines_with_words(text: str, words: tuple[str, ...], offset: int) -> set[int]:
    """File lines of ``text`` holding one of ``words`` (lowercase ASCII) in any ASCII letter case."""
    if not words:
        return set()
    # bytes.lower() folds ASCII letters alone, fast, and keeps every "\n": a hit's line
    # number is the count of newlines before it.
    data = text.encode("utf-8", "replace").lower()
    hits: list[int] = []
    for word in words:
        needle = word.encode()
        at = data.find(needle)
        while at >= 0:
            hits.append(at)
            at = data.find(needle, at + 1)
    found: set[int] = set()
    number, counted = 1 + offset, 0
    for at in sorted(hits):
        number += data.count(b"\n", counted, at)
        counted = at
        found.add(number)
    return found


_BARE_FOLDER = lazyre.compile(r"(?<![\w/.`~$-])(?:\./)?([\w.-]+)/(?![\w/.-])")


def _bare_folders(masked: str, top: set[str]):
    """``references/`` written in prose (the graph keeps prose paths that name a file)."""
    if "/" not in masked:
        return
    for match in _BARE_FOLDER.finditer(masked):
        if match.group(1) in top:
            yield match


def _mask_code(line: str) -> str:
    """Blank out code spans and link destinations (keeping columns)."""
    if "`" in line:
        line = markdown.CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
    if "](" in line:
        # the matches of \]\([^)]*\): each "](" up to the first ")" after it
        closing = markdown.NextFind(line, ")")
        pieces, done = [], 0
        while (start := line.find("](", done)) >= 0 and (close := closing(start + 2)) >= 0:
            pieces += (line[done:start], " " * (close + 1 - start))
            done = close + 1
        line = "".join(pieces) + line[done:]
    return line


def _folder_for_word(word: str, top: set[str]) -> str | None:
    word = word.lower()
    for name in (word, word.rstrip("s"), word + "s" if not word.endswith("s") else word):
        for folder in top:
            if folder.lower() == name:
                return folder
    return None


# A folder noun right after the mention ("the `fonts` directory") or right before it
# ("the folder `fonts`"), with at most a closing mark or a word like "of" between.
_FOLDER_NOUN_AFTER = lazyre.compile(r"[`*_)\]]{0,3}[^\S\n]{1,3}(?:sub)?(?:director(?:y|ies)|folders?|dirs?)\b", re.IGNORECASE)


_FOLDER_NOUN_BEFORE = lazyre.compile(r"\b(?:sub)?(?:director(?:y|ies)|folders?|dirs?)(?:[^\S\n]{1,3}(?:of|at|named|called))?[^\S\n]{1,3}[`*_\[]{0,3}$", re.IGNORECASE)




def names_files_around(package: SkillPackage, memo: dict, ref) -> bool:
    doc = _documents(package, memo).get(ref.source)
    if doc is None or ref.resolved is None:
        return False
    line = doc.text(ref.line)
    opening = line.rfind("[", 0, max(ref.column - 1, 0))
    column = opening if opening >= 0 else ref.column - 1
    return doc.names_files(ref.line, column, ref.resolved, section=False)


def called_a_folder(package: SkillPackage, memo: dict, ref) -> bool:
    """Whether the text calls the mentioned path a folder: naming a folder as a folder is
    no promise of a file to read (an agent told to search a directory lists it)."""
    doc = _documents(package, memo).get(ref.source)
    if doc is None:
        return False
    line = doc.text(ref.line)
    before = line[max(ref.column - 1 - 40, 0) : max(ref.column - 1, 0)]
    after = line[max(ref.end_column - 1, 0) : ref.end_column - 1 + 40]
    return bool(_FOLDER_NOUN_AFTER.match(after) or _FOLDER_NOUN_BEFORE.search(before))
