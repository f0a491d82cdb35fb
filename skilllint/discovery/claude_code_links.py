"""Which skills Claude Code never lists it still reads: those the listed skills link to.

Claude Code lists only ``<skills folder>/<name>/SKILL.md`` (:meth:`skilllint.discovery.units.InstallUnits.unlisted`).
A skill folder nested deeper is no skill to it, but when a skill it lists links to that
folder's SKILL.md (zoom-plugin's ``video-sdk`` links ``windows/SKILL.md``), the model reads
that file when it follows the link, and the files it links in turn: the nested SKILL.md is a
document of the listed skill. :func:`reached` is the one answer to "does a link lead there",
asked by SL520 (which reports a nested skill no link reaches) and by the engine (which runs
the rules about a skill's content, not those about being a skill, for a nested skill reached).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote

from ..skill.text import markdown
from ..fsafe import UnsafeFile, is_within, lstat_each, plain_file, read_capped
from ..skill.inventory import is_document

MAX_LINKED_SKILLS = 64  # nested skills whose links are followed from one skills folder
MAX_LISTED_SKILLS = 2000  # listed skills of one skills folder whose links are read (Codex's folder cap)
MAX_DOCUMENTS_PER_SKILL = 200  # Markdown files of one skill whose links are read
# (skills folder, read bound, pages read too) -> (the files read, their stamps, the skills reached,
# the run they were last checked in): every nested skill of a skills folder asks the same question,
# and an answer reads many files
_LINKED: dict[tuple[str, int, bool], tuple[tuple[str, ...], tuple, frozenset[Path], object]] = {}
_LINKED_MAX = 64
_RUN: list = [None]  # the engine's run under way (one_run), or None


@contextmanager
def one_run():
    """One run of the engine: in it, an answer of :func:`linked_skills` checked against the files it
    read is not checked again (every nested skill of a skills folder asks for the same answer, and
    a check stats every file read: a warm run's background process spent a tenth of its time so).
    Outside a run (a language server linting one skill after an edit) every answer is checked."""
    previous, _RUN[0] = _RUN[0], object()
    try:
        yield
    finally:
        _RUN[0] = previous


def reached(folder: Path, top: Path, max_bytes: int) -> bool:
    """Whether links from the skills Claude Code lists in the skills folder ``top`` lead to
    the nested skill folder ``folder`` (absolute, normalised): :func:`linked_skills`.

    SKILL.md files' own links first: they settle it almost always, and reading the pages
    they link too costs far more (this runs on warm runs as well)."""
    return folder in linked_skills(top, max_bytes, pages=False) or folder in linked_skills(top, max_bytes, pages=True)


def linked_skills(top: Path, max_bytes: int, pages: bool = True) -> frozenset[Path]:
    """The nested skill folders under the skills folder ``top`` that Claude reaches by following
    links from the skills it lists there (``top`` itself when it is one skill): from a listed
    SKILL.md and the Markdown files it links, a link to a nested skill's SKILL.md or its folder
    (a sibling's own link such as `../meeting-sdk/web/SKILL.md` too), then on from that
    skill's own links. Such a nested SKILL.md is a document of the skills that link it.
    ``pages=False``: the links of SKILL.md files alone.

    Only Markdown links are read (:func:`skilllint.skill.text.markdown.scan_links`), not the full reference
    graph: this runs on every run, warm ones included (the answer depends on other skills' files,
    so the result cache keys a nested skill's results on it), and is kept in this process while
    none of the files read changes (a language server's process lints on after edits)."""
    key = (str(top), max_bytes, pages)
    kept = _LINKED.get(key)
    run = _RUN[0]
    if kept is not None and ((run is not None and kept[3] is run) or _stamps(kept[0]) == kept[1]):
        if kept[3] is not run:
            _LINKED[key] = (*kept[:3], run)
        return kept[2]
    if plain_file(str(top), "SKILL.md") is not None:
        listed = [top]
    else:
        try:
            names = sorted(os.listdir(top))[:MAX_LISTED_SKILLS]
        except OSError:
            names = []
        listed = [top / name for name in names if plain_file(str(top), name, "SKILL.md") is not None]
    found: set[Path] = set()
    read: list[str] = []
    queue = list(listed)
    seen = set(listed)
    while queue and len(found) < MAX_LINKED_SKILLS:
        skill = queue.pop(0)
        for inner in _skills_linked_from(skill, top, max_bytes, read, pages):
            if inner not in seen:
                seen.add(inner)
                found.add(inner)
                queue.append(inner)
    if len(_LINKED) >= _LINKED_MAX:
        _LINKED.clear()
    answer = frozenset(found)
    _LINKED[key] = (tuple(read), _stamps(read), answer, run)
    return answer


def _skills_linked_from(skill: Path, top: Path, max_bytes: int, read: list[str], pages: bool = True) -> Iterator[Path]:
    """Skill folders inside ``top`` that the Markdown links of ``skill``'s SKILL.md, and of the
    Markdown files of the skill it links (one hop: the depth a skill's references are meant to
    have), lead to (their SKILL.md or their folder). Files are read through real folders only
    (no link followed) and never outside ``top``."""
    top_text, skill_text = str(top), str(skill)
    documents = ["SKILL.md"]
    done = set(documents)
    is_skill: dict[str, bool] = {}
    while documents and len(done) <= MAX_DOCUMENTS_PER_SKILL:
        document = documents.pop(0)
        follow = pages and document == "SKILL.md"  # the pages SKILL.md links are read, not the ones they link
        path = os.path.join(skill_text, document)
        if plain_file(top_text, *os.path.relpath(path, top_text).split(os.sep)) is None:
            continue
        try:
            text = read_capped(path, max_bytes).data.decode("utf-8", "replace")
        except UnsafeFile:
            continue
        read.append(path)
        if not follow and "SKILL.md" not in text and "/)" not in text:
            continue  # a linked page names a skill by its SKILL.md or as a folder `x/`: cheap to rule out
        folder = os.path.dirname(path)
        for link in markdown.scan_links(text)[0]:
            destination = link.target.split("#", 1)[0].split("?", 1)[0]
            if not destination or ":" in destination or destination.startswith(("/", "~")):
                continue  # a URL, a mail address, a command link or a path on one machine
            target = os.path.normpath(os.path.join(folder, unquote(destination)))
            name = os.path.basename(target)
            if name == "SKILL.md" or destination.endswith("/") or (follow and "." not in name):
                # a skill's SKILL.md or a folder that may be a skill
                where = target[: -len("/SKILL.md")] if name == "SKILL.md" else target
                found = is_skill.get(where)
                if found is None:  # through real folders from `top`: never a stat through a link
                    found = is_skill[where] = (
                        where != skill_text
                        and is_within(top, Path(where))
                        and plain_file(top_text, *os.path.relpath(where, top_text).split(os.sep), "SKILL.md") is not None
                    )
                if found:
                    yield Path(where)
            elif follow and is_document(name) and is_within(skill, Path(target)):
                inside = os.path.relpath(target, skill_text).replace(os.sep, "/")
                if inside not in done and not _in_nested_skill(skill, Path(target)):
                    done.add(inside)
                    documents.append(inside)


def _in_nested_skill(skill: Path, target: Path) -> bool:
    """Whether ``target`` lies in a skill folder nested in ``skill`` (its own files are its own)."""
    folder = target.parent
    while folder != skill and is_within(skill, folder):
        if plain_file(str(skill), *folder.relative_to(skill).parts, "SKILL.md") is not None:
            return True
        folder = folder.parent
    return False


def _stamps(paths) -> tuple:
    """(size, modification time) of each of ``paths`` as it is now, None for one that is gone."""
    return tuple(None if info is None else (info.st_size, info.st_mtime_ns) for info in lstat_each(paths))
