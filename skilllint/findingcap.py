"""The cap on findings per rule and file: the engine reports at most ``limit``
findings of one rule in one file and says how many it left out.

Why: one moderate file can hold a finding per line (a megabyte of links to
missing files is 48,000 SL301 findings); reporting each costs time, memory and
output in proportion, and no reader goes through them. The cap keeps a run's
work and output bounded by the number of rules and files, not by their lines.

Which findings are kept: the highest severities first, then the order the rule
yields them (file order, for rules that scan a file), so the worst problem of
a file is never the one left out and the exit code and ``fail-on`` see the same
severities as without the cap. The last kept finding of a file (in report order)
carries the count of those left out, in :attr:`Diagnostic.left_out` and in its
message; the run's result adds them up per code.

Suppressed and ignored findings are neither kept nor counted as left out.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .diagnostics import Diagnostic, Severity

DEFAULT_LIMIT = 50
"""Findings of one rule reported per file, unless configured (``max-findings-per-rule-per-file``)."""

HARD_LIMIT = 1000
"""The highest value the setting accepts: the cap cannot be configured away."""


class RuleTally:
    """The findings one rule reports on one package (or one catalog pass), capped per file."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._seq = 0
        # path -> severity -> [(arrival number, diagnostic)], at most ``limit`` per severity:
        # a finding past that can never be among the ``limit`` kept in the end.
        self._kept: dict[Path, dict[Severity, list[tuple[int, Diagnostic]]]] = {}
        self._left_out: dict[Path, int] = {}

    def has_room(self, path: Path, severity: Severity) -> bool:
        """Whether a finding of ``severity`` at ``path`` could still be kept."""
        buckets = self._kept.get(path)
        return buckets is None or len(buckets.get(severity, ())) < self.limit

    def leave_out(self, path: Path) -> None:
        """Count one finding at ``path`` the rule did not build because there was no room."""
        self._left_out[path] = self._left_out.get(path, 0) + 1

    def add(self, diagnostic: Diagnostic) -> None:
        buckets = self._kept.setdefault(diagnostic.path, {})
        bucket = buckets.setdefault(diagnostic.severity, [])
        if len(bucket) >= self.limit:
            self.leave_out(diagnostic.path)
            return
        bucket.append((self._seq, diagnostic))
        self._seq += 1

    def take(self) -> list[Diagnostic]:
        """:meth:`results`, leaving the tally empty for the next rule (one tally serves every
        rule of a package: most rules find nothing, and a tally apiece would cost more than
        their checks)."""
        if not self._kept and not self._left_out:
            return []
        found = self.results()
        self._kept, self._left_out, self._seq = {}, {}, 0
        return found

    def results(self) -> list[Diagnostic]:
        """The kept findings, in the order they came; the last one of each file that lost
        some (in report order) says how many."""
        out: list[tuple[int, Diagnostic]] = []
        for path, buckets in self._kept.items():
            items = [item for level in sorted(buckets, reverse=True) for item in buckets[level]]
            left_out = self._left_out.pop(path, 0) + max(0, len(items) - self.limit)
            kept = items[: self.limit]  # highest severity first, then arrival
            if left_out:
                mark_left_out(max((d for _, d in kept), key=Diagnostic.sort_key), left_out, self.limit)
            out.extend(kept)
        out.sort(key=lambda item: item[0])
        return [d for _, d in out]


def mark_left_out(diagnostic: Diagnostic, count: int, limit: int) -> None:
    """Say on ``diagnostic`` that ``count`` more findings of its rule in its file were left out."""
    diagnostic.left_out += count
    more = diagnostic.left_out
    diagnostic.message += (
        f" [{more:,} more {diagnostic.code} finding{'s' if more != 1 else ''} in this file left out: "
        f"at most {limit} per rule and file are reported]"
    )


def cap(diagnostics: list[Diagnostic], limit: int) -> list[Diagnostic]:
    """``diagnostics`` capped per rule and file (for findings built all at once: the catalog rules)."""
    per_file = Counter((d.code, d.path) for d in diagnostics)
    if not per_file or max(per_file.values()) <= limit:
        return diagnostics  # the usual case: nothing over the cap, order untouched
    tallies: dict[str, RuleTally] = {}
    for diagnostic in diagnostics:
        tally = tallies.get(diagnostic.code)
        if tally is None:
            tally = tallies[diagnostic.code] = RuleTally(limit)
        tally.add(diagnostic)
    return [d for tally in tallies.values() for d in tally.results()]


def left_out_summary(by_code: dict[str, int], limit: int) -> str | None:
    """The run's one line about findings left out, or None."""
    total = sum(by_code.values())
    if not total:
        return None
    codes = ", ".join(f"{code} {count:,}" for code, count in sorted(by_code.items()))
    return (
        f"{total:,} more finding{'s' if total != 1 else ''} left out ({codes}): at most {limit} per rule and file "
        "are reported (setting `max-findings-per-rule-per-file`)"
    )
