"""The agent router of ``skilllint eval`` (``--agent``), ``--record`` and ``--replay``,
driven by a fake agent: a real executable each test writes, that prints Claude Code's
stream-json (or Codex's ``exec --json``) and decides by keywords in the query. Never the
network, never a real agent."""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import stat
import sys
import time
from pathlib import Path

import pytest
from conftest import deadline

from skilllint.app.agent_router import (
    DEFAULT_RUNS,
    AgentError,
    Progress,
    add_agent_arguments,
    router_from_args,
)
from skilllint.app.eval_record import FORMAT, RecordError, RecordingRouter, ReplayRouter
from skilllint.catalog.routing import CatalogView, SkillView, Verdict

# The fake agent. Its query (the last argument) says what it does:
#   SKILL:<name>   a Skill tool call naming <name>         READ:<name>  a Read of its SKILL.md
#   NULREAD        a Read of a path with a NUL in it
#   PARTIAL:<name> the Skill call as partial stream events  BASH        a Bash call first
#   FLAKY:<name>:<k>  SKILL:<name> on its first k runs of that query, nothing after
#   SLEEP          sleeps (with a child holding its output open) far past any timeout
#   CRASH          exits 3 with a message on stderr      GARBAGE  prints lines that are not JSON
#   ERROR          an error result (as when the agent cannot log in)
#   DETACH         exits at once, leaving a child of another session holding its output
#   FLOOD          a Skill call whose streamed arguments run to 40 MB
#   HALF           the init event, then an exit without a result
#   HUGE           a 6 MB line with no event, then SKILL:alpha
#   anything else  answers in text: loads nothing
# Each run appends a line to $FAKE_AGENT_LOG: its argv, cwd, the SKILL.md files it sees
# and its start and end times.
FAKE_AGENT = r'''#!{python}
import json, os, subprocess, sys, time
argv = sys.argv[1:]
if argv == ["--version"]:
    print("fake-agent 1.2.3")
    sys.exit(0)
query = argv[-1] if argv else ""
start = time.time()
log = os.environ.get("FAKE_AGENT_LOG")
def note(**extra):
    if not log:
        return
    skills = []
    for root, dirs, files in os.walk("."):
        skills += [os.path.join(root, f) for f in files]
    with open(log, "a") as handle:
        handle.write(json.dumps(dict(argv=argv, cwd=os.getcwd(), files=sorted(skills), start=start, end=time.time(), **extra)) + "\n")
def emit(event):
    print(json.dumps(event), flush=True)
def tool(name, arguments):
    note()
    emit({"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t1", "name": name, "input": arguments}]}})
    time.sleep(float(os.environ.get("FAKE_AGENT_LINGER", "30")))  # a real agent goes on working
    if log:  # lingered to the end: it was not stopped
        with open(log + ".lingered", "a") as handle:
            handle.write(f"{os.getpid()}\n")
def answer():
    note()
    emit({"type": "assistant", "message": {"content": [{"type": "text", "text": "Here is an answer."}]}})
    emit({"type": "result", "subtype": "success", "is_error": False, "result": "Here is an answer."})
word = query.split()[0] if query.split() else ""
kind, _, rest = word.partition(":")
if kind != "GARBAGE":
    emit({"type": "system", "subtype": "init", "model": "fake-model", "claude_code_version": "9.9.9"})
time.sleep(float(os.environ.get("FAKE_AGENT_DELAY", "0")))
if kind == "FLAKY":
    name, k = rest.split(":")
    counter = os.environ["FAKE_AGENT_COUNTER"]
    n = 0
    while True:
        try:
            os.close(os.open(os.path.join(counter, f"{query.replace(':', '_').replace(' ', '_')}.{n}"), os.O_CREAT | os.O_EXCL))
            break
        except FileExistsError:
            n += 1
    kind, rest = ("SKILL", name) if n < int(k) else ("", "")
if kind == "SKILL":
    tool("Skill", {"skill": rest})
elif kind == "READ":
    tool("Read", {"file_path": os.path.join(os.getcwd(), ".claude", "skills", rest, "SKILL.md")})
elif kind == "NULREAD":
    tool("Read", {"file_path": "/tmp/a\x00b/SKILL.md"})
elif kind == "PARTIAL":
    note()
    emit({"type": "stream_event", "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "Skill", "input": {}}}})
    emit({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"ski'}}})
    emit({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 'll": "' + rest + '"}'}}})
    emit({"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}})
    time.sleep(30)
elif kind == "BASH":
    tool("Bash", {"command": "cat .claude/skills/alpha/SKILL.md"})
elif kind == "SLEEP":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(os.environ["FAKE_AGENT_PIDS"], "a") as handle:
        handle.write(f"{os.getpid()} {child.pid}\n")
    time.sleep(60)
elif kind == "CRASH":
    print("fake agent: something broke", file=sys.stderr)
    sys.exit(3)
elif kind == "GARBAGE":
    print("this is not json")
    print("{unbalanced")
    print("[1, 2, 3]")
elif kind == "DETACH":
    # a child in a session of its own keeps the output open after the agent exits
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    with open(os.environ["FAKE_AGENT_PIDS"], "a") as handle:
        handle.write(f"{child.pid}\n")
elif kind == "FLOOD":
    # a tool call whose arguments stream in 40 deltas of 1 MB each
    emit({"type": "stream_event", "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "Skill", "input": {}}}})
    emit({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"skill": "alpha", "pad": "'}}})
    for _ in range(40):
        emit({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "x" * (1 << 20)}}})
    emit({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"}'}}})
    emit({"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}})
    time.sleep(30)
elif kind == "HALF":
    pass  # an init event, then nothing
elif kind == "ERROR":
    emit({"type": "result", "subtype": "success", "is_error": True, "result": "Invalid API key - Please run /login"})
elif kind == "HUGE":
    sys.stdout.write("x" * (6 * 1024 * 1024))
    sys.stdout.write("\n")
    tool("Skill", {"skill": "alpha"})
else:
    answer()
'''

# A fake ``codex exec --json``: the shapes of codex-rs/exec/src/exec_events.rs.
FAKE_CODEX = r'''#!{python}
import json, os, sys
argv = sys.argv[1:]
if argv == ["--version"]:
    print("codex-cli 0.0.1-fake")
    sys.exit(0)
query = argv[-1]
with open(os.environ["FAKE_AGENT_LOG"], "a") as handle:
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(".") for f in fs)
    handle.write(json.dumps(dict(argv=argv, cwd=os.getcwd(), files=files)) + "\n")
def emit(event):
    print(json.dumps(event), flush=True)
emit({"type": "thread.started", "thread_id": "t"})
emit({"type": "turn.started"})
emit({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "thinking"}})
kind, _, rest = query.split()[0].partition(":")
if kind == "SKILL":
    command = "bash -lc 'sed -n 1,200p .agents/skills/" + rest + "/SKILL.md'"
    emit({"type": "item.started", "item": {"id": "item_1", "type": "command_execution", "command": command, "aggregated_output": "", "exit_code": None, "status": "in_progress"}})
elif kind == "LS":
    emit({"type": "item.started", "item": {"id": "item_1", "type": "command_execution", "command": "bash -lc ls", "aggregated_output": "", "exit_code": None, "status": "in_progress"}})
elif kind == "FAIL":
    emit({"type": "turn.failed", "error": {"message": "stream disconnected"}})
    sys.exit(1)
else:
    emit({"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "an answer"}})
    emit({"type": "turn.completed", "usage": {"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1}})
'''


class FakeLexical:
    """A stand-in for the lexical router: answers nothing, counts its calls."""

    name = "lexical"

    def __init__(self) -> None:
        self.calls = 0

    def decide(self, queries, catalog, skill):
        self.calls += 1
        return [Verdict(triggered=("alpha",) if "alpha" in q else (), detail={"score": 1.5, "terms": ("a", "b")}) for q in queries]


def _script(path: Path, text: str) -> Path:
    path.write_text(text.replace("{python}", sys.executable), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A folder on PATH holding fake ``claude``, ``codex`` and ``fake-agent``, and the
    environment the fakes log to."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "fake-agent", FAKE_AGENT)
    _script(bin_dir / "claude", FAKE_AGENT)
    _script(bin_dir / "codex", FAKE_CODEX)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    log = tmp_path / "agent.log"
    counter = tmp_path / "counter"
    counter.mkdir()
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    monkeypatch.setenv("FAKE_AGENT_COUNTER", str(counter))
    monkeypatch.setenv("FAKE_AGENT_PIDS", str(tmp_path / "pids"))
    return tmp_path


def _runs(fake: Path) -> list[dict]:
    log = fake / "agent.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _catalog(tmp_path: Path, target: str = "claude-code", rendered: str | None = None, names=("alpha", "beta")) -> CatalogView:
    skills = []
    for name in names:
        folder = tmp_path / "skills" / name
        (folder / "scripts").mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name} things.\n---\n\n# {name}\n", encoding="utf-8")
        (folder / "scripts" / "run.sh").write_text("echo never run\n", encoding="utf-8")
        skills.append(SkillView(name=name, skill_md=folder / "SKILL.md", shown=f"Does {name} things.", full=f"Does {name} things.", included=True))
    text = rendered if rendered is not None else "".join(f"- {s.name}: {s.shown}\n" for s in skills)
    return CatalogView(target=target, rendered=text, skills=tuple(skills))


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("-j", "--jobs", type=int)
    add_agent_arguments(parser)
    return parser.parse_args(list(argv))


def _router(*argv: str, progress=None):
    return router_from_args(_args(*argv), FakeLexical(), progress=progress or io.StringIO())


# -- choosing the router -----------------------------------------------------------


def test_without_agent_the_lexical_router_answers_and_nothing_is_run(fake, tmp_path):
    lexical = FakeLexical()
    router = router_from_args(_args(), lexical)
    assert router is lexical
    router.decide(["SKILL:alpha please"], _catalog(tmp_path), _catalog(tmp_path).skills[0])
    assert _runs(fake) == []


@pytest.mark.parametrize(
    "argv, words",
    [
        (("--runs", "2"), "--runs only apply with --agent"),
        (("--timeout", "5"), "--timeout only apply with --agent"),
        (("--replay", "r.json", "--agent", "fake-agent"), "drop --agent"),
        (("--replay", "r.json", "--record", "s.json"), "do not go together"),
        (("--agent", "no-such-agent-anywhere"), "'no-such-agent-anywhere' is not an executable on PATH"),
        (("--agent", "claude-code"), "Claude Code's `claude` is not an executable on PATH"),
        (("--agent", "'unclosed"), "cannot split the command line"),
        (("--agent", "codex"), "Codex's `codex` is not an executable on PATH"),
        (("--agent", "copilot"), "no command is known that asks"),
    ],
)
def test_options_that_cannot_work_are_a_clear_error(tmp_path, monkeypatch, argv, words):
    monkeypatch.setenv("PATH", str(tmp_path))  # no agent anywhere
    with pytest.raises(AgentError, match=None) as caught:
        router_from_args(_args(*argv), FakeLexical())
    assert words in str(caught.value)


@pytest.mark.parametrize("argv", [("--runs", "0"), ("--trigger-threshold", "0"), ("--trigger-threshold", "1.5"), ("--timeout", "-1"), ("--timeout", "nan")])
def test_out_of_range_numbers_are_refused_by_the_parser(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        _args(*argv)
    assert caught.value.code == 2


# -- the claude stream ----------------------------------------------------------------


def test_claude_code_agent_detects_skill_calls_reads_and_partial_messages(fake, tmp_path):
    catalog = _catalog(tmp_path)
    router = _router("--agent", "claude-code", "--runs", "1")
    queries = ["SKILL:alpha do it", "READ:beta do it", "PARTIAL:beta do it", "BASH first", "just chat", "SKILL:unknown-skill", "NULREAD", "-h starts with a dash"]
    verdicts = router.decide(queries, catalog, catalog.skills[0])
    assert [v.triggered for v in verdicts] == [("alpha",), ("beta",), ("beta",), (), (), (), (), ()]
    assert [v.rate for v in verdicts] == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert all(v.detail["completed"] == 1 and v.detail["failures"] == 0 for v in verdicts)
    assert verdicts[0].detail["agent_version"] == "fake-agent 1.2.3"
    runs = _runs(fake)
    # the real command line, the query last, one temporary project per run
    assert all(r["argv"][:-1] == ["-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--"] for r in runs)
    assert len({r["cwd"] for r in runs}) == len(runs)
    # the project holds each skill's SKILL.md where Claude Code looks, and nothing else
    assert runs[0]["files"] == ["./.claude/skills/alpha/SKILL.md", "./.claude/skills/beta/SKILL.md"]
    assert not any(os.path.exists(r["cwd"]) for r in runs)  # and is gone afterwards


def test_a_run_stops_at_the_first_tool_call(fake, tmp_path):
    # the fake lingers 30 s after its tool call, as an agent that goes on working would, and notes
    # when it lingered to the end: stopped at the call, no fake gets there (waited for, each does)
    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent", "--runs", "2", "-j", "2")
    with deadline():  # a hang guard
        verdicts = router.decide(["SKILL:beta x"], catalog, catalog.skills[1])
    assert verdicts[0].triggered == ("beta",) and verdicts[0].rate == 1.0
    assert len(_runs(fake)) == 2 and not (fake / "agent.log.lingered").exists()


def test_runs_and_threshold_make_the_trigger_rate(fake, tmp_path):
    catalog = _catalog(tmp_path)
    alpha = catalog.skills[0]
    low = _router("--agent", "fake-agent", "--runs", "4").decide(["FLAKY:alpha:1 q"], catalog, alpha)[0]
    assert low.rate == 0.25 and low.triggered == () and low.detail["loads"] == {"alpha": 1}
    kept = _router("--agent", "fake-agent", "--runs", "4", "--trigger-threshold", "0.25").decide(["FLAKY:alpha:1 r"], catalog, alpha)[0]
    assert kept.rate == 0.25 and kept.triggered == ("alpha",)
    half = _router("--agent", "fake-agent", "--runs", "4").decide(["FLAKY:alpha:2 s"], catalog, alpha)[0]
    assert half.rate == 0.5 and half.triggered == ("alpha",)  # skill-creator: rate >= threshold
    # a sibling that takes the query is named, at its own rate
    sibling = _router("--agent", "fake-agent", "--runs", "2").decide(["SKILL:beta t"], catalog, alpha)[0]
    assert sibling.rate == 0.0 and sibling.triggered == ("beta",) and sibling.detail["loads"] == {"beta": 2}


def test_default_runs_follow_skill_creator(fake, tmp_path):
    catalog = _catalog(tmp_path)
    verdict = _router("--agent", "fake-agent").decide(["plain"], catalog, catalog.skills[0])[0]
    assert verdict.detail["runs"] == DEFAULT_RUNS == 3


def test_jobs_run_in_parallel(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_AGENT_DELAY", "1.5")
    catalog = _catalog(tmp_path)
    _router("--agent", "fake-agent", "--runs", "4", "-j", "4").decide(["plain"], catalog, catalog.skills[0])
    runs = _runs(fake)
    assert len(runs) == 4
    overlapping = max(sum(1 for r in runs if r["start"] <= other["start"] < r["end"]) for other in runs)
    assert overlapping >= 2


def test_timeouts_are_killed_counted_and_reported(fake, tmp_path):
    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent", "--runs", "2", "-j", "2", "--timeout", "1.5")
    with deadline():  # a hang guard; the fake and its child would sleep 60 s, and are killed (below)
        verdict = router.decide(["SLEEP now"], catalog, catalog.skills[0])[0]
    assert verdict.rate is None and verdict.triggered == ()
    assert verdict.detail["timeouts"] == 2 and verdict.detail["completed"] == 0
    assert "no decision within 1.5 s" in verdict.detail["problems"][0]
    # the agent and what it started are gone
    pids = [int(p) for line in (fake / "pids").read_text().splitlines() for p in line.split()]
    time.sleep(0.2)
    assert pids and not [p for p in pids if _alive(p)]


def test_an_interrupt_ends_the_runs_in_flight(fake, tmp_path):
    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent", "--runs", "3", "-j", "3", "--timeout", "60")

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:  # the interrupt ends the runs: the fakes and their children are killed (below)
        with pytest.raises(KeyboardInterrupt):
            router.decide(["SLEEP a", "SLEEP b"], catalog, catalog.skills[0])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    time.sleep(0.2)
    pids = [int(p) for line in (fake / "pids").read_text().splitlines() for p in line.split()]
    assert pids and not [p for p in pids if _alive(p)]


def test_a_child_that_keeps_the_output_open_cannot_hang_the_run(fake, tmp_path):
    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent", "--runs", "1", "--timeout", "1.5")
    try:
        with deadline():  # a hang guard: the detached child keeps the output open for 60 s
            verdict = router.decide(["DETACH"], catalog, catalog.skills[0])[0]
        assert verdict.detail["timeouts"] == 1 and verdict.rate is None  # ended by the 1.5 s timeout
    finally:
        for line in (fake / "pids").read_text().splitlines():
            try:
                os.kill(int(line), signal.SIGKILL)
            except ProcessLookupError:
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie left for init to reap counts as gone
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_crashes_garbage_and_error_results_are_failures_not_negatives(fake, tmp_path):
    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent", "--runs", "1")
    crash, garbage, error, half = router.decide(["CRASH", "GARBAGE", "ERROR", "HALF"], catalog, catalog.skills[0])
    for verdict in (crash, garbage, error, half):
        assert verdict.rate is None and verdict.detail["failures"] == 1 and verdict.detail["completed"] == 0
    assert "exited with status 3: fake agent: something broke" in crash.detail["problems"][0]
    assert "printed no stream-json event" in garbage.detail["problems"][0]
    assert "ended without a result event" in half.detail["problems"][0]
    assert "Invalid API key" in error.detail["problems"][0]


def test_a_huge_line_is_skipped_and_the_stream_still_read(fake, tmp_path):
    catalog = _catalog(tmp_path)
    verdict = _router("--agent", "fake-agent", "--runs", "1").decide(["HUGE"], catalog, catalog.skills[0])[0]
    assert verdict.triggered == ("alpha",)


def test_streamed_tool_arguments_are_held_up_to_a_cap(fake, tmp_path):
    import tracemalloc

    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent", "--runs", "1")
    tracemalloc.start()
    try:
        verdict = router.decide(["FLOOD"], catalog, catalog.skills[0])[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a call that long names no skill; holding all of it would take 40 MB and more
    assert peak < 30 * 1024 * 1024, peak
    assert verdict.detail["completed"] == 1 and verdict.triggered == ()


def test_a_user_command_gets_its_arguments_and_the_query_last(fake, tmp_path):
    catalog = _catalog(tmp_path)
    router = _router("--agent", "fake-agent --model 'some model'", "--runs", "1")
    assert router.decide(["SKILL:alpha x y"], catalog, catalog.skills[0])[0].triggered == ("alpha",)
    assert _runs(fake)[0]["argv"] == ["--model", "some model", "SKILL:alpha x y"]


def test_a_user_command_uses_the_catalog_targets_folder(fake, tmp_path):
    catalog = _catalog(tmp_path, target="codex")
    _router("--agent", "fake-agent", "--runs", "1").decide(["plain"], catalog, catalog.skills[0])
    assert _runs(fake)[0]["files"] == ["./.agents/skills/alpha/SKILL.md", "./.agents/skills/beta/SKILL.md"]


def test_a_named_agent_refuses_another_surfaces_catalog(fake, tmp_path):
    catalog = _catalog(tmp_path, target="codex")
    with pytest.raises(AgentError, match="evaluate with --target claude-code"):
        _router("--agent", "claude-code").decide(["plain"], catalog, catalog.skills[0])


def test_unsafe_skill_names_never_leave_the_project(fake, tmp_path):
    skills = _catalog(tmp_path).skills
    alpha, beta = skills
    catalog = CatalogView(
        target="claude-code",
        rendered="x",
        skills=(
            SkillView("../../escape", alpha.skill_md, "x", "x", True),  # not a folder name: its own folder's
            SkillView("ALPHA", beta.skill_md, "x", "x", True),  # one folder with `alpha` on some systems
            SkillView("alpha", alpha.skill_md, "x", "x", True),
        ),
    )
    verdicts = _router("--agent", "fake-agent", "--runs", "1").decide(["SKILL:alpha", "READ:ALPHA", "READ:skill-3"], catalog, catalog.skills[2])
    assert _runs(fake)[0]["files"] == ["./.claude/skills/ALPHA/SKILL.md", "./.claude/skills/skill-1/SKILL.md", "./.claude/skills/skill-3/SKILL.md"]
    assert not list(tmp_path.glob("**/escape*"))
    assert [v.triggered for v in verdicts] == [("alpha",), ("ALPHA",), ("alpha",)]


# -- the codex stream ----------------------------------------------------------------


def test_codex_agent_detects_a_read_of_skill_md_in_its_first_command(fake, tmp_path):
    catalog = _catalog(tmp_path, target="codex")
    router = _router("--agent", "codex", "--runs", "1")
    hit, other, chat, failed = router.decide(["SKILL:beta go", "LS first", "just chat", "FAIL"], catalog, catalog.skills[1])
    assert hit.triggered == ("beta",) and hit.rate == 1.0
    assert hit.detail["agent_version"] == "codex-cli 0.0.1-fake"
    assert other.triggered == () and other.rate == 0.0
    assert chat.triggered == () and chat.rate == 0.0
    assert failed.rate is None and "stream disconnected" in failed.detail["problems"][0]
    runs = _runs(fake)
    assert runs[0]["argv"] == ["exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only", "--", "SKILL:beta go"]
    assert runs[0]["files"] == ["./.agents/skills/alpha/SKILL.md", "./.agents/skills/beta/SKILL.md"]




# -- progress ------------------------------------------------------------------------


def test_progress_is_plain_counts_off_a_terminal(fake, tmp_path):
    catalog = _catalog(tmp_path)
    stream = io.StringIO()
    _router("--agent", "fake-agent", "--runs", "2", progress=stream).decide(["plain", "CRASH"], catalog, catalog.skills[0])
    lines = stream.getvalue().splitlines()
    assert lines[-1] == "skilllint eval: alpha: 4/4 runs, 2 failed"
    assert "\r" not in stream.getvalue()


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_a_bar_on_a_terminal():
    stream = _Terminal()
    meter = Progress(stream, 4, "alpha")
    for status in ("ok", "timeout", "ok", "ok"):
        meter.step(status)
    meter.close()
    text = stream.getvalue()
    assert text.count("\r") == 4 and text.endswith("[########################] 4/4 runs, 1 timed out\n")


# -- recording and replay ------------------------------------------------------------


def test_recording_keeps_decisions_catalog_text_and_agent_version(fake, tmp_path):
    catalog = _catalog(tmp_path)
    target = tmp_path / "rec.json"
    router = _router("--agent", "fake-agent", "--runs", "1", "--record", str(target))
    assert isinstance(router, RecordingRouter)
    router.decide(["SKILL:alpha yes", "plain no"], catalog, catalog.skills[0])
    first = target.read_bytes()
    doc = json.loads(first)
    # a user's command is not asked its version: the stream's init event tells it
    assert doc["format"] == FORMAT and doc["agent_versions"] == ["claude-code 9.9.9"]
    assert doc["decisions"][0]["detail"]["model"] == "fake-model"
    assert list(doc["catalogs"].values()) == [catalog.rendered]
    assert [(d["query"], d["triggered"], d["rate"]) for d in doc["decisions"]] == [("SKILL:alpha yes", ["alpha"], 1.0), ("plain no", [], 0.0)]
    assert first == (json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()
    # the same decisions in another order write the same bytes
    again = tmp_path / "again.json"
    _router("--agent", "fake-agent", "--runs", "1", "--record", str(again)).decide(["plain no", "SKILL:alpha yes"], catalog, catalog.skills[0])
    assert again.read_bytes() == first


def test_recording_the_lexical_router_runs_no_agent(fake, tmp_path):
    target = tmp_path / "rec.json"
    catalog = _catalog(tmp_path)
    router = _router("--record", str(target))
    assert router.decide(["about alpha"], catalog, catalog.skills[0])[0].triggered == ("alpha",)
    assert json.loads(target.read_text())["decisions"][0]["detail"] == {"score": 1.5, "terms": ["a", "b"]}
    assert _runs(fake) == []


def test_replay_answers_without_an_agent_and_names_stale_cases(fake, tmp_path, monkeypatch):
    catalog = _catalog(tmp_path)
    target = tmp_path / "rec.json"
    _router("--agent", "fake-agent", "--runs", "2", "--record", str(target)).decide(["SKILL:beta one", "plain two"], catalog, catalog.skills[0])
    recorded_runs = len(_runs(fake))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no agent can be found now
    replay = _router("--replay", str(target))
    assert isinstance(replay, ReplayRouter)
    same = replay.decide(["SKILL:beta one", "plain two", "never recorded"], catalog, catalog.skills[0])
    assert [v.triggered for v in same] == [("beta",), (), ()]
    assert [v.detail["stale"] for v in same] == [False, False, True]
    assert same[0].detail["replayed"] and same[0].detail["agent_version"] == "claude-code 9.9.9"
    assert same[2].detail["recorded"] is False and same[2].rate is None
    # one sibling's description changed: the catalog text did, every case of it is stale
    changed = _catalog(tmp_path, rendered=catalog.rendered.replace("beta things", "beta and gamma things"))
    stale = replay.decide(["SKILL:beta one", "plain two"], changed, changed.skills[0])
    assert [v.triggered for v in stale] == [("beta",), ()]  # answered as recorded
    assert [v.detail["stale"] for v in stale] == [True, True]
    assert len(_runs(fake)) == recorded_runs  # the replay ran nothing


def test_replay_of_an_interrupted_recording_keeps_what_was_decided(fake, tmp_path):
    catalog = _catalog(tmp_path)
    target = tmp_path / "rec.json"
    recorder = _router("--agent", "fake-agent", "--runs", "1", "--record", str(target))
    recorder.decide(["SKILL:alpha"], catalog, catalog.skills[0])  # written already, before any second skill
    assert ReplayRouter(target).decide(["SKILL:alpha"], catalog, catalog.skills[0])[0].detail["stale"] is False


@pytest.mark.parametrize(
    "content, words",
    [
        (b"", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[" * 100000, "not JSON"),
        (b'{"format": "other"}', "not a recording written by"),
        (json.dumps({"format": FORMAT, "version": 99}).encode(), "recording version 99"),
        (json.dumps({"format": FORMAT, "version": 1, "catalogs": {}, "decisions": [{"target": "codex", "skill": "a", "query": "q", "catalog": "k", "triggered": []}]}).encode(), "decision 0: names catalog k"),
        (json.dumps({"format": FORMAT, "version": 1, "catalogs": {"k": "t"}, "decisions": [{"target": "codex", "skill": "a", "query": "q", "catalog": "k", "triggered": "a"}]}).encode(), "decision 0: \"triggered\" must be"),
    ],
)
def test_a_bad_recording_is_a_clear_error(tmp_path, content, words):
    target = tmp_path / "rec.json"
    target.write_bytes(content)
    with pytest.raises(RecordError) as caught:
        ReplayRouter(target)
    assert str(caught.value).startswith(f"--replay {target}: ") and words in str(caught.value)


def test_a_missing_or_special_recording_is_a_clear_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read it"):
        ReplayRouter(tmp_path / "absent.json")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(RecordError, match="not a regular file"):
        ReplayRouter(fifo)


def test_a_recording_that_cannot_be_written_is_a_clear_error(tmp_path):
    catalog = _catalog(tmp_path)
    router = RecordingRouter(FakeLexical(), tmp_path / "no" / "such" / "folder" / "rec.json")
    with pytest.raises(RecordError, match="cannot write the recording"):
        router.decide(["q"], catalog, catalog.skills[0])


def test_recording_adds_to_a_recording_skill_by_skill(fake, tmp_path):
    catalog = _catalog(tmp_path)
    alpha, beta = catalog.skills
    target = tmp_path / "rec.json"
    _router("--record", str(target)).decide(["alpha one", "alpha two"], catalog, alpha)
    _router("--record", str(target)).decide(["beta one"], catalog, beta)
    doc = json.loads(target.read_text())
    assert [(d["skill"], d["query"]) for d in doc["decisions"]] == [("alpha", "alpha one"), ("alpha", "alpha two"), ("beta", "beta one")]
    # recording alpha again replaces all its decisions, and keeps beta's
    _router("--record", str(target)).decide(["alpha three"], catalog, alpha)
    doc = json.loads(target.read_text())
    assert [(d["skill"], d["query"]) for d in doc["decisions"]] == [("alpha", "alpha three"), ("beta", "beta one")]


def test_recording_never_overwrites_a_file_that_is_not_its_own(fake, tmp_path):
    catalog = _catalog(tmp_path)
    notes = tmp_path / "README.md"
    notes.write_text("# my notes\n")
    with pytest.raises(RecordError, match=r"--record .*README.md: not JSON .*; it was left as it is"):
        _router("--record", str(notes))
    assert notes.read_text() == "# my notes\n"
    # nor another router's recording
    target = tmp_path / "rec.json"
    _router("--record", str(target)).decide(["alpha"], catalog, catalog.skills[0])
    before = target.read_bytes()
    with pytest.raises(RecordError, match="holds the decisions of 'lexical', and this run decides with 'agent fake-agent'"):
        _router("--agent", "fake-agent", "--record", str(target))
    assert target.read_bytes() == before
    assert _runs(fake) == []


def test_a_user_commands_arguments_stay_out_of_the_recording(fake, tmp_path):
    catalog = _catalog(tmp_path)
    target = tmp_path / "rec.json"
    router = _router("--agent", f"{fake / 'bin' / 'fake-agent'} --api-key sk-secret-123", "--runs", "1", "--record", str(target))
    router.decide(["plain"], catalog, catalog.skills[0])
    assert router.name == "agent fake-agent"
    assert "sk-secret" not in target.read_text()


def test_queries_no_command_line_can_carry_are_failed_runs_and_still_recorded(fake, tmp_path):
    catalog = _catalog(tmp_path)
    target = tmp_path / "rec.json"
    queries = ["nul \x00 inside", "lone \ud800 surrogate", "plain é"]
    verdicts = _router("--agent", "fake-agent", "--runs", "1", "--record", str(target)).decide(queries, catalog, catalog.skills[0])
    assert [v.detail["failures"] for v in verdicts] == [1, 1, 0]
    assert all(v.detail["problems"][0].startswith("cannot start") for v in verdicts[:2])
    replayed = ReplayRouter(target).decide(queries, catalog, catalog.skills[0])
    assert [v.detail["stale"] for v in replayed] == [False, False, False]
    assert [v.detail["failures"] for v in replayed] == [1, 1, 0]


def test_a_skill_md_that_is_no_plain_file_is_left_out_and_said(fake, tmp_path):
    catalog = _catalog(tmp_path)
    beta = catalog.skills[1].skill_md
    beta.unlink()
    os.mkfifo(beta)  # reading it would block for ever
    with deadline():
        verdict = _router("--agent", "fake-agent", "--runs", "1").decide(["SKILL:alpha"], catalog, catalog.skills[0])[0]
    assert verdict.triggered == ("alpha",)
    assert "not a regular file" in verdict.detail["left_out"]["beta"]
    assert _runs(fake)[0]["files"] == ["./.claude/skills/alpha/SKILL.md"]
