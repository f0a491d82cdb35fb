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
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..fsafe import MAX_LINK_HOPS, added_entry, is_within, list_folder, real_path, real_path_or_given
from ..safewrite import FIX_TEMP_SUFFIX, is_fix_temp_name
from ..skill.inventory import is_skill_md_name
from .gitignore import DEFAULT_EXCLUDE, Ignore

ALWAYS_SKIPPED = frozenset({".git", "node_modules"})
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
    ignore = Ignore(exclude_base or cwd, list(DEFAULT_EXCLUDE) + list(exclude or []), use_gitignore)
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
    start: Path, lint_root: Path, ignore: Ignore, seen_real: set[str], packaged: set[str], result: Discovery
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
