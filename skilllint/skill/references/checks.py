"""References from SKILL.md and the Markdown files it references, as SL301, SL302,
SL305, SL306, SL307 and SL311 judge them.

Every one of these rules reads the package's reference graph (:mod:`skilllint.skill.references.graph`):
links, images and reference definitions, and backtick or plain paths that start
with a folder of the package, from SKILL.md and every referenced Markdown file.
A finding in a referenced file points into that file and names how it was reached.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ...diagnostics import Fix, Related, Span
from ...fsafe import UnsafeFile, is_within, read_capped
from ..package import SkillPackage
from .graph import WINDOWS_DRIVE
from .graph import reference_graph

if TYPE_CHECKING:
    from ...targets import Target

MARKDOWN_DOCUMENTS = (".md", ".markdown", ".mdx")


NOUN = {"link": "link", "image": "image", "definition": "link definition", "code": "path", "plain": "path"}


# -- shared helpers --------------------------------------------------------------


def usable(package: SkillPackage) -> bool:
    return package.skill_md_name is not None and package.readable


def _where(package: SkillPackage, source: str) -> object:
    """The Finding path for a file of the package (None: SKILL.md, the default)."""
    return None if source == package.skill_md_name else package.root / source


class Places:
    """Finding paths of the package's files (:func:`_where`), one Path per file: a file
    with thousands of references names the same place each time."""

    def __init__(self, package: SkillPackage) -> None:
        self.package = package
        self._paths: dict[str, object] = {}

    def __call__(self, source: str) -> object:
        try:
            return self._paths[source]
        except KeyError:
            where = self._paths[source] = _where(self.package, source)
            return where


def span(ref) -> Span:
    return Span(ref.line, ref.column, ref.line, max(ref.end_column, ref.column))


def reached_from(package: SkillPackage, source: str) -> tuple[Related, ...]:
    """For a finding in a referenced file: where that file is referenced from."""
    graph = reference_graph(package)
    if source == package.skill_md_name or source not in graph.parents:
        return ()
    chain = graph.chain(source)
    parent = graph.parents[source]
    ref = graph.first_reference_to(parent, source)
    if ref is None:
        return ()
    return (
        Related(
            f"`{source}` is loaded from here ({' -> '.join(chain)})",
            package.root / parent if parent != package.skill_md_name else package.skill_md_path,
            span(ref),
        ),
    )


def written_target(ref) -> str:
    """How the reference names its target, with the resolved package path when they differ."""
    shown = ref.path
    resolved = ref.resolved
    if resolved and posixpath.normpath(resolved) != posixpath.normpath(ref.path):
        return f"`{shown}` (`{resolved}` in the skill)"
    return f"`{shown}`"


# The most names a close spelling is looked for among: a fuzzy match costs each finding
# time in proportion to the names, and real packages and documents hold far fewer.
MOST_CANDIDATES = 1000


class Suggestions:
    """The file of the package the author may have meant by a missing path; the package's
    files are listed once, by name, on the first question."""

    def __init__(self, package: SkillPackage) -> None:
        self.package = package
        self._files: list[str] | None = None
        self._by_name: dict[str, list[str]] = {}

    def __call__(self, path: str) -> str | None:
        if self._files is None:
            self._files = [e.rel for e in self.package.inventory.files()]
            for rel in self._files:
                self._by_name.setdefault(posixpath.basename(rel), []).append(rel)
        same_name = [f for f in self._by_name.get(posixpath.basename(path), ()) if f != path]
        if len(same_name) == 1:
            return same_name[0]
        stem = posixpath.splitext(posixpath.normpath(path))[0]
        same_stem = [f for f in self._files if posixpath.splitext(f)[0] == stem and f != path]
        if len(same_stem) == 1:  # the file but for its extension (`flow.json` for `flow.excalidraw`)
            return same_stem[0]
        if len(self._files) > MOST_CANDIDATES:
            return None
        import difflib  # only to suggest a path (kept off a warm run's start-up)

        close = difflib.get_close_matches(path, self._files, n=1, cutoff=0.85)
        return close[0] if close else None


# -- fixes: point a broken reference at the one file meant --------------------------------


def _located_text(package: SkillPackage, source: str):
    """(path, LineIndex) of a scanned file, when its positions count as the
    reference graph's do; else None."""
    from ...edits import LineIndex

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


def retarget(package: SkillPackage, ref, new_path: str) -> Fix | None:
    """The unsafe fix writing ``new_path`` where ``ref`` names its target."""
    from ...edits import edit

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
    return Fix(f"point the {NOUN[ref.kind]} at `{new_path}`", "unsafe", (item,))


def _bases(ref) -> list[str]:
    """The folders a reference resolves from, as the graph tries them."""
    here = posixpath.dirname(ref.source)
    return [here] if ref.explicit else list(dict.fromkeys(["", here]))


def case_fixed_path(package: SkillPackage, ref) -> str | None:
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


def folder_fixed_path(package: SkillPackage, ref) -> str | None:
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


# The top-level folders of a file system (the Filesystem Hierarchy Standard's,
# macOS's, and the dev-container and Codespaces workspace roots): a path that
# starts with one names a place on a machine. Any other `/first/…` is a link
# relative to the root of a web site or repository, copied with the text.
_FILE_SYSTEM_ROOTS = frozenset(
    {
        "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt", "proc",
        "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var",
        "Applications", "Library", "System", "Users", "Volumes", "private", "cores", "nix", "snap",
        "workspace", "workspaces",
    }
)


class _Whole(NamedTuple):
    """A folder that comes whole with the skill: the plugin holding it, or the skill a nested
    skill lies in (the listed skill it is a document of, for Claude Code)."""

    root: Path
    plugin: str | None  # the plugin's name; None: a skill's folder
    linked: bool = True  # a skill's folder: Claude Code reads the nested skill through a link

    @property
    def described(self) -> str:
        """The folder, for a message about a file missing from it."""
        if self.plugin is not None:
            folder = "" if self.root.name == self.plugin else f" ({self.root.name}/)"
            return (
                f"the plugin `{self.plugin}`{folder} (installed whole, so the skill may lean on the plugin's other files, "
                "but not on this one)"
            )
        if self.linked:
            return (
                f"the skill `{self.root.name}` (Claude Code reads this nested skill as a document of it, through a link, "
                "so it may lean on that skill's other files, but not on this one)"
            )
        return (
            f"the skill `{self.root.name}` (this skill lies inside it and is installed with it, so it may lean on "
            "that skill's other files, but not on this one)"
        )


class _Plugin(Protocol):
    """A plugin as :func:`whole_folders` reads it (:class:`skilllint.discovery.plugins.Plugin`)."""

    root: Path
    name: str


class _Placed(Protocol):
    """Where a nested skill lies (:class:`skilllint.discovery.units.Unlisted`)."""

    def outer_skill(self) -> Path | None: ...


class InstallsSkills(Protocol):
    """What :func:`whole_folders` asks of the run's settings (:class:`skilllint.config.settings.Settings`,
    which asks its install units)."""

    def installed_whole(self, package: SkillPackage, target: Target) -> _Plugin | None: ...

    def linked_document(self, package: SkillPackage) -> _Placed | None: ...


def whole_folders(package: SkillPackage, targets: tuple[Target, ...], settings: InstallsSkills | None) -> dict[str, _Whole]:
    """For each selected target that installs plugins by copying them whole, the root of the
    plugin holding this skill, if any (``settings`` None, a bare rule context, knows none); else, for a target that reads this nested skill only as
    a document of a listed skill that holds it (:meth:`skilllint.config.settings.Settings.linked_document`),
    that skill's folder: what the document climbs to there is a file of that skill."""
    roots: dict[str, _Whole] = {}
    if settings is None:
        return roots
    for target in targets:
        plugin = settings.installed_whole(package, target)
        if plugin is not None:
            roots[target.id] = _Whole(plugin.root, plugin.name)
            continue
        if target.lists_only_direct_children:
            place = settings.linked_document(package)
            outer = place.outer_skill() if place is not None else None
            if outer is not None:
                roots[target.id] = _Whole(outer, None)
            continue
        # Elsewhere a skill inside another skill's folder comes with it: what copies or loads
        # the outer skill takes its whole folder, the nested one and its siblings included.
        outer = package.ancestor_with("SKILL.md")
        if outer is not None:
            roots[target.id] = _Whole(outer, None, linked=False)
    return roots


def fate_in_whole(package: SkillPackage, ref, wholes: dict[str, _Whole]) -> dict[str, bool]:
    """For each target whose whole folder (:func:`whole_folders`) holds where a reference that
    climbs out of the skill leads: whether that file exists (found with lstat alone, through real
    folders). A target whose folder does not hold it is left out: for it the reference leaves
    what is installed."""
    joined = posixpath.join(posixpath.dirname(ref.source), ref.path) if ref.explicit else ref.path
    target = os.path.normpath(os.path.join(package.root, joined))
    fate = {}
    for target_id, held in wholes.items():
        whole = held.root
        if is_within(whole, Path(target)) and target != os.path.normpath(whole):
            found = package.exists_beyond(target)  # the folder lies in the linted tree (found there)
            if found is not None:
                fate[target_id] = found
    return fate


def found_at_plugin_root(package: SkillPackage, ref, wholes: dict[str, _Whole]) -> tuple[str, ...]:
    """The targets for which a path the skill mentions (not a link: a link's base is its file) that
    is missing from the skill names a file at the root of the plugin installed whole with it:
    `scripts/check.sh` in a plugin whose `scripts/` sits beside its `skills/`. The file ships with
    the skill there, and an agent told the path finds it in the plugin (found with lstat alone,
    inside the linted tree)."""
    if ref.explicit:
        return ()
    found = []
    for target_id, whole in wholes.items():
        if whole.plugin is None or whole.root == package.root:
            continue
        place = os.path.normpath(os.path.join(whole.root, ref.path))
        if is_within(whole.root, Path(place)) and package.exists_beyond(place):
            found.append(target_id)
    return tuple(found)


def _is_skill_document(text: str) -> bool:
    """Whether a bundled Markdown file is itself a skill: frontmatter with `name` and
    `description`, a SKILL.md under another name (a template the skill renders into one)."""
    end = text.find("\n---", 3) if text.startswith("---") else -1
    if end < 0:
        return False
    keys = {line.split(":", 1)[0].strip() for line in text[3:end].splitlines() if ":" in line and not line.startswith((" ", "\t"))}
    return {"name", "description"} <= keys


def sibling_skill_named_by_holder(package: SkillPackage, ref) -> bool:
    """Whether ``ref`` links a sibling skill (``../<name>/SKILL.md``) from a skill that is not
    where it will run, and the skill that holds it names ``<name>``: a skill nested in another
    (its SKILL.md), or a skill document bundled in this one (a template with `name` and
    `description`). The holder puts it beside the skills it ships or writes, so the sibling
    is judged where the holder places them, which this tree does not show."""
    if not ref.explicit:
        return False
    parts = posixpath.normpath(ref.path).split("/")
    if len(parts) != 3 or parts[0] != ".." or parts[2] != "SKILL.md" or parts[1] in ("", ".", ".."):
        return False
    if ref.source == package.skill_md_name:
        outer = package.ancestor_with("SKILL.md")
        if outer is None:
            return False
        try:
            holder = read_capped(outer / "SKILL.md", package.max_bytes).data.decode("utf-8", errors="replace")
        except (UnsafeFile, OSError):
            return False
    else:
        text = reference_graph(package).texts.get(ref.source, "")
        if not _is_skill_document(text):
            return False
        holder = package.body
    from .disclosure_graph import is_named

    return is_named(holder, parts[1])


def climbed_to_existing(package: SkillPackage, ref) -> bool | None:
    """Whether the file or folder a reference that climbs out of the skill leads to exists,
    judged only inside the linted tree (None beyond it: never looked at)."""
    joined = posixpath.join(posixpath.dirname(ref.source), ref.path) if ref.explicit else ref.path
    return package.exists_beyond(os.path.normpath(os.path.join(package.root, joined)))


def rooted_kind(path: str) -> str:
    """What a path that leaves the package is: ``machine`` (an absolute or home path),
    ``climbs`` (``..`` past the skill's root, or through a link), ``site`` (relative to a web
    site's or repository's root), or ``not a path`` (a protocol-relative URL ``//host/…``, or a
    command link such as ``/plugin:skill``)."""
    if path.startswith("~") or WINDOWS_DRIVE.match(path):
        return "machine"
    if not path.startswith("/"):
        return "climbs"
    if path.startswith("//"):
        return "not a path"
    first = path[1:].split("/", 1)[0]
    if ":" in first:
        return "not a path"
    if first in _FILE_SYSTEM_ROOTS or not first:
        return "machine"
    return "site"


def outside_message(package: SkillPackage, ref, exists: bool | None = None) -> str:
    noun = NOUN[ref.kind]
    path = ref.path
    if path.startswith("~"):
        return (
            f"{noun} `{path}` is a path in the user's home folder, not in the skill: "
            "the file is not shipped with the skill, so the reference breaks wherever it is installed"
        )
    if path.startswith("/") or WINDOWS_DRIVE.match(path):
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
    if exists is False:
        return (
            f"{noun} `{path}` leaves the skill folder for `{target}` {where}, and no such file exists there: "
            "the reference is broken now, and would still break when the skill is installed alone"
        )
    return (
        f"{noun} `{path}` leaves the skill folder for `{target}` {where}: that file is not part of the skill, "
        "so the reference breaks when the skill is installed alone"
    )


def files_below(package: SkillPackage, folder: str | None) -> int:
    if folder is None:
        return 0
    prefix = "" if folder == "." else folder + "/"
    return sum(1 for e in package.inventory.files() if e.rel.startswith(prefix))
