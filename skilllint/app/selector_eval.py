"""`skilllint eval`: does each skill's description route the queries of its trigger set?

For every skill with a trigger set (:func:`skilllint.skill.evals.files.trigger_sets`), or the
one set given with ``--eval-set``, every query goes to a router over the catalog its surface
builds, as ``skilllint catalog`` renders it (:func:`skilllint.app.catalog_preview.catalog_report`:
siblings, cut descriptions and omitted skills included). Per skill the result holds precision,
recall and F1 of "the skill was loaded", the sibling that took each missed positive, the
false activations, and, when the catalog shortened or left out the skill's description, the
cases that pass with the description as written but fail with the one rendered (the same
router asked again with only that skill's line made whole).

The router is the lexical proxy (:class:`skilllint.catalog.lexical_router.LexicalRouter`)
unless the command line asks for an agent or a replay; this module does not care which.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..catalog.routing import CatalogView, Router, SkillView, Verdict
from ..fsafe import UnsafeFile, read_capped
from ..discovery.walk import discover
from ..skill.evals.files import TriggerSet, read_trigger_set, trigger_sets
from ..skill.package import SkillPackage
from .catalog_preview import catalog_report

MAX_EVAL_SET_BYTES = 16 * 1024 * 1024  # a trigger set named on the command line
# Routers whose figures are the lexical proxy's (a replay of a recording it made included).
PROXY_ROUTERS = frozenset({"lexical", "replay of lexical"})


class EvalError(Exception):
    """Input the command cannot evaluate (a missing or malformed set, an unknown skill):
    reported as one message, exit status 2."""


@dataclass(frozen=True, eq=False, repr=False)
class Thresholds:
    min_recall: float | None = None
    min_precision: float | None = None


@dataclass(eq=False, repr=False)
class CaseResult:
    """One query of a trigger set, as the router decided it."""

    query: str
    should_trigger: bool
    line: int
    verdict: Verdict
    skill_name: str = ""  # the skill under evaluation

    @property
    def triggered(self) -> bool:
        return self.skill_name in self.verdict.triggered

    @property
    def passed(self) -> bool:
        return not self.undecided and self.triggered == self.should_trigger

    @property
    def undecided(self) -> bool:
        """Whether no decision stands behind the verdict: every agent run timed out or failed,
        or a replay had no recorded answer. Such a case is neither a hit nor a miss (a negative
        the agent never answered has not passed): it is counted apart and fails the thresholds."""
        detail = self.verdict.detail
        return detail.get("completed") == 0 or detail.get("recorded") is False

    @property
    def taken_by(self) -> str | None:
        """The skill loaded in this skill's place (a missed positive), if any."""
        others = [name for name in self.verdict.triggered if name != self.skill_name]
        return others[0] if others else None


@dataclass(eq=False, repr=False)
class SkillEval:
    """One skill's trigger set run against one catalog of the target."""

    name: str
    skill_md: Path
    description_line: int
    eval_set: Path
    catalog_root: str | None  # None: the surface does not load the skill at all
    not_loaded: str | None  # why, when it does not
    included: bool
    chars_shown: int
    description_chars: int
    cases: list[CaseResult]
    # Cases that pass with the description as written but fail with the one rendered.
    lost_to_shortening: list[CaseResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # of the trigger set, as warnings

    @property
    def shortened(self) -> bool:
        return not self.included or self.chars_shown < self.description_chars

    def count(self, should_trigger: bool, triggered: bool) -> int:
        return sum(1 for c in self.cases if not c.undecided and c.should_trigger == should_trigger and c.triggered == triggered)

    @property
    def true_positives(self) -> int:
        return self.count(True, True)

    @property
    def false_positives(self) -> int:
        return self.count(False, True)

    @property
    def false_negatives(self) -> int:
        return self.count(True, False)

    @property
    def true_negatives(self) -> int:
        return self.count(False, False)

    @property
    def precision(self) -> float | None:
        """Of the queries that loaded the skill, the share that should have; None when
        none loaded it."""
        loaded = self.true_positives + self.false_positives
        return self.true_positives / loaded if loaded else None

    @property
    def recall(self) -> float | None:
        """Of the queries that should load the skill, the share that did; None without
        positive cases."""
        positives = self.true_positives + self.false_negatives
        return self.true_positives / positives if positives else None

    @property
    def f1(self) -> float | None:
        precision, recall = self.precision, self.recall
        if recall is None:
            return None
        if precision is None or precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    @property
    def missed(self) -> list[CaseResult]:
        return [c for c in self.cases if c.should_trigger and not c.triggered and not c.undecided]

    @property
    def false_activations(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.should_trigger and c.triggered and not c.undecided]

    @property
    def undecided(self) -> list[CaseResult]:
        """Cases no decision stands behind (:attr:`CaseResult.undecided`)."""
        return [c for c in self.cases if c.undecided]

    @property
    def stale(self) -> list[CaseResult]:
        """Cases a replay answered from a recording made against another catalog text (or
        never recorded)."""
        return [c for c in self.cases if c.verdict.detail.get("stale")]

    def below(self, thresholds: Thresholds) -> list[str]:
        """The thresholds this skill does not meet, as words. An undefined figure meets its
        threshold: no positive case leaves recall open, no activation leaves no false one. A
        case no decision stands behind fails any threshold: it cannot be said to meet one."""
        short = []
        if (thresholds.min_recall is not None or thresholds.min_precision is not None) and self.undecided:
            count = len(self.undecided)
            short.append(f"{count} case{'s' if count != 1 else ''} undecided (no agent run completed, or no recorded answer)")
        if thresholds.min_recall is not None and self.recall is not None and self.recall < thresholds.min_recall:
            short.append(f"recall {self.recall:.2f} < {thresholds.min_recall:g}")
        if thresholds.min_precision is not None and self.precision is not None and self.precision < thresholds.min_precision:
            short.append(f"precision {self.precision:.2f} < {thresholds.min_precision:g}")
        return short


@dataclass(eq=False, repr=False)
class EvalReport:
    target: str
    router: str
    proxy: bool
    thresholds: Thresholds
    skills: list[SkillEval]
    warnings: list[str]
    shortening_checked: bool = True  # False: the router could not say what a catalog's cut lost

    @property
    def passed(self) -> bool:
        return not any(skill.below(self.thresholds) for skill in self.skills)


@dataclass(frozen=True, eq=False, repr=False)
class _Subject:
    package: SkillPackage
    trigger_set: TriggerSet


def evaluate(
    paths: list[str],
    cwd: Path,
    settings,
    target_id: str,
    options: dict,
    router: Router,
    thresholds: Thresholds,
    *,
    eval_set: str | None = None,
    skill_name: str | None = None,
    shortening_router: Router | None = None,
) -> EvalReport:
    """Run every trigger set under ``paths`` (or ``eval_set`` for the one skill named or
    found there) against the ``target_id`` catalogs, deciding with ``router``.
    ``shortening_router`` (None: not asked) answers again for a skill whose description the
    catalog shortened, with that description whole, to find the cases the cut loses."""
    paths = paths or ["."]
    found = discover(paths, cwd, exclude=settings.exclude, exclude_base=settings.base, use_gitignore=settings.respect_gitignore)
    packages = [SkillPackage(item.root, item.lint_root) for item in found.packages]
    warnings = list(found.warnings)
    subjects = _subjects(packages, cwd, eval_set, skill_name, warnings)
    report = catalog_report(paths, cwd, settings, target_id, options, texts=True)
    warnings += [w for w in report["warnings"] if w not in warnings]
    not_loaded = {_key(item["path"]): item["reason"] for item in report["not_loaded"]}
    results = []
    for subject in subjects:
        results += _evaluate_subject(subject, report, not_loaded, router, shortening_router, target_id)
    return EvalReport(target_id, router.name, router.name in PROXY_ROUTERS, thresholds, results, warnings, shortening_router is not None)


def _key(path: str | Path) -> str:
    return os.path.normcase(os.path.abspath(str(path)))


def _subjects(packages: list[SkillPackage], cwd: Path, eval_set: str | None, skill_name: str | None, warnings: list[str]) -> list[_Subject]:
    if eval_set is not None:
        return [_Subject(_one_skill(packages, skill_name), _read_eval_set(cwd / eval_set, eval_set))]
    subjects, unusable = [], []
    for package in packages:
        if skill_name is not None and package.folder_name != skill_name and _name(package) != skill_name:
            continue
        for found in trigger_sets(package):
            if found.problems:
                first = found.problems[0]
                more = f" (and {len(found.problems) - 1} more problem(s); `skilllint check --select SL530` lists them)" if len(found.problems) > 1 else ""
                said = f"{_name(package)}: {found.rel or found.path}:{first.line}: {first.message}{more}"
                warnings.append(f"{said}; evaluating the {len(found.cases)} case(s) that read" if found.cases else said)
            (subjects if found.cases else unusable).append(_Subject(package, found))
    if not subjects and unusable:
        raise EvalError(f"no trigger set under the given paths has a case to evaluate: {warnings[-1]}")
    if skill_name is not None and not subjects:
        raise EvalError(f"no skill named {skill_name!r} with a trigger set under the given paths{_names(packages)}")
    if not subjects:
        raise EvalError(
            "no skill under the given paths has a trigger set (a JSON list of {\"query\", \"should_trigger\"} "
            "objects, e.g. evals/trigger_eval.json); give one with --eval-set FILE"
        )
    return subjects


def _one_skill(packages: list[SkillPackage], skill_name: str | None) -> SkillPackage:
    if skill_name is not None:
        named = [p for p in packages if _name(p) == skill_name] or [p for p in packages if p.folder_name == skill_name]
        if not named:
            raise EvalError(f"no skill named {skill_name!r} under the given paths{_names(packages)}")
        if len(named) > 1:
            raise EvalError(f"{len(named)} skills are named {skill_name!r} under the given paths; give the path of the one to evaluate")
        return named[0]
    if not packages:
        raise EvalError("no skill under the given paths to evaluate the --eval-set against")
    if len(packages) > 1:
        raise EvalError(f"--eval-set is for one skill, and the given paths hold {len(packages)}: name it with --skill NAME{_names(packages)}")
    return packages[0]


def _names(packages: list[SkillPackage]) -> str:
    names = sorted({_name(p) for p in packages})
    if not names:
        return ""
    listed = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    return f" (skills there: {listed})"


def _name(package: SkillPackage) -> str:
    """The skill's name as its frontmatter gives it, else its folder's."""
    mapping = package.canonical.mapping if package.readable else None
    name = mapping.get("name") if mapping else None
    return name if isinstance(name, str) and name else package.folder_name


def _read_eval_set(path: Path, given: str) -> TriggerSet:
    try:
        result = read_capped(path, MAX_EVAL_SET_BYTES, whole=True)
    except UnsafeFile as exc:
        raise EvalError(f"--eval-set {given}: {exc}") from None
    try:
        text = result.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvalError(f"--eval-set {given}: not UTF-8 text (byte {exc.start})") from None
    found = read_trigger_set(path, text)
    if found.problems:
        first = found.problems[0]
        more = f" (and {len(found.problems) - 1} more problem(s))" if len(found.problems) > 1 else ""
        raise EvalError(f"--eval-set {given}:{first.line}: {first.message}{more}")
    if not found.cases:
        raise EvalError(f"--eval-set {given}: no case to evaluate")
    return found


def _description_line(package: SkillPackage) -> int:
    view = package.canonical
    pair = view.key_node("description") if view.document is not None else None
    return view.span(pair[0]).line if pair else 1


def _views(receipt: dict, target_id: str) -> tuple[CatalogView, dict[str, SkillView]]:
    skills = tuple(SkillView(s["name"], Path(s["path"]), s["shown"], s["full"], s["included"]) for s in receipt["skills"])
    return CatalogView(target_id, receipt["rendered"], skills), {_key(view.skill_md): view for view in skills}


def _evaluate_subject(
    subject: _Subject, report: dict, not_loaded: dict[str, str], router: Router, shortening_router: Router | None, target_id: str
) -> list[SkillEval]:
    package, trigger_set = subject.package, subject.trigger_set
    key = _key(package.skill_md_path)
    cases = list(trigger_set.cases)
    queries = [case.query for case in cases]
    line = _description_line(package)
    problems = [f"{trigger_set.rel or trigger_set.path}:{p.line}: {p.message}" for p in trigger_set.problems]
    results = []
    for receipt in report["catalogs"]:
        catalog, by_path = _views(receipt, target_id)
        own = by_path.get(key)
        if own is None:
            continue
        item = next(s for s in receipt["skills"] if _key(s["path"]) == key)
        verdicts = router.decide(queries, catalog, own)
        decided = _cases(cases, verdicts, own.name)
        evaluation = SkillEval(
            own.name, package.skill_md_path, line, trigger_set.path, receipt["root"], None, own.included,
            item["chars_shown"], item["description_chars"], decided, problems=problems,
        )
        if evaluation.shortened and shortening_router is not None:
            whole = replace(own, shown=own.full, included=True)
            counterfactual = replace(catalog, skills=tuple(whole if view is own else view for view in catalog.skills))
            with_full = _cases(cases, shortening_router.decide(queries, counterfactual, whole), own.name)
            evaluation.lost_to_shortening = [rendered for rendered, full in zip(decided, with_full) if full.passed and not rendered.passed]
        results.append(evaluation)
    if not results:  # the surface does not list the skill: no query can load it
        reason = not_loaded.get(key, f"not in any {target_id} catalog of the given paths")
        none = [CaseResult(c.query, c.should_trigger, c.line, Verdict(()), skill_name=_name(package)) for c in cases]
        results.append(SkillEval(_name(package), package.skill_md_path, line, trigger_set.path, None, reason, False, 0, 0, none, problems=problems))
    return results


def _cases(cases, verdicts: list[Verdict], name: str) -> list[CaseResult]:
    if len(verdicts) != len(cases):
        raise EvalError(f"the router answered {len(verdicts)} verdicts for {len(cases)} queries")
    return [CaseResult(c.query, c.should_trigger, c.line, v, skill_name=name) for c, v in zip(cases, verdicts)]
