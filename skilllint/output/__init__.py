"""Output formatters. Each takes the lint result and returns text."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..diagnostics import Diagnostic, Severity

FORMATS = ("full", "concise", "json")


# Characters from the linted tree that must not reach a terminal raw: C0 controls
# but tab, DEL, C1 controls (ESC/CSI sequences, BEL, backspace) and the bidi
# embeddings, overrides and isolates that reorder what the reader sees.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with terminal-hostile characters shown as ``\\xNN`` / ``\\uNNNN``."""
    return _UNPRINTABLE.sub(_escape, text)


def display_path(path: Path, cwd: Path) -> str:
    """Path relative to the working directory, with ``/`` separators."""
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        rel = str(path)
    return rel.replace(os.sep, "/")


def counts(diagnostics: list[Diagnostic]) -> dict[str, int]:
    return {
        "errors": sum(d.severity == Severity.ERROR for d in diagnostics),
        "warnings": sum(d.severity == Severity.WARNING for d in diagnostics),
        "info": sum(d.severity == Severity.INFO for d in diagnostics),
        "total": len(diagnostics),
    }


def render(fmt: str, result, cwd: Path, color: bool = False) -> str:
    if fmt == "json":
        from .json import render_json

        return render_json(result, cwd)
    if fmt == "concise":
        from .concise import render_concise

        return render_concise(result, cwd)
    from .full import render_full

    return render_full(result, cwd, color=color)
