"""The rule registry: the built-in rules plus entry-point plugins.

The rule API lives in :mod:`skilllint.rule`; ``Rule``, ``RuleContext`` and ``severities``
stay importable from here for rules written against this module."""

from __future__ import annotations

import re

from .rule import CatalogRule, FieldRule, Option, PackageRule, Rule, RuleContext, severities

__all__ = ["CatalogRule", "FieldRule", "Option", "PackageRule", "PluginError", "Registry", "Rule", "RuleContext", "registry", "severities"]

CODE_PATTERN = re.compile(r"^[A-Z]{1,5}[0-9]{3,4}$")
PLUGIN_GROUP = "skilllint.rules"


class PluginError(Exception):
    pass


class Registry:
    def __init__(self) -> None:
        self.rules: dict[str, type[Rule]] = {}
        self.plugin_errors: list[str] = []
        self.read_cap_rule: type[Rule] | None = None  # the rule whose option caps reading (Rule.read_cap_option)

    def add(self, rule: type[Rule], origin: str = "built-in") -> None:
        if not (isinstance(rule, type) and issubclass(rule, Rule)):
            raise PluginError(f"{origin}: {rule!r} is not a rule class (a subclass of skilllint.rule.Rule)")
        if not CODE_PATTERN.match(getattr(rule, "code", "") or ""):
            raise PluginError(f"{origin}: rule {rule!r} has an invalid code {getattr(rule, 'code', None)!r}")
        if rule.code in self.rules:
            raise PluginError(f"{origin}: rule code {rule.code} is already registered")
        for attr in ("name", "summary", "severity"):
            if not getattr(rule, attr, None):
                raise PluginError(f"{origin}: rule {rule.code} lacks {attr!r}")
        if rule.read_cap_option is not None:
            if self.read_cap_rule is not None:
                raise PluginError(f"{origin}: rule {rule.code} declares a read cap; {self.read_cap_rule.code} already does")
            self.read_cap_rule = rule
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
    ``entry_points.txt`` on ``sys.path`` spares importing importlib.metadata (it pulls in
    the email package) on every run when, as usual, there is none.
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
