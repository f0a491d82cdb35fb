"""Results of earlier runs, kept in ``.skilllint_cache/`` so an unchanged skill is not linted again.

A package's rules see the files of the package, where it lies, and the plugin
manifests above it (target inference, Codex's plugin namespace). The key hashes
all of that without reading a file: every entry's ``lstat`` (mode, size,
mtime, inode) and link text, the package's path, real path and lint root, the
manifests' ``lstat`` — with the skilllint code, the rule plugins and the run's
settings. A hit returns the package's diagnostics as they were.

* Rules whose result depends on other folders (SL520 counts a skills root's
  folders) say ``cacheable = False`` and always run; catalog rules are never
  cached (they see the whole catalog). A rule that only asks whether a path
  beyond the package exists (SL301/SL302 on a reference that climbs out of the
  skill) does so through the package, which records the answer; the entry keeps
  these probes and a hit must find every one the same again.
* Which rules run on a skill nested too deep for Claude Code to list depends on
  whether a listed skill links to it (other skills' files): the entry of such a
  skill keeps that answer, and a hit must find it the same again. Only such
  entries hold it (where a skill lies is in the key), so no other skill pays for
  the question, and the links are read once per skills folder.
* A file changed within the last two seconds makes its package uncacheable for
  now (as git treats "racily clean" files): two writes of the same size inside
  one timestamp tick would otherwise look unchanged.
* Beside the results, ``token-counts.json`` keeps token counts of long texts'
  parts by content hash (:class:`TokenCounts`), and ``catalog-entries.json``
  each skill's catalog entry (:mod:`skilllint.catalog.entries`).
* Entries are JSON, never pickle: a cache folder may come from anywhere (a
  cloned repository, an archive) and reading it must not run code. Each entry
  is one file written under a temporary name and renamed into place, so
  concurrent runs never see half an entry.
* A cache folder inside the tree is as untrusted as the tree. Its folders are
  opened level by level without following a link (:class:`CacheFolder`); its
  files are read as skill files are (:func:`skilllint.fsafe.read_capped`: no
  link, regular files only, size-capped) and parsed only when they cannot take
  far more memory than their size (:func:`parse_json`); every entry is checked
  against its shape and bounds, and a finding's paths must lie in the package
  it belongs to. Anything odd is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from . import __version__
from .diagnostics import Diagnostic, Edit, Fix, Related, Severity, Span
from .fsafe import SafeFolder, UnsafeFile, is_within, plain_file
from .targets import TARGET_IDS

FORMAT = "1"
RACY_SECONDS = 2.0
MANIFESTS = ((".claude-plugin", "plugin.json"), (".codex-plugin", "plugin.json"))
# The largest result file read or written: a skill with 5,000 findings takes ~4 MB.
MAX_RESULT_BYTES = 8 * 1024 * 1024
# A package's lookups beyond itself are bounded by its references (at most 100,000 are kept).
MAX_PROBES = 100_000
MAX_PROBE_CHARS = 4096
GITIGNORE = "# created by skilllint\n*\n"


class CacheFolder:
    """A folder of the cache: ``anchor`` is trusted (the user's choice, or the root of the
    repository), and each of ``parts`` below it must be a real folder, never a link.

    :meth:`open` walks down with :class:`skilllint.fsafe.SafeFolder` (``O_NOFOLLOW``
    at each level) and keeps the last level open for the run, so a link planted
    anywhere below the anchor is never followed. ``problem`` says why the folder
    cannot be used (a link or a file in the place of a folder). The folder at
    index ``ignored`` of the chain (0: the anchor) gets a ``.gitignore`` when made.
    """

    def __init__(self, anchor: str | Path, parts: tuple[str, ...] = (), ignored: int | None = None) -> None:
        self.anchor = str(anchor)
        self.parts = tuple(parts)
        self.path = Path(self.anchor, *self.parts)
        self.ignored = ignored
        self.problem: str | None = None
        self._open: SafeFolder | None = None

    def open(self, create: bool = False) -> SafeFolder | None:
        """The folder, made first when ``create`` (None: not there, or not usable;
        an OSError when it cannot be made)."""
        if self._open is not None or self.problem is not None:
            return self._open
        chain: list[SafeFolder] = []
        where = self.anchor
        try:
            made = create and not os.path.isdir(self.anchor)
            chain.append(SafeFolder.trusted(self.anchor, create))
            if made and self.ignored == 0:
                chain[-1].write_atomic(".gitignore", GITIGNORE.encode())
            for depth, name in enumerate(self.parts, 1):
                where = os.path.join(where, name)
                try:
                    chain.append(chain[-1].child(name))
                except FileNotFoundError:
                    if not create:
                        return None
                    chain.append(chain[-1].child(name, create=True))
                    if self.ignored == depth:  # never committed by accident, as ruff's cache does it
                        chain[-1].write_atomic(".gitignore", GITIGNORE.encode())
        except FileNotFoundError:
            return None
        except UnsafeFile as exc:
            self.problem = f"{where}: {exc}; the result cache is not used"
            return None
        finally:
            for folder in chain[:-1]:
                folder.close()
        self._open = chain[-1]
        return self._open

    def read(self, name: str, cap: int) -> bytes | None:
        """The bytes of the file ``name`` (None: absent, not a regular file, or over ``cap``)."""
        try:
            folder = self.open()
            return folder.read(name, cap).data if folder is not None else None
        except (UnsafeFile, OSError):
            return None

    def write(self, name: str, data: bytes) -> None:
        """Replace the file ``name`` atomically (OSError when the folder cannot be made or written)."""
        folder = self.open(create=True)
        if folder is None:
            raise OSError(self.problem or f"{self.path}: cannot be used")
        folder.write_atomic(name, data)


def parse_json(data: bytes) -> object:
    """The JSON value of a cache file, or None when it is not UTF-8 JSON, is nested deeper than
    the parser goes, or would take far more memory than its size once loaded (``[[],[],…]``
    takes 30 times its size: each value costs an object and a pointer, some 70 bytes)."""
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    if 72 * values > 5 * len(data) + 65536:  # skilllint's own files stay under 2.5 times
        return None
    try:
        return json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        return None


class ResultCache:
    """The results of earlier runs, in ``v1`` of the cache folder ``folder`` (:func:`open_cache`)."""

    def __init__(self, folder: CacheFolder, settings) -> None:
        self.folder = CacheFolder(folder.anchor, (*folder.parts, f"v{FORMAT}"), ignored=len(folder.parts))
        self.directory = self.folder.path
        self.salt = _settings_salt(settings)
        # What a cached finding may say: the codes (and names) of the rules whose findings are kept.
        self._names = {
            r.code: r.name
            for r in settings.enabled_rules()
            if not getattr(r, "catalog_rule", False) and getattr(r, "cacheable", True)
        }
        self._entries = None
        self._token_counts: TokenCounts | None = None
        self._manifests: dict[str, list] = {}  # folder -> its manifests' stamps, for the run
        self._subfolders: dict[str, SafeFolder] = {}  # the (at most 256) result folders opened, for the run
        self.usable = True

    @property
    def problem(self) -> str | None:
        """Why the cache is not used (a link in the place of one of its folders), for the user."""
        return self.folder.problem

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
        source = _linked_skill_md(package, now_ns) if links else ()
        if source is None:
            return None
        parts = [
            self.salt,
            str(package.root),
            package.real_root,
            str(package.lint_root),
            sorted(inventory.stamps),
            links,
            source,
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
        try:
            return self.usable and self.folder.open() is not None
        except OSError:
            return False

    def get(self, key: str, package, targets, documents_hold=None) -> list[Diagnostic] | None:
        """The package's findings kept under ``key``, or None: absent, or not a result
        skilllint could have written for this package and these targets. ``documents_hold``:
        given the targets an entry was made for as reading the skill through a link, whether
        they still do (:meth:`skilllint.config.Settings.reads_as_document`); asked only of
        an entry that rests on that answer."""
        try:
            sub = self._subfolder(key[:2], create=False)
            if sub is None:
                return None
            result = sub.read(f"{key[2:]}.json", MAX_RESULT_BYTES)
        except (OSError, UnsafeFile):
            return None
        data = parse_json(result.data)
        if not _probes_hold(data, package) or not _documents_hold(data, documents_hold):
            return None
        return checked_diagnostics(data, package, self._names, {t.id for t in targets})

    def put(
        self,
        key: str,
        diagnostics: list[Diagnostic],
        probes: dict[str, bool] | None = None,
        documents: tuple[str, ...] | None = None,
    ) -> None:
        """Keep a package's findings; ``probes``: the paths beyond the package its rules looked up
        in the linted tree and what they found (a hit must find the same again); ``documents``:
        for a skill some target never lists, the targets that read it through a link all the same
        (a hit must find the same again), None for a skill every target lists."""
        if not self.usable:
            return
        entry: dict = {"diagnostics": [encode(d) for d in diagnostics]}
        if probes:
            entry["probes"] = sorted([path, found] for path, found in probes.items())
        if documents is not None:
            entry["documents"] = list(documents)
        data = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")
        if len(data) > MAX_RESULT_BYTES:
            return  # it would not be read back
        try:
            sub = self._subfolder(key[:2], create=True)
            if sub is None:
                self.usable = False  # a link where a folder should be: never written through
                return
            sub.write_atomic(f"{key[2:]}.json", data)
        except (OSError, UnsafeFile):
            self.usable = False  # a read-only tree: lint on, uncached

    def _subfolder(self, name: str, create: bool) -> SafeFolder | None:
        """The result folder ``name`` (two hex digits of a key), opened once (None: not there)."""
        sub = self._subfolders.get(name)
        if sub is None and self.usable:
            folder = self.folder.open(create)
            if folder is None:
                return None
            try:
                sub = self._subfolders[name] = folder.child(name, create)
            except FileNotFoundError:
                return None
        return sub

    def token_counts(self) -> TokenCounts | None:
        if self._token_counts is None and self.usable:
            self._token_counts = TokenCounts(self.folder)
        return self._token_counts

    def catalog_entries(self):
        """The skills' catalog entries of earlier runs (:mod:`skilllint.catalog.entries`), kept beside the results."""
        from .catalog.entries import CatalogEntries

        if self._entries is None:
            salt = hashlib.sha256(json.dumps([FORMAT, __version__, _CODE_STAMP]).encode()).hexdigest()
            self._entries = CatalogEntries(self.folder, salt) if self.usable else None
        return self._entries


class TokenCounts:
    """Token counts of text parts by content hash (the store of :func:`skilllint.tokens.use_count_store`),
    kept in one file beside the results: an edited long skill needs only its edited parts counted.

    A key names the encoding and the part's sha256, so an entry is right for any
    code and settings. Worker processes hand their new counts to the main process
    (:meth:`take_new`, :meth:`add`), which alone saves; a concurrent run's counts
    may be lost (the last to save wins), never mixed, as the file is written whole.
    """

    def __init__(self, folder: CacheFolder | Path) -> None:
        self.folder = folder if isinstance(folder, CacheFolder) else CacheFolder(folder)
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
            self.folder.write(TOKEN_COUNTS_FILE, json.dumps({"format": 1, "counts": kept}).encode())
        except (OSError, UnsafeFile):
            pass  # a read-only tree: the next run counts again
        self._changed = False

    def load(self) -> dict[str, int]:
        if self._stored is None:
            self._stored = {}
            data = self.folder.read(TOKEN_COUNTS_FILE, MAX_TOKEN_COUNTS_BYTES)
            data = parse_json(data) if data is not None else None  # absent or torn: every part is counted again
            counts = data.get("counts") if isinstance(data, dict) and data.get("format") == 1 else None
            if isinstance(counts, dict):
                # a key names an encoding and a hash; a count is a whole number, never a bool (JSON
                # true would load as one); tokens.py checks it against the bytes of its part
                self._stored = {
                    k: v for k, v in counts.items() if len(k) <= MAX_TOKEN_KEY and type(v) is int and 0 <= v <= MAX_COUNT
                }
        return self._stored


TOKEN_COUNTS_FILE = "token-counts.json"
MAX_TOKEN_COUNTS = 50_000  # parts of ~430 characters: some 20 MB of text, in a file of ~2.5 MB
MAX_TOKEN_COUNTS_BYTES = 8 * 1024 * 1024
MAX_TOKEN_KEY = 100  # "o200k_base:" and 32 hex digits
MAX_COUNT = 2**31


def used_first(used: dict, stored: dict, limit: int) -> dict:
    """What a bounded store file keeps: this run's entries, then earlier ones while there is room."""
    kept = dict(used)
    for key, value in stored.items():
        if len(kept) >= limit:
            break
        kept.setdefault(key, value)
    return kept


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
                info = plain_file(folder, *parts)  # as the rules find them: no link followed
                if info is not None:
                    found.append((folder, *parts, info.st_size, info.st_mtime_ns, info.st_ino))
        stamps.extend(found)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return stamps


def _linked_skill_md(package, now_ns: int) -> tuple | None:
    """When SKILL.md is a link, the file read in its place (its real path and ``lstat``): what the
    key must cover besides the package's own entries; () when it is no link, None when it is racy."""
    name = package.skill_md_name
    entry = package.inventory.entries.get(name) if name else None
    if entry is None or entry.kind != "symlink":
        return ()
    source = package.skill_md_source  # a real path inside the linted tree, or why it is not read
    if not isinstance(source, Path):
        return (str(source),)
    try:
        info = os.lstat(source)
    except OSError as exc:
        return (str(source), exc.errno)
    if now_ns - info.st_mtime_ns < RACY_SECONDS * 1e9:
        return None
    return (str(source), info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)


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


# -- what a result file may hold ---------------------------------------------------------

MAX_POSITION = 2**31  # a line, column or offset past any file skilllint reads
APPLICABILITIES = ("safe", "unsafe")


class _Refused(Exception):
    """A result file holds something skilllint would not have written: a miss."""


def _probes_hold(data: object, package) -> bool:
    """Whether every path beyond the package that the cached result rests on is found as it was
    (a sibling skill created since would make "no such file" stale). A probe is looked up only
    inside the linted tree (:meth:`skilllint.package.SkillPackage.exists_in_tree`): a cache file
    naming other places is refused, not followed."""
    if type(data) is not dict:
        return False
    probes = data.get("probes", [])
    if type(probes) is not list or len(probes) > MAX_PROBES:
        return False
    for probe in probes:
        if type(probe) is not list or len(probe) != 2 or type(probe[0]) is not str or type(probe[1]) is not bool:
            return False
        if len(probe[0]) > MAX_PROBE_CHARS or package.exists_in_tree(probe[0]) is not probe[1]:
            return False
    return True


def _documents_hold(data: dict, documents_hold) -> bool:
    """Whether the targets that read a nested skill through a link are those the cached result
    was made for (an entry without the answer was made for a skill every target lists: the key
    covers where it lies and the plugin manifests above it)."""
    if "documents" not in data:
        return True
    kept = data["documents"]
    if type(kept) is not list or len(kept) > len(TARGET_IDS) or any(t not in TARGET_IDS for t in kept):
        return False
    return documents_hold is not None and documents_hold(tuple(kept))


def checked_diagnostics(data: object, package, names: dict[str, str], targets: set[str]) -> list[Diagnostic] | None:
    """The findings of a result file (:func:`encode`'s form), or None unless every one is what
    skilllint could have written for ``package``: a kept rule's code and name (``names``), a
    severity, targets among ``targets``, text where text goes, positions in bounds, and paths
    inside the package (a note may also name where one of its links leads).

    Written out in one loop: a warm run checks every finding it reports from the cache."""
    if type(data) is not dict:
        return None
    items = data.get("diagnostics")
    if type(items) is not list:
        return None
    paths = _PackagePaths(package)
    inside, noted, checked = paths.inside, paths.noted, paths.checked
    known_targets: dict[tuple, tuple] = {}
    found = []
    try:
        for item in items:
            code, severity, message = item["code"], item["severity"], item["message"]
            if names.get(code) != item["name"] or type(severity) is not int or type(message) is not str:
                raise _Refused
            level = _SEVERITIES[severity]
            shared = tuple(item["targets"])
            if type(item["targets"]) is not list:
                raise _Refused
            kept = known_targets.get(shared)
            if kept is None:
                if not targets.issuperset(shared):
                    raise _Refused
                kept = known_targets[shared] = shared
            fix = item.get("fix")
            if fix is not None:
                fix = _checked_fix(fix, inside)
            related = item["related"]
            left_out = item.get("left_out", 0)
            if type(related) is not list or type(left_out) is not int or not 0 <= left_out <= MAX_LEFT_OUT:
                raise _Refused
            notes = []
            for note in related:
                if type(note) is not list or len(note) != 3 or type(note[0]) is not str:
                    raise _Refused
                where = checked.get(note[1]) if type(note[1]) is str else None
                notes.append(Related(note[0], where or noted(note[1]), _span_of(note[2])))
            found.append(
                Diagnostic(
                    code=code,
                    name=item["name"],
                    severity=level,
                    targets=kept,
                    message=message,
                    path=(type(item["path"]) is str and checked.get(item["path"])) or inside(item["path"]),
                    span=_span_of(item["span"]),
                    fix=fix,
                    related=tuple(notes),
                    left_out=left_out,
                )
            )
    except (_Refused, KeyError, TypeError, ValueError):  # a missing key, a value of the wrong kind
        return None
    return found


_SEVERITIES = {int(s): s for s in Severity}
MAX_LEFT_OUT = 10**9  # findings a rule could leave out in one file: a bound, not a count


def _span_of(values: object) -> Span:
    if type(values) is list and len(values) == 4:
        a, b, c, d = values
        if (
            type(a) is int
            and type(b) is int
            and type(c) is int
            and type(d) is int
            and 0 <= a <= MAX_POSITION
            and 0 <= b <= MAX_POSITION
            and 0 <= c <= MAX_POSITION
            and 0 <= d <= MAX_POSITION
        ):
            return Span(a, b, c, d)
    raise _Refused


def _offset(value: object) -> int | None:
    if value is None or (type(value) is int and 0 <= value <= MAX_POSITION):
        return value
    raise _Refused


def _checked_fix(raw: object, inside) -> Fix:
    if type(raw) is not dict or type(raw.get("message")) is not str or raw.get("applicability") not in APPLICABILITIES:
        raise _Refused
    edits = raw.get("edits")
    if type(edits) is not list:
        raise _Refused
    checked = []
    for edit in edits:
        if type(edit) is not list or len(edit) != 5 or type(edit[2]) is not str:
            raise _Refused
        path, span, text, start, end = edit
        checked.append(Edit(inside(path), _span_of(span), text, _offset(start), _offset(end)))
    return Fix(raw["message"], raw["applicability"], tuple(checked))


class _PackagePaths:
    """The paths a package's findings may name, one Path object per text: files of the package,
    and for a note also where its links lead (its real location, SKILL.md's, a link's target)."""

    def __init__(self, package) -> None:
        self.package = package
        self.root = str(package.root)
        self._below = self.root.rstrip(os.sep) + os.sep
        self.checked: dict[str, Path] = {}  # texts found inside the package
        self._named: set[str] | None = None

    def inside(self, text: object) -> Path:
        found = self.checked.get(text) if type(text) is str else None
        if found is None:
            # on strings, as fsafe.is_within: the package's root and what lies below it, normalised
            if not (type(text) is str and (text == self.root or text.startswith(self._below)) and os.path.normpath(text) == text):
                raise _Refused
            found = self.checked[text] = Path(text)
        return found

    def noted(self, text: object) -> Path:
        try:
            return self.inside(text)
        except _Refused:
            if type(text) is not str or text not in self.named():
                raise
            return Path(text)

    def named(self) -> set[str]:
        """Places outside the package its findings name: its real location, SKILL.md's, and where links lead."""
        if self._named is None:
            from .rules.safety import trace

            package = self.package
            named = {package.real_root}
            if package.skill_md_name is not None:
                named.add(package.real_skill_md)
            for rel, entry in package.inventory.entries.items():
                if entry.link is not None and entry.link.status == "escapes":
                    named.update(p for p in (entry.link.outside, trace(package, rel).outside) if p)
            self._named = named
        return self._named


def open_cache(settings, cwd: Path, override: str | None = None) -> ResultCache | None:
    """The run's cache: ``--cache-dir``, else ``SKILLLINT_CACHE_DIR``, else ``cache-dir`` in the
    configuration, else ``.skilllint_cache`` at the root of the git repository holding ``cwd``.
    Outside a repository, with none of those set, there is no cache: linting a downloaded
    skill or a read-only collection leaves no trace in it.

    A folder named on the command line or in the environment is the user's choice, links and
    all. One from a configuration file (which may come with the linted tree) must lie inside
    that file's project (its repository, else its folder; its own folder when it came with a
    linted tree elsewhere: :attr:`skilllint.config.Settings.project`): a ``ConfigError`` otherwise. Below
    the trusted folder, no level may be a link (:class:`CacheFolder`); when one is, the run
    goes on without a cache and says why (:attr:`ResultCache.problem`)."""
    from .config import ConfigError, repository_root

    from_env = os.environ.get("SKILLLINT_CACHE_DIR")
    if override or from_env:
        directory = Path(os.path.expanduser(override or from_env))
        folder = CacheFolder(directory if directory.is_absolute() else cwd / directory)
    elif settings.cache_dir:
        project = settings.project  # its repository or folder; its own folder when it came with a linted tree
        target = os.path.normpath(os.path.join(settings.base, os.path.expanduser(settings.cache_dir)))
        if not is_within(Path(project), Path(target)):
            raise ConfigError(
                f"{settings.config_path or 'configuration'}: cache-dir: {settings.cache_dir!r} leads outside {project}, "
                "the project of this configuration; a cache elsewhere is chosen with --cache-dir or SKILLLINT_CACHE_DIR"
            )
        relative = os.path.relpath(target, project)
        folder = CacheFolder(project, tuple(relative.split(os.sep)) if relative != os.curdir else ())
    else:
        root = repository_root(cwd)
        if root is None:
            return None
        folder = CacheFolder(root, (".skilllint_cache",))
    cache = ResultCache(folder, settings)
    cache.has_results()  # a link in the place of one of its folders: said now, in this process
    return cache
