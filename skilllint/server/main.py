"""``skilllint server``: a language server over stdio (pygls 2, extra ``lsp``).

What it does, per open document of a skill (SKILL.md or any file of the
package, such as ``references/x.md``):

* lints the package holding it on open, on save and (debounced) on change,
  reading every open document from its editor buffer, saved or not
  (:func:`skilllint.fsafe.overlay`), and publishes the findings whose path is
  that document;
* re-runs the catalog rules (SL5xx) over the project's skills each time, and
  republishes the open documents of sibling skills whose catalog findings
  changed (a description edited in one skill can overflow the others' budget);
* offers each safe fix a finding carries as a quick fix code action, and for a
  finding in SKILL.md "Disable SLxxx for this line": the suppression comment
  skilllint reads there (:mod:`skilllint.app.suppress_edit`);
* offers "Fix all" (``source.fixAll.skilllint``): the safe fixes of the document's
  text as ``skilllint check --fix`` applies them, pass after pass, as one edit
  (computed when the client resolves the action, where it can);
* shows the rule-book page on hover of a rule code in a suppression comment
  (``# skilllint: disable=SL106``, ``<!-- skilllint-disable SL310 -->``) and on
  hover of a diagnostic's range.

The project of a document is the deepest of its workspace folder and its
repository (the nearest folder with ``.git``), else the skill's own folder:
the server lints as ``skilllint check <document>`` run there would: the
document's configuration is the nearest one from its folder up to its
repository's root (:func:`skilllint.app.trees.config_for`), else the project's;
excluded skills are left alone. A configuration file (or ``.gitignore``) saved
in the editor, or changed on disk where the client watches files for the server
(``workspace/didChangeWatchedFiles``, registered when the client can), reloads
every configuration and relints the open documents; a skill's file changed on
disk relints the open documents of that skill (and, for a SKILL.md, of its
project: the catalogs). Errors never reach the client as a traceback: they become
``window/logMessage`` (the traceback, when there is one, goes to stderr, which
editors keep in their language-server log). Reading and writing messages is
:mod:`skilllint.server.io`; a project's model :mod:`skilllint.server.project`; findings
as LSP diagnostics :mod:`skilllint.server.convert`; code actions and hover
:mod:`skilllint.server.features`; files changed on disk :mod:`skilllint.server.watch`;
what a lint's process runs :mod:`skilllint.server.worker`. This module holds the
protocol's handlers and the lints' scheduling.

Linting runs in a forked process (:class:`skilllint.lint.parallel.Forked`), one per
package at a time, so the event loop answers every request meanwhile, however
long a lint takes: a thread would not do, as a regular expression or any other
C code holds the interpreter lock until it returns. A newer text of a document
kills the lint of its package under way and its findings are never published;
a lint that fails or dies is logged and the server goes on. Where a process
cannot fork (not Linux, or stdin read by a thread), lints run one at a time in
a thread: the loop stays free while they run Python code, and a stale result is
dropped. So that each forked lint starts warm, the server builds once what lints
share (modules, patterns, the tokenizer once a lint needed it) and keeps what they
read of the skills no editor has open.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Iterable

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path, uri_scheme
from pygls.workspace import PositionCodec

from .. import __version__
from ..config.settings import CONFIG_NAMES, ConfigError, settings_from
from ..diagnostics import Diagnostic
from ..discovery.walk import DiscoveryError, package_of_file
from ..fsafe import is_within
from ..skill.package import SkillPackage
from ..lint.parallel import ForkFailed, Forked, can_fork, usable_cpus
from ..app.trees import config_for
from .convert import Conversions
from .features import FIX_ALL, Features
from .project import Project, norm, split_lines
from .watch import DiskChanges
from .worker import lint_in_worker, warm_up, warm_up_tokenizer


DEBOUNCE_SECONDS = 0.2
WARM_UP_WAIT = 60.0  # seconds a lint waits for the warm-up; after that it runs in a thread


class SkillLintServer(Features, Conversions, DiskChanges, LanguageServer):
    def __init__(self) -> None:
        super().__init__("skilllint", __version__)
        self.projects: dict[tuple[str, str | None], Project] = {}  # (root, configuration file) -> project
        # (project root, a document's folder) -> (configuration file, its path and keys, came with the tree),
        # or the error reading it; and find_config's memo: both dropped when a configuration changes
        self.configs: dict[tuple[str, str], tuple | ConfigError] = {}
        self.config_memo: dict = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        # uri -> (document version, [(finding, its LSP diagnostic)]) as last published
        self.published: dict[str, tuple[int | None, list[tuple[Diagnostic, lsp.Diagnostic]]]] = {}
        self._registry = None
        self.lints: dict[tuple[tuple, str], asyncio.Task] = {}  # (project id, package) -> its lint under way
        self.package_of: dict[str, tuple[tuple, str]] = {}  # uri -> (project id, package), as last linted
        self.lints_started = 0
        self.shut_down = False
        self._slots = asyncio.Semaphore(max(1, usable_cpus()))  # lints at a time
        self._lint_thread: ThreadPoolExecutor | None = None
        self.warming: threading.Thread | None = None  # see warm_up

    # -- plumbing ------------------------------------------------------------------

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Error) -> None:
        try:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=f"skilllint: {message}"))
        except Exception:  # noqa: BLE001 - no client to tell; stderr is all that is left
            print(f"skilllint: {message}", file=sys.stderr)

    def failed(self, what: str, exc: BaseException) -> None:
        """An unexpected error: one line to the client, the traceback to stderr."""
        self.log(f"internal error while {what}: {type(exc).__name__}: {exc} (please report this bug)")
        traceback.print_exc(file=sys.stderr)

    def report_server_error(self, error: Exception, source) -> None:  # pygls: errors outside our handlers
        self.log(f"{type(error).__name__}: {error}")

    @property
    def registry(self):
        if self._registry is None:
            from ..registry import registry

            self._registry = registry()
            for problem in self._registry.plugin_errors:
                self.log(problem, lsp.MessageType.Warning)
        return self._registry

    def codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def open_documents(self) -> dict[str, object]:
        """uri -> TextDocument for every open ``file:`` document."""
        return {uri: doc for uri, doc in self.workspace.text_documents.items() if uri_scheme(uri) == "file"}

    def overlay(self) -> dict[str, bytes]:
        """Every open document's buffer, by its path and its real path."""
        contents: dict[str, bytes] = {}
        for doc in self.open_documents().values():
            data = doc.source.encode("utf-8", errors="replace")
            contents[norm(doc.path)] = data
            contents[os.path.realpath(doc.path)] = data
        return contents

    # -- projects ------------------------------------------------------------------

    def project_root(self, path: Path, owner: Path) -> Path:
        candidates = []
        roots = [to_fs_path(uri) for uri in self.workspace.folders]
        roots.append(self.workspace.root_path)
        for root in roots:
            if root and is_within(Path(norm(root)), path):
                candidates.append(Path(norm(root)))
        for folder in (owner, *owner.parents):
            if os.path.lexists(folder / ".git"):
                candidates.append(folder)
                break
        if not candidates:
            return owner
        return max(candidates, key=lambda folder: len(folder.parts))

    def project(self, root: Path, path: Path) -> Project:
        """The project of the document at ``path``: its root, and the configuration the
        document uses (as ``skilllint check <path>`` run at ``root`` would choose it)."""
        where = (str(root), os.path.dirname(str(path)))
        chosen = self.configs.get(where)
        if chosen is None:
            try:
                found, from_tree = config_for(str(path), root, self.config_memo)
                chosen = (str(found[0]) if found else None, found, from_tree)
            except ConfigError as exc:
                chosen = exc
                self.log(f"{exc} (fix the configuration and save it)")
            self.configs[where] = chosen
        if isinstance(chosen, ConfigError):
            return Project(root, error=str(chosen))
        name, found, from_tree = chosen
        project = self.projects.get((str(root), name))
        if project is None:
            project = self.projects[(str(root), name)] = Project(root, name)
            try:
                settings = settings_from(self.registry, found, root, from_tree=from_tree)
            except ConfigError as exc:
                project.error = str(exc)
                self.log(f"{exc} (fix the configuration and save it)")
                return project
            project.settings = settings
            rules = [rule() for rule in settings.enabled_rules()]
            project.package_rules = [r for r in rules if not r.catalog_rule]
            project.catalog_rules = [r for r in rules if r.catalog_rule]
            project.max_bytes = settings.read_cap()
        return project

    def reset(self) -> None:
        """Forget settings, which configuration each folder uses, and discovery (a
        configuration file was saved, or changed on disk)."""
        self.stop_all_lints()
        self.projects.clear()
        self.configs.clear()
        self.config_memo.clear()

    def reload(self) -> None:
        """A configuration changed: read them all again and relint every open document."""
        self.reset()
        for uri in list(self.open_documents()):
            self.lint_now(uri)

    # -- linting -------------------------------------------------------------------

    def locate(self, path: Path) -> tuple[Project, str] | None:
        """The project and discovered package of a file, or None."""
        owner = package_of_file(path)
        if owner is None:
            return None
        owner = Path(norm(owner))
        project = self.project(self.project_root(path, owner), path)
        if project.settings is None:
            return None
        key = project.key_of(owner)
        if str(owner) in project.excluded:
            return None
        if key is None:  # not seen yet: a new skill, or one the configuration excludes
            try:
                for warning in project.discover():
                    self.log(warning, lsp.MessageType.Warning)
            except DiscoveryError as exc:
                self.log(str(exc))
                return None
            key = project.key_of(owner)
        if key is None:
            project.excluded.add(str(owner))
            self.log(f"{owner}: not linted (excluded by the configuration or .gitignore of {project.root})", lsp.MessageType.Info)
            return None
        return project, key

    def lint(self, uri: str) -> None:
        """Start linting the package holding ``uri``, stopping a lint of it under way;
        what changed is published when it is done."""
        fs_path = to_fs_path(uri) if uri_scheme(uri) == "file" else None
        located = self.locate(Path(norm(fs_path))) if fs_path else None  # untitled buffers: nothing to lint
        if located is None:
            if uri in self.workspace.text_documents:
                self.publish(uri, [])
            return
        project, key = located
        job = (project.id, key)
        self.package_of[uri] = job
        self.stop_lint(job)
        self.lints[job] = asyncio.get_running_loop().create_task(self.run_lint(project, key, job))

    def stop_lint(self, job: tuple[tuple, str] | None) -> None:
        """Stop the lint of a (project id, package) under way, if any: its findings are never published."""
        task = self.lints.pop(job, None) if job is not None else None
        if task is not None:
            task.cancel()  # kills its process: see Forked.result

    def stop_all_lints(self) -> None:
        for job in list(self.lints):
            self.stop_lint(job)

    async def run_lint(self, project: Project, key: str, job: tuple[tuple, str]) -> None:
        try:
            async with self._slots:
                await self.warmed()
                # The texts as they are when the lint starts: a change after this stops it.
                versions = {uri: doc.version for uri, doc in self.open_documents().items()}
                self.lints_started += 1
                number = self.lints_started
                work = partial(lint_in_worker, project, key, self.catalog_packages(project, key), self.overlay())
                try:
                    found = await self.in_worker(work)
                except ForkFailed as exc:
                    self.log(f"internal error while linting {project.found[key].root}: {exc} (please report this bug)")
                    return
            self.apply(project, key, number, versions, found)
        except Exception as exc:  # noqa: BLE001 - the editor gets a log line, never a traceback
            self.failed(f"linting {key}", exc)
        finally:
            if self.lints.get(job) is asyncio.current_task():
                del self.lints[job]

    def warm(self, function) -> None:
        """Run ``function`` in a thread unless one runs already (see warm_up)."""
        if self.warming is None or not self.warming.is_alive():
            self.warming = threading.Thread(target=function, name="skilllint-warm-up", daemon=True)
            self.warming.start()

    async def warmed(self) -> None:
        """Wait (a while) for the warm-up thread to end: a process forks only when it has
        no other thread (a fork copies only the thread that forks; see can_fork)."""
        thread = self.warming
        if thread is None:
            return
        deadline = asyncio.get_running_loop().time() + WARM_UP_WAIT
        while thread.is_alive() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        if not thread.is_alive():
            thread.join()
            self.warming = None

    async def in_worker(self, work):
        """``work()`` away from the event loop: in a forked process, else in a thread."""
        if can_fork():
            from .io import close_protocol_in_child

            return await Forked(work, in_child=close_protocol_in_child).result()
        if self._lint_thread is None:
            self._lint_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skilllint-lint")
        return await asyncio.get_running_loop().run_in_executor(self._lint_thread, work)

    def apply(self, project: Project, key: str, number: int, versions: dict, found: dict) -> None:
        """Keep what a lint (``number``, from :func:`lint_in_worker`) found and publish it to
        the open documents it concerns whose text has not changed since it started (a
        newer lint comes for those)."""
        from ..skill.size import tokens
        from ..lint.cache.entries import decode

        if found["tokenizer"] and not tokens.encoding_loaded():
            self.warm(warm_up_tokenizer)
        project.remember(found["entries"], found["kept"])
        paths: dict = {}
        project.package_diagnostics[key] = [decode(item, paths) for item in found["package"]]
        changed: set[str] = set()
        if found["catalog"] is not None and number > project.catalog_from_lint:
            catalog = [decode(item, paths) for item in found["catalog"]]
            changed = _changed_paths(project.catalog, catalog)
            project.catalog, project.catalog_from_lint = catalog, number
        for error in found["errors"]:
            first, _, rest = error.partition("\n")
            self.log(f"{first} (please report this bug)")
            if rest:
                print(rest, file=sys.stderr)
        for uri, doc in self.open_documents().items():
            if versions.get(uri, -1) != doc.version:
                continue
            doc_path = norm(doc.path)
            owner = package_of_file(Path(doc_path))
            if owner is None:
                continue
            if (project.key_of(Path(norm(owner))) == key or doc_path in changed or os.path.realpath(doc_path) in changed) and self.belongs(
                doc_path, project
            ):
                self.publish_document(uri, project)

    def catalog_packages(self, project: Project, key: str) -> list[tuple[str, SkillPackage | None]]:
        """(package key, package) of each skill of the project for the catalogs: None for
        the one linted, read afresh where a document is open (its buffer may have changed),
        else kept while the skill is unchanged on disk. Loads the configured roots of
        installed skills once per settings load."""
        if not project.catalog_rules:
            return []
        overlaid = {project.key_of(Path(norm(owner))) for owner in self.open_owners()}
        packages: list[tuple[str, SkillPackage | None]] = []
        for other, found in (project.found or {}).items():
            if other == key:
                packages.append((other, None))
            elif other in overlaid:
                packages.append((other, SkillPackage(found.root, found.lint_root, max_bytes=project.max_bytes)))
            else:
                stamp = _stamp(found.root)
                cached = project.packages.get(other)
                if cached is None or cached[0] != stamp:
                    cached = project.packages[other] = (stamp, SkillPackage(found.root, found.lint_root, max_bytes=project.max_bytes))
                packages.append((other, cached[1]))
        if project.installed is None:  # configured roots of installed skills, read once per settings load
            from ..lint.catalog_context import configured_roots, load_roots

            taken = {os.path.realpath(p.root) for _, p in packages if p is not None}
            taken.add(os.path.realpath(project.found[key].root))
            project.installed, notes = load_roots(configured_roots(project.settings), project.settings, project.max_bytes, taken)
            for note in notes:
                self.log(note, lsp.MessageType.Warning)
        return packages

    def open_owners(self) -> set[str]:
        owners = set()
        for doc in self.open_documents().values():
            owner = package_of_file(Path(norm(doc.path)))
            if owner is not None:
                owners.add(str(owner))
        return owners

    def belongs(self, doc_path: str, project: Project) -> bool:
        """Whether the document at ``doc_path`` is linted in ``project``: a skill of it, and
        the configuration it uses is the project's."""
        owner = package_of_file(Path(doc_path))
        if owner is None or project.key_of(Path(norm(owner))) is None:
            return False
        owner = Path(norm(owner))
        return self.project(self.project_root(Path(doc_path), owner), Path(doc_path)) is project

    def publish_document(self, uri: str, project: Project) -> None:
        """Publish the known findings of one open document (relinting its package if never linted)."""
        doc_path = norm(to_fs_path(uri) or "")
        owner = package_of_file(Path(doc_path))
        key = project.key_of(Path(norm(owner))) if owner else None
        if key is None:
            self.publish(uri, [])
            return
        if key not in project.package_diagnostics:
            if (project.id, key) not in self.lints:
                self.lint(uri)
            return
        real = os.path.realpath(doc_path)
        mine = [
            d
            for d in (*project.package_diagnostics[key], *project.catalog)
            if norm(d.path) == doc_path or os.path.realpath(d.path) == real
        ]
        mine.sort(key=Diagnostic.sort_key)
        self.publish(uri, mine)

    def publish(self, uri: str, diagnostics: list[Diagnostic]) -> None:
        doc = self.workspace.text_documents.get(uri)
        version = doc.version if doc is not None else None
        lines = split_lines(doc.source) if doc is not None else []
        converted = [(d, self.to_lsp(d, lines)) for d in diagnostics]
        self.published[uri] = (version, converted)
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[c for _, c in converted], version=version)
        )

    def schedule(self, uri: str) -> None:
        """Lint after a pause in typing: one lint for a burst of changes. The lint of the
        document's package under way reads a text that is no more: it stops now."""
        self.stop_lint(self.package_of.get(uri))
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(DEBOUNCE_SECONDS, self.run_pending, uri)

    def run_pending(self, uri: str) -> None:
        self.pending.pop(uri, None)
        if uri in self.workspace.text_documents:
            self.safely(f"linting {uri}", self.lint, uri)

    def lint_now(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.safely(f"linting {uri}", self.lint, uri)

    def safely(self, what: str, function, *args, default=None):
        try:
            return function(*args)
        except Exception as exc:  # noqa: BLE001 - the editor gets a log line, never a traceback
            self.failed(what, exc)
            return default


def _stamp(root: Path) -> tuple:
    """What tells an unopened sibling changed on disk: the folder and its SKILL.md."""
    stamp = []
    for path in (root, root / "SKILL.md"):
        try:
            info = os.stat(path)
        except OSError:
            stamp.append(None)
            continue
        stamp.append((info.st_ino, info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def _changed_paths(old: Iterable[Diagnostic], new: Iterable[Diagnostic]) -> set[str]:
    """Paths whose catalog findings differ between two runs."""

    def by_path(diagnostics: Iterable[Diagnostic]) -> dict[str, set]:
        table: dict[str, set] = {}
        for d in diagnostics:
            table.setdefault(norm(d.path), set()).add((d.code, d.message, d.span, d.severity, d.targets))
        return table

    before, after = by_path(old), by_path(new)
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    return changed | {os.path.realpath(path) for path in changed}


def build_server() -> SkillLintServer:
    server = SkillLintServer()

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: SkillLintServer, params: lsp.InitializedParams) -> None:
        ls.safely("asking the client to watch files", ls.watch_files)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: SkillLintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.safely("reading files changed on disk", ls.files_changed, params)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SkillLintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.lint_now(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SkillLintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.safely("scheduling a lint", ls.schedule, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
    def did_save(ls: SkillLintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        name = os.path.basename(to_fs_path(uri) or "")
        if name in CONFIG_NAMES or name == ".gitignore":
            ls.reload()
            return
        ls.lint_now(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SkillLintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        ls.published.pop(uri, None)
        ls.package_of.pop(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        # Its buffer no longer counts: the disk's text does again, for the open siblings.
        if ls.open_documents():
            ls.safely(f"relinting after closing {uri}", ls.lint, uri)
        else:
            ls.stop_all_lints()  # nothing left to publish to

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: SkillLintServer, params: None) -> None:
        ls.shut_down = True
        for handle in ls.pending.values():
            handle.cancel()
        ls.pending.clear()
        ls.stop_all_lints()

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True),
    )
    async def code_action(ls: SkillLintServer, params: lsp.CodeActionParams):
        try:
            return await ls.code_actions(params)
        except Exception as exc:  # noqa: BLE001 - the editor gets a log line, never a traceback
            ls.failed("computing code actions", exc)
            return []

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: SkillLintServer, params: lsp.CodeAction):
        try:
            return await ls.resolve_code_action(params)
        except Exception as exc:  # noqa: BLE001 - see above
            ls.failed("resolving a code action", exc)
            return params

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: SkillLintServer, params: lsp.HoverParams):
        return ls.safely("computing a hover", ls.hover, params)

    return server


def main() -> int:
    """Serve on stdin and stdout. The exit status is the LSP specification's: 0 after
    ``shutdown`` then ``exit``; 1 for ``exit`` without ``shutdown``, or when the client
    closes the input without them."""
    from .io import run_stdio

    server = build_server()
    server.warm(warm_up)
    try:
        code = run_stdio(server, lambda message: server.log(message))
    except BrokenPipeError:  # the client went away while we wrote
        code = None
    return code if code is not None else (0 if server.shut_down else 1)
