"""From command-line paths to skill packages.

A folder is searched for skill packages (folders holding a SKILL.md in any
letter case), honouring ``.gitignore`` files and ``exclude`` patterns and
skipping ``.git`` and ``node_modules``. A file maps to the package that holds
it. Symlinked folders are followed only while their real location stays
inside the linted tree, and every real folder is visited once, so a link cycle
such as ``plugins/x -> ..`` neither hangs nor repeats packages.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..fsafe import MAX_LINK_HOPS, added_entry, is_within, list_folder, real_path, real_path_or_given
from ..safewrite import FIX_TEMP_SUFFIX, is_fix_temp_name
from ..skill.inventory import is_skill_md_name

ALWAYS_SKIPPED = frozenset({".git", "node_modules"})
DEFAULT_EXCLUDE = (
    ".git/",
    "node_modules/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".tox/",
    ".nox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".skilllint_cache/",
)
# Folders under these are skills roots: a child folder without SKILL.md there
# is a broken skill (SL001), not an unrelated folder.
SKILLS_ROOT_PARENTS = frozenset({".claude", ".agents", ".codex", ".github", ".opencode", ".gemini", ".cursor"})
MAX_DIRECTORIES = 200_000  # a bound on the walk, far above any real repository


class DiscoveryError(Exception):
    """A path given on the command line cannot be linted (exit 2)."""


@dataclass(eq=False)
class Found:
    """A skill folder to lint, and how it was found."""

    root: Path  # absolute, not resolved (the entry as discovered)
    lint_root: Path  # the tree the user asked to lint (reads stay inside it)
    explicit: bool = False  # given directly on the command line
    missing_skill_md: bool = False  # found only as a folder expected to be a skill (SL001)
    real: str | None = None  # the real path of ``root``, once resolved
    names: list[str] | None = None  # the folder's entries, sorted, as the walk listed them


# What a :class:`TreeLink` may be (its ``kind``); a rule says which it reports (``Rule.tree_links``).
TREE_LINK_KINDS = ("ancestor", "cycle", "chain", "dangling")


@dataclass(frozen=True, eq=False, repr=False)
class TreeLink:
    """A symbolic link met by the search outside every skill folder that never ends: it
    leads to a folder holding it (``plugins/x -> ..``), or into a cycle of links (SL404);
    or a link to nothing where a surface looks for skill folders (SL403)."""

    path: Path  # the link, as the search met it
    text: str  # what the link says
    lint_root: Path  # the tree searched
    kind: str  # "ancestor": a folder holding the link; "cycle": links that never resolve; "chain": too many links;
    # "dangling": a link in a skills folder to nothing
    target: Path | None = None  # the folder it leads back to (ancestor), the missing path (dangling)
    hops: int = 0  # the links a chain passes (chain)


@dataclass(eq=False, repr=False)
class Discovery:
    """The packages found under the paths given, and what the user must be told about the search."""

    packages: list[Found] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # files named as `check --fix`'s temporary files, met in the folders searched (a run
    # killed while writing leaves one; whether one is abandoned is the caller's to judge)
    fix_temps: list[str] = field(default_factory=list)
    # Endless links outside every skill folder (SL404), and dangling ones where skills are
    # looked for (SL403): a package's own links are its rules'.
    endless_links: list[TreeLink] = field(default_factory=list)
    # Every folder the walk listed -> its entries' names, sorted: a package's inventory lists
    # its folders from here rather than listing each again.
    listings: dict[str, list[str]] = field(default_factory=dict)


def _has_skill_md(names: list[str]) -> bool:
    return any(is_skill_md_name(name) for name in names)


def tame_glob(line: str) -> str:
    """A .gitignore line pathspec can match without heavy backtracking.

    pathspec turns each `*` into `[^/]*`, so `**********x` or `*a*a*a*a*a*a*ab` backtracks
    exponentially on every path, and k stars in one path segment cost the segment's length
    to the k-th power (`*a*a*a*a` and a 250-character name: seconds per path). Git reads a
    run of three or more stars as one (gitignore(5): other consecutive asterisks are regular
    asterisks); a line with more than four wildcards left, or more than two in one segment
    (a `**` segment counting as one), is no real ignore rule and is dropped (linting more,
    never less).
    """
    line = re.sub(r"\*{3,}", "*", line)
    crowded = any(segment.count("*") > 2 for segment in line.split("/") if segment != "**")
    return "" if crowded or line.count("*") > 4 else line


class _Ignore:
    """gitignore-style matching: config excludes plus every .gitignore met."""

    def __init__(self, base: Path, patterns: list[str], use_gitignore: bool) -> None:
        self.base = base
        self.use_gitignore = use_gitignore
        self.defaults = _FolderNames(DEFAULT_EXCLUDE)
        # pathspec (slow to import) only for patterns that are more than folder names
        # (`drafts/`, `node_modules/`), in the configuration or a .gitignore met
        self.exclude = self.defaults if list(patterns) == list(DEFAULT_EXCLUDE) else _spec_of_lines([tame_glob(p) for p in patterns]) or self.defaults
        self.gitignores: dict[str, object] = {}  # every folder looked at; None: no usable .gitignore
        self._above: dict[str, list[tuple[str, object]]] = {}  # folder -> the specs at it and above (_specs_above)
        # Folders named on the command line although an exclude pattern covers them.
        self.exempt: list[Path] = []

    def load_gitignore(self, folder: Path | str, names: list[str] | None = None) -> None:
        """Read ``folder``'s .gitignore (``names``: the folder's listing, when known)."""
        folder = str(folder)
        if not self.use_gitignore or folder in self.gitignores:
            return
        self.gitignores[folder] = None
        if names is not None and ".gitignore" not in names:
            return
        candidate = os.path.join(folder, ".gitignore")
        try:
            info = os.lstat(candidate)
        except OSError:
            return
        if not stat.S_ISREG(info.st_mode) or info.st_size > 1024 * 1024:
            return
        from ..fsafe import UnsafeFile, read_capped

        try:
            text = read_capped(candidate).data.decode("utf-8", errors="replace")
        except UnsafeFile:
            return
        spec = _spec_of_lines([tame_glob(line) for line in text.splitlines()])
        if spec is None:
            return  # no pattern in it (an empty .gitignore is common)
        self.gitignores[folder] = spec
        self._above.clear()  # what _specs_above kept was made without it (it reads self.gitignores)

    def ignored(self, path: Path | str, is_dir: bool) -> bool:
        # On strings: called for every folder walked, where Path arithmetic was most of the walk's time.
        suffix = "/" if is_dir else ""
        text = str(path)
        rel = _relative(str(self.base), text)
        if rel is not None:
            exempt = any(is_within(root, path) for root in self.exempt)
            spec = self.defaults if exempt else self.exclude
            if rel != "." and spec.match_file(rel + suffix):
                return True
        for folder, spec in self._specs_above(os.path.dirname(text)):
            rel = _relative(folder, text)
            if rel is None or rel == ".":
                continue
            if spec.match_file(rel + suffix):  # type: ignore[attr-defined]
                return True
        return False

    def _specs_above(self, folder: str) -> list[tuple[str, object]]:
        """The (folder, spec) of the .gitignore files found at ``folder`` and above it: those that
        can match what lies in it (a tree of many repositories holds many, and the walk asks for
        every folder's children). Kept per folder until another .gitignore is found."""
        found = self._above.get(folder)
        if found is None:
            parent = os.path.dirname(folder)
            above = self._specs_above(parent) if parent != folder else []
            spec = self.gitignores.get(folder)
            found = self._above[folder] = [*above, (folder, spec)] if spec is not None else above
        return found


def gitignore_spec(lines):
    """pathspec's matcher of gitignore ``lines``, on its simple backend (Python's ``re``); a line
    pathspec cannot read (a lone ``!``, a trailing backslash, a range such as ``[z-a]``) is left
    out, as git matches nothing with it."""
    with _quiet_re():
        try:
            return _simple_spec(lines)
        except (ValueError, re.error):
            return _simple_spec([line for line in lines if not unreadable_pattern(line)])


def _simple_spec(lines):
    """pathspec's GitIgnoreSpec of ``lines`` on its simple backend, whichever backends it could
    import (its hyperscan one raises its own errors, and compiles slower than ``re``)."""
    pathspec = _pathspec()
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
    except TypeError:  # pathspec 0.12 (no backends: its matching is the simple one)
        return pathspec.GitIgnoreSpec.from_lines(lines)


def unreadable_pattern(line: str) -> bool:
    """Whether pathspec rejects a gitignore line (a lone ``!``, a trailing backslash, a reversed
    range): git matches nothing with it. The configuration reports such a pattern (:mod:`skilllint.config.settings`)."""
    if _FOLDER_NAME_LINE.fullmatch(line) or _own_line(line) is not None:
        return False  # what skilllint matches itself: never rejected, and pathspec is not imported
    try:
        with _quiet_re():
            _simple_spec([line])
    except (ValueError, re.error):  # pathspec hands a bracket expression to `re` as it is
        return True
    return False


@contextmanager
def _quiet_re():
    """pathspec hands a bracket expression to ``re`` as written: ``[[:alpha:]]`` makes ``re``
    warn of a nested set on standard error, about the user's .gitignore, on every run."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yield


def _pathspec():
    """The pathspec module, imported with hyperscan kept out.

    pathspec 1.x picks the best backend it can import, and imports hyperscan for it when
    installed (a dependency of skilllint's security rules where it has wheels): ~15 ms to import,
    and compiling a .gitignore's few patterns with it costs more than matching them with ``re``
    does (a cold corpus run: 0.6 G instructions more). So pathspec is imported with ``None`` for
    hyperscan in ``sys.modules`` (which makes its import fail, as the import system documents),
    unless this process already imported either."""
    import sys

    if "pathspec" not in sys.modules and "hyperscan" not in sys.modules:
        sys.modules["hyperscan"] = None  # type: ignore[assignment]
        try:
            import pathspec
        finally:
            if "hyperscan" in sys.modules and sys.modules["hyperscan"] is None:
                del sys.modules["hyperscan"]
    import pathspec

    return pathspec


# `name/` for a folder name of letters, digits, `.`, `_` and `-` (not all dots: `../` is no name)
_FOLDER_NAME_LINE = re.compile(r"(?!\.+/)[A-Za-z0-9._-]+/")


def _spec_of_lines(lines: list[str]):
    """A .gitignore's matcher; None when it has no pattern, and without pathspec (slow
    to import: ~17 ms, a twentieth of a warm run) when every pattern names a folder
    (``build/``, ``__pycache__/``) or is of :data:`_OWN_LINE`'s form (``*.pyc``, ``/.venv/``,
    ``docs/*.md``, ``*.py[cod]``, ``**/.cache/``, ``.agents/*`` with ``!.agents/plugins/``):
    what most .gitignore files hold."""
    patterns = [line for line in lines if line.strip() and not line.startswith("#")]
    if not patterns:
        return None
    if all(_FOLDER_NAME_LINE.fullmatch(line) for line in patterns):
        return _FolderNames(patterns)
    own = [_own_line(line) for line in patterns]
    if all(line is not None for line in own):
        return _GitignoreLines(own)
    return gitignore_spec(lines)


# The gitignore lines skilllint matches itself: maybe negated (`!`), maybe anchored (`/build`),
# names joined by `/`, maybe a folder (`dist/`); in a name `*`, `?` and bracket expressions of
# letters, digits, `.`, `_` and `-` (`[Bb]`, `[!0-9]`); a name may be `*` or `**`. Not escapes,
# POSIX classes, spaces at either end, a name of dots alone (`..`), a `!` or `#` after the
# negation, nor more than one `**` (pathspec matches those; see _own_line). One segment after
# another, each without `/`: linear. A space inside (`.claude/# Python`) is part of the name,
# as a `#` not at the line's start.
_NAME_CHAR = r"[^\s/\\\[\]]"  # no whitespace, slash, escape or bracket
_BRACKET = r"\[[!^]?[A-Za-z0-9._-]+\]"
_NAME_PART = "(?:" + _NAME_CHAR + "|" + _BRACKET + ")"
_GLOB_NAME = r"(?!\.+(?:/|$))" + _NAME_PART + r"(?:(?:" + _NAME_PART + r"|\x20)*" + _NAME_PART + r")?"
_OWN_LINE = re.compile(r"!?/?(?![!#])" + _GLOB_NAME + r"(?:/" + _GLOB_NAME + r")*/?")
_RANGE = re.compile(r"(.)-(.)")
# pathspec's group that marks a match of a folder above the path (GitIgnoreSpec ranks it lower)
_DIR_MARK = "(?P<d>/)"


def _own_line(line: str) -> tuple[str, bool] | None:
    """(the regular expression pathspec's GitIgnoreSpec makes of ``line``, for ``search``;
    whether it ignores, False for a ``!`` line), made here as pathspec makes it
    (``pathspec.patterns.gitignore.spec``); None for a line of another form (:data:`_OWN_LINE`)."""
    if not _OWN_LINE.fullmatch(line):
        return None
    include = not line.startswith("!")
    segments = (line if include else line[1:]).split("/")
    if segments.count("**") > 1:
        return None  # each `**` multiplies the ways a path can match
    is_dir = not segments[-1]
    if not segments[0]:
        del segments[0]  # `/x`: anchored to the .gitignore's folder
    elif len(segments) == 1 or (len(segments) == 2 and not segments[1]):
        if segments[0] != "**":
            segments.insert(0, "**")  # one name: at any depth
    if not segments[-1]:
        segments[-1] = "**"  # `x/`: the folder and everything below it
    if len(segments) > 1 and segments[-2:] == ["**", "**"]:
        del segments[-1]
    # pathspec's shortcuts for the patterns that match every path, or every path in a folder
    if segments == ["**"]:
        return (_DIR_MARK if is_dir else "."), include
    if segments == ["**", "*"]:
        return ".", include
    if segments == ["**", "*", "**"]:
        return (_DIR_MARK if is_dir else "/"), include
    parts = []
    need_slash = False
    end = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment == "**":
            if index == 0:
                parts.append("^(?:.+/)?")
            elif index < end:
                parts.append("(?:/.+)?")
                need_slash = True
            else:
                parts.append(_DIR_MARK if is_dir else "/")
            continue
        if index == 0:
            parts.append("^")
        if need_slash:
            parts.append("/")
        if segment == "*":
            parts.append("[^/]+")
        else:
            glob = _name_glob(segment)
            if glob is None:
                return None
            parts.append(glob)
        if index == end:
            parts.append("(?:" + _DIR_MARK + "|$)")
        need_slash = True
    return "".join(parts), include


def _name_glob(name: str) -> str | None:
    """A name's glob as a regular expression, as pathspec translates it (a bracket expression
    as it is, for ``re``); None for a bracket expression ``re`` reads otherwise than as written:
    a range that runs backwards (``[z-a]``: an error, and git matches nothing with it), ``--``."""
    out = []
    index = 0
    while index < len(name):
        char = name[index]
        if char == "[":
            close = name.index("]", index)
            body = name[index + 1 : close]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            if "--" in body or any(low > high for low, high in _RANGE.findall(body)):
                return None  # `--`: `re` warns of a set difference (reserved syntax)
            out.append("[" + ("^" if negated else "") + body + "]")
            index = close + 1
            continue
        out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
        index += 1
    return "".join(out)


class _GitignoreLines:
    """Lines of :data:`_OWN_LINE`'s form (:func:`_own_line`), matched as pathspec's GitIgnoreSpec
    matches them on its simple backend: the last line that matches the path itself decides; when
    none does, the last that matches a folder above it (with ``/``: the path is a folder)."""

    def __init__(self, lines: list[tuple[str, bool]]) -> None:
        self.negated = not all(include for _, include in lines)
        if self.negated:
            self.lines = [(re.compile(regex), include) for regex, include in reversed(lines)]
        else:  # no `!` line: any match ignores, and one search asks them all
            self.regex = re.compile("|".join(f"(?:{regex.replace(_DIR_MARK, '/')})" for regex, _ in lines))

    def match_file(self, rel: str) -> bool:
        """``rel``: relative with ``/`` separators, ending in ``/`` for a folder (as for pathspec)."""
        if not self.negated:
            return self.regex.search(rel) is not None
        ignored, rank = False, 0
        for regex, include in self.lines:
            found = regex.search(rel)
            if found is None:
                continue
            here = 1 if found.groupdict().get("d") else 2
            if here > rank:
                ignored, rank = include, here
                if here == 2:
                    break
        return ignored


class _FolderNames:
    """Patterns of the form ``name/`` as gitignore reads them (:data:`DEFAULT_EXCLUDE`):
    a folder of that name at any depth, and everything below it."""

    def __init__(self, patterns) -> None:
        assert all(p.endswith("/") and "/" not in p[:-1] and not any(c in p for c in "*?[!\\") for p in patterns)
        self.names = frozenset(p[:-1] for p in patterns)

    def match_file(self, rel: str) -> bool:
        """``rel``: relative with ``/`` separators, ending in ``/`` for a folder (as for pathspec)."""
        return not self.names.isdisjoint(rel.split("/")[:-1])


def _relative(top: str, path: str) -> str | None:
    """``path`` below ``top`` with ``/`` separators, ``.`` for ``top`` itself, None outside it
    (both absolute and normalised)."""
    if path == top:
        return "."
    prefix = top if top.endswith(os.sep) else top + os.sep
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix) :]
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def discover(
    paths: list[str],
    cwd: Path,
    exclude: list[str] | None = None,
    exclude_base: Path | None = None,
    use_gitignore: bool = True,
    force_exclude: bool = False,
) -> Discovery:
    """Find the skill packages under ``paths`` (relative to ``cwd``)."""
    result = Discovery()
    ignore = _Ignore(exclude_base or cwd, list(DEFAULT_EXCLUDE) + list(exclude or []), use_gitignore)
    seen_real: set[str] = set()  # real folders already searched
    packaged: set[str] = set()  # real folders already listed as packages
    outside: list[str] = []  # files given that belong to no skill
    for raw in paths or ["."]:
        given = Path(raw)
        path = given if given.is_absolute() else cwd / given
        path = Path(os.path.normpath(path))
        if os.path.islink(path):
            # A link named by itself, as pre-commit passes a committed one: inside a skill it is
            # one of the skill's files, so lint the skill (its rules say where the link leads)
            # and never search through it; in no skill, a dangling one is skipped like a file.
            owner = package_of_file(path)
            if owner is not None:
                if not (force_exclude and ignore.ignored(path, False)):
                    _add(result, packaged, Found(owner, owner, explicit=True))
                continue
            try:
                os.stat(path)
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                    outside.append(raw)  # dangling: no file to lint
                    continue
                raise DiscoveryError(f"{raw}: {_reason(exc)}") from None  # there, but not ours to read
        try:
            info = os.stat(path)
        except OSError as exc:
            if added_entry(path) is None:
                raise DiscoveryError(f"{raw}: {_reason(exc)}") from None
            info = None  # a new file an overlay adds (standard input): nothing on disk yet
        if info is not None and stat.S_ISDIR(info.st_mode):
            if ignore.ignored(path, True):
                if force_exclude:
                    continue
                ignore.exempt.append(path)
            if _walk(path, path, ignore, seen_real, packaged, result) == 0:
                try:
                    names = os.listdir(path)
                except OSError:
                    names = []
                if _looks_like_skill(names):
                    _add(result, packaged, Found(path, path, explicit=True, missing_skill_md=True))
                else:
                    result.warnings.append(f"{raw}: no skills found (no folder holds a SKILL.md)")
        elif info is None or stat.S_ISREG(info.st_mode):
            if force_exclude and ignore.ignored(path, False):
                continue
            owner = package_of_file(path)
            if owner is None:
                outside.append(raw)
                continue
            if _add(result, packaged, Found(owner, owner, explicit=True)):
                _note_fix_temps(result, str(owner))
        else:
            raise DiscoveryError(f"{raw}: not a regular file or directory")
    # pre-commit passes every changed file, most of them no skill's: skip those
    # quietly when something is linted, and say so once when nothing is.
    if outside and not result.packages:
        if len(outside) == 1:
            result.warnings.append(f"{outside[0]}: not inside a skill folder (no SKILL.md above it); skipped")
        else:
            shown = ", ".join(outside[:3]) + (", ..." if len(outside) > 3 else "")
            result.warnings.append(f"{len(outside)} files are not inside a skill folder (no SKILL.md above them); skipped: {shown}")
    return result


def _reason(exc: OSError) -> str:
    """An OSError in words, lower case, as the other errors of discovery are."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def _add(result: Discovery, packaged: set[str], found: Found, real: str | None = None) -> bool:
    """List a package unless an earlier argument or path already listed it; whether it did."""
    real = found.real = real or real_path_or_given(found.root)
    if real in packaged:
        return False
    packaged.add(real)
    result.packages.append(found)
    return True


def _note_fix_temps(result: Discovery, folder: str, names: list[str] | None = None) -> None:
    """Record the temporary files of ``check --fix`` in ``folder`` (``names``: its listing)."""
    if names is None:
        try:
            names = os.listdir(folder)
        except OSError:
            return
    for name in names:
        if is_fix_temp_name(name):
            path = os.path.join(folder, name)
            if path not in result.fix_temps:
                result.fix_temps.append(path)


def _repo_ancestors(start: Path) -> list[Path]:
    """Folders above ``start`` up to the repository root (the one holding .git),
    top first; empty when ``start`` is a repository root or not inside one."""
    if os.path.lexists(start / ".git"):
        return []
    chain: list[Path] = []
    for folder in start.parents:
        chain.append(folder)
        if os.path.lexists(folder / ".git"):
            return list(reversed(chain))
    return []


def _looks_like_skill(names: list[str]) -> bool:
    """A folder given without SKILL.md that still looks like a skill package.

    An empty folder or a plain repository is not one: `skilllint check .` where
    there are no skills warns and exits 0, as ruff does with no Python files.
    """
    return any(name in ("references", "scripts", "assets", "agents") for name in names) or any(
        name.lower().endswith(".md") and name.casefold() != "readme.md" for name in names
    )


def package_of_file(path: Path) -> Path | None:
    """The nearest folder at or above ``path``'s folder that holds a SKILL.md."""
    folder = path.parent
    if is_skill_md_name(path.name):
        return folder
    for candidate in (folder, *folder.parents):
        try:
            names = list_folder(candidate)  # with the folders of a new file an overlay adds (standard input)
        except OSError:
            return None
        if _has_skill_md(names):
            return candidate
        if ".git" in names:
            return None  # do not climb out of the repository
    return None


def _walk(
    start: Path, lint_root: Path, ignore: _Ignore, seen_real: set[str], packaged: set[str], result: Discovery
) -> int:
    """Search ``start``; return how many packages it holds (already listed ones included)."""
    real_root = Path(real_path_or_given(lint_root))
    # .gitignore files from the repository root down to ``start`` apply, as in git.
    for folder in _repo_ancestors(start):
        ignore.load_gitignore(folder)
    ignore.load_gitignore(start)
    # (folder, its real path): a plain child's real path is its parent's plus its name, so
    # only the start and linked folders need resolving (one lstat per path component).
    # Folders are strings until one is listed: Path arithmetic per folder was most of a walk's time.
    start_text = str(start)
    stack: list[tuple[str, str]] = [(start_text, real_path_or_given(start))]
    links: list[tuple[str, str]] = []  # linked folders: followed after every real folder, so a real path wins
    visited = 0
    hits = 0
    first = len(result.packages)
    candidates: list[Path] = []  # skills-root children without SKILL.md, judged after the walk
    endless: list[TreeLink] = []  # links that never end, judged after the walk (a skill's own are its rules')
    fates: dict[str, tuple[str, int]] = {}  # link -> how following it ends (_link_fate), shared by every link
    while stack or links:
        folder, real = stack.pop() if stack else links.pop(0)
        if real in seen_real:
            if folder == start_text:  # searched through an earlier argument: count what it holds
                hits += sum(1 for p in packaged if p == real or p.startswith(real + os.sep))
            continue
        seen_real.add(real)
        visited += 1
        if visited > MAX_DIRECTORIES:
            result.warnings.append(f"{start}: search stopped after {MAX_DIRECTORIES:,} folders")
            return hits
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            result.warnings.append(f"{folder}: cannot list ({exc.strerror or exc}); skipped")
            continue
        names = result.listings[folder] = [entry.name for entry in entries]
        if _has_skill_md(names):
            hits += 1
            _add(result, packaged, Found(Path(folder), lint_root, explicit=folder == start_text, names=names), real)
        else:
            parent = os.path.dirname(folder)
            if os.path.basename(parent) == "skills" and os.path.basename(os.path.dirname(parent)) in SKILLS_ROOT_PARENTS:
                candidates.append(Path(folder))
        ignore.load_gitignore(folder, names)
        children = []
        for entry in entries:
            if entry.name in ALWAYS_SKIPPED:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            child = entry.path
            if is_link:
                # Follow a linked folder only while it stays inside the linted tree. Where a
                # skill may be (a skills folder, a folder named on the command line), say why
                # a linked folder is not searched; a link to a file or to nothing is no folder.
                in_skills = os.path.basename(folder) == "skills"
                told = in_skills or folder == start_text
                try:
                    target = Path(real_path(child))
                except OSError as exc:  # a link we may not read (/proc/1/cwd), too many links
                    if exc.errno == errno.ELOOP:  # a cycle (a -> b -> a), or a chain longer than the OS follows
                        kind, hops = _link_fate(child, fates)
                        if kind in ("cycle", "chain") and not ignore.ignored(child, True):
                            try:
                                text = os.readlink(child)
                            except OSError:
                                continue
                            endless.append(TreeLink(Path(child), text, lint_root, kind, hops=hops))
                        continue
                    if in_skills:  # what it leads to is unknown: said only where every entry is a skill
                        result.warnings.append(f"{child}: symbolic link that cannot be resolved ({_reason(exc)}); not followed")
                    continue
                try:
                    loop = _endless(child, target, os.path.join(real, entry.name), real_root, lint_root)
                except OSError:
                    continue
                if loop is not None:
                    if not ignore.ignored(child, True):
                        endless.append(loop)
                    continue
                if not is_within(real_root, target):
                    if told and os.path.isdir(target):
                        result.warnings.append(
                            f"{child}: symbolic link leading outside the linted tree ({target}); "
                            "not followed (name the link itself to lint it)"
                        )
                    continue
                if not os.path.isdir(target):
                    # Where a surface looks for skill folders, a link to nothing is a skill that
                    # is not there (SL403); elsewhere (node_modules/.bin, build output) it is no
                    # concern of skills.
                    if in_skills and not os.path.lexists(target) and not ignore.ignored(child, True):
                        try:
                            endless.append(TreeLink(Path(child), os.readlink(child), lint_root, "dangling", target))
                        except OSError:
                            pass
                    continue
                if str(target) in seen_real or ignore.ignored(child, True):
                    continue
                links.append((child, str(target)))
                continue
            elif not is_dir:
                if entry.name.endswith(FIX_TEMP_SUFFIX):
                    _note_fix_temps(result, folder, [entry.name])
                continue
            if ignore.ignored(child, True):
                continue
            children.append((child, os.path.join(real, entry.name)))
        stack.extend(reversed(children))
    found = [item.root for item in result.packages[first:]]
    for folder in candidates:
        if not any(is_within(folder, root) for root in found):
            hits += 1
            _add(result, packaged, Found(folder, lint_root, missing_skill_md=True))
    roots = {item.root for item in result.packages}
    known = {link.path for link in result.endless_links}
    for link in endless:
        if link.path not in known and roots.isdisjoint(link.path.parents):
            known.add(link.path)
            result.endless_links.append(link)
    return hits


def _link_fate(child: str, fates: dict[str, tuple[str, int]]) -> tuple[str, int]:
    """How following the link ``child`` ends, link by link from the texts: ``("cycle", 0)``
    when it comes back to a link already passed (it is in a cycle or leads into one),
    ``("chain", hops)`` when it ends after more links than the kernel follows, ``("ends",
    hops)`` otherwise. Every link passed gets its fate in ``fates`` on the way back, so a
    search that asks about every link of a long cycle or chain reads each link once."""
    path, passed, index = child, [], {}
    while path not in fates:
        if path in index:
            fate = ("cycle", 0)
            break
        try:
            text = os.readlink(path)
        except OSError:  # the chain ends here (not a link, or unreadable)
            fate = ("ends", 0)
            break
        index[path] = len(passed)
        passed.append(path)
        path = os.path.normpath(os.path.join(os.path.dirname(path), text))
    else:
        fate = fates[path]
    kind, hops = fate
    for link in reversed(passed):
        if kind != "cycle":
            hops += 1
            kind = "chain" if hops > MAX_LINK_HOPS else "ends"
        fates[link] = (kind, hops)
    return fates.get(child, fate)


def _endless(child: str, target: Path, where: str, real_root: Path, lint_root: Path) -> TreeLink | None:
    """The link ``child`` (really at ``where``; ``target``: its realpath) as a :class:`TreeLink` when it
    never ends inside the linted tree: it leads to a folder that holds it, or realpath stopped on a
    link (a cycle). None otherwise, and for links out of the tree (never looked at beyond realpath)."""
    if not is_within(real_root, target):
        return None
    try:
        text = os.readlink(child)
        if os.path.islink(target):
            return TreeLink(Path(child), text, lint_root, "cycle")
    except OSError:
        return None
    if is_within(target, Path(where)) and os.path.isdir(target):
        return TreeLink(Path(child), text, lint_root, "ancestor", target)
    return None
