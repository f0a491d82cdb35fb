"""Catalogs: the sets of skills a surface lists together (SL5xx).

A skill joins one catalog per selected target. The catalog is keyed by the
skills root that surface scans:

* codex: every ``.agents/skills`` and ``.codex/skills`` of one repository is
  loaded into one list (Codex scans ``.agents/skills`` from the project root
  down to the working folder, S-CX-LOAD);
* claude-code: every ``.claude/skills`` of one repository (the project scope;
  nested ones load too);
* a plugin (``.claude-plugin/plugin.json``, or for targets other than
  claude-code also ``.codex-plugin/plugin.json``) is its own namespaced catalog
  on every target (plugin skills never collide, docs/surfaces.md §2b), holding only
  the skills its manifest or marketplace entry loads (:mod:`skilllint.discovery.plugins`);
* any other target, and skills outside those roots: the outermost ``skills/``
  collection folder (the set an author installs together), else the folder
  holding the skill.

A skill the surface never loads where it lies is in no catalog of that target:
for Claude Code one deeper than ``<skills folder>/<name>/`` (it lists
``<skills folder>/<name>/SKILL.md`` only, :meth:`skilllint.discovery.units.InstallUnits.unlisted`),
for OpenCode one nested inside another skill's folder, one under a dot-folder
for Codex (its walk skips those).

Each canonical SKILL.md counts once. Skills hidden from the model on purpose
(``disable-model-invocation: true``) are kept but marked, so catalog rules can
leave them out of budgets.

Skills carry a scope (``repo``, ``user``, ``admin``, ``system``). The linted
skills are ``repo``; configured extra roots (``[catalog] roots``, see
:mod:`skilllint.lint.catalog_context`) bring the skills a team has installed, with
their scope, into every catalog of the targets that load them. When two skills
of one catalog share a name, each surface's precedence decides (docs/surfaces.md):

* codex keeps and lists both (§3a; ``$name`` mentions then select neither);
* claude-code: Enterprise (admin) > Personal (user) > Project (repo), and any
  of them beats a bundled (system) skill (§2b);
* every other target follows the client guidance (§1a: project-level overrides
  user-level; Gemini CLI: workspace > user > built-in, §4). Where an admin
  scope sits there is unstated; it is placed after user.

The loser of a precedence contest is *shadowed*: not listed, out of budgets.
Skills of the same scope that share a name are left to SL511: which one such a
surface uses is not defined.

When targets are inferred, a skill also joins the listing of every surface that
scans two or more project folders holding skills in its repository (Gemini CLI's
``.agents`` and ``.gemini``, OpenCode's ``.opencode``, ``.claude`` and ``.agents``):
those entries are *surveyed* (``CatalogSkill.surveyed``), what that surface would
list from the repository, and only rules that judge listings (``Rule.judges_listings``,
SL511) report on them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..discovery.plugins import may_make_plugins
from ..discovery.units import InstallUnits, claude_skills_folder, in_agent_folder
from ..fsafe import is_within
from ..skill.openai_yaml.reader import implicit_invocation_allowed
from ..skill.package import SkillPackage
from ..targets import Target
from ..targets.claude_code import read_bool

# Each surface's facts (the folders it scans, its precedence, how it compares names, whether
# it loads nested skills) are fields of its profile, skilllint.targets.
SCOPES = ("repo", "user", "admin", "system")


def name_key(target: Target, name: str) -> str:
    """How a surface compares names: exactly, or ignoring case."""
    return name if target.names_case_sensitive else name.casefold()


@dataclass(eq=False, repr=False)
class CatalogSkill:
    """A skill as one surface lists it in one catalog."""

    package: SkillPackage
    name: str  # as the surface reads it (Codex: whitespace collapsed; the folder name when empty)
    description: str
    scope: str = "repo"
    hidden: bool = False  # not listed to the model (disable-model-invocation: true)
    context: bool = False  # loaded for the catalog's sake only: not linted, never reported on
    # The surface lists it (it scans the skill's folder) though the run's inferred targets for the
    # skill leave that surface out: only rules that judge every listing report on it (Rule.judges_listings).
    surveyed: bool = False
    shadowed_by: "CatalogSkill | None" = None  # a same-named skill of a winning scope hides it
    # Claude Code's listing only: `when_to_use`, and the first body line it lists when there is no description
    when_to_use: str = ""
    first_body_line: str = ""


@dataclass(eq=False, repr=False)
class Catalog:
    """The skills one surface lists together (one target, one root)."""

    surface: Target
    root: Path  # the folder that names the catalog (a repository, a skills root or a collection)
    kind: str  # "surface-roots" | "plugin" | "collection"
    skills: list[CatalogSkill] = field(default_factory=list)
    plugin: str = ""  # a plugin's name (several plugins of one marketplace may share a root)
    # What a surface's renderer made of this catalog (by Target.catalog_model), made once per run and
    # shared by the rules that judge it (catalog.render).
    renders: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    @property
    def target(self) -> str:
        """The surface's id (what findings and labels name)."""
        return self.surface.id

    @property
    def loaded(self) -> list[CatalogSkill]:
        """The skills the surface keeps (a shadowed skill is not loaded at all)."""
        return [s for s in self.skills if s.shadowed_by is None]

    @property
    def visible(self) -> list[CatalogSkill]:
        """The skills listed to the model."""
        return [s for s in self.skills if not s.hidden and s.shadowed_by is None]


def catalog_roots(catalog: Catalog) -> list[Path]:
    """The folders a catalog is read from, as the surface scans them: for a repository's
    surface roots, each ``.agents/skills``, ``.codex/skills`` (or the target's own) holding
    one of its repository skills; for a plugin or a collection, its root."""
    if catalog.kind != "surface-roots":
        return [catalog.root]
    found = {_surface_root(skill.package, catalog.surface) for skill in catalog.skills if skill.scope == "repo"}
    return sorted(root for root in found if root is not None) or [catalog.root]


def _repo_root(path: Path, stop: Path) -> Path:
    """The repository holding ``path`` (the folder an agent folder sits in), searched up to
    ``stop``; outside one, ``path`` itself: a surface scans the agent folders from where it runs
    up to the repository's root, so without a repository the folders of one project, not those
    of every project in the tree (a folder of checked-out repositories without their `.git`)."""
    for folder in (path, *path.parents):
        if os.path.lexists(folder / ".git"):  # (a link there need not lead anywhere we may look)
            return folder
        if folder == stop:
            break
    return path


def _surface_root(package: SkillPackage, target: Target) -> Path | None:
    """The ``.x/skills`` folder above the skill that ``target`` scans, if any."""
    return _scanned_folder(package.root, target)


def _scanned_folder(root: Path, target: Target) -> Path | None:
    parts = root.parts
    for index in range(len(parts) - 2, -1, -1):
        for pair in target.project_skill_folders:
            if parts[index : index + 2] == pair:
                return Path(*parts[: index + 2])
    return None


def _collection_root(package: SkillPackage, stop: Path) -> Path:
    """The outermost ``skills`` folder above the skill (up to ``stop``), else its parent folder."""
    found = None
    for folder in package.root.parents:
        if folder.name == "skills":
            found = folder
        if folder == stop.parent:
            break
    return found or package.root.parent


CatalogKey = tuple  # (target id, root, kind, plugin name or "")


def catalog_key(
    package: SkillPackage, target: Target, units: InstallUnits, boundary: Path | None = None, memo: dict | None = None
) -> CatalogKey | None:
    """(target, root, kind, plugin): which catalog of ``target`` the skill belongs to;
    None when that surface never loads it where it lies (see :func:`_unloaded_reason`).
    ``units``: the run's install units (:class:`skilllint.discovery.units.InstallUnits`).

    Searches for the catalog's root stop at ``boundary`` when the skill lies
    inside it (the repository being linted), else at the skill's lint root, so
    a skill named alone and its siblings found later agree on their catalog.
    ``memo`` (one dict per grouping) shares the answer among the skills of one
    folder: the search looks only above the skill, except for a skill folder
    itself named ``skills``."""
    return placement(package, target, units, boundary, memo)[0]


def placement(
    package: SkillPackage, target: Target, units: InstallUnits, boundary: Path | None = None, memo: dict | None = None
) -> tuple[CatalogKey | None, str | None]:
    """:func:`catalog_key`, with why the surface does not load the skill where it lies when
    it does not: ``(key, None)`` or ``(None, reason)``."""
    stop = boundary if boundary is not None and is_within(boundary, package.root) else package.lint_root
    if memo is not None:  # the answer for this skill, when the memo's first user asked already
        whole = ("placement", target.id, str(package.root), str(stop))
        found = memo.get(whole)
        if found is None:
            found = memo[whole] = _placement(package, target, units, stop, memo)
        return found
    return _placement(package, target, units, stop, None)


def _placement(package: SkillPackage, target: Target, units: InstallUnits, stop: Path, memo: dict | None):
    key = _catalog_key(package, target, units, stop, memo)
    reason = _unloaded_reason(package, target, units, stop, key, {} if memo is None else memo)
    return (key, None) if reason is None else (None, reason)


def _surface_key(package: SkillPackage, target: Target, stop: Path, memo: dict | None) -> CatalogKey | None:
    """The repository catalog of ``target`` when the skill lies in a folder it scans, else None."""
    return _surface_place(package, target, stop, memo)[0]


def _surface_place(package: SkillPackage, target: Target, stop: Path, memo: dict | None) -> tuple[CatalogKey | None, Path | None]:
    """(:func:`_surface_key`, the folder it scans): they depend on the folders above the skill
    alone, so siblings share one answer (``memo``)."""
    if memo is None or package.root.name in ("skills", "skill"):
        return _surface_place_of(package.root, target, stop)
    shared = ("surface", target.id, str(package.root.parent), str(stop))
    if shared not in memo:
        memo[shared] = _surface_place_of(package.root, target, stop)
    return memo[shared]


def _surface_place_of(root: Path, target: Target, stop: Path) -> tuple[CatalogKey | None, Path | None]:
    surface = _scanned_folder(root, target)
    if surface is None:
        return None, None
    return (target.id, _repo_root(surface.parent.parent, stop), "surface-roots", ""), surface


def _catalog_key(package: SkillPackage, target: Target, units: InstallUnits, stop: Path, memo: dict | None = None) -> CatalogKey:
    key = _surface_key(package, target, stop, memo)
    if key is not None:
        return key
    own = may_make_plugins(package.listing)
    if not own and memo is not None and package.root.name not in ("skills", "skill"):
        # No manifest or marketplace in the skill's folder: where no plugin lies above it either,
        # its siblings share its collection.
        shared = ("collection", target.id, str(package.root.parent), str(stop))
        if shared in memo:
            return memo[shared]
        if not units.plugins_above(package.normal_root.parent, stop, target):
            key = memo[shared] = (target.id, _collection_root(package, stop), "collection", "")
            return key
    # A plugin is installed, and namespaced (`plugin:skill`), as a unit: its skills are
    # never listed with another plugin's, on any surface (discovery.units). A skill in an agent
    # folder that a plugin holds without loading it is that folder's, not the plugin's.
    plugin = units.plugin_of(package.normal_root, stop, target, own)
    if plugin is None and not in_agent_folder(package.normal_root):
        plugin = units.holding_plugin(package.normal_root, stop, target, own)
    if plugin is not None:
        return target.id, plugin.root, "plugin", plugin.name
    return target.id, _collection_root(package, stop), "collection", ""


def _unloaded_reason(package: SkillPackage, target: Target, units: InstallUnits, stop: Path, key: CatalogKey, memo: dict) -> str | None:
    """Why the surface does not load the skill in the catalog ``key`` names, or None when it
    does: a plugin's skills are the ones under the folders its manifest loads
    (:mod:`skilllint.discovery.plugins`), on every surface; a surface that does not load nested
    skills (Claude Code, OpenCode) never loads a skill nested inside another skill's folder;
    Codex skips dot-folders."""
    _, root, kind, name = key
    surface = target.called
    if kind == "plugin":
        nested = target.loads_nested_skills
        if units.plugin_of(package.normal_root, stop, target) is None:
            where = f"the plugin `{name}` ({root}) loads (its `skills/`, or the `skills` paths its manifest or marketplace entry names)"
            if nested:
                return f"not below a skills folder {where}"
            return f"not `<skills folder>/<name>/SKILL.md` of a skills folder {where}: {surface} looks no deeper"
    if target.lists_only_direct_children and kind == "surface-roots":
        folder, below = claude_skills_folder(package.normal_root)  # `.claude/skills/<name>/SKILL.md` alone
        if folder is None or len(below.parts) < 2:
            return None
        return f"{len(below.parts)} folders deep below {folder}: {surface} lists `<skills folder>/<name>/SKILL.md` only"
    if not target.loads_nested_skills:
        holder = _inside_another_skill(package.root, root, memo.setdefault("skill-folders", {}))
        return None if holder is None else f"nested inside another skill's folder ({holder}): {surface} does not load nested skills"
    if target.skips_dot_folders:
        # Codex's walk skips every entry whose name starts with `.` below the root it scans (§3a)
        base = _surface_root(package, target) if kind == "surface-roots" else root
        if base is not None and is_within(base, package.root) and package.root != base:
            dotted = [part for part in package.root.relative_to(base).parts if part.startswith(".")]
            if dotted:
                return f"under the dot-folder `{dotted[0]}` below {base}: {surface}'s walk skips dot-folders"
    return None


def _inside_another_skill(skill: Path, top: Path, known: dict) -> Path | None:
    """The nearest folder between ``top`` (excluded) and ``skill`` (excluded) holding a SKILL.md, if any."""
    for folder in skill.parents:
        if folder == top or not is_within(top, folder):
            return None
        held = known.get(folder)
        if held is None:
            held = known[folder] = os.path.isfile(folder / "SKILL.md")
        if held:
            return folder
    return None


def read_entry(package: SkillPackage, target) -> CatalogSkill | None:
    """The skill as ``target`` lists it, or None when its frontmatter does not parse there
    (Claude Code still loads such a skill, with no fields set: docs/surfaces.md §2b), or when
    no surface can read it."""
    if unread_reason(package, target) is not None:
        return None
    mapping = package.view(target).mapping
    if mapping is None:  # a lenient loader's
        return CatalogSkill(package, package.folder_name, "", first_body_line=first_body_line(package))
    name = mapping.get("name")
    description = mapping.get("description")
    name = " ".join(name.split()) if isinstance(name, str) else ""
    description = description if isinstance(description, str) else ""
    if target.description_count == "collapse":  # the surface reads it whitespace-collapsed
        description = " ".join(description.split())
    hidden = hidden_reason(package, mapping, target) is not None
    skill = CatalogSkill(package, name or package.folder_name, description, hidden=hidden)
    if target.lists_when_to_use:
        when = mapping.get("when_to_use")
        skill.when_to_use = when if isinstance(when, str) else ""
    if target.lists_first_body_line:
        skill.first_body_line = "" if description else first_body_line(package)
    return skill


def hidden_reason(package: SkillPackage, mapping: dict, target: Target) -> str | None:
    """Why ``target`` keeps the skill (frontmatter ``mapping``) out of the model-visible
    catalog, or None when it lists it."""
    if target.hides_disabled_skills and read_bool(mapping.get("disable-model-invocation")) is True:
        return "`disable-model-invocation: true`: invocable by the user only, never listed to the model"
    if target.reads_openai_yaml_policy and not implicit_invocation_allowed(package):
        # agents/openai.yaml `policy.allow_implicit_invocation: false`: loaded and `$name`-invocable,
        # never in the model-visible catalog (S-CX-MODEL, allowed_skills_for_implicit_invocation)
        return "agents/openai.yaml `policy.allow_implicit_invocation: false`: `$name`-invocable, never listed to the model"
    return None


def unread_reason(package: SkillPackage, target: Target) -> str | None:
    """Why :func:`read_entry` reads no entry of the skill for ``target``, or None when it reads one."""
    if package.skill_md_name is None or not package.readable:
        return f"{target.title} finds no readable SKILL.md"
    if package.view(target).mapping is None and not target.lenient_loader:
        return f"frontmatter {target.title} cannot read (SL003-SL006)"
    return None


def first_body_line(package: SkillPackage) -> str:
    """Claude Code lists the first non-empty body line when `description` is absent."""
    try:
        for text in package.body.splitlines():
            if text.strip():
                return text.strip()
    except Exception:  # noqa: BLE001 - an unreadable body lists nothing
        return ""
    return ""


def codex_skip_reason(skill: CatalogSkill) -> str | None:
    """Why Codex's loader would not load this skill (S-CX-LOAD), or None when it would."""
    if not skill.description:
        return "no description: Codex does not load it (SL111/SL112)"
    if len(skill.description) > 1024 or len(skill.name) > 64:
        return "over Codex's length limits (SL103/SL113)"
    return None


def build_catalogs(
    packages: list[SkillPackage],
    settings,
    context: list[SkillPackage] = (),
    extra: list = (),
    boundary: Path | None = None,
    reader=None,
    log=None,
    memo: dict | None = None,
) -> list[Catalog]:
    """Group skills into catalogs, each canonical SKILL.md once per target.

    ``packages`` are the linted skills; ``context`` their siblings loaded only
    so each catalog is whole (pre-commit passes a few files); ``extra`` are
    :class:`~skilllint.lint.catalog_context.ScopedPackage` from configured roots,
    which join every catalog of a target that loads them. ``reader`` reads
    each entry (default :func:`read_entry`; :mod:`skilllint.lint.cache.catalog_entries`
    remembers them between runs). ``log``, a
    :class:`~skilllint.catalog.discovery_log.DiscoveryLog`, records each skill a surface
    does not load, and why. ``memo``: :func:`placement`'s, when the siblings' search placed
    the skills already (:attr:`skilllint.lint.catalog_context.CatalogContext.placements`)."""
    reader = reader or read_entry
    catalogs: dict[CatalogKey, Catalog] = {}
    seen: dict[tuple[str, str], SkillPackage] = {}
    keys: dict = {} if memo is None else memo
    everyone = [*((p, False) for p in packages), *((p, True) for p in context)]
    # Targets inferred: every surface's listing counts, where it joins folders of one repository
    surveyed = _surveyed(everyone, settings, boundary, keys) if getattr(settings, "targets", ()) is None else {}
    for package, is_context in everyone:
        targets = settings.targets_for(package)
        listing = surveyed.get(id(package), ())
        for target, entry in _entries(package, targets + listing, seen, reader, log):
            entry.context = is_context
            entry.surveyed = target in listing
            key, reason = placement(package, target, settings.units, boundary, keys)
            if key is None:  # the surface never loads it there
                if log is not None:
                    log.rejected(package, target.id, "repo", reason)
                continue
            catalog = catalogs.get(key)
            if catalog is None:
                catalog = catalogs[key] = Catalog(target, key[1], key[2], plugin=key[3])
            catalog.skills.append(entry)
    for scoped in extra:
        chosen = [t for t in settings.targets_for(scoped.package) if scoped.targets is None or t.id in scoped.targets]
        for target in chosen:
            members = [c for c in catalogs.values() if c.target == target.id]
            for catalog in members:
                entry = reader(scoped.package, target)
                if entry is None or (target.id, scoped.package.real_skill_md) in seen:
                    if log is not None and catalog is members[0]:
                        log.rejected(scoped.package, target.id, scoped.scope, _unentered(scoped.package, target, seen))
                    continue
                entry.scope, entry.context = scoped.scope, True
                catalog.skills.append(entry)
    for catalog in catalogs.values():
        apply_precedence(catalog)
    return list(catalogs.values())


def _surveyed(everyone: list, settings, boundary: Path | None, memo: dict) -> dict[int, tuple[Target, ...]]:
    """id(package) -> the surfaces besides its targets that list it: those that scan its agent
    folder (``project_skill_folders``) in a repository where they scan more than one folder holding
    skills. A surface that scans one folder lists what the run's own targets list there already; one
    that joins two (Copilot: `.claude/skills` and `.agents/skills`) lists what no target joins."""
    from ..targets import TARGETS

    surfaces = [t for t in TARGETS.values() if t.project_skill_folders]
    places: list[tuple[SkillPackage, Target, CatalogKey]] = []
    folders: dict[CatalogKey, set[Path]] = {}
    by_parent: dict[tuple[str, str], list] = {}  # what the folders above a skill give, siblings sharing it
    for package, _ in everyone:
        targets = settings.targets_for(package)
        stop = boundary if boundary is not None and is_within(boundary, package.root) else package.lint_root
        shared = (str(package.root.parent), str(stop)) if package.root.name not in ("skills", "skill") else None
        placed = by_parent.get(shared) if shared is not None else None
        if placed is None:
            placed = [(s, *_surface_place(package, s, stop, None)) for s in surfaces]
            placed = [item for item in placed if item[1] is not None]
            if shared is not None:
                by_parent[shared] = placed
        for surface, key, folder in placed:
            folders.setdefault(key, set()).add(folder)
            if surface not in targets:
                places.append((package, surface, key))
    found: dict[int, tuple[Target, ...]] = {}
    for package, surface, key in places:
        if len(folders[key]) > 1:
            found[id(package)] = found.get(id(package), ()) + (surface,)
    return found


def _entries(package: SkillPackage, targets, seen: dict[tuple[str, str], SkillPackage], reader, log=None):
    if package.skill_md_name != "SKILL.md":
        # (an unreadable one: read_entry says None; a stored entry came from a readable one)
        if log is not None:
            for target in targets:
                log.rejected(package, target.id, "repo", _unentered(package, target, seen))
        return
    real = package.real_skill_md
    for target in targets:
        if (target.id, real) in seen:
            if log is not None:
                log.rejected(package, target.id, "repo", _unentered(package, target, seen))
            continue
        entry = reader(package, target)
        if entry is None:
            if log is not None:
                log.rejected(package, target.id, "repo", _unentered(package, target, seen))
            continue
        seen[(target.id, real)] = package
        yield target, entry


def _unentered(package: SkillPackage, target: Target, seen: dict[tuple[str, str], SkillPackage]) -> str:
    """Why :func:`build_catalogs` takes no entry of ``package`` for ``target``: another path to
    the same SKILL.md was taken already, its file is not named ``SKILL.md``, or
    :func:`read_entry` reads none."""
    first = seen.get((target.id, package.real_skill_md)) if package.skill_md_name is not None else None
    if first is not None:
        return f"the same SKILL.md as {first.skill_md_path or first.root}, listed once"
    if package.skill_md_name not in (None, "SKILL.md"):
        return f"its file is named `{package.skill_md_name}`: {target.title} reads `SKILL.md` only"
    return unread_reason(package, target) or f"{target.title} reads no entry of it"


def apply_precedence(catalog: Catalog) -> None:
    """Mark the skills a same-named skill of a winning scope shadows; within the project scope,
    for a surface that ranks its project folders (Gemini CLI), the one in the earlier folder."""
    surface = catalog.surface
    order = surface.scope_precedence
    if order is None:
        return
    groups: dict[str, list[CatalogSkill]] = {}
    for skill in catalog.skills:
        groups.setdefault(name_key(surface, skill.name), []).append(skill)
    ranked = surface.ranks_project_folders and catalog.kind == "surface-roots"
    for group in groups.values():
        if len(group) < 2:
            continue

        def rank(skill: CatalogSkill) -> tuple[int, int]:
            folder = _folder_rank(skill.package, surface) if ranked and skill.scope == "repo" else 0
            return order.index(skill.scope), folder

        best = min(rank(s) for s in group)
        winner = next(s for s in group if rank(s) == best)
        for skill in group:
            if rank(skill) > best:
                skill.shadowed_by = winner


def _folder_rank(package: SkillPackage, target: Target) -> int:
    """The place, in the surface's ``project_skill_folders``, of the one holding the skill."""
    parts = package.root.parts
    for index in range(len(parts) - 2, -1, -1):
        for rank, pair in enumerate(target.project_skill_folders):
            if parts[index : index + 2] == pair:
                return rank
    return len(target.project_skill_folders)
