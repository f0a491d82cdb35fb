"""Which paths a walk leaves out: the configuration's ``exclude`` patterns, the default folders
(``.git/``, ``node_modules/``, virtual environments, caches) and every ``.gitignore`` met, read as
git reads them.

A ``.gitignore`` whose lines all name folders (``build/``, ``__pycache__/``), as most do, is
matched here by name; any other line goes to pathspec (imported only then), on its simple backend.
A line git cannot read (a lone ``!``, a trailing backslash, a range that runs backwards) matches
nothing, as in git; in the configuration it is an error (:mod:`skilllint.config.settings`).
"""

from __future__ import annotations

import os
import re
import stat
from contextlib import contextmanager
from pathlib import Path

from ..fsafe import is_within

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


class Ignore:
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
        rel = relative_path(str(self.base), text)
        if rel is not None:
            exempt = any(is_within(root, path) for root in self.exempt)
            spec = self.defaults if exempt else self.exclude
            if rel != "." and spec.match_file(rel + suffix):
                return True
        for folder, spec in self._specs_above(os.path.dirname(text)):
            rel = relative_path(folder, text)
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


def relative_path(top: str, path: str) -> str | None:
    """``path`` below ``top`` with ``/`` separators, ``.`` for ``top`` itself, None outside it
    (both absolute and normalised)."""
    if path == top:
        return "."
    prefix = top if top.endswith(os.sep) else top + os.sep
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix) :]
    return rel if os.sep == "/" else rel.replace(os.sep, "/")
