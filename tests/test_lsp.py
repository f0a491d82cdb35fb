"""The language server end to end: `python -m skilllint server` as a subprocess,
driven over stdio by pygls's own LSP client. Every wait is bounded, so a hung
server fails the test instead of blocking the run."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

# pygls is in the `test` extra: a missing pygls fails here rather than skipping the server's tests.
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from conftest import HANG_GUARD
from skilllint.rulebook import rule_folders, rule_page

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
WAIT = HANG_GUARD  # seconds for any one answer: a hang guard (a healthy server needs well under one)

ALPHA = """\
---
name: alpha
description: Formats Rust source files with rustfmt. Use when the user asks to tidy Rust code.
---

# Alpha

Run the formatter.
"""

BETA = """\
---
name: beta
description: Builds release notes from git history. Use when asked to write a changelog.
---

# Beta

See [the guide](references/guide.md).
"""

GUIDE = "# Guide\n\nSee [missing](nothere.md).\n"

BETA_DESCRIPTION = "description: Builds release notes from git history. Use when asked to write a changelog."


def make_project(root: Path) -> dict[str, Path]:
    (root / ".git").mkdir()
    files = {
        "alpha": root / "skills" / "alpha" / "SKILL.md",
        "beta": root / "skills" / "beta" / "SKILL.md",
        "guide": root / "skills" / "beta" / "references" / "guide.md",
    }
    for key, text in (("alpha", ALPHA), ("beta", BETA), ("guide", GUIDE)):
        files[key].parent.mkdir(parents=True, exist_ok=True)
        files[key].write_text(text, encoding="utf-8")
    return files


class Session:
    """A started server, an initialized client, and what the server sent."""

    def __init__(self, root: Path, env: dict[str, str] | None = None, capabilities: lsp.ClientCapabilities | None = None):
        self.root = root
        self.env = env or {}
        self.capabilities = capabilities or lsp.ClientCapabilities()  # what the client says it can do
        self.client = LanguageClient("skilllint-tests", "1")
        self.diagnostics: dict[str, list[lsp.PublishDiagnosticsParams]] = {}
        self.logs: list[lsp.LogMessageParams] = []
        self.shown: list[lsp.ShowMessageParams] = []
        self.changed = asyncio.Event()
        self.versions: dict[str, int] = {}

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics.setdefault(params.uri, []).append(params)
            self.changed.set()

        @self.client.feature(lsp.WINDOW_LOG_MESSAGE)
        def on_log(params: lsp.LogMessageParams) -> None:
            self.logs.append(params)
            self.changed.set()

        @self.client.feature(lsp.WINDOW_SHOW_MESSAGE)
        def on_show(params: lsp.ShowMessageParams) -> None:
            self.shown.append(params)

    async def __aenter__(self) -> "Session":
        path = os.pathsep.join(p for p in (str(ROOT), self.env.get("PYTHONPATH"), os.environ.get("PYTHONPATH")) if p)
        env = {**os.environ, **self.env, "PYTHONPATH": path}
        await self.client.start_io(sys.executable, "-m", "skilllint", "server", cwd=str(self.root), env=env)
        uri = from_fs_path(str(self.root))
        await asyncio.wait_for(
            self.client.initialize_async(
                lsp.InitializeParams(
                    capabilities=self.capabilities,
                    root_uri=uri,
                    workspace_folders=[lsp.WorkspaceFolder(uri=uri, name="project")],
                )
            ),
            WAIT,
        )
        self.client.initialized(lsp.InitializedParams())
        return self

    async def __aexit__(self, *exc) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), WAIT)
            self.client.exit(None)
            await asyncio.wait_for(self.client.stop(), WAIT)
        finally:
            server = self.client._server
            if server is not None and server.returncode is None:
                server.kill()  # the server we started, by its own handle
                await server.wait()
        assert not any("Traceback" in m.message for m in self.logs)
        assert not self.shown, [m.message for m in self.shown]

    # -- documents ---------------------------------------------------------------

    def open(self, path: Path, text: str | None = None) -> str:
        uri = from_fs_path(str(path))
        self.versions[uri] = 1
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(
                    uri=uri, language_id="markdown", version=1, text=path.read_text(encoding="utf-8") if text is None else text
                )
            )
        )
        return uri

    def change(self, uri: str, text: str) -> int:
        """Replace the whole buffer (unsaved); return the new version."""
        self.versions[uri] += 1
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[uri]

    def save(self, uri: str) -> None:
        self.client.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))

    # -- waiting -------------------------------------------------------------------

    async def until(self, predicate, what: str):
        """Wait (bounded) until ``predicate()`` returns something truthy."""
        deadline = time.monotonic() + WAIT
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}; logs: {[m.message for m in self.logs]}")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass

    async def published(self, uri: str, version: int | None = None, count: int = 1) -> list[lsp.Diagnostic]:
        """The latest diagnostics of ``uri`` (for ``version`` when given), once
        at least ``count`` publications arrived."""

        def latest():
            sent = self.diagnostics.get(uri, [])
            if len(sent) < count:
                return None
            last = sent[-1]
            if version is not None and last.version != version:
                return None
            return last

        return list((await self.until(latest, f"diagnostics of {uri} (version {version})")).diagnostics)

    async def request(self, awaitable):
        return await asyncio.wait_for(awaitable, WAIT)


def run(scenario) -> float:
    """Run an async scenario; return its wall time in seconds."""
    start = time.perf_counter()
    asyncio.run(asyncio.wait_for(scenario(), 120))
    return time.perf_counter() - start


def codes(diagnostics) -> list[str]:
    return sorted(d.code for d in diagnostics)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_open_publishes_for_skill_md_and_a_referenced_file(tmp_path):
    files = make_project(tmp_path)

    async def scenario():
        async with Session(tmp_path) as s:
            beta = s.open(files["beta"])
            found = await s.published(beta, version=1)
            assert codes(found) == ["SL310"]
            (d,) = found
            line = BETA.splitlines()[7]
            assert d.range == lsp.Range(
                start=lsp.Position(line=7, character=line.index("references/guide.md")),
                end=lsp.Position(line=7, character=line.index("references/guide.md") + len("references/guide.md")),
            )
            assert d.severity == lsp.DiagnosticSeverity.Warning
            assert d.source == "skilllint"
            assert "targets:" in d.message
            folder = rule_folders()["SL310"]
            assert d.code_description.href == from_fs_path(str(folder / "README.md"))
            assert (folder / "README.md").is_file()

            # The referenced file gets the findings whose path is that file, and only those.
            guide = s.open(files["guide"])
            found = await s.published(guide, version=1)
            assert codes(found) == ["SL301"]
            assert found[0].severity == lsp.DiagnosticSeverity.Error
            assert found[0].range.start == lsp.Position(line=2, character=GUIDE.splitlines()[2].index("nothere.md"))

            # A file outside every skill gets an empty publication, not an error.
            stray = tmp_path / "notes.md"
            stray.write_text("# Notes\n", encoding="utf-8")
            assert await s.published(s.open(stray), version=1) == []

    print(f"\nLSP open scenario: {run(scenario):.2f} s")


def test_change_lints_the_unsaved_buffer_and_offers_the_fix(tmp_path):
    files = make_project(tmp_path)
    broken = ALPHA.replace(
        "description: Formats Rust",
        "description: 😀 Formats: Rust",  # `: ` in a plain scalar is a YAML error (SL005, safe fix)
    )
    line = broken.splitlines()[2]

    async def scenario():
        async with Session(tmp_path) as s:
            alpha = s.open(files["alpha"])
            assert await s.published(alpha, version=1) == []

            version = s.change(alpha, broken)
            found = await s.published(alpha, version=version)
            assert "SL005" in codes(found)
            assert files["alpha"].read_text(encoding="utf-8") == ALPHA  # linted from the buffer, disk untouched

            # The quick fix quotes the value; its range counts UTF-16 units (the emoji is two).
            (diagnostic,) = [d for d in found if d.code == "SL005"]
            actions = await s.request(
                s.client.text_document_code_action_async(
                    lsp.CodeActionParams(
                        text_document=lsp.TextDocumentIdentifier(uri=alpha),
                        range=diagnostic.range,
                        context=lsp.CodeActionContext(diagnostics=[diagnostic]),
                    )
                )
            )
            # (beside it: "Disable SL005 for this line" and "Fix all": tests/test_lsp_reload.py)
            (action,) = [a for a in actions if a.is_preferred]
            assert action.kind == lsp.CodeActionKind.QuickFix
            assert action.is_preferred and "SL005" in action.title
            (edit,) = action.edit.changes[alpha]
            value = line[len("description: ") :]
            assert edit.range == lsp.Range(
                start=lsp.Position(line=2, character=len("description: ")),
                end=lsp.Position(line=2, character=len("description: ") + utf16(value)),
            )
            assert edit.range.end.character == len(line) + 1  # one more unit than code points
            fixed_line = line[: len("description: ")] + edit.new_text
            fixed = broken.replace(line, fixed_line)

            # No action where no finding carries a fix.
            none = await s.request(
                s.client.text_document_code_action_async(
                    lsp.CodeActionParams(
                        text_document=lsp.TextDocumentIdentifier(uri=alpha),
                        range=lsp.Range(start=lsp.Position(line=6, character=0), end=lsp.Position(line=6, character=3)),
                        context=lsp.CodeActionContext(diagnostics=[]),
                    )
                )
            )
            assert not [a for a in none if a.kind == lsp.CodeActionKind.QuickFix]

            version = s.change(alpha, fixed)
            assert "SL005" not in codes(await s.published(alpha, version=version))

            # Save: the disk's text is linted too (the editor wrote it, then tells the server).
            files["alpha"].write_text(broken, encoding="utf-8")
            s.change(alpha, broken)
            s.save(alpha)
            assert "SL005" in codes(await s.published(alpha, version=s.versions[alpha]))

    print(f"\nLSP change/fix scenario: {run(scenario):.2f} s")


def test_description_change_republishes_the_open_sibling(tmp_path):
    files = make_project(tmp_path)
    same = ALPHA.replace(ALPHA.splitlines()[2], BETA_DESCRIPTION)

    async def scenario():
        async with Session(tmp_path) as s:
            alpha = s.open(files["alpha"])
            beta = s.open(files["beta"])
            assert codes(await s.published(beta, version=1)) == ["SL310"]
            published = len(s.diagnostics[beta])

            # Alpha's unsaved description now repeats beta's: beta, untouched, gets SL510.
            version = s.change(alpha, same)
            assert "SL510" in codes(await s.published(alpha, version=version))
            found = await s.published(beta, count=published + 1)
            assert codes(found) == ["SL310", "SL510"]
            (overlap,) = [d for d in found if d.code == "SL510"]
            assert overlap.range.start.line == 2  # beta's own description
            assert "alpha" in overlap.message

            # Editing beta now still sees alpha's unsaved buffer in the catalog.
            version = s.change(beta, BETA + "\nMore.\n")
            assert codes(await s.published(beta, version=version)) == ["SL310", "SL510"]

            # Closing alpha unsaved: the disk's description counts again, and beta is told.
            published = len(s.diagnostics[beta])
            s.close(alpha)
            assert await s.published(alpha, count=len(s.diagnostics[alpha]) + 1) == []
            assert codes(await s.published(beta, count=published + 1)) == ["SL310"]

    print(f"\nLSP catalog scenario: {run(scenario):.2f} s")


def test_hover_shows_the_rule_book_page(tmp_path):
    files = make_project(tmp_path)
    commented = BETA.replace("name: beta", "name: beta  # skilllint: disable=SL106")

    async def scenario():
        async with Session(tmp_path) as s:
            beta = s.open(files["beta"], commented)
            await s.published(beta, version=1)
            line = commented.splitlines()[1]
            column = line.index("SL106") + 2
            hover = await s.request(
                s.client.text_document_hover_async(
                    lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=beta), position=lsp.Position(line=1, character=column))
                )
            )
            assert hover.contents.kind == lsp.MarkupKind.Markdown
            # the code's page, then SL901's: `name` matches the folder, so the comment suppresses nothing
            assert hover.contents.value == rule_page("SL106").rstrip() + "\n\n---\n\n" + rule_page("SL901").rstrip()
            assert hover.range.start == lsp.Position(line=1, character=line.index("SL106"))

            # Hover inside a diagnostic's range: that rule's page.
            guide_at = commented.splitlines()[7].index("guide.md")
            hover = await s.request(
                s.client.text_document_hover_async(
                    lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=beta), position=lsp.Position(line=7, character=guide_at))
                )
            )
            assert hover.contents.value == rule_page("SL310").rstrip()

            # Elsewhere: nothing.
            hover = await s.request(
                s.client.text_document_hover_async(
                    lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=beta), position=lsp.Position(line=5, character=1))
                )
            )
            assert hover is None

    print(f"\nLSP hover scenario: {run(scenario):.2f} s")


def test_configuration_is_discovered_reloaded_on_save_and_errors_are_logged(tmp_path):
    files = make_project(tmp_path)
    config = tmp_path / ".skilllint.toml"
    config.write_text('ignore = ["SL310"]\n', encoding="utf-8")

    async def scenario():
        async with Session(tmp_path) as s:
            beta = s.open(files["beta"])
            assert await s.published(beta, version=1) == []  # the project's configuration applies

            # A broken configuration, saved: a log message, no diagnostics, no traceback, still serving.
            config_uri = s.open(config)
            config.write_text('ignore = ["SL310"\n', encoding="utf-8")
            s.change(config_uri, config.read_text(encoding="utf-8"))
            published = len(s.diagnostics[beta])
            s.save(config_uri)
            assert await s.published(beta, count=published + 1) == []
            message = await s.until(
                lambda: next((m for m in s.logs if "invalid TOML" in m.message), None), "a log message about the configuration"
            )
            assert message.type == lsp.MessageType.Error

            # Fixed and saved: reloaded, and the finding it no longer ignores appears.
            config.write_text('ignore = ["SL301"]\n', encoding="utf-8")
            s.change(config_uri, config.read_text(encoding="utf-8"))
            published = len(s.diagnostics[beta])
            s.save(config_uri)
            assert codes(await s.published(beta, count=published + 1)) == ["SL310"]

    print(f"\nLSP configuration scenario: {run(scenario):.2f} s")


def test_excluded_skills_are_left_alone(tmp_path):
    files = make_project(tmp_path)
    (tmp_path / ".skilllint.toml").write_text('exclude = ["skills/beta/"]\n', encoding="utf-8")

    async def scenario():
        async with Session(tmp_path) as s:
            beta = s.open(files["beta"])
            assert await s.published(beta, version=1) == []
            await s.until(lambda: any("excluded" in m.message for m in s.logs), "a note that beta is excluded")

            # Typing in it stays quiet: no finding, and the note is not repeated.
            version = s.change(beta, BETA.replace("name: beta", "name: Beta_Skill"))
            assert await s.published(beta, version=version) == []
            assert sum("excluded" in m.message for m in s.logs) == 1

    print(f"\nLSP exclude scenario: {run(scenario):.2f} s")


def test_server_verb_without_pygls_says_how_to_install(tmp_path):
    """`skilllint server` when pygls cannot be imported: exit 2 and a hint, no traceback."""
    import subprocess

    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "pygls").mkdir()
    (blocker / "pygls" / "__init__.py").write_text("raise ImportError('pygls hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "skilllint", "server"], input="", capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 2
    # the hint names the lsp extra's own requirement (PyPI's `skilllint` is another project)
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    (requirement,) = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["lsp"]
    assert f"pip install '{requirement}'" in done.stderr and "skilllint[" not in done.stderr
    assert "Traceback" not in done.stderr


def test_hostile_buffers_give_findings_not_errors(tmp_path):
    files = make_project(tmp_path)
    hostile = "---\r\nname: alpha\x00\rdescription: [unclosed\r\nx: *nowhere\n---\n\n\ud7ff😀\x0c body\u2028line\n"

    async def scenario():
        async with Session(tmp_path) as s:
            alpha = s.open(files["alpha"], hostile)
            found = await s.published(alpha, version=1)
            assert {"SL005", "SL009"} <= set(codes(found))  # as `skilllint check` reports the same bytes
            (nul,) = [d for d in found if d.code == "SL009"]
            assert nul.range.start == lsp.Position(line=1, character=len("name: alpha"))
            version = s.change(alpha, "")
            assert "SL003" in codes(await s.published(alpha, version=version))
            hover = await s.request(
                s.client.text_document_hover_async(
                    lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=alpha), position=lsp.Position(line=40, character=9))
                )
            )
            assert hover is None
            assert not [m.message for m in s.logs if m.type == lsp.MessageType.Error]

    print(f"\nLSP hostile-input scenario: {run(scenario):.2f} s")


# -- the process, driven with raw frames -----------------------------------------------------


def frame(message: dict | bytes) -> bytes:
    """One LSP message as it goes down the pipe: a Content-Length header, a blank line, the JSON."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(number: int, method: str, params=None) -> bytes:
    return frame({"jsonrpc": "2.0", "id": number, "method": method, "params": params})


def notification(method: str, params=None) -> bytes:
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


HELLO = request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}) + notification("initialized", {})


def start_server(cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """`python -m skilllint server` with pipes on all three streams."""
    path = os.pathsep.join(p for p in (str(ROOT), (env or {}).get("PYTHONPATH"), os.environ.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-m", "skilllint", "server"],
        cwd=cwd,
        env={**os.environ, **(env or {}), "PYTHONPATH": path},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def messages_in(output: bytes) -> list[dict]:
    """The messages a server wrote, in order."""
    found = []
    while output:
        header, _, rest = output.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n") if line.lower().startswith(b"content-length:"))
        found.append(json.loads(rest[:length]))
        output = rest[length:]
    return found


@pytest.mark.parametrize(
    ("ending", "status"),
    [
        (request(2, "shutdown") + notification("exit"), 0),
        (notification("exit"), 1),  # exit without shutdown
        (request(2, "shutdown"), 0),  # the client closes the pipe after shutdown
        (b"", 1),  # ... or without it
    ],
    ids=["shutdown-exit", "exit-alone", "shutdown-then-eof", "eof-alone"],
)
def test_exit_status_is_the_specification_s(tmp_path, ending, status):
    """LSP: exit ends the process with 0 after a shutdown request, else 1. A client that
    just goes away counts as an exit (with or without the shutdown it sent)."""
    server = start_server(tmp_path)
    out, err = server.communicate(HELLO + ending, timeout=120)
    assert server.returncode == status, err.decode(errors="replace")
    assert b"Traceback" not in err, err.decode(errors="replace")
    answers = {m.get("id"): m for m in messages_in(out) if "id" in m}
    assert "capabilities" in answers[1]["result"]
    if b"shutdown" in ending:
        assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": None}
