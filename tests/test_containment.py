"""Containment and filesystem safety (SL401–SL407), and the linter's own safety.

The second half proves, on a hostile tree, that skilllint reads nothing outside
the linted root: a Python audit hook records every ``open`` and every
``os.listdir``/``os.scandir`` while the engine and the whole CLI run, and a
canary file outside the tree, reachable only through links, must never be
opened. The hook cannot be removed once added, so it is installed once per
process and records only while the module-level flag ``_RECORDING`` is set.
Opens of the interpreter's own files (lazy imports, the tiktoken cache) are
not the tree's and are set aside; everything else must resolve inside the
tree. A FIFO, links to ``/dev/zero`` and ``/etc``, a link cycle and a
``plugins/x -> ..`` cycle must not hang the run: the in-process runs sit
under a SIGALRM deadline and a subprocess run must finish within 5 s.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, deadline, lint_json, run_cli, write_skill

SKILL = """---
name: {name}
description: Test skill for containment checks. Use when testing skilllint.
---

# {name}

{body}
"""


def skill(base: Path, folder: str, body: str = "Nothing here.") -> Path:
    return write_skill(base, folder, SKILL.format(name=Path(folder).name, body=body))


def isolate(tmp_path: Path) -> Path:
    """A repository root, so no configuration above tmp_path is picked up."""
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    return tmp_path


def diagnostics(*args: str, cwd: Path, select: str = "SL4") -> list[dict]:
    return lint_json("--target", "agentskills", "--select", select, *args, cwd=cwd)["diagnostics"]


def by_code(found: list[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for d in found:
        groups.setdefault(d["code"], []).append(d)
    return groups


# -- SL401 symlink-escapes-package ------------------------------------------------


def test_sl401_file_and_folder_links_out(tmp_path):
    isolate(tmp_path)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "style.md").write_text("# Style\n")
    root = skill(tmp_path, "notes")
    (root / "references").mkdir()
    os.symlink("../../shared/style.md", root / "references" / "style.md")
    os.symlink("/etc", root / "system")
    os.symlink(str(tmp_path / "shared" / "style.md"), root / "absolute.md")
    found = by_code(diagnostics("notes", cwd=tmp_path))
    paths = sorted(d["path"] for d in found["SL401"])
    assert paths == ["notes/absolute.md", "notes/references/style.md", "notes/system"]
    system = next(d for d in found["SL401"] if d["path"] == "notes/system")
    assert system["severity"] == "error"
    assert "`system` is a symbolic link to `/etc`" in system["message"]
    assert "skilllint did not follow it" in system["message"]
    assert system["related"][-1]["path"] == os.path.relpath("/etc", tmp_path)
    style = next(d for d in found["SL401"] if d["path"] == "notes/references/style.md")
    assert style["related"][-1]["path"] == "shared/style.md"  # where it leads, in the full output's note
    assert set(found) == {"SL401"}


def test_sl401_escape_through_another_link_shows_the_chain(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "notes")
    os.symlink("/etc", root / "system")
    os.symlink("system/passwd", root / "passwd.md")
    found = [d for d in diagnostics("notes", cwd=tmp_path) if d["path"] == "notes/passwd.md"]
    assert len(found) == 1
    assert "through `system` -> `/etc`" in found[0]["message"]
    notes = [r["message"] for r in found[0]["related"]]
    assert "`system` is a symbolic link to `/etc`" in notes
    assert found[0]["related"][-1]["path"] == os.path.relpath("/etc/passwd", tmp_path)


def test_sl401_dotdot_that_comes_back_in_still_escapes(tmp_path):
    # `../notes/x.md` names the package's own file only while its folder is called `notes`.
    isolate(tmp_path)
    root = skill(tmp_path, "notes")
    (root / "x.md").write_text("x\n")
    os.symlink("../notes/x.md", root / "y.md")
    assert [d["code"] for d in diagnostics("notes", cwd=tmp_path)] == ["SL401"]


# -- SL402 symlink-in-package --------------------------------------------------------


def test_sl402_link_inside_the_package(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "api")
    (root / "references").mkdir()
    (root / "references" / "v3.md").write_text("# v3\n")
    os.symlink("v3.md", root / "references" / "current.md")
    os.symlink("references", root / "docs")
    found = diagnostics("api", cwd=tmp_path)
    assert {(d["code"], d["path"], d["severity"]) for d in found} == {
        ("SL402", "api/references/current.md", "info"),
        ("SL402", "api/docs", "info"),
    }
    current = next(d for d in found if d["path"] == "api/references/current.md")
    assert "the file `references/v3.md` in the skill" in current["message"]
    assert current["related"][0]["path"] == "api/references/v3.md"
    docs = next(d for d in found if d["path"] == "api/docs")
    assert "package_skill.py leaves a linked folder out" in docs["message"]


def test_sl402_leaves_a_linked_skill_md_to_sl405(tmp_path):
    isolate(tmp_path)
    root = tmp_path / "onboarding"
    root.mkdir()
    (root / "README.md").write_text(SKILL.format(name="onboarding", body="Hi."))
    os.symlink("README.md", root / "SKILL.md")
    assert [d["code"] for d in diagnostics("onboarding", cwd=tmp_path)] == ["SL405"]


# -- SL403 symlink-broken ------------------------------------------------------------


def test_sl403_broken_links(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "deploy")
    (root / "scripts").mkdir()
    os.symlink("../tools/deploy.sh", root / "scripts" / "deploy.sh")
    os.symlink("scripts/gone.sh", root / "run.sh")
    os.symlink("SKILL.md/child", root / "under-a-file")
    found = diagnostics("deploy", cwd=tmp_path)
    assert sorted(d["path"] for d in found) == ["deploy/run.sh", "deploy/scripts/deploy.sh", "deploy/under-a-file"]
    assert {d["code"] for d in found} == {"SL403"}
    deploy = next(d for d in found if d["path"] == "deploy/scripts/deploy.sh")
    assert "`tools/deploy.sh` in the skill" in deploy["message"]
    assert deploy["related"][-1]["path"] == "deploy/tools/deploy.sh"


# -- SL404 symlink-loop --------------------------------------------------------------


def test_sl404_cycles_and_links_to_an_enclosing_folder(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "loops")
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    os.symlink("a", root / "c")  # leads into the cycle
    os.symlink("self", root / "self")
    (root / "plugins").mkdir()
    os.symlink("..", root / "plugins" / "x")
    os.symlink(".", root / "here")
    found = diagnostics("loops", cwd=tmp_path)
    assert {d["code"] for d in found} == {"SL404"}
    assert sorted(d["path"] for d in found) == [
        "loops/a", "loops/b", "loops/c", "loops/here", "loops/plugins/x", "loops/self"
    ]
    a = next(d for d in found if d["path"] == "loops/a")
    assert "(`a` -> `b`, `b` -> `a`)" in a["message"]
    assert [r["path"] for r in a["related"]] == ["loops/b"]
    x = next(d for d in found if d["path"] == "loops/plugins/x")
    assert "holds the link itself" in x["message"]


# -- SL405 skill-is-symlink ----------------------------------------------------------


def test_sl405_linked_skill_md_inside_the_folder(tmp_path):
    isolate(tmp_path)
    root = tmp_path / "onboarding"
    root.mkdir()
    (root / "README.md").write_text(SKILL.format(name="onboarding", body="Hi."))
    os.symlink("README.md", root / "SKILL.md")
    [info] = diagnostics("onboarding", cwd=tmp_path)
    assert (info["code"], info["severity"], info["path"]) == ("SL405", "info", "onboarding/SKILL.md")
    assert "skilllint read it at its real location" in info["message"]
    codex = lint_json("--target", "codex", "--select", "SL405", "onboarding", cwd=tmp_path)["diagnostics"]
    assert codex[0]["severity"] == "warning"
    assert "Codex's skill discovery skips a linked SKILL.md" in codex[0]["message"]


def test_sl405_skill_md_linked_outside_the_tree_is_reported_not_read(tmp_path):
    isolate(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "SKILL.md").write_text(SKILL.format(name="docs", body="Hi."))
    tree = tmp_path / "tree"
    (tree / "docs").mkdir(parents=True)
    os.symlink("../../elsewhere/SKILL.md", tree / "docs" / "SKILL.md")
    found = lint_json("--target", "agentskills", "--select", "SL405,SL013,SL401", "docs", cwd=tree)["diagnostics"]
    codes = sorted(d["code"] for d in found)
    assert codes == ["SL013", "SL401", "SL405"]
    sl405 = next(d for d in found if d["code"] == "SL405")
    real = os.path.realpath(tmp_path / "elsewhere" / "SKILL.md")
    assert real in sl405["message"] and "skilllint did not read it (SL013)" in sl405["message"]


def test_sl405_skill_folder_given_as_a_link(tmp_path):
    isolate(tmp_path)
    skill(tmp_path, "shared/onboarding")
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    os.symlink("../../shared/onboarding", tmp_path / ".claude" / "skills" / "onboarding")
    found = lint_json("--target", "claude-code", "--select", "SL4", ".claude/skills/onboarding", cwd=tmp_path)[
        "diagnostics"
    ]
    [info] = found
    assert info["code"] == "SL405" and info["path"] == ".claude/skills/onboarding"
    assert "the skill folder `onboarding` is a symbolic link to `../../shared/onboarding`" in info["message"]
    assert os.path.realpath(tmp_path / "shared" / "onboarding") in info["message"]


def test_sl405_real_location_relative_to_the_linted_root(tmp_path):
    # A linked skill folder met in a search is shown relative to the linted tree.
    isolate(tmp_path)
    skill(tmp_path, "vendor/onboarding")
    (tmp_path / "skilllint.toml").write_text('exclude = ["vendor/"]\n')
    (tmp_path / "skills").mkdir()
    os.symlink("../vendor/onboarding", tmp_path / "skills" / "onboarding")
    found = lint_json("--target", "agentskills", "--select", "SL405", ".", cwd=tmp_path)["diagnostics"]
    assert [d["path"] for d in found] == ["skills/onboarding"]
    assert "(`vendor/onboarding` in the linted tree)" in found[0]["message"]


# -- SL406 special-file --------------------------------------------------------------


def test_sl406_fifo_and_socket(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "logs")
    (root / "run").mkdir()
    os.mkfifo(root / "run" / "live.fifo")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with contextlib.suppress(OSError):
            sock.bind(str(root / "run" / "s.sock"))
        found = diagnostics("logs", cwd=tmp_path)
    finally:
        sock.close()
    kinds = {d["path"]: d["message"] for d in found if d["code"] == "SL406"}
    assert "a FIFO (named pipe)" in kinds["logs/run/live.fifo"]
    if (root / "run" / "s.sock").exists() or os.path.lexists(root / "run" / "s.sock"):
        assert "a socket" in kinds["logs/run/s.sock"]
    assert {d["severity"] for d in found} == {"error"}


def test_rules_run_when_skill_md_is_unreadable(tmp_path):
    # SKILL.md is a FIFO: SL013 says it is unreadable, and SL401/SL406 still see the package.
    isolate(tmp_path)
    root = tmp_path / "broken"
    root.mkdir()
    os.mkfifo(root / "SKILL.md")
    os.symlink("/etc", root / "etc")
    found = lint_json("--target", "agentskills", "--select", "SL4,SL013", "broken", cwd=tmp_path)["diagnostics"]
    assert sorted((d["code"], d["path"]) for d in found) == [
        ("SL013", "broken/SKILL.md"),
        ("SL401", "broken/etc"),
        ("SL406", "broken/SKILL.md"),
    ]


def test_nested_skill_entries_are_reported_once(tmp_path):
    isolate(tmp_path)
    outer = skill(tmp_path, "outer")
    inner = skill(outer, "inner")
    os.symlink("/etc", inner / "etc")
    os.mkfifo(inner / "pipe")
    found = diagnostics(".", cwd=tmp_path)
    assert sorted((d["code"], d["path"]) for d in found) == [
        ("SL401", "outer/inner/etc"),
        ("SL406", "outer/inner/pipe"),
    ]


# -- SL407 hardcoded-user-path -----------------------------------------------------


def test_sl407_reports_home_paths_in_code_and_prose(tmp_path):
    isolate(tmp_path)
    body = "\n".join(
        [
            "Run the helper:",
            "",
            "```bash",
            "python3 /Users/mchen/code/skills/notes/scripts/sync.py --all",
            "```",
            "",
            "Logs land in /Users/mchen/Library/Logs/sync.log and `/home/kpatel/.cache/sync/`.",
            'On Windows: "C:\\Users\\Mei Chen\\AppData\\Roaming\\sync\\config.ini" or C:/Users/dkim/sync.',
            "Open file:///Users/ajones/notes/index.html in a browser.",
        ]
    )
    root = skill(tmp_path, "notes", body)
    (root / "scripts").mkdir()
    (root / "scripts" / "sync.py").write_text("print('sync')\n")
    found = diagnostics("notes", cwd=tmp_path, select="SL407")
    homes = [d["message"].split("(`", 1)[1].split("`)", 1)[0] for d in found]
    assert homes == ["/Users/mchen", "/home/kpatel", "C:\\Users\\Mei Chen", "C:/Users/dkim", "/Users/ajones"]
    first = found[0]
    assert first["severity"] == "warning"
    assert (first["line"], first["column"]) == (11, 9)
    assert "write the path from the skill folder (`scripts/sync.py`)" in first["message"]
    assert "1 more mention of `/Users/mchen`" in first["message"]
    assert first["related"][0]["line"] == 14


def test_sl407_leaves_placeholders_shared_accounts_and_home_shortcuts_alone(tmp_path):
    isolate(tmp_path)
    body = "\n".join(
        [
            "Portable: ~/projects/x, $HOME/x, %USERPROFILE%\\x, ${HOME}/x.",
            "Placeholders: /Users/<you>/x, /home/user/x, /Users/yourname/x, /home/$USER/x, /home/${USER}/x,",
            "C:\\Users\\%USERNAME%\\x, C:/Users/userName/job.txt, /Users/myuserName/Downloads/a.png, /Users/.../x,",
            "/Users/you/memo.md, /Users/me/My Repo, C:\\Users\\example\\x.py, C:\\Users\\John Doe\\Documents, /home/jdoe/x.",
            "Environments: /home/vscode/.cargo, /home/runner/work/x, /Users/runner/work, /home/node/app,",
            "/home/ubuntu/app, /Users/Shared/x, C:\\Users\\Public\\x, /home/linuxbrew/.linuxbrew/bin, /home/claude/out.",
            "Stock names: /Users/alice/.claude/x.md, /home/bob/x, /Users/john.doe/x, C:\\Users\\jane_doe\\x.",
            "Not home paths: https://www.iso.org/iso/home/standards/x, /var/home/alice/x, GET /Users/42/orders.",
        ]
    )
    skill(tmp_path, "notes", body)
    assert diagnostics("notes", cwd=tmp_path, select="SL407") == []


def test_sl407_scans_referenced_markdown_and_shows_how_it_is_loaded(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "notes", "Read [setup](references/setup.md) before the first run.")
    (root / "references").mkdir()
    (root / "references" / "setup.md").write_text("# Setup\n\nClone into /home/kpatel/src/notes.\n")
    (root / "references" / "unreferenced.md").write_text("/home/kpatel/other\n")
    [finding] = diagnostics("notes", cwd=tmp_path, select="SL407")
    assert (finding["path"], finding["line"]) == ("notes/references/setup.md", 3)
    assert finding["related"][0]["message"] == "loaded through SKILL.md -> references/setup.md"
    assert finding["related"][0]["path"] == "notes/SKILL.md"


def test_sl407_leaves_an_environment_s_fixed_account_the_text_names(tmp_path):
    # `/home/dnanexus` is the account every DNAnexus worker runs as, `C:\users\crossover` the user
    # of every CrossOver bottle: the text names the platform, whose account the path is.
    isolate(tmp_path)
    body = "\n".join(
        [
            "On DNAnexus workers the job's inputs land in /home/dnanexus/in/reads.",
            "In a CrossOver bottle the app keeps its data in C:\\users\\crossover\\AppData\\Roaming\\app.",
            "The author's copy lives in /home/kpatel/src/notes.",
        ]
    )
    skill(tmp_path, "notes", body)
    found = diagnostics("notes", cwd=tmp_path, select="SL407")
    assert [d["message"].split("`")[3] for d in found] == ["/home/kpatel"]


def test_sl407_leaves_a_path_shown_as_the_wrong_way(tmp_path):
    isolate(tmp_path)
    body = "\n".join(
        [
            "## Paths",
            "",
            "❌ Breaks on other machines:",
            "",
            "```bash",
            "python3 /Users/mchen/code/notes/scripts/sync.py",
            "```",
            "",
            "✅ Portable: `python3 scripts/sync.py`.",
            "",
            "Don't write `/home/kpatel/notes` either.",
            "",
            "### Wrong: absolute paths",
            "",
            "C:\\Users\\dkim\\notes\\x.md",
            "",
            "## Setup",
            "",
            "Clone into /Users/ajones/src/notes first.",
        ]
    )
    skill(tmp_path, "notes", body)
    found = diagnostics("notes", cwd=tmp_path, select="SL407")
    assert [d["message"].split("`")[3] for d in found] == ["/Users/ajones"]


def test_sl407_reads_the_scripts_the_skill_runs(tmp_path):
    isolate(tmp_path)
    root = skill(tmp_path, "notes", "Run `python3 scripts/sync.py` and `bash scripts/fetch.sh`.")
    (root / "scripts").mkdir()
    (root / "scripts" / "sync.py").write_text('import json\n\nDATA = "/Users/mchen/data/notes.json"\n')
    (root / "scripts" / "fetch.sh").write_text("#!/bin/sh\n# BAD:\n# cp /home/kpatel/x .\ncp ~/x .\nls /home/dkim/cache\n")
    found = diagnostics("notes", cwd=tmp_path, select="SL407")
    assert [(d["path"], d["line"], d["message"].split("`")[3]) for d in found] == [
        ("notes/scripts/fetch.sh", 5, "/home/dkim"),
        ("notes/scripts/sync.py", 3, "/Users/mchen"),
    ]


def test_sl407_on_the_corpus_reports_only_a_real_home_folder(corpus):
    # The first four repositories hold 17 home-folder paths in scanned files, all placeholders,
    # environment accounts or example content (see the rule-book page). The later twelve add two
    # real ones: a Windows user's Flutter install path pasted into a setup guide, and a list of
    # "files to update" in one user's home (`/home/jez/.claude/...`) left in a reference's notes.
    doc = lint_json("--target", "agentskills", "--select", "SL407", str(corpus), cwd=corpus)
    assert [d["message"].split("`")[3] for d in doc["diagnostics"]] == ["C:\\users\\dreamtcs", "/home/jez"]


# -- the linter's own safety: a hostile tree under an audit hook ----------------------

_RECORDING = False
_EVENTS: list[tuple[str, str]] = []


def _audit(event: str, args: tuple) -> None:
    if not _RECORDING or event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    target = args[0]
    if target is None:
        target = "."
    if isinstance(target, int):  # an open by file descriptor names no path
        return
    try:
        path = os.fsdecode(os.fspath(target))
    except TypeError:
        return
    if not os.path.isabs(path):
        path = os.path.join(os.getcwd(), path)
    _EVENTS.append((event, path))


def _install_hook() -> None:
    if not getattr(sys, "_skilllint_containment_audit", False):
        sys.addaudithook(_audit)
        sys._skilllint_containment_audit = True  # type: ignore[attr-defined]


@contextlib.contextmanager
def recording():
    global _RECORDING
    _install_hook()
    _EVENTS.clear()
    _RECORDING = True
    try:
        yield _EVENTS
    finally:
        _RECORDING = False


def _interpreter_roots() -> list[str]:
    """Where Python itself and skilllint's dependencies live (lazy imports, caches)."""
    import site

    import skilllint

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(skilllint.__file__)}
    roots.update(site.getsitepackages())
    with contextlib.suppress(AttributeError):
        roots.add(site.getusersitepackages())
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    roots.add(cache or os.path.join(tempfile.gettempdir(), "data-gym-cache"))
    return sorted(os.path.realpath(r) for r in roots if r)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, Path]:
    """A linted tree full of traps, next to an ``outside`` folder it must never read."""
    outside = tmp_path / "outside"
    (outside / "skill").mkdir(parents=True)
    canary = outside / "canary.txt"
    canary.write_text("CANARY: skilllint must never open this file\n")
    (outside / "skill" / "SKILL.md").write_text(SKILL.format(name="skill", body="Outside the tree."))
    (outside / "notes.md").write_text("# Outside\n")

    tree = isolate(tmp_path / "tree")
    (tree / "skilllint.toml").write_text('targets = ["agentskills"]\n')
    body = "\n".join(
        [
            "Read [the canary](canary.md), [the absolute canary](canary-abs.md),",
            "[outside notes](docs/notes.md), [passwd](etc/passwd), [zero](zero.md) and [the pipe](references/pipe.md).",
            "Then `references/loop.md`, `a/x.md`, `plugins/x/references/guide.md` and",
            "`plugins/x/plugins/x/plugins/x/SKILL.md`; the guide is [here](references/guide.md).",
        ]
    )
    root = skill(tree, "hostile", body)
    (root / "references").mkdir()
    (root / "references" / "guide.md").write_text("# Guide\n\nSee [the canary](../canary.md) and [zero](../zero.md).\n")
    os.symlink("../../outside/canary.txt", root / "canary.md")
    os.symlink(str(canary), root / "canary-abs.md")
    os.symlink("../../outside", root / "docs")
    os.symlink("/etc", root / "etc")
    os.symlink("/dev/zero", root / "zero.md")
    os.mkfifo(root / "references" / "pipe.md")
    os.mkfifo(root / "pipe")
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    os.symlink("loop.md", root / "references" / "loop.md")
    (root / "plugins").mkdir()
    os.symlink("..", root / "plugins" / "x")

    # A skill whose SKILL.md is a FIFO, one whose SKILL.md links to the canary,
    # one whose SKILL.md links to /dev/zero, and linked skill folders that leave the tree.
    (tree / "fifo-skill").mkdir()
    os.mkfifo(tree / "fifo-skill" / "SKILL.md")
    (tree / "canary-skill").mkdir()
    os.symlink(str(canary), tree / "canary-skill" / "SKILL.md")
    (tree / "zero-skill").mkdir()
    os.symlink("/dev/zero", tree / "zero-skill" / "SKILL.md")
    (tree / ".claude" / "skills").mkdir(parents=True)
    os.symlink("../../../outside/skill", tree / ".claude" / "skills" / "linked-out")
    os.symlink(str(outside), tree / "outside-link")
    os.symlink("..", tree / "up")
    return {"tree": tree, "outside": outside, "canary": canary, "root": root}


def _check_reads(events: list[tuple[str, str]], tree: Path, canary: Path) -> list[str]:
    """Every recorded read that is not inside the tree nor the interpreter's own."""
    tree_real = os.path.realpath(tree)
    canary_real = os.path.realpath(canary)
    allowed = _interpreter_roots()
    bad = []
    for event, path in events:
        real = os.path.realpath(path)
        assert real != canary_real and path != str(canary), f"{event} of the canary through {path}"
        if _inside(real, tree_real) or any(_inside(real, root) for root in allowed):
            continue
        bad.append(f"{event} {path} (really {real})")
    return bad


def _warm_up(tmp: Path) -> None:
    """Import everything and load the token encoding outside the recorded part."""
    isolate(tmp)
    root = skill(tmp, "warm", "See [g](references/g.md).")
    (root / "references").mkdir()
    (root / "references" / "g.md").write_text("# G\n")
    for fmt in ("full", "json", "concise"):
        run_cli("check", ".", "--target", "all", "--output-format", fmt, "--exit-zero", cwd=tmp)


def test_engine_reads_nothing_outside_the_linted_root(hostile, tmp_path_factory):
    from skilllint.config.settings import load_settings
    from skilllint.lint.engine import lint_paths
    from skilllint.registry import registry

    _warm_up(tmp_path_factory.mktemp("warm"))
    tree = hostile["tree"]
    settings = load_settings(registry(), tree, None)
    start = time.perf_counter()
    with deadline(), recording() as events:
        result = lint_paths(["."], settings, tree)
    elapsed = time.perf_counter() - start
    assert not result.internal_errors, result.internal_errors
    print(f"\nTIME hostile tree: {elapsed:.2f}s")  # a hang is caught by the deadline; speed is benchmarks' business
    assert events, "the audit hook recorded nothing: is it installed?"
    assert _check_reads(events, tree, hostile["canary"]) == []
    found = {(d.code, d.path.relative_to(tree).as_posix()) for d in result.diagnostics}
    expected = {
        ("SL401", "hostile/canary.md"),
        ("SL401", "hostile/canary-abs.md"),
        ("SL401", "hostile/docs"),
        ("SL401", "hostile/etc"),
        ("SL401", "hostile/zero.md"),
        ("SL404", "hostile/a"),
        ("SL404", "hostile/b"),
        ("SL404", "hostile/references/loop.md"),
        ("SL404", "hostile/plugins/x"),
        ("SL406", "hostile/pipe"),
        ("SL406", "hostile/references/pipe.md"),
        ("SL013", "fifo-skill/SKILL.md"),
        ("SL406", "fifo-skill/SKILL.md"),
        ("SL013", "canary-skill/SKILL.md"),
        ("SL401", "canary-skill/SKILL.md"),
        ("SL405", "canary-skill/SKILL.md"),
        ("SL013", "zero-skill/SKILL.md"),
        ("SL401", "zero-skill/SKILL.md"),
        ("SL405", "zero-skill/SKILL.md"),
    }
    assert expected <= found, sorted(expected - found)
    # The linked skill folder that leaves the tree is not linted (nothing is read there).
    assert not any("linked-out" in str(d.path) for d in result.diagnostics)
    assert result.packages == 4


@pytest.mark.parametrize("fmt", ["full", "json", "concise"])
def test_cli_reads_nothing_outside_the_linted_root(hostile, tmp_path_factory, fmt):
    _warm_up(tmp_path_factory.mktemp("warm"))
    tree = hostile["tree"]
    with deadline(), recording() as events:
        code, out, err = run_cli("check", ".", "--target", "all", "--output-format", fmt, cwd=tree)
    assert code == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert _check_reads(events, tree, hostile["canary"]) == []
    assert "CANARY" not in out and "CANARY" not in err
    if fmt == "json":
        doc = json.loads(out)
        assert doc["summary"]["by_code"]["SL401"] >= 5
    if fmt == "full":
        assert "= note: `b` is a symbolic link to `a`" in out


@pytest.mark.e2e
def test_cli_finishes_on_a_link_cycle_and_a_fifo_in_a_subprocess(tmp_path):
    # A separate process with a hard timeout: a FIFO opened blocking or a cycle
    # followed would hang it, and the timeout turns that into a failure.
    tree = isolate(tmp_path)
    root = skill(tree, "trap", "Read [a](a/x.md), [p](pipe.md) and `plugins/x/plugins/x/SKILL.md`.")
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    os.mkfifo(root / "pipe.md")
    (root / "plugins").mkdir()
    os.symlink("..", root / "plugins" / "x")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "skilllint", "check", ".", "--target", "all", "--output-format", "json"]
    subprocess.run(command, cwd=tree, env=env, capture_output=True, timeout=120)  # imports warmed (pyc)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - start
    assert done.returncode == 1, done.stderr
    print(f"\nTIME link traps: {elapsed:.2f}s")  # the subprocess timeout catches a hang
    codes = json.loads(done.stdout)["summary"]["by_code"]
    assert codes["SL404"] == 3 and codes["SL406"] == 1


def test_the_audit_check_catches_reads_through_links(hostile):
    # The checks above are only as good as the hook: a read through a link must show.
    tree, root = hostile["tree"], hostile["root"]
    with recording() as events:
        os.listdir(root / "docs")
        with open(root / "etc" / "hostname", "rb") if os.path.exists("/etc/hostname") else open(os.devnull, "rb"):
            pass
    assert _check_reads(events, tree, hostile["canary"]) != []
    with recording() as events:
        with open(root / "canary.md", "rb"):
            pass
    with pytest.raises(AssertionError, match="canary"):
        _check_reads(events, tree, hostile["canary"])


def test_a_linked_config_file_is_not_followed_out_of_the_tree(hostile, tmp_path_factory):
    tree = hostile["tree"]
    (tree / "skilllint.toml").unlink()
    secret = hostile["outside"] / "secret.toml"
    secret.write_text('targets = ["agentskills"]\n')
    os.symlink(str(secret), tree / "skilllint.toml")
    _warm_up(tmp_path_factory.mktemp("warm"))
    with deadline(), recording() as events:
        run_cli("check", ".", "--output-format", "concise", cwd=tree)
    assert all(os.path.realpath(path) != os.path.realpath(secret) for _, path in events)


def test_sl407_quotes_a_huge_path_clipped(tmp_path):
    isolate(tmp_path)
    skill(tmp_path, "notes", "Data lives in /Users/kpatel/" + "a/" * 50_000 + "x.md here.")
    [finding] = diagnostics("notes", cwd=tmp_path, select="SL407")
    assert len(finding["message"]) < 600 and "`/Users/kpatel`" in finding["message"] and "…" in finding["message"]
