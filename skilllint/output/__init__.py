"""Output formatters. Each takes the lint result and returns text."""

from __future__ import annotations

import os
from pathlib import Path

from ..diagnostics import Diagnostic, Severity

FORMATS = ("full", "concise", "json")


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
