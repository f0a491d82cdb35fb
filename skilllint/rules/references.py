"""SL3xx: references from SKILL.md and the Markdown files it references
(RULES.md SL301, SL302, SL305, SL306, SL307, SL311).

Every rule here reads the package's reference graph (:mod:`skilllint.references`):
links, images and reference definitions, and backtick or plain paths that start
with a folder of the package, from SKILL.md and every referenced Markdown file.
A finding in a referenced file points into that file and names how it was reached.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from typing import Iterator

from .. import lazyre, markdown
from ..diagnostics import Finding, Fix, Related, Severity, Span
from ..fsafe import UnsafeFile, read_capped
from ..package import SkillPackage
from ..registry import Rule, RuleContext, severities

MARKDOWN_DOCUMENTS = (".md", ".markdown", ".mdx")
_NOUN = {"link": "link", "image": "image", "definition": "link definition", "code": "path", "plain": "path"}


# -- shared helpers --------------------------------------------------------------


def _usable(package: SkillPackage) -> bool:
    return package.skill_md_name is not None and package.readable


def _where(package: SkillPackage, source: str) -> object:
    """The Finding path for a file of the package (None: SKILL.md, the default)."""
    return None if source == package.skill_md_name else package.root / source


def _span(ref) -> Span:
    return Span(ref.line, ref.column, ref.line, max(ref.end_column, ref.column))


def _first_reference_to(graph, source: str, target: str):
    for ref in graph.references:
        if ref.source == source and ref.resolved == target:
            return ref
    return None


def _reached_from(package: SkillPackage, source: str) -> tuple[Related, ...]:
    """For a finding in a referenced file: where that file is referenced from."""
    graph = package.references
    if source == package.skill_md_name or source not in graph.parents:
        return ()
    chain = graph.chain(source)
    parent = graph.parents[source]
    ref = _first_reference_to(graph, parent, source)
    if ref is None:
        return ()
    return (
        Related(
            f"`{source}` is loaded from here ({' -> '.join(chain)})",
            package.root / parent if parent != package.skill_md_name else package.skill_md_path,
            _span(ref),
        ),
    )


def _written(ref) -> str:
    """How the reference names its target, with the resolved package path when they differ."""
    shown = ref.path
    resolved = ref.resolved
    if resolved and posixpath.normpath(resolved) != posixpath.normpath(ref.path):
        return f"`{shown}` (`{resolved}` in the skill)"
    return f"`{shown}`"


def _suggest(package: SkillPackage, path: str) -> str | None:
    """A file of the package the author may have meant."""
    files = [e.rel for e in package.inventory.files()]
    base = posixpath.basename(path)
    same_name = [f for f in files if posixpath.basename(f) == base and f != path]
    if len(same_name) == 1:
        return same_name[0]
    close = difflib.get_close_matches(path, files, n=1, cutoff=0.85)
    return close[0] if close else None


# -- fixes: point a broken reference at the one file meant --------------------------------


def _located_text(package: SkillPackage, source: str):
    """(path, LineIndex) of a scanned file, when its positions count as the
    reference graph's do; else None."""
    from ..fixes import LineIndex

    if source == package.skill_md_name:
        if not package.readable or package.truncated or package.decode_problem is not None:
            return None
        return package.skill_md_path, LineIndex(package.raw.decode("utf-8"))
    path = package.root / source
    try:
        result = read_capped(path, package.max_bytes)
        text = result.data.decode("utf-8")
    except (UnsafeFile, UnicodeDecodeError):
        return None
    # The graph reads other files with a BOM kept and only CRLF as a break.
    if result.truncated or text.startswith("\ufeff") or re.search("\r(?!\n)", text):
        return None
    return path, LineIndex(text)


def _retarget(package: SkillPackage, ref, new_path: str) -> Fix | None:
    """The unsafe fix writing ``new_path`` where ``ref`` names its target."""
    from ..fixes import edit

    raw = ref.raw
    at = raw.find(ref.path)
    if "%" in raw or "\\" in raw or at < 0 or raw[at + len(ref.path) :][:1] not in ("", "#", "?"):
        return None  # percent-encoded or unusual: rewriting it is not obviously right
    located = _located_text(package, ref.source)
    if located is None:
        return None
    path, index = located
    start = index.offset(ref.line, ref.column) + at
    if index.text[start : start + len(ref.path)] != ref.path:
        return None
    item = edit(path, index, start, start + len(ref.path), new_path)
    return Fix(f"point the {_NOUN[ref.kind]} at `{new_path}`", "unsafe", (item,))


def _bases(ref) -> list[str]:
    """The folders a reference resolves from, as the graph tries them."""
    here = posixpath.dirname(ref.source)
    return [here] if ref.explicit else list(dict.fromkeys(["", here]))


def _case_fixed_path(package: SkillPackage, ref) -> str | None:
    """``ref.path`` with each segment cased as the one entry it matches (SL305)."""
    real = ref.case_match
    entry = package.inventory.entries.get(real)
    if entry is None or entry.kind != "file":
        return None
    variants = None
    for base in [posixpath.dirname(ref.source), ""]:
        found = package.inventory.case_variants(posixpath.join(base, ref.path) if base else ref.path)
        if real in found:
            variants = found
            break
    if variants is None or len(variants) != 1:
        return None  # several files differ only in case: which one is meant is a guess
    segments = ref.path.split("/")
    lead = []
    while segments and segments[0] == ".":
        lead.append(segments.pop(0))
    real_segments = real.split("/")
    if not segments or any(s in ("", ".", "..") for s in segments) or len(real_segments) < len(segments):
        return None
    tail = real_segments[-len(segments) :]
    if [s.casefold() for s in tail] != [s.casefold() for s in segments]:
        return None
    return "/".join(lead + tail)


def _folder_fixed_path(package: SkillPackage, ref) -> str | None:
    """``ref.path`` with `reference/` and `references/` swapped, when that names a file (SL301)."""
    segments = ref.path.split("/")
    swaps = [i for i, s in enumerate(segments) if s in ("reference", "references")]
    if len(swaps) != 1:
        return None
    segments[swaps[0]] = "references" if segments[swaps[0]] == "reference" else "reference"
    candidate = "/".join(segments)
    found = set()
    for base in _bases(ref):
        status, real = package.inventory.resolve(posixpath.join(base, candidate) if base else candidate)
        entry = package.inventory.entries.get(real) if status == "ok" and real else None
        if entry is not None and entry.kind == "file":
            found.add(real)
    return candidate if len(found) == 1 else None


# -- SL301 / SL305 ----------------------------------------------------------------


class ReferenceMissing(Rule):
    code = "SL301"
    name = "reference-missing"
    summary = "A referenced file does not exist in the skill package"
    # skills-ref's verdict ignores references (SURFACES.md §1b): a warning there keeps its verdict exact.
    severity = severities("error: all; warning: skills-ref")
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        if package.inventory.truncated:
            return  # the listing is partial: absence proves nothing
        for ref in package.references.references:
            if ref.status != "missing" or ref.case_match:
                continue
            noun = _NOUN[ref.kind]
            message = f"{noun} {_written(ref)} does not exist in the skill package"
            guess = _suggest(package, ref.resolved or ref.path)
            if guess:
                message += f"; did you mean `{guess}`?"
            levels = None if ref.explicit else {t: Severity.WARNING for t in ctx.target_ids}
            fixed = _folder_fixed_path(package, ref)
            yield Finding(
                message,
                _span(ref),
                path=_where(package, ref.source),
                severities=levels,
                fix=_retarget(package, ref, fixed) if fixed else None,
                related=_reached_from(package, ref.source),
            )


class ReferenceCaseMismatch(Rule):
    code = "SL305"
    name = "reference-case-mismatch"
    summary = "A referenced file exists only with different letter case"
    severity = severities("error: all; warning: skills-ref")
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for ref in package.references.references:
            if ref.status != "missing" or not ref.case_match:
                continue
            real = ref.case_match
            kind = package.inventory.entries.get(real)
            what = "folder" if kind is not None and kind.kind == "dir" else "file"
            message = (
                f"{_NOUN[ref.kind]} `{ref.path}` matches the {what} `{real}` only ignoring letter case: "
                "it works on macOS and Windows but not on Linux, whose file names are case-sensitive"
            )
            related = [Related(f"the {what} is named `{real}`", package.root / real, Span.point(1))]
            related.extend(_reached_from(package, ref.source))
            fixed = _case_fixed_path(package, ref)
            yield Finding(
                message,
                _span(ref),
                path=_where(package, ref.source),
                fix=_retarget(package, ref, fixed) if fixed else None,
                related=tuple(related),
            )


# -- SL302 --------------------------------------------------------------------------


class ReferenceOutsidePackage(Rule):
    code = "SL302"
    name = "reference-outside-package"
    summary = "A reference leads outside the skill folder"
    severity = severities("error: all; warning: skills-ref")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for ref in package.references.references:
            if ref.status != "outside":
                continue
            yield Finding(
                _outside_message(package, ref),
                _span(ref),
                path=_where(package, ref.source),
                related=_reached_from(package, ref.source),
            )


def _outside_message(package: SkillPackage, ref) -> str:
    noun = _NOUN[ref.kind]
    path = ref.path
    if path.startswith("~"):
        return (
            f"{noun} `{path}` is a path in the user's home folder, not in the skill: "
            "the file is not shipped with the skill, so the reference breaks wherever it is installed"
        )
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path):
        return (
            f"{noun} `{path}` is an absolute path: it names a file on one machine, outside the skill folder, "
            "so the reference breaks when the skill is installed anywhere else"
        )
    joined = posixpath.join(posixpath.dirname(ref.source), path) if ref.explicit else path
    parts: list[str] = []
    climbed = 0
    for part in joined.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            else:
                climbed += 1
            continue
        parts.append(part)
    if climbed == 0:
        return (
            f"{noun} `{path}` resolves outside the skill folder through a symbolic link: "
            "the file is not part of the skill, so the reference breaks when the skill is installed alone"
        )
    target = "/".join(parts) or "."
    ancestors = [p for p in package.root.parts[:-1] if p not in ("/", "")]
    holder = ancestors[-climbed] if len(ancestors) >= climbed else None
    if climbed == 1:
        where = f"in `{holder}/` (the folder that holds the skill)" if holder else "beside the skill folder"
    else:
        where = f"in `{holder}/` ({climbed} levels above the skill folder)" if holder else f"{climbed} levels above the skill folder"
    return (
        f"{noun} `{path}` leaves the skill folder for `{target}` {where}: that file is not part of the skill, "
        "so the reference breaks when the skill is installed alone"
    )


# -- SL306 / SL311 ------------------------------------------------------------------


class ReferenceIsDirectory(Rule):
    code = "SL306"
    name = "reference-is-directory"
    summary = "A reference names a folder, not a file"
    severity = severities("warning: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        generic = {(f.source, f.line, f.column) for f in _generic_pointers(package, ctx)}
        for ref in package.references.references:
            if ref.status != "ok" or ref.target_kind != "dir":
                continue
            if (ref.source, ref.line, ref.column) in generic:
                continue  # SL311 over SL306
            if not ref.explicit and ref.raw.endswith("/"):
                continue  # `references/` written as a folder is a mention of the folder (SL311 judges pointers)
            if _names_files_around(package, ref):
                continue  # "the templates under [templates/](templates/): [a.md](templates/a.md), …"
            noun = _NOUN[ref.kind]
            count = _files_below(package, ref.resolved)
            yield Finding(
                f"{noun} {_written(ref)} is a folder, not a file ({count} file{'s' if count != 1 else ''} in it): "
                "an agent cannot read a folder; link the file it should load",
                _span(ref),
                path=_where(package, ref.source),
                related=_reached_from(package, ref.source),
            )


def _names_files_around(package: SkillPackage, ref) -> bool:
    graph = package.references
    text = graph.texts.get(ref.source)
    if text is None or ref.resolved is None:
        return False
    offset = package.body_start_line if ref.source == package.skill_md_name else 0
    lines = text.split("\n")
    refs = graph.from_file(ref.source)
    doc = _Document(lines, offset, graph.fenced[ref.source], refs, package.inventory)
    line = doc.text(ref.line)
    opening = line.rfind("[", 0, max(ref.column - 1, 0))
    column = opening if opening >= 0 else ref.column - 1
    return doc.names_files(ref.line, column, ref.resolved, section=False)


def _files_below(package: SkillPackage, folder: str | None) -> int:
    if folder is None:
        return 0
    prefix = "" if folder == "." else folder + "/"
    return sum(1 for e in package.inventory.files() if e.rel.startswith(prefix))


class GenericReferencePointer(Rule):
    code = "SL311"
    name = "generic-reference-pointer"
    summary = "A pointer to a folder or to 'the references' that names no file"
    severity = severities("warning: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for pointer in _generic_pointers(package, ctx):
            yield Finding(
                pointer.message,
                Span(pointer.line, pointer.column, pointer.line, pointer.end_column),
                path=_where(package, pointer.source),
                related=_reached_from(package, pointer.source),
            )


class _Pointer:
    __slots__ = ("source", "line", "column", "end_column", "message")

    def __init__(self, source: str, line: int, column: int, end_column: int, message: str):
        self.source, self.line, self.column, self.end_column, self.message = source, line, column, end_column, message


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
# "check the references folder", "read the files in the scripts directory": a pointer with no path at all.
_FOLDER_WORDS = lazyre.compile(
    r"\b(?P<cue>see|read|load|consult|check|refer to|look (?:in|at|into|through)|browse|open|in|from|under)"
    r"\s+(?:(?:all|any|each|one) (?:of )?)?(?:the )?(?:files in the |documents in the )?(?:bundled |included |relevant )?"
    r"(?:(?P<word>references?|resources?|docs|scripts|templates|examples|assets|workflows)\s+(?:folder|directory|dir)\b"
    r"|(?<=the )(?P<plural>references)\b(?!\s+(?:folder|directory|dir)\b|/))",
    re.IGNORECASE,
)
_SENTENCE_END = lazyre.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[(_\"'])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
_BLOCK_START = lazyre.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|)")
_LIST_OR_TABLE = lazyre.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\|)")
_HEADING = lazyre.compile(r"^\s{0,3}#{1,6}\s")
_RULE = lazyre.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_BACKTICK = lazyre.compile(r"`([^`\n]+)`")
_DESTINATION_END = lazyre.compile(r"[)\s]")
_FILE_NAME = lazyre.compile(r"^[\w./-]*\w\.[A-Za-z0-9]{1,8}$")


def _generic_pointers(package: SkillPackage, ctx: RuleContext) -> list[_Pointer]:
    memo = ctx.memo
    key = "references.generic-pointers"
    if key not in memo:
        memo[key] = _find_generic_pointers(package) if _usable(package) else []
    return memo[key]


_POINTER_ADVICE = "the agent must list the folder and guess which file to load; name each file and say when to read it"


def _pointer_message(folder: str, explicit: bool) -> str:
    shown = folder if folder.endswith("/") else folder + "/"
    verb = "links to" if explicit else "points to"
    return f"this sentence {verb} the folder `{shown}` without naming a file in it: {_POINTER_ADVICE}"


def _find_generic_pointers(package: SkillPackage) -> list[_Pointer]:
    """Every generic pointer in SKILL.md and the Markdown files it references (SL311; SL306 defers to it)."""
    graph = package.references
    inventory = package.inventory
    top = inventory.top_folders()
    by_source: dict[str, list] = {}
    for ref in graph.references:
        by_source.setdefault(ref.source, []).append(ref)
    words = _pointer_words(top)
    slashed = tuple(f"{name}/" for name in top)  # what a _bare_folders match holds
    pointers: list[_Pointer] = []
    for source, text in graph.texts.items():
        offset = package.body_start_line if source == package.skill_md_name else 0
        lines = text.split("\n")
        fenced = graph.fenced[source]
        refs = by_source.get(source, [])
        doc = _Document(lines, offset, fenced, refs, inventory)
        # 1. References to a folder: links, and paths in backticks or prose.
        for ref in refs:
            if ref.status != "ok" or ref.target_kind != "dir" or ref.resolved is None:
                continue
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
                if folder is None:
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
        line = _BACKTICK.sub(lambda m: " " * len(m.group(0)), line)
    if "](" in line:
        # the matches of \]\([^)]*\): each "](" up to the first ")" after it
        closing = markdown.NextFind(line, ")")
        pieces, done = [], 0
        while (start := line.find("](", done)) >= 0 and (close := closing(start + 2)) >= 0:
            pieces += (line[done:start], " " * (close + 1 - start))
            done = close + 1
        line = "".join(pieces) + line[done:]
    return line


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


def _folder_for_word(word: str, top: set[str]) -> str | None:
    word = word.lower()
    for name in (word, word.rstrip("s"), word + "s" if not word.endswith("s") else word):
        for folder in top:
            if folder.lower() == name:
                return folder
    return None


class _Document:
    """One scanned Markdown file, for judging the sentence around a folder mention."""

    def __init__(self, lines: list[str], offset: int, fenced: set[int], refs: list, inventory):
        self.lines = lines
        self.offset = offset
        self.fenced = fenced
        self.refs = refs
        self.inventory = inventory
        self._names: dict[str, set[str]] = {}

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
        sentence_start, sentence_end = self._sentence(context, start)
        sentence = context[sentence_start:sentence_end]
        if lead_required and not _LEAD_IN.search(_LEAD_TAIL.sub("", context[sentence_start:start])):
            return False
        if _NOT_POINTER.search(_strip_code(context[sentence_start:start])):
            return False
        plain = _strip_code(sentence)
        directive = bool(_DIRECTIVES.search(plain)) or not cue_required
        if not directive and not _LOCATIONS.search(plain):
            return False
        if self.names_files(number, column, folder, section=True):
            return False
        # "Reference files are located at `references/`" with the files named further on: an overview;
        # "read the relevant one in `references/`" after a list mapping situations to its files: a reminder.
        return not self._document_names_file(folder, before=number if directive else None)

    def names_files(self, number: int, column: int, folder: str, section: bool) -> bool:
        """Whether files in ``folder`` are named around the mention: in its sentence,
        in a list or table right after it, or (``section``) anywhere in its section."""
        context, start, _, first, last = self._context(number, column)
        if context is None:
            return True
        sentence_start, sentence_end = self._sentence(context, start)
        if self._names_file(context, sentence_start, sentence_end, first, last, folder):
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
            cells = _cells(line)
            for cell_start, cell_end in cells:
                if cell_start <= column < cell_end:
                    cell = line[cell_start:cell_end]
                    core = _strip_code(cell).strip()
                    core = _without_links(core).strip(" *_")
                    if not core:  # the cell is just the mention: the row is the context
                        return line, column, column, number, number
                    return cell, column - cell_start, column - cell_start, number, number
            return line, column, column, number, number
        first = last = number
        while True:
            previous = first - 1
            if previous - 1 - self.offset < 0 or previous in self.fenced:
                break
            text = self.text(previous)
            if not text.strip() or _BLOCK_START.match(self.text(first)) or _HEADING.match(text) or text.lstrip().startswith("|"):
                break
            first = previous
        while True:
            following = last + 1
            if following - 1 - self.offset >= len(self.lines) or following in self.fenced:
                break
            text = self.text(following)
            if not text.strip() or _BLOCK_START.match(text):
                break
            last = following
        parts = []
        start = 0
        for n in range(first, last + 1):
            raw = self.text(n)
            stripped = raw.strip()
            if n == number:
                start = sum(len(p) + 1 for p in parts) + max(0, column - (len(raw) - len(raw.lstrip())))
            parts.append(stripped)
        return " ".join(parts), start, start, first, last

    @staticmethod
    def _sentence(context: str, position: int) -> tuple[int, int]:
        start, end = 0, len(context)
        for match in _SENTENCE_END.finditer(context):
            if context[: match.start()].endswith(_ABBREVIATIONS):
                continue
            if match.start() < position:
                start = match.end()
            else:
                end = match.start()
                break
        return start, end

    def _names_file(self, context: str, start: int, end: int, first: int, last: int, folder: str) -> bool:
        """Whether the sentence names a file in ``folder`` (a reference or a bare file name found there)."""
        sentence = context[start:end]
        for ref in self.refs:
            if first <= ref.line <= last and self._under(ref, folder) and _mentioned_in(ref, sentence):
                return True
        return self._bare_names(sentence, folder)

    def _followed_by_files(self, context: str, sentence_end: int, first: int, last: int, folder: str) -> bool:
        """Whether a list or table right after the block names files in ``folder``
        (\"The `references/` folder contains:\" followed by the files)."""
        block = self.text(first)
        if _LIST_OR_TABLE.match(block) and (context[sentence_end:].strip() or not context.rstrip(" *_").endswith(":")):
            return False  # a list item pointing somewhere: its siblings are not its files
        number = last + 1
        total = len(self.lines) + self.offset
        seen_item = False
        while number <= total:
            text = self.text(number)
            if number in self.fenced:
                break
            if not text.strip() or (not seen_item and (_HEADING.match(text) or _RULE.match(text))):
                number += 1  # "… lives in `references/`." then "## References" and the table of files
                continue
            if _HEADING.match(text):
                break
            is_item = bool(_LIST_OR_TABLE.match(text)) or (seen_item and text.startswith((" ", "\t")))
            if not is_item:
                break
            seen_item = True
            for ref in self.refs:
                if ref.line == number and self._under(ref, folder):
                    return True
            if self._bare_names(text, folder):
                return True
            number += 1
        return False

    def _section_names_file(self, number: int, folder: str) -> bool:
        """Whether the section holding line ``number`` (heading to heading) names a file in ``folder``."""
        top, bottom = self.offset + 1, self.offset + len(self.lines)
        for n in range(number - 1, self.offset, -1):
            if n not in self.fenced and _HEADING.match(self.text(n)):
                top = n
                break
        for n in range(number + 1, self.offset + len(self.lines) + 1):
            if n not in self.fenced and _HEADING.match(self.text(n)):
                bottom = n - 1
                break
        for ref in self.refs:
            if top <= ref.line <= bottom and self._under(ref, folder):
                return True
        return any(n not in self.fenced and self._bare_names(self.text(n), folder) for n in range(top, bottom + 1))

    def _document_names_file(self, folder: str, before: int | None = None) -> bool:
        """Whether the document names a file in ``folder`` (only on lines before ``before`` when given)."""
        end = self.offset + len(self.lines) if before is None else before - 1
        if any(self._under(ref, folder) and ref.line <= end for ref in self.refs):
            return True
        return any(n not in self.fenced and self._bare_names(self.text(n), folder) for n in range(self.offset + 1, end + 1))

    @staticmethod
    def _under(ref, folder: str) -> bool:
        """Whether ``ref`` names a file in ``folder`` (a missing file counts: it is named, SL301 reports it)."""
        if ref.target_kind != "file" and ref.status != "missing":
            return False
        target = ref.resolved or ref.path
        return folder in (".", "") or target.startswith(folder.rstrip("/") + "/")

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
            for match in _BACKTICK.finditer(text):
                token = match.group(1).strip()
                if _FILE_NAME.match(token) and (token in names or posixpath.basename(token) in names):
                    return True
        if "](" in text:
            for _, _, start, end in _bracket_links(text, _DESTINATION_END.compiled(), filled=True):
                if posixpath.basename(text[start:end]) in names:
                    return True
        return False


def _without_links(text: str) -> str:
    r"""``text`` without its ``[text](destination)`` links (the matches of \[[^\]]*\]\([^)]*\))."""
    pieces, done = [], 0
    for start, end, _, _ in _bracket_links(text, ")", filled=False):
        pieces.append(text[done:start])
        done = end
    return "".join(pieces) + text[done:]


def _cells(line: str) -> list[tuple[int, int]]:
    """(start, end) columns of each cell of a table row, ignoring pipes in code."""
    masked = _BACKTICK.sub(lambda m: " " * len(m.group(0)), line).replace("\\|", "  ")
    bounds = [i for i, c in enumerate(masked) if c == "|"]
    return [(a + 1, b) for a, b in zip(bounds, bounds[1:])] or [(0, len(line))]


def _strip_code(text: str) -> str:
    return _BACKTICK.sub(" ", text)


def _mentioned_in(ref, sentence: str) -> bool:
    return ref.raw in sentence


# -- SL307 --------------------------------------------------------------------------


class AnchorMissing(Rule):
    code = "SL307"
    name = "anchor-missing"
    summary = "A `#anchor` names no heading of the target document"
    severity = severities("warning: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        anchors: dict[str, tuple[dict[str, markdown.Heading], set[str]] | None] = {}
        for ref in package.references.references:
            fragment = ref.fragment
            if not fragment or ref.status != "ok" or ref.target_kind != "file" or ref.resolved is None:
                continue
            target = ref.resolved
            if not target.lower().endswith(MARKDOWN_DOCUMENTS) or _LINE_ANCHOR.match(fragment):
                continue
            if target not in anchors:
                anchors[target] = _anchors_of(package, target)
            known = anchors[target]
            if known is None:
                continue
            headings, html = known
            wanted = fragment.removeprefix("user-content-")
            if wanted in headings or wanted in html or wanted.lower() in {a.lower() for a in (*headings, *html)}:
                continue
            where = "this file" if target == ref.source else f"`{target}`"
            message = f"`#{fragment}`: no heading of {where} produces this anchor"
            related: list[Related] = []
            close = _closest_anchor(wanted.lower(), list(headings))
            target_path = package.skill_md_path if target == package.skill_md_name else package.root / target
            if close:
                heading = headings[close[0]]
                message += f"; did you mean `#{close[0]}`?"
                related.append(Related(f"the heading '{heading.text}' has the anchor `#{close[0]}`", target_path, Span.point(heading.line)))
            elif not headings and not html:
                message += " (it has no headings)"
            related.extend(_reached_from(package, ref.source))
            yield Finding(message, _span(ref), path=_where(package, ref.source), related=tuple(related))


def _closest_anchor(wanted: str, anchors: list[str]) -> list[str]:
    """The heading anchor the author probably meant: a close spelling, else the one
    sharing the longest start (at least 4 characters: `#auth` for `#authentication`)."""
    close = difflib.get_close_matches(wanted, anchors, n=1, cutoff=0.6)
    if close:
        return close
    def shared(anchor: str) -> int:
        n = 0
        for a, b in zip(anchor, wanted):
            if a != b:
                break
            n += 1
        return n
    best = max(anchors, key=shared, default=None)
    if best is None or shared(best) < 4 or sum(1 for a in anchors if shared(a) == shared(best)) > 1:
        return []
    return [best]


_ID_NAME = lazyre.compile(r"[^\s}]+")
_ID_TAIL = lazyre.compile(r"\s*(?:#+\s*)?")
_LINE_ANCHOR = lazyre.compile(r"^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$")
# An id or name attribute of an HTML tag. The tag's text stops at the next tag's start
# (<(?![A-Za-z])): that tag's own search finds the same attribute, where a scan from each of
# many tags with no ">" would run to the end of the line.
_HTML_ANCHOR = lazyre.compile(
    r"<[A-Za-z](?:[^<>]|<(?![A-Za-z]))*?\s(?:id|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE
)


def _heading_id(line: str) -> str | None:
    r"""The id of a heading's ``{#id}`` attribute: group 1 of ``\{#([^\s}]+)[^}]*\}\s*#*\s*$``.
    Only the line's last "}" can close it, and the "{#" that opens it comes after the "}"
    before: found with two rfinds, where that regex scans from every "{#" to a "}"."""
    close = line.rfind("}")
    if close < 0 or _ID_TAIL.fullmatch(line, close + 1) is None:
        return None
    start = line.find("{#", line.rfind("}", 0, close) + 1)
    while 0 <= start < close:
        name = _ID_NAME.match(line, start + 2, close)
        if name is not None:
            return name.group()
        start = line.find("{#", start + 1)
    return None


def _anchors_of(package: SkillPackage, target: str):
    """Heading anchors (GitHub slugs, -1/-2 for duplicates) and HTML ids/names of a document."""
    graph = package.references
    if target == package.skill_md_name:
        text, offset = package.body, package.body_start_line
    elif target in graph.texts:
        text, offset = graph.texts[target], 0
    else:
        try:
            data = read_capped(package.root / target, package.max_bytes).data
        except UnsafeFile:
            return None
        if b"\x00" in data[:8192]:
            return None
        text, offset = data.decode("utf-8", errors="replace").replace("\r\n", "\n"), 0
    found, code = markdown.scan_headings(text, offset)
    headings: dict[str, markdown.Heading] = {}
    for heading in found:
        headings.setdefault(heading.anchor, heading)
    html: set[str] = set()
    for number, line in enumerate(text.split("\n"), start=1 + offset):
        if number in code:
            continue
        if "{#" in line:  # `## Title {#id}`: an explicit heading id (Pandoc, kramdown, MkDocs attr_list)
            attribute = _heading_id(line)
            if attribute:
                html.add(attribute)
        if "=" not in line:
            continue
        for match in _HTML_ANCHOR.finditer(line):
            html.add(next(g for g in match.groups() if g is not None))
    return headings, html


RULES = [
    ReferenceMissing,
    ReferenceOutsidePackage,
    ReferenceCaseMismatch,
    ReferenceIsDirectory,
    AnchorMissing,
    GenericReferencePointer,
]
