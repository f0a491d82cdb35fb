"""Does skilllint's `skills-ref` target reproduce the reference validator?

Usage::

    python benchmarks/skills_ref_parity.py [CORPUS_DIR]

For every skill folder under CORPUS_DIR (default ``../shared/corpus``: each
folder holding ``SKILL.md`` or ``skill.md``) it compares two verdicts:

* the reference validator (package ``skills-ref``):
  ``skills_ref.validator.validate(Path(dir))`` returns ``[]`` -> valid; a
  non-empty list or an exception (e.g. ``UnicodeDecodeError``) -> invalid;
* skilllint with ``--target skills-ref``: invalid iff at least one diagnostic
  of severity ``error`` names ``skills-ref`` among its targets.

It prints N, the agreement count, every disagreement with both verdicts and
messages, the skills whose verdicts agree but whose messages differ, and the
time each tool took. Exit status: 0 when every verdict agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET = "skills-ref"
SKIPPED_DIRS = {".git", "node_modules", ".venv", "__pycache__"}


@dataclass
class Verdict:
    valid: bool
    messages: list[str] = field(default_factory=list)
    seconds: float = 0.0
    raised: bool = False  # the validator raised (its "invalid" has no message to compare)


def find_skills(corpus: Path) -> list[Path]:
    """Every folder holding exactly ``SKILL.md`` or ``skill.md`` (the names skills-ref reads)."""
    found = []
    for folder, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        if "SKILL.md" in files or "skill.md" in files:
            found.append(Path(folder))
    return sorted(found)


def reference_verdict(skill_dir: Path) -> Verdict:
    from skills_ref.validator import validate

    start = time.perf_counter()
    try:
        messages = list(validate(Path(skill_dir)))
    except Exception as exc:  # noqa: BLE001 - a raise is the validator's "invalid"
        return Verdict(False, [f"<raised {type(exc).__name__}: {exc}>"], time.perf_counter() - start, raised=True)
    return Verdict(not messages, messages, time.perf_counter() - start)


_SETTINGS: dict[str, object] = {}


def _settings(cwd: Path):
    from skilllint.config.settings import load_settings
    from skilllint.registry import registry

    key = str(cwd)
    settings = _SETTINGS.get(key)
    if settings is None:
        settings = load_settings(registry(), cwd)
        settings.targets = (TARGET,)
        _SETTINGS[key] = settings
    return settings


def skilllint_verdict(skill_dir: Path) -> Verdict:
    """skilllint's skills-ref verdict for one folder (nested skills excluded)."""
    from skilllint.diagnostics import Severity
    from skilllint.lint.engine import lint_paths

    skill_dir = Path(os.path.abspath(skill_dir))
    settings = _settings(skill_dir.parent)
    start = time.perf_counter()
    result = lint_paths([str(skill_dir)], settings, skill_dir.parent)
    seconds = time.perf_counter() - start
    if result.internal_errors:
        raise RuntimeError("skilllint internal error:\n" + "\n".join(result.internal_errors))
    own = [d for d in result.diagnostics if d.path == skill_dir or d.path.parent == skill_dir]
    errors = [d for d in own if d.severity == Severity.ERROR and TARGET in d.targets]
    return Verdict(not errors, [f"{d.code} {d.message}" for d in errors], seconds)


def comparable(message: str) -> str:
    """Validator text, with the parser's own wording of YAML errors cut off."""
    prefix = "Invalid YAML in frontmatter:"
    return prefix if message.startswith(prefix) else message


def message_gap(ref: Verdict, lint: Verdict) -> tuple[set[str], set[str]]:
    """(validator messages skilllint lacks, skilllint messages the validator lacks).

    Nothing to compare when the validator raised instead of answering.
    """
    if ref.raised:
        return set(), set()
    ours = {comparable(m.split(" ", 1)[1]) for m in lint.messages}
    theirs = {comparable(m) for m in ref.messages}
    return theirs - ours, ours - theirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS))
    args = parser.parse_args(argv)
    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        print(f"{corpus}: not a directory", file=sys.stderr)
        return 2
    skills = find_skills(corpus)
    if not skills:
        print(f"{corpus}: no skill folders found", file=sys.stderr)
        return 2

    # Warm both tools up (imports, registry) so timings measure checking.
    reference_verdict(skills[0])
    skilllint_verdict(skills[0])

    agree = 0
    disagreements: list[tuple[Path, Verdict, Verdict]] = []
    message_mismatches: list[tuple[Path, set[str], set[str]]] = []
    ref_time = lint_time = 0.0
    invalid_ref = raised = 0
    for skill in skills:
        ref = reference_verdict(skill)
        lint = skilllint_verdict(skill)
        ref_time += ref.seconds
        lint_time += lint.seconds
        invalid_ref += not ref.valid
        raised += ref.raised
        if ref.valid == lint.valid:
            agree += 1
            missing, extra = message_gap(ref, lint)
            if missing or extra:
                message_mismatches.append((skill, missing, extra))
        else:
            disagreements.append((skill, ref, lint))

    def verdict_text(v: Verdict) -> str:
        return "valid" if v.valid else "invalid"

    def show(message: str) -> str:
        return message.replace("\n", "\n        ")

    n = len(skills)
    print(f"corpus: {corpus}")
    print(f"skills: {n} ({invalid_ref} invalid per skills-ref, {raised} of them by raising)")
    print(f"verdicts agree: {agree}/{n} ({100.0 * agree / n:.1f}%)")
    print(f"messages differ (verdicts agree): {len(message_mismatches)}")
    print(
        f"time: skills-ref {ref_time:.2f}s ({1000 * ref_time / n:.2f} ms/skill), "
        f"skilllint --target skills-ref {lint_time:.2f}s ({1000 * lint_time / n:.2f} ms/skill)"
    )
    if disagreements:
        print("\ndisagreements:")
        for skill, ref, lint in disagreements:
            print(f"- {skill.relative_to(corpus)}")
            print(f"    skills-ref: {verdict_text(ref)}")
            for message in ref.messages:
                print(f"      {show(message)}")
            print(f"    skilllint:  {verdict_text(lint)}")
            for message in lint.messages:
                print(f"      {show(message)}")
    if message_mismatches:
        print("\nmessage differences (same verdict):")
        for skill, missing, extra in message_mismatches:
            print(f"- {skill.relative_to(corpus)}")
            for message in sorted(missing):
                print(f"    only skills-ref: {show(message)}")
            for message in sorted(extra):
                print(f"    only skilllint:  {show(message)}")
    return 0 if not disagreements else 1


if __name__ == "__main__":
    sys.exit(main())
