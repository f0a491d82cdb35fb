"""Catalogs: the sets of skills a surface lists together (RULES.md SL5xx).

A skill joins one catalog per selected target. The catalog is keyed by the
skills root that surface scans:

* codex: every ``.agents/skills`` and ``.codex/skills`` of one repository is
  loaded into one list (Codex scans ``.agents/skills`` from the project root
  down to the working folder, S-CX-LOAD);
* claude-code: every ``.claude/skills`` of one repository (the project scope;
  nested ones load too), while each plugin's ``skills/`` is its own namespaced
  catalog (plugin skills never collide, SURFACES.md §2b);
* any other target, and skills outside those roots: the nearest ``skills/``
  collection folder (the set an author installs together), else the folder
  holding the skill.

Each canonical SKILL.md counts once. Skills hidden from the model on purpose
(``disable-model-invocation: true``) are kept but marked, so catalog rules can
leave them out of budgets. Configured extra roots with scope labels are not
modelled yet.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..package import SkillPackage
from ..targets.claude_code import read_bool

SURFACE_ROOTS = {
    "codex": ((".agents", "skills"), (".codex", "skills")),
    "claude-code": ((".claude", "skills"),),
    "copilot": ((".github", "skills"), (".agents", "skills"), (".claude", "skills")),
}


@dataclass
class CatalogSkill:
    package: SkillPackage
    name: str  # as the surface reads it (Codex: whitespace collapsed; the folder name when empty)
    description: str
    scope: str = "repo"
    hidden: bool = False  # not listed to the model (disable-model-invocation: true)


@dataclass
class Catalog:
    target: str
    root: Path  # the folder that names the catalog (a repository, a skills root or a collection)
    kind: str  # "surface-roots" | "plugin" | "collection"
    skills: list[CatalogSkill] = field(default_factory=list)

    @property
    def visible(self) -> list[CatalogSkill]:
        return [s for s in self.skills if not s.hidden]


def _repo_root(path: Path, stop: Path) -> Path:
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
        if folder == stop:
            break
    return stop


def _surface_root(package: SkillPackage, target: str) -> Path | None:
    """The ``.x/skills`` folder above the skill that ``target`` scans, if any."""
    parts = package.root.parts
    for index in range(len(parts) - 2, -1, -1):
        for pair in SURFACE_ROOTS.get(target, ()):
            if parts[index : index + 2] == pair:
                return Path(*parts[: index + 2])
    return None


def _collection_root(package: SkillPackage) -> Path:
    """The outermost ``skills`` folder above the skill, else its parent folder."""
    found = None
    for folder in package.root.parents:
        if folder.name == "skills":
            found = folder
        if folder == package.lint_root.parent:
            break
    return found or package.root.parent


def catalog_key(package: SkillPackage, target: str) -> tuple[str, Path, str]:
    """(target, root, kind): which catalog of ``target`` the skill belongs to."""
    surface = _surface_root(package, target)
    if surface is not None:
        return target, _repo_root(surface.parent.parent, package.lint_root), "surface-roots"
    if target == "claude-code":
        plugin = package.ancestor_with(".claude-plugin", "plugin.json")
        if plugin is not None:
            return target, plugin, "plugin"
    return target, _collection_root(package), "collection"


def read_entry(package: SkillPackage, target) -> CatalogSkill | None:
    """The skill as ``target`` lists it, or None when its frontmatter does not parse there."""
    mapping = package.view(target).mapping
    if mapping is None:
        return None
    name = mapping.get("name")
    description = mapping.get("description")
    name = " ".join(name.split()) if isinstance(name, str) else ""
    description = description if isinstance(description, str) else ""
    if target.id == "codex":
        description = " ".join(description.split())
    hidden = target.id in ("claude-code", "copilot", "cursor") and read_bool(mapping.get("disable-model-invocation")) is True
    return CatalogSkill(package, name or package.folder_name, description, hidden=hidden)


def codex_skip_reason(skill: CatalogSkill) -> str | None:
    """Why Codex's loader would not load this skill (S-CX-LOAD), or None when it would."""
    if not skill.description:
        return "no description: Codex does not load it (SL111/SL112)"
    if len(skill.description) > 1024 or len(skill.name) > 64:
        return "over Codex's length limits (SL103/SL113)"
    return None


def build_catalogs(packages: list[SkillPackage], settings) -> list[Catalog]:
    """Group linted packages into catalogs, one canonical SKILL.md once each."""
    catalogs: dict[tuple[str, Path, str], Catalog] = {}
    seen: set[tuple[str, str]] = set()
    for package in packages:
        if package.skill_md_name != "SKILL.md" or not package.readable:
            continue
        real = os.path.realpath(package.skill_md_path)
        for target in settings.targets_for(package):
            if (target.id, real) in seen:
                continue
            entry = read_entry(package, target)
            if entry is None:
                continue
            seen.add((target.id, real))
            key = catalog_key(package, target.id)
            catalog = catalogs.get(key)
            if catalog is None:
                catalog = catalogs[key] = Catalog(key[0], key[1], key[2])
            catalog.skills.append(entry)
    return list(catalogs.values())
