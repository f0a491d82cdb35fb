"""Worker processes for large trees (skilllint.lint.parallel) and the engine's use of them."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import pytest

from conftest import cache_pack, run_cli, write_skill
from skilllint.lint import parallel
from skilllint.lint.parallel import MIN_PACKAGES_PER_WORKER, PendingMap, worker_count

linux_fork = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
PARENT = os.getpid()


def square(n):
    return n * n


def fail_in_a_worker(n):
    if os.getpid() != PARENT and n == 7:
        raise ValueError("seven")
    return n * n


def die_in_a_worker(n):
    if os.getpid() != PARENT and n == 4:
        os._exit(9)  # as the out-of-memory killer would end it
    return n * n


@linux_fork
def test_worker_count_follows_the_tree_and_the_request(monkeypatch):
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 2)
    assert worker_count(10, None) == 1  # a small tree is not worth a fork
    assert worker_count(2 * MIN_PACKAGES_PER_WORKER, None) == 2
    assert worker_count(100_000, None) == 2  # no more workers than CPUs
    assert worker_count(100, 3) == 3 and worker_count(2, 5) == 2 and worker_count(100, 1) == 1


@linux_fork
def test_no_fork_while_other_threads_run():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert worker_count(100_000, 4) == 1
    finally:
        stop.set()
        thread.join()


@linux_fork
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_results_come_back_in_item_order(workers):
    pending = PendingMap(square, list(range(50)), workers)
    assert pending.results() == [n * n for n in range(50)] and pending.failures == []


@linux_fork
@pytest.mark.parametrize("function", [fail_in_a_worker, die_in_a_worker])
def test_a_failed_worker_loses_nothing(function):
    pending = PendingMap(function, list(range(20)), 2)
    assert pending.results() == [n * n for n in range(20)]
    (failure,) = pending.failures
    assert "linted in the main process" in failure
    assert ("seven" in failure) if function is fail_in_a_worker else ("died" in failure)


def slow_first(n):
    if n == 0:
        time.sleep(1.0)
    return n, os.getpid()


@linux_fork
def test_workers_take_work_as_they_go():
    """A worker held up by one slow item does not keep a fixed share waiting: the other takes the rest."""
    pending = PendingMap(slow_first, list(range(50)), 2)
    results = pending.results()
    assert [n for n, _ in results] == list(range(50)) and pending.failures == []
    slow_worker = results[0][1]
    assert PARENT not in {pid for _, pid in results}
    assert sum(1 for _, pid in results if pid == slow_worker) < 10


_WARMED_BY: int | None = None


def warm_once(n):
    """Item 7 loads something lazily (as a tokenizer is); every item says who loaded it."""
    global _WARMED_BY
    if n == 7 and _WARMED_BY is None:
        _WARMED_BY = os.getpid()
    return n * n, os.getpid(), _WARMED_BY


@linux_fork
def test_the_first_item_is_done_here_and_the_workers_inherit_what_it_loaded():
    global _WARMED_BY
    _WARMED_BY = None
    try:
        pending = PendingMap(warm_once, list(range(30)), 2, first=7)
        results = pending.results()
    finally:
        _WARMED_BY = None
    assert [value for value, _, _ in results] == [n * n for n in range(30)] and pending.failures == []
    assert results[7][1] == PARENT  # done before the fork
    workers = [(pid, warmed) for n, (_, pid, warmed) in enumerate(results) if n != 7]
    assert all(pid != PARENT and warmed == PARENT for pid, warmed in workers)


def lock_in_a_worker(n):
    return threading.Lock() if os.getpid() != PARENT else n * n


@linux_fork
def test_a_value_that_cannot_cross_is_made_here():
    pending = PendingMap(lock_in_a_worker, list(range(10)), 2)
    assert pending.results() == [n * n for n in range(10)]
    assert pending.failures and all("could not send" in f for f in pending.failures)


@pytest.mark.parametrize("count", [0, 1, 511, 512, 513, 10_000, 100_001])
def test_batches_cover_every_item_once_and_stay_few(count):
    batches = parallel._batches(count)
    assert [i for start, stop in batches for i in range(start, stop)] == list(range(count))
    assert len(batches) <= parallel._MAX_BATCHES
    assert all(stop - start == 1 for start, stop in batches) if count <= 512 else True


def _tree(base, count):
    for i in range(count):
        description = "Formats tables. Use when asked." if i % 3 else "x"  # every third: too short to trigger
        name = f"skill-{i:03d}" if i % 5 else f"Skill_{i:03d}"  # every fifth: an invalid name
        write_skill(base / "skills", name, f"---\nname: {name}\ndescription: {description}\n---\n# Title\n\nSee [ref](references/missing-{i}.md).\n")


@linux_fork
def test_workers_find_what_one_process_finds(tmp_path):
    _tree(tmp_path, 3 * MIN_PACKAGES_PER_WORKER)
    runs = {}
    for jobs in ("1", "2", "3"):
        code, out, err = run_cli("check", "--no-cache", "--jobs", jobs, "--output-format", "json", str(tmp_path / "skills"))
        assert code == 1, err
        runs[jobs] = json.loads(out)
    assert runs["1"] == runs["2"] == runs["3"]
    codes = {d["code"] for d in runs["1"]["diagnostics"]}
    assert {"SL104", "SL301", "SL510"} <= codes  # a name finding, a missing reference (workers), an overlap (catalog)


@linux_fork
def test_workers_fill_and_read_the_cache(tmp_path, monkeypatch):
    import skilllint.lint.cache.folder as cache_module
    from skilllint.lint.cache import catalog_entries as entries_module

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)  # files written just now count as settled
    monkeypatch.setattr(entries_module, "RACY_SECONDS", 0)
    _tree(tmp_path, 2 * MIN_PACKAGES_PER_WORKER)
    cache = tmp_path / "cache"
    args = ("check", "--cache-dir", str(cache), "--jobs", "2", "--output-format", "json", str(tmp_path / "skills"))
    first = run_cli(*args)
    results = cache_pack(tmp_path, "cache")
    second = run_cli(*args)
    assert first == second and first[0] == 1
    # the workers made one result per skill (the main process filed them); and kept every skill's catalog entry
    assert len(results) == 2 * MIN_PACKAGES_PER_WORKER
    stored = json.loads((cache / "v2" / "catalog-entries.json").read_text())["entries"]
    assert len(stored) == 2 * MIN_PACKAGES_PER_WORKER  # one target (agentskills) each


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_jobs_must_be_a_positive_whole_number(value, tmp_path):
    code, _, err = run_cli("check", "--jobs", value, str(tmp_path))
    assert code == 2 and "at least 1" in err


@linux_fork
def test_a_warm_run_forks_only_for_the_skills_that_changed(tmp_path, monkeypatch):
    import skilllint.lint.cache.folder as cache_module
    from skilllint.lint import engine

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)  # files written just now count as settled
    asked = []
    monkeypatch.setattr(engine, "worker_count", lambda packages, jobs: asked.append(packages) or worker_count(packages, jobs))
    _tree(tmp_path, 3 * MIN_PACKAGES_PER_WORKER)
    args = ("check", "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", str(tmp_path / "skills"))
    first = run_cli(*args)
    second = run_cli(*args)
    (tmp_path / "skills" / "skill-001" / "SKILL.md").write_text("---\nname: skill-001\ndescription: Changed. Use when asked.\n---\n")
    third = run_cli(*args)
    # cold: every skill to the workers; warm: none (looked up here); one changed: one
    assert asked == [3 * MIN_PACKAGES_PER_WORKER, 0, 1]
    assert first == second and third[0] == 1 and third != second


# -- Background: one function in a forked process ------------------------------------------


def where_it_ran():
    return os.getpid()


def fail_in_the_child():
    if os.getpid() != PARENT:
        raise ValueError("child only")
    return "ran here"


def die_in_the_child():
    if os.getpid() != PARENT:
        os._exit(9)
    return "ran here"


def not_plain_data_in_the_child():
    return threading.Lock() if os.getpid() != PARENT else "ran here"


@linux_fork
def test_background_runs_in_another_process_and_returns_its_value():
    job = parallel.Background(where_it_ran)
    assert job.result() not in (PARENT, None) and job.failure is None


@linux_fork
@pytest.mark.parametrize(
    ("function", "said"),
    [(fail_in_the_child, "ValueError: child only"), (die_in_the_child, "exit status 9"), (not_plain_data_in_the_child, "could not send")],
)
def test_a_failed_background_process_is_run_again_here(function, said):
    job = parallel.Background(function)
    assert job.result() == "ran here"
    assert said in job.failure and "ran in the main process" in job.failure


@linux_fork
def test_a_warm_run_judges_the_catalogs_in_the_background(tmp_path, monkeypatch):
    import skilllint.lint.cache.folder as cache_module
    from skilllint.lint import engine
    from skilllint.lint.cache import catalog_entries as entries_module

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)
    monkeypatch.setattr(entries_module, "RACY_SECONDS", 0)
    started = []
    real_background = parallel.Background
    monkeypatch.setattr(engine, "Background", lambda function: started.append(1) or real_background(function))
    _tree(tmp_path, engine.BACKGROUND_MIN_PACKAGES)
    args = ("check", "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", str(tmp_path / "skills"))
    cold = run_cli(*args)
    assert started == []  # nothing in the cache: the linters read the catalog entries
    warm = run_cli(*args)
    assert started == [1] and warm == cold
    one_process = run_cli(*args, "--jobs", "1")
    assert started == [1] and one_process == cold  # --jobs 1: no process of any kind
    # a skill changed since: the background process reads its new entry itself
    (tmp_path / "skills" / "skill-001" / "SKILL.md").write_text("---\nname: skill-002\ndescription: Formats tables. Use when asked.\n---\n")
    changed = json.loads(run_cli(*args)[1])
    fresh = json.loads(run_cli("check", "--no-cache", "--output-format", "json", str(tmp_path / "skills"))[1])
    assert changed == fresh and any(d["code"] == "SL511" for d in changed["diagnostics"])  # two skills named skill-002


@linux_fork
def test_the_background_process_also_runs_the_rules_no_cache_keeps(tmp_path, monkeypatch):
    """SL520 (never cached: it counts a whole skills root) runs in the background process of a warm run."""
    import skilllint.lint.cache.folder as cache_module
    from skilllint.lint import engine
    from skilllint.lint.cache import catalog_entries as entries_module

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)
    monkeypatch.setattr(entries_module, "RACY_SECONDS", 0)
    root = tmp_path / ".agents" / "skills"
    for i in range(engine.BACKGROUND_MIN_PACKAGES):
        folder = f".drafts/skill-{i:03d}" if i % 4 == 0 else f"skill-{i:03d}"  # Codex skips dot folders
        write_skill(root, folder, f"---\nname: skill-{i:03d}\ndescription: Does task {i}. Use when asked for task {i}.\n---\n# T\n")
    ran_in = []
    real_lint_package = engine.lint_package

    def spying(package, rules, *args, **kwargs):
        if any(rule.code == "SL520" for rule in rules):
            ran_in.append(os.getpid())
        return real_lint_package(package, rules, *args, **kwargs)

    monkeypatch.setattr(engine, "lint_package", spying)
    args = ("check", "--target", "codex", "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", str(tmp_path))
    cold = run_cli(*args, "--jobs", "1")
    assert set(ran_in) == {PARENT}  # in this process (and no earlier results: no background process)
    warm = run_cli(*args)
    assert warm == cold and {d["code"] for d in json.loads(warm[1])["diagnostics"]} >= {"SL520"}
    assert len(ran_in) == engine.BACKGROUND_MIN_PACKAGES  # not again here: the child's count is its own



@linux_fork
def test_the_report_writer_is_loaded_before_linting_and_the_cache_saved_while_the_background_works(tmp_path, monkeypatch):
    """A JSON report's writer (orjson) is imported before linting, so the result cache reads its
    files with it; what a warm run's main process saves it saves while it waits for the background
    process; the output is the same."""
    import skilllint.lint.cache.folder as cache_module
    from skilllint.lint.cache import store as cache_mod
    from skilllint.lint import engine
    from skilllint.lint.cache import catalog_entries as entries_module
    from skilllint.output import formats

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)
    monkeypatch.setattr(entries_module, "RACY_SECONDS", 0)
    _tree(tmp_path, engine.BACKGROUND_MIN_PACKAGES)
    args = ("check", "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", str(tmp_path / "skills"))
    cold = run_cli(*args)
    events = []
    real_result, real_save, real_prepare = parallel.Background.result, cache_mod.ResultCache.save, formats.prepare
    monkeypatch.setattr(parallel.Background, "result", lambda self: events.append("wait") or real_result(self))
    monkeypatch.setattr(cache_mod.ResultCache, "save", lambda self: events.append("save") or real_save(self))
    monkeypatch.setattr(formats, "prepare", lambda fmt: events.append(f"prepare {fmt}") or real_prepare(fmt))
    warm = run_cli(*args)
    assert warm == cold
    assert events == ["prepare json", "save", "wait", "save"]  # the last save: nothing new to write


# -- Forked: one function in a forked process, awaited on an event loop, stoppable -----------


def sleep_in_the_child():
    time.sleep(60)
    return "woke"


@linux_fork
def test_forked_returns_the_child_s_value_and_the_loop_runs_meanwhile():
    import asyncio

    async def scenario():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.get_running_loop().create_task(tick())
        value = await parallel.Forked(lambda: (time.sleep(0.5), os.getpid())[1]).result()
        ticker.cancel()
        return value, ticks

    value, ticks = asyncio.run(scenario())
    assert value != PARENT and ticks >= 10  # the loop went on while the child slept


@linux_fork
@pytest.mark.parametrize(
    ("function", "said"),
    [(fail_in_the_child, "ValueError: child only"), (die_in_the_child, "died (exit status 9)"), (not_plain_data_in_the_child, "could not send")],
)
def test_a_failed_forked_call_raises_what_happened(function, said):
    import asyncio

    with pytest.raises(parallel.ForkFailed, match=said.replace("(", r"\(").replace(")", r"\)")):
        asyncio.run(parallel.Forked(function).result())


@linux_fork
def test_cancelling_a_forked_call_kills_and_reaps_its_process():
    import asyncio

    async def scenario():
        forked = parallel.Forked(sleep_in_the_child)
        pid = forked._pid
        waiting = asyncio.get_running_loop().create_task(forked.result())
        await asyncio.sleep(0.2)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        for _ in range(200):  # reaped: not even a zombie answers signal 0
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            await asyncio.sleep(0.01)
        return False

    assert asyncio.run(scenario())


@linux_fork
def test_a_forked_call_ends_with_its_parent(tmp_path):
    """A parent killed outright (an editor ending its language server) leaves no child working."""
    import signal
    import subprocess

    script = (
        "import asyncio, sys, time\n"
        "from skilllint.lint import parallel\n"
        "forked = parallel.Forked(lambda: time.sleep(60))\n"
        "print(forked._pid, flush=True)\n"
        "asyncio.run(forked.result())\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=120)
    from conftest import HANG_GUARD

    deadline = time.monotonic() + HANG_GUARD  # a hang guard: a child that outlives its parent lives on
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{child}/status", encoding="ascii") as status:
                state = next(line.split()[1] for line in status if line.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError):
            return  # gone
        if state in ("Z", "X"):  # dead, waiting for whoever adopted it to reap it
            return
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    raise AssertionError("the child outlived its parent")


_ORPHANS = """
import os, sys, time
from skilllint.lint.parallel import Background, PendingMap

def slow(n=0):
    time.sleep(60)
    return n

if sys.argv[1] == "workers":
    pending = PendingMap(slow, list(range(4)), 2)
    print(" ".join(str(pid) for pid in pending._pool._processes), flush=True)
    pending.results()
else:
    background = Background(slow)
    print(background._pid, flush=True)
    background.result()
"""


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for whoever adopted it."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@linux_fork
@pytest.mark.parametrize("kind", ["workers", "background"])
def test_forked_processes_end_with_a_killed_parent(kind):
    """kill -9 of skilllint runs none of its handlers: its workers notice by themselves
    that no one reads their results any more, and end (they lint for seconds otherwise)."""
    import signal
    import subprocess

    from conftest import HANG_GUARD, ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    parent = subprocess.Popen([sys.executable, "-c", _ORPHANS, kind], stdout=subprocess.PIPE, text=True, env=env)
    try:
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert children and all(_alive(pid) for pid in children)
        time.sleep(0.2)
        assert all(_alive(pid) for pid in children), "a worker ended before its parent"
        os.kill(parent.pid, signal.SIGKILL)
        killed = time.monotonic()
        parent.wait()
        # A hang guard, not a speed claim: a worker that outlives its parent lives on for good.
        while any(_alive(pid) for pid in children) and time.monotonic() - killed < HANG_GUARD:
            time.sleep(0.01)
        left = [pid for pid in children if _alive(pid)]
    finally:
        parent.kill()
        parent.wait()
    assert not left, f"{kind}: workers {left} outlived their killed parent"


def held_lock_state(lock):
    return lock.locked()


@linux_fork
def test_workers_inherit_the_items_rather_than_receive_them():
    """Items go to the workers by the fork, not pickled: packages need not be picklable."""
    items = [threading.Lock() for _ in range(30)]  # pickle refuses a lock
    pending = PendingMap(held_lock_state, items, 2)
    assert pending.results() == [False] * 30 and pending.failures == []


def test_one_process_imports_no_process_pool(tmp_path):
    """-j 1 and a small tree lint in this process, without importing multiprocessing."""
    import subprocess

    _tree(tmp_path, 3)
    code = (
        "import sys\n"
        "from skilllint.cli.main import main\n"
        "main(['check', '--no-cache', '--output-format', 'json', 'skills'])\n"
        "main(['check', '--no-cache', '-j', '1', '--output-format', 'json', 'skills'])\n"
        "print(sorted(m for m in ('multiprocessing', 'concurrent.futures.process') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out.strip().splitlines()[-1] == "[]"
