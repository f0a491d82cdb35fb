"""Results of earlier runs, kept in ``.skilllint_cache/`` so an unchanged skill is not linted again.

A package's rules see the files of the package, where it lies, and the plugin
manifests above it (target inference, Codex's plugin namespace). The key hashes
all of that — with the skilllint code (by content), the rule plugins and the
run's settings — and a hit returns the package's diagnostics as they were.

* The key hashes what the rules can read: each file's content, mode and size;
  the other entries' kinds; the manifests' contents; and where the package lies
  as paths below an anchor (the lint root, or the configuration's folder above
  it) and the anchor's own name, never an absolute path. A cache restored into
  a checkout elsewhere (CI: every file has a new mtime and inode, the repository
  another path) finds the same keys, and its entries' paths move to the
  package's root there (:meth:`ResultCache._placed`).
* No file is read only to key it while ``lstat`` proves it unchanged: the stat
  memo (:class:`StampKeys`, ``stamp-keys.json``) keeps each package's content key
  by the ``lstat`` (mode, size, mtime, inode, ctime) of all it was made from, so
  a warm run reads no file. When one of them changed (an edit, a ``touch``, a
  fresh checkout), the package's files are read and hashed; when their content
  is what it was, its result is found all the same, and the memo learns the new
  stamps. (A memo per file would spare reading an edited skill's other files,
  which the rules read anyway, at the price of loading and rewriting a far
  larger file on every run after an edit.)
* Where a result may depend on where the tree lies beyond that — a link in the
  package or on the way to it, rule plugins, a tree inside a ``.claude/skills``
  folder — or a file is larger than the read cap (hashing it would read more of
  it than the rules do), the key is made of ``lstat`` and absolute paths instead
  (:meth:`ResultCache._stat_key`), as before: found again in this checkout only.
  A finding about a path beyond the tree (SL302 names the folder a reference
  climbs to) keeps its entry in its place too.
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
* A file changed within the last two seconds (as git treats "racily clean"
  files: two writes of the same size inside one timestamp tick share a stamp)
  is neither remembered in the memo nor lets its package's result be filed;
  a content key is still looked up. A result is filed only when the package's
  entries are, once linted, as ``lstat`` found them when the key was made: one
  linted from a file written meanwhile would sit under the old content's key.
* Beside the results, ``token-counts.json`` keeps token counts of long texts'
  parts by content hash (:class:`TokenCounts`), and ``catalog-entries.json``
  each skill's catalog entry (:mod:`skilllint.lint.catalog_entries`).
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
  it belongs to. Anything odd is a miss. An entry that passes is served as it
  is: content keys can be computed by anyone who has the tree, so a cache that
  comes with a tree speaks for it as its configuration does (which can turn
  rules off).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

from .. import __version__
from ..diagnostics import Diagnostic, Edit, Fix, Related, Severity, Span
from ..fsafe import SafeFolder, UnsafeFile, content_digest, file_stamp, is_within, plain_file
from ..targets import TARGET_IDS, claude_code

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
                chain[-1].write_atomic(".gitignore", GITIGNORE.encode(), durable=False)
            for depth, name in enumerate(self.parts, 1):
                where = os.path.join(where, name)
                try:
                    chain.append(chain[-1].child(name))
                except FileNotFoundError:
                    if not create:
                        return None
                    chain.append(chain[-1].child(name, create=True))
                    if self.ignored == depth:  # never committed by accident, as ruff's cache does it
                        chain[-1].write_atomic(".gitignore", GITIGNORE.encode(), durable=False)
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
        folder.write_atomic(name, data, durable=False)  # a lost or torn file reads as a miss


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
        self.settings = settings
        self.hashes = FileHashes()
        self.stamp_keys = StampKeys(self.folder)
        self.salt = _settings_salt(settings, self.hashes, self.stamp_keys)
        self._slot = hashlib.sha256(repr(self.salt).encode()).hexdigest()[:12]  # one key memo slot a package per settings
        self.usable = self.salt is not None  # None: skilllint's code changed since this process loaded it
        # What a cached finding may say: the codes (and names) of the rules whose findings are kept.
        self._names = {
            r.code: r.name
            for r in settings.enabled_rules()
            if not r.catalog_rule and r.cacheable
        }
        self.catalog_entries = None  # made by skilllint.lint.catalog_entries.entries_beside, which builds on this module
        self._token_counts: TokenCounts | None = None
        self._manifests: dict[str, list] = {}  # folder -> its manifests' stamps, for the run
        self._subfolders: dict[str, SafeFolder] = {}  # the (at most 256) result folders opened, for the run
        # Rule plugins may say anything about where the tree lies: with one, every key is lstat-based.
        self._plugins = any(not r.__module__.startswith("skilllint.") for r in settings.enabled_rules())
        self._anchors: dict[str, str] = {}  # lint root -> the folder content keys name places from ("": none)
        self._keyed: dict[str, tuple] = {}  # package root -> (anchor, its manifests' stamps), for put()
        self._manifests_up: dict[tuple, tuple] = {}  # (folder, anchor) -> the manifests from it up to the anchor
        self.hits = 0  # lookups that found a result (in this process: a warm run looks up here)
        self.misses = 0

    @property
    def problem(self) -> str | None:
        """Why the cache is not used (a link in the place of one of its folders), for the user."""
        return self.folder.problem

    # -- keys ----------------------------------------------------------------------

    def key(self, package, targets) -> tuple[str, bool] | None:
        """(the package's key, whether a result may be filed under it now: no file changed
        within the last two seconds), or None when the package cannot be cached (its listing
        was cut short; a racy change, for a key made of ``lstat``)."""
        inventory = package.inventory
        if inventory.truncated:
            return None
        place = self._place(package)
        if place is None:
            key = self._stat_key(package, targets)
            return None if key is None else (key, True)
        return self._content_key(package, targets, *place)

    def _place(self, package) -> tuple[str, tuple] | None:
        """(the anchor, where the package lies from it) for a content key, or None when its
        results may depend on where the tree lies: a link in the package or on the way to it
        (its real path, where links lead), rule plugins, an anchor below a ``.claude/skills``
        folder (Claude Code's listing, and the skill a nested one is a document of, lie above);
        or when a file is larger than the read cap (SL011's ``max-bytes``): keyed on content, it
        would be read past what the rules may read of it.

        The anchor is the lint root, or the configuration's folder when that holds it (plugin
        manifests are looked for up to there) or per-file ignores match paths from there (then
        the folder holding both). The place names the anchor's own folder and the paths below
        it, never the absolute path, so the key is the same in a checkout elsewhere (CI). What
        else the rules learn of the place is in the key too (the targets, the plugin manifests
        up to the anchor) or kept with the entry (:meth:`put`: a finding about a path beyond
        the tree)."""
        root = str(package.root)
        if self._plugins or package.real_root != root:
            return None
        cap = package.max_bytes  # no file is read to key it past what a rule may read of it
        if any(stat.S_ISLNK(mode) or (size > cap and stat.S_ISREG(mode)) for _, mode, size, *_ in package.inventory.stamps):
            return None
        lint_root = os.path.normpath(package.lint_root)
        anchor = self._anchors.get(lint_root)
        if anchor is None:
            base = os.path.normpath(self.settings.base)
            anchor = lint_root
            if self.settings.per_file_ignores or is_within(Path(base), Path(lint_root)):
                anchor = os.path.commonpath([lint_root, base])
            listing = os.sep + os.sep.join(claude_code.SKILLS_LOCATION) + os.sep
            if listing in anchor + os.sep:
                anchor = ""  # lies in a skills folder: the place is absolute
            self._anchors[lint_root] = anchor
        below = _below(anchor, root) if anchor else None
        if below is None:
            return None
        base = _below(anchor, os.path.normpath(self.settings.base))
        return anchor, (os.path.basename(anchor), below, _below(anchor, lint_root), base)

    def _content_key(self, package, targets, anchor: str, where: tuple) -> tuple[str, bool]:
        """The key of what the package's rules read: each file's content hash, mode and size; the
        other entries' kinds; the plugin manifests above it; the place. Found in the key memo
        (:class:`StampKeys`) by the ``lstat`` of all that while none of it changed; else made
        from the files read and hashed (:class:`FileHashes`)."""
        inventory = package.inventory
        root = str(package.root)
        manifests = self._manifests_above(package, anchor, self._manifests_up)
        self._keyed[root] = (anchor, manifests)
        ids = [t.id for t in targets]
        unreadable, skipped = sorted(inventory.unreadable), sorted(inventory.skipped)
        stamps = [self.salt, root, where, inventory.stamps, unreadable, skipped, manifests, ids]
        quick = hashlib.sha256(repr(stamps).encode("utf-8", "surrogatepass")).hexdigest()
        slot = f"p{self._slot}:{root}"
        key = self.stamp_keys.get(slot, quick)
        if key is not None:
            return key, True  # kept only when settled, and nothing changed since
        digest = self.hashes.digest
        prefix = root + os.sep
        settled = True
        files = []
        for rel, mode, size, mtime, ino, ctime in inventory.stamps:
            if stat.S_ISREG(mode):
                found, ok = digest(prefix + rel, (mode, size, mtime, ino, ctime))
                settled = settled and ok
                files.append((rel, mode, size, found))
            else:
                files.append((rel, stat.S_IFMT(mode)))
        read = []
        for folder, place, parts, stamp in manifests:
            found, ok = digest(os.path.join(folder, *parts), stamp) if stamp[1] <= package.max_bytes else (None, False)
            settled = settled and ok
            read.append((place, *parts, stamp[1], found))
        contents = [self.salt, where, files, unreadable, skipped, read, ids]
        key = hashlib.sha256(repr(contents).encode("utf-8", "surrogatepass")).hexdigest()
        if settled:
            self.stamp_keys.put(slot, quick, key)
        return key, settled

    def _manifests_above(self, package, anchor: str, memo: dict) -> tuple:
        """The plugin manifests above the package, up to the anchor (rules look up to the lint
        root, target inference up to the configuration's folder): (folder, its place from the
        anchor, the manifest's path parts, its ``lstat``) each (``memo``: per folder, what lies
        from it up to the anchor: siblings ask for the same)."""
        folder = os.path.dirname(str(package.root))
        chain = []  # folders not answered yet, nearest first
        held = memo.get((folder, anchor))
        while held is None:
            place = _below(anchor, folder)
            if place is None:
                held = ()
                break
            chain.append((folder, place))
            parent = os.path.dirname(folder)
            held = memo.get((parent, anchor)) if parent != folder else ()
            folder = parent
        for folder, place in reversed(chain):  # from the top down, each on what lies above it
            here = []
            for parts in MANIFESTS:
                info = plain_file(folder, *parts)  # as the rules find them: no link followed
                if info is not None:
                    here.append((folder, place, parts, file_stamp(info)))
            held = memo[(folder, anchor)] = (*here, *held)
        return held

    def _stat_key(self, package, targets) -> str | None:
        """The key made of ``lstat`` and absolute paths, for a package whose results may depend on
        where it lies (:meth:`_place`); None when a file changed within the last two seconds."""
        inventory = package.inventory
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
            str(self.settings.base),  # per-file ignores match paths from there
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

    def unchanged(self, package) -> bool:
        """Whether every entry of the package, and every manifest its key read, is as when the
        key was made: a result linted from a file written meanwhile must not be filed under the
        key of the file's earlier content (a checkout of that content would find it)."""
        keyed = self._keyed.get(str(package.root))
        if keyed is None:
            return True  # an lstat key: a later write changes the key itself
        prefix = str(package.root) + os.sep
        try:
            for rel, *stamp in package.inventory.stamps:
                if file_stamp(os.lstat(prefix + rel)) != tuple(stamp):
                    return False
        except OSError:
            return False
        anchor, manifests = keyed
        return self._manifests_above(package, anchor, {}) == manifests

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
        an entry that rests on that answer. Counted in :attr:`hits` or :attr:`misses`."""
        found = self._found(key, package, targets, documents_hold)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def _found(self, key: str, package, targets, documents_hold) -> list[Diagnostic] | None:
        try:
            sub = self._subfolder(key[:2], create=False)
            if sub is None:
                return None
            result = sub.read(f"{key[2:]}.json", MAX_RESULT_BYTES)
        except (OSError, UnsafeFile):
            return None
        data = self._placed(parse_json(result.data), package)
        if not _probes_hold(data, package) or not _documents_hold(data, documents_hold):
            return None
        return checked_diagnostics(data, package, self._names, {t.id for t in targets})

    def _placed(self, data: object, package) -> object:
        """The entry as it reads where the package lies now: as it is when it was made there;
        moved when it was made for the same content elsewhere (a cache restored into another
        checkout: its paths were below that place's root, now below this one); None when it
        cannot be moved: made for a key of absolute paths, a finding that named a place above
        the tree, a text that quotes where it was made."""
        if type(data) is not dict:
            return None
        root = str(package.root)
        made = data.get("root", root)  # none said: made here (checked against this place as any entry)
        if made == root:
            return data
        anchor = data.get("moves")
        if type(made) is not str or type(anchor) is not str or root not in self._keyed:  # _keyed: a content key
            return None
        return _moved(data, made, root, anchor)

    def put(
        self,
        key: str,
        diagnostics: list[Diagnostic],
        probes: dict[str, bool] | None = None,
        documents: tuple[str, ...] | None = None,
        package=None,
    ) -> None:
        """Keep ``package``'s findings; ``probes``: the paths beyond the package its rules looked up
        in the linted tree and what they found (a hit must find the same again); ``documents``:
        for a skill some target never lists, the targets that read it through a link all the same
        (a hit must find the same again), None for a skill every target lists. Nothing is kept
        when a file of the package changed since its key was made (:meth:`unchanged`)."""
        if not self.usable or (package is not None and not self.unchanged(package)):
            return
        entry: dict = {"diagnostics": [encode(d) for d in diagnostics]}
        if package is not None:
            entry["root"] = str(package.root)
            keyed = self._keyed.get(entry["root"])
            if keyed is not None and not package.beyond_tree:
                entry["moves"] = keyed[0]  # where it was made from: a hit elsewhere moves its paths
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
            sub.write_atomic(f"{key[2:]}.json", data, durable=False)  # a lost or torn entry reads as a miss
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

    def take_new(self) -> dict | None:
        """The stat memo's entries this process made since the last call (what a worker sends back)."""
        return self.stamp_keys.take_new() or None

    def add(self, new: dict) -> None:
        """A worker's :meth:`take_new`."""
        self.stamp_keys.add(new)

    def save(self) -> None:
        """Keep the stat memo (:class:`StampKeys`)."""
        if self.usable:
            self.stamp_keys.save()


class TokenCounts:
    """Token counts of text parts by content hash (the store of :func:`skilllint.skill.tokens.use_count_store`),
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


class FileHashes:
    """Content hashes of the files read to make keys in this process (:func:`skilllint.fsafe.content_digest`),
    by path and ``lstat`` (:func:`skilllint.fsafe.file_stamp`): a skill's SKILL.md keys both its
    result and its catalog entry, and is read once. Kept for the run only (see :class:`StampKeys`)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple] = {}

    def digest(self, path: str, stamp: tuple, trusted: bool = False) -> tuple[str | None, bool]:
        """(the content hash of the file ``path`` whose ``lstat`` is ``stamp``, whether it is
        settled: unchanged for two seconds, by its modification time as the lstat keys judge
        it); (None, False) when it cannot be read as that file. ``trusted``: skilllint's own
        code, read through links."""
        known = self._known.get(path)
        if known is not None and known[0] == stamp:
            return known[1], known[2]
        digest = content_digest(path, stamp, trusted=trusted)
        if digest is None:
            return None, False
        settled = time.time_ns() - stamp[2] >= RACY_SECONDS * 1e9
        self._known[path] = (stamp, digest, settled)
        return digest, settled


class StampKeys:
    """The stat memo: per slot (a package with the run's settings, a skill's catalog files,
    skilllint's code), the hash of the ``lstat`` of all its key was made from, and the content
    key (or the hash it is made from), in ``stamp-keys.json``: a package's files and manifests
    with its place, targets and settings (:meth:`ResultCache._content_key`); a skill's catalog
    files (:func:`skilllint.lint.catalog_entries.entry_digests`); the code (:func:`code_digest`). A
    warm run finds every key here and reads no file; what it misses is read and hashed
    (:class:`FileHashes`). One entry a slot, so a checkout whose files keep changing (CI)
    replaces its entries rather than adding ever more. Kept only when nothing it was made
    from changed within the last two seconds (two writes in one timestamp tick would share
    a stamp). Slots name absolute paths: the memo says what files on this machine hold, and
    is of no use elsewhere.

    Each entry is checked where it is used. Worker processes hand what they added to the main
    process (:meth:`take_new`, :meth:`add`), which alone saves: the file is bounded and written
    whole, this run's entries first, as :class:`TokenCounts` is; a concurrent run's additions
    may be lost (the last to save wins), never mixed."""

    FILENAME = "stamp-keys.json"
    LIMIT = 100_000  # entries (~250 bytes each), this run's first
    MAX_BYTES = 32 * 1024 * 1024  # the largest file read or written

    def __init__(self, folder: CacheFolder | None = None) -> None:
        self.folder = folder
        self._stored: dict | None = None
        self._used: dict[str, list] = {}  # asked for or made in this run: kept first
        self._new: dict[str, list] = {}  # made here since the last take_new()
        self._changed = False

    @staticmethod
    def _valid(slot: str, value: object) -> bool:
        # the key names a result file (its first two characters a folder): letters and digits,
        # never a path; the stamps' hash is only ever compared with one made here
        if len(slot) > MAX_SLOT or type(value) is not list or len(value) != 2:
            return False
        stamps, key = value
        return type(stamps) is str and type(key) is str and len(key) == 64 and key.isascii() and key.isalnum()

    def get(self, slot: str, stamps: str) -> str | None:
        """The key kept in ``slot`` when it was made from what has the ``lstat`` hash ``stamps``."""
        known = self._known(slot)
        return known[1] if known is not None and known[0] == stamps else None

    def put(self, slot: str, stamps: str, key: str) -> None:
        if self._known(slot) != [stamps, key]:
            self._used[slot] = self._new[slot] = [stamps, key]
            self._changed = True

    def _known(self, slot: str) -> list | None:
        value = self._used.get(slot)
        if value is None:
            value = self.load().get(slot)
            if value is None or not self._valid(slot, value):
                return None
            self._used[slot] = value
        return value

    def take_new(self) -> dict:
        """What this process added since the last call (what a worker sends back)."""
        new, self._new = self._new, {}
        return new

    def add(self, entries: dict) -> None:
        if entries:
            self._used.update(entries)
            self._changed = True

    def save(self) -> None:
        if not self._changed or self.folder is None:
            return
        stored = {slot: value for slot, value in self.load().items() if self._valid(slot, value)}
        data = json.dumps({"format": 1, "entries": used_first(self._used, stored, self.LIMIT)}).encode()  # ASCII
        if len(data) > self.MAX_BYTES:
            return  # it would not be read back
        try:
            self.folder.write(self.FILENAME, data)
        except (OSError, UnsafeFile):
            pass  # a read-only tree: the next run hashes again
        self._changed = False

    def load(self) -> dict:
        if self._stored is None:
            self._stored = {}
            data = self.folder.read(self.FILENAME, self.MAX_BYTES) if self.folder is not None else None
            data = parse_json(data) if data is not None else None  # absent or torn: every key is made again
            entries = data.get("entries") if isinstance(data, dict) and data.get("format") == 1 else None
            if isinstance(entries, dict):
                self._stored = entries
        return self._stored


STAMP_KEYS_FILE = StampKeys.FILENAME
MAX_SLOT = 4096 + 40  # PATH_MAX and the slot's prefix


def _below(anchor: str, path: str) -> str | None:
    """``path`` from ``anchor`` ("." for itself), None when it does not lie below it (both normalised)."""
    if path == anchor:
        return "."
    prefix = anchor if anchor.endswith(os.sep) else anchor + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


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
    """The installed skilllint code (an editable checkout changes without a version bump):
    (path from the package, path, :func:`skilllint.fsafe.file_stamp`) of each module."""
    here = Path(__file__).parent.parent  # the skilllint package: this module is in skilllint/lint/
    stamps = []
    for path in sorted(here.rglob("*.py")):
        stamps.append((path.relative_to(here).as_posix(), str(path), file_stamp(path.stat())))
    return stamps


# Stamped once, when this module is imported: a process that loaded older code and runs
# on after the files change must not file its results under the new code's stamp.
_CODE_STAMP = _code_stamp()
_code_digests: dict[str, str | None] = {}  # the digest of the code, once per process


def code_digest(hashes: FileHashes, keys: StampKeys | None = None) -> str | None:
    """A hash of the contents of skilllint's code as this process loaded it (the same in a fresh
    install of the same code: CI installs it anew every run), or None when a module changed since."""
    if "code" not in _code_digests:
        quick = hashlib.sha256(repr(_CODE_STAMP).encode("utf-8", "surrogatepass")).hexdigest()
        found = keys.get("code", quick) if keys is not None else None
        if found is None:
            parts = []
            settled = True
            for rel, path, stamp in _CODE_STAMP:
                digest, ok = hashes.digest(path, stamp, trusted=True)
                if digest is None:
                    break
                settled = settled and ok
                parts.append((rel, digest))
            else:
                found = hashlib.sha256(repr([FORMAT, __version__, parts]).encode()).hexdigest()
                if settled and keys is not None:
                    keys.put("code", quick, found)
        _code_digests["code"] = found
    return _code_digests["code"]


def _plugin_stamp(rules, hashes: FileHashes) -> list:
    """The contents of rule plugins' modules (third-party code changes without skilllint's)."""
    import sys

    stamps = []
    for module in sorted({r.__module__ for r in rules if not r.__module__.startswith("skilllint.")}):
        path = getattr(sys.modules.get(module), "__file__", None)
        try:
            info = os.stat(path) if path else None
        except OSError:
            info = None
        stamps.append((module, hashes.digest(path, file_stamp(info), trusted=True)[0] if info else None))
    return stamps


def _settings_salt(settings, hashes: FileHashes, keys: StampKeys | None = None) -> str | None:
    """What every key starts from: skilllint's code and version, rule plugins, the run's settings
    (None when the code changed since this process loaded it: nothing is cached then)."""
    code = code_digest(hashes, keys)
    if code is None:
        return None
    rules = [r for r in settings.enabled_rules()]
    parts = {
        "format": FORMAT,
        "version": __version__,
        "code": code,
        "plugins": _plugin_stamp(rules, hashes),
        "rules": [(r.code, r.__module__, settings.options_for(r), str(settings.severity_override(r))) for r in rules],
        "targets": settings.targets,
        "per_file_ignores": settings.per_file_ignores,
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


def _moved(data: dict, made: str, root: str, anchor: str) -> dict | None:
    """``data`` with every path below ``made`` (the package's root where the entry was made)
    moved below ``root``; None when a path lies elsewhere or a text names ``anchor`` (the
    absolute folder the place was named from there): such a finding is tied to that place."""
    below = made.rstrip(os.sep) + os.sep
    here = root.rstrip(os.sep) + os.sep

    def path(text: object) -> str:
        if type(text) is not str:
            raise _Refused
        if text == made:
            return root
        if text.startswith(below):
            return here + text[len(below) :]
        raise _Refused

    def text(value: object) -> object:
        if type(value) is str and anchor in value:
            raise _Refused
        return value

    items = data.get("diagnostics")
    if type(items) is not list:
        return None
    moved = []
    try:
        for item in items:
            item = dict(item)
            item["path"] = path(item["path"])
            item["message"] = text(item["message"])
            item["related"] = [[text(m), path(p), span] for m, p, span in item["related"]]
            fix = item.get("fix")
            if fix is not None:
                fix = item["fix"] = dict(fix)
                fix["message"] = text(fix["message"])
                fix["edits"] = [[path(p), span, text(t), start, end] for p, span, t, start, end in fix["edits"]]
            moved.append(item)
    except (_Refused, KeyError, TypeError, ValueError):  # a finding of the wrong shape: a miss anyway
        return None
    return {**data, "diagnostics": moved}


def _probes_hold(data: object, package) -> bool:
    """Whether every path beyond the package that the cached result rests on is found as it was
    (a sibling skill created since would make "no such file" stale). A probe is looked up only
    inside the linted tree (:meth:`skilllint.skill.package.SkillPackage.exists_in_tree`): a cache file
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
            from ..skill.safety_checks import trace

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
    from ..config import ConfigError, repository_root

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
