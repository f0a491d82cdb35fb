"""The configuration's keys, each declared once: its JSON Schema, its default, how a value read is
applied to :class:`skilllint.config.settings.Settings`, and how ``skilllint config --show`` writes
it. The schema (``skilllint config --schema``, ``skilllint/schemas/config.schema.json``), the
loader and ``config --show`` all read :data:`KEYS`, as the rules' options come from each rule's
``options``: a new setting is one entry here.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Callable

from ..diagnostics import Severity
from ..findingcap import DEFAULT_LIMIT, HARD_LIMIT
from ..targets import TARGET_IDS, TARGETS, resolve_target_names

# A skilllint.config.settings.Settings, which is made from this table (so not imported here).
Settings = Any

OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github", "auto")  # = output.CHOICES (tested)
SELECTOR = {"type": "string", "pattern": r"^(ALL|[A-Z]{1,5}[0-9]{0,4})$"}


class ConfigError(Exception):
    """The configuration cannot be used (exit 2)."""


@dataclass(frozen=True, eq=False, repr=False)
class Key:
    """One key of the configuration.

    ``attr``: the :class:`Settings` attribute it sets (None: it adds to another key's, as
    ``extend-exclude`` to ``exclude``'s). ``default``: the attribute's value when nothing sets it
    (copied for each Settings). ``apply(settings, value, source)``: what a value read does (default:
    the attribute takes it). ``unset``: how ``config --show`` words the default when it is not a value
    to print (``targets``: inferred per skill). ``sources``: the keys ``config --show`` names as where
    the value comes from (default: this key). ``adds``: the command line adds to the value rather
    than replacing it. ``table``: ``config --show`` writes one line per sub-key the value holds."""

    name: str
    attr: str | None
    schema: dict
    default: Any = None
    apply: Callable[[Settings, Any, str], None] | None = None
    unset: str | None = None
    sources: tuple[str, ...] = ()
    adds: bool = False
    table: bool = False

    def fresh_default(self) -> Any:
        return copy.copy(self.default)


def _targets(settings: Settings, value: Any, source: str) -> None:
    try:
        settings.targets = resolve_target_names(list(value))
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _selectors(key: str) -> Callable[[Settings, Any, str], None]:
    def apply(settings: Settings, value: Any, source: str) -> None:
        known = [rule.code for rule in settings.registry.sorted()]
        values = [v.strip().upper() for v in value if v.strip()]
        for selector in values:
            if selector != "ALL" and not any(code.startswith(selector) for code in known):
                raise ConfigError(f"{source}: {key}: {selector!r} matches no rule")
        if key == "extend-select":
            settings.extend_select = settings.extend_select + values
        else:
            setattr(settings, key, values)

    return apply


def _patterns(key: str, then: Callable[[Settings, list], None]) -> Callable[[Settings, Any, str], None]:
    """A list of gitignore patterns: one that matches nothing because it cannot be read (a lone
    ``!``, a trailing backslash, a range that runs backwards) is a mistake in the configuration,
    said, not left to match nothing."""

    def apply(settings: Settings, value: Any, source: str) -> None:
        from ..discovery.gitignore import tame_glob, unreadable_pattern

        for pattern in value:
            if isinstance(pattern, str) and unreadable_pattern(tame_glob(pattern)):
                raise ConfigError(f"{source}: {key}: {pattern!r} is not a gitignore pattern git can read (it would match nothing)")
        then(settings, value)

    return apply


def _checked_per_file_ignores(settings: Settings, value: Any, source: str) -> None:
    _patterns("per-file-ignores", lambda s, v: None)(settings, list(value), source)
    settings.per_file_ignores = {**settings.per_file_ignores, **value}


def _rules(settings: Settings, value: Any, source: str) -> None:
    for key, table in value.items():
        rule = settings.registry.rules.get(key) or settings.registry.by_name(key)
        if rule is None:  # the schema already refuses this; belt and braces
            raise ConfigError(f"{source}: rules.{key}: no such rule")
        settings.rule_config.setdefault(rule.code, {}).update(table)


def _set(attr: str, convert: Callable[[Any], Any]) -> Callable[[Settings, Any, str], None]:
    return lambda settings, value, source: setattr(settings, attr, convert(value))


_CATALOG_ROOTS = {
    "type": "array",
    "description": "folders of installed skills that join the catalogs, with the scope a surface "
    "gives them (e.g. path = \"vendor/skills\", scope = \"user\"); never reported on; only folders inside this "
    "file's repository (or its folder outside one): name others, such as ~/.claude/skills, with --catalog-root",
    "items": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "relative to this file; ~ expands"},
            "scope": {"enum": ["user", "admin", "system"]},
            "targets": {
                "type": "array",
                "items": {"enum": sorted(TARGETS)},
                "description": "the surfaces that load this root (default: as its location implies)",
            },
        },
        "required": ["path", "scope"],
        "additionalProperties": False,
    },
}

KEYS: tuple[Key, ...] = (
    Key(
        "targets",
        "targets",
        {
            "type": "array",
            "items": {"enum": ["all", *TARGET_IDS]},
            "description": "surface profiles to check against; default: inferred from each skill's location",
        },
        apply=_targets,
        unset="(inferred from each skill's location)",
    ),
    Key("select", "select", {"type": "array", "items": SELECTOR, "description": "rule codes or prefixes to enable"}, apply=_selectors("select"), unset="(every rule but the opt-in ones)"),
    Key("extend-select", "extend_select", {"type": "array", "items": SELECTOR, "description": "add to the selection"}, default=[], apply=_selectors("extend-select"), adds=True),
    Key("ignore", "ignore", {"type": "array", "items": SELECTOR, "description": "rule codes or prefixes to disable"}, default=[], apply=_selectors("ignore")),
    Key(
        "per-file-ignores",
        "per_file_ignores",
        {
            "type": "object",
            "additionalProperties": {"type": "array", "items": SELECTOR},
            "description": "glob (relative to the config file) -> codes ignored there",
        },
        default={},
        apply=_checked_per_file_ignores,
    ),
    Key(
        "exclude",
        "exclude",
        {"type": "array", "items": {"type": "string"}, "description": "gitignore-style patterns"},
        default=[],
        apply=_patterns("exclude", lambda settings, value: setattr(settings, "exclude", list(value))),
        sources=("exclude", "extend-exclude"),
    ),
    Key(
        "extend-exclude",
        None,
        {"type": "array", "items": {"type": "string"}},
        apply=_patterns("extend-exclude", lambda settings, value: setattr(settings, "exclude", settings.exclude + list(value))),
    ),
    Key("respect-gitignore", "respect_gitignore", {"type": "boolean"}, default=True, apply=_set("respect_gitignore", bool)),
    Key(
        "fail-on",
        "fail_on",
        {"enum": ["error", "warning", "info"], "description": "lowest severity that fails (exit 1)"},
        default=Severity.ERROR,
        apply=_set("fail_on", Severity.parse),
    ),
    Key("output-format", "output_format", {"enum": list(OUTPUT_FORMATS)}, default="full"),
    Key(
        "max-findings-per-rule-per-file",
        "max_findings_per_rule_per_file",
        {
            "type": "integer",
            "minimum": 1,
            "maximum": HARD_LIMIT,
            "description": f"report at most this many findings of one rule in one file (default {DEFAULT_LIMIT}, "
            f"at most {HARD_LIMIT}); the rest are counted, and the last reported finding and the summary say how many",
        },
        default=DEFAULT_LIMIT,
        apply=_set("max_findings_per_rule_per_file", int),
    ),
    Key("cache", "cache", {"type": "boolean", "description": "keep results of unchanged skills between runs (default true)"}, default=True, apply=_set("cache", bool)),
    Key(
        "cache-dir",
        "cache_dir",
        {
            "type": "string",
            "description": "where the result cache lives, relative to this file and inside its repository (or its folder outside one; its own folder when it came with a tree linted from elsewhere); elsewhere only with --cache-dir or SKILLLINT_CACHE_DIR (default: .skilllint_cache at the root of the git repository; none outside one)",
        },
        unset="(.skilllint_cache at the root of the working folder's git repository)",
    ),
    Key(
        "baseline",
        "baseline",
        {
            "type": "string",
            "minLength": 1,
            "description": "a baseline file written by `skilllint check --write-baseline`: only findings not in it are reported; relative to this file and inside its repository (or its folder outside one); elsewhere only with --baseline",
        },
        unset="(none)",
    ),
    Key(
        "rules",
        "rule_config",
        {"type": "object", "description": "per-rule severity and options, by code or name"},  # properties: see config_schema
        default={},
        apply=_rules,
    ),
    Key(
        "catalog",
        "catalog",
        {
            "type": "object",
            "description": "catalog settings for the SL5xx rules (default: context window unknown)",
            "properties": {
                "context-window": {"type": "integer", "minimum": 1, "maximum": 100_000_000, "description": "the model's context window in tokens"},
                "budget-chars": {"type": "integer", "minimum": 1, "maximum": 1_000_000_000, "description": "a fixed catalog budget in characters"},
                "budget-tokens": {"type": "integer", "minimum": 1, "maximum": 100_000_000, "description": "Codex's skills.max_context_tokens"},
                "context": {
                    "type": "boolean",
                    "description": "load the other skills of a linted skill's catalog (inside the repository) so "
                    "catalog rules see it whole when only some files are linted, as pre-commit does (default true)",
                },
                "roots": _CATALOG_ROOTS,
            },
            "additionalProperties": False,
        },
        default={},
        apply=_set("catalog", dict),
        table=True,
    ),
    Key(
        "eval",
        "eval",
        {
            "type": "object",
            "description": "thresholds of `skilllint eval`: below either, it exits 1 (the command line's --min-recall and --min-precision replace them)",
            "properties": {
                "min-recall": {"type": "number", "minimum": 0, "maximum": 1, "description": "the least share of a skill's positive queries that must load it"},
                "min-precision": {"type": "number", "minimum": 0, "maximum": 1, "description": "the least share of the queries loading a skill that must be its positives"},
            },
            "additionalProperties": False,
        },
        default={},
        apply=_set("eval", dict),
        table=True,
    ),
)
BY_NAME = {key.name: key for key in KEYS}


def apply_keys(settings: Settings, data: dict, source: str) -> None:
    """Apply a configuration's (or the command line's) ``data`` to ``settings``, key by key in
    :data:`KEYS`' order: ``extend-exclude`` after ``exclude``, whichever the file wrote first."""
    for key in KEYS:
        if key.name not in data:
            continue
        if key.apply is not None:
            key.apply(settings, data[key.name], source)
        else:
            setattr(settings, key.attr, data[key.name])


def show_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
