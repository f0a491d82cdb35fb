"""SL53x: the skill's eval files (trigger sets, ``evals/evals.json``): well formed, and worth running."""

from __future__ import annotations

from typing import Iterator

from ...diagnostics import Finding, Span
from ...skill.package import SkillPackage
from ...rule import Option, Rule, RuleContext, severities


class EvalFileInvalid(Rule):
    code = "SL530"
    name = "eval-file-invalid"
    summary = "A trigger set or evals/evals.json does not match its shape"
    severity = severities("warning: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.evals.files import package_evals

        evals = package_evals(package)
        files = [*evals.trigger_sets, *([evals.task_evals] if evals.task_evals else [])]
        for found in files:
            for problem in found.problems:
                yield Finding(problem.message, Span.point(problem.line, problem.column), path=found.path)


class EvalSetWeak(Rule):
    code = "SL531"
    name = "eval-set-weak"
    summary = "A trigger set too small, or with negatives too easy, to tell a good description from a bad one"
    severity = severities("info: all")
    opt_in = True
    # skill-creator asks for 8-10 queries per side. Below 5, its optimiser's 40% held-out split
    # (scripts/run_loop.py) keeps a single case of that side: one query decides the held-out score.
    # A few negatives far from the description are fine (they test that the skill stays out of the
    # way); a set made mostly of them tests nothing near the description's edge.
    options = {
        "min-cases": Option(int, 5, "fewest cases wanted on each side (should and should not trigger)", minimum=1, maximum=10_000),
        "max-distant-share": Option(
            float, 0.5, "largest share of negative cases that may share no content word with the description", minimum=0, maximum=1
        ),
    }

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...catalog.overlap import content_words
        from ...skill.evals.files import package_evals, shorten

        wanted = ctx.options["min-cases"]
        mapping = package.canonical.mapping
        description = mapping.get("description") if mapping else None
        described = content_words(description) if isinstance(description, str) else frozenset()
        for found in package_evals(package).trigger_sets:
            positives, negatives = found.positives, found.negatives
            for side, cases in (("positive", positives), ("negative", negatives)):
                count = len(cases)
                if 0 < count < wanted:  # none at all is SL530's
                    held_out = max(1, int(count * 0.4))  # run_loop.py's split_eval_set at its default hold-out
                    yield Finding(
                        f"{count} {side} case{'s' if count != 1 else ''}, fewer than {wanted}: each one is "
                        f"{100 / count:.0f}% of that side's score, and skill-creator's 40% hold-out tests on {held_out} of them; "
                        "skill-creator asks for 8-10 per side",
                        Span.point(cases[0].line),
                        path=found.path,
                    )
            if not described or not negatives:
                continue  # no description to be near (SL111 / SL112), or no negative (SL530)
            distant = [case for case in negatives if not content_words(case.query) & described]
            if len(distant) > len(negatives) * ctx.options["max-distant-share"]:
                lines = ", ".join(str(case.line) for case in distant[:10]) + (", …" if len(distant) > 10 else "")
                yield Finding(
                    f"{len(distant)} of {len(negatives)} negative cases share no content word with the description "
                    f"(lines {lines}; first: \"{shorten(distant[0].query)}\"): nothing in the description reaches such a "
                    "query, so the set hardly tests where the description's edge lies; skill-creator's valuable negatives are near misses that share the "
                    "skill's keywords but need something else",
                    Span.point(distant[0].line),
                    path=found.path,
                )


RULES = [EvalFileInvalid, EvalSetWeak]
