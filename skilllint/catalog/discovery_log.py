"""The discovery log: what the search for a catalog's skills decided, recorded where it decides it.

``skilllint catalog --explain`` answers "why didn't the model use my skill?". Every answer
comes from the code that makes the decision: the folders searched are recorded by the
searches (:mod:`skilllint.app.catalog_preview`, :mod:`skilllint.lint.catalog_context`), the
skills no catalog takes by the grouping (:func:`skilllint.catalog.model.build_catalogs`,
with :func:`~skilllint.catalog.model.placement` and
:func:`~skilllint.catalog.model.unread_reason` saying why). What happens inside a catalog
(hidden, shadowed, cut by the budget) is on the catalog and its render already. A run that
does not explain passes no log, and nothing is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, eq=False, repr=False)
class SearchedRoot:
    """A folder searched for skills, and with which scope its skills join the catalogs."""

    path: Path
    scope: str  # repo | user | admin | system
    how: str  # "named": a path given; "siblings": the rest of a linted skill's catalog; "configured": a catalog root
    found: int  # skill folders found under it (those another search found first included)
    note: str | None = None  # why it was not searched, or what cut the search short


@dataclass(frozen=True, eq=False, repr=False)
class Rejection:
    """A skill found that a surface does not load: in no catalog of that target."""

    path: Path  # its SKILL.md (the folder, when it has none)
    target: str
    scope: str
    reason: str


@dataclass(eq=False, repr=False)
class DiscoveryLog:
    """The decisions of one catalog search, in the order they were made."""

    roots: list[SearchedRoot] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)

    def searched(self, path: Path, scope: str, how: str, found: int, note: str | None = None) -> None:
        self.roots.append(SearchedRoot(path, scope, how, found, note))

    def rejected(self, package, target: str, scope: str, reason: str) -> None:
        where = package.skill_md_path or package.root
        self.rejections.append(Rejection(Path(where), target, scope, reason))
