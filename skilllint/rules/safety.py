"""Containment and filesystem safety (SL4xx).

Every symbolic link in the package is judged from the package inventory
(:mod:`skilllint.inventory`): ``readlink`` text plus path arithmetic, links
inside the package expanded, never a link followed out of it. Special files
are recognised by ``lstat`` alone and never opened. The skill folder itself
and its SKILL.md are checked with ``os.readlink``/:func:`~skilllint.fsafe.real_path` on the
link only; the target is never opened or stat-ed.

SL407 reads nothing new: it scans the texts the reference graph already holds
(SKILL.md's body and the Markdown files it references).
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .. import lazyre
from ..diagnostics import Finding, Related, Severity, Span, clipped
from ..fsafe import is_within, real_path, real_path_or_given
from ..skill.inventory import MAX_LINK_HOPS
from ..skill.package import SkillPackage
from ..registry import Rule, RuleContext, severities

LINE_ONE = Span(1, 1, 1, 1)

# -- links ----------------------------------------------------------------------


@dataclass(frozen=True)
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


def _nested_skill_folders(package: SkillPackage) -> set[str]:
    """Sub-folders holding their own SKILL.md: packages of their own, linted on their own."""
    folders = set()
    for rel in package.inventory.entries:
        parent, _, name = rel.rpartition("/")
        if parent and name.casefold() == "skill.md":
            folders.add(parent)
    return folders


def _own_entries(package: SkillPackage, ctx: RuleContext, kinds: str) -> list:
    """This package's symlinks or special files, those of nested skills left to them."""
    key = f"safety.{kinds}"
    cached = ctx.memo.get(key)
    if cached is None:
        nested = _nested_skill_folders(package)
        entries = package.inventory.symlinks() if kinds == "links" else package.inventory.specials()
        cached = []
        for entry in sorted(entries, key=lambda e: e.rel):
            folder = posixpath.dirname(entry.rel)
            while folder and folder not in nested:
                folder = posixpath.dirname(folder)
            if not folder:
                cached.append(entry)
        ctx.memo[key] = cached
    return cached


def _is_ancestor_cycle(entry, package: SkillPackage) -> bool:
    """A link inside the package to a folder that holds the link (``x -> ..``)."""
    link = entry.link
    if link is None or link.status != "inside" or link.resolved is None:
        return False
    target = package.inventory.entries.get(link.resolved)
    if target is None or target.kind != "dir":
        return False
    return link.resolved == "." or entry.rel.startswith(link.resolved + "/")


MAX_SHOWN_HOPS = 5  # links of a chain a message and its notes show: every link of every link's chain grows with its square


def _chain(hops: tuple[tuple[str, str], ...]) -> str:
    shown = ", ".join(f"`{rel}` -> `{text}`" for rel, text in hops[:MAX_SHOWN_HOPS])
    return shown + _more_links(hops)


def _more_links(hops: tuple[tuple[str, str], ...]) -> str:
    more = len(hops) - MAX_SHOWN_HOPS
    if more <= 0:
        return ""
    counted = "at least " if len(hops) > MAX_LINK_HOPS else ""  # the replay stops past the system's bound
    return f", and {counted}{more} more link{'s' if more != 1 else ''}"


def _hop_notes(package: SkillPackage, hops: tuple[tuple[str, str], ...]) -> list[Related]:
    """One note per further link in the chain shown."""
    return [
        Related(f"`{rel}` is a symbolic link to `{text}`", package.root / rel, LINE_ONE)
        for rel, text in hops[1:MAX_SHOWN_HOPS]
    ]


class SymlinkEscapesPackage(Rule):
    code = "SL401"
    name = "symlink-escapes-package"
    summary = "A symbolic link in the package resolves outside the skill folder"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for entry in _own_entries(package, ctx, "links"):
            if entry.link is None or entry.link.status != "escapes":
                continue
            if entry.rel == package.skill_md_name and package.skill_md_dangles:
                continue  # it leads nowhere: one finding, SL403's or SL404's
            route = trace(package, entry.rel)
            via = f" (through {_chain(route.hops[1:])})" if len(route.hops) > 1 else ""
            where = route.outside or entry.link.outside
            notes = _hop_notes(package, route.hops)
            if where:
                notes.append(Related("where the link leads, outside the skill folder", Path(where), LINE_ONE))
            yield Finding(
                f"`{entry.rel}` is a symbolic link to `{entry.link.text}`{via}, which leads outside the skill "
                "folder: a copy installed or uploaded elsewhere dangles or picks up whatever is at that path, "
                "and archivers that follow links pack it into the skill; skilllint did not follow it",
                LINE_ONE,
                path=package.root / entry.rel,
                related=tuple(notes),
            )


class SymlinkInPackage(Rule):
    code = "SL402"
    name = "symlink-in-package"
    summary = "A symbolic link that stays inside the package"
    severity = severities("info: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for entry in _own_entries(package, ctx, "links"):
            if entry.link is None or entry.link.status != "inside" or _is_ancestor_cycle(entry, package):
                continue
            if entry.rel == package.skill_md_name:
                continue  # a linked SKILL.md is SL405's
            real = entry.link.resolved or "."
            target = package.inventory.entries.get(real)
            noun = "folder" if real == "." or (target is not None and target.kind == "dir") else "file"
            yield Finding(
                f"`{entry.rel}` is a symbolic link to `{entry.link.text}` (the {noun} `{real}` in the skill): "
                + (
                    "it works here, but package_skill.py leaves a linked folder out of the archive, and a Windows "
                    "checkout without symlink support gets a text file holding the path"
                    if noun == "folder"
                    else "it works here, but archivers store either the link or a second copy, and a Windows "
                    "checkout without symlink support gets a text file holding the path"
                ),
                LINE_ONE,
                path=package.root / entry.rel,
                related=(Related(f"the link's target, `{real}`", package.root / real, LINE_ONE),),
            )


class SymlinkBroken(Rule):
    code = "SL403"
    name = "symlink-broken"
    summary = "A symbolic link whose target does not exist"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for entry in _own_entries(package, ctx, "links"):
            if entry.link is None or entry.link.status != "broken":
                continue
            route = trace(package, entry.rel)
            missing = route.real or entry.link.resolved
            notes = _hop_notes(package, route.hops)
            if missing:
                notes.append(Related(f"nothing exists at `{missing}`", package.root / missing, LINE_ONE))
            if not entry.link.text:
                message = f"`{entry.rel}` is a symbolic link that cannot be read"
            else:
                parts = []
                if missing and missing != posixpath.normpath(entry.link.text):
                    parts.append(f"`{missing}` in the skill")
                if len(route.hops) > 1:
                    parts.append(f"through {_chain(route.hops[1:])}")
                shown = f" ({', '.join(parts)})" if parts else ""
                message = (
                    f"`{entry.rel}` is a symbolic link to `{entry.link.text}`{shown}, which does not exist: "
                    "reading or running it fails"
                )
            yield Finding(message, LINE_ONE, path=package.root / entry.rel, related=tuple(notes))
        yield from _skill_md_leads_nowhere(package, ctx, "missing")

    def check_tree_link(self, link) -> Finding:
        """A :class:`~skilllint.discovery.TreeLink` to nothing in a folder where surfaces look for skills."""
        shown = _tree_relative(link.path, link.lint_root)
        top = Path(os.path.realpath(link.lint_root))
        missing = _tree_relative(link.target, top)
        where = f" (`{missing}` in the linted tree)" if missing != posixpath.normpath(link.text) else ""
        return Finding(
            f"`{shown}` is a symbolic link to `{link.text}`{where}, which does not exist: a surface that looks "
            f"for skills in `{_tree_relative(link.path.parent, link.lint_root)}/` finds no skill there",
            LINE_ONE,
            path=link.path,
            related=(Related(f"nothing exists at `{missing}`", link.target, LINE_ONE),),
        )


class SymlinkLoop(Rule):
    code = "SL404"
    name = "symlink-loop"
    summary = "A symbolic link that never resolves (a cycle of links) or links to a folder holding it"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for entry in _own_entries(package, ctx, "links"):
            if entry.link is None:
                continue
            if entry.link.status == "loop":
                route = trace(package, entry.rel)
                yield Finding(
                    f"`{entry.rel}` is a symbolic link that never resolves: a cycle of links "
                    f"({_chain(route.hops)}); opening it fails with 'too many levels of symbolic links'",
                    LINE_ONE,
                    path=package.root / entry.rel,
                    related=tuple(_hop_notes(package, route.hops)),
                )
            elif _is_ancestor_cycle(entry, package):
                real = entry.link.resolved or "."
                shown = "the skill folder" if real == "." else f"`{real}`"
                name = posixpath.basename(entry.rel)
                yield Finding(
                    f"`{entry.rel}` is a symbolic link to `{entry.link.text}`, {shown}, which holds the link "
                    f"itself: anything that follows links walks `{entry.rel}/…/{name}/{name}/…` without end "
                    "(archivers, copies, searches, skill discovery)",
                    LINE_ONE,
                    path=package.root / entry.rel,
                    related=(Related("the folder it leads back to", package.root / real, LINE_ONE),),
                )
        yield from _skill_md_leads_nowhere(package, ctx, "loop")

    def check_tree_link(self, link) -> Finding:
        """A :class:`~skilllint.discovery.TreeLink`: an endless link outside every skill folder."""
        shown = _tree_relative(link.path, link.lint_root)
        if link.kind == "chain":
            return Finding(
                f"`{shown}` is a symbolic link to `{link.text}` that never resolves: it reaches a file only after "
                f"{link.hops} links, more than the {MAX_LINK_HOPS} the system follows; opening it fails with "
                "'too many levels of symbolic links'",
                LINE_ONE,
                path=link.path,
            )
        if link.kind == "cycle":
            return Finding(
                f"`{shown}` is a symbolic link to `{link.text}` that never resolves (a cycle of links): opening "
                "it fails with 'too many levels of symbolic links'",
                LINE_ONE,
                path=link.path,
            )
        top = Path(os.path.realpath(link.lint_root))
        held = "the linted tree's top folder" if link.target == top else f"`{_tree_relative(link.target, top)}`"
        name = link.path.name
        return Finding(
            f"`{shown}` is a symbolic link to `{link.text}`, {held}, which holds the link itself: anything "
            f"that follows links walks `{shown}/…/{name}/{name}/…` without end (archivers, copies, searches, "
            "skill discovery); skilllint searched that folder once, under its real name",
            LINE_ONE,
            path=link.path,
            related=(Related("the folder it leads back to", link.target, LINE_ONE),),
        )


def _tree_relative(path: Path, top: Path) -> str:
    """``path`` relative to the linted tree, else in full."""
    return path.relative_to(top).as_posix() if is_within(top, path) and path != top else str(path)


def _skill_md_leads_nowhere(package: SkillPackage, ctx: RuleContext, outcome: str) -> Iterator[Finding]:
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
        where = _where(link.real, os.path.realpath(package.lint_root))
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


class SkillIsSymlink(Rule):
    code = "SL405"
    name = "skill-is-symlink"
    summary = "The skill folder or its SKILL.md is itself a symbolic link"
    severity = severities("info: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        lint_real = real_path_or_given(package.lint_root)
        root = package.root
        if os.path.islink(root):
            try:
                text = os.readlink(root)
                real = real_path(root)
            except OSError:  # a link we may not read: nothing to say where it leads
                text = None
            if text is not None:
                yield Finding(
                    f"the skill folder `{root.name}` is a symbolic link to `{text}` ({_where(real, lint_real)}): "
                    "surfaces follow it and load the skill from there, so skilllint judged containment at that "
                    "real location; a fresh clone or an archive that does not carry the target has no skill",
                    LINE_ONE,
                    path=root,
                    related=(Related("the real skill folder", Path(real), LINE_ONE),),
                )
        name = package.skill_md_name
        if name is None:
            return
        skill_md = root / name
        if not os.path.islink(skill_md) or package.skill_md_dangles:
            return  # a link leading nowhere is SL403's (missing target) or SL404's (cycle)
        try:
            text = os.readlink(skill_md)
            real = real_path(skill_md)
        except OSError:  # a link we may not read (SL013 says it cannot be read)
            return
        real_root = package.real_root
        if is_within(Path(real_root), Path(real)):
            inside = Path(real).relative_to(real_root).as_posix()
            where = "in the skill folder" if inside == posixpath.normpath(text) else f"`{inside}` in the skill folder"
        else:
            where = _where(real, lint_real)
        read = "skilllint read it at its real location" if package.readable else "skilllint did not read it (SL013)"
        codex = "codex" in ctx.target_ids
        if codex and len(ctx.target_ids) == 1:
            effect = "Codex's skill discovery skips a linked SKILL.md, so Codex does not load this skill"
        elif codex:
            effect = (
                "surfaces that follow it load that file, but Codex's skill discovery skips a linked SKILL.md "
                "and does not load this skill"
            )
        else:
            effect = "surfaces that follow it load that file; zip uploads and Windows checkouts may not keep the link"
        yield Finding(
            f"{name} is a symbolic link to `{text}` ({where}): {effect}; {read}",
            LINE_ONE,
            path=skill_md,
            severities={"codex": Severity.WARNING} if codex else None,
            related=(Related("the file it stands for", Path(real), LINE_ONE),),
        )


def _where(real: str, lint_real: str) -> str:
    """A real location, relative to the linted root when inside it, else absolute."""
    if real != lint_real and is_within(Path(lint_real), Path(real)):
        return f"`{Path(real).relative_to(lint_real).as_posix()}` in the linted tree"
    return f"{real}, outside the linted tree" if real != lint_real else f"really {real}"


_SPECIAL_NAMES = {
    "fifo": "a FIFO (named pipe): opening it blocks until another process writes to it",
    "socket": "a socket: opening it as a file fails",
    "char-device": "a character device: reading it reads a device or kernel data, possibly without end",
    "block-device": "a block device: reading it reads a disk",
    "other": "a special file, not a regular one",
}


class SpecialFile(Rule):
    code = "SL406"
    name = "special-file"
    summary = "A FIFO, socket or device node inside the package"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for entry in _own_entries(package, ctx, "specials"):
            what = _SPECIAL_NAMES.get(entry.kind, _SPECIAL_NAMES["other"])
            yield Finding(
                f"`{entry.rel}` is {what}; an agent or tool that opens it hangs or fails, git does not store it "
                "and package_skill.py leaves it out; skilllint did not open it",
                LINE_ONE,
                path=package.root / entry.rel,
            )


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


@dataclass(frozen=True)
class HomePath:
    """A path into a home folder, as written in the text."""

    line: int  # 1-based file line
    column: int  # 1-based
    end_column: int
    text: str  # the whole path as written
    home: str  # `/Users/name`, `C:\Users\name`
    rest: str  # what follows the home folder, without the leading separator


def find_home_paths(text: str, first_line: int = 1) -> list[HomePath]:
    """Every per-user absolute path in ``text`` (placeholders and shared accounts left out)."""
    found = []
    for index, line in enumerate(text.split("\n")):
        if "/home/" not in line and "sers" not in line and "SERS" not in line:
            continue  # cheap test before the regular expression
        for match in _HOME.finditer(line):
            name = match.group("uname") or match.group("wname") or ""
            if is_placeholder_user(name):
                continue
            end = match.end()
            tail = _PATH_REST.match(line, end)
            stop = tail.end() if tail else end
            written = line[match.start() : stop].rstrip(".,;:!?*_")
            home = line[match.start() : end]
            rest = written[len(home) :].lstrip("\\/")
            found.append(HomePath(first_line + index, match.start() + 1, match.start() + 1 + len(written), written, home, rest))
    return found


class HardcodedUserPath(Rule):
    code = "SL407"
    name = "hardcoded-user-path"
    summary = "An absolute path in one user's home folder in the body"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        graph = package.references
        skill_md = package.skill_md_name or "SKILL.md"
        for source, text in graph.texts.items():
            first_line = package.body_start_line + 1 if source == skill_md else 1
            path = package.skill_md_path if source == skill_md else package.root / source
            by_home: dict[str, list[HomePath]] = {}
            for hit in find_home_paths(text, first_line):
                by_home.setdefault(hit.home.replace("\\\\", "\\"), []).append(hit)
            for home, hits in by_home.items():
                first = hits[0]
                message = (
                    f"`{clipped(first.text)}` is an absolute path in the home folder of one user (`{clipped(home)}`): "
                    "it exists only on that machine and names its owner"
                )
                message += f"; {_advice(package, first)}"
                if len(hits) > 1:
                    message += f" ({len(hits) - 1} more mention{'s' if len(hits) > 2 else ''} of `{clipped(home)}` in this file)"
                notes = [
                    Related(f"also `{clipped(hit.text)}`", path, Span(hit.line, hit.column, hit.line, hit.end_column))
                    for hit in hits[1:6]
                ]
                if source != skill_md:
                    parent = graph.parents.get(source)
                    if parent is not None:
                        notes.insert(0, _loaded_from(package, graph, parent, source, skill_md))
                yield Finding(
                    message,
                    Span(first.line, first.column, first.line, first.end_column),
                    path=path,
                    related=tuple(notes),
                )


def _advice(package: SkillPackage, hit: HomePath) -> str:
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


def _loaded_from(package, graph, parent: str, source: str, skill_md: str) -> Related:
    line = 1
    for ref in graph.references:
        if ref.source == parent and ref.resolved == source:
            line = ref.line
            break
    path = package.skill_md_path if parent == skill_md else package.root / parent
    chain = " -> ".join(graph.chain(source))
    return Related(f"loaded through {chain}", path, Span(line, 1, line, 1))


RULES = [
    SymlinkEscapesPackage,
    SymlinkInPackage,
    SymlinkBroken,
    SymlinkLoop,
    SkillIsSymlink,
    SpecialFile,
    HardcodedUserPath,
]
