"""SkillPackage: one skill folder, parsed lazily and safely.

Nothing is read until a rule asks for it, and everything is read once: the
directory listing, SKILL.md's bytes (capped), its decoded text, each splitter's
frontmatter, each distinct YAML text's parse, each target's view.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from .text import frontmatter, yamltree
from ..diagnostics import Span
from ..fsafe import DEFAULT_MAX_BYTES, ReadResult, UnsafeFile, is_within, list_folder, plain_entry, plain_file, read_capped, real_path, real_path_or_given
from ..targets import Target

SKILL_MD = "SKILL.md"


@dataclass(frozen=True, eq=False, repr=False)
class SkillMdLink:
    """SKILL.md when it is itself a symbolic link: its text and where it ends.

    ``outcome``: ``ok`` (a file or folder is there), ``missing`` (the target does
    not exist: the link dangles), ``loop`` (a cycle of links, never resolves), or
    ``outside`` (it leads out of the linted tree, where skilllint does not look)."""

    text: str
    real: str  # the real path, as far as it resolves
    outcome: str


@dataclass(eq=False, repr=False)
class FrontmatterView:
    """The frontmatter as one parser (one target) sees it."""

    split: frontmatter.Split
    semantics: str
    document: yamltree.Document | None = None
    error: yamltree.YamlError | None = None
    data: Any = None  # the loaded Python value (None when error or split failed)
    _last_pairs: dict | None = field(default=None, repr=False)
    _first_pairs: dict | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.split.status == "ok" and self.error is None

    @property
    def mapping(self) -> dict | None:
        if not (self.ok and isinstance(self.data, dict)):
            return None
        doc = self.document
        if self.semantics == "strict" and doc and (doc.strict_violations() or doc.duplicate_keys()):
            return None  # strictyaml refuses the file here (SL012, SL007): no field is read
        return self.data

    def items(self) -> list[tuple[yamltree.Node, yamltree.Node]]:
        return self.document.mapping_items() if self.document else []

    def key_node(self, key: str) -> tuple[yamltree.Node, yamltree.Node] | None:
        """The last ``key:`` pair at top level (the occurrence loaders keep)."""
        if self._last_pairs is None:
            self._last_pairs = {k.value: (k, v) for k, v in self.items() if k.kind == "scalar"}
        return self._last_pairs.get(key)

    def first_pairs(self) -> dict[str, tuple[yamltree.Node, yamltree.Node]]:
        """Each top-level key's first ``key:`` pair, in order."""
        if self._first_pairs is None:
            pairs: dict[str, tuple[yamltree.Node, yamltree.Node]] = {}
            for k, v in self.items():
                if k.kind == "scalar":
                    pairs.setdefault(k.value, (k, v))
            self._first_pairs = pairs
        return self._first_pairs

    def file_position(self, line: int, column: int) -> tuple[int, int]:
        """Map a 0-based position in the YAML text to a 1-based file position."""
        file_line = self.split.yaml_line + line
        file_column = column + (self.split.yaml_column if line == 0 else 0)
        return file_line + 1, file_column + 1

    def span(self, node: yamltree.Node) -> Span:
        line, column = self.file_position(node.line, node.column)
        end_line, end_column = self.file_position(node.end_line, node.end_column)
        if (end_line, end_column) <= (line, column):
            end_line, end_column = line, column + 1
        return Span(line, column, end_line, end_column)

    def pair_span(self, key: yamltree.Node, value: yamltree.Node | None = None) -> Span:
        """From the key to the end of its value's first line (one-line highlight)."""
        start = self.span(key)
        if value is None:
            return start
        end = self.span(value)
        if end.end_line != start.line:
            return Span(start.line, start.column, start.line, max(start.end_column, end.column if end.line == start.line else start.end_column))
        return Span(start.line, start.column, end.end_line, end.end_column)


class SkillPackage:
    """A folder holding a SKILL.md (in some letter case), as discovered.

    ``root`` is absolute but not resolved: the directory entry the surface
    discovers (a symlink's own name counts for the name/folder check).
    """

    def __init__(
        self,
        root: Path,
        lint_root: Path | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        real_root: str | None = None,
        listing: list[str] | None = None,
        listings: dict[str, list[str]] | None = None,
    ):
        self.root = root
        self.lint_root = lint_root or root
        self.max_bytes = max_bytes
        self._real_root = real_root  # discovery knows it: resolving it again costs an lstat per path component
        if listing is not None:  # discovery listed the folder (sorted): a pre-commit run's 1,000 siblings need not again
            self.__dict__["listing"] = listing
        self._listings = listings  # every folder discovery listed (absolute -> sorted names): the inventory's walk lists none again
        self._parse_cache: dict[str, yamltree.Document | yamltree.YamlError] = {}
        self._splits: dict[str, frontmatter.Split] = {}
        self._ancestors: dict[tuple[str, ...], Path | None] = {}  # ancestor_with's answers: several rules ask
        self._views: dict[tuple[str, str], FrontmatterView] = {}
        self._analyses: dict[Callable, Any] = {}  # :meth:`once`
        # Paths beyond the package that rules looked up in the linted tree, and what they found
        # (:meth:`exists_in_tree`): the result cache keeps them to know when such a finding is stale.
        self.tree_probes: dict[str, bool] = {}
        # Whether a rule asked about a path beyond the linted tree (a reference that climbs out
        # of it): its findings may name folders above the tree, which a cache restored into a
        # checkout elsewhere must not show there (the result stays tied to this place).
        self.beyond_tree = False
        # Where the name and the description are written in SKILL.md, as a stored catalog entry of
        # this content remembers them (lint.catalog_entries): a catalog rule's finding on a skill
        # whose entry came from the store then needs no parse of its frontmatter.
        self.kept_spans: dict[str, tuple[int, int, int, int]] | None = None

    # -- files -------------------------------------------------------------

    @property
    def folder_name(self) -> str:
        return self.root.name

    @property
    def real_root(self) -> str:
        """The folder's real path (links resolved)."""
        if self._real_root is None:
            self._real_root = real_path_or_given(self.root)
        return self._real_root

    @cached_property
    def normal_root(self) -> Path:
        """The folder's path normalised as text (``os.path.normpath``): the form the surfaces'
        placement rules compare. Discovery's paths are normalised already, so most packages
        answer with :attr:`root` itself (a warm run asks for a thousand of them several times)."""
        text = str(self.root)
        normal = os.path.normpath(text)
        return self.root if normal == text else Path(normal)

    @cached_property
    def real_skill_md(self) -> str:
        """SKILL.md's real path: what tells two routes to one skill apart."""
        name = self.skill_md_name or SKILL_MD
        path = os.path.join(str(self.root), name)  # a string: asked of every skill of every catalog
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return real_path(path)
        except OSError:  # a link that cannot be resolved: this route is its name
            pass
        return os.path.join(self.real_root, name)

    @cached_property
    def listing(self) -> list[str]:
        try:
            return sorted(list_folder(self.root))  # with a new file an overlay adds (standard input)
        except OSError:
            return []

    @cached_property
    def skill_md_name(self) -> str | None:
        """The entry that stands for SKILL.md: exactly ``SKILL.md`` if present,
        else the first name equal to it ignoring case. Judged from the listing,
        so a case-insensitive file system cannot fool us."""
        if SKILL_MD in self.listing:
            return SKILL_MD
        if "skill.md" in self.listing:
            return "skill.md"  # the other name a surface reads (skills-ref)
        for entry in self.listing:
            if entry.casefold() == SKILL_MD.casefold():
                return entry
        return None

    @cached_property
    def skill_md_link(self) -> SkillMdLink | None:
        """What a linked SKILL.md leads to (None: SKILL.md is no link). Judged with
        ``realpath`` and one ``lstat`` of the end, only inside the linted tree."""
        if self.skill_md_name is None:
            return None
        path = self.skill_md_path
        try:
            if not stat.S_ISLNK(os.lstat(path).st_mode):
                return None
            text = os.readlink(path)
        except OSError:
            return None
        try:
            real = real_path(path)
        except OSError as exc:  # a cycle, or a link that may not be read (/proc/1/cwd)
            if exc.errno == errno.ELOOP:
                return SkillMdLink(text, os.path.normpath(os.path.join(os.path.dirname(path), text)), "loop")
            return SkillMdLink(text, text, "outside")
        if not is_within(Path(real_path_or_given(self.lint_root)), Path(real)):
            return SkillMdLink(text, real, "outside")
        try:
            end = os.lstat(real)
        except OSError as exc:
            return SkillMdLink(text, real, "loop" if exc.errno == errno.ELOOP else "missing")
        # realpath stops at a link it cannot resolve: ending on a link means a cycle
        return SkillMdLink(text, real, "loop" if stat.S_ISLNK(end.st_mode) else "ok")

    @property
    def skill_md_dangles(self) -> bool:
        """SKILL.md is a link that leads nowhere (missing target or cycle): SL403/SL404 say so."""
        link = self.skill_md_link
        return link is not None and link.outcome in ("missing", "loop")

    @cached_property
    def inventory(self):
        """Every entry of the package, links judged without being followed out."""
        from .inventory import PackageInventory

        return PackageInventory.scan(self.root, listings=self._listings)

    def once(self, analysis: Callable[[SkillPackage], Any]) -> Any:
        """``analysis(self)``, computed once for this package: what several rules read of it (the
        reference graph, the eval files) is kept here, so the model imports none of the analyses
        built on it (:func:`skilllint.skill.references.graph.reference_graph`)."""
        kept = self._analyses
        if analysis not in kept:
            kept[analysis] = analysis(self)
        return kept[analysis]

    def kept(self, analysis: Callable[[SkillPackage], Any]) -> Any:
        """What :meth:`once` keeps of ``analysis``, or None when no rule asked for it."""
        return self._analyses.get(analysis)

    @cached_property
    def skill_md_path(self) -> Path:
        return self.root / (self.skill_md_name or SKILL_MD)

    @cached_property
    def skill_md_source(self) -> Path | UnsafeFile:
        """The file SKILL.md's bytes are read from: SKILL.md itself or, when it is a link,
        its real location if that lies inside the linted tree (what the result cache keys on)."""
        if self.skill_md_name is None:
            return UnsafeFile("missing")
        path = self.skill_md_path
        try:
            if path.is_symlink():
                # Surfaces follow a linked SKILL.md; we read it only when its
                # real location is inside the linted tree (SL405 reports it).
                real = Path(real_path(path))
                if not is_within(Path(real_path_or_given(self.lint_root)), real):
                    return UnsafeFile("is a symbolic link that leads outside the linted tree")
                return real
        except OSError as exc:
            return UnsafeFile(f"cannot be read: {exc.strerror or exc}")
        return path

    @cached_property
    def read_result(self) -> ReadResult | UnsafeFile:
        source = self.skill_md_source
        if isinstance(source, UnsafeFile):
            return source
        try:
            return read_capped(source, self.max_bytes)
        except UnsafeFile as exc:
            return exc

    @property
    def readable(self) -> bool:
        return isinstance(self.read_result, ReadResult)

    @cached_property
    def raw(self) -> bytes:
        result = self.read_result
        return result.data if isinstance(result, ReadResult) else b""

    @property
    def truncated(self) -> bool:
        result = self.read_result
        return isinstance(result, ReadResult) and result.truncated

    @cached_property
    def decode_problem(self) -> tuple[str, int] | None:
        """(reason, byte offset) when SKILL.md is not UTF-8 text, else None."""
        data = self.raw
        nul = data.find(b"\x00")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            # A multi-byte character cut by the size cap is not the author's fault.
            if not (self.truncated and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data"):
                if nul < 0 or exc.start < nul:
                    return ("invalid UTF-8", exc.start)
        if nul >= 0:
            return ("NUL byte", nul)
        return None

    @cached_property
    def source(self) -> frontmatter.SourceText:
        text = self.raw.decode("utf-8", errors="replace")
        if self.truncated and text.endswith("\ufffd"):
            text = text.rstrip("\ufffd")
        return frontmatter.SourceText.from_text(text)

    def byte_position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a byte offset in SKILL.md, counted as every other
        position is: lines end at LF, CRLF or a lone CR; line 1 starts after a BOM."""
        start = 3 if self.raw.startswith(b"\xef\xbb\xbf") else 0
        before = self.raw[start : max(offset, start)].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", errors="replace")) + 1
        return line, column

    def ancestor_with(self, *relative: str) -> Path | None:
        """The nearest folder above the skill, inside the linted tree, holding the regular file
        ``relative`` through real folders (:func:`skilllint.fsafe.plain_file`: no link is stat-ed)."""
        if relative in self._ancestors:
            return self._ancestors[relative]
        found = None
        lint_root = Path(os.path.normpath(self.lint_root))
        for folder in self.root.parents:
            if not is_within(lint_root, folder):
                break
            if plain_file(str(folder), *relative) is not None:
                found = folder
                break
        self._ancestors[relative] = found
        return found

    def exists_in_tree(self, relative: str, lstats: dict | None = None) -> bool | None:
        """Whether ``relative`` (a path from the lint root, ``/``-separated) names a file or folder
        reached through real folders; None when it is not a path inside the linted tree, which is
        never looked at. The answer is remembered in :attr:`tree_probes`. ``lstats``: the ``lstat``
        of paths looked at already in this run, by path (the result cache checks hundreds of
        probes that share the folders on their way)."""
        parts = relative.split("/")
        if not relative or relative.startswith("/") or any(p in ("", ".", "..") for p in parts):
            return None
        found = plain_entry(os.path.normpath(self.lint_root), *parts, memo=lstats)
        self.tree_probes[relative] = found
        return found

    def exists_beyond(self, target: str) -> bool | None:
        """:meth:`exists_in_tree` for a normalised absolute path."""
        lint_root = os.path.normpath(self.lint_root)
        if not is_within(Path(lint_root), Path(target)) or target == lint_root:
            self.beyond_tree = True
            return None
        return self.exists_in_tree(os.path.relpath(target, lint_root).replace(os.sep, "/"))

    # -- frontmatter -------------------------------------------------------

    def split(self, splitter: str = "canonical") -> frontmatter.Split:
        cached = self._splits.get(splitter)
        if cached is None:
            cached = self._splits[splitter] = frontmatter.SPLITTERS[splitter](self.source)
        return cached

    def _parse(self, text: str) -> yamltree.Document | yamltree.YamlError:
        cached = self._parse_cache.get(text)
        if cached is None:
            try:
                cached = yamltree.parse(text)
            except yamltree.YamlError as exc:
                cached = exc
            self._parse_cache[text] = cached
        return cached

    def view_for(self, splitter: str, semantics: str) -> FrontmatterView:
        key = (splitter, semantics)
        view = self._views.get(key)
        if view is not None:
            return view
        split = self.split(splitter)
        view = FrontmatterView(split, semantics)
        if split.status == "ok":
            parsed = self._parse(split.yaml)
            if isinstance(parsed, yamltree.YamlError):
                view.error = parsed
            else:
                view.document = parsed
                try:
                    view.data = yamltree.to_python(parsed.root, semantics)
                except yamltree.YamlError as exc:
                    view.error = exc
        self._views[key] = view
        return view

    def view(self, target: Target) -> FrontmatterView:
        return self.view_for(target.splitter, target.semantics)

    @property
    def canonical(self) -> FrontmatterView:
        """The spec's split with YAML 1.2 semantics: positions and layout."""
        return self.view_for("canonical", "yaml12")

    # -- body --------------------------------------------------------------

    @cached_property
    def body_start_line(self) -> int:
        """0-based line index where the body starts (after the closing fence)."""
        split = self.split("canonical")
        return split.close_line + 1 if split.status == "ok" else 0

    @cached_property
    def body(self) -> str:
        return "\n".join(self.source.lines[self.body_start_line :])

    @cached_property
    def body_fenced_blocks(self) -> list[tuple[str, list[int]]]:
        """The body's fenced code blocks (:func:`skilllint.skill.text.markdown.fenced_blocks`),
        found once for the rules that read the commands in them (SL702-SL704, SL804): each
        walked every line of SKILL.md for them."""
        from .text.markdown import fenced_blocks

        return fenced_blocks(self.source.lines, self.body_start_line)

    @property
    def line_count(self) -> int:
        """Physical lines of SKILL.md, as ``wc -l`` plus a last unterminated line."""
        text = self.source.text
        if not text:
            return 0
        return text.count("\n") + (0 if text.endswith("\n") else 1)


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)
