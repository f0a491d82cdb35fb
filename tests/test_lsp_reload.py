"""The language server as an editor uses it beyond typing: files changed on disk
(``workspace/didChangeWatchedFiles``, registered when the client can watch files),
"Disable SLxxx for this line" and "Fix all". Driven over stdio by pygls's client,
as tests/test_lsp.py does; every wait is bounded."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from test_lsp import ALPHA, BETA, ROOT, Session, codes, make_project, run, utf16

from skilllint.app.suppress_edit import CHECK_BUDGET, Silencer, disable

pytestmark = pytest.mark.e2e

WATCHING = lsp.ClientCapabilities(
    workspace=lsp.WorkspaceClientCapabilities(
        did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
    )
)
CONFIG_GLOBS = {"**/.skilllint.toml", "**/skilllint.toml", "**/pyproject.toml"}

# Two findings on one line each: SL104 and SL106 on `name` (frontmatter), SL301 and SL302
# on the links (body).
GAMMA = """\
---
name: Gamma_Skill
description: Drafts release announcements from merged pull requests. Use when asked to announce a release.
---

# Gamma

See [x](references/new.md) and [y](/etc/passwd).
"""

# Five safe fixes over two passes: CRLF endings (SL008), an unquoted `: ` (SL005), a
# top-level version (SL122), a list of allowed tools (SL125), a metadata number (SL124);
# an emoji before the edits counts two UTF-16 units.
FIXABLE = (
    "---\r\nname: alpha\r\n"
    "description: \U0001f600 Formats: Rust source files with rustfmt. Use when the user asks to tidy Rust code.\r\n"
    "version: 1.0\r\nallowed-tools:\r\n  - Read\r\n  - Bash\r\nmetadata:\r\n  owner: 12\r\n---\r\n\r\n"
    "# Alpha \U0001f600\r\n\r\nRun the formatter.\r\n"
)


class Editor(Session):
    """A session whose client answers ``client/registerCapability`` and keeps what it was asked."""

    def __init__(self, root: Path, capabilities: lsp.ClientCapabilities | None = None):
        super().__init__(root, capabilities=capabilities)
        self.registrations: list[lsp.Registration] = []

        @self.client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: lsp.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)
            self.changed.set()

    def changed_on_disk(self, *changes: tuple[Path, lsp.FileChangeType]) -> None:
        """What an editor's file watcher sends once files changed on disk."""
        self.client.workspace_did_change_watched_files(
            lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(uri=from_fs_path(str(p)), type=kind) for p, kind in changes])
        )

    async def actions(self, uri: str, at: lsp.Range, only: list[str] | None = None) -> list[lsp.CodeAction]:
        return await self.request(
            self.client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri), range=at, context=lsp.CodeActionContext(diagnostics=[], only=only)
                )
            )
        )

    def sent(self) -> dict[str, int]:
        """How many publications each document has had so far."""
        return {uri: len(found) for uri, found in self.diagnostics.items()}

    async def next_publication(self, uri: str, sent: dict[str, int] | None = None) -> list[lsp.Diagnostic]:
        """The first publication of ``uri`` after those counted in ``sent`` (default: now)."""
        return await self.published(uri, count=(sent if sent is not None else self.sent()).get(uri, 0) + 1)


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """``text`` with LSP edits applied as an editor does: positions in UTF-16 units, lines
    ending at LF, CRLF or CR."""

    def offset(position: lsp.Position) -> int:
        at, line = 0, 0
        while line < position.line:
            breaks = [i for i in (text.find("\r", at), text.find("\n", at)) if i >= 0]
            at = min(breaks) + (2 if text.startswith("\r\n", min(breaks)) else 1)
            line += 1
        units = 0
        while units < position.character and text[at] not in "\r\n":
            units += utf16(text[at])
            at += 1
        assert units == position.character, "a position inside a character"
        return at

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_of(edit: lsp.WorkspaceEdit, uri: str) -> list[lsp.TextEdit]:
    if edit.document_changes is not None:
        (change,) = edit.document_changes
        assert change.text_document.uri == uri
        return list(change.edits)
    assert set(edit.changes) == {uri}
    return list(edit.changes[uri])


def skilllint(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "skilllint", *args], cwd=cwd, env=env, input=stdin, capture_output=True, timeout=120)


# -- watching files --------------------------------------------------------------------------


def test_the_client_is_asked_to_watch_configurations_only_when_it_can(tmp_path):
    files = make_project(tmp_path)

    async def scenario():
        async with Editor(tmp_path, WATCHING) as s:
            await s.until(lambda: s.registrations, "a registration request")
            watched = {r.method: r for r in s.registrations}
            assert set(watched) == {lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES}
            globs = {w["globPattern"] for r in s.registrations for w in r.register_options["watchers"]}  # (as sent: JSON)
            assert CONFIG_GLOBS <= globs
            assert "**/*.md" in globs  # the skills' files too

        async with Editor(tmp_path) as s:  # a client that cannot: never asked
            beta = s.open(files["beta"])
            await s.published(beta, version=1)
            assert s.registrations == []

    run(scenario)


def test_a_configuration_changed_on_disk_is_reloaded(tmp_path):
    files = make_project(tmp_path)
    config = tmp_path / ".skilllint.toml"

    async def scenario():
        async with Editor(tmp_path, WATCHING) as s:
            beta = s.open(files["beta"])
            assert codes(await s.published(beta, version=1)) == ["SL310"]

            # Written by another program (git checkout, a terminal): the editor tells the server.
            config.write_text('ignore = ["SL310"]\n', encoding="utf-8")
            s.changed_on_disk((config, lsp.FileChangeType.Created))
            assert codes(await s.next_publication(beta)) == []

            config.write_text('ignore = ["SL1"]\n', encoding="utf-8")
            s.changed_on_disk((config, lsp.FileChangeType.Changed))
            assert codes(await s.next_publication(beta)) == ["SL310"]

            # Broken on disk: said once in the log; no findings, no traceback; then mended.
            config.write_text('ignore = ["SL310"\n', encoding="utf-8")
            s.changed_on_disk((config, lsp.FileChangeType.Changed))
            assert await s.next_publication(beta) == []
            await s.until(lambda: any("invalid TOML" in m.message for m in s.logs), "a log message about the configuration")
            config.unlink()
            s.changed_on_disk((config, lsp.FileChangeType.Deleted))
            assert codes(await s.next_publication(beta)) == ["SL310"]

    run(scenario)


def test_each_document_uses_its_nearest_configuration_as_the_command_line_does(tmp_path):
    """A configuration in a skill's folder, made after the server first looked there (its
    answer, "none here", was kept), is used for that skill's documents once the client says
    it exists, and only for them: as `skilllint check <file>` run at the root uses it."""
    files = make_project(tmp_path)
    (tmp_path / ".skilllint.toml").write_text('ignore = ["SL301"]\n', encoding="utf-8")
    gamma = tmp_path / "skills" / "gamma" / "SKILL.md"
    gamma.parent.mkdir()
    gamma.write_text(GAMMA, encoding="utf-8")
    nested = tmp_path / "skills" / "beta" / ".skilllint.toml"

    def command_line(path: Path) -> list[str]:
        out = skilllint("check", "--output-format", "json", str(path.relative_to(tmp_path)), cwd=tmp_path)
        return sorted(d["code"] for d in json.loads(out.stdout)["diagnostics"] if Path(tmp_path, d["path"]) == path)

    async def scenario():
        async with Editor(tmp_path, WATCHING) as s:
            beta, guide, other = s.open(files["beta"]), s.open(files["guide"]), s.open(gamma)
            assert codes(await s.published(beta, version=1)) == ["SL310"]
            assert codes(await s.published(guide, version=1)) == []  # the root's configuration ignores SL301
            assert "SL301" not in codes(await s.published(other, version=1))

            nested.write_text('ignore = ["SL310"]\n', encoding="utf-8")  # replaces the root's for beta
            sent = s.sent()
            s.changed_on_disk((nested, lsp.FileChangeType.Created))
            assert codes(await s.next_publication(beta, sent)) == [] == command_line(files["beta"])
            assert codes(await s.next_publication(guide, sent)) == ["SL301"] == command_line(files["guide"])
            found = codes(await s.next_publication(other, sent))
            assert "SL301" not in found and found == command_line(gamma)

    run(scenario)


def test_a_skill_file_created_on_disk_relints_the_skill_s_open_documents(tmp_path):
    files = make_project(tmp_path)
    linked = BETA.replace("See [the guide](references/guide.md).", "See [the guide](references/guide.md) and [new](references/new.md).")
    created = files["beta"].parent / "references" / "new.md"

    async def scenario():
        async with Editor(tmp_path, WATCHING) as s:
            alpha = s.open(files["alpha"])
            beta = s.open(files["beta"], linked)
            assert "SL301" in codes(await s.published(beta, version=1))
            await s.published(alpha, version=1)
            alpha_count = len(s.diagnostics[alpha])

            created.write_text("# New\n", encoding="utf-8")  # git checkout brings it
            s.changed_on_disk((created, lsp.FileChangeType.Created))
            assert "SL301" not in codes(await s.next_publication(beta))
            assert len(s.diagnostics[alpha]) == alpha_count  # another skill: not linted again

    run(scenario)


# -- "Disable SLxxx for this line" ------------------------------------------------------------


def test_disable_inserts_a_comment_that_silences_the_finding(tmp_path):
    make_project(tmp_path)
    path = tmp_path / "skills" / "gamma" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(GAMMA, encoding="utf-8")
    emoji = GAMMA.replace("Drafts release", "\U0001f680 Drafts release")

    async def disable_one(s: Editor, uri: str, text: str, code: str) -> str:
        """Ask for the actions at ``code``'s finding, apply its "Disable", relint: the new text."""
        found = await s.published(uri, version=s.versions[uri])
        (diagnostic,) = [d for d in found if d.code == code]
        actions = await s.actions(uri, diagnostic.range, only=[lsp.CodeActionKind.QuickFix])
        (action,) = [a for a in actions if a.title == f"Disable {code} for this line"]
        assert action.kind == lsp.CodeActionKind.QuickFix and not action.is_preferred
        assert [d.code for d in action.diagnostics] == [code]
        text = apply(text, edits_of(action.edit, uri))
        version = s.change(uri, text)
        after = codes(await s.published(uri, version=version))
        assert code not in after
        assert sorted(after + [code]) == codes(found)  # the others stay
        return text

    async def scenario():
        async with Editor(tmp_path) as s:
            uri = s.open(path, emoji)
            text = emoji
            # Body: a comment above the line; then the second code joins that comment (a
            # second comment would take the first one's line).
            text = await disable_one(s, uri, text, "SL301")
            assert "<!-- skilllint-disable-next-line SL301 -->\nSee [x]" in text
            text = await disable_one(s, uri, text, "SL302")
            assert "<!-- skilllint-disable-next-line SL302 SL301 -->\nSee [x]" in text
            # Frontmatter: a YAML comment at the end of the line; then joined.
            text = await disable_one(s, uri, text, "SL104")
            assert "name: Gamma_Skill  # skilllint: disable=SL104\n" in text
            text = await disable_one(s, uri, text, "SL106")
            assert "name: Gamma_Skill  # skilllint: disable=SL106,SL104\n" in text
            # The same on disk: the command line reads the comments as the server did.
            path.write_text(text, encoding="utf-8")
            out = skilllint("check", "--output-format", "json", str(path), cwd=tmp_path)
            assert not {"SL104", "SL106", "SL301", "SL302"} & {d["code"] for d in json.loads(out.stdout)["diagnostics"]}

    run(scenario)


def test_disable_ends_the_line_in_utf16_units_and_is_offered_only_where_comments_are_read(tmp_path):
    files = make_project(tmp_path)
    broken = ALPHA.replace("description: Formats Rust", "description: \U0001f600 Formats: Rust")  # SL005 on line 3
    line = broken.splitlines()[2]
    script = files["alpha"].parent / "scripts" / "run.py"
    script.parent.mkdir()
    script.write_text("import os\n", encoding="utf-8")  # SL304: bundled, never referenced

    async def scenario():
        async with Editor(tmp_path) as s:
            alpha = s.open(files["alpha"], broken)
            (diagnostic,) = [d for d in await s.published(alpha, version=1) if d.code == "SL005"]
            (action,) = [a for a in await s.actions(alpha, diagnostic.range) if a.title.startswith("Disable")]
            (edit,) = edits_of(action.edit, alpha)
            end = lsp.Position(line=2, character=utf16(line))
            assert edit.range == lsp.Range(start=end, end=end) and edit.range.end.character == len(line) + 1
            assert edit.new_text == "  # skilllint: disable=SL005"

            # references/guide.md and a script: skilllint reads no suppression comment there.
            for path, code in ((files["guide"], "SL301"), (script, "SL304")):
                uri = s.open(path)
                (finding,) = [d for d in await s.published(uri, version=1) if d.code == code]
                assert not [a for a in await s.actions(uri, finding.range) if a.title.startswith("Disable")]

    run(scenario)


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        # Inside a fenced block comments are not read: around the block, disable then enable.
        (
            "---\nname: a\n---\n\n```bash\nrun it\n```\nafter\n",
            6,
            "---\nname: a\n---\n\n<!-- skilllint-disable SL999 -->\n```bash\nrun it\n```\n<!-- skilllint-enable SL999 -->\nafter\n",
        ),
        # A block scalar's line: a `#` there would be text of the value. Nothing is offered.
        ("---\nname: a\ndescription: |\n  one\n  two\n---\nbody\n", 4, None),
        # The fences of the frontmatter: a comment there would end it elsewhere.
        ("---\nname: a\n---\nbody\n", 1, None),
        ("---\nname: a\n---\nbody\n", 3, None),
        # CRLF kept, the list item's indentation kept.
        ("---\r\nname: a\r\n---\r\n- item\r\n  more\r\n", 5, "---\r\nname: a\r\n---\r\n- item\r\n  <!-- skilllint-disable-next-line SL999 -->\r\n  more\r\n"),
        # A comment that suppresses another line's finding is not moved off it.
        (
            "body\n<!-- skilllint-disable-next-line SL1 -->\nline\n",
            2,
            "body\n<!-- skilllint-disable-next-line SL999 -->\n<!-- skilllint-disable-next-line SL1 -->\nline\n",
        ),
    ],
    ids=["fenced", "block-scalar", "opening-fence", "closing-fence", "crlf-indented", "comment-line"],
)
def test_disable_proposes_only_a_comment_skilllint_reads_and_that_changes_nothing_else(text, line, expected):
    proposal = disable(text, "SL999", line)
    if expected is None:
        assert proposal is None
        return
    new = text
    for start, end, replacement in sorted(proposal.edits, reverse=True):
        new = new[:start] + replacement + new[end:]
    assert new == expected


# -- "Fix all" --------------------------------------------------------------------------------


@pytest.mark.parametrize("resolves", [False, True], ids=["edit-at-once", "edit-resolved"])
def test_fix_all_gives_what_check_fix_writes_for_the_unsaved_text(tmp_path, resolves):
    files = make_project(tmp_path)
    capabilities = lsp.ClientCapabilities(
        workspace=lsp.WorkspaceClientCapabilities(workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=resolves)),
        text_document=lsp.TextDocumentClientCapabilities(
            code_action=lsp.CodeActionClientCapabilities(
                data_support=True, resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"]) if resolves else None
            )
        ),
    )
    # What `skilllint check --fix` writes for that text, in a copy of the project.
    copy = tmp_path.parent / f"{tmp_path.name}-copy"
    shutil.copytree(tmp_path, copy)
    copied = copy / files["alpha"].relative_to(tmp_path)
    copied.write_bytes(FIXABLE.encode("utf-8"))
    assert skilllint("check", "--fix", str(copied.relative_to(copy)), cwd=copy).returncode in (0, 1)
    expected = copied.read_bytes().decode("utf-8")
    assert expected != FIXABLE and "\r" not in expected

    async def scenario():
        async with Editor(tmp_path, capabilities) as s:
            alpha = s.open(files["alpha"], FIXABLE)  # unsaved: the disk holds ALPHA
            await s.published(alpha, version=1)
            everywhere = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
            (action,) = await s.actions(alpha, everywhere, only=[lsp.CodeActionKind.SourceFixAll])
            assert action.kind == "source.fixAll.skilllint"
            if resolves:
                assert action.edit is None  # left for codeAction/resolve
                action = await s.request(s.client.code_action_resolve_async(action))
            assert apply(FIXABLE, edits_of(action.edit, alpha)) == expected
            if resolves:
                assert action.edit.document_changes[0].text_document.version == 1
            assert files["alpha"].read_text(encoding="utf-8") == ALPHA  # nothing written

            # A text with nothing to fix: no edit.
            version = s.change(alpha, expected)
            await s.published(alpha, version=version)
            actions = await s.actions(alpha, everywhere, only=[lsp.CodeActionKind.SourceFixAll])
            if resolves:
                (action,) = actions
                action = await s.request(s.client.code_action_resolve_async(action))
                assert not action.edit.changes and not action.edit.document_changes
            else:
                assert not actions

    run(scenario)


def test_the_checks_of_one_text_read_a_bounded_amount():
    """Each proposal is checked on the whole text as it would be: a request for every finding
    of a long SKILL.md (a whole-file range) stops proposing once the budget is read, so that
    the server's loop answers in time (each check of this text reads 1 MiB)."""
    text = "---\nname: a\n---\n```\n" + "x\n" * 500_000 + "```\n"
    silencer = Silencer(text)
    proposals = [silencer.disable("SL999", line) for line in range(10, 400_000, 5_000)]
    made = [p for p in proposals if p is not None]
    # The work counted: checks of the whole text stop at the budget (80 requests, 10 checks;
    # unbounded, 80 checks: 8 times the reading).
    assert len(made) == CHECK_BUDGET // len(text) and all(p.title == "Disable SL999 for this code block" for p in made)
