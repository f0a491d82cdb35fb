"""skilllint's findings as the language server publishes them: spans (1-based, end-exclusive,
in code points) as LSP ranges in the client's units, and diagnostics with their rule-book
link and related places."""

from __future__ import annotations

import bisect
import functools
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from ..diagnostics import Diagnostic, Severity, Span
from ..fsafe import UnsafeFile, read_capped
from .project import norm, split_lines


SOURCE = "skilllint"
_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}


class Conversions:
    """The conversions, on :class:`skilllint.server.main.SkillLintServer` (its ``codec`` and open documents)."""

    def to_range(self, span: Span, lines: list[str]) -> lsp.Range:
        """A 1-based, end-exclusive code-point span as an LSP range in the client's units."""
        return lsp.Range(
            start=self.to_position(span.line, span.column, lines),
            end=self.to_position(span.end_line, span.end_column, lines),
        )

    def to_position(self, line: int, column: int, lines: list[str]) -> lsp.Position:
        line, column = max(line - 1, 0), max(column - 1, 0)
        if not lines:
            return lsp.Position(line=line, character=column)
        if line >= len(lines):
            return lsp.Position(line=len(lines) - 1, character=self.codec().client_num_units(lines[-1]))
        text = lines[line]
        return lsp.Position(line=line, character=self.codec().client_num_units(text[: min(column, len(text))]))

    def offsets_range(self, index, start: int, end: int) -> lsp.Range:
        """Code-point offsets into a document's text (:class:`skilllint.edits.LineIndex`
        of it) as an LSP range in the client's units."""
        return lsp.Range(start=self.offset_position(index, start), end=self.offset_position(index, end))

    def offset_position(self, index, offset: int) -> lsp.Position:
        line = bisect.bisect_right(index.starts, offset) - 1
        offset = min(offset, index.ends[line])  # inside a CRLF: the line's end
        return lsp.Position(line=line, character=self.codec().client_num_units(index.text[index.starts[line] : offset]))

    def lines_of(self, path: Path) -> list[str]:
        """The text of a file as the server sees it: the open buffer, else the disk."""
        for doc in self.open_documents().values():
            if norm(doc.path) == norm(path):
                return split_lines(doc.source)
        try:
            return split_lines(read_capped(path).data.decode("utf-8", errors="replace"))
        except (UnsafeFile, OSError):
            return []

    def to_lsp(self, diagnostic: Diagnostic, lines: list[str]) -> lsp.Diagnostic:
        href = _rule_page_uri(diagnostic.code)
        related = [
            lsp.DiagnosticRelatedInformation(
                location=lsp.Location(uri=from_fs_path(str(r.path)), range=self.to_range(r.span, self.lines_of(r.path))),
                message=r.message,
            )
            for r in diagnostic.related
        ]
        return lsp.Diagnostic(
            range=self.to_range(diagnostic.span, lines),
            message=f"{diagnostic.message} (targets: {', '.join(diagnostic.targets)})",
            severity=_SEVERITY[diagnostic.severity],
            code=diagnostic.code,
            code_description=lsp.CodeDescription(href=href) if href else None,
            source=SOURCE,
            related_information=related or None,
            data={"name": diagnostic.name, "targets": list(diagnostic.targets), "fix": diagnostic.fix is not None},
        )


@functools.lru_cache(maxsize=None)
def _rule_page_uri(code: str) -> str | None:
    """The rule-book page as a file URI (the codeDescription link): the copy
    shipped in the wheel, or the checkout's ``rulebook/`` folder."""
    from ..rulebook import rule_folders

    folder = rule_folders().get(code)
    return from_fs_path(str(folder / "README.md")) if folder is not None else None
