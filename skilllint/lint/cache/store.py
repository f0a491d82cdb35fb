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
  each skill's catalog entry (:mod:`skilllint.lint.cache.catalog_entries`).
* Entries are JSON, never pickle: a cache folder may come from anywhere (a
  cloned repository, an archive) and reading it must not run code. They are
  kept in one file, ``results.pack`` (:mod:`skilllint.lint.cache.result_pack`), read
  once and written once at the end of a run under a temporary name and renamed
  into place, so concurrent runs never see half of it; it is bounded in size.
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

from ...diagnostics import Diagnostic
from ...fsafe import file_stamp, is_within, plain_file
from ...targets import claude_code
from . import folder as cache_folder
from .entries import checked_diagnostics, encode, holds_documents, moved, probes_hold
from .folder import FORMAT, CacheFolder, parse_json
from .keys import LAYOUT_FILES, linked_skill_md, manifest_stamps, path_below, settings_salt
from .memo import FileHashes, StampKeys, TokenCounts, value_hash
from .result_pack import ResultPack

# The largest result file read or written: a skill with 5,000 findings takes ~4 MB.
MAX_RESULT_BYTES = 8 * 1024 * 1024


class ResultCache:
    """The results of earlier runs, in ``v2`` of the cache folder ``folder`` (:func:`open_cache`)."""

    def __init__(self, folder: CacheFolder, settings) -> None:
        self.folder = CacheFolder(folder.anchor, (*folder.parts, f"v{FORMAT}"), ignored=len(folder.parts))
        self.directory = self.folder.path
        self.settings = settings
        self.hashes = FileHashes()
        self.stamp_keys = StampKeys(self.folder)
        self.salt = settings_salt(settings, self.hashes, self.stamp_keys)
        self._slot = hashlib.sha256(repr(self.salt).encode()).hexdigest()[:12]  # one key memo slot a package per settings
        self.usable = self.salt is not None  # None: skilllint's code changed since this process loaded it
        # What a cached finding may say: the codes (and names) of the rules whose findings are kept.
        self._names = {
            r.code: r.name
            for r in settings.enabled_rules()
            if not r.catalog_rule and r.cacheable
        }
        self.catalog_entries = None  # made by skilllint.lint.cache.catalog_entries.entries_beside, which builds on this module
        self._token_counts: TokenCounts | None = None
        self._manifests: dict[str, list] = {}  # folder -> its manifests' stamps, for the run
        self.pack = ResultPack(self.folder)  # the entries, in one file (results.pack)
        # Rule plugins may say anything about where the tree lies: with one, every key is lstat-based.
        self._plugins = any(not r.__module__.startswith("skilllint.") for r in settings.enabled_rules())
        self._anchors: dict[str, str] = {}  # lint root -> the folder content keys name places from ("": none)
        self._keyed: dict[str, tuple] = {}  # package root -> (anchor, its manifests' stamps), for put()
        self._manifests_up: dict[tuple, tuple] = {}  # (folder, anchor) -> the manifests from it up to the anchor
        # path -> lstat (None: none) of what the entries' probes looked at: a run's lookups all
        # ask about the tree as it is at its start, and share the folders on the way
        self._probed: dict[str, object] = {}
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
        below = path_below(anchor, root) if anchor else None
        if below is None:
            return None
        base = path_below(anchor, os.path.normpath(self.settings.base))
        return anchor, (os.path.basename(anchor), below, path_below(anchor, lint_root), base)

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
        quick = value_hash(stamps)
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
        key = value_hash(contents)
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
            place = path_below(anchor, folder)
            if place is None:
                held = ()
                break
            chain.append((folder, place))
            parent = os.path.dirname(folder)
            held = memo.get((parent, anchor)) if parent != folder else ()
            folder = parent
        for folder, place in reversed(chain):  # from the top down, each on what lies above it
            here = []
            for parts in LAYOUT_FILES:
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
        if any(now_ns - stamp[3] < cache_folder.RACY_SECONDS * 1e9 for stamp in inventory.stamps):
            return None
        links = sorted((rel, e.link.text) for rel, e in inventory.entries.items() if e.link is not None)
        source = linked_skill_md(package, now_ns) if links else ()
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
            manifest_stamps(package, self._manifests),
            [t.id for t in targets],
        ]
        return value_hash(parts)  # (not json.dumps: keys are made for every skill of a warm run)

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
            return self.usable and self.pack.has_entries()
        except OSError:
            return False

    def get(self, key: str, package, targets, documents_hold=None) -> list[Diagnostic] | None:
        """The package's findings kept under ``key``, or None: absent, or not a result
        skilllint could have written for this package and these targets. ``documents_hold``:
        given the targets an entry was made for as reading the skill through a link, whether
        they still do (:meth:`skilllint.config.settings.Settings.reads_as_document`); asked only of
        an entry that rests on that answer. Counted in :attr:`hits` or :attr:`misses`."""
        found = self._found(key, package, targets, documents_hold)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def _found(self, key: str, package, targets, documents_hold) -> list[Diagnostic] | None:
        if not self.usable:
            return None
        entry = self.pack.get(key)
        if entry is None or len(entry) > MAX_RESULT_BYTES:
            return None
        data = self._placed(parse_json(entry), package)
        if not probes_hold(data, package, self._probed) or not holds_documents(data, documents_hold):
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
        return moved(data, made, root, anchor)

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
        data = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")  # one line: JSON escapes line ends
        if len(data) > MAX_RESULT_BYTES:
            return  # it would not be read back
        self.pack.put(key, data)  # saved by the main process at the end of the run

    def token_counts(self) -> TokenCounts | None:
        if self._token_counts is None and self.usable:
            self._token_counts = TokenCounts(self.folder)
        return self._token_counts

    def take_new(self) -> tuple | None:
        """The stat memo's entries and the results this process made since the last call (what a
        worker sends back)."""
        stamps, results = self.stamp_keys.take_new(), self.pack.take_new()
        return (stamps, results) if stamps or results else None

    def add(self, new: tuple) -> None:
        """A worker's :meth:`take_new`."""
        stamps, results = new
        self.stamp_keys.add(stamps)
        self.pack.add(results)

    def save(self) -> None:
        """Keep the results (:class:`ResultPack`) and the stat memo (:class:`StampKeys`)."""
        if self.usable:
            self.pack.save()
            self.stamp_keys.save()


def open_cache(settings, cwd: Path, override: str | None = None) -> ResultCache | None:
    """The run's cache: ``--cache-dir``, else ``SKILLLINT_CACHE_DIR``, else ``cache-dir`` in the
    configuration, else ``.skilllint_cache`` at the root of the git repository holding ``cwd``.
    Outside a repository, with none of those set, there is no cache: linting a downloaded
    skill or a read-only collection leaves no trace in it.

    A folder named on the command line or in the environment is the user's choice, links and
    all. One from a configuration file (which may come with the linted tree) must lie inside
    that file's project (its repository, else its folder; its own folder when it came with a
    linted tree elsewhere: :attr:`skilllint.config.settings.Settings.project`): a ``ConfigError`` otherwise. Below
    the trusted folder, no level may be a link (:class:`CacheFolder`); when one is, the run
    goes on without a cache and says why (:attr:`ResultCache.problem`)."""
    from ...config.settings import ConfigError, repository_root

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
