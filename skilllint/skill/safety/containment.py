"""Containment and filesystem safety: the link traces and paths the SL4xx rules read.

Every symbolic link in the package is judged from the package inventory
(:mod:`skilllint.skill.inventory`): ``readlink`` text plus path arithmetic, links
inside the package expanded, never a link followed out of it. Special files
are recognised by ``lstat`` alone and never opened. The skill folder itself
and its SKILL.md are checked with ``os.readlink``/:func:`~skilllint.fsafe.real_path` on the
link only; the target is never opened or stat-ed.

SL407 scans the texts the reference graph already holds (SKILL.md's body and the Markdown
files it references) and the package's scripts the script checks read.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ... import lazyre
from ...diagnostics import Finding, Related, Span, clipped
from ...fsafe import is_within
from ..inventory import MAX_LINK_HOPS
from ..package import SkillPackage

LINE_ONE = Span(1, 1, 1, 1)


# -- links ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class Trace:
    """The hops a link takes, replayed on the inventory (for messages and notes)."""

    hops: tuple[tuple[str, str], ...]  # (link, its text), in order
    outcome: str  # ok | missing | outside | loop
    real: str | None  # package-relative, when ok or missing
    outside: str | None  # absolute path, when it leaves the package


def trace(package: SkillPackage, rel: str) -> Trace:
    """Replay the resolution of link ``rel`` as :meth:`PackageInventory.resolve`
    does, recording every link met. Uses the texts the inventory recorded, so
    nothing is read; the outside path is computed, never visited."""
    inventory = package.inventory
    entry = inventory.entries[rel]
    text = entry.link.text if entry.link else ""
    hops: list[tuple[str, str]] = [(rel, text)]
    seen = {rel}
    base_real = package.real_root  # containment is judged at the real location
    if text.startswith("/"):
        return Trace(tuple(hops), "outside", None, posixpath.normpath(text))
    parts = [p for p in posixpath.join(posixpath.dirname(rel), text).split("/") if p not in ("", ".")]
    current: list[str] = []
    while parts:
        part = parts.pop(0)
        if part == "..":
            if not current:
                outside = posixpath.normpath(posixpath.join(base_real, "..", *parts))
                return Trace(tuple(hops), "outside", None, outside)
            current.pop()
            continue
        candidate = "/".join([*current, part])
        found = inventory.entries.get(candidate)
        if found is None:
            return Trace(tuple(hops), "missing", "/".join([candidate, *parts]), None)
        if found.kind == "symlink":
            link_text = found.link.text if found.link else ""
            if candidate in seen or len(hops) > MAX_LINK_HOPS:
                return Trace(tuple(hops), "loop", None, None)
            hops.append((candidate, link_text))
            seen.add(candidate)
            if link_text.startswith("/"):
                return Trace(tuple(hops), "outside", None, posixpath.normpath(posixpath.join(link_text, *parts)))
            if not link_text:
                return Trace(tuple(hops), "missing", candidate, None)
            joined = posixpath.join(posixpath.dirname(candidate), link_text)
            parts = [p for p in joined.split("/") if p not in ("", ".")] + parts
            current = []
            continue
        if parts and found.kind != "dir":
            return Trace(tuple(hops), "missing", "/".join([candidate, *parts]), None)
        current.append(part)
    return Trace(tuple(hops), "ok", "/".join(current) or ".", None)


def own_entries(package: SkillPackage, memo: dict, kinds: str) -> list:
    """This package's symlinks or special files, those of nested skills left to them (kept in
    ``memo``, the rules' per-package scratch)."""
    key = f"safety.{kinds}"
    cached = memo.get(key)
    if cached is None:
        inventory = package.inventory
        entries = inventory.symlinks() if kinds == "links" else inventory.specials()
        cached = [entry for entry in sorted(entries, key=lambda e: e.rel) if not inventory.in_nested_skill(entry.rel)]
        memo[key] = cached
    return cached


def is_ancestor_cycle(entry, package: SkillPackage) -> bool:
    """A link inside the package to a folder that holds the link (``x -> ..``)."""
    link = entry.link
    if link is None or link.status != "inside" or link.resolved is None:
        return False
    target = package.inventory.entries.get(link.resolved)
    if target is None or target.kind != "dir":
        return False
    return link.resolved == "." or entry.rel.startswith(link.resolved + "/")


MAX_SHOWN_HOPS = 5  # links of a chain a message and its notes show: every link of every link's chain grows with its square


def link_chain(hops: tuple[tuple[str, str], ...]) -> str:
    shown = ", ".join(f"`{rel}` -> `{text}`" for rel, text in hops[:MAX_SHOWN_HOPS])
    return shown + _more_links(hops)


def _more_links(hops: tuple[tuple[str, str], ...]) -> str:
    more = len(hops) - MAX_SHOWN_HOPS
    if more <= 0:
        return ""
    counted = "at least " if len(hops) > MAX_LINK_HOPS else ""  # the replay stops past the system's bound
    return f", and {counted}{more} more link{'s' if more != 1 else ''}"


def hop_notes(package: SkillPackage, hops: tuple[tuple[str, str], ...]) -> list[Related]:
    """One note per further link in the chain shown."""
    return [
        Related(f"`{rel}` is a symbolic link to `{text}`", package.root / rel, LINE_ONE)
        for rel, text in hops[1:MAX_SHOWN_HOPS]
    ]


def tree_relative(path: Path, top: Path) -> str:
    """``path`` relative to the linted tree, else in full."""
    return path.relative_to(top).as_posix() if is_within(top, path) and path != top else str(path)


def skill_md_leads_nowhere(package: SkillPackage, outcome: str) -> Iterator[Finding]:
    """A linked SKILL.md that leaves the skill folder and dangles (``missing``) or never resolves
    (``loop``). A link that stays in the folder is judged with the other entries above."""
    link = package.skill_md_link
    if link is None or link.outcome != outcome:
        return
    entry = package.inventory.entries.get(package.skill_md_name or "")
    if entry is not None and entry.link is not None and entry.link.status != "escapes":
        return  # resolved inside the package: reported as any other link there
    name = package.skill_md_name
    if outcome == "missing":
        where = shown_location(link.real, os.path.realpath(package.lint_root))
        message = (
            f"{name} is a symbolic link to `{link.text}` ({where}), which does not exist: no surface can load "
            "this skill"
        )
        note = Related("nothing exists here", Path(link.real), LINE_ONE)
    else:
        message = (
            f"{name} is a symbolic link to `{link.text}` that never resolves (a cycle of links): opening it fails "
            "with 'too many levels of symbolic links', so no surface can load this skill"
        )
        note = Related("where resolving stops", Path(link.real), LINE_ONE)
    yield Finding(message, LINE_ONE, path=package.skill_md_path, related=(note,))


def shown_location(real: str, lint_real: str) -> str:
    """A real location, relative to the linted root when inside it, else absolute."""
    if real != lint_real and is_within(Path(lint_real), Path(real)):
        return f"`{Path(real).relative_to(lint_real).as_posix()}` in the linted tree"
    return f"{real}, outside the linted tree" if real != lint_real else f"really {real}"


SPECIAL_NAMES = {
    "fifo": "a FIFO (named pipe): opening it blocks until another process writes to it",
    "socket": "a socket: opening it as a file fails",
    "char-device": "a character device: reading it reads a device or kernel data, possibly without end",
    "block-device": "a block device: reading it reads a disk",
    "other": "a special file, not a regular one",
}


# -- hardcoded per-user paths ------------------------------------------------------

_NAME_CHARS = r"[^\\/\s`'\"<>()\[\]|;,:*?]"


_HOME = lazyre.compile(
    r"(?:(?<=file://)|(?<![\w.~$%/\\-]))"
    r"(?:"
    r"(?P<unix>/(?:Users|home)/)(?P<uname>[^/\s`'\"<>()\[\]{}|;,:*?]+)"
    r"|(?P<win>[A-Za-z]:(?P<sep>\\\\|\\|/)(?i:users)(?P=sep))"
    rf"(?P<wname>{_NAME_CHARS}+(?: {_NAME_CHARS}+)*(?=\\|/)|{_NAME_CHARS}+)"
    r")"
)


_PATH_REST = lazyre.compile(r"[^\s`'\"<>()|]*")


# Names that show the author meant "your user name" (the corpus writes `you`,
# `yourname`, `userName`, `myuserName`, `example`, `John Doe`, `jdoe`, `me`).
_PLACEHOLDER_PARTS = (
    "user", "your", "name", "example", "sample", "placeholder", "someone", "somebody",
    "usuario", "utilisateur", "benutzer", "utente", "用户", "用戶", "使用者", "ユーザ", "사용자", "名前",
)


_PLACEHOLDER_NAMES = frozenset(
    {
        "you", "me", "me2", "i", "x", "xx", "xxx", "foo", "bar", "baz", "test", "tester", "dev", "developer",
        "john", "jane", "johndoe", "janedoe", "john doe", "jane doe", "jdoe", "jsmith", "john smith", "doe",
        "someuser", "anyone", "person", "profile", "admin", "alias", "account", "login", "who", "whoever",
        # the stock cast of examples in computing texts (Alice sends to Bob, Eve listens)
        "alice", "bob", "carol", "charlie", "dave", "eve", "mallory",
    }
)


# Fixed accounts of well-known environments: the same path on every machine of
# that kind (dev containers, CI runners, cloud images, notebooks, Homebrew).
_ENVIRONMENT_ACCOUNTS = frozenset(
    {
        "shared", "public", "default", "default user", "all users", "guest",
        "runner", "runneradmin", "vscode", "codespace", "codespaces", "node", "ubuntu", "ec2-user", "debian",
        "jovyan", "linuxbrew", "agent", "coder", "gitpod", "vagrant", "pi", "circleci", "travis", "docker",
        "app", "root", "nobody", "www-data",
        "claude",  # claude.ai's code-execution sandbox works in /home/claude, where uploaded skills run
    }
)


def is_placeholder_user(name: str) -> bool:
    folded = name.casefold().strip()
    if not folded or re.search(r"[<>{}$%*…]|\.\.", folded) or folded.isdigit():
        return True  # `<you>`, `${USER}`, `%USERNAME%`, `...`; a number is an id in a route (`/Users/42`)
    spaced = re.sub(r"[._-]+", " ", folded)  # `john.doe`, `jane_doe` as `john doe`
    if folded in _PLACEHOLDER_NAMES or folded in _ENVIRONMENT_ACCOUNTS or spaced in _PLACEHOLDER_NAMES:
        return True
    return any(part in folded for part in _PLACEHOLDER_PARTS)


@dataclass(frozen=True, eq=False, repr=False)
class HomePath:
    """A path into a home folder, as written in the text."""

    line: int  # 1-based file line
    column: int  # 1-based
    end_column: int
    text: str  # the whole path as written
    home: str  # `/Users/name`, `C:\Users\name`
    rest: str  # what follows the home folder, without the leading separator


def find_home_paths(text: str, first_line: int = 1, markdown: bool = True) -> list[HomePath]:
    """Every per-user absolute path in ``text`` (placeholders and shared accounts left out), less
    the accounts the text names as a thing of their own (:func:`_accounts_named`) and the paths it
    shows as the wrong way to write one (:func:`_shown_as_wrong`). ``markdown``: whether ``text``
    is Markdown (its headings head sections) or a script (where ``#`` opens a comment)."""
    found = []
    lines = text.split("\n")
    named: set[str] | None = None
    headings: list[int] | None = None
    for index, line in enumerate(lines):
        if "/home/" not in line and "sers" not in line and "SERS" not in line:
            continue  # cheap test before the regular expression
        for match in _HOME.finditer(line):
            name = match.group("uname") or match.group("wname") or ""
            if is_placeholder_user(name):
                continue
            if named is None:
                named = _accounts_named(text)
            if all(part in named for part in name.casefold().split()):
                continue
            end = match.end()
            tail = _PATH_REST.match(line, end)
            stop = tail.end() if tail else end
            if markdown and headings is None:
                headings = _headings_above(lines)
            if _shown_as_wrong(lines, index, line[: match.start()] + line[stop:], headings[index] if headings is not None else None):
                continue
            written = line[match.start() : stop].rstrip(".,;:!?*_")
            home = line[match.start() : end]
            rest = written[len(home) :].lstrip("\\/")
            found.append(HomePath(first_line + index, match.start() + 1, match.start() + 1 + len(written), written, home, rest))
    return found


# A word of the text outside any path: not after or before a path separator (`/home/dnanexus/`
# names the account; "DNAnexus workers" names the platform whose account it is).
_PROSE_WORD = lazyre.compile(r"(?<![\w/\\.-])[^\W\d_][\w-]*(?![\w/\\-])")


def _accounts_named(text: str) -> set[str]:
    """The words ``text`` writes outside paths, folded. A home folder whose account the text also
    names as a word is the fixed account of an environment the text is about, the same on every
    machine of that kind (`/home/dnanexus` on DNAnexus workers, `C:\\users\\crossover` in a
    CrossOver bottle): a person's login turns up in a pasted path, not in the prose around it."""
    return {word.casefold() for word in _PROSE_WORD.findall(text)}


# Marks that show what follows as the wrong way, a counter-example ("❌ breaks on other machines",
# "# BAD:", "Don't hardcode …"): the author shows the path to say it must not be written.
_WRONG_WAY = lazyre.compile(r"(?i)❌|🚫|⛔|✗|✘|\b(?:bad|wrong|incorrect|don['’]t|do not|avoid|never|anti-?patterns?)\b")


MAX_LEAD_LINES = 12  # lines above a path read for the mark of its counter-example


def _headings_above(lines: list[str]) -> list[int]:
    """For each line, the index of the nearest ATX heading at or above it (-1 without one)."""
    from ..text.markdown import is_atx_heading

    above, current = [], -1
    for index, line in enumerate(lines):
        if line.lstrip().startswith("#") and is_atx_heading(line):
            current = index
        above.append(current)
    return above


def _shown_as_wrong(lines: list[str], index: int, around: str, heading: int | None) -> bool:
    """Whether the path on line ``index`` is shown as a counter-example: its line (``around``: the
    line without the path), the lines of its block above it (back to a blank line or the block's
    fence, and then the sentence that leads into the block), or the heading right above them
    (``heading``: the index of the nearest heading, -1 for none; None for a script, where only the
    line right above, its comment, is read) marks it as the wrong way. A heading further up heads
    a section, not the path: "❌ model X doesn't exist … Files to update: `/home/jez/…`"."""
    from ..text.markdown import FENCE_LINE, fence_opening

    if _WRONG_WAY.search(around):
        return True
    if heading is None:  # a script: the comment right above a statement is what labels it
        at = index - 1
        while at >= 0 and index - at <= MAX_LEAD_LINES and not lines[at].strip():
            at -= 1
        return at >= 0 and _WRONG_WAY.search(lines[at]) is not None
    lead = waiting = False  # past the block's opening fence; its lead-in not read yet
    at = index - 1
    while at >= 0 and index - at <= MAX_LEAD_LINES:
        line = lines[at]
        if at == heading:
            return _WRONG_WAY.search(line) is not None
        if not line.strip():
            while at >= 0 and index - at <= MAX_LEAD_LINES and not lines[at].strip():
                at -= 1
            if at < 0 or not lines[at].strip() or (at != heading and not waiting):
                return False  # the heading must lead the passage, not head a section further up
            waiting = False
            continue
        if FENCE_LINE.match(line) or fence_opening(line) is not None:
            if lead:
                return False
            lead = waiting = True
        elif _WRONG_WAY.search(line):
            return True
        else:
            waiting = False
        at -= 1
    return False


def advice(package: SkillPackage, hit: HomePath) -> str:
    """Point at the skill-relative path when the path runs through this skill's folder."""
    segments = [s for s in re.split(r"[\\/]+", hit.rest) if s]
    folder = package.root.name
    for index, segment in enumerate(segments):
        if segment != folder or index + 1 >= len(segments):
            continue
        inside = "/".join(segments[index + 1 :])
        if package.inventory.resolve(inside)[0] == "ok":
            return f"write the path from the skill folder (`{inside}`)"
    if hit.home.startswith("/"):
        shown = f"~/{clipped(hit.rest)}" if hit.rest else "~"
        return f"write `{shown}` or `$HOME/…`, or a path relative to the skill folder"
    return "write `%USERPROFILE%\\…` (or `~\\…` in PowerShell), or a path relative to the skill folder"


def loaded_from(package, graph, parent: str, source: str, skill_md: str) -> Related:
    line = 1
    for ref in graph.references:
        if ref.source == parent and ref.resolved == source:
            line = ref.line
            break
    path = package.skill_md_path if parent == skill_md else package.root / parent
    chain = " -> ".join(graph.chain(source))
    return Related(f"loaded through {chain}", path, Span(line, 1, line, 1))
