"""The result cache and the configuration never reach outside the linted tree.

A cache folder or a configuration can come with the tree (committed, unpacked
from an archive) and is then as hostile as any skill in it:

* links in the place of the cache's folders or files: nothing is created,
  written or read through them (``.skilllint_cache``, ``v1``, its sub-folders,
  ``catalog-entries.json``, ``token-counts.json``); ``cache-dir`` in a shipped
  configuration must lie inside its project;
* cache files that are ``/dev/zero``, a FIFO, a 3 GB file or a small file that
  takes many times its size once parsed: read within the time and memory
  bounds of tests/test_hostile.py, and taken as a miss;
* valid JSON with the wrong content (a finding on ``/etc/passwd``, a message
  that is no string, 100,000 nested lists, a count of 0 tokens): a miss, the
  findings as a fresh run has them;
* a key that covers what was read (a SKILL.md that links elsewhere in the tree)
  and no ``stat`` through a link out of the tree (catalog entries, targets).

Subprocess cases use tests/test_hostile.py's harness (time, peak RSS and an audit
of every file opened); the rest run in process.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import cache_pack, rewrite_cache_pack, run_cli, write_skill
from test_cache import BROKEN, age, long_body
from test_hostile import check_json, run, skill, sparse, tree, usage_error  # noqa: F401 - tree is a fixture

from skilllint.skill.size import tokens
from skilllint.fsafe import is_within
from skilllint.lint.cache.result_pack import FILENAME as PACK

GiB = 1024**3
OUTSIDE_FILE = b'{"note": "a file outside the tree that skilllint must neither read nor change"}'


def snapshot(folder: Path) -> dict[str, object]:
    """Every entry under ``folder``: its kind and, for a file, its bytes (links are not followed)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        found[str(path.relative_to(folder))] = path.read_bytes() if stat.S_ISREG(info.st_mode) else stat.S_IFMT(info.st_mode)
    return found


def plant_skills(root: Path) -> None:
    """Two skills: one with findings, one long enough that its token counts are kept."""
    write_skill(root / "skills", "bad-name", BROKEN)
    write_skill(root / "skills", "long", f"---\nname: long\ndescription: Does long things. Use when asked.\n---\n{long_body('long')}")
    age(root)


def findings(result) -> list[tuple]:
    return sorted((d["code"], d["path"], d["line"], d["message"]) for d in result.doc()["diagnostics"])


def fresh(tree) -> list[tuple]:
    """The findings of a run without the cache: what every cached run must show."""
    return findings(check_json(tree, "--no-cache", ".", label="no cache"))


def results(root: Path) -> list[Path]:
    """The file holding the results (one pack: :mod:`skilllint.lint.cache.result_pack`)."""
    pack = root / ".skilllint_cache" / "v2" / PACK
    return [pack] if pack.is_file() else []


# ----------------------------------------------------------------------------- links in the cache's place


def _link_cache_level(root: Path, outside: Path, level: str) -> None:
    cache = root / ".skilllint_cache"
    target = outside / "cache"
    target.mkdir()
    if level == ".skilllint_cache":
        os.symlink(target, cache)
    elif level == "v2":
        cache.mkdir()
        os.symlink(target, cache / "v2")
    else:  # a file of the cache: the results, or one kept beside them
        (cache / "v2").mkdir(parents=True)
        (outside / level).write_bytes(OUTSIDE_FILE)
        os.symlink(outside / level, cache / "v2" / level)


@pytest.mark.e2e
@pytest.mark.parametrize("level", [".skilllint_cache", "v2", "results.pack", "catalog-entries.json", "token-counts.json"])
def test_a_cache_folder_or_file_linked_out_of_the_tree_is_neither_written_nor_read_through(tree, level):
    plant_skills(tree.root)
    expected = fresh(tree)
    outside = tree.canary.parent
    _link_cache_level(tree.root, outside, level)
    before = snapshot(outside)
    for attempt in ("cold", "warm"):
        result = check_json(tree, ".", label=f"cache linked at {level} ({attempt})")
        assert findings(result) == expected
        assert snapshot(outside) == before  # nothing created, written or replaced there
        if attempt == "cold":  # nor read: a linked file is never opened (a write then replaces the link, in the tree)
            assert not [e for e in result.events if e[0] == "open" and os.path.basename(e[1]) == level]
    if level in (".skilllint_cache", "v2"):
        assert f"{tree.root / '.skilllint_cache'}" in result.err and "the result cache is not used" in result.err, result.err


@pytest.mark.e2e
@pytest.mark.parametrize(
    "cache_dir",
    ["../outside", "{outside}", "~/cache", "skills/../../outside/cache", "{tree}/../outside"],
)
def test_cache_dir_in_a_shipped_configuration_must_stay_in_its_project(tree, monkeypatch, cache_dir):
    plant_skills(tree.root)
    outside = tree.canary.parent
    monkeypatch.setenv("HOME", str(outside))
    value = cache_dir.format(outside=outside, tree=tree.root)
    (tree.root / ".skilllint.toml").write_text(f"cache-dir = {json.dumps(value)}\n")
    before = snapshot(outside)
    message = usage_error(run(tree, "check", ".", label=f"cache-dir {cache_dir}", expect=(2,)))
    assert "cache-dir" in message and "leads outside" in message and "--cache-dir" in message, message
    assert snapshot(outside) == before
    # the user's own choice, on the command line or in the environment, is honoured
    chosen = tree.root / "my-cache"
    check_json(tree, "--cache-dir", str(chosen), ".", label="--cache-dir over the configuration's")
    assert list(chosen.rglob("*.json")) and snapshot(outside) == before


@pytest.mark.e2e
def test_cache_dir_in_the_project_through_a_link_out_is_not_followed(tree):
    plant_skills(tree.root)
    expected = fresh(tree)
    outside = tree.canary.parent
    (outside / "cache").mkdir()
    os.symlink(outside / "cache", tree.root / "build")
    (tree.root / "skilllint.toml").write_text('cache-dir = "build/skilllint"\n')
    age(tree.root)
    before = snapshot(outside)
    for attempt in ("cold", "warm"):
        result = check_json(tree, ".", label=f"cache-dir through a link ({attempt})")
        assert findings(result) == expected
    assert snapshot(outside) == before
    assert "is a symbolic link, not a folder; the result cache is not used" in result.err


def test_a_cache_folder_chosen_by_the_user_may_be_a_link(tmp_path):
    # --cache-dir and SKILLLINT_CACHE_DIR are the user's: a link there is theirs to follow.
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "bad-name", BROKEN)
    age(repo)
    (tmp_path / "real-cache").mkdir()
    os.symlink(tmp_path / "real-cache", tmp_path / "cache-link")
    code, out, err = run_cli("check", "--output-format", "json", "--exit-zero", "--cache-dir", str(tmp_path / "cache-link"), ".", cwd=repo)
    assert code == 0, err
    assert list((tmp_path / "real-cache" / "v2").rglob("*.json")) and not (repo / ".skilllint_cache").exists()


# ----------------------------------------------------------------------------- configured bounds


@pytest.mark.e2e
def test_a_shipped_configuration_cannot_lift_the_read_cap(tree):
    # max-bytes = 4 GiB made a 2 GB sparse SKILL.md a 2 GB read and more (12.7 GB peak, then an abort).
    root = skill(tree.root, "huge")
    sparse(root / "SKILL.md", (root / "SKILL.md").read_bytes(), size=2 * GiB)
    (tree.root / ".skilllint.toml").write_text(f"[rules.SL011]\nmax-bytes = {4 * GiB}\n")
    message = usage_error(run(tree, "check", ".", label="max-bytes = 4 GiB", expect=(2,)))
    assert "max-bytes" in message and "maximum" in message, message


# ----------------------------------------------------------------------------- cache files that are traps


def _amplifier(size: int) -> bytes:
    """Valid JSON of ``size`` bytes that takes ~20 times that once parsed (a list of empty lists)."""
    count = (size - 2) // 3
    return b"[" + b"[]," * (count - 1) + b"[]]"


def _plant_trap(path: Path, kind: str) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "/dev/zero":
        os.symlink("/dev/zero", path)
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "3 GB file":
        sparse(path, b'{"diagnostics": [', size=3 * GiB)
    else:  # under every cache file's cap, some 200 MB once parsed
        path.write_bytes(_amplifier(7_500_000))


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["/dev/zero", "FIFO", "3 GB file", "7.5 MB amplifier"])
@pytest.mark.parametrize("which", ["catalog-entries.json", "token-counts.json", "results"])
def test_cache_files_that_are_traps_are_misses_within_the_bounds(tree, which, kind):
    plant_skills(tree.root)
    check_json(tree, ".", label="fill the cache")
    folder = tree.root / ".skilllint_cache" / "v2"
    targets = results(tree.root) if which == "results" else [folder / which]
    assert targets and all(p.exists() for p in targets), sorted(os.listdir(folder))
    for path in targets:
        _plant_trap(path, kind)
    long = tree.root / "skills" / "long" / "SKILL.md"
    long.write_text(long.read_text() + "One more step.\n")  # linted again: its parts' counts are looked up
    age(long.parent)  # the other skill's key stays
    expected = fresh(tree)
    result = check_json(tree, ".", label=f"{which} as {kind}")
    assert findings(result) == expected


# ----------------------------------------------------------------------------- valid JSON, wrong content


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "bad-name", BROKEN)
    write_skill(repo / "skills", "other", "---\nname: other\ndescription: Does other things. Use when asked.\n---\n# Other\n")
    age(repo)
    return repo


def _check(repo: Path, *args: str) -> list[dict]:
    code, out, err = run_cli("check", "--output-format", "json", "--exit-zero", *args, ".", cwd=repo)
    assert code == 0 and "Traceback" not in err, err
    return json.loads(out)["diagnostics"]


def _forgeries(real: dict, root: str, sibling: str) -> dict[str, object]:
    """Result files skilllint never writes, each built from a real one (``real``: one finding)."""

    def finding(**changes):
        return {"diagnostics": [dict(real, **changes)]}

    span = [1, 1, 1, 2]
    return {
        "diagnostics not a list": {"diagnostics": {}},
        "top level a list": [real],
        "finding not an object": {"diagnostics": ["SL101"]},
        "path climbing out": finding(path=f"{root}/../../../../../../etc/passwd", message="forged"),
        "absolute path elsewhere": finding(path="/etc/passwd", message="forged"),
        "another package's file": finding(path=sibling, message="forged"),
        "relative path": finding(path="SKILL.md"),
        "message a number": finding(message=12345),
        "code of no kept rule": finding(code="SL999"),
        "name not the code's": finding(name="forged-name"),
        "severity a boolean": finding(severity=True),
        "severity out of range": finding(severity=7),
        "unknown target": finding(targets=["not-a-surface"]),
        "negative position": finding(span=[-1, 1, 1, 1]),
        "three positions": finding(span=[1, 1, 1]),
        "position as text": finding(span=["1", "1", "1", "1"]),
        "position past any file": finding(span=[2**40, 1, 1, 1]),
        "note on /etc/passwd": finding(related=[["forged", "/etc/passwd", span]]),
        "note of the wrong shape": finding(related=[["forged", f"{root}/SKILL.md"]]),
        "fix editing another file": finding(fix={"message": "m", "applicability": "safe", "edits": [["/etc/passwd", span, "x", None, None]]}),
        "fix of unknown applicability": finding(fix={"message": "m", "applicability": "always", "edits": []}),
        "nested 100,000 deep": "DEEP",
    }


def test_result_files_with_the_wrong_content_are_misses(tmp_path):
    repo = _repo(tmp_path)
    expected = _check(repo, "--no-cache")
    assert _check(repo) == expected
    package = repo / "skills" / "bad-name"
    (own,) = [entry for entry in cache_pack(repo).values() if str(package).encode() in entry]  # its findings' entry
    real = next(
        item for item in json.loads(own)["diagnostics"] if item["path"] == str(package / "SKILL.md") and not item.get("fix")
    )
    sibling = str(repo / "skills" / "other" / "SKILL.md")
    wrong = []
    for label, forged in _forgeries(real, str(package), sibling).items():
        text = json.dumps(forged) if forged != "DEEP" else '{"diagnostics": ' + "[" * 100_000 + "]" * 100_000 + "}"
        rewrite_cache_pack(repo, lambda entry, text=text: text.encode() if str(package).encode() in entry else entry)
        if _check(repo) != expected:
            wrong.append(label)
    assert wrong == []


def test_token_counts_that_cannot_be_are_counted_again(tmp_path, monkeypatch):
    # Zero tokens for 8 KB of text would hide an over-long body: a kept count must lie
    # between the part's bytes over the longest token and its bytes.
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "long", f"---\nname: long\ndescription: Does long things. Use when asked.\n---\n{long_body('long')}")
    age(repo)
    (repo / "skilllint.toml").write_text("[rules.SL202]\nmax-tokens = 200\n")

    def counted() -> list[str]:  # "the body is N tokens (o200k_base)"
        return [d["message"].split(", over")[0] for d in _check(repo) if d["code"] == "SL202"]

    expected = counted()
    assert expected and expected[0].startswith("the body is ")
    counts = repo / ".skilllint_cache" / "v2" / "token-counts.json"
    for forged, limit in ((0, 201), (10**9, 202)):
        data = json.loads(counts.read_text())
        assert data["counts"]
        data["counts"] = dict.fromkeys(data["counts"], forged)
        counts.write_text(json.dumps(data))
        (repo / "skilllint.toml").write_text(f"[rules.SL202]\nmax-tokens = {limit}\n")  # another result key
        monkeypatch.setattr(tokens, "_COUNT_CACHE", type(tokens._COUNT_CACHE)())  # as a new process: nothing memoised
        assert counted() == expected, forged


def test_kept_catalog_answers_of_the_wrong_shape_are_misses(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    text = "---\nname: {0}\ndescription: Formats spreadsheets and reports for the team. Use when asked.\n---\n# {0}\n"
    for name in ("first", "second", "third"):
        write_skill(repo / "skills", name, text.format(name))
    age(repo)
    expected = _check(repo, "--no-cache", "--select", "SL510")
    assert len(expected) == 3
    assert _check(repo, "--select", "SL510") == expected
    entries = repo / ".skilllint_cache" / "v2" / "catalog-entries.json"
    data = json.loads(entries.read_text())
    assert data["kept"]
    forgeries = {
        "each row three times": lambda rows: rows * 3,
        "a score under the threshold": lambda rows: [[i, p, 0.5, False] for i, p, _, _ in rows],
        "a skill its own partner": lambda rows: [[i, i, s, d] for i, _, s, d in rows],
    }
    wrong = []
    for label, forge in forgeries.items():
        entries.write_text(json.dumps(dict(data, kept={key: forge(rows) for key, rows in data["kept"].items()})))
        if _check(repo, "--select", "SL510") != expected:
            wrong.append(label)
    assert wrong == []


# ----------------------------------------------------------------------------- what a key covers


def test_a_linked_skill_md_is_linted_again_when_the_file_it_leads_to_changes(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "shared").mkdir()
    source = repo / "shared" / "linked.md"
    source.write_text("---\nname: linked\ndescription: Does linked things. Use when asked.\n---\n# Linked\n")
    (repo / "skills" / "linked").mkdir(parents=True)
    os.symlink("../../shared/linked.md", repo / "skills" / "linked" / "SKILL.md")
    age(repo)
    assert not [d for d in _check(repo, "--select", "SL1") if d["code"] == "SL104"]
    source.write_text("---\nname: Linked_Name\ndescription: Does linked things. Use when asked.\n---\n# Linked\n")
    age(source.parent)  # an old time stamp again; the skill folder and its link are as they were
    assert [d["code"] for d in _check(repo, "--select", "SL1") if d["code"] == "SL104"] == ["SL104"]


def test_a_linked_skill_md_changes_the_catalog_entry_key(tmp_path, monkeypatch):
    # (It did before: the key stat-ed through links, out of the tree too; now it takes the
    # lstat of the file read in SKILL.md's place, which lies inside the tree.)
    from skilllint.lint.cache import catalog_entries as entries
    from skilllint.lint.cache.catalog_entries import CatalogEntries
    from skilllint.skill.package import SkillPackage
    from skilllint.targets import TARGETS

    monkeypatch.setattr(entries, "RACY_SECONDS", 0)  # change times cannot be set back

    (tmp_path / "shared").mkdir()
    source = tmp_path / "shared" / "linked.md"
    source.write_text("---\nname: linked\ndescription: Does linked things. Use when asked.\n---\n")
    (tmp_path / "linked").mkdir()
    os.symlink("../shared/linked.md", tmp_path / "linked" / "SKILL.md")
    age(tmp_path)

    def key() -> str:
        store = CatalogEntries(tmp_path / "cache", "salt")
        return store.lookup(SkillPackage(tmp_path / "linked", tmp_path), TARGETS["codex"])[0]

    before = key()
    assert before is not None
    source.write_text("---\nname: renamed\ndescription: Does linked things. Use when asked.\n---\n")
    age(tmp_path)
    assert key() not in (None, before)


# ----------------------------------------------------------------------------- no stat through a link out


def test_nothing_is_stat_ed_through_a_link_that_leads_out_of_the_tree(tmp_path, monkeypatch):
    """Target detection (a plugin manifest above the skill), catalog entries (SKILL.md and
    agents/) and the cache key look at links with lstat only: every stat that follows links
    must end inside the tree."""
    outside = tmp_path / "outside"
    (outside / ".claude-plugin").mkdir(parents=True)
    (outside / ".claude-plugin" / "plugin.json").write_text("{}")
    (outside / ".codex-plugin").mkdir()
    (outside / ".codex-plugin" / "plugin.json").write_text('{"name": "x"}')
    (outside / "agents").mkdir()
    (outside / "agents" / "openai.yaml").write_text("interface: {}\n")
    (outside / "SKILL.md").write_text("---\nname: a\ndescription: Does a. Use when asked.\n---\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    plugin = repo / "plugins" / "p"
    (plugin / "skills" / "a").mkdir(parents=True)
    os.symlink(outside / ".claude-plugin", plugin / ".claude-plugin")
    os.symlink(outside / ".codex-plugin", plugin / ".codex-plugin")
    os.symlink(outside / "SKILL.md", plugin / "skills" / "a" / "SKILL.md")
    os.symlink(outside / "agents", plugin / "skills" / "a" / "agents")
    write_skill(plugin / "skills", "b", "---\nname: b\ndescription: Does b. Use when asked.\n---\n")
    os.symlink(outside / "agents", plugin / "skills" / "b" / "agents")
    age(repo)
    followed: list[str] = []
    real_stat = os.stat

    def recording_stat(path, *args, dir_fd=None, follow_symlinks=True):
        if follow_symlinks and dir_fd is None and not isinstance(path, int):
            followed.append(os.fspath(path))
        return real_stat(path, *args, dir_fd=dir_fd, follow_symlinks=follow_symlinks)

    monkeypatch.setattr(os, "stat", recording_stat)
    for _ in ("cold", "warm"):
        _check(repo, "--target", "all", "--select", "ALL", "--jobs", "1")  # in this process: recorded
    monkeypatch.setattr(os, "stat", real_stat)
    tree = os.path.realpath(repo)
    out = sorted({p for p in followed if p.startswith(str(repo)) and not is_within(Path(tree), Path(os.path.realpath(p)))})
    assert out == []


# ----------------------------------------------------------------------------- SafeFolder


def test_safe_folder_refuses_links_and_special_files_at_every_level(tmp_path):
    from skilllint.fsafe import UnsafeFile
    from skilllint.safewrite import SafeFolder

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "file").write_bytes(OUTSIDE_FILE)
    top = tmp_path / "top"
    top.mkdir()
    os.symlink(outside, top / "linked-folder")
    os.symlink(outside / "file", top / "linked-file")
    os.mkfifo(top / "fifo")
    with SafeFolder.trusted(str(top)) as folder:
        for name in ("linked-folder", "fifo", "linked-file"):
            with pytest.raises(UnsafeFile):
                folder.child(name, create=True)
            with pytest.raises(UnsafeFile):
                folder.read(name, 1024)
        with pytest.raises(FileNotFoundError):
            folder.child("missing")
        with folder.child("made", create=True) as made:
            made.write_atomic("entry.json", b"{}")
            assert made.read("entry.json", 2).data == b"{}"
            with pytest.raises(UnsafeFile):
                made.read("entry.json", 1)  # over the cap: refused unread
        folder.write_atomic("linked-file", b"replaced")  # the link is replaced, not written through
    assert (outside / "file").read_bytes() == OUTSIDE_FILE
    assert not (top / "linked-file").is_symlink() and (top / "linked-file").read_bytes() == b"replaced"
    assert sorted(os.listdir(outside)) == ["file"]
