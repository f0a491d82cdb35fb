"""The default, human format: each finding with its source line and a pointer,
the targets it concerns and where to read more; then a summary."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, Severity
from ..fsafe import UnsafeFile, read_capped
from . import counts, display_path, fix_mark, left_out_note, printable
from .conceal import shown_line

_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}
_RESET, _BOLD, _DIM = "\033[0m", "\033[1m", "\033[2m"
_WIDTH = 160  # longest source line shown


class _Sources:
    """Source lines of reported files, read once each, safely."""

    def __init__(self) -> None:
        self._lines: dict[Path, list[str]] = {}

    def line(self, path: Path, number: int) -> str | None:
        lines = self._lines.get(path)
        if lines is None:
            try:
                data = read_capped(path).data
                if b"\x00" in data[:8192]:
                    raise UnsafeFile("binary")  # an image or archive (SL304 reports at such files): no source line
                lines = data.decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n")
            except (UnsafeFile, OSError):
                lines = []
            self._lines[path] = lines
        if 1 <= number <= len(lines):
            return lines[number - 1].lstrip("\ufeff")
        return None


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def render_full(result, cwd: Path, color: bool = False) -> str:
    sources = _Sources()
    out: list[str] = []
    for diag in result.diagnostics:
        out.extend(_block(diag, cwd, sources, color, fix_mark(diag, result)))
    out.extend(_summary(result, color))
    return "\n".join(out) + "\n"


def _block(diag: Diagnostic, cwd: Path, sources: _Sources, color: bool, mark: str = "") -> list[str]:
    where = f"{printable(display_path(diag.path, cwd))}:{diag.span.line}:{diag.span.column}"
    level = _paint(f"{diag.severity}[{diag.code}]", _COLORS[diag.severity], color)
    lines = [f"{_paint(where, _BOLD, color)}: {level} {mark}{printable(diag.message)}"]
    source = sources.line(diag.path, diag.span.line)
    if source is not None:
        source = shown_line(diag, source)
        number = str(diag.span.line)
        gutter = " " * len(number)
        shown = printable(source.expandtabs(4))
        start = min(len(printable(source[: max(diag.span.column - 1, 0)].expandtabs(4))), len(shown))
        if len(shown) > _WIDTH:
            # A long line: show a window around the finding, not just its start.
            left = max(0, min(start - _WIDTH // 3, len(shown) - _WIDTH + 3))
            shown = ("..." if left else "") + shown[left : left + _WIDTH - 6] + "..."
            start = start - left + (3 if left else 0)
        if diag.span.end_line == diag.span.line and diag.span.end_column > diag.span.column:
            width = diag.span.end_column - diag.span.column
        else:
            width = max(1, len(shown.rstrip()) - start)
        width = max(1, min(width, max(1, len(shown) - start)))
        lines += [
            f" {gutter} |",
            f" {number} | {shown}",
            f" {gutter} | {' ' * start}{_paint('^' * width, _COLORS[diag.severity], color)}",
        ]
    for related in diag.related:
        lines.append(f"   = note: {printable(related.message)} ({printable(display_path(related.path, cwd))}:{related.span.line})")
    lines.append(f"   = targets: {', '.join(diag.targets)}")
    if diag.fix is not None:
        lines.append(f"   = fix ({diag.fix.applicability}): {printable(diag.fix.message)}")
    lines.append(_paint(f"   = help: skilllint rule {diag.code}  ({diag.name})", _DIM, color))
    lines.append("")
    return lines


def _summary(result, color: bool) -> list[str]:
    c = counts(result.diagnostics)
    skills = f"{result.packages} skill{'s' if result.packages != 1 else ''}"
    out = []
    fixed = sum(getattr(result, "fixed", {}).values())
    if fixed:
        out.append(_paint(f"Fixed {fixed} problem{'s' if fixed != 1 else ''}.", _BOLD, color))
    baseline = [printable(n) for n in result.baseline.notes()] if getattr(result, "baseline", None) is not None else []
    if not c["total"]:
        return out + [_paint(f"All checks passed ({skills} checked).", _BOLD, color), *baseline]
    parts = [f"{c['errors']} error{'s' if c['errors'] != 1 else ''}", f"{c['warnings']} warning{'s' if c['warnings'] != 1 else ''}", f"{c['info']} info"]
    out.append(_paint(f"Found {c['total']} problem{'s' if c['total'] != 1 else ''} ({', '.join(parts)}) in {skills}.", _BOLD, color))
    note = left_out_note(result)
    if note:
        out.append(note)
    out.extend(baseline)
    fixable = sum(1 for d in result.diagnostics if fix_mark(d, result))
    hidden = sum(1 for d in result.diagnostics if d.fix is not None and d.fix.edits and not fix_mark(d, result))
    if fixable:
        more = f" ({hidden} more with `--unsafe-fixes`)" if hidden else ""
        out.append(f"[*] {fixable} fixable with `skilllint check --fix`{more}.")
    elif hidden:
        out.append(f"{hidden} fix{'es' if hidden != 1 else ''} available with `--fix --unsafe-fixes`.")
    return out
