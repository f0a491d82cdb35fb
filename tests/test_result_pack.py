"""The result pack (results.pack): appended to by a run that files entries, rewritten at its bound."""

import os

import pytest

from skilllint.lint.cache import result_pack
from skilllint.lint.cache.folder import CacheFolder, dump_json, parse_json
from skilllint.lint.cache.result_pack import FILENAME, HEADER, ResultPack

from conftest import run_cli, write_skill


def key(n: int) -> str:
    return f"{n:064x}"


def entry(n: int, size: int = 40) -> bytes:
    return b'{"n": %d, "pad": "%s"}' % (n, b"x" * size)


def saved(folder: CacheFolder, made=(), found=()) -> ResultPack:
    """A run that looks up ``found`` and files ``made`` (numbers), then saves."""
    pack = ResultPack(folder)
    for n in found:
        assert pack.get(key(n)) == entry(n)
    for n in made:
        pack.put(key(n), entry(n))
    pack.save()
    return pack


def stored(folder: CacheFolder) -> dict:
    return ResultPack(folder).load()


def test_a_run_that_files_entries_appends_them(tmp_path):
    folder = CacheFolder(tmp_path / "cache")
    saved(folder, made=[1, 2])
    path = folder.path / FILENAME
    before, inode = path.read_bytes(), path.stat().st_ino
    saved(folder, made=[3], found=[1])
    assert path.stat().st_ino == inode  # the same file, not a new one renamed into place
    assert path.read_bytes().startswith(before)
    assert stored(folder) == {key(n): entry(n) for n in (1, 2, 3)}
    size = path.stat().st_size
    saved(folder, found=[1, 2, 3])  # a run that only found entries writes nothing
    assert path.stat().st_size == size


def test_a_pack_saved_twice_appends_each_entry_once(tmp_path):
    folder = CacheFolder(tmp_path / "cache")
    saved(folder, made=[1])
    pack = ResultPack(folder)
    pack.put(key(2), entry(2))
    pack.save()
    pack.put(key(3), entry(3))
    pack.save()  # a process that lints on (and saves) again
    data = (folder.path / FILENAME).read_bytes()
    assert [data.count(key(n).encode()) for n in (1, 2, 3)] == [1, 1, 1]


def test_a_later_line_for_a_key_replaces_the_earlier(tmp_path):
    folder = CacheFolder(tmp_path / "cache")
    saved(folder, made=[1])
    pack = ResultPack(folder)
    pack.put(key(1), b'{"changed": true}')
    pack.save()
    assert stored(folder) == {key(1): b'{"changed": true}'}


def test_a_torn_tail_does_not_hide_the_next_entry(tmp_path):
    folder = CacheFolder(tmp_path / "cache")
    saved(folder, made=[1])
    path = folder.path / FILENAME
    with open(path, "ab") as torn:  # a run killed in the middle of its append
        torn.write(key(2).encode() + b' {"n": 2, "pa')
    saved(folder, made=[3])
    kept = stored(folder)
    assert kept[key(1)] == entry(1) and kept[key(3)] == entry(3)  # 3 starts a line of its own
    assert parse_json(kept[key(2)]) is None  # the torn line: a miss when looked up


def test_at_its_bound_the_pack_is_rewritten_to_half_with_this_runs_entries_and_the_newest(tmp_path, monkeypatch):
    monkeypatch.setattr(result_pack, "MAX_PACK_BYTES", 4096)
    folder = CacheFolder(tmp_path / "cache")
    line = len(b"%s %s\n" % (key(0).encode(), entry(0)))
    count = (4096 - len(HEADER)) // (line + 1) - 1  # each append adds a line end of its own
    for n in range(count):
        saved(folder, made=[n])
    path = folder.path / FILENAME
    assert path.stat().st_size <= 4096 and len(stored(folder)) == count
    saved(folder, made=[1000, 1001], found=[0])
    assert path.stat().st_size <= 2048 + 3 * line
    kept = stored(folder)
    assert {key(0), key(1000), key(1001), key(count - 1)} <= set(kept)  # this run's, and the newest before it
    assert key(1) not in kept  # among the oldest, dropped
    assert len(kept) < count


@pytest.mark.skipif(not hasattr(os, "link") or os.name == "nt", reason="hard links and O_NOFOLLOW opens")
def test_a_pack_with_another_link_is_replaced_not_appended_to(tmp_path):
    folder = CacheFolder(tmp_path / "cache")
    saved(folder, made=[1])
    other = tmp_path / "elsewhere"
    os.link(folder.path / FILENAME, other)  # say, a file outside the tree, linked in by a hostile archive
    before = other.read_bytes()
    saved(folder, made=[2])
    assert other.read_bytes() == before
    assert stored(folder) == {key(1): entry(1), key(2): entry(2)}
    assert (folder.path / FILENAME).stat().st_nlink == 1


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_a_pack_swapped_for_a_link_is_not_appended_through(tmp_path):
    folder = CacheFolder(tmp_path / "cache")
    pack = ResultPack(folder)
    pack.put(key(1), entry(1))
    pack.save()
    pack = ResultPack(folder)
    pack.load()  # read while a pack was there
    target = tmp_path / "target"
    target.write_bytes(b"outside\n")
    os.replace(folder.path / FILENAME, tmp_path / "moved")
    os.symlink(target, folder.path / FILENAME)  # swapped in between the read and the save
    pack.put(key(2), entry(2))
    pack.save()
    assert target.read_bytes() == b"outside\n"
    assert not (folder.path / FILENAME).is_symlink()  # replaced by a pack in the tree


def test_a_pre_commit_run_appends_the_one_entry_it_files(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for name in ("one", "two"):
        write_skill(repo / "skills", name, f"---\nname: {name}\ndescription: Does {name} things. Use when asked.\n---\n# Body\n")
    past = os.stat(repo).st_mtime - 60
    for dirpath, dirnames, filenames in os.walk(repo):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (past, past))
    assert run_cli("check", ".", cwd=repo)[0] == 0
    pack = repo / ".skilllint_cache" / "v2" / FILENAME
    before, inode = pack.read_bytes(), pack.stat().st_ino
    skill = repo / "skills" / "one" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMore.\n")
    os.utime(skill, (past, past))
    assert run_cli("check", "skills/one/SKILL.md", cwd=repo)[0] == 0
    assert pack.stat().st_ino == inode and pack.read_bytes().startswith(before)
    assert pack.read_bytes().count(b"\n") == before.count(b"\n") + 2  # a line end, and the entry


@pytest.mark.parametrize("with_orjson", [True, False])
def test_parse_json_reads_what_the_standard_library_reads(with_orjson, monkeypatch):
    """orjson reads cache files when the process has it (a JSON or SARIF report imports it): the
    same values as json.loads, and what it refuses (a lone surrogate the cache writes for a name
    that is not UTF-8, NaN, nesting deeper than it goes) is read by the standard library; what
    neither reads is None. Without it, the standard library reads them all."""
    import json
    import sys

    if with_orjson:
        pytest.importorskip("orjson")
    else:
        monkeypatch.setitem(sys.modules, "orjson", None)

    cases = [
        b'{"a": 1, "b": [1, 2.5, "x", null, true, false], "c": {"d": "\\u00e9\\n"}}',
        '{"k": "\udcff", "é": "ü"}'.encode("utf-8", "surrogatepass"),
        b'{"a": NaN, "b": -Infinity}',
        # deeper than orjson goes (1,024), padded under the memory guard: the standard library reads
        # it on Python 3.13 (and raises RecursionError on 3.10-3.12), parse_json as it does
        b"[" * 1100 + b" " * 1000 + b"]" * 1100,
        b'{"a": 1, "a": 2}',
        b"\xef\xbb\xbf{}",
        b"not json",
        b'{"a": 1} trailing',
        b'{"torn": [1, 2',
    ]
    for data in cases:
        try:
            expected = json.loads(data.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):
            expected = None
        got = parse_json(data)
        assert json.dumps(got) == json.dumps(expected), data[:40]  # (dumps: NaN equals itself there)
    assert parse_json(dump_json({"k\udcff": [1, "é"]})) == {"k\udcff": [1, "é"]}  # what dump_json writes, read back


def test_only_a_json_or_sarif_report_brings_orjson_and_the_cache_reads_with_it(tmp_path):
    """A run with a text report reads the cache with the standard library (importing orjson for the
    cache alone would cost a small tree more than it saves); one with a JSON report imports orjson
    before linting, and the cache reads and writes with it. Both find every skill in the cache."""
    import subprocess
    import sys

    pytest.importorskip("orjson")
    (tmp_path / ".git").mkdir()
    for name in ("alpha", "beta"):
        write_skill(tmp_path / "skills", name, f"---\nname: {name}\ndescription: Does {name} things. Use when asked.\n---\n# {name}\n")
    from test_cache import age

    age(tmp_path / "skills")  # settled: a result is filed
    run_cli("check", ".", cwd=tmp_path)  # fills the cache
    code = (
        "import sys\n"
        "from skilllint.lint.cache import store as cache\n"
        "seen, get = [], cache.ResultCache.get\n"
        "def counted(self, *args, **kwargs):\n"
        "    found = get(self, *args, **kwargs)\n"
        "    seen.append(found is not None)\n"
        "    return found\n"
        "cache.ResultCache.get = counted\n"
        "from skilllint.cli.main import main\n"
        "main(['check', '-j', '1', '--output-format', sys.argv[1], '.'])\n"
        "print('orjson' in sys.modules, all(seen) and len(seen))\n"
    )
    # The child must run the skilllint this process filled the cache with: the cache is keyed by the
    # package's code, and from a checkout over a non-editable install the two differ (the checkout's
    # skilllint/ shadows the installed one here; the child, run from tmp_path, would import the other).
    import skilllint

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(os.path.realpath(skilllint.__file__))), os.environ.get("PYTHONPATH", "")]))
    for fmt, imported in (("concise", "False"), ("json", "True")):
        out = subprocess.run([sys.executable, "-c", code, fmt], capture_output=True, text=True, cwd=tmp_path, env=env)
        assert out.stdout.strip().splitlines()[-1] == f"{imported} 2", (fmt, out.stdout, out.stderr)
