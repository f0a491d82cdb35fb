"""What a selector sees and decides: the shared shapes of ``skilllint eval``'s routers.

A router is handed the catalog a surface renders (every skill's line exactly as the
model would read it, cut or left out as the budget decides) and the queries of one
skill's trigger set, and answers, for each query, which skills it would load. The
lexical router (offline, a proxy) and the agent router (a real agent, one run or
several per query) both answer in this shape, so the report, the thresholds, the
recording and the replay do not care which one decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True, eq=False, repr=False)
class SkillView:
    """One skill of a rendered catalog, as the model sees it and as its author wrote it."""

    name: str
    skill_md: Path  # absolute path of the skill's SKILL.md
    shown: str  # the description as the surface renders it ("" when the budget left it out)
    full: str  # the description as written
    included: bool  # False when the surface's budget left the skill out of the catalog


@dataclass(frozen=True, eq=False, repr=False)
class CatalogView:
    """One catalog of one surface: the text the model reads and the skills in it."""

    target: str  # a target id (``codex``, ``claude-code``, ...)
    rendered: str  # the catalog text the surface shows the model
    skills: tuple[SkillView, ...]


@dataclass(frozen=True, eq=False, repr=False)
class Verdict:
    """What a router decided for one query.

    ``triggered`` names the skills loaded, best first (empty: none). A router that runs
    a query several times sets ``rate``, the share of runs that loaded the skill under
    evaluation; ``detail`` keeps what the report or a recording may show (scores, the
    agent's version, a timeout)."""

    triggered: tuple[str, ...]
    rate: float | None = None
    detail: dict = field(default_factory=dict)


class Router(Protocol):
    """Decides, for each query, which skills of ``catalog`` a selector would load when
    ``skill`` is the one under evaluation."""

    name: str

    def decide(self, queries: list[str], catalog: CatalogView, skill: SkillView) -> list[Verdict]: ...
