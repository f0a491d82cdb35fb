"""The baseline: the findings a project accepted once, so that it is told only of new ones.

``skilllint check --write-baseline FILE`` records every finding of the run; ``--baseline FILE``
(or ``baseline = "FILE"`` in the configuration) reports only the findings it does not hold
and says how many of its entries no longer occur, so the file can shrink.

An entry is keyed as SARIF's ``partialFingerprints`` are (:mod:`skilllint.output.sarif`): the
rule, the file, and the text of the flagged line and snippet with blanks collapsed, never the
line number, so lines that move keep their entries. Equal keys are counted: two entries of
one key absorb at most two findings. Paths are relative to the baseline file's folder, so the
file works from any working directory and in any checkout of the project.

The file is JSON for review: sorted by path, rule and flagged text (the same findings always
give the same bytes), one entry per finding with its message and flagged text for the
reader, and no line numbers, dates or versions that would change with nothing accepted.

A baseline named in a configuration file is read only inside that file's project (its git
repository, else its folder) through real folders, as ``cache-dir`` is placed: a
configuration shipped in a linted tree cannot make skilllint read elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..config.settings import ConfigError
from ..diagnostics import Diagnostic, clipped

FORMAT_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024
_EXCERPT_CHARS = 160

# What a reviewer would not see in a diff of the file, written as JSON escapes: C1 controls,
# bidi controls, zero-width and other format characters, tag characters, and lone
# surrogates (a file name that is not UTF-8, kept exactly: the entry still matches).
_HIDDEN = re.compile(
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000e0000-\U000e007f]"
)


class BaselineError(ConfigError):
    """The baseline cannot be read or written: like a bad configuration, the run ends with exit 2
    (a :class:`skilllint.config.settings.ConfigError`, so a run with no baseline never imports this module)."""


@dataclass(frozen=True, eq=False, repr=False)
class Location:
    """Where the baseline is: ``path`` (absolute, normalised), ``shown`` for messages (as the
    user wrote it, or from the working directory for a path from a configuration file), and
    ``project``, set for a path from a configuration file: the folder it must lie in."""

    path: Path
    shown: str
    project: Path | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(eq=False, repr=False)
class Outcome:
    """What a baseline did to a run's findings."""

    shown: str  # the baseline file, from the working directory
    matched: int  # findings it held, not reported
    unmatched: int  # its entries that no longer occur

    def matched_note(self) -> str | None:
        if not self.matched:
            return None
        return f"{self.matched} more finding{'s' if self.matched != 1 else ''} in the baseline (not shown)."

    def unmatched_note(self) -> str | None:
        if not self.unmatched:
            return None
        gone = "entry no longer occurs" if self.unmatched == 1 else "entries no longer occur"
        return (
            f"{self.unmatched} baseline {gone}: `skilllint check --write-baseline {shlex.quote(self.shown)}` "
            f"drops {'it' if self.unmatched == 1 else 'them'}."
        )

    def notes(self) -> list[str]:
        """The summary's sentences about the baseline."""
        return [note for note in (self.matched_note(), self.unmatched_note()) if note]


# -- where ---------------------------------------------------------------------------------


def locate(settings, cwd: Path, option: str | None) -> Location | None:
    """The run's baseline: ``--baseline`` (relative to the working directory), else ``baseline``
    in the configuration (relative to that file, and inside its project), else none."""
    if option:
        return Location(Path(os.path.normpath(cwd / os.path.expanduser(option))), option)
    value = getattr(settings, "baseline", None)
    if not value:
        return None
    from ..config.settings import repository_root
    from ..fsafe import is_within

    project = Path(os.path.normpath(repository_root(settings.base) or settings.base))
    target = Path(os.path.normpath(os.path.join(settings.base, os.path.expanduser(value))))
    if not is_within(project, target) or target == project:
        raise BaselineError(
            f"{settings.config_path or 'configuration'}: baseline: {value!r} leads outside {project}, "
            "the project of this configuration; a baseline elsewhere is given with --baseline"
        )
    from ..output import display_path

    return Location(target, display_path(target, cwd), project)


def output_location(option: str, cwd: Path) -> Location:
    return Location(Path(os.path.normpath(cwd / os.path.expanduser(option))), option)


# -- keys ----------------------------------------------------------------------------------


def _relative(path: Path, folder: Path) -> str:
    try:
        return os.path.relpath(path, folder).replace(os.sep, "/")
    except ValueError:  # another drive on Windows
        return path.as_posix()


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def keyed(diagnostics: list[Diagnostic], folder: Path) -> list[tuple[tuple[str, str, str], str]]:
    """((code, path from ``folder``, fingerprint), flagged text) of each diagnostic."""
    from ..output.conceal import conceals, shown_line
    from ..output.full import _Sources
    from ..output.sarif import flagged_text

    sources = _Sources()
    out = []
    for diag in diagnostics:
        rel = _relative(diag.path, folder)
        line, snippet = flagged_text(diag, sources)
        shown = snippet or line
        if conceals(diag.code):  # a credential: the reader sees its line with it blanked
            shown = " ".join(shown_line(diag, sources.line(diag.path, diag.span.line) or "").split())
        out.append(((diag.code, rel, _digest(diag.code, rel, line, snippet)), shown))
    return out


# -- writing -------------------------------------------------------------------------------


def render(diagnostics: list[Diagnostic], folder: Path, kept: list[dict] = ()) -> str:
    """The baseline file holding ``diagnostics`` and the entries ``kept`` of an earlier one,
    for a file in ``folder``."""
    entries = [
        {name: entry[name] for name in ("code", "path", "fingerprint", "message", "text") if isinstance(entry.get(name), str)}
        for entry in kept
    ]
    for diag, ((code, rel, fingerprint), text) in zip(diagnostics, keyed(diagnostics, folder)):
        entries.append(
            {
                "code": code,
                "path": rel,
                "fingerprint": fingerprint,
                "message": clipped(diag.message, _EXCERPT_CHARS),
                "text": clipped(text, _EXCERPT_CHARS),
            }
        )
    entries.sort(key=lambda e: (e["path"], e["code"], e.get("text", ""), e["fingerprint"], e.get("message", "")))
    document = {"version": FORMAT_VERSION, "entries": entries}
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return _HIDDEN.sub(lambda m: json.dumps(m.group())[1:-1], text) + "\n"


def write(location: Location, diagnostics: list[Diagnostic], scope: Scope | None = None) -> tuple[int, int]:
    """Write the baseline of ``diagnostics`` at ``location``, atomically: (entries written,
    entries kept). With ``scope`` (what the run judged), the entries of an earlier baseline
    that it did not judge are kept: a run on some skills, or with some rules, rewrites
    theirs only."""
    from ..fsafe import UnsafeFile
    from ..safewrite import SafeFolder

    kept: list[dict] = []
    if scope is not None and os.path.lexists(location.path):
        try:
            earlier = _load(location)
        except BaselineError:
            earlier = []  # not a baseline: replaced whole
        kept = [e for e in earlier if not scope.judges(location.folder, e["code"], e["path"])]
    data = render(diagnostics, location.folder, kept).encode("utf-8")
    try:
        with SafeFolder.trusted(str(location.folder)) as folder:
            folder.write_atomic(location.path.name, data, mode=0o666)  # as any new file: the umask decides
    except FileNotFoundError:
        raise BaselineError(f"cannot write {location.shown}: no folder {location.folder}") from None
    except (OSError, UnsafeFile) as exc:
        raise BaselineError(f"cannot write {location.shown}: {getattr(exc, 'strerror', None) or exc}") from None
    return len(diagnostics) + len(kept), len(kept)


# -- reading -------------------------------------------------------------------------------


def _read_bytes(location: Location) -> bytes:
    from ..fsafe import UnsafeFile, read_capped, real_path
    from ..safewrite import SafeFolder

    try:
        if location.project is None:  # the user's own choice: links and all
            real = real_path(location.path)
            if not os.path.lexists(real):
                raise FileNotFoundError(real)
            return read_capped(real, MAX_BASELINE_BYTES, whole=True).data
        # From a configuration: each folder below the project a real one, the file no link;
        # nothing outside the project is looked at, not even to say that it is missing.
        parts = os.path.relpath(location.path, location.project).split(os.sep)
        chain = [SafeFolder.trusted(str(location.project))]
        try:
            for part in parts[:-1]:
                chain.append(chain[-1].child(part))
            if not chain[-1].lexists(parts[-1]):
                raise FileNotFoundError(location.path)
            return chain[-1].read(parts[-1], MAX_BASELINE_BYTES).data
        finally:
            for folder in chain:
                folder.close()
    except FileNotFoundError:
        raise BaselineError(
            f"{location.shown}: baseline file not found; `skilllint check --write-baseline {shlex.quote(location.shown)}` writes one"
        ) from None
    except UnsafeFile as exc:
        raise BaselineError(f"{location.shown}: cannot read the baseline ({exc})") from None
    except OSError as exc:
        raise BaselineError(f"{location.shown}: cannot read the baseline ({exc.strerror or exc})") from None


def read(location: Location) -> Counter:
    """The entries of the baseline at ``location``, counted by (code, path, fingerprint)."""
    return Counter((entry["code"], entry["path"], entry["fingerprint"]) for entry in _load(location))


def _load(location: Location) -> list[dict]:
    """The entries of the baseline at ``location``, checked."""
    data = _read_bytes(location)
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise BaselineError(f"{location.shown}: not a skilllint baseline (not UTF-8 text)") from None
    except ValueError as exc:
        raise BaselineError(f"{location.shown}: not a skilllint baseline (invalid JSON: {exc})") from None
    except RecursionError:
        raise BaselineError(f"{location.shown}: not a skilllint baseline (JSON nested too deeply)") from None
    return _entries(document, location.shown)


def _entries(document, shown: str) -> list[dict]:
    def wrong(what: str) -> BaselineError:
        return BaselineError(f"{shown}: not a skilllint baseline ({what}); `skilllint check --write-baseline` writes one")

    if not isinstance(document, dict):
        raise wrong("expected a JSON object with `version` and `entries`")
    version = document.get("version")
    if type(version) is not int:
        raise wrong("no integer `version`")
    if version != FORMAT_VERSION:
        raise BaselineError(f"{shown}: a baseline of format version {version}; this skilllint reads version {FORMAT_VERSION}")
    entries = document.get("entries")
    if not isinstance(entries, list):
        raise wrong("`entries` is not a list")
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise wrong(f"entries[{number}] is not an object")
        for name in ("code", "path", "fingerprint"):
            if not isinstance(entry.get(name), str) or not entry[name]:
                raise wrong(f"entries[{number}]: `{name}` is not a non-empty string")
    return entries


# -- filtering -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class Scope:
    """What a run judged: the trees it searched (normalised absolute paths: the folders it
    was given, and the skills it linted) and the rules it ran."""

    roots: frozenset[str]
    codes: frozenset[str]

    def judges(self, folder: Path, code: str, path: str) -> bool:
        """Whether the run judged an entry of ``code`` at ``path`` (from ``folder``)."""
        return code in self.codes and _inside(os.path.join(folder, path), self.roots)


def _inside(path: str, roots) -> bool:
    """Whether ``path`` (normalised here) is one of ``roots`` or below one."""
    path = os.path.normpath(path)
    while True:
        if path in roots:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def apply(result, counts: Counter, location: Location, limit: int, lint_limit: int, scope: Scope) -> Outcome:
    """Drop from ``result`` the findings ``counts`` holds (each entry absorbs one), then cap
    what is left at ``limit`` per rule and file: the run linted with ``lint_limit``, so that
    findings in the baseline did not take the room of those that are not.

    An entry that matched nothing counts as gone only if the run judged it (``scope``): a
    run on a few skills (pre-commit), or with a few rules, says nothing of the others."""
    from ..lint.engine import left_out_by_code
    from ..findingcap import cap, left_out_summary

    remaining = Counter(counts)
    kept = []
    for diag, (key, _) in zip(result.diagnostics, keyed(result.diagnostics, location.folder)):
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            kept.append(diag)
    matched = len(result.diagnostics) - len(kept)
    gone = sum(n for (code, path, _), n in remaining.items() if n > 0 and scope.judges(location.folder, code, path))
    if limit < lint_limit:
        kept = cap(kept, limit)
        kept.sort(key=Diagnostic.sort_key)
    note = left_out_summary(result.left_out, lint_limit)
    if note in result.warnings:
        result.warnings.remove(note)
    result.diagnostics = kept
    result.left_out = left_out_by_code(kept)
    note = left_out_summary(result.left_out, limit)
    if note:
        result.warnings.append(note)
    outcome = Outcome(location.shown, matched, gone)
    result.baseline = outcome
    return outcome
