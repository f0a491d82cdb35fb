"""The reference graph of a skill package (SL3xx).

A *reference* is a local target named by SKILL.md or by a Markdown file it
references: a Markdown link, image or reference definition, or a path in
backticks or in plain prose that starts with a folder existing in the package
(``references/``, ``scripts/``, ``assets/`` …). Fenced code, URLs and
placeholders are not references. Markdown links resolve from their own file;
backtick and plain paths from the skill root, then from the file's folder.

Existence is judged on the package inventory (:mod:`skilllint.skill.inventory`),
so resolution never follows a link out of the package, and files are read
only through :func:`skilllint.fsafe.read_capped`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote

from ..text import markdown
from ... import lazyre
from ..text.passages import Passages, teaches_writing_skills
from ...fsafe import UnsafeFile, read_capped
from ..inventory import is_document

MAX_SCANNED_FILES = 200  # referenced Markdown files scanned per package
# References kept per package. Each costs a few hundred bytes and every SL3xx rule walks them
# all: without a bound, files full of links (48,000 in a megabyte) cost memory and time in
# proportion to their number. Real skills hold a few hundred; the scan stops at this many.
MAX_REFERENCES = 100_000
_SCHEME = lazyre.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
WINDOWS_DRIVE = lazyre.compile(r"^[A-Za-z]:[\\/]")  # C:/Users/… is a path, not a scheme
# Characters and words that make a path an illustration, not a file the author shipped.
_PLACEHOLDER_CHARS = lazyre.compile(r"[<>{}$*?\[\]|…]|\.\.\.")
_NUMBERED_PLACEHOLDER = lazyre.compile(r"[a-z][-_]?[NXY]$")
_PLACEHOLDER_STEMS = frozenset(
    {"filename", "file", "name", "path", "your-file", "your-reference", "xxx", "foo", "bar", "example-file", "something"}
)


@dataclass(frozen=True, eq=False, repr=False)
class Reference:
    source: str  # package-relative posix path of the mentioning file
    line: int  # 1-based position of the mention in that file
    column: int
    end_column: int
    raw: str  # as written
    kind: str  # link | image | definition | code | plain
    path: str  # decoded, fragment and query removed
    fragment: str | None
    status: str  # ok | missing | outside | loop
    resolved: str | None  # package-relative real path when status is ok
    target_kind: str | None  # file | dir | … when ok
    case_match: str | None = None  # an entry equal to the target ignoring case (missing only)

    @property
    def explicit(self) -> bool:
        """A Markdown link, image or definition (as opposed to a mentioned path)."""
        return self.kind in ("link", "image", "definition")


@dataclass(eq=False, repr=False)
class ReferenceGraph:
    references: list[Reference] = field(default_factory=list)
    scanned: dict[str, int] = field(default_factory=dict)  # file -> depth (SKILL.md is 0)
    parents: dict[str, str] = field(default_factory=dict)  # file -> the file that first referenced it
    texts: dict[str, str] = field(default_factory=dict)  # scanned file -> its text
    # scanned file -> its file lines inside fenced code (markdown.fenced_lines), found once
    # here for every rule that skips code
    fenced: dict[str, set[int]] = field(default_factory=dict)
    # Where the scan stopped at MAX_REFERENCES: (file, its first line not checked), else None;
    # and how many referenced files were not scanned at all because of it.
    cut: tuple[str, int] | None = None
    unscanned: int = 0
    # Indexes over `references`, built on first use (rules ask per finding; a file can hold thousands)
    _by_source: dict[str, list[Reference]] | None = field(default=None, repr=False, compare=False)
    _first_to: dict[tuple[str, str], Reference] | None = field(default=None, repr=False, compare=False)

    def from_file(self, source: str) -> list[Reference]:
        if self._by_source is None:
            by_source: dict[str, list[Reference]] = {}
            for reference in self.references:
                by_source.setdefault(reference.source, []).append(reference)
            self._by_source = by_source
        return self._by_source.get(source, [])

    def first_reference_to(self, source: str, target: str) -> Reference | None:
        """The first reference in ``source`` that resolves to ``target``."""
        if self._first_to is None:
            first: dict[tuple[str, str], Reference] = {}
            for reference in self.references:
                if reference.resolved is not None:
                    first.setdefault((reference.source, reference.resolved), reference)
            self._first_to = first
        return self._first_to.get((source, target))

    def truncation_warning(self, root) -> str | None:
        """What the user must be told when the scan stopped at MAX_REFERENCES (None when whole)."""
        if self.cut is None:
            return None
        source, line = self.cut
        more = f" and {self.unscanned:,} more referenced file{'s' if self.unscanned != 1 else ''}" if self.unscanned else ""
        return (
            f"{root}: more than {MAX_REFERENCES:,} references; the scan stopped at {MAX_REFERENCES:,}, so "
            f"`{source}` from line {line:,}{more} were not checked, and the unreferenced-file check (SL304) "
            "is skipped"
        )

    def chain(self, target: str) -> list[str]:
        """SKILL.md -> … -> target, following first references."""
        path = [target]
        while path[-1] in self.parents and len(path) < 50:
            path.append(self.parents[path[-1]])
        return list(reversed(path))


def is_placeholder(path: str) -> bool:
    """An illustrative path (``references/<topic>.md``, ``references/filename.md``, globs)."""
    if _PLACEHOLDER_CHARS.search(path):
        return True
    stem = posixpath.splitext(posixpath.basename(path.rstrip("/")))[0]
    if _NUMBERED_PLACEHOLDER.search(stem):
        return True  # phaseN.md, stepX.md: a family of files, not one
    stem = stem.lower()
    return stem in _PLACEHOLDER_STEMS or stem.startswith(("your-", "your_", "my-"))




# The folders the spec names for a skill's own files (and `resources/`, which skills use alike). A
# path into one is read as the skill's even when the folder is absent: `references/playbook.md`
# cited by a skill that ships no references/ is missing, not prose about the user's project. Only
# file paths count there (`scripts/run.py`, not `assets/` or `resources/list`), since a bare folder
# or an extensionless word is as often the user's project or an API method as the skill's.
SKILL_FOLDERS = frozenset({"references", "reference", "resources", "scripts", "assets"})


def reference_graph(package) -> ReferenceGraph:
    """The reference graph of ``package`` (a :class:`skilllint.skill.package.SkillPackage`): SKILL.md
    and the Markdown files it references, built once per package (:meth:`SkillPackage.once`)."""
    return package.once(build)


def build(package) -> ReferenceGraph:
    """The reference graph of ``package``, built anew (:func:`reference_graph` keeps it)."""
    graph = ReferenceGraph()
    inventory = package.inventory
    present = inventory.top_folders()
    top = present | SKILL_FOLDERS
    absent = tuple(f"{name}/" for name in SKILL_FOLDERS - present) + tuple(f"./{name}/" for name in SKILL_FOLDERS - present)
    teaches = teaches_writing_skills(package)
    skill_md = package.skill_md_name or "SKILL.md"
    graph.scanned[skill_md] = 0
    graph.texts[skill_md] = package.body
    # (file, its text or None: read it when its turn comes, line offset, depth)
    queue: list[tuple[str, str | None, int, int]] = [(skill_md, package.body, package.body_start_line, 0)]
    while queue:
        source, text, offset, depth = queue.pop(0)
        if text is None:
            text = _read(package, source)
            if text is None:
                continue
            graph.texts[source] = text
        # One split and one search for fence markers, shared by the scans below.
        lines = text.split("\n")
        candidates = markdown.fence_candidates(text, offset)
        fenced = graph.fenced[source] = markdown.fenced_lines_in(text, offset, candidates)
        links = markdown.links_outside(lines, fenced, offset)
        # A line either reading calls code is skipped: CommonMark's, and what only looks like a fence.
        skipped = fenced | markdown.fence_like_lines(text, offset, candidates)
        found = _extract(source, lines, offset, links, skipped, top, inventory, absent, teaches)
        room = MAX_REFERENCES - len(graph.references)
        if len(found) > room:
            found.sort(key=lambda r: (r.line, r.column))  # keep what comes first in the file
            graph.cut = (source, found[room].line)
            del found[room:]
        for reference in found:
            graph.references.append(reference)
            target = reference.resolved
            if (
                reference.status != "ok"
                or reference.target_kind != "file"
                or target is None
                or not is_document(target)
                or target in graph.scanned
                or len(graph.scanned) >= MAX_SCANNED_FILES
                or inventory.in_nested_skill(target)
            ):
                continue
            graph.scanned[target] = depth + 1
            graph.parents[target] = source
            queue.append((target, None, 0, depth + 1))
        if graph.cut is not None:
            graph.unscanned = len(queue)  # never read
            break
    return graph


def _read(package, rel: str) -> str | None:
    try:
        data = read_capped(package.root / rel, package.max_bytes).data
    except UnsafeFile:
        return None
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def _extract(
    source: str,
    lines: list[str],
    offset: int,
    links: list,
    code: set[int],
    top: set[str],
    inventory,
    absent: tuple[str, ...] = (),
    teaches: bool = False,
) -> list[Reference]:
    """Every reference written in one Markdown text, given as its lines (offset: file line of
    its first line, 0-based), its links (:func:`markdown.links_outside`) and the file lines
    to skip as code. ``absent``: prefixes of skill folders the package lacks, where only file
    paths count; ``teaches``: the skill teaches writing skills (:mod:`skilllint.skill.text.passages`).
    A mentioned path that names no file is kept only when its passage offers it as the
    skill's own (:class:`skilllint.skill.text.passages.Passages`)."""
    found: list[Reference] = []
    passages = Passages(lines, offset, code, teaches)
    base = posixpath.dirname(source)
    for link in links:
        if link.kind == "autolink" or not link.target or (_SCHEME.match(link.target) and not WINDOWS_DRIVE.match(link.target)):
            continue
        raw = link.target
        path, fragment = _split_target(unquote(raw))
        rooted = _strip_root_variable(path)
        if rooted is not None:  # `{baseDir}/references/x.md`: the skill's own folder
            if not is_placeholder(rooted):
                found.append(_make(source, link.line, link.column, raw, link.kind, rooted, fragment, inventory, bases=[""]))
            continue
        if not path:
            if fragment is not None:  # `#anchor` in the same file
                found.append(_make(source, link.line, link.column, raw, link.kind, source, fragment, inventory, bases=[""]))
            continue
        if is_placeholder(path) or _code_like(lines, offset, link, path):
            continue
        found.append(_make(source, link.line, link.column, raw, link.kind, path, fragment, inventory, bases=[base]))
    prefixes = tuple(f"{name}/" for name in top) + tuple(f"./{name}/" for name in top)
    folders = tuple(f"./{name}" for name in top)  # `./canvas-fonts`: a folder named in code
    named = tuple(f"{name}/" for name in top)  # what every prefix holds
    link_columns = {(r.line, r.column) for r in found}
    plain = None  # compiled on the first line that needs it
    for number, line in enumerate(lines, start=1 + offset):
        if ("/" not in line and "`" not in line) or number in code:
            continue  # a reference holds a `/` or is a file name in backticks
        spans = []
        if "`" in line:
            for match in markdown.CODE_SPAN.finditer(line):
                spans.append(match.span())
                written = match.group(2)
                if "/" not in written and "." not in written:
                    continue  # a folder path holds a "/", a bare file name a "." (`npm test` is neither)
                for token, start in _tokens(written, match.start(2)):
                    if token[:1] in ("$", "{"):  # what a root variable starts with
                        rooted = _strip_root_variable(token)
                        if rooted is not None:
                            token, start = rooted, start + len(token) - len(rooted)
                    if (
                        (token.startswith(prefixes) or token in folders)
                        and not is_placeholder(token)
                        and (not token.startswith(absent) or _names_a_file(token))
                    ):
                        mention = _mention(source, number, start + 1, token, "code", base, inventory)
                        if mention.status != "missing" or not passages.not_the_skills(number, start, token):
                            found.append(mention)
                    elif _bare_file(token, base, inventory):
                        # `root-cause-tracing.md`: a file beside the mentioning one, named without a folder
                        found.append(_mention(source, number, start + 1, token, "code", base, inventory))
        if not top or "/" not in line or not any(map(line.__contains__, named)):
            continue  # a plain path starts with a prefix (map: no Python frame per name)
        if plain is None:
            plain = _plain_pattern(prefixes)
        link_syntax = _LinkSyntax(line)
        next_span = 0  # spans are in order and apart, as the matches: one pass over both
        for match in plain.finditer(line):
            start = match.start()
            while next_span < len(spans) and spans[next_span][1] <= start:
                next_span += 1
            if (next_span < len(spans) and spans[next_span][0] <= start) or (number, start + 1) in link_columns:
                continue
            if link_syntax.covers(start):
                continue
            token = match.group(0).rstrip(".,;:)")
            if not is_placeholder(token) and (not token.startswith(absent) or _names_a_file(token)):
                mention = _mention(source, number, start + 1, token, "plain", base, inventory)
                if mention.status != "missing" or not passages.not_the_skills(number, start, token):
                    found.append(mention)
    return found


def _names_a_file(token: str) -> bool:
    """``scripts/run.py``, not ``assets/`` or ``resources/list``."""
    name = token.rsplit("/", 1)[-1]
    stem, dot, suffix = name.rpartition(".")
    return bool(dot and stem and suffix.isalnum() and len(suffix) <= 8)


def _bare_file(token: str, base: str, inventory) -> bool:
    """A file name without a folder (`wrap-api.md`) that exists beside the mentioning file."""
    if "/" in token or "." not in token.strip("."):
        return False
    # The inventory first: most tokens name no file, and a lookup is cheaper than is_placeholder.
    entry = inventory.entries.get(posixpath.join(base, token) if base else token)
    return entry is not None and entry.kind == "file" and not is_placeholder(token)


_TOKEN = lazyre.compile(r"[^\s'\"=(),]+")


def _tokens(code: str, base: int):
    for match in _TOKEN.finditer(code):
        token = match.group(0)
        if "..." in token or "…" in token:
            continue  # `assets/...`: an elision, not a path
        yield token.rstrip(".,;:"), base + match.start()


@lru_cache(maxsize=512)  # one pattern per set of top folders: bounded, as a 10,000-skill tree has many sets
def _plain_pattern(prefixes: tuple[str, ...]) -> re.Pattern:
    alternatives = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    # In prose a path needs a file extension or a trailing slash to count:
    # "scripts/tools" in a sentence is English, `scripts/tools` in code a path.
    return re.compile(rf"(?<![\w/.`-])(?:{alternatives})(?:[\w./-]*\.[A-Za-z0-9]{{1,8}}\b|[\w./-]*/)(?![\w-])")


class _LinkSyntax:
    """Whether a plain match sits in ``[text](here)``, ``<here>`` or the ``[text]`` of a link
    (the destination is the reference, the text only names it), for the matches of one
    line in order. Each character before them is looked at once: a fresh look from each
    match (``line[:start]``, ``rfind``) is quadratic in a line of many paths."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.last_link_close = line.rfind("](")
        self.seen = 0  # characters before this were looked at for brackets
        self.bracket = ""  # the last "[" or "]" before `seen`

    def covers(self, start: int) -> bool:
        line = self.line
        if start < self.seen:  # not in order: look from the line's start again
            self.seen, self.bracket = 0, ""
        last = max(line.rfind("[", self.seen, start), line.rfind("]", self.seen, start))
        if last >= 0:
            self.bracket = line[last]
        self.seen = start
        if line.endswith(("](", "<"), 0, start):
            return True
        blank = start
        while blank > 0 and line[blank - 1].isspace():
            blank -= 1
        if line.endswith("]:", 0, blank):
            return True
        return self.bracket == "[" and self.last_link_close >= start


# Variables that agents expand to the skill's folder: a path after them is a
# reference from the skill root (Claude Code documents ${CLAUDE_SKILL_DIR};
# Trail of Bits' skills write {baseDir}).
_ROOT_VARIABLE = lazyre.compile(r"^(?:\$\{CLAUDE_SKILL_DIR\}|\$CLAUDE_SKILL_DIR|\{baseDir\}|\$\{baseDir\})/")


def _strip_root_variable(path: str) -> str | None:
    match = _ROOT_VARIABLE.match(path)
    return path[match.end() :] if match else None


def _code_like(lines: list[str], offset: int, link, path: str) -> bool:
    """Whether a link is notation that Markdown happens to read as one: its ``[`` glued to a word
    (``SHA256[cwd](0:12)``, ``items[i](args)``: an index then a call) and a destination with
    neither a folder nor an extension, so it names no file either. A link an author writes
    stands apart from the word before it."""
    if link.kind not in ("link", "image") or "/" in path or "." in path:
        return False
    index = link.line - 1 - offset
    if not 0 <= index < len(lines):
        return False
    line = lines[index]
    close = line.rfind("](", 0, max(link.column - 1, 0))
    start = close - len(link.text) - 1
    return start > 0 and line[start] == "[" and (line[start - 1].isalnum() or line[start - 1] == "_")


def _split_target(target: str) -> tuple[str, str | None]:
    fragment = None
    if "#" in target:
        target, fragment = target.split("#", 1)
    if "?" in target:
        target = target.split("?", 1)[0]
    return target.strip(), fragment


def _mention(source: str, line: int, column: int, token: str, kind: str, base: str, inventory) -> Reference:
    path, fragment = _split_target(token)
    # Mentioned paths are written from the skill root; try the file's folder too.
    return _make(source, line, column, token, kind, path, fragment, inventory, bases=["", base] if base else [""])


def _make(source, line, column, raw, kind, path, fragment, inventory, bases) -> Reference:
    if path.startswith(("/", "~")) or WINDOWS_DRIVE.match(path):
        return Reference(source, line, column, column + len(raw), raw, kind, path, fragment, "outside", None, None)
    best: tuple[str, str | None] | None = None
    for base in dict.fromkeys(bases):
        status, real = inventory.resolve(posixpath.join(base, path) if base else path)
        if status == "ok":
            best = (status, real)
            break
        if best is None or (best[0] == "missing" and status in ("outside", "loop")):
            best = (status, real)
    status, real = best if best is not None else ("missing", None)
    if status == "missing" and kind in ("code", "plain") and not posixpath.splitext(path)[1]:
        # `references/open-coding` naming references/open-coding.md: a document by its stem.
        for suffix in (".md", ".markdown"):
            for base in dict.fromkeys(bases):
                candidate = inventory.resolve((posixpath.join(base, path) if base else path) + suffix)
                if candidate[0] == "ok":
                    status, real = candidate
                    break
            if status == "ok":
                break
    target_kind = None
    case_match = None
    if status == "ok" and real is not None:
        entry = inventory.entries.get(real)
        target_kind = entry.kind if entry else None
    elif status == "missing":
        first = bases[0]
        variants = inventory.case_variants(posixpath.join(first, path) if first else path)
        case_match = variants[0] if variants else None
    return Reference(source, line, column, column + len(raw), raw, kind, path, fragment, status, real, target_kind, case_match)
