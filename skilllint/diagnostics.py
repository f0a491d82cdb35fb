"""What a rule reports: findings, diagnostics, severities, fixes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path


def clipped(text: str, width: int = 120) -> str:
    """Text from a linted file as a message quotes it: at most ``width`` characters, the
    middle elided. A message that quotes a 400 KB path whole is a 400 KB message."""
    if len(text) <= width:
        return text
    half = (width - 1) // 2
    return text[:half] + "…" + text[len(text) - (width - 1 - half):]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun`` in agreement: "1 error", "2 errors" (``plural`` when adding
    an s is wrong: "fixes")."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r}; use error, warning or info") from None

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Span:
    """A 1-based, end-exclusive range in a file (end_column points past the text)."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int = 1) -> "Span":
        return cls(line, column, line, column)


@dataclass(frozen=True)
class Edit:
    """Replace ``span`` of ``path`` with ``text`` (the text exactly as it lands:
    a fix that adds lines writes the file's own line ending).

    ``span`` is 1-based and end-exclusive, in skilllint's positions: lines end
    at ``\n``, ``\r\n`` or ``\r``, line 1 starts after a UTF-8 byte-order
    mark, columns count code points. ``start``/``end``, when set, are the same
    range as code-point offsets into the file's whole decoded text (BOM and CR
    included); ``--fix`` applies those. Only offsets can reach a BOM (whose span
    is the empty ``1:1-1:1``) or the CR of a CRLF. Build edits with
    :func:`skilllint.edits.edit`, which sets both.
    """

    path: Path
    span: Span
    text: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class Fix:
    """A fix a rule attaches to its finding: ``message`` is a short imperative
    title ("move `version` under `metadata`"), ``applicability`` is ``"safe"``
    (``check --fix`` applies it: the result means what the author meant) or
    ``"unsafe"`` (only with ``--unsafe-fixes``: it changes what the skill says),
    ``edits`` are non-overlapping :class:`Edit` s, usually in one file."""

    message: str
    applicability: str  # "safe" | "unsafe"
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    """Another place the finding points to (an LSP related location, a SARIF relatedLocation)."""

    message: str
    path: Path
    span: Span


@dataclass
class Finding:
    """What a rule yields. The engine turns it into a :class:`Diagnostic`.

    ``targets``: the targets the finding concerns (None: every selected target
    the rule applies to). ``severities`` may override the rule's per-target
    table for this finding (e.g. a sub-condition that is only info).
    """

    message: str
    span: Span
    path: Path | None = None  # defaults to the package's SKILL.md
    targets: tuple[str, ...] | None = None
    severities: dict[str, Severity] | None = None
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    # What the problem does on this finding's target, said after the message. Catalog findings
    # of several targets on one problem (same message) become one, listing each distinct effect.
    effect: str = ""


@dataclass
class Diagnostic:
    """One finding on a file, as reported: the rule, the targets that share it, where, and its fix."""

    code: str
    name: str
    severity: Severity
    targets: tuple[str, ...]
    message: str
    path: Path  # absolute
    span: Span
    fix: Fix | None = None
    related: tuple[Related, ...] = field(default_factory=tuple)
    # Findings of the same rule in the same file that the engine left out after this one
    # (skilllint.findingcap): set on the last one reported, else 0.
    left_out: int = 0

    def sort_key(self) -> tuple:
        return (str(self.path), self.span.line, self.span.column, self.code, self.message)
