"""GitHub Actions workflow commands: one annotation per finding, grouped per
file in the log, with every finding also printed as a plain line.

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step
(and 50 per job); the rest are dropped silently. When a run has more, one
``::notice`` says how many are not annotated, emitted first so that it is
never itself the one dropped. The plain lines keep the whole report in the log.

Paths are relative to the git work tree holding the working directory (the
repository root, which is how GitHub resolves an annotation's ``file``).
"""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from ..diagnostics import Diagnostic, Severity, counted
from . import counts, fix_mark, left_out_note, printable, root_relative, source_root, valid_unicode

ANNOTATIONS_PER_KIND = 10  # per step, for each of error, warning and notice
_KINDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF percent-encoded."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as data, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _path(path: Path, root: Path) -> str:
    rel = root_relative(path, root)
    return printable(rel if rel is not None else str(path))


def _plain(line: str) -> str:
    """A log line the runner cannot take for a command: it reads any line whose
    text starts with ``::`` after leading spaces as one."""
    return "./" + line if line.lstrip().startswith("::") else line


def _annotation(diag: Diagnostic, path: str, root: Path) -> str:
    props = [f"file={escape_property(path)}", f"line={diag.span.line}", f"col={diag.span.column}"]
    if diag.span.end_line > diag.span.line:
        props.append(f"endLine={diag.span.end_line}")
    elif diag.span.end_line == diag.span.line and diag.span.end_column > diag.span.column:
        props += [f"endLine={diag.span.end_line}", f"endColumn={diag.span.end_column}"]
    props.append(f"title={escape_property(f'{diag.code} {diag.name}')}")
    lines = [printable(diag.message)]
    for note in diag.related:
        lines.append(f"note: {printable(note.message)} ({_path(note.path, root)}:{note.span.line})")
    if diag.fix is not None:
        lines.append(f"fix ({diag.fix.applicability}): {printable(diag.fix.message)}")
    lines.append(f"targets: {', '.join(diag.targets)} · help: skilllint rule {diag.code}")
    return f"::{_KINDS[diag.severity]} {','.join(props)}::{escape_data(chr(10).join(lines))}"


def limit_notice(diagnostics: list[Diagnostic]) -> str | None:
    """The one ``::notice`` telling how many findings GitHub will not annotate,
    or None when all fit. It is itself a notice, so it leaves room for 9 more."""
    c = counts(diagnostics)
    over = c["errors"] > ANNOTATIONS_PER_KIND or c["warnings"] > ANNOTATIONS_PER_KIND or c["info"] > ANNOTATIONS_PER_KIND
    if not over:
        return None
    hidden = {
        "error": max(0, c["errors"] - ANNOTATIONS_PER_KIND),
        "warning": max(0, c["warnings"] - ANNOTATIONS_PER_KIND),
        "info": max(0, c["info"] - (ANNOTATIONS_PER_KIND - 1)),
    }
    parts = [f"{n} {kind}{'s' if n != 1 and kind != 'info' else ''}" for kind, n in hidden.items() if n]
    text = (
        f"skilllint found {counted(c['total'], 'problem')} ({counted(c['errors'], 'error')}, "
        f"{counted(c['warnings'], 'warning')}, {c['info']} info). GitHub annotates at most {ANNOTATIONS_PER_KIND} errors, "
        f"{ANNOTATIONS_PER_KIND} warnings and {ANNOTATIONS_PER_KIND} notices per step (50 per job), so "
        f"{', '.join(parts)} {'is' if sum(hidden.values()) == 1 else 'are'} not annotated; this step's log lists every finding."
    )
    return f"::notice title={escape_property('skilllint: more findings than annotations')}::{escape_data(text)}"


def render_github(result, cwd: Path) -> str:
    root = source_root(cwd)
    out: list[str] = []
    notice = limit_notice(result.diagnostics)
    if notice:
        out.append(notice)
    for path, group in groupby(result.diagnostics, key=lambda d: d.path):
        shown = _path(path, root)
        out.append(f"::group::{escape_data(shown)}")
        for diag in group:
            out.append(_plain(f"{shown}:{diag.span.line}:{diag.span.column}: {diag.severity}: {fix_mark(diag, result)}{printable(diag.message)} [{diag.code}]"))
            out.append(_annotation(diag, shown, root))
        out.append("::endgroup::")
    out.append(_summary(result))
    return valid_unicode("\n".join(out) + "\n")


def _summary(result) -> str:
    c = counts(result.diagnostics)
    skills = f"{result.packages} skill{'s' if result.packages != 1 else ''}"
    baseline = [printable(n) for n in result.baseline.notes()] if getattr(result, "baseline", None) is not None else []
    if not c["total"]:
        return " ".join([f"All checks passed ({skills} checked).", *baseline])
    found = (
        f"Found {c['total']} problem{'s' if c['total'] != 1 else ''} ({c['errors']} error{'s' if c['errors'] != 1 else ''}, "
        f"{c['warnings']} warning{'s' if c['warnings'] != 1 else ''}, {c['info']} info) in {skills}."
    )
    note = left_out_note(result)
    return " ".join([found, *([note] if note else []), *baseline])
