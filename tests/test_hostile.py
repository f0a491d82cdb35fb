"""Hostile input, end to end: every case in its own process, bounded in time and memory, audited.

tests/test_robustness.py holds the in-process cases on SKILL.md itself (alias
bombs in sequences, 10,000-level flow nesting, invalid UTF-8, NUL bytes, a FIFO
or /dev/zero as SKILL.md, control characters in `name`, invalid TOML and
unknown rules in `.skilllint.toml`); tests/test_containment.py the link
traps. This file runs the cases those leave out, and each one as a user meets
it: ``skilllint`` in a separate process (``sys.executable -c DRIVER``) so that

* a hang is a ``subprocess.TimeoutExpired`` (``HARD_TIMEOUT``: a hang guard, generous; no
  case is judged by its seconds, which a busy machine stretches): the work is judged instead
  by the bytes the run reads (``/proc/self/io``'s ``rchar`` while ``main()`` runs: a 200 MB or
  3 GB file, /dev/zero or a FIFO read past the cap cannot stay under ``READ_LIMIT_MB``), by
  what it opens (below), and where a case is about scale by two sizes compared in one test
  (:func:`scales`: the run's function calls, counted by :mod:`cProfile` in the child);
* memory is the process's own peak RSS, reported by the driver at exit
  (``VmHWM`` of /proc/self/status; ``getrusage(RUSAGE_SELF).ru_maxrss`` where
  there is no /proc, though on Linux it includes the parent's high-water mark
  inherited at fork/exec): a 200 MB file read whole cannot stay under
  ``MEMORY_LIMIT_MB``, and an address-space limit stops a runaway before it
  takes the machine;
* the driver records every ``open``, ``os.listdir`` and ``os.scandir`` while
  skilllint runs (the audit-hook approach of tests/test_containment.py, whose
  ``_check_reads`` judges the events): nothing outside the tree but the
  interpreter's own files may be read;
* the output is checked as bytes: no traceback, diagnostics or a one-line
  ``skilllint: error:`` with exit 2.

Large files are sparse (``truncate``/``seek``) and created in milliseconds.
Mode-000 cases need a process that permissions apply to: when the tests run as
root, the child drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from its
bounding set before ``exec`` (``prctl(PR_CAPBSET_DROP)``), so root is refused
like anyone else; where that is impossible the case is skipped, and the same
paths are also exercised in process through a mocked ``PermissionError``.

Real bugs found while writing these are pinned as ``xfail(strict=True)``
tests with the reason; each costs at most its bound while it fails.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import LINEAR_AT_4X, ROOT, deadline, run_cli
from test_containment import _check_reads

pytestmark = pytest.mark.e2e

MiB = 1024 * 1024
BIG = 200 * MiB
HARD_TIMEOUT = 300  # seconds: a hang guard, not a speed claim (a run takes 0.5-2 s on an idle machine)
READ_LIMIT_MB = 64  # bytes read by main() (rchar): every file is read up to its 1 MiB cap at most
MEMORY_LIMIT_MB = 192  # peak RSS; a run with every target is ~115 MB, a 200 MB file read whole > 235 MB
ADDRESS_SPACE_LIMIT = 4 * 1024 * MiB  # RLIMIT_AS for the child: a runaway fails fast instead of swapping

SKILL = "---\nname: {name}\ndescription: Test skill for hostile input. Use when testing skilllint.\n---\n# {name}\n\n{body}\n"

# What must never reach a terminal raw: C0 controls but tab and newline, DEL, C1,
# bidi embeddings/overrides/isolates, and bytes that are not UTF-8 (read back as
# lone surrogates with surrogateescape).
TERMINAL_HOSTILE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")

DRIVER = r"""
import json, os, resource, sys

result_path, args = sys.argv[1], sys.argv[2:]
# As the `skilllint` console script: the working folder (the linted tree) is no import root.
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
import_roots = {os.path.abspath(p) for p in sys.path}
limit = int(os.environ.get("SKILLLINT_TEST_AS_LIMIT", "0"))
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
events, recording = [], False
profile = None
if os.environ.get("SKILLLINT_TEST_COUNT_CALLS"):
    import cProfile
    profile = cProfile.Profile()

def rchar():
    # bytes this process has read (read(2) and the like, from files, pipes and devices alike)
    try:
        with open("/proc/self/io", encoding="ascii") as io:
            return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))
    except (OSError, StopIteration, ValueError):
        return None

def audit(event, hook_args):
    # As tests/test_containment.py's _audit: paths of open, os.listdir and os.scandir.
    if not recording or event not in ("open", "os.listdir", "os.scandir") or not hook_args:
        return
    target = hook_args[0]
    if target is None:
        target = "."
    if isinstance(target, int):
        return
    try:
        path = os.fsdecode(os.fspath(target))
    except TypeError:
        return
    if not os.path.isabs(path):
        path = os.path.join(os.getcwd(), path)
    if event == "os.listdir" and path in import_roots:
        return  # the import system listing sys.path for a lazy import
    events.append((event, path))

sys.addaudithook(audit)
from skilllint.cli.main import main

code = None
read_before = rchar()
cpu_before = resource.getrusage(resource.RUSAGE_SELF)
recording = True
if profile is not None:
    profile.enable()
try:
    code = main(args)
finally:
    if profile is not None:
        profile.disable()
    recording = False
    read_after = rchar()
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime)
    read = None if read_before is None or read_after is None else read_after - read_before
    calls = None if profile is None else sum(entry.callcount for entry in profile.getstats())
    sys.stdout.flush()
    # Peak RSS of this process's own memory: VmHWM. (ru_maxrss would not do: Linux folds
    # the parent's high-water mark into it at fork/exec, so it reports pytest's size.)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        pass
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump({"code": code, "maxrss_kb": peak, "events": events, "read": read, "calls": calls, "cpu": cpu}, handle)
sys.exit(code)
"""

TIMES: dict[str, str] = {}  # measured figures, printed with -s


@dataclass
class Run:
    code: int
    out: bytes
    err: str
    read_mb: float | None  # bytes read while main() ran, in MiB (None: no /proc/self/io)
    rss_mb: float
    events: list
    calls: int | None = None  # function calls main() made (count_calls=True)
    cpu: float = 0.0  # CPU seconds main() took: only ever compared with another run's (scales)

    def doc(self) -> dict:
        return json.loads(self.out)

    def codes(self) -> set[str]:
        return {d["code"] for d in self.doc()["diagnostics"]}

    def found(self, code: str) -> list[dict]:
        return [d for d in self.doc()["diagnostics"] if d["code"] == code]


@dataclass
class Tree:
    root: Path  # the linted tree (a repository root)
    canary: Path  # a file outside it that must never be read


def make_tree(base: Path) -> Tree:
    """A repository root under ``base`` and a canary outside it."""
    outside = base / "outside"
    outside.mkdir(parents=True)
    canary = outside / "canary.txt"
    canary.write_text("CANARY: skilllint must never read this\n")
    root = base / "tree"
    (root / ".git").mkdir(parents=True)
    return Tree(root, canary)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return make_tree(tmp_path)


# Calls at four times the size: linear work counts about 4 (less where a constant part weighs);
# work that compares every thing with every other, 16.
LINEAR_CALLS_AT_4X = 6.0


def scales(base: Path, build, size: int, *args: str, label: str, measure: str = "calls", **kwargs) -> tuple[Run, float]:
    """Two sizes compared in one test: ``build(tree, n)`` plants the case at ``size // 4`` and at
    ``size``; each tree is checked (``check_json``, every invariant). Returns the full size's run
    and how much more work it took than the quarter size: ``measure="calls"``, the function calls
    main() made (counted by cProfile in the child: exact, for work done in Python); ``"cpu"``, the
    CPU time main() took (for work inside a regex or another C loop; a ratio of two runs, which a
    busy machine slows alike, never a number of seconds)."""
    runs = []
    for n in (size // 4, size):
        tree = make_tree(base / f"size-{n}")
        build(tree, n)
        runs.append(check_json(tree, *args, label=f"{label} ({n})", count_calls=measure == "calls", **kwargs))
    small, large = runs
    if measure == "calls":
        ratio = large.calls / small.calls
    else:
        ratio = large.cpu / max(small.cpu, 0.01)
    print(f"\n{label}: {measure} x{ratio:.2f} from {size // 4} to {size}")
    return large, ratio


def skill(base: Path, folder: str, body: str = "Nothing here.", name: str | None = None) -> Path:
    path = base / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(SKILL.format(name=name or Path(folder).name, body=body), encoding="utf-8")
    return path


def sparse(path: Path, head: bytes = b"", size: int = BIG, tail: bytes = b"") -> Path:
    """A ``size``-byte file in milliseconds: ``head``, a hole of NULs, ``tail`` at the end."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(head)
        if tail:
            handle.seek(size - len(tail))
            handle.write(tail)
        else:
            handle.truncate(size)
    assert path.stat().st_size == size
    return path


def run(
    tree: Tree,
    *args: str,
    label: str,
    expect: tuple[int, ...] = (0, 1),
    max_read_mb: float = READ_LIMIT_MB,
    timeout: float = HARD_TIMEOUT,
    preexec=None,
    cwd: Path | None = None,
    count_calls: bool = False,
) -> Run:
    """``skilllint *args`` in a child process under the tree; check the invariants every case shares
    (``timeout``: a hang guard; the work is bounded by ``max_read_mb``, the audit and peak RSS)."""
    result_file = tree.root.parent / f"result-{uuid.uuid4().hex}.json"  # outside the tree, written after recording
    env = dict(os.environ, PYTHONPATH=str(ROOT), SKILLLINT_TEST_AS_LIMIT=str(ADDRESS_SPACE_LIMIT))
    if count_calls:
        env["SKILLLINT_TEST_COUNT_CALLS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(result_file), *args],
        cwd=cwd or tree.root,
        env=env,
        capture_output=True,
        timeout=timeout,
        preexec_fn=preexec,
        check=False,
    )
    err = done.stderr.decode("utf-8", "surrogateescape")
    assert "Traceback" not in err and "internal error" not in err, err[-4000:]
    assert done.returncode in expect, (done.returncode, err[-2000:], done.stdout[-2000:])
    info = json.loads(result_file.read_text(encoding="utf-8"))
    rss_mb = info["maxrss_kb"] / 1024
    read_mb = None if info["read"] is None else info["read"] / MiB
    TIMES[label] = f"read {read_mb if read_mb is None else round(read_mb, 1)} MiB, {rss_mb:.0f} MB" + (
        f", {info['calls']:,} calls" if info["calls"] else ""
    )
    print(f"\n{label}: {TIMES[label]}")
    assert info["events"], "the audit hook recorded nothing: is it installed?"
    # skilllint's own rule book (rulebook/ of a development checkout; skilllint/rulebook when
    # installed) is read for SARIF's rule help: the interpreter's files, not the tree's.
    rulebook = str(ROOT / "rulebook")
    events = [tuple(e) for e in info["events"] if not (e[1] == rulebook or e[1].startswith(rulebook + os.sep))]
    assert _check_reads(_not_plainly_inside(events, tree.root), tree.root, tree.canary) == []
    assert rss_mb < MEMORY_LIMIT_MB, f"{label}: peak RSS {rss_mb:.0f} MB"
    assert read_mb is None or read_mb < max_read_mb, f"{label}: read {read_mb:.1f} MiB (bound {max_read_mb} MiB)"
    return Run(done.returncode, done.stdout, err, read_mb, rss_mb, info["events"], info["calls"], info["cpu"])


def _not_plainly_inside(events: list[tuple[str, str]], root: Path) -> list[tuple[str, str]]:
    """The events ``_check_reads`` must judge: all but those on paths inside ``root`` through
    real folders only. (``os.path.realpath`` costs one lstat per component: on 1,000 nested
    folders, judging every event with it takes longer than the run. Here each folder is
    lstat-ed once, memoised.)"""
    top = os.path.realpath(root)
    plain: dict[str, bool] = {top: True}

    def is_plain(path: str) -> bool:
        chain = []
        while path not in plain:
            parent = os.path.dirname(path)
            if parent == path or not path.startswith(top + os.sep):
                plain[path] = False
                break
            chain.append(path)
            path = parent
        verdict = plain[path]
        for folder in reversed(chain):
            verdict = verdict and not os.path.islink(folder)
            plain[folder] = verdict
        return plain[chain[0]] if chain else verdict

    judged = []
    for event in dict.fromkeys(events):
        path = event[1]
        parts = path.split(os.sep)
        if "." in parts or ".." in parts or not is_plain(os.path.dirname(path)) or os.path.islink(path):
            judged.append(event)
    return judged


def check_json(tree: Tree, *args: str, label: str, **kwargs) -> Run:
    result = run(tree, "check", "--output-format", "json", *args, label=label, **kwargs)
    result.doc()  # parses
    return result


def usage_error(result: Run) -> str:
    """The run ended with exit 2 and one line ``skilllint: error: …`` (no raw control characters)."""
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skilllint: error: "), result.err
    assert not TERMINAL_HOSTILE.search(lines[0]), lines[0]
    return lines[0]


def test_the_prefilter_leaves_every_read_through_a_link_to_the_audit(tree):
    # The memoised shortcut must not hide what tests/test_containment.py's _check_reads would catch.
    root = skill(tree.root, "s")
    (root / "real").mkdir()
    os.symlink(str(tree.canary.parent), root / "out")
    os.symlink(str(tree.canary), root / "canary.md")
    inside = [("open", str(root / "SKILL.md")), ("os.scandir", str(root / "real"))]
    through = [("open", str(root / "out" / "canary.txt")), ("os.listdir", str(root / "out")),
               ("open", str(root / "canary.md")), ("open", str(root / "real" / ".." / ".." / ".." / "outside" / "canary.txt"))]
    assert _not_plainly_inside(inside + through, tree.root) == through
    with pytest.raises(AssertionError, match="canary"):
        _check_reads(_not_plainly_inside(inside + through, tree.root), tree.root, tree.canary)


# ----------------------------------------------------------------------------- 200 MB files


@pytest.mark.parametrize("layout", ["nul-hole", "text-then-hole"])
def test_200_mb_skill_md_is_read_up_to_the_cap_only(tree, layout):
    head = b"---\nname: huge\ndescription: Huge. Use when testing the size cap.\n---\n# Huge\n\n"
    if layout == "text-then-hole":
        head += b"Plain text that fills the first two megabytes of the file.\n" * (2 * MiB // 59)
    sparse(tree.root / "huge" / "SKILL.md", head, tail=b"\nSee [tail](tail-link-past-the-cap.md).\n")
    targets = ("--target", "all") if layout == "text-then-hole" else ()
    result = check_json(tree, *targets, "huge", label=f"200 MB SKILL.md ({layout})")
    codes = result.codes()
    assert "SL011" in codes
    assert ("SL009" in codes) == (layout == "nul-hole")  # NULs after the cap are never read
    assert b"tail-link-past-the-cap" not in result.out


def test_200_mb_reference_script_openai_yaml_and_asset(tree):
    body = "Read [the guide](references/guide.md) before the first run, then run:\n\n```bash\npython scripts/tool.py\n```"
    root = skill(tree.root, "big", body)
    text = b"# Guide\n\nSee [gone](gone-head.md).\n" + b"Plain text for the first two megabytes of the guide.\n" * (2 * MiB // 53)
    sparse(root / "references" / "guide.md", text, tail=b"\nSee [tail](gone-tail.md).\n")
    sparse(root / "scripts" / "tool.py", b"#!/usr/bin/env python3\nimport sys\n", tail=b"\nname = input('name? ')\n")
    sparse(root / "agents" / "openai.yaml", b"interface:\n  display_name: Big\n")
    sparse(root / "assets" / "blob.bin")
    result = check_json(tree, "--target", "all", "big", label="200 MB reference, script, openai.yaml, asset")
    missing = {(d["path"], d["message"].split("`")[1]) for d in result.found("SL301")}
    assert ("big/references/guide.md", "gone-head.md") in missing
    assert b"gone-tail" not in result.out and b"input(" not in result.out
    [too_large] = [d for d in result.found("SL601") if "read cap" in d["message"]]
    assert too_large["path"] == "big/agents/openai.yaml"
    assert "SL204" in result.codes()  # the package is over 30 MB (sizes from lstat, nothing read)


# ----------------------------------------------------------------------------- YAML bombs and nesting beyond SKILL.md sequences


def _fan(name: str, shape: str, width: int = 9, depth: int = 9) -> str:
    """A billion-laughs document whose expansion is width ** depth nodes."""
    lines = ["a0: &a0 {k: v}" if shape == "merge" else "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, depth + 1):
        refs = [f"*a{level - 1}"] * width
        if shape == "merge":
            lines.append(f"a{level}: &a{level}\n  <<: [{', '.join(refs)}]\n  n{level}: x")
        elif shape == "keys":
            lines.append(f"a{level}: &a{level} {{{', '.join(f'? {ref} : {i}' for i, ref in enumerate(refs))}}}")
        else:
            lines.append(f"a{level}: &a{level} [{', '.join(refs)}]")
    return "\n".join(lines)


def test_alias_bombs_through_merge_keys_mapping_keys_and_agents_openai_yaml(tree):
    for shape in ("merge", "keys"):
        folder = tree.root / f"bomb-{shape}"
        folder.mkdir()
        text = f"---\nname: bomb-{shape}\ndescription: Alias bomb. Use when testing.\n{_fan(shape, shape)}\n---\nbody\n"
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
    root = skill(tree.root, "bomb-openai")
    (root / "agents").mkdir()
    (root / "agents" / "openai.yaml").write_text("interface:\n  display_name: Bomb\n" + _fan("x", "seq") + "\n")
    deep = skill(tree.root, "deep-openai")
    (deep / "agents").mkdir()
    (deep / "agents" / "openai.yaml").write_text("interface: " + "[" * 10_000 + "]" * 10_000 + "\n")
    result = check_json(tree, "--target", "all", ".", label="alias bombs (merge, keys, openai.yaml) + openai.yaml nesting")
    by_path: dict[str, set[str]] = {}
    for d in result.doc()["diagnostics"]:
        by_path.setdefault(d["path"].split("/")[0], set()).add(d["code"])
    assert any("alias" in d["message"] for d in result.found("SL005") if d["path"].startswith("bomb-merge/"))
    assert {"SL005", "SL012"} & by_path["bomb-keys"]
    assert any(code.startswith("SL60") for code in by_path["bomb-openai"])
    assert any("nesting deeper" in d["message"] for d in result.found("SL601") if d["path"].startswith("deep-openai/"))


DEEP_MARKDOWN = "\n\n".join(
    [
        "> " * 10_000 + "quoted",
        "[" * 10_000 + "text" + "]" * 10_000 + "(references/deep.md)",
        "- " * 10_000 + "item",  # 10,000 nested list items on one line
        "*" * 30_000 + "a" + "_" * 30_000,
        "<" * 20_000,
    ]
)


def test_markdown_nested_10000_levels_in_the_body_and_a_reference(tree):
    body = DEEP_MARKDOWN + "\n\nRead [the deep notes](references/deep.md) when stuck, and [gone](references/gone-body.md).\n"
    root = skill(tree.root, "deepmd", body)
    (root / "references").mkdir()
    (root / "references" / "deep.md").write_text(DEEP_MARKDOWN + "\n\nSee [gone](gone-ref.md).\n", encoding="utf-8")
    result = check_json(tree, "--target", "all", "deepmd", label="Markdown nested 10,000 levels")
    lines = {d["message"].split("`")[1]: (d["path"], d["line"]) for d in result.found("SL301")}
    def line_of(path: Path, text: str) -> int:
        return next(n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if text in line)

    assert lines["references/gone-body.md"] == ("deepmd/SKILL.md", line_of(root / "SKILL.md", "gone-body.md"))
    assert lines["gone-ref.md"] == ("deepmd/references/deep.md", line_of(root / "references" / "deep.md", "gone-ref.md"))


@pytest.mark.parametrize("value", ["[" * 10_000 + "]" * 10_000, "{a = " * 5_000 + "1" + "}" * 5_000], ids=["arrays", "tables"])
def test_config_nested_10000_levels_is_a_usage_error(tree, value):
    # tomllib recurses per level: once a traceback (RecursionError), now exit 2 with one line.
    skill(tree.root, "ok")
    (tree.root / "skilllint.toml").write_text(f"x = {value}\n", encoding="utf-8")
    message = usage_error(run(tree, "check", "ok", label="config nested 10,000 levels", expect=(2,)))
    assert "skilllint.toml" in message


def test_folders_nested_1000_levels_deep(tree):
    root = skill(tree.root, "deepdir", "See [x](references/x.md).")
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(1_000):
            os.mkdir("a", dir_fd=fd)
            child = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        os.close(os.open("SKILL.md", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    try:
        result = check_json(tree, "deepdir", label="folders nested 1,000 levels")
        assert "SL301" in result.codes()
        # each level listed a bounded number of times (a walk that restarts from the top at
        # every level: ~500,000 listings)
        assert len([e for e in result.events if e[0] != "open"]) < 10 * 1_000
    finally:
        _remove_deep(root)  # shutil.rmtree (pytest's clean-up of old temporary folders) recurses per level


def _remove_deep(top: Path) -> None:
    """Remove a folder tree of any depth without recursion."""
    folders, stack = [], [os.fspath(top)]
    while stack:
        folder = stack.pop()
        folders.append(folder)
        with os.scandir(folder) as entries:
            stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
    for folder in reversed(folders):
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False):
                    os.unlink(entry.path)
        os.rmdir(folder)


# ----------------------------------------------------------------------------- encodings outside SKILL.md


def test_invalid_utf8_and_nul_bytes_in_references_scripts_openai_yaml_and_gitignore(tree):
    body = "Read [latin](references/latin1.md) and [binary](references/nul.md) when needed.\n\n```bash\nbash scripts/run.sh\n```"
    root = skill(tree.root, "enc", body)
    (root / "references").mkdir()
    (root / "references" / "latin1.md").write_bytes(b"# Caf\xe9\n\nCaf\xe9 cr\xe8me: see [gone](gone-latin1.md).\n")
    (root / "references" / "nul.md").write_bytes(b"# N\x00\x00\n\nSee [gone](gone-nul.md).\x00\n")
    (root / "scripts").mkdir()
    (root / "scripts" / "run.sh").write_bytes(b"#!/bin/sh\necho \xff\xfe\x00\nread answer\n")
    (root / "agents").mkdir()
    (root / "agents" / "openai.yaml").write_bytes(b"interface:\n  display_name: \"Caf\xe9\"\n")
    (root / ".gitignore").write_bytes(b"\xff\xfe*.tmp\x00\nbuild/\n")
    (tree.root / ".gitignore").write_bytes(b"\x00\x00\xc3\x28\n")
    result = check_json(tree, "--target", "all", "enc", label="invalid UTF-8 and NUL outside SKILL.md")
    [gone] = [d for d in result.found("SL301") if "gone-latin1.md" in d["message"]]
    assert (gone["path"], gone["line"], gone["column"]) == ("enc/references/latin1.md", 3, 24)  # U+FFFD per bad byte
    [utf8] = [d for d in result.found("SL601") if d["path"] == "enc/agents/openai.yaml"]
    assert "UTF-8" in utf8["message"] and utf8["line"] == 2


@pytest.mark.parametrize(
    "name,content",
    [
        ("skilllint.toml", b'targets = ["agent\xffskills"]\n'),
        ("skilllint.toml", b'targets = ["agentskills"]\x00\n'),
        ("skilllint.toml", None),  # 200 MB, sparse
        ("pyproject.toml", b'[project\nname = "x"\n'),
        ("pyproject.toml", b'[tool.skilllint]\nselect = ["SL999"]\n'),
        ("pyproject.toml", b"[tool.skilllint.rules.no-such-rule]\nseverity = 'error'\n"),
        ("skilllint.toml", b'select = ["SL\\u001b[2J\\u202e9"]\n'),
    ],
    ids=["not-utf8", "nul", "200mb", "pyproject-invalid-toml", "pyproject-unknown-code", "pyproject-unknown-name", "control-chars"],
)
def test_hostile_config_is_a_one_line_usage_error(tree, name, content):
    skill(tree.root, "ok")
    if content is None:
        sparse(tree.root / name, b"# huge\n")
    else:
        (tree.root / name).write_bytes(content)
    message = usage_error(run(tree, "check", "ok", label=f"config {name}", expect=(2,)))
    assert name in message


# ----------------------------------------------------------------------------- FIFOs, /dev/zero, link cycles


def test_fifos_and_dev_zero_wherever_skilllint_reads(tree):
    fifo_skill = tree.root / "fifo-skill"
    fifo_skill.mkdir()
    os.mkfifo(fifo_skill / "SKILL.md")
    zero_skill = tree.root / "zero-skill"
    zero_skill.mkdir()
    os.symlink("/dev/zero", zero_skill / "SKILL.md")
    body = "Read [the pipe](references/pipe.md) and [zero](references/zero.md) first.\n\n```bash\nbash scripts/run.sh\n```"
    root = skill(tree.root, "traps", body)
    (root / "references").mkdir()
    os.mkfifo(root / "references" / "pipe.md")
    os.symlink("/dev/zero", root / "references" / "zero.md")
    (root / "scripts").mkdir()
    os.mkfifo(root / "scripts" / "run.sh")
    (root / "agents").mkdir()
    os.symlink("/dev/zero", root / "agents" / "openai.yaml")
    os.mkfifo(root / ".gitignore")
    piped = skill(tree.root, "yaml-fifo")
    (piped / "agents").mkdir()
    os.mkfifo(piped / "agents" / "openai.yaml")
    os.symlink("/dev/zero", tree.root / ".gitignore")
    result = check_json(tree, "--target", "all", ".", label="FIFOs and /dev/zero everywhere")
    found = {(d["code"], d["path"]) for d in result.doc()["diagnostics"]}
    assert {
        ("SL013", "fifo-skill/SKILL.md"),
        ("SL013", "zero-skill/SKILL.md"),
        ("SL406", "traps/references/pipe.md"),
        ("SL406", "traps/scripts/run.sh"),
        ("SL406", "traps/.gitignore"),
        ("SL401", "traps/references/zero.md"),
        ("SL401", "traps/agents/openai.yaml"),
        ("SL406", "yaml-fifo/agents/openai.yaml"),
    } <= found, sorted(found)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("how", ["discovered", "explicit"])
def test_config_that_is_a_fifo_or_dev_zero_does_not_hang(tree, kind, how):
    # Neither is opened for reading (a FIFO would block the open, /dev/zero never ends), and
    # neither is passed over: a config that exists but cannot be read is exit 2 naming it,
    # found or given. (ruff passes over a discovered config that is no regular file; we do
    # not lint with settings other than the user's.)
    skill(tree.root, "ok")
    config = tree.root / "skilllint.toml"
    if kind == "fifo":
        os.mkfifo(config)
    else:
        os.symlink("/dev/zero", config)
    args = ("--config", "skilllint.toml") if how == "explicit" else ()
    message = usage_error(run(tree, "check", *args, "ok", label=f"{how} config {kind}", expect=(2,)))
    assert str(config) in message, message
    if kind == "fifo":
        assert message.endswith("cannot read the configuration (is a FIFO, not a regular file)"), message
    elif how == "explicit":  # --config follows a link, then refuses what it finds
        assert message.endswith("(is a character device, not a regular file)"), message
    else:  # a discovered config is never followed through a link
        assert message.endswith("(is a symbolic link)"), message


@pytest.mark.parametrize("name", [".skilllint.toml", "skilllint.toml", "pyproject.toml"])
def test_a_discovered_config_fifo_above_the_working_folder_is_an_error(tree, name):
    # Every discovered name, found walking up from a sub-folder, for `check` and `catalog` alike.
    skill(tree.root, "ok")
    os.mkfifo(tree.root / name)
    below = tree.root / "sub"
    below.mkdir()
    for verb in ("check", "catalog"):
        message = usage_error(run(tree, verb, "../ok", label=f"discovered {name} FIFO ({verb})", expect=(2,), cwd=below))
        assert message == f"skilllint: error: {tree.root / name}: cannot read the configuration (is a FIFO, not a regular file)"


def test_symlink_cycles_through_parents(tree):
    body = (
        "Read [deep](a/b/up/a/b/up/a/b/up/SKILL.md), [self](self/self/self/x.md), [root](a/b/root/cyc/SKILL.md),\n"
        "[top](a/b/top/etc/hostname) and `loop/x.md`."
    )
    root = skill(tree.root, "cyc", body)
    (root / "a" / "b").mkdir(parents=True)
    os.symlink("../..", root / "a" / "b" / "up")  # back to the skill folder
    os.symlink(".", root / "self")
    os.symlink("../../..", root / "a" / "b" / "root")  # the tree root: out of the package
    os.symlink("/", root / "a" / "b" / "top")
    os.symlink("loop", root / "loop")
    collection = tree.root / "collection" / "skills"
    skill(collection, "one")
    os.symlink("../..", collection / "back")  # a cycle through the collection's parents
    os.symlink("..", collection / "one" / "parent")
    result = check_json(tree, "--target", "all", ".", label="symlink cycles through parents")
    found = {(d["code"], d["path"]) for d in result.doc()["diagnostics"]}
    assert {
        ("SL404", "cyc/a/b/up"),
        ("SL404", "cyc/self"),
        ("SL404", "cyc/loop"),
        ("SL401", "cyc/a/b/root"),
        ("SL401", "cyc/a/b/top"),
        ("SL401", "collection/skills/one/parent"),  # `..` leaves the package before it loops
    } <= found, sorted(found)
    assert result.doc()["summary"]["packages"] == 2


# ----------------------------------------------------------------------------- 100,000 files


def test_100000_empty_files_in_assets(tree):
    root = skill(tree.root, "many", "Use [the logo](assets/f0.png) when branding.", name="many-files")
    (root / "assets").mkdir()
    fd = os.open(root / "assets", os.O_RDONLY)
    try:
        for i in range(100_000):
            os.close(os.open(f"f{i}.png", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    result = check_json(tree, "many", label="100,000 empty files in assets/")
    assert "SL106" in result.codes()  # the package is still linted: `name` differs from the folder
    # ... and the user is told the listing was cut (SKILL.md, assets/ and 99,998 files in it)
    assert (
        f"skilllint: warning: {root}: more than 100,000 entries; the listing stopped at 100,000 "
        "(while listing `assets/`), so results for this skill are incomplete"
    ) in result.err, result.err


def _cut_listing(tree: Tree, monkeypatch, limit: int = 20) -> Path:
    """A skill whose listing passes ``limit`` entries (the 100,000 of skilllint.skill.inventory, lowered)
    while `assets/` is listed; `docs/` is listed whole before it (the walk takes the last folder first)
    and holds a link to the last asset, past the cut."""
    from skilllint.skill import inventory

    monkeypatch.setattr(inventory, "MAX_ENTRIES", limit)
    body = "Read [the guide](docs/guide.md) and [the last logo](assets/f29.png) when branding; [gone](docs/gone.md) too."
    root = skill(tree.root, "cut", body)
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n")
    os.symlink("../assets/f29.png", root / "docs" / "logo.png")
    (root / "assets").mkdir()
    for i in range(30):
        (root / "assets" / f"f{i:02d}.png").write_text("x")
    return root


def test_a_listing_cut_at_the_entry_limit_is_known_to_be_partial(tree, monkeypatch):
    from skilllint.skill.inventory import PackageInventory

    root = _cut_listing(tree, monkeypatch)
    inventory = PackageInventory.scan(root)
    assert inventory.truncated and inventory.truncated_in == "assets"
    assert len(inventory.entries) == 1 + 20  # the root and exactly the limit
    assert inventory.unlisted == {"assets"}
    # Absence past the cut proves nothing; in a folder listed whole it still does.
    assert inventory.resolve("assets/f29.png") == ("unknown", "assets/f29.png")
    assert inventory.entries["docs/logo.png"].link.status == "inside"  # not "broken"
    assert inventory.resolve("docs/gone.md")[0] == "missing"
    assert inventory.truncation_warning() == (
        f"{root}: more than 20 entries; the listing stopped at 20 (while listing `assets/`), so results for this "
        "skill are incomplete: later entries are not checked, and the missing-reference and unreferenced-file "
        "checks (SL301, SL304) are skipped"
    )
    # Exactly the limit is a whole listing: nothing was left out.
    for path in sorted((root / "assets").iterdir())[15:]:  # SKILL.md, 2 folders, 2 in docs/, 15 assets: 20
        path.unlink()
    whole = PackageInventory.scan(root)
    assert len(whole.entries) == 21 and not whole.truncated and whole.truncation_warning() is None


def test_nothing_past_the_cut_is_reported_missing(tree, monkeypatch):
    # Neither the reference into the part not listed (SL301) nor the symbolic link there (SL403)
    # is called missing or broken; the linting itself goes on (SL106: `name` differs from the folder).
    root = _cut_listing(tree, monkeypatch)
    (root / "SKILL.md").write_text((root / "SKILL.md").read_text().replace("name: cut", "name: cut-short"))
    code, doc, err = _lint_in_process(tree.root, "--no-cache", "--target", "all", "cut")
    assert code == 1
    found = {(d["code"], d["message"]) for d in doc["diagnostics"]}
    assert "SL106" in {c for c, _ in found}
    assert "SL403" not in {c for c, _ in found} and "SL301" not in {c for c, _ in found}, sorted(found)
    # The link is reported for what it is (SL402, inside), its target named as written.
    assert f"skilllint: warning: {root}: more than 20 entries; the listing stopped at 20" in err, err
    [link] = [m for c, m in found if c == "SL402"]
    assert link.startswith("`docs/logo.png` is a symbolic link to `../assets/f29.png` (the file `assets/f29.png` in the skill)")


# ----------------------------------------------------------------------------- names and paths with control characters


HOSTILE_NAMES = [
    "esc\x1b[2J.txt",
    "bell\x07.txt",
    "x\n::error file=evil.md,line=1::pwned.txt",
    "y\r\nfake.md:1:1: error: injected [SL999]\n.txt",
    "evil\u202egnp.md",
    "iso\u2066late.md",
]
RAW_NAMES = [b"csi\x9b31m.txt", b"bad\xff\xfe.txt"]  # bytes that are not UTF-8 (0x9b: 8-bit CSI)


@pytest.fixture
def named_tree(tree) -> Tree:
    body = "Read [esc](references/esc\x1b[2J.md), [rtl](references/rtl\u202egnp.md) and [bell](refs/a\x07b.md)."
    root = skill(tree.root, "names", body)
    (root / "references").mkdir()
    (root / "assets").mkdir()
    (root / "ctl\x1b]0;title\x07dir").mkdir()
    (root / "ctl\x1b]0;title\x07dir" / "x.md").write_text("x")
    for name in HOSTILE_NAMES:
        (root / "assets" / name).write_text("x")
    for raw in RAW_NAMES:
        with open(os.fsencode(root / "assets") + b"/" + raw, "wb") as handle:
            handle.write(b"x")
    os.symlink("/etc", root / "assets" / "link\x1b[31m")
    os.symlink("nowhere\u202e", root / "assets" / "broken\u2066")
    return tree


@pytest.mark.parametrize("fmt", ["full", "concise", "github"])
def test_human_formats_escape_hostile_names(named_tree, fmt):
    result = run(named_tree, "check", "--output-format", fmt, "--color", "never", "names", label=f"hostile names ({fmt})")
    assert result.code == 1
    text = result.out.decode("utf-8", "surrogateescape")
    raw = sorted({f"U+{ord(c):04X}" for c in TERMINAL_HOSTILE.findall(text)})
    assert not raw, f"{fmt} output carries raw {raw}"
    lines = text.splitlines()
    if fmt == "concise":  # one finding per line: no name can start a line of its own
        assert all(line.startswith(("names/", "Found ")) or not line for line in lines), lines
    if fmt == "github":  # no name can inject a workflow command
        commands = {line.split("::")[1].split(" ")[0] for line in lines if line.startswith("::")}
        assert commands <= {"group", "endgroup", "error", "warning", "notice"}, commands
        assert not any(line.startswith("::error file=evil.md") for line in lines)


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_formats_stay_valid_utf8_json_with_hostile_names(named_tree, fmt):
    result = run(named_tree, "check", "--output-format", fmt, "names", label=f"hostile names ({fmt})")
    text = result.out.decode("utf-8")  # strict: JSON is UTF-8 (RFC 8259 section 8.1)
    doc = json.loads(text)
    if fmt == "json":
        paths = {d["path"] for d in doc["diagnostics"]}
        for name in HOSTILE_NAMES:  # names that are UTF-8 come back exactly
            assert f"names/assets/{name}" in paths, name


# ----------------------------------------------------------------------------- unreadable files and folders (mode 000)

_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _PR_CAPBSET_DROP = 1, 2, 24


def _drop_dac_capabilities() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _permissions_preexec(tmp_path: Path):
    """A preexec_fn under which mode 000 refuses access, or a skip."""
    if os.geteuid() != 0:
        return None
    probe = tmp_path / "probe-000"
    probe.write_text("x")
    probe.chmod(0)
    try:
        done = subprocess.run([sys.executable, "-c", f"open({str(probe)!r}).read()"], preexec_fn=_drop_dac_capabilities, capture_output=True, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"running as root and cannot drop CAP_DAC_OVERRIDE: {exc}")
    finally:
        probe.chmod(0o644)
    if b"PermissionError" not in done.stderr:
        pytest.skip("running as root and mode 000 is still readable (capabilities not dropped)")
    return _drop_dac_capabilities


@pytest.fixture
def unreadable(tree, tmp_path):
    """A tree with mode-000 files and folders; modes restored afterwards so it can be removed."""
    preexec = _permissions_preexec(tmp_path)
    body = "Read [the guide](references/guide.md) when stuck.\n\n```bash\nbash scripts/run.sh\n```"
    parts = skill(tree.root, "perm-parts", body)
    (parts / "references").mkdir()
    (parts / "references" / "guide.md").write_text("# Guide\n")
    (parts / "scripts").mkdir()
    (parts / "scripts" / "run.sh").write_text("#!/bin/sh\nread x\n")
    (parts / "agents").mkdir()
    (parts / "agents" / "openai.yaml").write_text("interface:\n  display_name: Perm\n")
    (parts / "assets").mkdir()
    (parts / "assets" / "logo.png").write_text("x")
    (parts / ".gitignore").write_text("*.tmp\n")
    md = skill(tree.root, "perm-md")
    folder = skill(tree.root, "perm-dir")
    locked = [
        parts / "references" / "guide.md",
        parts / "scripts" / "run.sh",
        parts / "agents" / "openai.yaml",
        parts / ".gitignore",
        parts / "assets",
        md / "SKILL.md",
        folder,
    ]
    for path in locked:
        path.chmod(0)
    yield tree, preexec
    for path in locked:
        path.chmod(0o755)


def test_mode_000_files_and_folders(unreadable):
    tree, preexec = unreadable
    result = check_json(tree, "--target", "all", ".", label="mode 000 files and folders", preexec=preexec)
    found = {(d["code"], d["path"]) for d in result.doc()["diagnostics"]}
    assert ("SL013", "perm-md/SKILL.md") in found
    assert ("SL013", "perm-parts/references/guide.md") in found  # referenced, there, unreadable
    [sl013] = [d for d in result.found("SL013") if d["path"] == "perm-md/SKILL.md"]
    assert "Permission denied" in sl013["message"]
    assert any(d["path"] == "perm-parts/agents/openai.yaml" and "cannot be read" in d["message"] for d in result.found("SL601"))
    assert "perm-dir" in result.err and "Permission denied" in result.err  # a folder that cannot be listed is named


def test_mode_000_config_is_a_usage_error(tree, tmp_path):
    preexec = _permissions_preexec(tmp_path)
    skill(tree.root, "ok")
    config = tree.root / "skilllint.toml"
    config.write_text('targets = ["agentskills"]\n')
    config.chmod(0)
    try:
        message = usage_error(run(tree, "check", "ok", label="mode 000 config", expect=(2,), preexec=preexec))
    finally:
        config.chmod(0o644)
    assert "skilllint.toml" in message and "Permission denied" in message


@pytest.fixture
def denied(monkeypatch):
    """Make chosen paths raise PermissionError, as mode 000 does for anyone but root:
    ``os.open`` (fsafe.read_capped, the only reader), ``os.listdir`` (inventory, package)
    and ``os.scandir`` (discovery)."""
    paths: set[str] = set()
    real_open, real_listdir, real_scandir = os.open, os.listdir, os.scandir

    def refuse(path) -> None:
        if os.path.normpath(os.path.abspath(os.fsdecode(os.fspath(path)))) in paths:
            raise PermissionError(13, "Permission denied", os.fspath(path))

    def fake_open(path, flags, *args, **kwargs):
        if not isinstance(path, int):
            refuse(path)
        return real_open(path, flags, *args, **kwargs)

    def fake_listdir(path="."):
        if not isinstance(path, int):
            refuse(path)
        return real_listdir(path)

    def fake_scandir(path="."):
        if not isinstance(path, int):
            refuse(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "listdir", fake_listdir)
    monkeypatch.setattr(os, "scandir", fake_scandir)
    return lambda *targets: paths.update(os.path.normpath(os.path.abspath(p)) for p in targets)


def _lint_in_process(cwd: Path, *args: str) -> tuple[int, dict | None, str]:
    with deadline():
        code, out, err = run_cli("check", "--output-format", "json", *args, cwd=cwd)
    assert "Traceback" not in err and "internal error" not in err, err
    return code, (json.loads(out) if code in (0, 1) else None), err


def test_permission_denied_everywhere_mocked(tree, denied):
    body = "Read [the guide](references/guide.md) when stuck.\n\n```bash\nbash scripts/run.sh\n```"
    parts = skill(tree.root, "perm-parts", body)
    for rel, text in [("references/guide.md", "# Guide\n"), ("scripts/run.sh", "#!/bin/sh\nread x\n"),
                      ("agents/openai.yaml", "interface:\n  display_name: Perm\n"), ("assets/logo.png", "x"), (".gitignore", "*.tmp\n")]:
        (parts / rel).parent.mkdir(parents=True, exist_ok=True)
        (parts / rel).write_text(text)
    md = skill(tree.root, "perm-md")
    folder = skill(tree.root, "perm-dir")
    denied(parts / "references" / "guide.md", parts / "scripts" / "run.sh", parts / "agents" / "openai.yaml",
           parts / ".gitignore", parts / "assets", md / "SKILL.md", folder)
    code, doc, err = _lint_in_process(tree.root, "--target", "all", ".")
    assert code == 1
    found = {(d["code"], d["path"]) for d in doc["diagnostics"]}
    assert ("SL013", "perm-md/SKILL.md") in found
    assert any("Permission denied" in d["message"] for d in doc["diagnostics"] if d["code"] == "SL013")
    assert any(d["path"] == "perm-parts/agents/openai.yaml" and "cannot be read" in d["message"]
               for d in doc["diagnostics"] if d["code"] == "SL601")
    assert "perm-dir" in err and "Permission denied" in err
    # The config, too: exit 2 with one line.
    (tree.root / "skilllint.toml").write_text('targets = ["agentskills"]\n')
    denied(tree.root / "skilllint.toml")
    code, _, err = _lint_in_process(tree.root, "perm-md")
    assert code == 2 and err.startswith("skilllint: error: ") and "Permission denied" in err


def test_a_reference_into_an_unlistable_folder_is_not_called_missing(tree, denied):
    # Once a false positive: the inventory noted the folder as unreadable, yet resolve()
    # answered "missing" below it and SL301 said a file that is there "does not exist".
    root = skill(tree.root, "private", "Read [the notes](private/notes.md) when stuck.")
    (root / "private").mkdir()
    (root / "private" / "notes.md").write_text("# Notes\n")
    denied(root / "private")
    _, doc, _ = _lint_in_process(tree.root, "private")
    assert not [d for d in doc["diagnostics"] if d["code"] == "SL301" and "does not exist" in d["message"]]


def _locked_references(tree: Tree) -> Path:
    body = (
        "Read [the guide](references/guide.md) when stuck, and run `scripts/run.sh` to deploy.\n\n"
        "![logo](assets/logo.png) [open](references/open.md)"
    )
    root = skill(tree.root, "locked", body)
    for rel in ("references/guide.md", "references/open.md", "scripts/run.sh", "assets/logo.png"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n")
    return root


def _assert_locked_reported(doc: dict) -> None:
    found = {(d["code"], d["path"]) for d in doc["diagnostics"]}
    # There, so not missing; unreadable, so said: the Markdown file the graph could not read and
    # the script it never reads; the readable ones are not named.
    assert not [d for d in doc["diagnostics"] if d["code"] == "SL301"], sorted(found)
    assert {p for c, p in found if c == "SL013"} == {"locked/references/guide.md", "locked/scripts/run.sh"}, sorted(found)
    [guide] = [d for d in doc["diagnostics"] if d["path"] == "locked/references/guide.md"]
    assert guide["message"] == (
        "`references/guide.md` cannot be read (cannot open: Permission denied); "
        "skilllint did not check it and an agent cannot load it"
    )


def test_a_referenced_file_that_cannot_be_read_is_said_so_mocked(tree, denied):
    root = _locked_references(tree)
    denied(root / "references" / "guide.md", root / "scripts" / "run.sh")
    code, doc, _ = _lint_in_process(tree.root, "--no-cache", "locked")
    assert code == 1
    _assert_locked_reported(doc)


def test_a_referenced_file_with_mode_000_is_said_so(tree, tmp_path):
    preexec = _permissions_preexec(tmp_path)
    root = _locked_references(tree)
    locked = [root / "references" / "guide.md", root / "scripts" / "run.sh"]
    for path in locked:
        path.chmod(0)
    try:
        result = check_json(tree, "--no-cache", "locked", label="mode 000 referenced files", preexec=preexec)
    finally:
        for path in locked:
            path.chmod(0o644)
    _assert_locked_reported(result.doc())


# ----------------------------------------------------------------------------- catastrophic backtracking (pinned bugs)


def test_gitignore_with_a_catastrophic_pattern(tree):
    (tree.root / ".gitignore").write_text("*" * 30 + "x\n")
    root = skill(tree.root, "ok")
    (root / "references" / "aaaaaaaaaaaaaaaa").mkdir(parents=True)
    # Backtracking on 30 stars is exponential: a hang, which the harness's hang guard catches;
    # the run must also end as usual, the folder under the pattern listed.
    result = run(tree, "check", "--output-format", "json", "ok", label=".gitignore with 30 stars")
    assert result.code == 0 and result.codes() == set()
    assert ["os.scandir", str(root / "references" / "aaaaaaaaaaaaaaaa")] in result.events


REDOS_LINES = {
    "spaces after [a](": "[a](" + " " * 100_000,
    "brackets before ](": "[" * 100_000 + "](x)",
    "nested brackets": "[[]" * 30_000 + "](x",
    "backticks": "x " + "`" * 100_000,
    "underscores": "_" * 100_000,
    "dot-slashes": "./" * 50_000,
}


def _hostile_lines(tree: Tree, size: int) -> None:
    """Seven skills, one hostile line each of ``size`` (100,000: 100 KB), and a long description."""
    for index, line in enumerate(REDOS_LINES.values()):
        line = line[: len(line) * size // 100_000] if size < 100_000 else line
        skill(tree.root, f"line{index}", "Intro.\n\n" + line + "\n")
    folder = tree.root / "sentences"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: sentences\ndescription: " + "Do it. " * (15_000 * size // 100_000) + "\n---\nbody\n")


def test_long_lines_do_not_backtrack(tmp_path):
    # The work is in regexes and string scans (C): compared by CPU time at 25 KB and 100 KB lines in
    # one test, linear scanners take at most ~4 times as long; one that backtracks, ~16 times.
    result, ratio = scales(tmp_path, _hostile_lines, 100_000, ".", label="seven hostile lines", measure="cpu")
    assert ratio < LINEAR_AT_4X, ratio
    assert {"line0", "sentences"} <= {d["path"].split("/")[0] for d in result.doc()["diagnostics"]}


# ----------------------------------------------------------------------------- modules planted in the working folder

# Modules skilllint imports after `python -m skilllint` starts (tomllib: a config is read; yaml,
# json, pathspec, jsonschema: every check; ruamel: the YAML fallback and fixes).
PLANTED = ("yaml", "json", "tomllib", "pathspec", "jsonschema", "ruamel")


def test_python_dash_m_does_not_import_modules_planted_in_the_linted_tree(tree, tmp_path):
    # `python -m` puts the working folder first on sys.path; skilllint/__main__.py takes it
    # off before importing anything, so a planted module never runs (no `python -P` needed).
    markers = tmp_path / "markers"
    markers.mkdir()
    skill(tree.root, "ok", "Read [the guide](references/guide.md) when stuck.")
    (tree.root / "skilllint.toml").write_text('fail-on = "warning"\n')
    for name in PLANTED:
        plant = f"open({str(markers / name)!r}, 'w').close()\n"
        if name == "ruamel":
            (tree.root / "ruamel").mkdir()
            (tree.root / "ruamel" / "__init__.py").write_text(plant)
        else:
            (tree.root / f"{name}.py").write_text(plant)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONSAFEPATH", None)
    # The plants work: a plain `python -c` in that folder imports every one of them.
    probe = "import " + ", ".join(PLANTED)
    subprocess.run([sys.executable, "-c", probe], cwd=tree.root, env=env, capture_output=True, timeout=HARD_TIMEOUT, check=False)
    assert sorted(p.name for p in markers.iterdir()) == sorted(PLANTED)
    for path in markers.iterdir():
        path.unlink()
    for args in (["check", "--output-format", "json", "--no-cache", "ok"], ["--version"], ["rule", "SL301"]):
        done = subprocess.run(
            [sys.executable, "-m", "skilllint", *args], cwd=tree.root, env=env, capture_output=True, timeout=HARD_TIMEOUT, check=False
        )
        assert sorted(p.name for p in markers.iterdir()) == [], args
        assert "Traceback" not in done.stderr.decode(), done.stderr.decode()
        assert done.returncode in (0, 1), (args, done.returncode, done.stderr.decode())
        if args[0] == "check":  # linted as usual: the missing guide is found
            assert {d["code"] for d in json.loads(done.stdout)["diagnostics"]} == {"SL301"}
