"""The text files of a package that the security rules (SL8xx) read: what the model reads.

SKILL.md (frontmatter and body), every document (:func:`~skilllint.skill.inventory.is_document`),
``agents/*.yaml``, every script (:func:`~skilllint.skill.inventory.is_script`) and every other
text file (configuration, data, licences: ``OTHER``, where only secrets are looked for; not a file
whose suffix names a binary format), each read once per package run
and shared through the rules' per-package memo. A text another analysis already
read is taken from it: SKILL.md from the package, the documents the reference graph scanned
(when a rule built it this run), the scripts :func:`~skilllint.skill.scripts.lexers.package_scripts`
read, the eval files :func:`~skilllint.skill.evals.files.package_evals` read (when SL53x ran). The
rest is read through :func:`skilllint.fsafe.read_capped`. Left alone: a file over the
package's read cap (SL011 reports it), binaries (a NUL byte near the start), files in vendored
folders and files of nested skills (linted as skills of their own).

Texts are kept with universal newlines (every CRLF and lone CR a ``\\n``), so that a line and a
column counted here are the line and column every output format shows.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...fsafe import UnsafeFile, read_capped
from ..inventory import is_document, is_script, is_skill_md_name
from ..scripts.lexers import SKIPPED_FOLDERS, package_scripts
from .text_marks import Marks, kept_in, marks_of

if TYPE_CHECKING:
    from ..package import SkillPackage

MAX_TEXT_FILES = 2000  # text files read per package (besides SKILL.md)

# The kinds of text, as the security rules tell them apart.
SKILL_MD = "skill-md"
DOCUMENT = "document"
AGENT_CONFIG = "agent-config"  # agents/openai.yaml and its siblings
SCRIPT = "script"
OTHER = "other"  # any other text file (configuration, data, a licence): only secrets are looked for there

# Suffixes of formats that are not text: never opened.
BINARY_SUFFIXES = frozenset(
    """
    png jpg jpeg gif webp bmp ico icns tif tiff psd heic avif
    pdf zip gz tgz bz2 xz zst 7z rar tar jar war ear whl egg apk ipa dmg iso
    pyc pyo so dylib dll exe bin class o a lib obj wasm
    woff woff2 ttf otf eot
    mp3 mp4 m4a wav ogg oga flac aac mov avi mkv webm
    docx xlsx pptx odt ods odp doc xls ppt
    sqlite sqlite3 db parquet feather arrow npy npz pkl pickle h5 hdf5 onnx pt pth safetensors ckpt
    """.split()
)


@dataclass(eq=False, repr=False)
class PackageText:
    """One text file of the package: where it is, what kind of file it is, its text."""

    rel: str  # package-relative posix path
    kind: str  # SKILL_MD, DOCUMENT, AGENT_CONFIG, SCRIPT or OTHER
    text: str  # universal newlines; a leading BOM kept (it is not on line 1's columns)
    root: Path  # the package's folder
    body_start: int = 0  # 0-based line where a SKILL.md body starts (the lines before are the frontmatter)
    _starts: list[int] | None = field(default=None, repr=False)
    _fenced: set[int] | None = field(default=None, repr=False)
    _spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)  # code spans of each line asked about
    marks_kept: dict | None = field(default=None, repr=False)  # where the package run keeps texts' marks (text_marks.kept_in)

    @property
    def marks(self) -> Marks:
        """The strings of :data:`skilllint.skill.security.text_marks.MARKS` the text holds (shared with the
        other rules that read this text object in the package run)."""
        return marks_of(self.text, self.marks_kept)

    @property
    def path(self) -> Path:
        return self.root / self.rel

    @property
    def is_markdown(self) -> bool:
        return self.kind in (SKILL_MD, DOCUMENT) and not self.rel.lower().endswith(".txt")

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            find = self.text.find
            at = find("\n")
            while at >= 0:
                starts.append(at + 1)
                at = find("\n", at + 1)
            self._starts = starts
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset, columns in code points, line 1 after a BOM."""
        starts = self._line_starts()
        index = bisect.bisect_right(starts, offset) - 1
        column = offset - starts[index] + 1
        if index == 0 and self.text.startswith("\ufeff"):
            column -= 1
        return index + 1, column

    def body_offset(self) -> int:
        """Offset where SKILL.md's body starts (0 for other texts)."""
        if not self.body_start:
            return 0  # no frontmatter: nothing to count (most texts are never split into lines)
        starts = self._line_starts()
        return starts[self.body_start] if self.body_start < len(starts) else len(self.text)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        starts = self._line_starts()
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end]

    def in_code(self, offset: int) -> bool:
        """Whether an offset lies in code: anywhere in a script; in a Markdown text, in a fenced
        block or a code span (never in SKILL.md's frontmatter)."""
        if self.kind == SCRIPT:
            return True
        if not self.is_markdown:
            return False
        line, _ = self.position(offset)
        if line - 1 < self.body_start:
            return False
        if line in self.fenced():
            return True
        spans = self._spans.get(line)
        if spans is None:
            from ..text.markdown import CODE_SPAN

            spans = self._spans[line] = [span.span(2) for span in CODE_SPAN.finditer(self.line_text(line))]
        column = offset - self._line_starts()[line - 1]
        index = bisect.bisect_right(spans, (column, len(self.text))) - 1  # the last span opening at or before it
        return index >= 0 and spans[index][0] <= column < spans[index][1]

    def fenced(self) -> set[int]:
        """1-based lines inside fenced code blocks of a Markdown text (fences included; the frontmatter
        of SKILL.md is never a fence); empty for other texts."""
        if self._fenced is None:
            self._fenced = set()
            if self.is_markdown and ("```" in self.text or "~~~" in self.text):
                from ..text import markdown

                lines = self.text.split("\n")
                body = "\n".join(lines[self.body_start :])
                self._fenced = markdown.fenced_lines_in(body, self.body_start)
        return self._fenced


def _universal(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _vendored(rel: str) -> bool:
    return any(part in SKIPPED_FOLDERS for part in rel.split("/")[:-1])


def _read(package: SkillPackage, rel: str) -> str | None:
    try:
        data = read_capped(package.root / rel, package.max_bytes).data
    except (UnsafeFile, OSError):
        return None
    if b"\x00" in data[:8192]:
        return None  # a binary
    return data.decode("utf-8", errors="replace")


def package_texts(package: SkillPackage, memo: dict) -> list[PackageText]:
    """Every text file of ``package`` the SL8xx rules read, SKILL.md first, made once per package run
    and kept in ``memo`` (the rules' per-package scratch)."""
    from ..evals.files import read_package_evals
    from ..references.graph import build as build_graph

    key = "security.texts"
    cached = memo.get(key)
    if cached is not None:
        return cached
    texts: list[PackageText] = []
    root = package.root
    if package.readable and package.skill_md_name is not None:
        texts.append(PackageText(package.skill_md_name, SKILL_MD, package.source.text, root, package.body_start_line, marks_kept=kept_in(memo)))
    # What other analyses of this run already read.
    graph = package.kept(build_graph)  # built only if a rule asked for it: never built for this
    read_documents = graph.texts if graph is not None else {}
    evals = package.kept(read_package_evals)  # the eval files, when SL53x read them
    read_evals = evals.texts if evals is not None else {}
    read_scripts = {script.rel: script.text for script in package_scripts(package, memo)}
    inventory = package.inventory
    for rel, entry in sorted(inventory.entries.items()):
        if len(texts) > MAX_TEXT_FILES:
            break
        if entry.kind != "file" or rel == "." or entry.size == 0 or entry.size > package.max_bytes:
            continue  # a file over the read cap is not read at all: SL011 reports it
        name = rel.rpartition("/")[2]
        if is_skill_md_name(name) or _vendored(rel) or inventory.in_nested_skill(rel):
            continue
        if is_document(rel):
            kind = DOCUMENT
        elif rel.startswith("agents/") and name.lower().endswith((".yaml", ".yml")):
            kind = AGENT_CONFIG
        elif is_script(rel) or rel in read_scripts:
            kind = SCRIPT
        elif name.rpartition(".")[2].lower() not in BINARY_SUFFIXES:
            kind = OTHER
        else:
            continue
        text = read_scripts.get(rel) if kind == SCRIPT else read_documents.get(rel) if kind == DOCUMENT else read_evals.get(rel)
        if text is None:
            text = _read(package, rel)
            if text is None:
                continue
        texts.append(PackageText(rel, kind, _universal(text), root, marks_kept=kept_in(memo)))
    memo[key] = texts
    return texts
