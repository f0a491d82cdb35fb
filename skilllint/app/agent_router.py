"""The agent router of ``skilllint eval``: a real agent decides which skill a query loads.

``--agent claude-code|codex|CMD`` runs the agent once per query and run, each time in a
fresh temporary project that holds the catalog's skills where that surface loads them,
and reads the agent's machine-readable output for the first tool call: a skill counts as
loaded when the agent calls its ``Skill`` tool naming it or reads its SKILL.md (the test
of Anthropic's skill-creator, ``scripts/run_eval.py``). A run stops as soon as that first
tool call is known, so the agent never goes on to act on the query.

Nothing is sent anywhere unless ``--agent`` was given: without it, :func:`router_from_args`
returns the lexical router (or the replay of a recording), and this module starts no
process.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..catalog.routing import CatalogView, Router, SkillView, Verdict
from ..fsafe import UnsafeFile, read_capped
from ..targets import TARGETS
from .agent_streams import ClaudeStream, CodexStream, LineFeed
from .eval_record import RecordError, RecordingRouter, ReplayRouter

DEFAULT_RUNS = 3  # skill-creator's --runs-per-query
DEFAULT_THRESHOLD = 0.5  # skill-creator's --trigger-threshold
DEFAULT_TIMEOUT = 60.0
# The agent streams the router reads (Target.agent_stream); a user's command speaks the first.
CLAUDE_STREAM = "claude-stream-json"
CODEX_STREAM = "codex-exec-json"
STDERR_TAIL_BYTES = 2000
# The largest SKILL.md copied into the temporary project (Codex reads at most 8 000
# bytes of one; Claude Code's own cap is larger).
MAX_SKILL_MD_BYTES = 1024 * 1024
# A skill folder name the router writes: one path component, nothing hidden.
SAFE_FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,254}")


class AgentError(Exception):
    """A problem with the agent the user named (missing executable, bad option): the
    command reports it and exits 2."""


# What ``router_from_args`` and the routers it returns may raise; the command turns each
# into a clear message and exit status 2.
ROUTER_ERRORS = (AgentError, RecordError)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number, at least 1, got {text!r}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share of runs above 0 and at most 1, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``skilllint eval`` that choose a real agent, record or replay.
    (``-j/--jobs`` the command adds itself; the agent router reads it as ``args.jobs``.)"""
    group = parser.add_argument_group("real agent (sends each query to the agent; nothing is sent without --agent)")
    group.add_argument("--agent", metavar="claude-code|codex|CMD", help="decide with a real agent instead of the lexical router: `claude-code` (claude -p), `codex` (codex exec), or a command line that takes the query as its last argument and prints Claude Code's stream-json")
    group.add_argument("--runs", type=_positive_int, metavar="N", help=f"with --agent: run each query N times (default: {DEFAULT_RUNS})")
    group.add_argument("--trigger-threshold", type=_share, metavar="SHARE", help=f"with --agent: the share of runs that must load a skill for it to count as triggered (default: {DEFAULT_THRESHOLD})")
    group.add_argument("--timeout", type=_seconds, metavar="SECONDS", help=f"with --agent: stop a run after SECONDS and count it as timed out (default: {DEFAULT_TIMEOUT:g})")
    group.add_argument("--record", metavar="FILE", help="write every decision, with the catalog text and agent version it was made against, to FILE")
    group.add_argument("--replay", metavar="FILE", help="answer from a recording written by --record, with no agent; cases whose catalog changed since are reported stale")


def router_from_args(args: argparse.Namespace, lexical: Router, *, progress: TextIO | None = None) -> Router:
    """The router the command line asks for: ``lexical`` unless ``--agent`` or
    ``--replay`` was given, wrapped to record when ``--record`` was. Raises one of
    :data:`ROUTER_ERRORS` for options that do not go together or an agent that is not
    there."""
    agent = getattr(args, "agent", None)
    record = getattr(args, "record", None)
    replay = getattr(args, "replay", None)
    agent_only = [flag for flag, dest in (("--runs", "runs"), ("--trigger-threshold", "trigger_threshold"), ("--timeout", "timeout")) if getattr(args, dest, None) is not None]
    if replay is not None:
        if agent is not None:
            raise AgentError("--replay answers from the recording without an agent; drop --agent (or --replay to ask the agent again)")
        if record is not None:
            raise AgentError("--replay and --record do not go together: record with the agent, replay without it")
        if agent_only:
            raise AgentError(f"{', '.join(agent_only)} only apply with --agent; a replay answers as recorded")
        return ReplayRouter(Path(replay))
    router: Router = lexical
    if agent is None:
        if agent_only:
            raise AgentError(f"{', '.join(agent_only)} only apply with --agent")
    else:
        router = AgentRouter(
            agent_command(agent),
            runs=args.runs or DEFAULT_RUNS,
            threshold=args.trigger_threshold or DEFAULT_THRESHOLD,
            timeout=args.timeout or DEFAULT_TIMEOUT,
            jobs=getattr(args, "jobs", None) or 1,
            progress=sys.stderr if progress is None else progress,
        )
    if record is not None:
        router = RecordingRouter(router, Path(record))
    return router


@dataclass(frozen=True, eq=False, repr=False)
class AgentCommand:
    """How to run one agent: the argument list around the query and the stream it prints."""

    name: str  # the target id (`claude-code`, `codex`), or the name of the user's executable
    argv: tuple[str, ...]  # the command; the query goes after it, as the last argument
    stream: str  # Target.agent_stream: CLAUDE_STREAM or CODEX_STREAM
    surface: str | None  # the target whose catalog the agent loads; None: the catalog's own
    version_argv: tuple[str, ...] | None  # how to ask the agent its version (None: do not ask)


def agent_command(spec: str) -> AgentCommand:
    """The :class:`AgentCommand` for ``--agent SPEC``: a target whose profile names its
    agent's command, or a user's command line; :class:`AgentError` when its executable is
    not on PATH."""
    target = TARGETS.get(spec)
    if target is not None and not target.agent_command:
        raise AgentError(f"--agent {spec}: no command is known that asks {target.called} non-interactively; give the command line of one that prints Claude Code's stream-json")
    if target is not None and target.agent_command:
        argv = target.agent_command
        command = AgentCommand(spec, argv, target.agent_stream or "", spec, (argv[0], "--version"))
        what = f"{target.prose_name or target.title}'s `{argv[0]}`"
    else:
        try:
            argv = tuple(shlex.split(spec))
        except ValueError as exc:
            raise AgentError(f"--agent {spec!r}: cannot split the command line ({exc})") from None
        if not argv:
            raise AgentError("--agent: empty command line")
        # Known by its executable's name only: the rest of a command line may hold a
        # key or a token, and the name goes into reports and recordings.
        command = AgentCommand(os.path.basename(argv[0]) or argv[0], argv, CLAUDE_STREAM, None, None)
        what = repr(argv[0])
    found = shutil.which(command.argv[0])
    if found is None:
        raise AgentError(f"--agent {spec}: {what} is not an executable on PATH (nothing was run)")
    return AgentCommand(command.name, (found,) + command.argv[1:], command.stream, command.surface, None if command.version_argv is None else (found,) + command.version_argv[1:])


@dataclass(eq=False, repr=False)
class RunOutcome:
    """One run of the agent on one query."""

    status: str  # "ok", "timeout" or "failed"
    loaded: tuple[str, ...] = ()  # the skills the agent's first tool call loaded
    message: str = ""  # why a run failed
    version: str = ""  # the agent's version as its stream reported it
    model: str = ""  # the model as the agent's stream reported it


@dataclass(eq=False, repr=False)
class _Project:
    """A temporary project holding the catalog's skills where the surface loads them."""

    root: str  # real path of the project folder
    folders: dict[str, str] = field(default_factory=dict)  # folder name -> skill name

    def skill_of_path(self, path: str, skills_folder: tuple[str, ...]) -> str | None:
        """The skill whose SKILL.md ``path`` (absolute, or relative to the project) is."""
        try:
            full = os.path.realpath(os.path.join(self.root, path))
        except ValueError:  # a NUL in the path: no file's
            return None
        base = os.path.join(self.root, *skills_folder)
        parent, leaf = os.path.split(full)
        if leaf != "SKILL.md" or os.path.dirname(parent) != base:
            return None
        return self.folders.get(os.path.basename(parent))


def _folder_names(skills: tuple[SkillView, ...]) -> list[str]:
    """A folder name for each skill: its name when that is one safe path component not
    taken already (the name is what the surfaces list; folders that differ only in case
    are one folder on some systems), else its own folder's name, else a made-up one."""
    names: list[str | None] = [None] * len(skills)
    taken: set[str] = set()

    def claim(index: int, candidate: str) -> bool:
        if SAFE_FOLDER.fullmatch(candidate) is None or candidate.casefold() in taken:
            return False
        taken.add(candidate.casefold())
        names[index] = candidate
        return True

    for index, skill in enumerate(skills):
        claim(index, skill.name)
    for index, skill in enumerate(skills):
        if names[index] is None and not claim(index, skill.skill_md.parent.name):
            number = index + 1
            while not claim(index, f"skill-{number}"):
                number += len(skills)
    return [name for name in names if name is not None]


class AgentRouter:
    """A :class:`~skilllint.catalog.routing.Router` that asks a real agent, ``runs``
    times per query, ``jobs`` runs at a time."""

    def __init__(self, command: AgentCommand, *, runs: int, threshold: float, timeout: float, jobs: int, progress: TextIO | None) -> None:
        self.command = command
        self.name = f"agent {command.name}"
        self.runs = runs
        self.threshold = threshold
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self.progress = progress
        self._version: str | None = None
        self._lock = threading.Lock()
        self._active: set[subprocess.Popen] = set()
        self._closing = False

    # -- the Router protocol -------------------------------------------------------

    def decide(self, queries: list[str], catalog: CatalogView, skill: SkillView) -> list[Verdict]:
        surface = self.command.surface or catalog.target
        if self.command.surface is not None and catalog.target != self.command.surface:
            raise AgentError(f"--agent {self.command.name} loads the {self.command.surface} catalog; evaluate with --target {self.command.surface}")
        target = TARGETS.get(surface)
        if target is None or not target.project_skill_folders:
            raise AgentError(f"--agent: no project skills folder is known for target {surface!r}")
        skills_folder = target.project_skill_folders[0]
        files, left_out = self._skill_files(catalog)
        version = self.agent_version()
        outcomes: list[list[RunOutcome]] = [[] for _ in queries]
        meter = Progress(self.progress, len(queries) * self.runs, skill.name)
        work = [(index, query) for index, query in enumerate(queries) for _ in range(self.runs)]
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        try:
            futures = {pool.submit(self.run_once, query, files, skills_folder): index for index, query in work}
            for future in as_completed(futures):
                outcome = future.result()
                outcomes[futures[future]].append(outcome)
                meter.step(outcome.status)
        except BaseException:
            # interrupted: start no more runs and end those in flight, then let it rise
            pool.shutdown(wait=False, cancel_futures=True)
            self.stop_all()
            raise
        finally:
            pool.shutdown(wait=True)
            meter.close()
        verdicts = [self._verdict(runs, skill, version) for runs in outcomes]
        if left_out:
            for verdict in verdicts:
                verdict.detail["left_out"] = left_out
        return verdicts

    # -- one run -------------------------------------------------------------------

    def run_once(self, query: str, files: list[tuple[str, str, bytes]], skills_folder: tuple[str, ...]) -> RunOutcome:
        """Run the agent on ``query`` in a fresh temporary project; never raises for
        what the agent does (a crash, garbage, a hang are outcomes)."""
        try:
            # what the agent left in the project must not turn its answer into an error
            with tempfile.TemporaryDirectory(prefix="skilllint-eval-", ignore_cleanup_errors=True) as temp:
                project = _Project(os.path.realpath(temp))
                for folder, name, data in files:
                    target = os.path.join(project.root, *skills_folder, folder)
                    os.makedirs(target, exist_ok=True)
                    with open(os.path.join(target, "SKILL.md"), "wb") as handle:
                        handle.write(data)
                    project.folders[folder] = name
                return self._run_in(project, query, skills_folder)
        except OSError as exc:  # no room for the temporary project, or it could not be removed
            return RunOutcome("failed", message=f"temporary project: {exc.strerror or exc}")

    def _run_in(self, project: _Project, query: str, skills_folder: tuple[str, ...]) -> RunOutcome:
        argv = list(self.command.argv) + [query]
        # Claude Code refuses to start inside another Claude Code session unless this is
        # unset (skill-creator's run_eval.py does the same); a query run is not nested use.
        env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
        reader = CodexStream(project, skills_folder) if self.command.stream == CODEX_STREAM else ClaudeStream(project, skills_folder)
        with tempfile.TemporaryFile() as stderr:
            try:
                process = subprocess.Popen(argv, cwd=project.root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, start_new_session=os.name == "posix")
            except (OSError, ValueError) as exc:  # ValueError: a NUL or a lone surrogate in the query
                return RunOutcome("failed", message=f"cannot start {os.path.basename(argv[0])}: {getattr(exc, 'strerror', None) or exc}")
            with self._lock:
                self._active.add(process)
                if self._closing:  # interrupted while this run was starting
                    _stop(process)
            feed = LineFeed(process.stdout)
            try:
                decided, finished = reader.read(feed, self.timeout)
            finally:
                feed.close()
                _stop(process)
                code = process.wait()
                with self._lock:
                    self._active.discard(process)
            seen = {"version": reader.version, "model": reader.model}
            if decided is not None:
                return RunOutcome("ok" if decided.status == "ok" else "failed", loaded=decided.loaded, message=decided.message, **seen)
            if not finished:
                return RunOutcome("timeout", message=f"no decision within {self.timeout:g} s", **seen)
            # Both streams end a turn with an event of their own (Claude's `result`,
            # Codex's `turn.completed`): a stream without one did not finish, so it says
            # nothing about what the agent would have loaded.
            if code != 0:
                why = f"exited with status {code}"
            elif not reader.events:
                why = f"printed no {reader.FORMAT} event"
            else:
                why = f"ended without {reader.END}"
            return RunOutcome("failed", message=f"{why}{_tail(stderr)}", **seen)

    def stop_all(self) -> None:
        """Kill every run in flight (the command was interrupted)."""
        with self._lock:
            self._closing = True
            active = list(self._active)
        for process in active:
            _stop(process)

    # -- helpers -------------------------------------------------------------------

    def _skill_files(self, catalog: CatalogView) -> tuple[list[tuple[str, str, bytes]], dict[str, str]]:
        """Each skill of the catalog as the temporary project holds it: its SKILL.md
        only. The surface builds its catalog from that file alone, and the first tool
        call (the decision) reads nothing else; the skill's scripts are left behind so
        that nothing of the skill can be run. Also the skills left out, each with why
        (a SKILL.md that is no longer a plain file)."""
        files, left_out = [], {}
        for folder, skill in zip(_folder_names(catalog.skills), catalog.skills):
            try:
                data = read_capped(skill.skill_md, MAX_SKILL_MD_BYTES).data
            except UnsafeFile as exc:
                left_out[skill.name] = f"{skill.skill_md} {exc}"
                continue
            files.append((folder, skill.name, data))
        return files, left_out

    def agent_version(self) -> str:
        """The agent's own answer to ``--version`` (once per run of skilllint); for a
        user's command, what its stream reports, else its command line."""
        if self._version is None:
            self._version = ""
            if self.command.version_argv is not None:
                try:
                    done = subprocess.run(self.command.version_argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=min(self.timeout, 30.0), check=False)
                    first = done.stdout.decode("utf-8", "replace").strip().splitlines()
                    if done.returncode == 0 and first:
                        self._version = first[0][:200]
                except (OSError, subprocess.SubprocessError):
                    pass
        return self._version

    def _verdict(self, runs: list[RunOutcome], skill: SkillView, version: str) -> Verdict:
        completed = [r for r in runs if r.status == "ok"]
        loads: dict[str, int] = {}
        for run in completed:
            for name in dict.fromkeys(run.loaded):
                loads[name] = loads.get(name, 0) + 1
        seen = next((r.version for r in runs if r.version), "")
        model = next((r.model for r in runs if r.model), "")
        detail: dict = {
            "agent": self.command.name,
            "agent_version": version or seen or self.command.name,
            "runs": len(runs),
            "completed": len(completed),
            "timeouts": sum(1 for r in runs if r.status == "timeout"),
            "failures": sum(1 for r in runs if r.status == "failed"),
            "loads": dict(sorted(loads.items())),
            "threshold": self.threshold,
        }
        if model:
            detail["model"] = model
        problems = list(dict.fromkeys(r.message for r in runs if r.status != "ok" and r.message))
        if problems:
            detail["problems"] = problems[:3]
        if not completed:
            return Verdict(triggered=(), rate=None, detail=detail)
        rates = {name: count / len(completed) for name, count in loads.items()}
        order = list(loads)
        triggered = tuple(sorted((n for n, r in rates.items() if r >= self.threshold), key=lambda n: (-rates[n], order.index(n))))
        return Verdict(triggered=triggered, rate=rates.get(skill.name, 0.0), detail=detail)


def _stop(process: subprocess.Popen) -> None:
    """Kill the run and whatever it started (its own process group)."""
    if process.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _tail(handle) -> str:
    try:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - STDERR_TAIL_BYTES))
        text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f": {text.splitlines()[-1][:300]}" if text else ""


# -- progress ----------------------------------------------------------------------


class Progress:
    """Runs done out of all, on ``stream``: a bar redrawn in place on a terminal, a line
    every tenth of the way (and at the end) otherwise."""

    WIDTH = 24

    def __init__(self, stream: TextIO | None, total: int, label: str) -> None:
        self.stream = stream
        self.total = total
        self.label = label
        self.done = 0
        self.counts = {"timeout": 0, "failed": 0}
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self._shown_tenth = 0

    def step(self, status: str) -> None:
        self.done += 1
        if status in self.counts:
            self.counts[status] += 1
        if self.stream is None:
            return
        if self.tty:
            filled = self.WIDTH * self.done // max(1, self.total)
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {self._counts()}")
            self.stream.flush()
            return
        tenth = 10 * self.done // max(1, self.total)
        if tenth > self._shown_tenth or self.done == self.total:
            self._shown_tenth = tenth
            self.stream.write(f"skilllint eval: {self.label}: {self._counts()}\n")
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self.tty and self.total:
            self.stream.write("\n")
            self.stream.flush()

    def _counts(self) -> str:
        extra = "".join(f", {n} {w}" for n, w in ((self.counts["timeout"], "timed out"), (self.counts["failed"], "failed")) if n)
        return f"{self.done}/{self.total} runs{extra}"
