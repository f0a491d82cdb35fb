"""Flagged text that no output may show: the credential a finding of SL803 points at.

Such a rule declares ``secret_span = True``. Its messages carry only a masked form; the
outputs that print the flagged line (the human format's source excerpt, the baseline's
"text" for the reader) blank the flagged columns with ``*`` here first.
"""

from __future__ import annotations

from functools import lru_cache

from ..diagnostics import Diagnostic


@lru_cache(maxsize=None)
def conceals(code: str) -> bool:
    """Whether the rule ``code`` flags text that must not be shown (its ``secret_span``)."""
    from ..registry import registry

    rule = registry().rules.get(code)
    return rule is not None and rule.secret_span


def shown_line(diag: Diagnostic, line: str) -> str:
    """The flagged line ``line`` of ``diag`` as an output may print it: the flagged columns
    blanked when the rule conceals them (to the line's end when the span goes on past it)."""
    if not conceals(diag.code):
        return line
    span = diag.span
    start = max(span.column - 1, 0)
    end = span.end_column - 1 if span.end_line == span.line and span.end_column > span.column else len(line)
    end = min(end, len(line))
    if start >= end:
        return line
    return line[:start] + "*" * (end - start) + line[end:]
