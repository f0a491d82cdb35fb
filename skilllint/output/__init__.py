"""Output formatters. Each takes the lint result and returns text."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from ..diagnostics import Diagnostic, Severity

FORMATS = ("full", "concise", "json", "sarif", "github")
# What --output-format and the config's `output-format` accept: the formats,
# and `auto` (github inside GitHub Actions, else full).
CHOICES = (*FORMATS, "auto")


def resolve_format(fmt: str, environ: Mapping[str, str] | None = None) -> str:
    """The concrete format for ``fmt``: ``auto`` is ``github`` when
    ``GITHUB_ACTIONS=true`` (as GitHub's runners set it), else ``full``."""
    if fmt != "auto":
        return fmt
    env = os.environ if environ is None else environ
    return "github" if env.get("GITHUB_ACTIONS") == "true" else "full"


# Characters from the linted tree that must not reach a terminal raw: C0 controls
# but tab, DEL, C1 controls (ESC/CSI sequences, BEL, backspace) and the bidi
# embeddings, overrides and isolates that reorder what the reader sees; and lone
# surrogates, which is how a file name that is not UTF-8 arrives (os.fsdecode):
# a strict UTF-8 stdout cannot encode them.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with terminal-hostile characters shown as ``\\xNN`` / ``\\uNNNN``."""
    return _UNPRINTABLE.sub(_escape, text)


def printable_lines(text: str) -> str:
    """``text`` of several lines (a traceback), each made :func:`printable`; every line after
    the first indented, so that no name inside it can pass for a line of its own."""
    first, *rest = text.split("\n")
    return "\n".join([printable(first), *("  " + printable(line) for line in rest)])


def tell(kind: str | None, message: str) -> None:
    """``skilllint: KIND: message`` on stderr, one line (``kind`` None: no kind). Messages
    quote paths, names and values from the linted tree and the command line: whatever
    could drive the terminal or start a line of its own is escaped."""
    import sys

    print(f"skilllint: {kind}: {printable(message)}" if kind else f"skilllint: {printable(message)}", file=sys.stderr)


def valid_unicode(text: str) -> str:
    """``text`` as valid Unicode: file names that are not UTF-8 reach us with
    lone surrogates (``os.fsdecode``); their bytes become U+FFFD. For formats
    that other programs parse (SARIF, workflow commands)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "replace")
        return data.decode("utf-8", "replace")


# What JSON leaves raw in a string (it escapes only C0 controls, `"` and `\\`) that must
# not reach a terminal that shows a report: DEL, C1 controls, bidi controls, and the
# two Unicode line separators. Outside strings a JSON text is ASCII.
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def safe_json_text(text: str) -> str:
    """A JSON text (``ensure_ascii=False``) as the same JSON value, terminal-safe: the
    characters of :data:`_RAW_IN_JSON` as ``\\uXXXX`` escapes, and lone surrogates (a file
    name that is not UTF-8) as U+FFFD (:func:`valid_unicode`), so the text is UTF-8."""
    return valid_unicode(_RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


@lru_cache(maxsize=65536)  # a report names each file many times; relpath is slow
def display_path(path: Path, cwd: Path) -> str:
    """Path relative to the working directory, with ``/`` separators."""
    text, base = os.fspath(path), os.fspath(cwd)
    if text.startswith(base) and text[len(base) : len(base) + 1] == os.sep and not base.endswith(os.sep) and _normal(text) and _normal(base):
        rel = text[len(base) + 1 :]  # below it: what relpath says, without its work (most of a report's time)
    else:
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:  # another drive on Windows
            rel = str(path)
    return rel.replace(os.sep, "/")


def _normal(path: str) -> bool:
    """Whether an absolute path is as :func:`os.path.normpath` leaves it (no ``..``, ``.`` or doubled
    separator): then the part of it below a folder is the path relpath gives."""
    return os.path.isabs(path) and os.path.normpath(path) == path


def source_root(cwd: Path) -> Path:
    """The folder that report paths are relative to in SARIF (``%SRCROOT%``) and
    GitHub annotations: the git work tree holding ``cwd`` (the repository root,
    as code scanning and the runner expect), else ``cwd`` itself."""
    for folder in (cwd, *cwd.parents):
        if os.path.lexists(folder / ".git"):  # a folder, or a file in a worktree/submodule
            return folder
    return cwd


def root_relative(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators, or None outside it."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:  # another drive on Windows
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def fix_mark(diag: Diagnostic, result) -> str:
    """``"[*] "`` when ``check --fix`` would fix the finding (an unsafe fix only
    with ``--unsafe-fixes``), else ``""``: the mark of the full and concise formats."""
    fix = diag.fix
    if fix is None or not fix.edits or not (fix.applicability == "safe" or getattr(result, "unsafe_fixes", False)):
        return ""
    return "[*] "


def counts(diagnostics: list[Diagnostic]) -> dict[str, int]:
    return {
        "errors": sum(d.severity == Severity.ERROR for d in diagnostics),
        "warnings": sum(d.severity == Severity.WARNING for d in diagnostics),
        "info": sum(d.severity == Severity.INFO for d in diagnostics),
        "total": len(diagnostics),
    }


def left_out_note(result) -> str | None:
    """The summary's sentence on findings the cap per rule and file left out, or None."""
    left_out = sum(getattr(result, "left_out", {}).values())
    if not left_out:
        return None
    return (
        f"{left_out:,} more finding{'s' if left_out != 1 else ''} left out: at most a set number of each rule's "
        "findings per file are reported (setting `max-findings-per-rule-per-file`)."
    )
