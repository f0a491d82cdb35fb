"""The outputs of `skilllint eval`: ``full`` (a terminal report), ``json`` (following
``skilllint/schemas/eval.schema.json``) and ``github`` (workflow annotations on each skill's
description line, with the whole report as plain log lines).

Queries, names and paths come from the linted tree: every one is printed through
:func:`skilllint.output.printable`, so none can drive the terminal or pass for a line of the
report or a workflow command.
"""

from __future__ import annotations

from pathlib import Path

from ..output import printable, root_relative, source_root
from ..output.github import escape_data, escape_property
from .selector_eval import CaseResult, EvalReport, SkillEval

SCHEMA_VERSION = "1"
PROXY_NOTE = (
    "the lexical router is a proxy: it ranks the rendered catalog lines by shared words (BM25, stemmed, "
    "with a relevance floor), so it shows which queries share no words with what the model sees and which "
    "sibling's words compete, not what a model would choose; decide with a real agent with --agent"
)
CASES_SHOWN = 20  # cases listed per kind and skill in the terminal report (json has them all)


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _shown(path: Path, cwd: Path) -> str:
    relative = root_relative(path, source_root(cwd))
    return printable(relative if relative is not None else str(path))


def _quoted(text: str, limit: int = 160) -> str:
    text = printable(text)
    return f'"{text[:limit]}…"' if len(text) > limit else f'"{text}"'


def _verdict_note(case: CaseResult) -> str:
    detail = case.verdict.detail
    if case.verdict.rate is not None:
        return f" (loaded in {case.verdict.rate:.0%} of runs)"
    if detail.get("problems"):
        return f" (no run completed: {printable(str(detail['problems'][0]))})"
    ranking = detail.get("skill")
    if ranking and not ranking["share"]:
        return " (its line shares no word with the query)"
    if ranking:
        return f" (its rank {ranking['rank']}, score {ranking['score']:g}, {ranking['share']:.0%} of the query's words)"
    return ""


def _missed_line(case: CaseResult) -> str:
    taken = f"taken by {printable(case.taken_by)}" if case.taken_by else "no skill chosen"
    return f"      line {case.line}: {_quoted(case.query)}: {taken}{_verdict_note(case)}"


def _summary(skill: SkillEval) -> str:
    return (
        f"precision {_figure(skill.precision)}, recall {_figure(skill.recall)}, F1 {_figure(skill.f1)} "
        f"({skill.true_positives} of {skill.true_positives + skill.false_negatives} positives loaded it, "
        f"{skill.false_positives} of {skill.false_positives + skill.true_negatives} negatives did)"
    )


def _catalog_words(skill: SkillEval, cwd: Path) -> str:
    if skill.catalog_root is None:
        return f"not listed: {printable(skill.not_loaded or '')}"
    state = "description shown whole"
    if not skill.included:
        state = "OMITTED from the catalog"
    elif skill.chars_shown < skill.description_chars:
        state = f"description cut to {skill.chars_shown}/{skill.description_chars} characters"
    return f"catalog {_shown(Path(skill.catalog_root), cwd)}: {state}"


def report_text(report: EvalReport, cwd: Path) -> str:
    out = [f"skilllint eval: {report.target} catalog, {report.router} router"]
    if report.proxy:
        out.append(f"note: {PROXY_NOTE}")
    out.append("")
    for skill in report.skills:
        below = skill.below(report.thresholds)
        out.append(f"{printable(skill.name)} ({_shown(skill.skill_md, cwd)}:{skill.description_line}) {'FAIL' if below else 'ok'}")
        out.append(f"  trigger set {_shown(skill.eval_set, cwd)}; {_catalog_words(skill, cwd)}")
        out.append(f"  {_summary(skill)}")
        if below:
            out.append(f"  below the thresholds: {', '.join(below)}")
        if skill.shortened and skill.catalog_root is not None and not report.shortening_checked:
            out.append(f"  the catalog shortened the description; what that cost is known only to the lexical router (run without --agent or --replay)")
        for title, cases, line in (
            ("missed positives", skill.missed, _missed_line),
            ("false activations", skill.false_activations, lambda c: f"      line {c.line}: {_quoted(c.query)}{_verdict_note(c)}"),
            ("pass with the description as written, fail as rendered", skill.lost_to_shortening, lambda c: f"      line {c.line}: {_quoted(c.query)} (should {'' if c.should_trigger else 'not '}trigger)"),
            ("stale: recorded against another catalog text, or not recorded", skill.stale, lambda c: f"      line {c.line}: {_quoted(c.query)}"),
            ("undecided: no agent run completed, or no recorded answer (neither hit nor miss)", skill.undecided, lambda c: f"      line {c.line}: {_quoted(c.query)}{_verdict_note(c)}"),
        ):
            if cases:
                out.append(f"    {title} ({len(cases)}):")
                out += [line(case) for case in cases[:CASES_SHOWN]]
                if len(cases) > CASES_SHOWN:
                    out.append(f"      … and {len(cases) - CASES_SHOWN} more (--output-format json lists them all)")
        for problem in skill.problems:
            out.append(f"  warning: {printable(problem)}")
        out.append("")
    failing = sum(1 for skill in report.skills if skill.below(report.thresholds))
    out.append(_closing(report, failing))
    return "\n".join(out) + "\n"


def _closing(report: EvalReport, failing: int) -> str:
    count = len(report.skills)
    evaluated = f"{count} skill evaluation{'s' if count != 1 else ''}"
    thresholds = report.thresholds
    if thresholds.min_recall is None and thresholds.min_precision is None:
        return f"{evaluated}; no threshold set (--min-recall, --min-precision)"
    asked = ", ".join(
        f"{word} >= {value:g}" for word, value in (("recall", thresholds.min_recall), ("precision", thresholds.min_precision)) if value is not None
    )
    return f"{evaluated}, {failing} below the thresholds ({asked})"


def _case_json(case: CaseResult) -> dict:
    return {
        "query": case.query,
        "should_trigger": case.should_trigger,
        "line": case.line,
        "triggered": list(case.verdict.triggered),
        "passed": case.passed,
        "taken_by": case.taken_by,
        "rate": case.verdict.rate,
        "detail": case.verdict.detail,
    }


def report_json(report: EvalReport) -> dict:
    return {
        "version": SCHEMA_VERSION,
        "target": report.target,
        "router": {"name": report.router, "proxy": report.proxy, "note": PROXY_NOTE if report.proxy else None, "shortening_checked": report.shortening_checked},
        "thresholds": {"min_recall": report.thresholds.min_recall, "min_precision": report.thresholds.min_precision},
        "passed": report.passed,
        "skills": [
            {
                "name": skill.name,
                "path": str(skill.skill_md),
                "description_line": skill.description_line,
                "eval_set": str(skill.eval_set),
                "catalog": skill.catalog_root,
                "not_loaded": skill.not_loaded,
                "included": skill.included,
                "chars_shown": skill.chars_shown,
                "description_chars": skill.description_chars,
                "shortened": skill.shortened,
                "counts": {
                    "true_positives": skill.true_positives,
                    "false_positives": skill.false_positives,
                    "false_negatives": skill.false_negatives,
                    "true_negatives": skill.true_negatives,
                },
                "precision": skill.precision,
                "recall": skill.recall,
                "f1": skill.f1,
                "below_thresholds": skill.below(report.thresholds),
                "missed": [{"query": c.query, "line": c.line, "taken_by": c.taken_by} for c in skill.missed],
                "false_activations": [{"query": c.query, "line": c.line} for c in skill.false_activations],
                "lost_to_shortening": [{"query": c.query, "line": c.line, "should_trigger": c.should_trigger} for c in skill.lost_to_shortening],
                "stale": [{"query": c.query, "line": c.line} for c in skill.stale],
                "undecided": [{"query": c.query, "line": c.line} for c in skill.undecided],
                "problems": skill.problems,
                "cases": [_case_json(case) for case in skill.cases],
            }
            for skill in report.skills
        ],
        "warnings": report.warnings,
    }


def _plain(line: str) -> str:
    """A log line the runner cannot take for a workflow command."""
    return "./" + line if line.lstrip().startswith("::") else line


def report_github(report: EvalReport, cwd: Path) -> str:
    """One annotation per skill with something to say, on its description line: an error
    below a threshold, a warning for missed positives, false activations or cases the
    catalog's cut loses; then the full report as plain lines."""
    root = source_root(cwd)
    out = []
    for skill in report.skills:
        below = skill.below(report.thresholds)
        if not (below or skill.missed or skill.false_activations or skill.lost_to_shortening or skill.stale or skill.undecided):
            continue
        relative = root_relative(skill.skill_md, root)
        path = printable(relative if relative is not None else str(skill.skill_md))
        lines = [_summary(skill)]
        if below:
            lines.append(f"below the thresholds: {', '.join(below)}")
        for case in skill.missed[:5]:
            lines.append(f"missed: {_quoted(case.query, 100)} -> {printable(case.taken_by) if case.taken_by else 'no skill'}")
        for case in skill.false_activations[:5]:
            lines.append(f"false activation: {_quoted(case.query, 100)}")
        for case in skill.lost_to_shortening[:5]:
            lines.append(f"lost to the catalog's cut: {_quoted(case.query, 100)}")
        if skill.stale:
            lines.append(f"{len(skill.stale)} stale case(s): the recording was made against another catalog text")
        if skill.undecided:
            lines.append(f"{len(skill.undecided)} undecided case(s): no agent run completed, or no recorded answer")
        if report.proxy:
            lines.append("lexical proxy (skilllint eval --agent asks a real agent)")
        kind = "error" if below else "warning"
        title = f"skilllint eval: {skill.name}"
        props = f"file={escape_property(path)},line={skill.description_line},title={escape_property(printable(title))}"
        out.append(f"::{kind} {props}::{escape_data(chr(10).join(lines))}")
    out += [_plain(line) for line in report_text(report, cwd).rstrip("\n").split("\n")]
    return "\n".join(out) + "\n"
