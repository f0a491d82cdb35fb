"""The rule contract and the rule registry (built-ins plus entry-point plugins)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator

from .diagnostics import Finding, Severity
from .targets import TARGETS, Target

CODE_PATTERN = re.compile(r"^[A-Z]{1,5}[0-9]{3,4}$")
PLUGIN_GROUP = "skilllint.rules"


def severities(spec: str) -> dict[str, Severity]:
    """Parse a severity table written as in the rule book.

    ``"error: agentskills skills-ref; info: claude-code codex"``; ``all`` means
    every target not named elsewhere in the table.
    """
    table: dict[str, Severity] = {}
    rest: Severity | None = None
    for part in spec.split(";"):
        level, _, names = part.partition(":")
        severity = Severity.parse(level)
        for name in names.split():
            if name == "all":
                rest = severity
            elif name not in TARGETS:
                raise ValueError(f"unknown target {name!r} in severity table {spec!r}")
            else:
                table[name] = severity
    if rest is not None:
        for name in TARGETS:
            table.setdefault(name, rest)
    return table


@dataclass
class RuleContext:
    """What a rule sees besides the package: its targets and options."""

    targets: tuple[Target, ...]  # selected targets the rule applies to
    options: dict[str, Any]
    settings: Any = None  # the resolved Settings (token encoding, etc.)
    memo: dict = field(default_factory=dict)  # per-package scratch shared by rules
    kept: Any = None  # catalog rules: a mapping of costly answers kept between runs (JSON values), or None
    admission: Any = None  # the engine's cap on this rule's findings per file (see admits), or None
    # rules with ``reads_suppressions`` (SL901), run after the others: what SKILL.md's suppression
    # comments silenced in this pass, and which rules ran (engine._SuppressionRun), else None
    suppressions: Any = None

    @property
    def target_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.targets)

    def admits(
        self,
        path: Any = None,
        line: int = 1,
        severities: dict[str, Severity] | None = None,
        targets: tuple[str, ...] | None = None,
    ) -> bool:
        """Whether a finding at ``path`` (None: SKILL.md) and ``line``, with the ``severities``
        and ``targets`` its :class:`Finding` would carry, would still be reported.

        The engine reports at most a set number of a rule's findings per file
        (:mod:`skilllint.findingcap`) and counts the rest as left out. A rule that can
        yield many findings asks before building each one (messages, suggestions, fixes
        cost time) and skips it when the answer is False: the engine has counted it then.
        False too for a finding suppressed there. Rules that never ask are capped all
        the same, as their findings arrive."""
        return self.admission is None or self.admission(path, line, severities, targets)


class Rule:
    """Base class of every rule. Subclasses set the class attributes and ``check``."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[dict[str, Severity]]
    fixable: ClassVar[str | None] = None  # "safe" | "unsafe" | None
    opt_in: ClassVar[bool] = False
    options_schema: ClassVar[dict[str, Any]] = {}  # JSON Schema "properties"
    defaults: ClassVar[dict[str, Any]] = {}
    # The rule judges what the skill's files say (references, safety, scripts), not the skill as
    # a skill (frontmatter, name, description, size, catalog): it also runs for a surface that
    # never lists the skill but reads its SKILL.md as a document of a skill it lists, through a
    # link (:meth:`skilllint.config.Settings.reads_as_document`). A rule that needs no SKILL.md
    # (``needs_skill_md = False``) runs for every target anyway.
    content_rule: ClassVar[bool] = False

    def check(self, package: Any, ctx: RuleContext) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def applies_to(cls, target_id: str) -> bool:
        return target_id in cls.severity


class PluginError(Exception):
    pass


class Registry:
    def __init__(self) -> None:
        self.rules: dict[str, type[Rule]] = {}
        self.plugin_errors: list[str] = []

    def add(self, rule: type[Rule], origin: str = "built-in") -> None:
        if not CODE_PATTERN.match(getattr(rule, "code", "") or ""):
            raise PluginError(f"{origin}: rule {rule!r} has an invalid code {getattr(rule, 'code', None)!r}")
        if rule.code in self.rules:
            raise PluginError(f"{origin}: rule code {rule.code} is already registered")
        for attr in ("name", "summary", "severity"):
            if not getattr(rule, attr, None):
                raise PluginError(f"{origin}: rule {rule.code} lacks {attr!r}")
        self.rules[rule.code] = rule

    def by_name(self, name: str) -> type[Rule] | None:
        for rule in self.rules.values():
            if rule.name == name:
                return rule
        return None

    def sorted(self) -> list[type[Rule]]:
        return [self.rules[code] for code in sorted(self.rules)]

    def load_plugins(self) -> None:
        """Load rules from the ``skilllint.rules`` entry-point group.

        The entry point's name is the code prefix its rules must carry; a
        plugin that fails to import or breaks the contract is reported and
        skipped, never fatal.
        """
        if not _may_have_plugins():
            return
        from importlib.metadata import entry_points

        for entry in entry_points(group=PLUGIN_GROUP):
            prefix = entry.name
            try:
                loaded = entry.load()
                rules = loaded() if callable(loaded) and not isinstance(loaded, type) else loaded
                if isinstance(rules, type):
                    rules = [rules]
                for rule in rules:
                    if not rule.code.startswith(prefix):
                        raise PluginError(f"rule {rule.code} does not start with the plugin prefix {prefix!r}")
                    if prefix.startswith("SL"):
                        raise PluginError("the SL prefix is reserved for built-in rules")
                    self.add(rule, origin=f"plugin {prefix}")
            except Exception as exc:  # a broken plugin must not break linting
                self.plugin_errors.append(f"plugin {prefix!r} ({entry.value}) skipped: {exc}")


_REGISTRY: Registry | None = None


def registry(load_plugins: bool = True) -> Registry:
    """The process-wide registry: built-ins, then plugins (once)."""
    global _REGISTRY
    if _REGISTRY is None:
        reg = Registry()
        from .rules import BUILTIN_RULES

        for rule in BUILTIN_RULES:
            reg.add(rule)
        if load_plugins:
            reg.load_plugins()
        _REGISTRY = reg
    return _REGISTRY


def _may_have_plugins() -> bool:
    """Whether any installed distribution declares the plugin group: a look at each
    ``entry_points.txt`` on ``sys.path`` spares importing importlib.metadata (~15 ms,
    it pulls in the email package) on every run when, as usual, there is none.
    True when unsure: then importlib.metadata decides."""
    import os
    import sys

    needle = f"[{PLUGIN_GROUP}]".encode()
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except NotADirectoryError:
            return True  # a zip archive on the path: importlib.metadata looks inside
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), "rb") as handle:
                    if needle in handle.read():
                        return True
            except FileNotFoundError:
                continue
            except OSError:
                return True
    return False
