"""Safe on any tree: links no one may read, what reaches a terminal, and `--fix` interrupted.

Each case runs as a user meets it, through tests/test_hostile.py's harness (a separate
process, bounded in time and memory, every read audited), unless it needs to reach into
the process (a count of system calls, a file that another process holds):

* links that ``lstat`` sees but ``readlink`` refuses (``/proc/1/cwd`` and ``/proc/1/root``
  for a process that may not trace pid 1; Python before 3.13 lets ``os.path.realpath``
  raise the ``PermissionError``) and chains of thousands of links (``realpath`` recursed
  once per link into a ``RecursionError``, and took time quadratic in the chain);
* every text output of every verb escapes control characters, bidi controls and lone
  surrogates, JSON and SARIF as ``\\uXXXX`` escapes (the values unchanged), and a strict
  UTF-8 standard output takes every format;
* a ``check --fix`` killed while writing leaves a temporary file: the next ``check``
  reports it, the next ``check --fix`` removes it, and nothing else is touched.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from test_hostile import (  # noqa: F401 - fixtures, used by name
    HOSTILE_NAMES,
    TERMINAL_HOSTILE,
    _drop_dac_capabilities,
    _permissions_preexec,
    named_tree,
    run,
    skill,
    tree,
    usage_error,
)

from skilllint.discovery.walk import discover

pytestmark = pytest.mark.e2e

# What JSON may carry raw but a terminal must not get: DEL, C1, bidi controls, line separators.
RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
TEXT_FORMATS = ("full", "concise", "github")


def raw_hostile(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in TERMINAL_HOSTILE.findall(text)})


# ----------------------------------------------------------------------------- links readlink refuses

_CAP_SYS_PTRACE = 19


def _drop_trace_capabilities() -> None:  # in the child, between fork and exec
    import ctypes

    _drop_dac_capabilities()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(24, _CAP_SYS_PTRACE, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.fixture
def unreadable_links(tree, tmp_path):
    """A tree full of links to /proc/1/cwd and /proc/1/root, and a preexec_fn under which
    reading them is refused (as for any user but pid 1's, and root without CAP_SYS_PTRACE)."""
    preexec = _drop_trace_capabilities if os.geteuid() == 0 else None
    if preexec is not None:
        _permissions_preexec(tmp_path)  # skips where capabilities cannot be dropped
    probe = subprocess.run(
        [sys.executable, "-c", "import os; os.readlink('/proc/1/cwd')"], preexec_fn=preexec, capture_output=True, check=False
    )
    if b"PermissionError" not in probe.stderr:
        pytest.skip("this process may read /proc/1/cwd: the links would resolve")
    root = tree.root
    for name in ("/proc/1/cwd", "/proc/1/root"):
        leaf = name.rsplit("/", 1)[1]
        os.symlink(name, root / f"top-{leaf}")
        (root / ".claude" / "skills").mkdir(parents=True, exist_ok=True)
        os.symlink(name, root / ".claude" / "skills" / f"skill-{leaf}")  # a skill folder
    body = "Read [the guide](references/guide.md) and [its notes](references/proc/notes.md)."
    parts = skill(root, ".claude/skills/parts", body)
    (parts / "references").mkdir()
    os.symlink("/proc/1/cwd/guide.md", parts / "references" / "guide.md")
    os.symlink("/proc/1/root", parts / "references" / "proc")
    os.symlink("/proc/1/cwd", parts / "scripts")
    (parts / "agents").mkdir()
    os.symlink("/proc/1/cwd/openai.yaml", parts / "agents" / "openai.yaml")
    os.symlink("/proc/1/cwd", parts / ".gitignore")
    linked = root / "linked"
    linked.mkdir()
    os.symlink("/proc/1/cwd/SKILL.md", linked / "SKILL.md")  # SKILL.md itself
    os.symlink("/proc/1/cwd", root / ".claude-plugin")  # what target detection looks into
    os.symlink("/proc/1/cwd", root / ".codex-plugin")
    nested = root / "nested"
    nested.mkdir()
    os.symlink("/proc/1/root", nested / ".git")  # a repository root: config, catalogs and reports look for it
    skill(nested, "inner")
    return tree, preexec


def test_links_readlink_refuses_are_neither_followed_nor_a_traceback(unreadable_links):
    tree, preexec = unreadable_links
    for fmt in (*TEXT_FORMATS, "json", "sarif"):
        result = run(tree, "check", "--target", "all", "--output-format", fmt, ".", label=f"/proc links ({fmt})", preexec=preexec)
        assert result.code == 1
    doc = json.loads(run(tree, "check", "--output-format", "json", "--target", "all", ".", label="/proc links", preexec=preexec).out)
    found = {(d["code"], d["path"]) for d in doc["diagnostics"]}
    assert ("SL013", "linked/SKILL.md") in found  # said to be unreadable, never read
    assert ("SL401", ".claude/skills/parts/scripts") in found  # a link leading outside, judged from its text
    assert doc["summary"]["packages"] == 3
    for target in ("codex", "claude-code", "copilot"):
        run(tree, "catalog", "--target", target, ".", label=f"/proc links (catalog {target})", preexec=preexec, expect=(0,))
    for where in ("nested/inner", ".claude/skills/parts/SKILL.md"):
        run(tree, "check", where, label=f"/proc links ({where})", preexec=preexec)
    run(tree, "check", "--diff", ".", label="/proc links (--diff)", preexec=preexec)
    run(tree, "check", "--fix", ".", label="/proc links (--fix)", preexec=preexec)
    # named on the command line: a link in no skill that cannot be read is an error; one inside a
    # skill (as pre-commit names a committed link) lints that skill, whose rules say what it is
    message = usage_error(run(tree, "check", "top-cwd", label="/proc link named (top-cwd)", preexec=preexec, expect=(2,)))
    assert message == "skilllint: error: top-cwd: permission denied"
    named = run(tree, "check", "--output-format", "json", "linked/SKILL.md", label="/proc link named (linked/SKILL.md)", preexec=preexec)
    assert {d["code"] for d in json.loads(named.out)["diagnostics"]} >= {"SL013"}


# ----------------------------------------------------------------------------- chains of links


def _chain(folder: Path, length: int, end: str) -> None:
    """``l0 -> l1 -> ... -> l{length} -> end``."""
    for index in range(length):
        os.symlink(f"l{index + 1}", folder / f"l{index}")
    os.symlink(end, folder / f"l{length}")


def test_long_chains_of_links_are_no_traceback(tree):
    root = skill(tree.root, "chained")
    (tree.root / "real").mkdir()
    _chain(tree.root, 3000, "real")  # in the tree, where discovery resolves links
    _chain(root, 1200, ".")  # in a skill, where discovery and its rules do (each link an SL404)
    result = run(tree, "check", "--output-format", "json", ".", label="chains of 3,000 and 1,200 links")
    assert result.doc()["summary"]["packages"] == 1
    # each link in the skill; in the tree, each of the 3,001 more than 40 links from the end (ELOOP)
    assert len(result.found("SL404")) == 1201 + (3001 - 40)


def test_resolving_each_link_of_a_chain_costs_a_bounded_number_of_lstat_calls(tree, monkeypatch):
    """os.path.realpath follows every link of a chain: resolving each of n links costs
    n²/2 lstat calls in all (405,000 for 900 links, seconds). Past MAX_LINK_HOPS links the
    kernel says ELOOP, and so does :func:`real_path`."""
    skill(tree.root, "s")
    (tree.root / "real").mkdir()
    _chain(tree.root, 900, "real")
    calls = []
    real_lstat = os.lstat

    def counting(path, *args, **kwargs):
        calls.append(path)
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counting)
    found = discover(["."], tree.root)
    monkeypatch.undo()
    print(f"\n900 chained links: {len(calls):,} lstat calls")
    assert [f.root.name for f in found.packages] == ["s"]
    components = len(tree.root.parts) + 1
    hops = 40  # the kernel's ELOOP bound, skilllint.fsafe.MAX_LINK_HOPS
    assert len(calls) < 901 * (hops + components + 2), f"{len(calls):,} lstat calls"


def test_real_path_says_what_os_path_realpath_says(tmp_path, monkeypatch):
    """On links it can follow, :func:`real_path` agrees with os.path.realpath: relative
    and absolute links, `..` after a link, broken links, a file as a folder, loops apart."""
    from skilllint.fsafe import real_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c" / "f").write_text("x")
    links = {"lb": "a/b", "a/b/up": "../..", "abs": str(tmp_path / "a"), "broken": "nowhere/x",
             "mix": "lb/c/../../b", "dot": ".", "fl": "a/b/c/f", "slash": "/"}
    for name, target in links.items():
        os.symlink(target, tmp_path / name)
    names = [".", "..", "a", "b", "c", "f", "lb", "up", "abs", "broken", "mix", "dot", "fl", "slash", "x", ""]
    chooser = random.Random(14)
    for _ in range(3000):
        path = "/".join(chooser.choice(names) for _ in range(chooser.randint(1, 6)))
        if path:
            assert real_path(path) == os.path.realpath(path), path
    assert real_path(str(tmp_path / "lb")) == str(tmp_path / "a" / "b")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    with pytest.raises(OSError, match="Too many levels"):
        real_path("loop1")


# ----------------------------------------------------------------------------- every text output escapes


@pytest.fixture
def hostile_skill(tree) -> Path:
    """A skill whose folder, name, description and body try to drive the terminal, and a
    skills folder whose links and names are as hostile."""
    folder = tree.root / ".claude" / "skills" / "evil\x1b]0;title\x07\u202e"
    frontmatter = (
        "---\n"
        'name: "evil\\e]0;pwned\\a\\x9b31m"\n'
        'description: "Does things.\\r  - good: included\\nRender receipt: forged \\u202egnp\\u2066 \\x7f\\e[2J end"\n'
        "version: 0.4.0\n"
        "---\n"
    )
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(frontmatter + "\x1b[2J body \x1b]8;;http://x\x07link\n", encoding="utf-8")
    outside = tree.root.parent / "outside-skills"
    outside.mkdir()
    os.symlink(outside, tree.root / ".claude" / "skills" / "link\x1b[31m\u2066")  # warned: not followed
    raw = os.fsencode(tree.root / ".claude" / "skills") + b"/bad\xff\x9b"
    os.mkdir(raw)
    with open(raw + b"/SKILL.md", "wb") as handle:
        handle.write(b"---\nname: bad\ndescription: Bytes that are not UTF-8. Use when testing.\n---\n")
    return folder


def test_every_format_and_verb_escapes_what_the_tree_holds(tree, hostile_skill):
    for fmt in TEXT_FORMATS:
        result = run(tree, "check", "--target", "all", "--output-format", fmt, ".", label=f"hostile text ({fmt})")
        assert not raw_hostile(result.out.decode("utf-8")), (fmt, raw_hostile(result.out.decode("utf-8")))
        assert not raw_hostile(result.err), (fmt, raw_hostile(result.err))
        assert "link\\x1b[31m\\u2066: symbolic link leading outside the linted tree" in result.err
    for fmt in ("json", "sarif"):
        result = run(tree, "check", "--target", "all", "--output-format", fmt, ".", label=f"hostile text ({fmt})")
        text = result.out.decode("utf-8")  # strict
        assert not RAW_IN_JSON.search(text), fmt
        json.loads(text)
    doc = json.loads(run(tree, "check", "--output-format", "json", ".", label="hostile text (json values)").out)
    assert any(d["message"].startswith("`name` 'evil\x1b]0;pwned\x07\x9b31m'") for d in doc["diagnostics"])  # unchanged
    for target in ("codex", "claude-code", "copilot"):
        result = run(tree, "catalog", "--target", target, ".", label=f"hostile catalog ({target})", expect=(0,))
        assert not raw_hostile(result.out.decode("utf-8") + result.err), target
        result = run(tree, "catalog", "--target", target, "--output-format", "json", ".", label=f"hostile catalog json ({target})", expect=(0,))
        assert not RAW_IN_JSON.search(result.out.decode("utf-8")), target
    result = run(tree, "check", "--diff", ".", label="hostile --diff")
    assert "+metadata:" in result.out.decode("utf-8") and not raw_hostile(result.out.decode("utf-8") + result.err)


@pytest.mark.parametrize(
    "args",
    [
        ("check", "nope\x1b[2J\u202e"),
        ("catalog", "nope\x1b]0;x\x07"),
        ("rule", "SL\x1b[31m\u2066"),
        ("check", "--config", "cfg\x1b[2J.toml"),
        ("check", "--select", "SL\x9b1m"),
        ("check", "--report", "\x1b[31m=x"),
    ],
)
def test_errors_quoting_the_command_line_are_one_escaped_line(tree, args):
    skill(tree.root, "ok")
    usage_error(run(tree, *args, label=f"hostile argument ({args[0]})", expect=(2,)))


def test_warnings_of_a_catalog_root_are_escaped(tree):
    skill(tree.root, "ok")
    result = run(tree, "catalog", "--catalog-root", "user=/nowhere\x1b[31m\u202e", ".", label="hostile catalog root", expect=(0,))
    assert "catalog root /nowhere\\x1b[31m\\u202e (user): not a folder; skipped" in result.err
    assert not raw_hostile(result.err)


def test_strict_utf8_standard_output_takes_every_format(tree, hostile_skill, monkeypatch):
    """PYTHONIOENCODING=utf-8: stdout refuses lone surrogates (a file name that is not
    UTF-8) rather than writing its bytes; every format has none left by then."""
    monkeypatch.setenv("PYTHONIOENCODING", "utf-8")
    for fmt in (*TEXT_FORMATS, "json", "sarif"):
        run(tree, "check", "--output-format", fmt, ".", label=f"strict stdout ({fmt})").out.decode("utf-8")
    for fmt in ("text", "json"):
        run(tree, "catalog", "--output-format", fmt, ".", label=f"strict stdout (catalog {fmt})", expect=(0,)).out.decode("utf-8")
    run(tree, "check", "--diff", ".", label="strict stdout (--diff)")


def test_json_and_sarif_keep_hostile_names_exactly_as_escapes(named_tree):
    for fmt in ("json", "sarif"):
        result = run(named_tree, "check", "--output-format", fmt, "names", label=f"hostile names, escaped ({fmt})")
        text = result.out.decode("utf-8")
        assert not RAW_IN_JSON.search(text), fmt
    paths = {d["path"] for d in json.loads(text if fmt == "json" else run(named_tree, "check", "--output-format", "json", "names", label="x").out)["diagnostics"]}
    for name in HOSTILE_NAMES:
        assert f"names/assets/{name}" in paths, name


def test_diff_lines_keep_their_ending_and_apply(tree):
    """``--diff`` of a CRLF file without control characters applies as it is; a lone CR
    ending shows as ``\\x0d``; control characters in a line are escaped."""
    broken = "---\nname: {name}\ndescription: Drafts notes. Use when: asked\nversion: 0.4.0\n---\n# {name}\n{extra}\n"
    crlf = skill(tree.root, "crlf")
    (crlf / "SKILL.md").write_bytes(broken.format(name="crlf", extra="plain").replace("\n", "\r\n").encode())
    cr = skill(tree.root, "cr")
    (cr / "SKILL.md").write_bytes(broken.format(name="cr", extra="\x1b[2J").replace("\n", "\r").encode())
    diff = run(tree, "check", "--diff", "--ignore", "SL008", "crlf", label="--diff of a CRLF file").out
    assert b'+description: "Drafts notes. Use when: asked"\r\n' in diff
    if shutil.which("git"):
        patch = tree.root.parent / "crlf.patch"
        patch.write_bytes(diff)
        subprocess.run(["git", "apply", "--unsafe-paths", str(patch)], cwd=tree.root, check=True, capture_output=True)
        assert b'description: "Drafts notes. Use when: asked"\r\nmetadata:\r\n' in (crlf / "SKILL.md").read_bytes()
    text = run(tree, "check", "--diff", "cr", label="--diff of a CR file").out.decode("utf-8")
    assert "\r" not in text and ' "Drafts notes. Use when: asked"\\x0d\n' in text and " \\x1b[2J\\x0d\n" in text


# ----------------------------------------------------------------------------- `--fix` killed while writing

_STALLED_FIX = r"""
import os, sys, time
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
real_replace = os.replace

def stall(source, target, *args, **kwargs):
    if str(source).endswith(".skilllint-fix"):
        print(source, flush=True)  # the temporary file is written and synced: kill now
        time.sleep(60)
    return real_replace(source, target, *args, **kwargs)

os.replace = stall
from skilllint.cli.main import main
main(["check", "--fix", "--no-cache", "."])
"""

VERSIONED = "---\nname: {name}\ndescription: Drafts notes for {name}. Use when asked.\nversion: 0.4.0\n---\n# {name}\n"


def _kill_while_writing(tree, folder: Path) -> Path:
    """Run ``check --fix`` and kill -9 it between writing its temporary file in ``folder`` and the rename."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    fixing = subprocess.Popen([sys.executable, "-c", _STALLED_FIX], cwd=tree.root, env=env, stdout=subprocess.PIPE, text=True)
    try:
        temporary = folder / Path(fixing.stdout.readline().strip()).name  # named relative to the open folder
    finally:
        fixing.send_signal(signal.SIGKILL)
        fixing.wait()
    assert temporary.name.startswith(".SKILL.md.") and temporary.is_file(), temporary
    return temporary


def test_a_fix_killed_while_writing_is_reported_then_cleaned(tree):
    folder = skill(tree.root, "notes\x1b[31m")
    (folder / "SKILL.md").write_text(VERSIONED.format(name="notes"), encoding="utf-8")
    temporary = _kill_while_writing(tree, folder)
    assert "version: 0.4.0" in (folder / "SKILL.md").read_text(encoding="utf-8")  # the old text, whole
    assert "metadata:" in temporary.read_text(encoding="utf-8")
    # Names like ours that are not ours to remove: a running fix's (it holds the lock), a link, another name.
    busy = folder / ".SKILL.md.k3j_x9a2.skilllint-fix"
    busy.write_text("being written")
    os.symlink(tree.canary, folder / ".SKILL.md.abcdefgh.skilllint-fix")
    (folder / ".SKILL.md.notes.skilllint-fix").write_text("someone's notes")
    holder = os.open(busy, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        result = run(tree, "check", ".", label="after a killed --fix (check)")
        shown = f"notes\\x1b[31m/{temporary.name}"
        assert result.err.count("a temporary file left by an interrupted `skilllint check --fix`") == 1
        assert f"skilllint: warning: {shown}: a temporary file left by an interrupted `skilllint check --fix`; `skilllint check --fix` removes it" in result.err
        assert temporary.exists()
        result = run(tree, "check", "--diff", ".", label="after a killed --fix (--diff)")
        assert temporary.exists() and shown in result.err
        result = run(tree, "check", "--fix", ".", label="after a killed --fix (--fix)")
        assert f"skilllint: removed {shown}, a temporary file left by an interrupted `skilllint check --fix`" in result.err
        assert not temporary.exists()
        assert "metadata:" in (folder / "SKILL.md").read_text(encoding="utf-8")
        assert busy.read_text() == "being written" and (folder / ".SKILL.md.notes.skilllint-fix").exists()
        assert os.path.islink(folder / ".SKILL.md.abcdefgh.skilllint-fix")
        result = run(tree, "check", ".", label="after the cleaning --fix")
        assert "temporary file" not in result.err
    finally:
        os.close(holder)


def test_the_temporary_file_of_a_fix_is_held_while_it_is_written(tmp_path, monkeypatch):
    """While ``write_atomic`` writes, another process finds its temporary file in use."""
    from skilllint.app import fixes
    from skilllint.safewrite import is_abandoned_fix_temp, remove_abandoned_fix_temp

    target = tmp_path / "SKILL.md"
    target.write_text("old")
    seen = {}
    real_replace = os.replace

    def look(source, destination, **folders):
        seen["abandoned"] = is_abandoned_fix_temp(str(tmp_path / source))
        seen["removed"] = remove_abandoned_fix_temp(str(tmp_path / source))
        return real_replace(source, destination, **folders)

    monkeypatch.setattr(os, "replace", look)
    fixes.write_atomic(target, b"new", b"old", [tmp_path])
    assert seen == {"abandoned": False, "removed": "in use, or no longer a regular file"}
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["SKILL.md"]


def test_a_read_only_folder_is_an_error_and_its_fix_is_not_counted(tree, tmp_path):
    preexec = _permissions_preexec(tmp_path)
    for name in ("one", "two"):
        (skill(tree.root, name) / "SKILL.md").write_text(VERSIONED.format(name=name), encoding="utf-8")
    locked = tree.root / "two"
    locked.chmod(0o555)
    try:
        result = run(tree, "check", "--fix", ".", label="--fix in a read-only folder", preexec=preexec, expect=(2,))
    finally:
        locked.chmod(0o755)
    text = result.out.decode("utf-8")
    assert "Fixed 1 problem." in text and "Fixed 2" not in text
    assert "skilllint: error: cannot write two/SKILL.md: Permission denied (1 problem left unfixed)" in result.err
    assert "version: 0.4.0" in (locked / "SKILL.md").read_text(encoding="utf-8")
    assert os.listdir(locked) == ["SKILL.md"]
