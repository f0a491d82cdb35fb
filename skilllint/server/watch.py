"""Files changed on disk, as the client tells the language server where it watches files for
it (``workspace/didChangeWatchedFiles``): a configuration reloads them all; a skill's file
relints the open documents of that skill (a SKILL.md: of its project, for the catalogs)."""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import to_fs_path, uri_scheme

from ..config.settings import CONFIG_NAMES
from ..fsafe import is_within
from .project import norm
from ..discovery.walk import DiscoveryError, package_of_file


WATCHED_CONFIGURATION = ["**/.skilllint.toml", "**/skilllint.toml", "**/pyproject.toml", "**/.gitignore"]
# The files of a skill a change on disk (git checkout, a generator) can matter to: Markdown
# anywhere (SKILL.md, what it links), agents/openai.yaml and the folders the spec names.
WATCHED_SKILL_FILES = ["**/*.md", "**/agents/openai.yaml", "**/references/**", "**/scripts/**", "**/assets/**"]


class DiskChanges:
    """Watching files, on :class:`skilllint.server.main.SkillLintServer`."""

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
