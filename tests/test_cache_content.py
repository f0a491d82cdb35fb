"""The result cache keyed on content: a cache restored into a fresh checkout elsewhere (CI:
actions/cache restores ``.skilllint_cache``; the checkout gives every file a new mtime and
inode, and the repository lies at another absolute path) finds its entries; the stat memo
(``stamp-keys.json``) spares a warm run reading any file to make its keys."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from skilllint.lint.cache.folder import FORMAT
from conftest import cache_pack, lint_json, rewrite_cache_pack, write_skill
from test_cache import BROKEN, age
from test_hostile import tree  # noqa: F401 - a fixture
from test_hostile_cache import _link_cache_level, _plant_trap, check_json, findings, fresh, plant_skills, snapshot

from skilllint.lint.cache import store as cache_module
from skilllint.lint.cache import keys as cache_keys, memo as cache_memo
from skilllint.lint.cache.store import ResultCache
from skilllint.lint.cache.keys import code_digest
from skilllint.lint.cache.memo import STAMP_KEYS_FILE, FileHashes

SKILLS = {
    "bad-name": BROKEN,  # several findings, one with a fix
    "refs": "---\nname: refs\ndescription: Does refs things. Use when asked.\n---\n# Refs\n\nRead [the guide](references/guide.md) "
    "and [the missing one](references/gone.md).\n",
    "plain": "---\nname: plain\ndescription: Does plain things. Use when asked.\n---\n# Plain\n",
}


def make_checkout(parent: Path, seconds: float = 60) -> Path:
    """A repository of three skills, its files last changed ``seconds`` ago."""
    repo = parent / "repo"
    (repo / ".git").mkdir(parents=True)
    for name, text in SKILLS.items():
        write_skill(repo / "skills", name, text)
    guide = repo / "skills" / "refs" / "references"
    guide.mkdir()
    (guide / "guide.md").write_text("# Guide\n\nHow the refs skill does its work, step by step.\n")
    age(repo, seconds)
    return repo


def fresh_checkout(repo: Path, parent: Path, seconds: float = 300) -> Path:
    """A copy of ``repo`` elsewhere, as a new checkout has it: new inodes, other mtimes, another
    absolute path; then the cache of ``repo`` restored into it."""
    copy = parent / "repo"
    shutil.copytree(repo, copy, symlinks=True, ignore=shutil.ignore_patterns(".skilllint_cache"))
    age(copy, seconds)
    shutil.copytree(repo / ".skilllint_cache", copy / ".skilllint_cache", symlinks=True)
    return copy


@pytest.fixture
def caches(monkeypatch) -> list[ResultCache]:
    """Every ResultCache a run opens (their ``hits`` and ``misses``)."""
    opened: list[ResultCache] = []
    original = ResultCache.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(ResultCache, "__init__", recording)
    return opened


@pytest.fixture
def settled(monkeypatch) -> None:
    """Catalog entries of files written by the test count as settled (their change time, which
    cannot be set back, is recent): as a repository's files are."""
    from skilllint.lint.cache import catalog_entries as entries_module

    monkeypatch.setattr(entries_module, "RACY_SECONDS", 0)


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The files read to hash them."""
    seen: list[str] = []
    original = cache_memo.content_digest

    def recording(path, *args, **kwargs):
        seen.append(os.fspath(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(cache_memo, "content_digest", recording)
    return seen


def check(repo: Path, *args: str) -> list[dict]:
    return lint_json("--jobs", "1", *args, ".", cwd=repo)["diagnostics"]


def results(repo: Path) -> dict[str, bytes]:
    return cache_pack(repo)


def counts(caches: list[ResultCache]) -> tuple[int, int]:
    (used,) = caches
    caches.clear()
    return used.hits, used.misses


def test_a_cache_restored_into_a_fresh_checkout_elsewhere_hits_and_equals_no_cache(tmp_path, caches):
    local = make_checkout(tmp_path / "laptop" / "src")
    first = check(local)
    assert counts(caches) == (0, len(SKILLS))  # a cold run
    ci = fresh_checkout(local, tmp_path / "runner" / "work" / "x")
    kept = results(ci)
    restored = check(ci)
    assert results(ci) == kept  # nothing linted, so nothing filed
    assert counts(caches) == (len(SKILLS), 0)
    assert restored == check(ci, "--no-cache") == first
    # the findings name the files where they are now (their paths moved with the entry)
    entry = json.loads(next(value for value in kept.values() if b'"SL122"' in value))
    assert entry["root"].startswith(str(local)) and entry["moves"] == str(local)


def test_an_edited_file_in_the_checkout_misses_for_its_skill_only(tmp_path, caches):
    local = make_checkout(tmp_path / "a")
    check(local)
    caches.clear()
    ci = fresh_checkout(local, tmp_path / "b")
    guide = ci / "skills" / "refs" / "references" / "guide.md"
    guide.write_text(guide.read_text() + "\nOne more step.\n")
    age(ci, 300)
    after = check(ci)
    assert counts(caches) == (len(SKILLS) - 1, 1)
    assert after == check(ci, "--no-cache")


def test_a_skill_with_a_link_is_keyed_on_where_it_lies(tmp_path, caches):
    local = make_checkout(tmp_path / "a")
    os.symlink("guide.md", local / "skills" / "refs" / "references" / "alias.md")
    age(local)
    first = check(local)
    caches.clear()
    ci = fresh_checkout(local, tmp_path / "b")
    assert check(ci) == first
    assert counts(caches) == (len(SKILLS) - 1, 1)  # its key names where it lies: not found here
    assert check(ci) == first
    assert counts(caches) == (len(SKILLS), 0)  # filed here, found again


def test_a_finding_that_names_a_folder_above_the_tree_is_not_moved(tmp_path, caches):
    # SL302 says which folder a reference that climbs out of the tree leads to: above the
    # tree, that folder's name differs in another checkout, and the cached text would be wrong.
    local = make_checkout(tmp_path / "first-place")
    write_skill(local / "skills", "climbs", "---\nname: climbs\ndescription: Climbs. Use when asked.\n---\nSee [x](../../../x.md).\n")
    age(local)
    first = check(local, "--select", "SL302")
    assert any("first-place" in d["message"] for d in first)
    caches.clear()
    ci = fresh_checkout(local, tmp_path / "second-place")
    restored = check(ci, "--select", "SL302")
    assert counts(caches) == (len(SKILLS), 1)
    assert restored == check(ci, "--select", "SL302", "--no-cache")
    assert any("second-place" in d["message"] for d in restored)


def test_a_racily_fresh_checkout_is_read_from_the_cache_but_files_nothing(tmp_path, caches):
    local = make_checkout(tmp_path / "a")
    first = check(local)
    caches.clear()
    ci = tmp_path / "b" / "repo"
    shutil.copytree(local, ci)  # written just now: a same-size write could follow within the same tick
    for path in ci.rglob("*"):
        if path.is_file() and ".skilllint_cache" not in path.parts:
            os.utime(path)
    memo = (ci / ".skilllint_cache" / f"v{FORMAT}" / STAMP_KEYS_FILE).read_bytes()
    kept = results(ci)
    assert check(ci) == first
    assert counts(caches) == (len(SKILLS), 0)
    assert results(ci) == kept and (ci / ".skilllint_cache" / f"v{FORMAT}" / STAMP_KEYS_FILE).read_bytes() == memo


def test_a_warm_run_reads_no_file_and_a_touched_one_once(tmp_path, caches, reads, settled):
    repo = make_checkout(tmp_path / "a")
    first = check(repo)
    caches.clear()
    reads.clear()
    assert check(repo) == first
    assert counts(caches) == (len(SKILLS), 0)
    assert reads == []  # every key made from the stat memo
    guide = repo / "skills" / "refs" / "references" / "guide.md"
    os.utime(guide, (guide.stat().st_atime, guide.stat().st_mtime - 10))  # same content, another stamp
    assert check(repo) == first
    assert counts(caches) == (len(SKILLS), 0)
    assert sorted(reads) == [str(guide.parent.parent / "SKILL.md"), str(guide)]  # that skill's files, once each
    reads.clear()
    assert check(repo) == first  # the memo learned the new stamp
    assert reads == []


def test_the_stat_memo_does_not_grow_as_stamps_change(tmp_path, caches):
    """CI restores the cache into a checkout with new stamps every run: the memo keeps one
    entry per slot (a package with the settings, a skill's catalog files, the code), replaced,
    not one more per run."""
    repo = make_checkout(tmp_path / "a")
    folder = repo / ".skilllint_cache" / f"v{FORMAT}"

    def sizes() -> int:
        return len(json.loads((folder / STAMP_KEYS_FILE).read_text())["entries"])

    check(repo)
    caches.clear()
    first = sizes()
    for seconds in (100, 200, 300):
        age(repo, seconds)  # every file: another stamp, the same content
        check(repo)
        assert counts(caches) == (len(SKILLS), 0)
    assert sizes() == first


def test_a_file_over_the_read_cap_is_never_read_to_key_its_skill(tmp_path, caches, reads):
    """Rules read at most SL011's max-bytes of a file: hashing more would read past that (a
    100 MB file read whole to key it). Its skill is keyed on lstat, found again only here."""
    local = make_checkout(tmp_path / "a")
    (local / "skilllint.toml").write_text("[rules.SL011]\nmax-bytes = 4096\n")
    big = local / "skills" / "refs" / "references" / "guide.md"
    big.write_text("# Guide\n\n" + "A step of the guide, read up to the cap only.\n" * 200)
    age(local)
    first = check(local)
    assert not [path for path in reads if path == str(big)]
    caches.clear()
    ci = fresh_checkout(local, tmp_path / "b")
    assert check(ci) == first
    assert counts(caches) == (len(SKILLS) - 1, 1)
    assert not [path for path in reads if path.endswith("guide.md")]


def test_a_result_is_not_filed_when_a_file_changed_while_it_was_linted(tmp_path):
    from skilllint.config.settings import load_settings
    from skilllint.skill.package import SkillPackage
    from skilllint.registry import registry

    repo = make_checkout(tmp_path / "a")
    settings = load_settings(registry(), repo)
    cache = cache_module.open_cache(settings, repo)
    root = repo / "skills" / "plain"

    def filed_after(change) -> bool:
        package = SkillPackage(root, repo)
        key, settled = cache.key(package, settings.targets_for(package))
        assert settled
        change()
        cache.pack.take_new()
        cache.put(key, [], package=package)
        return key in cache.pack.take_new()

    skill_md = root / "SKILL.md"
    text = skill_md.read_text()
    assert filed_after(lambda: None)
    # same size, other content: linted from the new text, it must not be filed under the old key
    assert not filed_after(lambda: (skill_md.write_text(text.replace("plain things", "other things")), age(repo)))


def test_restored_entries_are_checked_as_any_entry(tmp_path, caches):
    """The cache folder is the user's data, trusted as the tree's own configuration is (which can
    turn rules off): an entry that passes the checks is served as it is, whatever it says. What
    the checks refuse stays refused after a move: a finding outside the skill, and a text that
    names the place the entry was made (it would be wrong here)."""
    local = make_checkout(tmp_path / "a")
    expected = None
    ci = None
    for label in ("served", "a finding on /etc/passwd", "a text naming the old place"):
        shutil.rmtree(tmp_path / "b", ignore_errors=True)
        shutil.rmtree(local / ".skilllint_cache", ignore_errors=True)
        check(local)
        ci = fresh_checkout(local, tmp_path / "b")
        expected = check(ci, "--no-cache")
        caches.clear()
        (original,) = [value for value in results(ci).values() if b'"SL122"' in value]
        entry = json.loads(original)
        finding = next(item for item in entry["diagnostics"] if item["code"] == "SL122")
        if label == "served":
            finding["message"] = "a forged message"
        elif label == "a finding on /etc/passwd":
            finding["path"] = "/etc/passwd"
        else:
            finding["message"] = f"see {entry['moves']}/skills"
        rewrite_cache_pack(ci, lambda value, old=original, new=json.dumps(entry).encode(): new if value == old else value)
        found = check(ci)
        if label == "served":
            assert counts(caches) == (len(SKILLS), 0)
            assert [d["message"] for d in found if d["code"] == "SL122"] == ["a forged message"]
        else:
            assert counts(caches) == (len(SKILLS) - 1, 1), label
            assert found == expected, label


def test_a_forged_or_torn_stat_memo_only_costs_reading_the_files(tmp_path, caches, reads, settled):
    repo = make_checkout(tmp_path / "a")
    first = check(repo)
    caches.clear()
    memo = repo / ".skilllint_cache" / f"v{FORMAT}" / STAMP_KEYS_FILE
    keys = json.loads(memo.read_text())["entries"]
    assert sum(slot.startswith("p") for slot in keys) == sum(slot.startswith("e:") for slot in keys) == len(SKILLS)
    plain = next(slot for slot in keys if slot.endswith(os.sep + "plain"))
    skill_md = str(repo / "skills" / "plain" / "SKILL.md")
    for label, forged in {
        "torn": "{not json",
        "of the wrong shapes": json.dumps({"format": 1, "entries": {slot: [stamps, "../../../../etc/passwd"] for slot, (stamps, _) in keys.items()}}),
        "another content key for a skill's stamps": json.dumps({"format": 1, "entries": {**keys, plain: [keys[plain][0], "0" * 64]}}),
    }.items():
        memo.write_text(forged)
        reads.clear()
        assert check(repo) == first, label
        hits, misses = counts(caches)
        if label == "another content key for a skill's stamps":
            assert (hits, misses) == (len(SKILLS) - 1, 1)  # no result under that key: a miss, linted
        else:
            assert (hits, misses) == (len(SKILLS), 0) and skill_md in reads, label


def test_catalog_entries_restored_into_a_fresh_checkout_are_not_read_again(tmp_path, monkeypatch, settled):
    from skilllint.lint.cache import catalog_entries as entries_module
    from skilllint.catalog import model

    local = make_checkout(tmp_path / "a")
    first = check(local, "--select", "SL5")
    ci = fresh_checkout(local, tmp_path / "b")
    count = {"n": 0}
    original = model.read_entry

    def counting(package, target):
        count["n"] += 1
        return original(package, target)

    monkeypatch.setattr(entries_module, "read_entry", counting)
    monkeypatch.setattr(model, "read_entry", counting)  # the engine reads linted skills' entries through the model
    assert check(ci, "--select", "SL5") == first
    assert count["n"] == 0


def test_the_code_is_keyed_on_its_content_not_on_when_it_was_installed(tmp_path, monkeypatch):
    source = Path(cache_module.__file__).parent
    modules = sorted(source.rglob("*.py"))[:5]

    def install(where: Path, seconds: float) -> list:
        stamps = []
        for module in modules:
            copy = where / module.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(module.read_bytes())
            os.utime(copy, (1e9 + seconds, 1e9 + seconds))
            stamps.append((module.relative_to(source).as_posix(), str(copy), cache_keys.file_stamp(copy.stat())))
        return stamps

    def digest(stamps: list) -> str | None:
        monkeypatch.setattr(cache_keys, "_CODE_STAMP", stamps)
        monkeypatch.setattr(cache_keys, "_code_digests", {})
        return code_digest(FileHashes())

    first = install(tmp_path / "one", 0)
    second = install(tmp_path / "two", 500)  # a fresh install of the same code, at another time
    assert digest(first) is not None and digest(first) == digest(second)
    Path(second[0][1]).write_bytes(b"# changed since it was loaded\n")
    assert digest(second) is None  # this process runs code its files no longer hold: nothing is cached
    other = install(tmp_path / "three", 0)
    Path(other[0][1]).write_bytes(b"# other code\n")
    other[0] = (*other[0][:2], cache_keys.file_stamp(Path(other[0][1]).stat()))
    assert digest(other) not in (None, digest(first))


def test_the_code_stamp_covers_every_module_of_the_package():
    """The code key is stamped from all of skilllint, whichever layer package a module is in,
    not only from the folder the cache module sits in."""
    import skilllint

    package = Path(skilllint.__file__).resolve().parent
    stamped = {rel for rel, _, _ in cache_keys._CODE_STAMP}
    assert stamped == {path.relative_to(package).as_posix() for path in package.rglob("*.py")}


# ----------------------------------------------------------------------------- the memo as a trap


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["/dev/zero", "FIFO", "3 GB file", "7.5 MB amplifier", "link out of the tree"])
def test_a_stat_memo_that_is_a_trap_is_ignored_within_the_bounds(tree, kind):
    """Read as every cache file is (tests/test_hostile_cache.py): no link, regular files only,
    size-capped, parsed only when it cannot take far more memory than its size."""
    plant_skills(tree.root)
    expected = fresh(tree)
    outside = tree.canary.parent
    name = STAMP_KEYS_FILE
    memo = tree.root / ".skilllint_cache" / f"v{FORMAT}" / name
    if kind == "link out of the tree":
        _link_cache_level(tree.root, outside, name)
    else:
        check_json(tree, ".", label="fill the cache")
        assert memo.is_file()
        _plant_trap(memo, kind)
    before = snapshot(outside)
    result = check_json(tree, ".", label=f"{name} as {kind}")
    assert findings(result) == expected
    assert snapshot(outside) == before  # nothing written through a link
    if kind == "link out of the tree":
        assert not [e for e in result.events if e[0] == "open" and os.path.basename(e[1]) == name]


# -- the file hash a content key is made of --------------------------------------------


def test_content_digest_is_the_files_sha256_and_none_when_it_is_not_the_stamped_file(tmp_path):
    """One read for a file under 1 MiB, a loop for a larger one: the same sha256 either way; None
    for a file whose lstat is not the stamp given (changed since it was listed), a link, a FIFO."""
    import hashlib

    from skilllint.fsafe import MAX_READ_BYTES, content_digest, file_stamp

    small, large = tmp_path / "small.md", tmp_path / "large.md"
    small.write_bytes(b"# small\n" * 10)
    large.write_bytes(os.urandom(3 * 1024 * 1024 + 7))
    for path in (small, large):
        assert content_digest(path, file_stamp(os.lstat(path))) == hashlib.sha256(path.read_bytes()[:MAX_READ_BYTES]).hexdigest()
    stamp = file_stamp(os.lstat(small))
    small.write_bytes(b"# changed\n")
    assert content_digest(small, stamp) is None
    link = tmp_path / "link.md"
    link.symlink_to(small)
    assert content_digest(link, file_stamp(os.lstat(link))) is None
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        assert content_digest(fifo, file_stamp(os.lstat(fifo))) is None  # never blocks


def test_content_digest_reads_on_when_a_file_grew_after_its_stamp_was_taken(tmp_path, monkeypatch):
    """fstat said n bytes, a read of n + 1 gets more: the file is hashed to its end (at most the
    read cap), as the loop would; the key's caller re-checks the stamp before filing a result."""
    import hashlib

    from skilllint import fsafe

    path = tmp_path / "grows.md"
    path.write_bytes(b"x" * 5000)
    real_fstat = os.fstat

    def shrunk(fd):  # the file as it was when listed: 100 bytes
        info = real_fstat(fd)
        return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid, 100, 0, 0, 0))

    fd = os.open(path, os.O_RDONLY)
    try:
        stamp = fsafe.file_stamp(shrunk(fd))
    finally:
        os.close(fd)
    monkeypatch.setattr(fsafe.os, "fstat", shrunk)
    assert fsafe.content_digest(path, stamp) == hashlib.sha256(b"x" * 5000).hexdigest()


def test_value_hash_is_the_same_for_equal_values_and_tells_kinds_apart():
    """Content keys and the stat memo's slots are made with it: equal values (however built) hash
    equal, and a tuple, a list, a string and a number that print alike do not."""
    from skilllint.lint.cache.memo import value_hash

    built = [("a.md", 33188, 10, 1, 2, 3)]
    assert value_hash(["salt", built]) == value_hash(["salt", [tuple(["a.md", 33188, 10, 1, 2, 3])]])
    assert value_hash(("1",)) != value_hash((1,)) and value_hash([1]) != value_hash((1,))
    assert value_hash(["a\udcff"]) != value_hash(["a"])  # a name that is not UTF-8 (surrogateescape) hashes too
    from pathlib import PurePosixPath

    assert value_hash([PurePosixPath("a")]) == value_hash([PurePosixPath("a")])  # marshal cannot: repr, not an error


def test_probes_checked_together_share_the_folders_on_their_way(tmp_path, monkeypatch):
    """A run's lookups check hundreds of probes that climb the same folders: with the run's memo
    each folder is stat-ed once, and every answer is the one a probe alone gets (a link on the
    way, a file on the way, a missing part)."""
    from skilllint import fsafe

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "SKILL.md").write_text("x", encoding="utf-8")
    (tmp_path / "a" / "file").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    probes = [("a", "b", "SKILL.md"), ("a", "b"), ("a", "gone", "x"), ("a", "file", "x"), ("link", "b"), ("a", "b", "SKILL.md")]
    alone = [fsafe.plain_entry(str(tmp_path), *parts) for parts in probes]
    assert alone == [True, True, False, False, False, True]
    stats: list[str] = []
    real_lstat = os.lstat
    monkeypatch.setattr(fsafe.os, "lstat", lambda path: stats.append(path) or real_lstat(path))
    memo: dict = {}
    assert [fsafe.plain_entry(str(tmp_path), *parts, memo=memo) for parts in probes] == alone
    assert len(stats) == len(set(stats))  # nothing stat-ed twice
