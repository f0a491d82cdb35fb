"""Which bundled files nothing in the package reaches (SL304): the walk from SKILL.md, the mentions
that count as a reference, and the alternatives a skill offers in one place."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Iterator

from ... import lazyre
from .disclosure_graph import is_document, is_named, is_script, suffix_of
from ...fsafe import UnsafeFile, read_capped
from ..package import SkillPackage

if TYPE_CHECKING:  # a type only
    from .mention_context import BodyContext


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


class ReadByScripts:
    """Files that scripts SKILL.md itself points at name in their text (the script opens them:
    `GENOMES_FILE = Path(__file__).parent / "genomes.yaml"`). The agent runs the script; the script
    reaches the file, however many pages also mention it. Each script is read once, on the
    first question, at most :data:`MAX_SCRIPT_FILES` of them."""

    def __init__(self, package: SkillPackage, scripts: list[str]) -> None:
        self.package = package
        self.scripts = list(dict.fromkeys(scripts))[:MAX_SCRIPT_FILES]
        self._texts: list[str] | None = None

    def reads(self, rel: str) -> bool:
        if self._texts is None:
            self._texts = [t for t in (read_text(self.package, s, MAX_SCRIPT_BYTES) for s in self.scripts) if t]
        name = posixpath.basename(rel)
        return any(is_named(text, name) for text in self._texts)


def readable_source(rel: str) -> bool:
    """Whether a reached file is read for the files it names in turn: any text, not a binary
    format. Data files name files too: an XML Schema imports another
    (``<xs:import schemaLocation="common.xsd"/>``), a JSON Schema refers to a sibling
    (``"$ref": "defs.json#/x"``), a configuration names the template it fills."""
    from ..security.package_texts import BINARY_SUFFIXES

    return suffix_of(rel).lstrip(".") not in BINARY_SUFFIXES


def opaque_folders(package: SkillPackage, scripts: list[str]) -> set[str]:
    """The folders (never the package's own) of the reached ``scripts`` whose text cannot be read:
    empty, binary, unsafe or longer than is read. What such a script loads is unknown; a script
    loads the modules and data beside it (``yara_lint.py`` imports ``yara_rules.py``, an
    installer unpacks the archive in its folder), so no file there is shown to be unreferenced."""
    folders: set[str] = set()
    for rel in sorted(set(scripts)):
        folder = posixpath.dirname(rel)
        if not folder or folder in folders:
            continue
        entry = package.inventory.entries.get(rel)
        if entry is None or entry.kind != "file":
            continue
        text = None if entry.size > MAX_SCRIPT_BYTES else read_text(package, rel, MAX_SCRIPT_BYTES)
        if text is None or not text.strip():
            folders.add(folder)
    return folders


# An eval case pairs what the agent is given with what should come of it: the input under one of
# the names eval formats give it (skill-creator's `prompt`, a trigger set's `query`, `inputs`,
# `question`, `task`) and a judgement (`expected_output`, `expectations`, `expected_behavior`,
# `should_trigger`, a `judge` or `graders`, `assertions`, a `rubric`).
_EVAL_INPUTS = frozenset({"prompt", "prompts", "query", "queries", "input", "inputs", "question", "task", "user_prompt", "user_message"})
_EVAL_JUDGEMENTS = frozenset({"should_trigger", "judge", "grader", "graders", "assertions", "asserts", "rubric", "criteria", "success_criteria"})
_EVAL_SUFFIXES = (".json", ".yaml", ".yml")
MAX_EVAL_NODES = 2000  # values of one file looked at for an eval case


def is_eval_case(data) -> bool:
    """Whether parsed JSON or YAML holds an eval case: a mapping with an input and a judgement,
    at its top, in a list or under a key (``{"evals": [...]}``), a few levels down at most."""
    stack, seen = [(data, 0)], 0
    while stack and seen < MAX_EVAL_NODES:
        value, depth = stack.pop()
        seen += 1
        if isinstance(value, dict):
            keys = {str(key).casefold() for key in value}
            if keys & _EVAL_INPUTS and (keys & _EVAL_JUDGEMENTS or any(key.startswith("expect") for key in keys)):
                return True
            children = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth < 3:
            stack.extend((child, depth + 1) for child in children[:MAX_EVAL_NODES])
    return False


def eval_folders(package: SkillPackage, pending: list[str], referenced: set[str]) -> set[str]:
    """The eval files among ``pending`` (:func:`is_eval_case`), each as the outermost folder that
    holds it and no file the skill references (its fixtures and configuration are the eval's
    too), or as itself where every folder around it holds a referenced file."""
    import json

    from ..text import yamltree

    holding: set[str] = set()  # folders that hold a referenced file
    for rel in referenced:
        folder = posixpath.dirname(rel)
        while folder and folder not in holding:
            holding.add(folder)
            folder = posixpath.dirname(folder)
    found: set[str] = set()
    for rel in pending:
        if not rel.lower().endswith(_EVAL_SUFFIXES) or is_under(rel, found):
            continue
        text = read_text(package, rel, MAX_SCRIPT_BYTES)
        if not text:
            continue
        try:
            if rel.lower().endswith(".json"):
                data = json.loads(text)
            else:
                data = yamltree.to_python(yamltree.parse(text).root, "pyyaml")
        except (ValueError, RecursionError, yamltree.YamlError):
            continue
        if not is_eval_case(data):
            continue
        parts = rel.split("/")
        outer = next(("/".join(parts[:k]) for k in range(1, len(parts)) if "/".join(parts[:k]) not in holding), rel)
        found.add(outer)
    return found


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
        self._odd_folder_lengths = {len(folder) for folder in self._odd_folders}  # asked for each text
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
        :func:`~skilllint.skill.references.disclosure_graph.is_named` decides)."""
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
        folders, lengths = self._odd_folders, self._odd_folder_lengths
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


_NAME_RUN = lazyre.compile(r"[\w.-]+")  # what is_named takes for a name's neighbours: alphanumerics, `_`, `.`, `-`


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
    if "./" in text:
        for match in _JS_SPECIFIER.finditer(text):
            # `import { x } from './lib/store'`, `require('../util')`: a module by its path without
            # the extension, or a folder by its index file
            joined = posixpath.normpath(posixpath.join(base, match.group(2)))
            modules.add(joined)
            packages.add(joined)
    if "/" in text or "join" in text:
        for path in _joined_literals(text):
            for joined in (path, posixpath.normpath(posixpath.join(base, path)) if base else path):
                modules.add(joined)
                packages.add(joined)
    return modules, packages


# The relative specifier of a JavaScript or TypeScript import, export … from, require() or import().
_JS_SPECIFIER = lazyre.compile(r"""(?:\bfrom|\bimport|\brequire[ \t]*\(|\bimport[ \t]*\()[ \t]*(["'])(\.\.?/[^"'\n]{1,200})\1""")


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
