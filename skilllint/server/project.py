"""The language server's model of a project: where documents are linted from (its root, the
configuration they use, the settings, the skills found) and what it keeps between lints."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import fsafe
from ..config.settings import Settings
from ..diagnostics import Diagnostic
from ..discovery.walk import Found, discover
from ..skill.package import SkillPackage


MAX_KEPT_ANSWERS = 4096  # catalog answers kept per project: one per catalog (a folder and a target) and threshold


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def norm(path: str | Path) -> str:
    return os.path.normpath(os.path.abspath(path))


def split_lines(text: str) -> list[str]:
    """Lines as LSP (and skilllint) count them: \\n, \\r\\n and \\r end a line."""
    return _LINE_BREAK.split(text)


@dataclass(eq=False, repr=False)
class Project:
    """Where documents are linted from: settings, the skills found, caches."""

    root: Path
    config: str | None = None  # the configuration file (None: the defaults)
    settings: Settings | None = None
    error: str | None = None
    found: dict[str, Found] | None = None  # normalised package root -> discovery entry
    real: dict[str, str] = field(default_factory=dict)  # real path -> normalised root
    package_rules: list = field(default_factory=list)
    catalog_rules: list = field(default_factory=list)
    max_bytes: int = fsafe.DEFAULT_MAX_BYTES
    packages: dict[str, tuple[tuple, SkillPackage]] = field(default_factory=dict)  # unopened siblings, by stamp
    package_diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    catalog: list[Diagnostic] = field(default_factory=list)
    catalog_from_lint: int = 0  # the number of the lint that found ``catalog``: an older one's never replaces it
    # (skill folder, target) -> (its files' stamps, its catalog entry): what lints in other
    # processes read of the skills no editor has open, kept here for the next lint
    entries: dict[tuple[str, str], tuple[str, list | None]] = field(default_factory=dict)
    kept: dict = field(default_factory=dict)  # catalog rules' costly answers (RuleContext.kept), the same way
    excluded: set[str] = field(default_factory=set)  # skill folders discovery leaves out (until a reload)
    installed: list | None = None  # skills of configured catalog roots (None: not loaded yet)

    @property
    def id(self) -> tuple[str, str | None]:
        return str(self.root), self.config

    def discover(self) -> list[str]:
        settings = self.settings
        assert settings is not None
        result = discover(
            [str(self.root)],
            self.root,
            exclude=settings.exclude,
            exclude_base=settings.base,
            use_gitignore=settings.respect_gitignore,
        )
        self.found = {norm(item.root): item for item in result.packages if not item.missing_skill_md}
        self.real = {os.path.realpath(key): key for key in self.found}
        return list(result.warnings)

    def remember(self, entries: dict, kept: dict) -> None:
        """What a lint in another process read or worked out, for the next lints."""
        self.entries.update(entries)
        for answer, value in kept.items():
            self.kept.pop(answer, None)
            self.kept[answer] = value  # the newest last: the oldest go first
        while len(self.kept) > MAX_KEPT_ANSWERS:
            del self.kept[next(iter(self.kept))]

    def key_of(self, root: Path) -> str | None:
        """The discovered package at ``root`` (None: not found, e.g. excluded)."""
        if self.found is None:
            return None
        key = norm(root)
        if key in self.found:
            return key
        return self.real.get(os.path.realpath(key))
