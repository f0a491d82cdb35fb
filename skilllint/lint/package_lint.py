"""Linting one package: which rules run on it and for which targets, each finding graded
(target filtering, severity combination and overrides), capped per rule and file, and
left out when a suppression comment or a per-file ignore silences it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config.settings import Settings
from ..diagnostics import Diagnostic, Finding, Severity, clipped
from ..findingcap import RuleTally
from ..registry import Rule, RuleContext
from ..skill.suppressions import comments as suppress
from ..skill.package import SkillPackage


def add_usage(usage: dict, path: str, hits=(), ran=()) -> None:
    """Add to ``usage`` (SKILL.md path -> ([(code, line) silenced], [codes run])) what one pass
    of rules on that file did: plain data, as it comes back from a worker or a forked process."""
    entry = usage.setdefault(path, ([], []))
    entry[0].extend(tuple(hit) for hit in hits)
    entry[1].extend(ran)


def _runnable_needs(package: SkillPackage) -> tuple:
    """The ``needs_skill_md`` values of the rules that can run on ``package``: rules are
    gated on what they need, so a broken file yields one clear finding."""
    if package.skill_md_name is None or not package.readable:
        return (False,)
    problem = package.decode_problem
    if problem is not None and problem[0] == "invalid UTF-8":  # a NUL byte still decodes
        return (False, "raw")
    return (False, "raw", True)


def lint_package(
    package: SkillPackage,
    rules: list[Rule],
    settings: Settings,
    internal_errors: list[str] | None = None,
    hits: list | None = None,
) -> list[Diagnostic]:
    """The findings of ``rules`` on ``package``. ``hits``, when given, receives the (code,
    line) of each finding a suppression comment in SKILL.md silenced (for SL901, when it
    runs apart: see :func:`suppression_usage`)."""
    diagnostics: list[Diagnostic] = []
    suppressions: dict[Path, suppress.Suppressions] = {}
    memo: dict = {}
    ran: set[str] = set()  # the rules that ran to the end (SL901 judges suppressions of these)
    plan = _package_plan(package, rules, settings)
    runnable = None  # _runnable_needs, once a rule needs SKILL.md (reading it is not free)
    # Rules that judge the suppression comments (SL901) run after the others, on what they silenced.
    steps = [(step, reads_suppressions(step[0])) for step in plan]
    steps = [item for item in steps if not item[1]] + [item for item in steps if item[1]]
    tally = RuleTally(settings.max_findings_per_rule_per_file)  # each rule's in turn, emptied by take()
    admission = _Admission(package, settings, suppressions, tally)
    for (rule, applicable, options, needs), judges in steps:
        if needs is not False:
            if runnable is None:
                runnable = _runnable_needs(package)
            if needs not in runnable:
                continue
        run = None
        if judges:
            parsed = _parsed(package, suppressions)
            if parsed is None or not parsed.directives:
                continue  # no suppression comment to judge (most skills)
            run = _SuppressionRun(parsed, frozenset(ran), _elsewhere(rules, settings))
        admission.start(rule, applicable)
        ctx = RuleContext(applicable, dict(options), settings, memo, admission=admission)  # options: a copy, a plugin rule may change its own
        ctx.suppressions = run
        try:
            for finding in rule.check(package, ctx):
                graded = _graded(rule, finding.targets, finding.severities, applicable, settings)
                if graded is None:
                    continue
                path = finding.path or package.skill_md_path
                if not tally.has_room(path, graded[1]):
                    admission.leave_out(path, finding.span.line)  # not built: the rule did not ask first
                    continue
                diagnostic = _diagnostic(rule, finding, graded, path)
                if suppressed(diagnostic, package, suppressions) or settings.ignored_by_path(diagnostic.code, diagnostic.path):
                    continue
                tally.add(diagnostic)
        except Exception as exc:  # one rule's bug must not hide the others' findings
            import traceback  # only when a rule fails: kept off start-up
            if internal_errors is not None:
                internal_errors.append(
                    f"internal error in {rule.code} on {package.root}: {type(exc).__name__}: {exc}\n"
                    + traceback.format_exc(limit=6)
                )
            continue
        if not judges:
            ran.add(rule.code)
        diagnostics.extend(tally.take())
    if hits is not None:
        parsed = suppressions.get(package.skill_md_path) if package.skill_md_name is not None else None
        if parsed is not None:
            hits.extend(parsed.hits)
    return diagnostics


def _package_plan(package: SkillPackage, rules: list[Rule], settings: Settings) -> list[tuple[Rule, tuple, dict, object]]:
    """:func:`_plan` for ``package``'s targets."""
    selected = settings.targets_for(package)
    # A surface that does not find the skill file (say `Skill.md`), or never lists the skill
    # where it lies (nested below `<skills folder>/<name>/` for Claude Code), loads nothing:
    # for it only the rules about the folder itself apply (SL001, SL002, SL013, SL520). But
    # when a skill it lists links to that SKILL.md, the model reads it, and the files it links,
    # as documents of that skill: the rules about what they say apply too (``content_rule``),
    # judged from the nested SKILL.md, where the model starts reading them. (Walking the listed
    # skill's reference graph on into the nested folder instead would count every reference
    # of the nested skill as a hop too deep, and tie the listed skill's cached results to
    # every file below it.)
    unlisted = settings.not_listing(package)
    finds_file = tuple(t for t in selected if package.skill_md_name in t.skill_filenames)
    sees_file = tuple(t for t in finds_file if t.id not in unlisted)
    if len(sees_file) < len(finds_file):
        documents = settings.reads_as_document(package)
        reads_file = tuple(t for t in finds_file if t.id not in unlisted or t.id in documents)
    else:
        reads_file = sees_file
    return _plan(rules, settings, selected, sees_file, reads_file)


def package_rules_run(package: SkillPackage, rules: list[Rule], settings: Settings) -> set[str]:
    """The codes of ``rules`` (package rules) that run on ``package``: those that apply to one
    of its targets and whose needs of SKILL.md it meets (SL901 judges suppressions of these)."""
    runnable = _runnable_needs(package)
    return {
        rule.code
        for rule, _, _, needs in _package_plan(package, rules, settings)
        if needs in runnable and not reads_suppressions(rule) and not rule.catalog_rule
    }


def reads_suppressions(rule: Rule) -> bool:
    return rule.reads_suppressions


@dataclass(frozen=True, eq=False, repr=False)
class _SuppressionRun:
    """What SL901 sees of one package's run: its SKILL.md's suppressions, with what they
    silenced; the codes that ran in this pass; the enabled codes that run elsewhere (the
    catalog rules; with a cache, the rules never cached), judged when the run ends."""

    parsed: suppress.Suppressions | None
    ran: frozenset[str]
    elsewhere: frozenset[str]


def _elsewhere(rules: list[Rule], settings: Settings) -> frozenset[str]:
    here = {rule.code for rule in rules}
    return frozenset(rule.code for rule in settings.enabled_rules() if rule.code not in here and not reads_suppressions(rule))


def _parsed(package: SkillPackage, cache: dict[Path, suppress.Suppressions]) -> suppress.Suppressions | None:
    """The suppressions of ``package``'s SKILL.md (None: it has none that can be read)."""
    if package.skill_md_name is None or not package.readable:
        return None
    path = package.skill_md_path
    parsed = cache.get(path)
    if parsed is None:
        if b"skilllint" not in package.raw:  # as parse's own first test, without decoding the file
            parsed = cache[path] = suppress.Suppressions()  # (the catalog pass asks of skills it did not read)
            return parsed
        split = package.split("canonical")
        end = split.close_line + 1 if split.status == "ok" else 0
        parsed = cache[path] = suppress.parse(package.source.lines, end)
    return parsed


class _Admission:
    """:meth:`RuleContext.admits` for the rule running on one package (:meth:`start` names it):
    whether the cap per rule and file leaves room for a finding, counting it as left out when
    not (unless suppressed)."""

    def __init__(self, package: SkillPackage, settings: Settings, suppressions: dict, tally: RuleTally):
        self.package, self.settings, self.suppressions, self.tally = package, settings, suppressions, tally
        self.rule: Rule | None = None
        self.applicable: tuple = ()
        self._ignored: dict[Path, bool] = {}  # the rule's per-file ignores, judged once per file

    def start(self, rule: Rule, applicable: tuple) -> None:
        self.rule, self.applicable = rule, applicable
        if self._ignored:
            self._ignored = {}

    def __call__(self, path, line: int, severities, targets) -> bool:
        graded = _graded(self.rule, targets, severities, self.applicable, self.settings)
        if graded is None:
            return False  # reported for none of the rule's targets
        path = path or self.package.skill_md_path
        if self.tally.has_room(path, graded[1]):
            return True
        self.leave_out(path, line)
        return False

    def leave_out(self, path: Path, line: int) -> None:
        """Count a finding at ``path``, ``line`` as left out, unless it would not be reported anyway."""
        ignored = self._ignored.get(path)
        if ignored is None:
            ignored = self._ignored[path] = self.settings.ignored_by_path(self.rule.code, path)
        if not ignored and not _suppressed_at(self.rule.code, path, line, self.package, self.suppressions):
            self.tally.leave_out(path)


def _plan(
    rules: list[Rule], settings: Settings, selected: tuple, sees_file: tuple, reads_file: tuple | None = None
) -> list[tuple[Rule, tuple, dict, object]]:
    """(rule, the targets it applies to, its options, what it needs of SKILL.md: False,
    "raw" or True) for each rule that applies to one of ``selected`` (``sees_file``: the
    targets that find the package's SKILL.md and list the skill; ``reads_file``: those and
    the ones that read it as a linked document, for the content rules), worked out once per
    run for all packages with the same targets: per package it was a fifth of the engine's
    own time."""
    reads_file = sees_file if reads_file is None else reads_file
    key = (tuple(rules), selected, sees_file, reads_file)
    plan = settings._rule_plans.get(key)
    if plan is None:
        plan = []
        for rule in rules:
            if rule.needs_skill_md is False:
                pool = selected
            else:
                pool = reads_file if rule.content_rule else sees_file
            applicable = tuple(t for t in pool if rule.applies_to(t.id))
            if applicable:
                needs = rule.needs_skill_md
                needs = False if needs is False else "raw" if needs == "raw" else True
                plan.append((rule, applicable, settings.options_for(type(rule)), needs))
        if len(settings._rule_plans) >= 64:  # keys hold rule instances: a long-lived Settings must not collect them
            settings._rule_plans.clear()
        settings._rule_plans[key] = plan
    return plan


def to_diagnostic(
    rule: Rule,
    finding: Finding,
    applicable: tuple,
    package: SkillPackage,
    settings: Settings,
) -> Diagnostic | None:
    graded = _graded(rule, finding.targets, finding.severities, applicable, settings)
    if graded is None:
        return None
    return _diagnostic(rule, finding, graded, finding.path or package.skill_md_path)


def _graded(rule: Rule, targets, severities, applicable: tuple, settings: Settings) -> tuple[tuple[str, ...], Severity] | None:
    """(the targets a finding with these ``targets`` and ``severities`` is reported for, its
    severity), or None when it concerns none of the rule's ``applicable`` targets."""
    ids = tuple(t.id for t in applicable if targets is None or t.id in targets)
    if not ids:
        return None
    override = settings.severity_override(type(rule))
    if override is not None:
        return ids, override
    levels = []
    for target in applicable:
        if target.id not in ids:
            continue
        level = (severities or {}).get(target.id) or rule.severity[target.id]
        if target.secondary and level > Severity.WARNING:
            level = Severity.WARNING  # facts marked [2ND] give at most a warning
        levels.append(level)
    return ids, max(levels)


MAX_MESSAGE_CHARS = 2000


def _diagnostic(rule: Rule, finding: Finding, graded: tuple, path: Path) -> Diagnostic:
    ids, severity = graded
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        severity=severity,
        targets=ids,
        # a rule that quotes the tree could quote a 400 KB path: the middle is elided
        message=clipped(finding.message, MAX_MESSAGE_CHARS),
        path=path,
        span=finding.span,
        fix=finding.fix,
        related=finding.related,
    )


def suppressed(diagnostic: Diagnostic, package: SkillPackage, cache: dict[Path, suppress.Suppressions]) -> bool:
    return _suppressed_at(diagnostic.code, diagnostic.path, diagnostic.span.line, package, cache)


def _suppressed_at(code: str, path: Path, line: int, package: SkillPackage, cache: dict[Path, suppress.Suppressions]) -> bool:
    if path != package.skill_md_path or not package.readable:
        return False
    parsed = _parsed(package, cache)
    return parsed is not None and not parsed.empty and parsed.suppresses(code, line)
