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
:mod:`skilllint.server_io`.

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
import bisect
import functools
import os
import re
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Iterable

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path, uri_scheme
from pygls.workspace import PositionCodec

from . import __version__, fsafe
from .config import CONFIG_NAMES, ConfigError, Settings
from .diagnostics import Diagnostic, Severity, Span
from .skill.discovery import DiscoveryError, Found, discover, package_of_file
from .fsafe import UnsafeFile, is_within, read_capped
from .skill.package import SkillPackage
from .lint.parallel import ForkFailed, Forked, can_fork, usable_cpus
from .app.trees import config_for, tree_settings

SOURCE = "skilllint"
DEBOUNCE_SECONDS = 0.2
MAX_KEPT_ANSWERS = 4096  # catalog answers kept per project: one per catalog (a folder and a target) and threshold
WARM_UP_WAIT = 60.0  # seconds a lint waits for the warm-up; after that it runs in a thread
_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}
_CODE = re.compile(r"\b[A-Z]{1,5}[0-9]{3,4}\b")
FIX_ALL = "source.fixAll.skilllint"
MAX_DISABLE_ACTIONS = 16  # "Disable" actions per request: each reads the document over (a whole-file range asks for all)
WATCHED_CONFIGURATION = ["**/.skilllint.toml", "**/skilllint.toml", "**/pyproject.toml", "**/.gitignore"]
# The files of a skill a change on disk (git checkout, a generator) can matter to: Markdown
# anywhere (SKILL.md, what it links), agents/openai.yaml and the folders the spec names.
WATCHED_SKILL_FILES = ["**/*.md", "**/agents/openai.yaml", "**/references/**", "**/scripts/**", "**/assets/**"]
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def norm(path: str | Path) -> str:
    return os.path.normpath(os.path.abspath(path))


def split_lines(text: str) -> list[str]:
    """Lines as LSP (and skilllint) count them: \\n, \\r\\n and \\r end a line."""
    return _LINE_BREAK.split(text)


@dataclass
class Project:
    """Where documents are linted from: settings, the skills found, caches."""

    root: Path
    config: str | None = None  # the configuration file (None: the defaults)
    settings: Settings | None = None
    error: str | None = None
    found: dict[str, Found] | None = None  # normalised package root -> discovery entry
    real: dict[str, str] = field(default_factory=dict)  # real path -> normalised root
    package_rules: list = field(default_factory=list)
    catalog_rules: list = field(default_factory=list)
    max_bytes: int = fsafe.DEFAULT_MAX_BYTES
    packages: dict[str, tuple[tuple, SkillPackage]] = field(default_factory=dict)  # unopened siblings, by stamp
    package_diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    catalog: list[Diagnostic] = field(default_factory=list)
    catalog_from_lint: int = 0  # the number of the lint that found ``catalog``: an older one's never replaces it
    # (skill folder, target) -> (its files' stamps, its catalog entry): what lints in other
    # processes read of the skills no editor has open, kept here for the next lint
    entries: dict[tuple[str, str], tuple[str, list | None]] = field(default_factory=dict)
    kept: dict = field(default_factory=dict)  # catalog rules' costly answers (RuleContext.kept), the same way
    excluded: set[str] = field(default_factory=set)  # skill folders discovery leaves out (until a reload)
    installed: list | None = None  # skills of configured catalog roots (None: not loaded yet)

    @property
    def id(self) -> tuple[str, str | None]:
        return str(self.root), self.config

    def discover(self) -> list[str]:
        settings = self.settings
        assert settings is not None
        result = discover(
            [str(self.root)],
            self.root,
            exclude=settings.exclude,
            exclude_base=settings.base,
            use_gitignore=settings.respect_gitignore,
        )
        self.found = {norm(item.root): item for item in result.packages if not item.missing_skill_md}
        self.real = {os.path.realpath(key): key for key in self.found}
        return list(result.warnings)

    def remember(self, entries: dict, kept: dict) -> None:
        """What a lint in another process read or worked out, for the next lints."""
        self.entries.update(entries)
        for answer, value in kept.items():
            self.kept.pop(answer, None)
            self.kept[answer] = value  # the newest last: the oldest go first
        while len(self.kept) > MAX_KEPT_ANSWERS:
            del self.kept[next(iter(self.kept))]

    def key_of(self, root: Path) -> str | None:
        """The discovered package at ``root`` (None: not found, e.g. excluded)."""
        if self.found is None:
            return None
        key = norm(root)
        if key in self.found:
            return key
        return self.real.get(os.path.realpath(key))


class SkillLintServer(LanguageServer):
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
        self.warming: threading.Thread | None = None  # see _warm_up

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
            from .registry import registry

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
                settings, warnings = tree_settings(self.registry, found, from_tree, root)
            except ConfigError as exc:
                project.error = str(exc)
                self.log(f"{exc} (fix the configuration and save it)")
                return project
            for warning in warnings:
                self.log(warning, lsp.MessageType.Warning)
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
                work = partial(_lint_in_worker, project, key, self.catalog_packages(project, key), self.overlay())
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
        """Run ``function`` in a thread unless one runs already (see _warm_up)."""
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
            from .server_io import close_protocol_in_child

            return await Forked(work, in_child=close_protocol_in_child).result()
        if self._lint_thread is None:
            self._lint_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skilllint-lint")
        return await asyncio.get_running_loop().run_in_executor(self._lint_thread, work)

    def apply(self, project: Project, key: str, number: int, versions: dict, found: dict) -> None:
        """Keep what a lint (``number``, from :func:`_lint_in_worker`) found and publish it to
        the open documents it concerns whose text has not changed since it started (a
        newer lint comes for those)."""
        from .skill import tokens
        from .lint.cache import decode

        if found["tokenizer"] and not tokens.encoding_loaded():
            self.warm(_warm_up_tokenizer)
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
            from .lint.catalog_context import configured_roots, load_roots

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

    # -- conversions ----------------------------------------------------------------

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

    # -- features -------------------------------------------------------------------

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
        from .app.suppress_edit import Silencer

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
        from .edits import LineIndex, edits_between

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
                found = await self.in_worker(partial(_fix_in_worker, project, path, contents))
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

    # -- files changed on disk -------------------------------------------------------

    def watch_files(self) -> None:
        """Ask the client to tell of changes on disk (configurations; the files of skills),
        where it can watch files for a server. (Not awaited: a client may answer after
        it sends ``exit``.)"""
        workspace = self.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched is None or not watched.dynamic_registration:
            return
        registrations = [
            lsp.Registration(
                id=f"skilllint-{name}",
                method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[lsp.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns]
                ),
            )
            for name, patterns in (("configuration", WATCHED_CONFIGURATION), ("skill-files", WATCHED_SKILL_FILES))
        ]

        def answered(future) -> None:
            if not future.cancelled() and future.exception() is not None:  # configurations reload on save only
                self.log(
                    f"the client did not watch files for skilllint ({future.exception()}); "
                    "a configuration reloads when saved in the editor",
                    lsp.MessageType.Warning,
                )

        self.client_register_capability(lsp.RegistrationParams(registrations=registrations)).add_done_callback(answered)

    def files_changed(self, params: lsp.DidChangeWatchedFilesParams) -> None:
        """Files changed on disk: a configuration reloads them all; a skill's file relints
        the open documents of that skill (a SKILL.md: of its project, for the catalogs).
        An open document's own file is left alone: its buffer is what counts."""
        changes = [(norm(to_fs_path(c.uri)), c.type) for c in params.changes if uri_scheme(c.uri) == "file" and to_fs_path(c.uri)]
        if any(os.path.basename(path) in CONFIG_NAMES or os.path.basename(path) == ".gitignore" for path, _ in changes):
            self.reload()
            return
        documents = {uri: norm(doc.path) for uri, doc in self.open_documents().items()}
        owners: dict[str, list[str]] = {}  # skill folder -> its open documents
        for uri, path in documents.items():
            owner = package_of_file(Path(path))
            if owner is not None:
                owners.setdefault(norm(owner), []).append(uri)
        if not owners:
            return
        opened = set(documents.values())
        touched: set[str] = set()  # open documents to relint
        skill_mds: list[str] = []
        moved = False  # a SKILL.md came or went: the projects' skills are found again
        for path, kind in changes:
            if path in opened or f"{os.sep}.git{os.sep}" in path:
                continue
            if os.path.basename(path).casefold() == "skill.md":
                skill_mds.append(path)
                moved = moved or kind != lsp.FileChangeType.Changed
            folder = os.path.dirname(path)
            while True:  # the nearest skill folder with an open document holding the file
                if folder in owners:
                    touched.update(owners[folder])
                    break
                parent = os.path.dirname(folder)
                if parent == folder:
                    break
                folder = parent
        if moved:
            for project in self.projects.values():
                if project.settings is not None and any(is_within(project.root, Path(p)) for p in skill_mds):
                    project.excluded.clear()
                    try:
                        for warning in project.discover():
                            self.log(warning, lsp.MessageType.Warning)
                    except DiscoveryError as exc:
                        self.log(str(exc))
        if skill_mds:  # a catalog changed: every open document of the projects holding it
            for uri, job in self.package_of.items():
                if uri in documents and any(is_within(Path(job[0][0]), Path(p)) for p in skill_mds):
                    touched.add(uri)
        linted: set = set()
        for uri in sorted(touched):
            job = self.package_of.get(uri)
            if job is None or job not in linted:  # one lint per skill
                linted.add(job)
                self.schedule(uri)

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
        from .rulebook import rule_page

        page = rule_page(code)
        if page:
            return page.rstrip()
        rule = self.registry.rules.get(code)
        if rule is None:
            return f"# {code}\n\n(no such rule)"
        return f"# {rule.code} {rule.name}\n\n{rule.summary}\n\n(no rule-book page found)"

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


def _warm_up() -> None:
    """Build once, in the server, what each lint's process would otherwise build anew:
    the modules rules import on first use, the YAML parser, the rules' regular
    expressions. Runs in a thread at start-up; a failure here costs only time (each
    lint builds what it needs)."""
    try:
        from . import lazyre, rules  # noqa: F401 - imported to be kept
        from .catalog import model, overlap  # noqa: F401
        from .lint import catalog_context, catalog_entries, engine  # noqa: F401
        from .skill import references, suppress, yamltree  # noqa: F401

        yamltree.parse("name: warm-up\n")
        lazyre.compile_all()
    except Exception:  # noqa: BLE001 - see above
        traceback.print_exc(file=sys.stderr)


def _warm_up_tokenizer() -> None:
    """The tokenizer (tens of MiB, a second to build): built here once a lint needed it,
    so that the next lints' processes inherit it."""
    from .skill import tokens

    try:
        tokens.get_encoding()
    except Exception:  # noqa: BLE001 - each lint reports it as its own rules do
        pass


def _lint_in_worker(
    project: Project, key: str, packages: list[tuple[str, SkillPackage | None]], contents: dict[str, bytes]
) -> dict:
    """One lint where it runs (a forked process, or a thread), the open documents read
    from ``contents``. Plain data: ``package``, the findings of package ``key``;
    ``catalog``, those of the catalog rules (None: the project has none); findings as
    :func:`skilllint.lint.cache.encode` writes them; ``errors``, internal errors;
    ``entries`` and ``kept``, what :meth:`Project.remember` keeps; ``tokenizer``, whether
    this lint had the tokenizer."""
    from .skill import tokens
    from .lint.cache import encode
    from .lint.catalog_context import CatalogContext
    from .lint.catalogs import lint_catalogs
    from .lint.engine import settle
    from .lint.package_lint import lint_package

    errors: list[str] = []
    catalog = None
    learned: dict = {}
    kept = _Kept(project.kept)
    with fsafe.overlay(contents):
        found = project.found[key]
        package = SkillPackage(found.root, found.lint_root, max_bytes=project.max_bytes)
        diagnostics = lint_package(package, project.package_rules, project.settings, errors)
        usage: dict = {}  # what the catalog rules silenced: SL901 judges the suppressions with it
        if project.catalog_rules:
            members = [package if other == key else sibling for other, sibling in packages]
            completion = CatalogContext(boundary=project.root, extra=project.installed)
            reader = _entry_reader(project.entries, contents, learned)
            judging = any(r.reads_suppressions for r in project.package_rules)
            catalog = lint_catalogs(members, project.catalog_rules, project.settings, errors, completion, reader, kept, usage if judging else None)
            catalog = [encode(d) for d in catalog]
        diagnostics = settle(diagnostics, project.package_rules + project.catalog_rules, [package], usage, project.settings)
    return {
        "package": [encode(d) for d in diagnostics],
        "catalog": catalog,
        "errors": errors,
        "entries": learned,
        "kept": kept.new,
        "tokenizer": tokens.encoding_loaded(),  # built for this lint (a long text): the server builds it too
    }


def _fix_in_worker(project: Project, path: str, contents: dict[str, bytes]) -> dict:
    """``skilllint check --fix`` of one open document where it runs (a forked process, or a
    thread): the document's text (``contents[path]``) fixed as standard input's is (only that
    text changes; the other open documents are read from ``contents``). Plain data: ``fixed``,
    the text as fixed (bytes); ``errors``, internal errors."""
    from .app.fixes import fix_paths
    from .stdin import StdinFile

    stdin = StdinFile(path, contents[path])
    with fsafe.overlay(contents):
        run = fix_paths([path], project.settings, project.root, stdin=stdin, overlaid=contents)
    return {"fixed": stdin.fixed, "errors": list(run.result.internal_errors)}


class _Kept(dict):
    """Answers kept from earlier lints, and (``new``) those this one added."""

    def __init__(self, known: dict) -> None:
        super().__init__(known)
        self.new: dict = {}

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.new[key] = value


def _entry_reader(known: dict, contents: dict[str, bytes], learned: dict):
    """Catalog entries from ``known`` for skills unchanged on disk and not open in the
    editor, else read; what was read of such skills goes into ``learned`` (same form)."""
    from .lint.catalog_entries import entry_fields, entry_stamps, skill_from_fields
    from .catalog.model import read_entry

    open_folders = {os.path.dirname(path) for path in contents}  # overlay keys: normalised and real paths
    stamps_of: dict[str, str | None] = {}

    def holds_an_open_file(folder: str) -> bool:
        return any(other == folder or other.startswith(folder + os.sep) for other in open_folders)

    def read(package: SkillPackage, target):
        root = str(package.root)
        if holds_an_open_file(root) or holds_an_open_file(package.real_root):
            return read_entry(package, target)  # its buffer, not the disk, counts
        if root not in stamps_of:
            stamps_of[root] = entry_stamps(package)
        stamps = stamps_of[root]
        kept = known.get((root, target.id))
        if stamps is not None and kept is not None and kept[0] == stamps:
            return skill_from_fields(package, kept[1])
        skill = read_entry(package, target)
        if stamps is not None:
            learned[(root, target.id)] = (stamps, entry_fields(skill))
        return skill

    return read


@functools.lru_cache(maxsize=None)
def _rule_page_uri(code: str) -> str | None:
    """The rule-book page as a file URI (the codeDescription link): the copy
    shipped in the wheel, or the checkout's ``rules/`` folder."""
    from .rulebook import rule_folders

    folder = rule_folders().get(code)
    return from_fs_path(str(folder / "README.md")) if folder is not None else None


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
    from .server_io import run_stdio

    server = build_server()
    server.warm(_warm_up)
    try:
        code = run_stdio(server, lambda message: server.log(message))
    except BrokenPipeError:  # the client went away while we wrote
        code = None
    return code if code is not None else (0 if server.shut_down else 1)
