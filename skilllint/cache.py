"""Results of earlier runs, kept in ``.skilllint_cache/`` so an unchanged skill is not linted again.

A package's rules see the files of the package, where it lies, and the plugin
manifests above it (target inference, Codex's plugin namespace). The key hashes
all of that without reading a file: every entry's ``lstat`` (mode, size,
mtime, inode) and link text, the package's path, real path and lint root, the
manifests' ``lstat`` — with the skilllint code, the rule plugins and the run's
settings. A hit returns the package's diagnostics as they were.

* Rules whose result depends on other folders (SL520 counts a skills root's
  folders) say ``cacheable = False`` and always run; catalog rules are never
  cached (they see the whole catalog).
* A file changed within the last two seconds makes its package uncacheable for
  now (as git treats "racily clean" files): two writes of the same size inside
  one timestamp tick would otherwise look unchanged.
* Beside the results, ``token-counts.json`` keeps token counts of long texts'
  parts by content hash (:class:`TokenCounts`), and ``catalog-entries.json``
  each skill's catalog entry (:mod:`skilllint.catalog.entries`).
* Entries are JSON, never pickle: a cache folder may come from anywhere (a
  cloned repository, an archive) and reading it must not run code. Each entry
  is one file written under a temporary name and renamed into place, so
  concurrent runs never see half an entry; anything unreadable is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path

from . import __version__
from .diagnostics import Diagnostic, Edit, Fix, Related, Severity, Span

FORMAT = "1"
RACY_SECONDS = 2.0
MANIFESTS = ((".claude-plugin", "plugin.json"), (".codex-plugin", "plugin.json"))


class ResultCache:
    def __init__(self, directory: Path, settings) -> None:
        self.directory = directory / f"v{FORMAT}"
        self._folder = str(self.directory)
        self._folders: set[str] = set()  # result folders made by this process
        self.salt = _settings_salt(settings)
        self._entries = None
        self._token_counts: TokenCounts | None = None
        self._manifests: dict[str, list] = {}  # folder -> its manifests' stamps, for the run
        self.usable = True

    # -- keys ----------------------------------------------------------------------

    def key(self, package, targets) -> str | None:
        """The package's key, or None when it cannot be cached now (racy or truncated)."""
        inventory = package.inventory
        if inventory.truncated:
            return None
        now_ns = time.time_ns()
        if any(now_ns - stamp[3] < RACY_SECONDS * 1e9 for stamp in inventory.stamps):
            return None
        links = sorted((rel, e.link.text) for rel, e in inventory.entries.items() if e.link is not None)
        parts = [
            self.salt,
            str(package.root),
            package.real_root,
            str(package.lint_root),
            sorted(inventory.stamps),
            links,
            sorted(inventory.unreadable),
            sorted(inventory.skipped),
            _manifest_stamps(package, self._manifests),
            [t.id for t in targets],
        ]
        # repr, not json.dumps: the same text for the same parts (strings, numbers, tuples), a
        # third of the cost, and keys are computed for every skill of a warm run.
        return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()

    # -- entries -------------------------------------------------------------------

    def has_results(self) -> bool:
        """Whether an earlier run left results here (then most skills are likely unchanged)."""
        return self.directory.is_dir()

    def get(self, key: str) -> list[Diagnostic] | None:
        try:
            with open(self._file(key), encoding="utf-8", errors="surrogateescape") as handle:  # as written
                data = json.load(handle)
            paths: dict[str, Path] = {}  # a skill's findings name few files: one Path each
            diagnostics = [decode(item, paths) for item in data["diagnostics"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return diagnostics

    def put(self, key: str, diagnostics: list[Diagnostic]) -> None:
        if not self.usable:
            return
        path = self._file(key)
        try:
            folder = os.path.dirname(path)
            if folder not in self._folders:
                if not self.directory.parent.exists():
                    self.directory.parent.mkdir(parents=True, exist_ok=True)
                    # never committed by accident, as ruff's cache does it
                    (self.directory.parent / ".gitignore").write_text("# created by skilllint\n*\n", encoding="utf-8")
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            write_atomic(path, json.dumps({"diagnostics": [encode(d) for d in diagnostics]}, ensure_ascii=False))
        except OSError:
            self.usable = False  # a read-only tree: lint on, uncached

    def _file(self, key: str) -> str:
        # a string: Path arithmetic was a fifth of a warm run's lookups
        return f"{self._folder}{os.sep}{key[:2]}{os.sep}{key[2:]}.json"

    def token_counts(self) -> TokenCounts | None:
        if self._token_counts is None and self.usable:
            self._token_counts = TokenCounts(self.directory)
        return self._token_counts

    def catalog_entries(self):
        """The skills' catalog entries of earlier runs (:mod:`skilllint.catalog.entries`), kept beside the results."""
        from .catalog.entries import CatalogEntries

        if self._entries is None:
            salt = hashlib.sha256(json.dumps([FORMAT, __version__, _CODE_STAMP]).encode()).hexdigest()
            self._entries = CatalogEntries(self.directory, salt) if self.usable else None
        return self._entries


class TokenCounts:
    """Token counts of text parts by content hash (the store of :func:`skilllint.tokens.use_count_store`),
    kept in one file beside the results: an edited long skill needs only its edited parts counted.

    A key names the encoding and the part's sha256, so an entry is right for any
    code and settings. Worker processes hand their new counts to the main process
    (:meth:`take_new`, :meth:`add`), which alone saves; a concurrent run's counts
    may be lost (the last to save wins), never mixed, as the file is written whole.
    """

    def __init__(self, directory: Path) -> None:
        self.path = directory / TOKEN_COUNTS_FILE
        self._stored: dict[str, int] | None = None
        self._used: dict[str, int] = {}  # asked for or counted in this run: kept first
        self._new: dict[str, int] = {}  # counted here since the last take_new()
        self._changed = False

    def get(self, key: str) -> int | None:
        count = self._used.get(key)
        if count is None:
            count = self.load().get(key)
            if count is not None:
                self._used[key] = count
        return count

    def put(self, key: str, count: int) -> None:
        self._new[key] = count
        self.add({key: count})

    def take_new(self) -> dict[str, int]:
        """The counts made in this process since the last call (what a worker sends back)."""
        new, self._new = self._new, {}
        return new

    def add(self, counts: dict[str, int]) -> None:
        stored = self.load()
        for key, count in counts.items():
            if stored.get(key) != count:
                self._changed = True
            self._used[key] = count

    def save(self) -> None:
        if not self._changed:
            return
        kept = used_first(self._used, self.load(), MAX_TOKEN_COUNTS)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(str(self.path), json.dumps({"format": 1, "counts": kept}))
        except OSError:
            pass  # a read-only tree: the next run counts again
        self._changed = False

    def load(self) -> dict[str, int]:
        if self._stored is None:
            self._stored = {}
            try:
                with open(self.path, encoding="utf-8") as handle:
                    data = json.load(handle)
                counts = data.get("counts") if isinstance(data, dict) and data.get("format") == 1 else None
                if isinstance(counts, dict):
                    # a count is a whole number, never a bool (JSON true would load as one)
                    self._stored = {k: v for k, v in counts.items() if type(v) is int and v >= 0}
            except (OSError, ValueError):
                pass  # absent or torn: every part is counted again
        return self._stored


TOKEN_COUNTS_FILE = "token-counts.json"
MAX_TOKEN_COUNTS = 50_000  # parts of ~430 characters: some 20 MB of text, in a file of ~2.5 MB


def used_first(used: dict, stored: dict, limit: int) -> dict:
    """What a bounded store file keeps: this run's entries, then earlier ones while there is room."""
    kept = dict(used)
    for key, value in stored.items():
        if len(kept) >= limit:
            break
        kept.setdefault(key, value)
    return kept


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` under a name of its own, then rename it to ``path``: a concurrent
    reader sees the old file or the new one, never half of one. (json.dumps, not
    json.dump, by the callers: the latter runs the pure-Python encoder.)"""
    temporary = os.path.join(os.path.dirname(path), f".tmp-{os.getpid()}-{os.urandom(6).hex()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        # surrogateescape: a file name that is not UTF-8 (os.fsdecode) keeps its bytes
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _manifest_stamps(package, memo: dict) -> list:
    """The plugin manifests above the package, inside its lint root (``memo``: per folder, for siblings)."""
    stamps = []
    lint_root = os.path.normpath(package.lint_root)
    folder = os.path.dirname(str(package.root))
    while folder.startswith(lint_root):
        found = memo.get(folder)
        if found is None:
            found = memo[folder] = []
            for parts in MANIFESTS:
                try:
                    info = os.lstat(os.path.join(folder, *parts))
                except OSError:
                    continue
                found.append((folder, *parts, info.st_size, info.st_mtime_ns, info.st_ino))
        stamps.extend(found)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return stamps


def _code_stamp() -> list:
    """The installed skilllint code (an editable checkout changes without a version bump)."""
    here = Path(__file__).parent
    stamps = []
    for path in sorted(here.rglob("*.py")):
        info = path.stat()
        stamps.append((str(path.relative_to(here)), info.st_size, info.st_mtime_ns))
    return stamps


# Stamped once, when this module is imported: a process that loaded older code and runs
# on after the files change must not file its results under the new code's stamp.
_CODE_STAMP = _code_stamp()


def _plugin_stamp(rules) -> list:
    """The files of rule plugins (third-party code changes without skilllint's)."""
    import sys

    stamps = []
    for module in sorted({r.__module__ for r in rules if not r.__module__.startswith("skilllint.")}):
        path = getattr(sys.modules.get(module), "__file__", None)
        try:
            info = os.stat(path) if path else None
        except OSError:
            info = None
        stamps.append((module, path, info.st_size if info else None, info.st_mtime_ns if info else None))
    return stamps


def _settings_salt(settings) -> str:
    rules = [r for r in settings.enabled_rules()]
    parts = {
        "format": FORMAT,
        "version": __version__,
        "code": _CODE_STAMP,
        "plugins": _plugin_stamp(rules),
        "rules": [(r.code, r.__module__, settings.options_for(r), str(settings.severity_override(r))) for r in rules],
        "targets": settings.targets,
        "per_file_ignores": settings.per_file_ignores,
        "base": str(settings.base),
        "max_findings_per_rule_per_file": settings.max_findings_per_rule_per_file,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


# -- the JSON form of a diagnostic ------------------------------------------------------


def _span(span: Span) -> list[int]:
    return [span.line, span.column, span.end_line, span.end_column]


def encode(d: Diagnostic) -> dict:
    item = {
        "code": d.code,
        "name": d.name,
        "severity": int(d.severity),
        "targets": list(d.targets),
        "message": d.message,
        "path": str(d.path),
        "span": _span(d.span),
        "related": [[r.message, str(r.path), _span(r.span)] for r in d.related],
    }
    if d.left_out:
        item["left_out"] = d.left_out
    if d.fix is not None:
        item["fix"] = {
            "message": d.fix.message,
            "applicability": d.fix.applicability,
            "edits": [[str(e.path), _span(e.span), e.text, e.start, e.end] for e in d.fix.edits],
        }
    return item


def decode(item: dict, paths: dict[str, Path] | None = None) -> Diagnostic:
    """A diagnostic from :func:`encode`'s form; ``paths`` shares Path objects between calls."""
    paths = {} if paths is None else paths

    def path_of(text: str) -> Path:
        found = paths.get(text)
        if found is None:
            found = paths[text] = Path(text)
        return found

    fix = None
    if "fix" in item:
        raw = item["fix"]
        fix = Fix(
            raw["message"],
            raw["applicability"],
            tuple(Edit(path_of(p), Span(*s), text, start, end) for p, s, text, start, end in raw["edits"]),
        )
    return Diagnostic(
        code=item["code"],
        name=item["name"],
        severity=Severity(item["severity"]),
        targets=tuple(item["targets"]),
        message=item["message"],
        path=path_of(item["path"]),
        span=Span(*item["span"]),
        fix=fix,
        related=tuple(Related(m, path_of(p), Span(*s)) for m, p, s in item["related"]),
        left_out=item.get("left_out", 0),
    )


def open_cache(settings, cwd: Path, override: str | None = None) -> ResultCache | None:
    """The run's cache: ``--cache-dir``, else ``SKILLLINT_CACHE_DIR``, else ``cache-dir`` in the
    configuration, else ``.skilllint_cache`` at the root of the git repository holding ``cwd``.
    Outside a repository, with none of those set, there is no cache: linting a downloaded
    skill or a read-only collection leaves no trace in it."""
    import os

    from_env = os.environ.get("SKILLLINT_CACHE_DIR")
    if override or from_env:
        directory = Path(os.path.expanduser(override or from_env))
        return ResultCache(directory if directory.is_absolute() else cwd / directory, settings)
    if settings.cache_dir:
        directory = Path(os.path.expanduser(settings.cache_dir))
        return ResultCache(directory if directory.is_absolute() else settings.base / directory, settings)
    for folder in (cwd, *cwd.parents):
        if os.path.lexists(folder / ".git"):
            return ResultCache(folder / ".skilllint_cache", settings)
    return None
