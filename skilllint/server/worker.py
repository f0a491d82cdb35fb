"""What the language server runs away from its event loop, in a forked process (or a
thread): one lint of a package with the catalogs of its project, and ``check --fix`` of
one open document; each returns plain data. And the warm-up, which builds once, in the
server, what each of those would otherwise build anew."""

from __future__ import annotations

import os
import sys
import traceback

from .. import fsafe
from .project import Project
from ..skill.package import SkillPackage


def warm_up() -> None:
    """Build once, in the server, what each lint's process would otherwise build anew:
    the modules rules import on first use, the YAML parser, the rules' regular
    expressions. Runs in a thread at start-up; a failure here costs only time (each
    lint builds what it needs)."""
    try:
        from .. import lazyre, rules  # noqa: F401 - imported to be kept
        from ..catalog import model, overlap  # noqa: F401
        from ..lint import catalog_context, engine
        from ..lint.cache import catalog_entries  # noqa: F401
        from ..skill.references import graph as references
        from ..skill.suppressions import comments as suppress
        from ..skill.text import yamltree  # noqa: F401

        yamltree.parse("name: warm-up\n")
        lazyre.compile_all()
    except Exception:  # noqa: BLE001 - see above
        traceback.print_exc(file=sys.stderr)


def warm_up_tokenizer() -> None:
    """The tokenizer (tens of MiB, a second to build): built here once a lint needed it,
    so that the next lints' processes inherit it."""
    from ..skill.size import tokens

    try:
        tokens.get_encoding()
    except Exception:  # noqa: BLE001 - each lint reports it as its own rules do
        pass


def lint_in_worker(
    project: Project, key: str, packages: list[tuple[str, SkillPackage | None]], contents: dict[str, bytes]
) -> dict:
    """One lint where it runs (a forked process, or a thread), the open documents read
    from ``contents``. Plain data: ``package``, the findings of package ``key``;
    ``catalog``, those of the catalog rules (None: the project has none); findings as
    :func:`skilllint.lint.cache.store.encode` writes them; ``errors``, internal errors;
    ``entries`` and ``kept``, what :meth:`Project.remember` keeps; ``tokenizer``, whether
    this lint had the tokenizer."""
    from ..skill.size import tokens
    from ..lint.cache.entries import encode
    from ..lint.catalog_context import CatalogContext
    from ..lint.catalogs import lint_catalogs
    from ..lint.engine import settle
    from ..lint.package_lint import lint_package

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


def fix_in_worker(project: Project, path: str, contents: dict[str, bytes]) -> dict:
    """``skilllint check --fix`` of one open document where it runs (a forked process, or a
    thread): the document's text (``contents[path]``) fixed as standard input's is (only that
    text changes; the other open documents are read from ``contents``). Plain data: ``fixed``,
    the text as fixed (bytes); ``errors``, internal errors."""
    from ..app.fixes import fix_paths
    from ..cli.stdin import StdinFile

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
    from ..lint.cache.catalog_entries import entry_fields, entry_stamps, skill_from_fields
    from ..catalog.model import read_entry

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
