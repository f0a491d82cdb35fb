"""``path:line:col: severity: message [CODE]``: one line per finding, for
editors' problem matchers, vim's errorformat and Emacs compilation mode."""

from __future__ import annotations

from pathlib import Path

from . import display_path, fix_mark, printable


def render_concise(result, cwd: Path) -> str:
    # `[*] ` before the message: `check --fix` fixes it (the problem matcher skips the mark).
    lines = [
        f"{printable(display_path(d.path, cwd))}:{d.span.line}:{d.span.column}: {d.severity}: {fix_mark(d, result)}{printable(d.message)} [{d.code}]"
        for d in result.diagnostics
    ]
    return "\n".join(lines) + ("\n" if lines else "")
