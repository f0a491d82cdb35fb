"""Progressive disclosure of a skill's bundled files: what SL303, SL304, SL310 and SL312 read.

SKILL.md should point one hop to focused files (SL303), every bundled file
should be reachable from something in the package (SL304), each reference
from SKILL.md should say when to load or run its target (SL310), and a long
referenced document should open with a table of contents (SL312).

All four read the reference graph (:mod:`skilllint.references`); SL310 judges
the context of a mention from cheap line scans (the sentence, the list item
and its lead-in, the table row and its header, the governing headings), never
from a full Markdown parse.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import TYPE_CHECKING, Iterator

from . import lazyre
from .diagnostics import Related, Span
from .fsafe import UnsafeFile, read_capped
from .markdown import CODE_SPAN as _CODE_SPAN
from .markdown import NextFind, fenced_lines
from .package import SkillPackage

if TYPE_CHECKING:  # a type only: the analysis is called by rules, it does not depend on the rule API
    from .rule import RuleContext

DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst")


SCRIPT_SUFFIXES = (
    ".py", ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
    ".ps1", ".psm1", ".rb", ".pl", ".php", ".lua", ".r", ".bat", ".cmd", ".go", ".swift", ".kts",
)  # fmt: skip


def suffix_of(rel: str) -> str:
    return posixpath.splitext(rel)[1].lower()


def is_document(rel: str) -> bool:
    return suffix_of(rel) in DOCUMENT_SUFFIXES


def is_script(rel: str) -> bool:
    suffix = suffix_of(rel)
    return suffix in SCRIPT_SUFFIXES or (not suffix and rel.startswith(("scripts/", "bin/")))


def nested_skill_roots(inventory) -> list[str]:
    """Sub-folders holding their own SKILL.md: packages of their own."""
    roots = []
    for rel, entry in inventory.entries.items():
        if "/" in rel and posixpath.basename(rel).casefold() == "skill.md" and entry.kind in ("file", "symlink"):
            roots.append(posixpath.dirname(rel))
    return roots


def in_nested_skill(rel: str, roots: list[str]) -> bool:
    return any(rel == root or rel.startswith(root + "/") for root in roots)


def _memo(ctx: RuleContext, package: SkillPackage, key: str, make):
    """Per-package values shared by the rules of this module."""
    slot = (key, id(package))
    if slot not in ctx.memo:
        ctx.memo[slot] = make()
    return ctx.memo[slot]


def nested_roots(ctx: RuleContext, package: SkillPackage) -> list[str]:
    return _memo(ctx, package, "disclosure.nested", lambda: nested_skill_roots(package.inventory))


def mention_span(reference) -> Span:
    return Span(reference.line, reference.column, reference.line, reference.end_column)


_WILDCARD = lazyre.compile(r"\*|\{[\w-]+\}|<[\w-]+>")


_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.{}<>$@/*-")


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
            if _named(self.text, name):
                return True
        elif _named(self.text, rel) or _named(self.text, "/".join(rel.split("/")[-2:])):
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


_ATX = lazyre.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


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
            if number in fenced or not _ATX.match(line):
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


# =============================================================================
# SL304 resource-unreferenced
# =============================================================================

# Files every repository carries for people and tools, not for the agent.
_META_FILE = lazyre.compile(
    r"^(?:licen[cs]e|copying|notice|authors|contributors|changelog|changes|history|code_of_conduct|"
    r"contributing|security|readme)(?:[-_.].*)?$",
    re.IGNORECASE,
)


# Build, dependency and test scaffolding around scripts: used by tools, never
# referenced by name in prose.
SUPPORT_FILE = lazyre.compile(
    r"^(?:pyproject\.toml|setup\.py|setup\.cfg|requirements(?:[-_.][\w.-]*)?\.txt|pipfile(?:\.lock)?|"
    r"uv\.lock|poetry\.lock|\.python-version|package\.json|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|"
    r"pnpm-lock\.yaml|bun\.lockb?|tsconfig(?:\.[\w-]+)?\.json|jsconfig\.json|deno\.jsonc?|cargo\.toml|cargo\.lock|"
    r"go\.mod|go\.sum|gemfile(?:\.lock)?|makefile|justfile|dockerfile|\.dockerignore|"
    r"directory\.(?:build|packages)\.(?:props|targets)|[\w.-]+\.(?:csproj|fsproj|vbproj|sln)|"
    r"__init__\.py|conftest\.py|py\.typed|test_[\w.-]+\.py|[\w.-]+_test\.(?:py|go)|"
    r"[\w.-]+\.(?:test|spec)\.(?:js|mjs|cjs|ts|tsx|jsx)|\.gitignore|\.gitattributes|\.ds_store|thumbs\.db)$",
    re.IGNORECASE,
)


_SUPPORT_FOLDERS = frozenset({"tests", "test", "__tests__", "__pycache__", "node_modules", ".git"})


_BINARY_NOISE = (".pyc", ".pyo", ".class")


MAX_SCRIPT_FILES = 200  # text files under scripts/ read per package (SL304)


MAX_SCRIPT_BYTES = 256 * 1024


# As ^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([\w, ]+)|import\s+([\w., ]+)) finds them, without two
# quantifiers competing for one run: indentation within its line ([^\S\n]; a \s* from every
# line start of a run of blank lines crosses all of them), the blanks after "from" all taken
# ((?!\s)), two of them when no module is named ((?<=\s\s)).
_PY_IMPORT = lazyre.compile(
    r"^[^\S\n]*(?:from\s+(?!\s)([\w.]*)(?:(?<=\s\s)|\s)\s*import\s+([\w, ]+)|import\s+([\w., ]+))", re.MULTILINE
)


MAX_RELATED = 20


def unreached_roots(package: SkillPackage, pending: list[str]) -> list[tuple[str, list[str]]]:
    """The unreferenced files to report, each with the unreferenced files named only through it.

    A file named by another unreferenced file (``ir-analysis.md`` naming
    ``tools/analyze_cfg.py``) is referenced by something in the package, just
    not reachably: it is listed under the file that names it, which is the one
    to fix. In a cycle of such files the first one (in path order) is reported.
    """
    texts = {}
    for rel in pending:
        if is_document(rel) or is_script(rel) or suffix_of(rel) in (".json", ".yaml", ".yml", ".toml", ".html", ".xml"):
            text = read_text(package, rel, MAX_SCRIPT_BYTES)
            if text is not None:
                texts[rel] = text
    # A graph of files and the groups (a name, a folder, a module path) that stand for
    # several files at once: a file names a group, a group holds its files.
    mentions = Mentions(pending)
    names: dict = {rel: [] for rel in pending}  # mentioner -> groups it names; group -> its files
    namers: dict[tuple[str, str], set[str]] = {}  # group -> up to two files naming it
    for source, text in texts.items():
        for key in mentions.named_in(source, text):
            names[source].append(key)
            if key not in names:
                names[key] = mentions.groups[key]
            seen = namers.setdefault(key, set())
            if len(seen) < 2:
                seen.add(source)
    named: set[str] = set()  # named by a file other than itself
    for key, seen in namers.items():
        named.update(rel for rel in mentions.groups[key] if seen - {rel})
    order = sorted(pending)
    done: set = set()
    roots: list[tuple[str, list[str]]] = []

    def reach(start: str) -> list[str]:
        found, stack = [], [start]
        while stack:
            for child in names[stack.pop()]:
                if child not in done:
                    done.add(child)
                    stack.append(child)
                    if isinstance(child, str):
                        found.append(child)
        return found

    for rel in [r for r in order if r not in named] + order:
        if rel in done:
            continue
        done.add(rel)
        roots.append((rel, sorted(reach(rel))))
    return sorted(roots)


def exempt(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    if parts[0] == "agents":
        return True  # agents/openai.yaml and the like: read by a client, not referenced
    if parts[0] == "evals" and len(parts) > 1:
        return True  # evals/evals.json (skill-creator's layout): test prompts for the author, not for the agent
    if any(part.startswith(".") or part in _SUPPORT_FOLDERS for part in parts[:-1]):
        return True
    if name.startswith(".") or name.endswith(_BINARY_NOISE):
        return True
    return bool(_META_FILE.match(name) or SUPPORT_FILE.match(name))


def is_under(rel: str, folders: set[str]) -> bool:
    if "." in folders:
        return True
    folder = posixpath.dirname(rel)
    while folder:
        if folder in folders:
            return True
        folder = posixpath.dirname(folder)
    return False


def read_text(package: SkillPackage, rel: str, cap: int | None = None) -> str | None:
    try:
        data = read_capped(package.root / rel, min(cap or package.max_bytes, package.max_bytes)).data
    except UnsafeFile:
        return None
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


class Mentions:
    """Which of a package's files a text names (SL304), found in one pass over the text.

    A file counts as mentioned when its file name appears as a word (so its
    package path, a relative link or ``{baseDir}/…`` all count); a folder
    counts when written as a folder (``themes/``, ``./canvas-fonts`` or
    `` `templates` ``) and then covers every file under it. Python imports in
    scripts name modules (``from tools import store`` → ``tools/store.py``).

    The files are indexed once by every key that names them (file name,
    dotted module name, path suffix, folder); a text is split into runs of
    path characters once and each run looked up, so naming is linear in the
    texts and the files however many of each. A key stands for the group of
    files it names: a text naming ``notes/`` names one group, not each file.
    """

    def __init__(self, rels: list[str]) -> None:
        self.groups: dict[tuple[str, str], list[str]] = {}
        self._odd_names: dict[int, set[str]] = {}  # names with characters outside [\w.-], by length
        self._odd_folders: set[str] = set()  # folders with characters outside [\w./-]
        for rel in rels:
            name = posixpath.basename(rel)
            self._group("name", name, rel)
            parts = rel.split("/")
            stem = posixpath.splitext(rel)[0].split("/")
            for index in range(len(parts)):
                self._group("module", "/".join(parts[index:]), rel)
                self._group("module", "/".join(stem[index:]), rel)
            if rel.endswith(".py") and len(stem) > 1:
                # `core.gif_builder`, `references.func`: a module by its dotted name
                for index in range(len(stem) - 1):
                    self._group("name", ".".join(stem[index:]), rel)
            folder = posixpath.dirname(rel)
            while folder:
                self._group("folder", folder, rel)
                folder = posixpath.dirname(folder)
        self._name_keys = {key for kind, key in self.groups if kind == "name"}
        self._name_lengths = {len(key) for key in self._name_keys}
        self._longest_name = max(self._name_lengths, default=0)
        self._longest_folder = max((len(key) for kind, key in self.groups if kind == "folder"), default=0)
        for kind, key in self.groups:
            if kind == "name" and not _NAME_RUN.fullmatch(key):
                self._odd_names.setdefault(len(key), set()).add(key)
            elif kind == "folder" and not _PATH_RUN.fullmatch(key):
                self._odd_folders.add(key)
        # whether a name opens with a character outside [\w.-]: then it may start past one
        self._odd_openers = any(not _NAME_RUN.match(name) for names in self._odd_names.values() for name in names)

    def _group(self, kind: str, key: str, rel: str) -> None:
        members = self.groups.setdefault((kind, key), [])
        if not members or members[-1] != rel:
            members.append(rel)

    def named_in(self, source: str, text: str) -> dict[tuple[str, str], bool]:
        """The groups ``text`` (the file ``source``) names, each with whether ``source``
        itself is left out of it: a file does not reference itself by writing its own
        name ("Usage: python fill_form_old.py"), but its imports and joined paths count."""
        base = posixpath.dirname(source)
        if "\\" in text:
            text = text.replace("\\", "/")
        found: dict[tuple[str, str], bool] = {}

        def add(kind: str, key: str, self_excluded: bool) -> None:
            if (kind, key) in self.groups and not (self_excluded and found.get((kind, key)) is False):
                found[(kind, key)] = self_excluded

        # Each distinct run of path characters once (a text repeats its words; the keys found
        # are a set), and the runs of name characters as their pieces between slashes: one
        # scan of the text serves both.
        paths = set(_PATH_RUN.findall(text))
        words: set[str] = set()
        for run in paths:
            if "/" in run:
                words.update(run.split("/"))
            else:
                words.add(run)
        for key in self._names(text, words):
            add("name", key, True)
        for key in self._folders(text, paths):
            add("folder", key, True)
        modules, packages = _code_paths(base, text)
        for key in modules:
            add("module", key, False)
        for key in packages:
            add("folder", key, False)
        return found

    def _names(self, text: str, words: set[str]) -> Iterator[str]:
        """Keys of ``name`` groups in ``text`` (its runs of name characters: ``words``) as whole
        file names: ``x.md`` in ``refs/x.md`` or ``x.md.``, not in ``fix.md`` or ``x.mdx`` (as
        :func:`_named` decides)."""
        if not self._name_lengths:
            return
        lengths, longest = self._name_lengths, self._longest_name
        # A name starts where a run starts and ends at the run's end or before a dot in it.
        yield from self._name_keys.intersection(words)
        for word in [word for word in words if "." in word]:
            dot = word.find(".", 1)
            while 0 < dot <= longest:
                if dot in lengths:
                    yield word[:dot]
                dot = word.find(".", dot + 1)
        if self._odd_names:
            yield from self._odd(text)

    def _odd(self, text: str) -> Iterator[str]:
        """Names with other characters (`f (1).md`): a slice per place one may start and length."""
        starts = [m.start() for m in _NAME_RUN.finditer(text)]
        if self._odd_openers:
            starts += [m.start() for m in _SEPARATOR_START.finditer(text)]  # `(draft).md`
        for start in starts:
            for length, names in self._odd_names.items():
                piece = text[start:start + length]
                if piece in names:
                    after = text[start + length] if start + length < len(text) else " "
                    if not (after.isalnum() or after in "_-"):
                        yield piece

    def _folders(self, text: str, paths: set[str]) -> Iterator[str]:
        """Keys of ``folder`` groups written as folders in ``text`` (its runs of path characters:
        ``paths``): ``themes/`` (no name character before it, nothing path-like after the
        slash), ``./themes`` (nothing path-like after it), or in backticks: `` `themes` ``,
        `` `themes/` ``, `` `./themes` ``."""
        if not self._longest_folder:
            return
        longest = self._longest_folder
        ticks = [m.start() for m in _BACKTICK.finditer(text)] if "`" in text else []
        for start, end in zip(ticks, ticks[1:]):
            inside = text[start + 1:end]
            if len(inside) <= longest + 2:
                yield inside
                if inside.endswith("/"):
                    yield inside[:-1]
                if inside.startswith("./"):
                    yield inside[2:]
        for word in [run for run in paths if run[-1] == "/" or "./" in run]:
            # `folder/` ending the run, starting where it starts or after a slash; `./folder` ending it
            tail = word[-(longest + 2):]
            if word.endswith("/"):
                low = len(word) - 1 - longest  # where a folder short enough to be one may start
                if low <= 0:
                    yield word[:-1]
                slash = word.find("/", max(low - 1, 0))
                while 0 <= slash < len(word) - 1:
                    yield word[slash + 1:-1]
                    slash = word.find("/", slash + 1)
            dot = tail.find("./")
            while dot >= 0:
                yield tail[dot + 2:]
                dot = tail.find("./", dot + 1)
        if self._odd_folders:
            yield from self._odd_folder_keys(text)

    def _odd_folder_keys(self, text: str) -> Iterator[str]:
        """Folders with other characters (`d (1)/`): a slice per place one may sit and length."""
        folders, lengths = self._odd_folders, {len(folder) for folder in self._odd_folders}
        for slash in _FOLDER_SLASH.finditer(text):  # `folder/`, a name character not before it
            end = slash.start()
            for length in lengths:
                start = end - length
                if start >= 0 and text[start:end] in folders and (start == 0 or not _NAME_RUN.match(text[start - 1])):
                    yield text[start:end]
        for dot in _DOT_SLASH.finditer(text):  # `./folder`
            start = dot.end()
            for length in lengths:
                piece = text[start:start + length]
                if piece in folders and not _PATH_RUN.match(text[start + length:start + length + 1]):
                    yield piece


_NAME_RUN = lazyre.compile(r"[\w.-]+")  # what _named takes for a name's neighbours: alphanumerics, `_`, `.`, `-`


_PATH_RUN = lazyre.compile(r"[\w./-]+")


_BACKTICK = lazyre.compile(r"`")


_FOLDER_SLASH = lazyre.compile(r"/(?![\w./-])")  # a slash ending a folder written as one


_DOT_SLASH = lazyre.compile(r"\./")


_SEPARATOR_START = lazyre.compile(r"(?<![\w.-])[^\w.-]")  # a non-name character after another or first


def _code_paths(base: str, text: str) -> tuple[set[str], set[str]]:
    """The module paths a script's imports and joined string literals name, and the
    folders (packages) they name: ``from tools import store`` names ``tools/store.py``."""
    modules: set[str] = set()  # "tools/store.py", "tools/store"
    packages: set[str] = set()  # "tools"
    if "import" in text:
        for match in _PY_IMPORT.finditer(text):
            if match.group(1) is not None:
                module = match.group(1).lstrip(".")
                names = [module] if module else []
                names += [f"{module}.{n.strip()}" if module else n.strip() for n in match.group(2).split(",")]
            else:
                names = [n.strip().split(" ")[0] for n in match.group(3).split(",")]
            for name in filter(None, names):
                path = name.replace(".", "/")
                modules.update((path, path + ".py"))
                packages.add(path)
                if base:
                    joined = posixpath.normpath(posixpath.join(base, path))
                    modules.update((joined, joined + ".py"))
                    packages.add(joined)
    if "/" in text or "join" in text:
        for path in _joined_literals(text):
            for joined in (path, posixpath.normpath(posixpath.join(base, path)) if base else path):
                modules.add(joined)
                packages.add(joined)
    return modules, packages


_STRING_LITERAL = lazyre.compile(r"""(["'])(\.\.?|[\w][\w.-]{0,127})\1""")


_PATH_JOIN_CALL = lazyre.compile(r"\bjoin[ \t]*\([^()\"'\n]*$")  # inside os.path.join( / path.join(, before the first literal


_JOIN_OPERATOR = lazyre.compile(r"[ \t]*[/,][ \t]*$")


def _joined_literals(text: str) -> Iterator[str]:
    """Paths a script builds from string literals: ``Path(__file__).parent / "config" /
    "pipelines"``, ``os.path.join(here, "schemas", "main.xsd")``, ``path.join(__dirname,
    'templates')``. Scripts load such folders and files at run time without writing
    the path in one piece, so the pieces are joined here. Literals are found in one
    pass and chained by what stands between neighbours: linear in the text."""
    chain: list[str] = []
    end = -1
    for match in _STRING_LITERAL.finditer(text):
        between = text[end:match.start()] if end >= 0 else ""
        if chain and _JOIN_OPERATOR.match(between) and "\n" not in between:
            chain.append(match.group(2))
            end = match.end()
            continue
        if chain:
            yield "/".join(chain)
        chain = []
        # the window is bounded, so looking back costs a constant per literal
        before = text[max(0, match.start() - 64):match.start()].rstrip(" \t")
        if (before.endswith("/") and not before.endswith("//")) or _PATH_JOIN_CALL.search(before):
            chain = [match.group(2)]
        end = match.end()
    if chain:
        yield "/".join(chain)


def _named(text: str, name: str) -> bool:
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


_STEM_TOKEN = lazyre.compile(r"[^\W_]+")


def _stem_tokens(rel: str) -> list[str]:
    return _STEM_TOKEN.findall(posixpath.splitext(posixpath.basename(rel))[0].lower())


class Alternatives:
    """Which mentions are one of a set of alternatives in their paragraph or list: a sibling
    file (same folder) named in the same block whose name is this one's but for one word,
    the first or the last (`aws-modules.md` and `oci-modules.md`, `IBC_VULNERABILITY_PATTERNS.md`
    and `EVM_VULNERABILITY_PATTERNS.md`, `android-setup.md` and `ios-setup.md`). The word
    that differs names the domain that picks the file: the agent auditing EVM code reads the
    EVM one; the name is the condition. Names that differ in more (`probe-reference-map` and
    `source-map`) are different subjects, not one choice.

    Indexed once by (block, folder, the name without its first or last word): a SKILL.md
    linking thousands of files is not compared pair by pair."""

    def __init__(self, groups: dict[str, list], body: "BodyContext") -> None:
        self.body = body
        self.index: dict[tuple, set[str]] = {}
        self._blocks: dict[int, int] = {}
        for target, mentions in groups.items():
            for mention in mentions:
                for key in self._keys(mention):
                    self.index.setdefault(key, set()).add(target)

    def _keys(self, mention) -> list[tuple]:
        index = mention.line - 1
        if index < self.body.start or index >= len(self.body.lines) or mention.resolved is None:
            return []
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = self.body._block(index)[0]
        tokens = _stem_tokens(mention.resolved)
        if len(tokens) < 2:
            return []
        folder = posixpath.dirname(mention.resolved)
        return [(block, folder, len(tokens), "first", tuple(tokens[1:])), (block, folder, len(tokens), "last", tuple(tokens[:-1]))]

    def has_sibling(self, mention) -> bool:
        return any(self.index.get(key, set()) - {mention.resolved} for key in self._keys(mention))


# -- Context of a mention ---------------------------------------------------------
# Cues settled on the corpus (rules/SL310-*/README.md lists them with examples).
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
#      topic headings ("References", "Quick Reference", "API") do not count.

SENTINEL = "\x01"  # marks the mention inside a joined block


_HEADING_OPEN = lazyre.compile(r" {0,3}(#{1,6})[ \t]+")


_BULLET = lazyre.compile(r"^([ \t]*)(?:[-*+]|(\d{1,3})[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")


_QUOTE = lazyre.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")


_SENTENCE_END = lazyre.compile(r"(?<=[.!?])[\"')\]*_]*\s+(?=[\"'(\[*_`>\x01]*[A-Z0-9`\[*\x01])")


_DEFINITION_LABEL = lazyre.compile(r"^ {0,3}\[((?!\^)[^\]]+)\]:")  # `[^1]:` is a footnote


_BOLD_LABEL = lazyre.compile(r"^\s*(\*\*|__)(.+?)\1")


_CONDITION = lazyre.compile(
    r"\b(?:when|whenever|if|unless|before|after|while|during|once|until|whether|only|"
    r"in case|as soon as|each time|every time|depending on|based on|in order to|instead of|rather than|"
    r"otherwise|fails?|failing|failed|failures?|errors?|broken|missing|stuck|"
    r"always|never|first|now|upfront|up front|at (?:the )?start|beforehand|(?:start|begin) (?:here|with)|"
    r"must (?:first |always )?(?:read|load|see|consult|open|follow|review|study))\b"
)


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
            return f"heading ({reason})" if reason else None
        stripped = _QUOTE.sub("", text)
        if stripped.lstrip().startswith("|"):
            reason = self._row_reason(index, column - (len(text) - len(stripped)))
        else:
            reason = self._prose_reason(index, column, words, subject)
        if reason:
            return reason
        for position, (_, level, heading) in enumerate(self._governing(index)):
            if level == 1:
                continue  # the title names the skill, not a situation
            reason = _heading_reason(heading, innermost=position == 0)
            if reason:
                return f"heading ({reason})"
        return None

    # -- tables -------------------------------------------------------------------

    def _row_reason(self, index: int, column: int) -> str | None:
        """A routing table: another cell of the row names the situation."""
        row = _QUOTE.sub("", self.lines[index])
        position = len(row) - len(row.lstrip())
        for cell in _cells(row):
            start, position = position, position + len(cell) + 1
            if start <= column - 1 <= position:
                continue  # the mention's own cell
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
            return None
        end = at
        while end + 1 < len(lines) and not _BULLET.match(lines[end + 1]):
            end += 1
        bullet = _BULLET.match(lines[item])
        text = " ".join([lines[item][bullet.end():].strip()] + [line.strip() for line in lines[item + 1 : end + 1]])
        plain = text.replace(SENTINEL, "")
        reason = _segment_reason(plain, words, subject) or (_label_reason(plain, words) if subject else None)
        if reason:
            return f"list item ({reason})"
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


def _cells(row: str) -> list[str]:
    masked = _CODE_SPAN.sub(lambda m: m.group(0).replace("|", "\x00"), row.strip())
    if masked.startswith("|"):
        masked = masked[1:]
    if masked.endswith("|"):
        masked = masked[:-1]
    return [cell.replace("\x00", "|") for cell in re.split(r"(?<!\\)\|", masked)]


SENTENCE_WINDOW = 600  # characters read on each side of a mention for its sentence (longer: cut)


LINE_HEAD = 200  # characters kept from the start of a long line (where a bullet or label stands)


BLOCK_LINES = 40  # lines of a paragraph read on each side of a mention


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


# =============================================================================
# SL312 long-reference-without-toc
# =============================================================================

_TOC_TITLE = lazyre.compile(
    r"^ {0,3}(?:#{1,6}\s+)?(?:\*\*|__)?(?:table of contents|contents|toc|on this page|in this (?:file|document|guide|page|reference)|sections)"
    r"(?:\*\*|__)?\s*(?::\s*)?(?:(?:\*\*|__)\s*)?$",
    re.IGNORECASE,
)


_ANCHOR_END = lazyre.compile(r"[)\s]")


_ANCHOR_ITEM = lazyre.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\*\*|__)?\[[^\]]+\]\(#[^)\s]+\)")


def _anchor_links(line: str) -> int:
    r"""How many times ``\]\(#[^)\s]+\)`` matches ``line``: each "](#" whose anchor runs to a
    ")" (not a blank), the end looked up once for all (NextFind)."""
    found, at = 0, 0
    anchor_end = NextFind(line, _ANCHOR_END.compiled())
    while (start := line.find("](#", at)) >= 0:
        end = anchor_end(start + 3)
        if end < 0:
            break
        if line[end] == ")" and end > start + 3:
            found, at = found + 1, end + 1
        else:
            at = start + 1
    return found


def has_toc(lines: list[str], window: int = 40) -> bool:
    """A table of contents starting in the first ``window`` lines: a heading or a
    line named Contents (or alike), two list items that link to the file's own
    headings (``- [Setup](#setup)``), or three such links in any form."""
    fenced = fenced_lines(lines[:window])
    anchors = items = 0
    for number, line in enumerate(lines[:window], start=1):
        if number in fenced:
            continue
        if _TOC_TITLE.match(line):
            return True
        if "](#" in line:
            anchors += _anchor_links(line)
            items += 1 if _ANCHOR_ITEM.match(line) else 0
            if anchors >= 3 or items >= 2:
                return True
    return False
