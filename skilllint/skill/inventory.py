"""Every entry of a skill package, and path resolution that never leaves it.

The package is untrusted. This module walks it with ``lstat`` only (no link
is ever followed by the walk), records what each symbolic link points at by
resolving it *textually* (``readlink`` plus path arithmetic, segment by
segment, links inside the package expanded, a bounded number of hops), and
answers "does this path exist in the package?" from that record. Nothing here
opens a file, and no path outside the package is ever stat-ed through a link:
an escaping link is judged from its text alone.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple
from pathlib import Path

from ..fsafe import added_entry, has_overlay, kind_of_mode, list_folder, overlaid_size, overlay_adds_entries, real_path_or_given

MAX_ENTRIES = 100_000  # entries recorded per package (the root aside); the walk stops past it
MAX_LINK_HOPS = 40  # as the kernel's ELOOP bound


@dataclass(frozen=True, eq=False, repr=False)
class LinkInfo:
    """Where a symbolic link leads, judged without following it out of the package.

    ``status``: ``inside`` (resolves to an existing entry in the package),
    ``escapes`` (leads outside the package: absolute, ``..`` past the root,
    or through another escaping link), ``broken`` (inside, but nothing is
    there), ``loop`` (a cycle of links).
    """

    text: str  # what readlink says
    status: str
    resolved: str | None = None  # package-relative posix path when inside/broken
    outside: str | None = None  # the absolute path it names when it escapes


class Entry(NamedTuple):
    # A tuple, not a frozen dataclass: a warm run makes one per file of every skill to key the
    # cache, and a frozen dataclass's __init__ (object.__setattr__ per field) was a fifth of that.
    rel: str  # package-relative posix path ("." is the root)
    kind: str  # file | dir | symlink | fifo | socket | char-device | block-device | other
    size: int = 0
    link: LinkInfo | None = None
    mode: int = 0  # the lstat mode (permission bits: a script's run bit, SL702); 0 for links


def is_skill_md_name(name: str) -> bool:
    """Whether an entry's name makes its folder a skill: SKILL.md in any letter case, as
    discovery finds skills (a folder holding one is a package of its own, linted on its own)."""
    return name.casefold() == "skill.md"


# A document: a file an agent reads as text, whose links and path mentions skilllint follows.
DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt")


def is_document(rel: str) -> bool:
    """Whether the file ``rel`` is a document (:data:`DOCUMENT_SUFFIXES`, any letter case)."""
    return rel.lower().endswith(DOCUMENT_SUFFIXES)


# A script: a file the skill runs. By its suffix, or with none in scripts/ or bin/ (run by its
# #! line).
SCRIPT_SUFFIXES = (
    ".py", ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
    ".ps1", ".psm1", ".rb", ".pl", ".php", ".lua", ".r", ".bat", ".cmd", ".go", ".swift", ".kts",
)  # fmt: skip


def is_script(rel: str) -> bool:
    """Whether the file ``rel`` (package-relative, posix) is a script (:data:`SCRIPT_SUFFIXES`)."""
    suffix = posixpath.splitext(rel)[1].lower()
    return suffix in SCRIPT_SUFFIXES or (not suffix and rel.startswith(("scripts/", "bin/")))


SPECIAL_KINDS = frozenset({"fifo", "socket", "char-device", "block-device", "other"})


@dataclass(eq=False, repr=False)
class PackageInventory:
    """Every entry of a skill package as one walk with lstat found it."""

    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)  # folders that could not be listed
    skipped: set[str] = field(default_factory=set)  # folders listed but not walked (.git, node_modules)
    truncated: bool = False  # more than MAX_ENTRIES entries: only the first MAX_ENTRIES are recorded
    truncated_in: str | None = None  # the folder being listed when the walk stopped
    unlisted: set[str] = field(default_factory=set)  # when truncated: folders not (wholly) listed
    # (rel, lstat mode, size, mtime_ns, inode, ctime_ns) of every entry: what the result cache keys a package on
    stamps: list[tuple] = field(default_factory=list)
    _folded: dict[str, list[str]] | None = None
    _nested: frozenset[str] | None = None

    @classmethod
    def scan(
        cls, root: Path, skip: frozenset[str] = frozenset({".git", "node_modules"}), listings: Mapping[str, list[str]] | None = None
    ) -> "PackageInventory":
        """``listings``: folders (absolute) the caller listed just now -> their names, sorted
        (discovery's walk); a folder not there is listed here."""
        inventory = cls(root)
        if listings is not None and overlay_adds_entries():
            listings = None  # an editor's new files are in list_folder's listing only
        inventory.entries["."] = Entry(".", "dir")
        entries, stamps = inventory.entries, inventory.stamps
        overlaid = has_overlay()  # asked once: every entry of every skill is listed here
        stack = [""]
        while stack:
            folder = stack.pop()
            absolute = os.path.join(root, folder) if folder else str(root)
            names = listings.get(absolute) if listings is not None else None
            if names is None:
                try:
                    names = sorted(list_folder(absolute))
                except OSError:
                    inventory.unreadable.append(folder or ".")
                    continue
            prefix = absolute + os.sep
            for name in names:
                if len(inventory.entries) > MAX_ENTRIES:  # "." and MAX_ENTRIES more: this one is past the limit
                    inventory.truncated = True
                    inventory.truncated_in = folder or "."
                    inventory.unlisted = {folder or ".", *stack}
                    return inventory._resolve_links()
                rel = f"{folder}/{name}" if folder else name
                try:
                    info = os.lstat(prefix + name)
                except OSError:
                    added = added_entry(prefix + name)  # a new file an overlay adds (standard input)
                    if added is None:
                        continue
                    kind, size = added
                    mode = (stat.S_IFREG | 0o644) if kind == "file" else (stat.S_IFDIR | 0o755)
                    inventory.entries[rel] = Entry(rel, kind, size, mode=mode)
                    if kind == "dir":
                        stack.append(rel)
                    continue
                mode = info.st_mode
                kind = kind_of_mode(mode)
                stamps.append((rel, mode, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns))
                size = 0 if kind != "file" else overlaid_size(prefix + name, info.st_size) if overlaid else info.st_size
                entries[rel] = Entry(rel, kind, size, mode=mode)  # (an editor's text counts)
                if kind == "dir":
                    if name in skip:
                        inventory.skipped.add(rel)
                    else:
                        stack.append(rel)
        return inventory._resolve_links()

    def truncation_warning(self) -> str | None:
        """What the user must be told when the listing was cut (None when it is whole):
        rules judge the recorded entries only, and those that need every entry skip."""
        if not self.truncated:
            return None
        where = "the skill folder" if self.truncated_in in (None, ".") else f"`{self.truncated_in}/`"
        return (
            f"{self.root}: more than {MAX_ENTRIES:,} entries; the listing stopped at {MAX_ENTRIES:,} "
            f"(while listing {where}), so results for this skill are incomplete: later entries are not "
            "checked, and the missing-reference and unreferenced-file checks (SL301, SL304) are skipped"
        )

    # -- links -------------------------------------------------------------------

    def _resolve_links(self) -> "PackageInventory":
        for rel, entry in list(self.entries.items()):
            if entry.kind != "symlink":
                continue
            try:
                text = os.readlink(os.path.join(self.root, rel))
            except OSError:
                self.entries[rel] = Entry(rel, "symlink", 0, LinkInfo("", "broken"))
                continue
            self.entries[rel] = Entry(rel, "symlink", 0, self._judge_link(rel, text))
        return self

    def _judge_link(self, rel: str, text: str) -> LinkInfo:
        parent = posixpath.dirname(rel)
        where: list[str] = []
        start = posixpath.join(parent, text) if not text.startswith("/") else text
        status, resolved = self.resolve(start, _hops=[0], _outside=where)
        if status == "outside":
            return LinkInfo(text, "escapes", None, where[0] if where else None)
        if status == "loop":
            return LinkInfo(text, "loop")
        if status == "missing":
            return LinkInfo(text, "broken", resolved)
        return LinkInfo(text, "inside", resolved)

    def resolve(
        self, path: str, _hops: list[int] | None = None, _outside: list[str] | None = None
    ) -> tuple[str, str | None]:
        """Resolve a package-relative path as the OS would, without leaving the package.

        Returns (status, real path): ``ok`` with the resolved package-relative
        path; ``missing`` with the path as far as it resolved; ``unknown``, with the path
        as far as it resolved, inside a folder the scan skips (``.git``, ``node_modules``),
        cannot list, or did not list wholly (the listing was cut at ``MAX_ENTRIES``); ``outside`` when
        it leaves the package (``..`` past the root, absolute, or through an
        escaping link); ``loop`` for a link cycle (or too many hops).
        """
        hops = _hops if _hops is not None else [0]
        if path.startswith("/"):
            if _outside is not None:
                _outside.append(posixpath.normpath(path))
            return "outside", None
        parts = [p for p in path.split("/") if p not in ("", ".")]
        current: list[str] = []
        while parts:
            part = parts.pop(0)
            if part == "..":
                if not current:
                    if _outside is not None:  # where it leaves, from the folder's real place
                        _outside.append(posixpath.normpath(posixpath.join(real_path_or_given(self.root), "..", *parts)))
                    return "outside", None
                current.pop()
                continue
            candidate = "/".join(current + [part])
            entry = self.entries.get(candidate)
            if entry is None:
                folder = "/".join(current) or "."
                if folder in self.skipped or folder in self.unreadable or folder in self.unlisted:
                    # inside a folder we do not walk, cannot list or did not list wholly
                    return "unknown", "/".join([candidate, *parts])
                return "missing", "/".join([candidate, *parts])
            if entry.kind == "symlink":
                hops[0] += 1
                if hops[0] > MAX_LINK_HOPS:
                    return "loop", None
                try:
                    text = os.readlink(os.path.join(self.root, candidate))
                except OSError:
                    return "missing", candidate
                if text.startswith("/"):
                    if _outside is not None:
                        _outside.append(posixpath.normpath(posixpath.join(text, *parts)))
                    return "outside", None
                parts = [p for p in text.split("/") if p not in ("", ".")] + parts
                continue
            if parts and entry.kind != "dir":
                return "missing", "/".join([candidate, *parts])
            current.append(part)
        return "ok", "/".join(current) or "."

    # -- queries -----------------------------------------------------------------

    def kind_of(self, path: str) -> str | None:
        """The kind of what ``path`` resolves to inside the package, or None."""
        status, real = self.resolve(path)
        if status != "ok" or real is None:
            return None
        entry = self.entries.get(real)
        return entry.kind if entry else None

    def case_variants(self, path: str) -> list[str]:
        """Entries equal to ``path`` ignoring letter case (SL305), other than itself."""
        if self._folded is None:
            folded: dict[str, list[str]] = {}
            for rel in self.entries:
                folded.setdefault(rel.casefold(), []).append(rel)
            self._folded = folded
        normal = posixpath.normpath(path)
        return [rel for rel in self._folded.get(normal.casefold(), []) if rel != normal]

    def nested_skill_folders(self) -> frozenset[str]:
        """Sub-folders that are skills of their own (:func:`is_skill_md_name`): their files are
        theirs, not this package's."""
        if self._nested is None:
            self._nested = frozenset(
                rel.rpartition("/")[0] for rel in self.entries if "/" in rel and is_skill_md_name(rel.rpartition("/")[2])
            )
        return self._nested

    def in_nested_skill(self, rel: str) -> bool:
        """Whether the entry ``rel`` lies in a nested skill (:meth:`nested_skill_folders`)."""
        nested = self.nested_skill_folders()
        if not nested:
            return False
        folder = posixpath.dirname(rel)
        while folder:
            if folder in nested:
                return True
            folder = posixpath.dirname(folder)
        return False

    def files(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.kind == "file"]

    def symlinks(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.kind == "symlink"]

    def specials(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.kind in SPECIAL_KINDS]

    def top_folders(self) -> set[str]:
        """Names of the package's top-level folders (links to folders inside count)."""
        names = set()
        for rel, entry in self.entries.items():
            if "/" in rel or rel == ".":
                continue
            if entry.kind == "dir" or (entry.kind == "symlink" and self.kind_of(rel) == "dir"):
                names.add(rel)
        return names
