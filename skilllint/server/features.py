"""The language server's features beyond publishing: code actions (each safe fix as a quick
fix, "Disable SLxxx for this line", "Fix all") and hover (the rule-book page of a code)."""

from __future__ import annotations

import re
import sys
from functools import partial
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import from_fs_path, uri_scheme

from ..diagnostics import Span
from ..lint.parallel import ForkFailed
from .project import norm, split_lines
from .worker import fix_in_worker
from ..skill.package import SkillPackage


_CODE = re.compile(r"\b[A-Z]{1,5}[0-9]{3,4}\b")
FIX_ALL = "source.fixAll.skilllint"
MAX_DISABLE_ACTIONS = 16  # "Disable" actions per request: each reads the document over (a whole-file range asks for all)


class Features:
    """Code actions and hover, on :class:`skilllint.server.main.SkillLintServer`."""

    async def code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """The quick fixes of the findings in the range (their safe fixes, "Disable SLxxx")
        and "Fix all", each where the request's ``only`` asks for its kind."""
        only = params.context.only
        actions = self.quick_fixes(params) if _wanted(only, lsp.CodeActionKind.QuickFix) else []
        if _wanted(only, FIX_ALL):
            fix_all = await self.fix_all_action(params.text_document.uri, asked=only is not None)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def quick_fixes(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(uri)
        version, published = self.published.get(uri, (None, []))
        if doc is None or version != doc.version:
            return []  # findings of an older text: their edits would land in the wrong place
        actions = []
        for diagnostic, converted in published:
            fix = diagnostic.fix
            if fix is None or fix.applicability != "safe" or not _overlaps(converted.range, params.range):
                continue
            changes: dict[str, list[lsp.TextEdit]] = {}
            for edit in fix.edits:
                lines = self.lines_of(edit.path)
                changes.setdefault(from_fs_path(str(edit.path)), []).append(
                    lsp.TextEdit(range=self.to_range(edit.span, lines), new_text=edit.text)
                )
            actions.append(
                lsp.CodeAction(
                    title=f"{fix.message} ({diagnostic.code})",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[converted],
                    is_preferred=True,
                    edit=lsp.WorkspaceEdit(changes=changes),
                )
            )
        return actions + self.disable_actions(uri, doc, published, params.range)

    def disable_actions(self, uri: str, doc, published: list, wanted: lsp.Range) -> list[lsp.CodeAction]:
        """ "Disable SLxxx for this line" for each finding in ``wanted`` whose file reads
        suppression comments (SKILL.md) and where a comment can silence it."""
        from ..app.suppress_edit import Silencer

        actions: list[lsp.CodeAction] = []
        seen: set[tuple[str, int]] = set()
        silencer = None
        for diagnostic, converted in published:
            where = (diagnostic.code, diagnostic.span.line)
            if where in seen or not _overlaps(converted.range, wanted) or not _reads_suppressions(diagnostic.path):
                continue
            seen.add(where)
            if len(seen) > MAX_DISABLE_ACTIONS:
                break
            silencer = silencer or Silencer(doc.source)
            proposal = silencer.disable(*where)
            if proposal is None:
                continue
            edits = [lsp.TextEdit(range=self.offsets_range(silencer.index, start, end), new_text=text) for start, end, text in proposal.edits]
            actions.append(
                lsp.CodeAction(
                    title=proposal.title,
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[converted],
                    edit=self.workspace_edit(uri, doc.version, edits),
                )
            )
        return actions

    async def fix_all_action(self, uri: str, asked: bool) -> lsp.CodeAction | None:
        """ "Fix all": when the client ``asked`` for source actions (on save, a menu), or else
        when the findings published for the document's text carry a safe fix. Its edit is
        left for ``codeAction/resolve`` where the client resolves edits (a light bulb then
        costs no lint); else it is computed now."""
        doc = self.workspace.text_documents.get(uri)
        if doc is None or uri_scheme(uri) != "file":
            return None
        if not asked:
            version, published = self.published.get(uri, (None, []))
            if version != doc.version or not any(d.fix is not None and d.fix.applicability == "safe" for d, _ in published):
                return None
        action = lsp.CodeAction(title="Fix all auto-fixable skilllint problems", kind=FIX_ALL, data={"uri": uri})
        if self.resolves_edits():
            return action
        action.edit = await self.fix_all_edit(uri)
        return action if action.edit is not None else None

    async def resolve_code_action(self, action: lsp.CodeAction) -> lsp.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        if action.kind == FIX_ALL and isinstance(data.get("uri"), str) and action.edit is None:
            action.edit = await self.fix_all_edit(data["uri"]) or lsp.WorkspaceEdit(changes={})
        return action

    async def fix_all_edit(self, uri: str) -> lsp.WorkspaceEdit | None:
        """The edits ``skilllint check --fix`` would make to the document's current text, as
        one edit of that version (None: nothing to fix, or the text changed meanwhile)."""
        from ..edits import LineIndex, edits_between

        doc = self.workspace.text_documents.get(uri)
        if doc is None or uri_scheme(uri) != "file":
            return None
        path = norm(doc.path)
        located = self.locate(Path(path))
        if located is None:
            return None
        project, _ = located
        version = doc.version
        async with self._slots:
            await self.warmed()
            contents = self.overlay()
            try:
                found = await self.in_worker(partial(fix_in_worker, project, path, contents))
            except ForkFailed as exc:
                self.log(f"internal error while fixing {path}: {exc} (please report this bug)")
                return None
        for error in found["errors"]:
            first, _, rest = error.partition("\n")
            self.log(f"{first} (please report this bug)")
            if rest:
                print(rest, file=sys.stderr)
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version or found["fixed"] is None:
            return None  # a newer text: the client asks again for it
        text = contents[path].decode("utf-8")  # the text fixed: the buffer (any lone surrogate made "?")
        fixed = found["fixed"].decode("utf-8")
        if fixed == text:
            return None
        index = LineIndex(text)
        edits = [
            lsp.TextEdit(range=self.offsets_range(index, item.start, item.end), new_text=item.text)
            for item in edits_between(Path(path), text, fixed, index)
        ]
        return self.workspace_edit(uri, version, edits)

    def resolves_edits(self) -> bool:
        """Whether the client fills in a code action's edit with ``codeAction/resolve`` (and
        hands back the action's ``data``, which names the document)."""
        capability = self.client_capabilities.text_document
        actions = capability.code_action if capability else None
        support = actions.resolve_support if actions else None
        return support is not None and "edit" in support.properties and bool(actions.data_support)

    def workspace_edit(self, uri: str, version: int | None, edits: list[lsp.TextEdit]) -> lsp.WorkspaceEdit:
        """Edits of one document: tied to its version where the client takes versioned edits
        (it refuses them for a newer text), else plain."""
        workspace = self.client_capabilities.workspace
        edit_support = workspace.workspace_edit if workspace else None
        if version is not None and edit_support is not None and edit_support.document_changes:
            identifier = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=identifier, edits=edits)])
        return lsp.WorkspaceEdit(changes={uri: edits})

    def hover(self, params: lsp.HoverParams) -> lsp.Hover | None:
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(uri)
        if doc is None:
            return None
        lines = split_lines(doc.source)
        position = params.position
        codes: list[str] = []
        hover_range = None
        if position.line < len(lines):
            text = lines[position.line]
            if "skilllint" in text:  # a suppression comment (or a skilllint directive of any kind)
                # (a copy: pygls clamps the position it is given in place)
                column = self.codec().position_from_client_units(lines, lsp.Position(line=position.line, character=position.character)).character
                for match in _CODE.finditer(text):
                    if match.start() <= column <= match.end() and match.group() in self.registry.rules:
                        codes.append(match.group())
                        line = position.line + 1
                        hover_range = self.to_range(Span(line, match.start() + 1, line, match.end() + 1), lines)
        version, published = self.published.get(uri, (None, []))
        for diagnostic, converted in published:
            if _contains(converted.range, position) and diagnostic.code not in codes:
                codes.append(diagnostic.code)
                hover_range = hover_range or converted.range
        if not codes:
            return None
        pages = [self.rule_page(code) for code in codes]
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value="\n\n---\n\n".join(pages)),
            range=hover_range,
        )

    def rule_page(self, code: str) -> str:
        from ..rulebook import rule_page

        page = rule_page(code)
        if page:
            return page.rstrip()
        rule = self.registry.rules.get(code)
        if rule is None:
            return f"# {code}\n\n(no such rule)"
        return f"# {rule.code} {rule.name}\n\n{rule.summary}\n\n(no rule-book page found)"


def _wanted(only: list[str] | None, kind: str) -> bool:
    """Whether a code action request that asks for ``only`` these kinds (None: any) wants ``kind``."""
    return only is None or any(kind == asked or kind.startswith(asked + ".") for asked in only)


def _reads_suppressions(path: Path) -> bool:
    """Whether skilllint reads suppression comments in the file at ``path``: a skill's
    SKILL.md (the name the skill's folder lists it by)."""
    path = Path(norm(path))
    if path.name.casefold() != "skill.md":
        return False
    return SkillPackage(path.parent, path.parent).skill_md_name == path.name


def _before(a: lsp.Position, b: lsp.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    """Whether two ranges touch (an empty range counts where it sits)."""
    return not (_before(a.end, b.start) or _before(b.end, a.start))


def _contains(r: lsp.Range, p: lsp.Position) -> bool:
    return not (_before(p, r.start) or _before(r.end, p))
