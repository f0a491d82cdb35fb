"""Configuration: discovery, JSON Schema validation, and the resolved settings.

Discovery walks up from a folder (the working directory, or a linted path:
:mod:`skilllint.app.trees`) to the root of its git repository and takes the first of
``.skilllint.toml``, ``skilllint.toml`` and a ``pyproject.toml`` holding
``[tool.skilllint]`` (``--config`` overrides). Outside a repository only that
folder is searched: a configuration in a folder above a downloaded skill
(``/tmp``, a shared folder) is not the user's and must not silence findings or
place the cache. (ruff climbs to the file system's root, yamllint to the home
folder or the root; both then fall back on a user configuration, which skilllint
does not have.) Every key is validated against a JSON Schema built from the
rules' option schemas, so a typo is a clear exit-2 error rather than a silently
ignored setting.

A configuration found from a linted path rather than from the working folder came
with the linted tree: the folders it names (``cache-dir``, catalog roots) must lie
in its own folder (:attr:`Settings.project`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..diagnostics import Severity
from ..fsafe import DEFAULT_MAX_BYTES, MAX_READ_BYTES, is_within, real_path_or_given
from ..registry import Registry, Rule
from ..discovery import claude_code_links
from ..discovery.plugins import may_make_plugins
from ..discovery.units import InstallUnits, Plugin, Unlisted
from ..targets import TARGETS, Target
from .keys import KEYS, ConfigError, apply_keys

CONFIG_NAMES = (".skilllint.toml", "skilllint.toml", "pyproject.toml")
MAX_CONFIG_BYTES = 1024 * 1024


def _load_toml(path: Path, follow_links: bool = False) -> dict:
    """Read a TOML config safely: capped, and a discovered file that is a link
    is not followed (an explicit --config may be one)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    from ..fsafe import UnsafeFile, read_capped

    try:
        target = Path(os.path.realpath(path)) if follow_links else path
        result = read_capped(target, MAX_CONFIG_BYTES)  # O_NONBLOCK: a FIFO is refused, never waited on
    except UnsafeFile as exc:
        raise ConfigError(f"{path}: cannot read the configuration ({exc})") from None
    if result.truncated:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes")
    try:
        return tomllib.loads(result.data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def repository_root(start: Path, memo: dict | None = None) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or a worktree's file), or None.
    ``memo`` (shared by the calls of one run) keeps each folder's answer."""
    if memo is None:
        memo = {}
    seen = []
    root = None
    folder = str(start)  # strings: a run with a path per changed file asks for thousands
    while True:
        key = ("repository", folder)
        if key in memo:
            root = memo[key]
            break
        seen.append(key)
        if os.path.lexists(os.path.join(folder, ".git")):  # lstat only: a planted link is not followed
            root = Path(folder)
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for key in seen:
        memo[key] = root
    return root


def find_config(start: Path, memo: dict | None = None) -> tuple[Path, dict] | None:
    """The nearest config file at or above ``start``, up to the root of its git repository;
    outside a repository, in ``start`` only. ``memo`` (shared by the calls of one run, from
    many paths) keeps each folder's answer, so that each folder is looked at once.

    A config name that exists but is no regular file (a FIFO, a device, a
    folder, a link) or cannot be read is an error, as ruff treats an unreadable
    config: passing over it would lint with settings the user did not choose."""
    if memo is None:
        memo = {}
    root = repository_root(start, memo)
    top = str(root) if root is not None else None
    seen = []
    found = None
    folder = str(start)
    while True:
        key = ("config", folder, top)  # the nearest from ``folder`` up to ``top``
        if key in memo:
            found = memo[key]
            break
        seen.append(key)
        found = _config_in(folder)
        parent = os.path.dirname(folder)
        if found is not None or top is None or folder == top or parent == folder:
            break
        folder = parent
    for key in seen:
        memo[key] = found
    return found


def _config_in(folder: str) -> tuple[Path, dict] | None:
    """The configuration file of ``folder`` itself, if any: its path and skilllint keys."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(folder, name)
        if not os.path.lexists(candidate):  # lstat only: nothing is opened, no link followed
            continue
        candidate = Path(candidate)
        data = _load_toml(candidate)
        if name == "pyproject.toml":
            section = data.get("tool", {}).get("skilllint")
            if section is None:
                continue
            return candidate, section
        return candidate, data
    return None


def config_schema(registry: Registry) -> dict:
    """The JSON Schema of skilllint's configuration (``skilllint config --schema``): each key's own
    (:data:`skilllint.config.keys.KEYS`), and under ``rules`` a table per rule, by code and by name,
    of its severity and its options' schemas."""
    codes = [rule.code for rule in registry.sorted()]
    rule_tables: dict[str, Any] = {}
    for rule in registry.sorted():
        table = {
            "type": "object",
            "description": f"{rule.code} {rule.name}: {rule.summary}",
            "properties": {
                "severity": {"enum": ["error", "warning", "info"], "description": "override the rule's severity"},
                **rule.options_schema,
            },
            "additionalProperties": False,
        }
        rule_tables[rule.code] = table
        rule_tables[rule.name] = table
    properties = {key.name: dict(key.schema) for key in KEYS}
    properties["rules"] = {"type": "object", "properties": rule_tables, "additionalProperties": False, "description": properties["rules"]["description"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://skilllint.dev/schemas/config.json",
        "title": "skilllint configuration",
        "description": "Keys of .skilllint.toml, skilllint.toml or [tool.skilllint] in pyproject.toml.",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "x-rule-codes": codes,
    }


def validate_config(data: dict, registry: Registry, source: str) -> None:
    from .schemacheck import is_valid

    schema = config_schema(registry)
    if is_valid(schema, data):
        return  # jsonschema (slow to import) only to say what is wrong, or for what the quick check cannot tell
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        message = error.message
        if error.validator == "additionalProperties" and where.startswith("rules"):
            message += "; rules are named by code (SL201) or name (skill-md-too-long)"
        raise ConfigError(f"{source}: {where}: {message}")


@dataclass(eq=False, repr=False)
class Settings:
    """Configuration merged with the command line. Each key of the configuration sets the attribute
    its :class:`~skilllint.config.keys.Key` names (``fail-on``: ``fail_on``), made from the key's
    default here: ``targets`` (None: inferred per skill), ``select`` (None: every rule but the
    opt-in ones), ``extend_select``, ``ignore``, ``per_file_ignores``, ``exclude``,
    ``respect_gitignore``, ``fail_on``, ``output_format``, ``max_findings_per_rule_per_file``,
    ``cache``, ``cache_dir``, ``baseline`` (as written: relative to its file,
    :mod:`skilllint.app.baseline`), ``rule_config`` (by code), ``catalog``, ``eval``."""

    registry: Registry
    base: Path  # folder of the config file, or the working directory
    config_path: Path | None = None
    # Found from a linted path, not from the working folder nor given with --config: it came
    # with the linted tree, and the folders it names must lie in it (``project``).
    from_tree: bool = False
    loaded: dict[str, Any] = field(default_factory=dict)  # the configuration's keys as read
    given: dict[str, Any] = field(default_factory=dict)  # the command line's settings that were set
    _per_file_specs: list[tuple[Any, list[str]]] | None = None
    _targets_cache: dict[str, tuple[Target, ...]] = field(default_factory=dict)
    _targets_by_parent: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    units: InstallUnits = field(default_factory=InstallUnits)  # what installs each skill (discovery.units)
    _not_listing_cache: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # (rules, targets, targets that see SKILL.md) -> [(rule, targets it applies to, options)]: package_lint._plan
    _rule_plans: dict[tuple, list] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key in KEYS:
            if key.attr is not None:
                setattr(self, key.attr, key.fresh_default())

    @property
    def project(self) -> Path:
        """The folder the paths this configuration names (``cache-dir``, catalog roots) must
        lie in: its repository, else its folder; its own folder when it came with a linted tree."""
        if self.from_tree:
            return Path(os.path.normpath(self.base))
        return repository_root(self.base) or self.base

    # -- selection -------------------------------------------------------------

    def enabled_rules(self) -> list[type[Rule]]:
        return [rule for rule in self.registry.sorted() if self.is_enabled(rule)]

    def is_enabled(self, rule: type[Rule]) -> bool:
        """Ruff's rule: the most specific matching selector wins; ignore wins ties.
        Opt-in rules run only when a selector names them (a prefix or ALL counts)."""
        best: tuple[int, bool] | None = None
        selectors = [(s, True) for s in (self.select or [])] + [(s, True) for s in self.extend_select]
        selectors += [(s, False) for s in self.ignore]
        for selector, enable in selectors:
            if selector == "ALL":
                length = 0
            elif rule.code.startswith(selector):
                length = len(selector)
            else:
                continue
            if best is None or length > best[0] or (length == best[0] and not enable):
                best = (length, enable)
        if best is None:
            return self.select is None and not rule.opt_in
        return best[1]

    def options_for(self, rule: type[Rule]) -> dict[str, Any]:
        options = dict(rule.defaults)
        configured = self.rule_config.get(rule.code, {})
        options.update({k: v for k, v in configured.items() if k != "severity"})
        return options

    def read_cap(self) -> int:
        """The cap on the bytes read of a file: the option a rule declares as the cap
        (:attr:`skilllint.rule.Rule.read_cap_option`, SL011's ``max-bytes``), never past
        :data:`skilllint.fsafe.MAX_READ_BYTES` (the schema refuses more; settings made otherwise
        are held to it too). The engine, the fixer and the server read files under it."""
        rule = self.registry.read_cap_rule
        value = self.options_for(rule)[rule.read_cap_option] if rule else DEFAULT_MAX_BYTES
        return min(value, MAX_READ_BYTES) if type(value) is int and value > 0 else DEFAULT_MAX_BYTES

    def severity_override(self, rule: type[Rule]) -> Severity | None:
        level = self.rule_config.get(rule.code, {}).get("severity")
        return Severity.parse(level) if level else None

    def ignored_by_path(self, code: str, path: Path) -> bool:
        if not self.per_file_ignores:
            return False
        if self._per_file_specs is None:
            from ..discovery.gitignore import gitignore_spec, tame_glob

            self._per_file_specs = [(gitignore_spec([tame_glob(pattern)]), codes) for pattern, codes in self.per_file_ignores.items()]
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            rel = path.as_posix()
        for spec, codes in self._per_file_specs:
            if spec.match_file(rel) and any(code.startswith(c) or c == "ALL" for c in codes):
                return True
        return False

    # -- targets -----------------------------------------------------------------

    def manifest_search_stop(self, package: Any) -> Path:
        """How high to look for a skill's .claude-plugin/plugin.json: the project (config)
        folder, or the linted tree when the skill lies outside it."""
        return self.base if is_within(self.base, package.root) else package.lint_root

    def targets_for(self, package: Any) -> tuple[Target, ...]:
        key = str(package.root)
        cached = self._targets_cache.get(key)
        if cached is None:
            if self.targets is not None:
                ids = self.targets
            else:
                stop = self.manifest_search_stop(package)
                # What the location implies depends on the folders above the skill alone, unless
                # the skill's own folder is named `skills` (.claude/skills is a location) or is a
                # plugin itself: siblings share one answer (a pre-commit run asks for 1,000 of them).
                parent, name = os.path.split(key)
                own = name == "skills" or may_make_plugins(package.listing)
                shared = (parent, str(stop)) if not own else None
                ids = self._targets_by_parent.get(shared) if shared else None
                if ids is None:
                    ids = self.units.targets(Path(os.path.normpath(key)), stop)
                    if shared:
                        self._targets_by_parent[shared] = ids
            cached = tuple(TARGETS[t] for t in ids)
            self._targets_cache[key] = cached
        return cached

    def plugin_of(self, package: Any, target: Target) -> Plugin | None:
        """The plugin that installs the package for ``target`` (:meth:`InstallUnits.plugin_of`)."""
        own = may_make_plugins(package.listing)
        return self.units.plugin_of(package.normal_root, self.manifest_search_stop(package), target, own)

    def installed_whole(self, package: Any, target: Target) -> Plugin | None:
        """For a target that installs plugins by copying them whole, the plugin whose root comes
        with the package: the one that installs it, else the nearest holding it."""
        if target.plugin_manifest is None:
            return None
        own = may_make_plugins(package.listing)
        return self.units.holding_plugin(package.normal_root, self.manifest_search_stop(package), target, own)

    def not_listing(self, package: Any) -> tuple[str, ...]:
        """The ids of the package's targets that never list it where it lies (a skill nested
        below ``<skills folder>/<name>/`` for Claude Code): :func:`skilllint.targets.not_listing`."""
        key = str(package.root)
        cached = self._not_listing_cache.get(key)
        if cached is None:
            ids = tuple(t.id for t in self.targets_for(package))
            stop = self.manifest_search_stop(package)
            root = package.normal_root
            cached = self.units.not_listing(root, ids, stop)
            self._not_listing_cache[key] = cached
        return cached

    def reads_as_document(self, package: Any) -> tuple[str, ...]:
        """Of the targets that never list the package (:meth:`not_listing`), those that read its
        files all the same: claude-code when links from a skill it lists in that skills folder
        lead to the package (:func:`skilllint.discovery.claude_code_links.reached`, SL520's own
        answer). Claude reads that SKILL.md and the files it links when it follows the link, so
        the rules about their content run for it, and those about being a skill do not."""
        return ("claude-code",) if self.linked_document(package) is not None else ()

    def linked_document(self, package: Any) -> Unlisted | None:
        """Where the package lies below the skills folder Claude Code scans, when Claude Code never
        lists it but reads it through a link (:meth:`reads_as_document`); None otherwise.

        Not kept here: the answer depends on other skills' files, which a language server's
        long-lived settings outlive; the links are read once per skills folder and kept while
        none of the files read changes."""
        if "claude-code" not in self.not_listing(package):
            return None
        root = package.normal_root
        place = self.units.unlisted(root, self.manifest_search_stop(package))
        if place is None or not claude_code_links.reached(root, place.skills_folder, package.max_bytes):
            return None
        return place


def load_settings(
    registry: Registry,
    cwd: Path,
    config_path: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> Settings:
    """Find and validate the configuration, then apply command-line overrides."""
    if config_path:
        found: tuple[Path, dict] | None = read_config_file(config_path, cwd)
    else:
        found = find_config(cwd)
    return settings_from(registry, found, cwd, overrides)


def read_config_file(config_path: str, cwd: Path) -> tuple[Path, dict]:
    """``--config FILE``: its path and its skilllint keys."""
    path = Path(config_path)
    if not path.is_absolute():
        path = cwd / path
    if not os.path.exists(path):  # stat only: a FIFO is not opened here
        raise ConfigError(f"{config_path}: config file not found")
    data = _load_toml(path, follow_links=True)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("skilllint", {})
    return path, data


def settings_from(
    registry: Registry,
    found: tuple[Path, dict] | None,
    cwd: Path,
    overrides: dict[str, Any] | None = None,
    from_tree: bool = False,
) -> Settings:
    """Validate a configuration (path, keys) found or given (None: none; the working folder is
    the base), then apply command-line overrides."""
    data = found[1] if found else {}
    source = str(found[0]) if found else "configuration"
    if data:  # nothing to validate in an absent or empty configuration
        validate_config(data, registry, source)
    settings = Settings(registry=registry, base=found[0].parent if found else cwd, config_path=found[0] if found else None)
    settings.from_tree = from_tree and found is not None
    settings.loaded = data
    apply_keys(settings, data, source)
    _confine_catalog_roots(settings)
    if overrides:
        settings.given = {k: v for k, v in overrides.items() if v is not None}
        apply_keys(settings, settings.given, "command line")
    return settings


def _confine_catalog_roots(settings: Settings) -> None:
    """A ConfigError when the configuration names a catalog root outside its project
    (:attr:`Settings.project`), judged by where the folder really is (a link inside leading out
    is out). A configuration file may come with the linted tree, and pre-commit or a CI job runs
    in the tree a pull request changed: a root such as ``~/.claude/skills`` there would make
    skilllint read, and print, the runner's own files. The command line's ``--catalog-root`` is
    the user's own choice and is not judged (it joins after this)."""
    tables = settings.catalog.get("roots", ()) if isinstance(settings.catalog, dict) else ()
    if not tables:
        return
    project = settings.project
    real_project = Path(real_path_or_given(project))
    for table in tables:
        written = table["path"]
        path = os.path.normpath(os.path.join(settings.base, os.path.expanduser(written)))
        if not is_within(real_project, Path(real_path_or_given(Path(path)))):
            raise ConfigError(
                f"{settings.config_path or 'configuration'}: catalog.roots: {written!r} leads outside {project}, the "
                "project of this configuration, which may come with the tree being linted; name a folder of "
                "installed skills elsewhere with --catalog-root SCOPE=PATH"
            )


def cwd() -> Path:
    return Path(os.getcwd())
