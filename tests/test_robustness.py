"""skilllint survives malformed input and hostile trees.

Every case builds a skill under ``tmp_path``, runs ``skilllint check`` in
process and asserts that it

* raises nothing and prints no traceback,
* exits 0 or 1 (2 only for the usage-error cases at the end),
* reports the expected diagnostic code, and
* does a bounded amount of work: the function calls of the lint (counted by
  :mod:`cProfile`, the same on a busy machine as on an idle one) are at most
  ``WORK_LIMIT`` times those of an ordinary 3,000-line skill, linted first by a
  module fixture (which also pays for imports and first uses). An alias bomb
  expanded, a nesting walked once per level or a file read past its cap counts
  far more. Scale cases compare two sizes in one test instead.

Hangs: a SIGALRM deadline (a hang guard, not a speed claim) turns a hang (a FIFO
opened blocking, /dev/zero read without a cap) into a test failure instead of a
stuck test run; opens are audited where a case is about what is never opened.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from conftest import HANG_GUARD, count_calls, deadline, run_cli, write_skill

WORK_LIMIT = 5.0  # a case's function calls over those of the warm-up skill (measured: at most ~2)
HARD_DEADLINE = HANG_GUARD  # seconds: beyond this a case counts as hung (a hang guard only)
CAP = 1024 * 1024  # SL011's default max-bytes
WORK: dict[str, float] = {}  # measured work (calls over the baseline's), printed with -s
BASELINE: dict[str, int] = {}  # function calls to lint the warm-up skill (set by _warm_up)

# -- audit hook --------------------------------------------------------------
# Audit hooks cannot be removed, so one hook is installed for the whole process
# and only records ``open`` events while a test has put paths in _AUDIT_WATCH.

_AUDIT_WATCH: set[str] = set()
_AUDIT_HITS: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event != "open" or not _AUDIT_WATCH or not args:
        return
    target = args[0]
    if isinstance(target, int):  # os.open(dir_fd=...) / fdopen: no path
        return
    try:
        path = os.fsdecode(target)
    except TypeError:
        return
    if path in _AUDIT_WATCH:
        _AUDIT_HITS.append(path)


if not getattr(sys, "_skilllint_robustness_audit", False):
    sys.addaudithook(_audit)
    sys._skilllint_robustness_audit = True  # type: ignore[attr-defined]


@contextlib.contextmanager
def watch_opens(*paths: Path | str):
    """Record every ``open`` of ``paths`` (as given and as resolved)."""
    names = set()
    for path in paths:
        names.add(os.fspath(path))
        names.add(os.path.realpath(path))
    _AUDIT_HITS.clear()
    _AUDIT_WATCH.update(names)
    try:
        yield _AUDIT_HITS
    finally:
        _AUDIT_WATCH.clear()


# -- helpers -----------------------------------------------------------------


def counted_cli(label: str, *args: str, cwd: Path):
    """Run the CLI under the hang guard, counting its function calls; return (code, out, err,
    the calls over those of the warm-up skill's lint)."""
    with deadline(HARD_DEADLINE):
        (code, out, err), calls = count_calls(run_cli, *args, cwd=cwd)
    work = calls / BASELINE["calls"]
    WORK[label] = work
    print(f"\nWORK {label}: {calls:,} calls, x{work:.2f} the warm-up skill's")
    return code, out, err, work


def isolate(tmp_path: Path) -> Path:
    """Make tmp_path a repository root so no config above it is picked up."""
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    return tmp_path


def lint_case(label: str, tmp_path: Path, folder: str, *extra: str, limit: float | None = WORK_LIMIT):
    """Lint ``folder`` with JSON output; check the robustness invariants; return (codes, doc, work).
    ``limit``: the bound on the work (calls over the warm-up skill's); None where a scale case
    compares two sizes itself."""
    code, out, err, work = counted_cli(label, "check", "--output-format", "json", *extra, folder, cwd=tmp_path)
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    assert code in (0, 1), (code, err)
    doc = json.loads(out)
    codes = {d["code"] for d in doc["diagnostics"]}
    assert limit is None or work < limit, f"{label}: x{work:.2f} the calls of an ordinary skill's lint (bound x{limit})"
    # The human formats must not crash on the same input either (not timed).
    for fmt in ("full", "concise"):
        with deadline(HARD_DEADLINE):
            code2, _, err2 = run_cli("check", "--output-format", fmt, *extra, folder, cwd=tmp_path)
        assert code2 == code, (fmt, code2, err2)
        assert "Traceback" not in err2, err2
    return codes, doc, work


def usage_error(args: list[str], cwd: Path) -> str:
    with deadline(HARD_DEADLINE):
        code, out, err = run_cli(*args, cwd=cwd)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err, err
    assert "Traceback" not in out, out
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got: {err!r}"
    assert lines[0].startswith("skilllint: error: "), lines[0]
    return lines[0]


@pytest.fixture(scope="module", autouse=True)
def _warm_up(tmp_path_factory):
    """Pay import and first-use costs outside the counted sections; count the calls of an
    ordinary skill's lint, the unit of every case's bound."""
    base = isolate(tmp_path_factory.mktemp("warm"))
    body = "\n".join(f"Step {i}: do the thing with care and precision." for i in range(3000))
    write_skill(base, "warm", f"---\nname: warm\ndescription: Warm up. Use when warming.\nx: [a, {{b: c}}]\n---\n{body}\n")
    for fmt in ("json", "full", "concise"):
        run_cli("check", "--output-format", fmt, "--target", "all", "warm", cwd=base)
    _, BASELINE["calls"] = count_calls(run_cli, "check", "--output-format", "json", "--no-cache", "warm", cwd=base)


def test_audit_hook_sees_opens(tmp_path):
    """The negative "never opened" assertions below mean something."""
    target = tmp_path / "probe.txt"
    target.write_text("x", encoding="utf-8")
    with watch_opens(target) as opens:
        target.read_text(encoding="utf-8")
        os.close(os.open(target, os.O_RDONLY))
        assert len(opens) == 2
    target.read_text(encoding="utf-8")
    assert len(_AUDIT_HITS) == 2  # nothing recorded once the watch is over


# -- malformed SKILL.md --------------------------------------------------------


def test_no_frontmatter(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "nofm", "# Just a heading\n\nNo frontmatter here.\n")
    codes, _, _ = lint_case("no frontmatter", tmp_path, "nofm")
    assert "SL003" in codes


def test_broken_yaml(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "badyaml", "---\nname: badyaml\ndescription: [unclosed\n  metadata: {a: b\n---\nbody\n")
    codes, _, _ = lint_case("broken yaml", tmp_path, "badyaml")
    assert "SL005" in codes


PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82"
)


def test_binary_png_as_skill_md(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "png", PNG)
    codes, _, _ = lint_case("png", tmp_path, "png")
    assert "SL009" in codes


def test_invalid_utf8(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "latin1", "---\nname: latin1\ndescription: Café crème. Use when ordering.\n---\nbody\n".encode("latin-1"))
    codes, doc, _ = lint_case("invalid utf-8", tmp_path, "latin1")
    assert "SL009" in codes
    [diag] = [d for d in doc["diagnostics"] if d["code"] == "SL009"]
    assert diag["line"] == 3


def test_nul_bytes(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "nul", b"---\nname: nul\ndescription: A\x00B. Use when testing.\n---\nbo\x00dy\n")
    codes, _, _ = lint_case("nul bytes", tmp_path, "nul")
    assert "SL009" in codes


def test_100_mb_skill_md_reads_at_most_the_cap(tmp_path, monkeypatch):
    isolate(tmp_path)
    folder = tmp_path / "huge"
    folder.mkdir()
    big = folder / "SKILL.md"
    line = b"Repeat this line to make a very large skill file for the size cap test.\n"
    block = line * (1024 * 1024 // len(line) + 1)
    with open(big, "wb") as handle:  # generated outside the timed section
        handle.write(b"---\nname: huge\ndescription: Huge. Use when testing the size cap.\n---\n")
        while handle.tell() < 100 * 1024 * 1024:
            handle.write(block)
    info = os.stat(big)
    assert info.st_size >= 100 * 1024 * 1024
    identity = (info.st_dev, info.st_ino)

    read_bytes: list[int] = []
    os_opens: list[str] = []
    real_read, real_open = os.read, os.open

    def counting_read(fd, n):
        data = real_read(fd, n)
        try:
            st = os.fstat(fd)
        except OSError:
            return data
        if (st.st_dev, st.st_ino) == identity:
            read_bytes.append(len(data))
        return data

    def counting_open(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == identity:
                os_opens.append(os.fspath(path))
        except OSError:
            pass
        return fd

    monkeypatch.setattr(os, "read", counting_read)
    monkeypatch.setattr(os, "open", counting_open)
    with watch_opens(big) as opens:
        code, out, err, work = counted_cli("100 MB SKILL.md", "check", "--output-format", "json", "huge", cwd=tmp_path)
        audited = list(opens)
    monkeypatch.undo()

    assert "Traceback" not in err, err
    assert code in (0, 1), err
    codes = {d["code"] for d in json.loads(out)["diagnostics"]}
    assert "SL011" in codes
    assert work < WORK_LIMIT, work
    # Every open of the file went through os.open (fsafe), none through io.open,
    # and all reads together stay within the cap (+1 byte that detects "over").
    assert audited, "the audit hook saw no open of SKILL.md: the byte count proves nothing"
    assert len(audited) == len(os_opens), f"opened outside fsafe: {audited} vs {os_opens}"
    assert 0 < sum(read_bytes) <= CAP + 1, f"read {sum(read_bytes):,} bytes of a 100 MB file"


def _alias_bomb(depth: int = 9) -> str:
    lines = ["---", "name: bomb", "description: Billion laughs. Use when testing.", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, depth + 1):
        aliases = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{aliases}]")
    lines += ["---", "body", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("targets", [(), ("--target", "all")], ids=["inferred", "all-targets"])
def test_yaml_alias_bomb(tmp_path, targets):
    # The bomb is walked up to its refusal (~10-20 times an ordinary skill's calls); expanded, its
    # 9^10 nodes would be billions. Its work is compared with a bomb one level deeper: a level more
    # is nine times the expansion; walked to the refusal it costs at most about twice (measured 1.9).
    isolate(tmp_path)
    work = {}
    for depth in (9, 10):
        write_skill(tmp_path, f"bomb{depth}", _alias_bomb(depth))
        label = f"alias bomb of depth {depth} {' '.join(targets) or 'inferred'}"
        codes, doc, work[depth] = lint_case(label, tmp_path, f"bomb{depth}", *targets, limit=None)
        assert "SL005" in codes
        assert any("alias" in d["message"] for d in doc["diagnostics"] if d["code"] == "SL005")
    assert work[10] / work[9] < 4, work


def test_deep_flow_nesting_10000(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "deepflow", "---\nname: deepflow\ndescription: Deep. Use when testing.\nx: " + "[" * 10_000 + "]" * 10_000 + "\n---\n")
    codes, _, _ = lint_case("flow nesting 10,000", tmp_path, "deepflow")
    assert "SL005" in codes


def test_deep_flow_nesting_10000_all_targets(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "deepflow", "---\nname: deepflow\ndescription: Deep. Use when testing.\nx: " + "[" * 10_000 + "]" * 10_000 + "\n---\n")
    codes, _, _ = lint_case("flow nesting 10,000 --target all", tmp_path, "deepflow", "--target", "all")
    assert "SL005" in codes


def test_deep_flow_mapping_nesting_10000(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "deepmap", "---\nname: deepmap\ndescription: Deep. Use when testing.\nx: " + "{a: " * 10_000 + "}" * 10_000 + "\n---\n")
    codes, _, _ = lint_case("flow mapping nesting 10,000", tmp_path, "deepmap", "--target", "all")
    assert "SL005" in codes


def test_deep_block_sequence_nesting_2000(tmp_path):
    # `- - - … a` is 2,000 nested block sequences on one line.
    isolate(tmp_path)
    write_skill(tmp_path, "deepseq", "---\nname: deepseq\ndescription: Deep. Use when testing.\nx:\n" + "- " * 2000 + "a\n---\n")
    codes, _, _ = lint_case("block sequence nesting 2,000", tmp_path, "deepseq")
    assert "SL005" in codes


def test_deep_block_mapping_nesting_2000(tmp_path):
    # 2,000 indented levels need ~2 MB of indentation: raise the size cap so
    # the whole frontmatter is parsed rather than truncated.
    isolate(tmp_path)
    (tmp_path / ".skilllint.toml").write_text("[rules.SL011]\nmax-bytes = 8388608\n", encoding="utf-8")
    levels = "".join(" " * depth + "k:\n" for depth in range(1, 2001))
    write_skill(tmp_path, "deepblock", "---\nname: deepblock\ndescription: Deep. Use when testing.\nx:\n" + levels + "---\n")
    codes, _, _ = lint_case("block mapping nesting 2,000", tmp_path, "deepblock")
    assert "SL005" in codes
    assert "SL011" not in codes


def test_empty_skill_md(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "empty", b"")
    codes, _, _ = lint_case("empty SKILL.md", tmp_path, "empty")
    assert "SL003" in codes


@pytest.mark.parametrize("text", ["---", "---\n"], ids=["no-newline", "newline"])
def test_skill_md_only_fence(tmp_path, text):
    isolate(tmp_path)
    write_skill(tmp_path, "fence", text)
    codes, _, _ = lint_case("only ---", tmp_path, "fence")
    assert "SL004" in codes


def test_bom_and_crlf(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "bomcrlf", "\ufeff---\r\nname: bomcrlf\r\ndescription: BOM and CRLF. Use when testing.\r\n---\r\nbody\r\n".encode("utf-8"))
    codes, _, _ = lint_case("BOM + CRLF", tmp_path, "bomcrlf")
    assert "SL008" in codes
    # Parsers that do not strip a BOM (skills-ref, quick_validate, Codex) find no frontmatter.
    codes, doc, _ = lint_case("BOM + CRLF --target all", tmp_path, "bomcrlf", "--target", "all")
    sl003 = [d for d in doc["diagnostics"] if d["code"] == "SL003"]
    assert sl003 and "byte-order mark" in sl003[0]["message"]
    assert {"skills-ref", "claude-api", "codex"} <= set(sl003[0]["targets"])


def test_bom_crlf_sl003_silences_sl008_for_that_target(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "bomcrlf", "\ufeff---\r\nname: bomcrlf\r\ndescription: BOM and CRLF. Use when testing.\r\n---\r\nbody\r\n".encode("utf-8"))
    codes, doc, _ = lint_case("BOM + CRLF skills-ref", tmp_path, "bomcrlf", "--target", "skills-ref")
    assert "SL003" in codes
    assert "SL008" not in codes


def test_fifo_skill_md_does_not_hang(tmp_path):
    isolate(tmp_path)
    folder = tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(folder / "SKILL.md")
    with watch_opens(folder / "SKILL.md") as opens:
        codes, _, _ = lint_case("FIFO SKILL.md", tmp_path, "fifo")
        # lstat tells it is a FIFO: it must not even be opened.
        assert not opens, opens
    assert "SL013" in codes


def test_skill_md_symlink_to_dev_zero(tmp_path):
    isolate(tmp_path)
    folder = tmp_path / "zero"
    folder.mkdir()
    os.symlink("/dev/zero", folder / "SKILL.md")
    with watch_opens("/dev/zero", folder / "SKILL.md") as opens:
        codes, _, _ = lint_case("SKILL.md -> /dev/zero", tmp_path, "zero")
        assert not opens, opens
    assert "SL013" in codes


def test_skill_md_symlink_outside_tree_is_never_opened(tmp_path):
    tree = isolate(tmp_path / "tree")
    outside = tmp_path / "outside" / "secret.md"
    outside.parent.mkdir()
    outside.write_text("---\nname: secret\ndescription: Secret. Use when leaking.\n---\nsecret body\n", encoding="utf-8")
    folder = tree / "linked"
    folder.mkdir()
    os.symlink(outside, folder / "SKILL.md")
    with watch_opens(outside, folder / "SKILL.md") as opens:
        codes, doc, _ = lint_case("SKILL.md -> outside", tree, "linked")
        hits = list(opens)
    assert not hits, f"opened outside the linted tree: {hits}"
    assert "SL013" in codes
    assert "secret body" not in json.dumps(doc)


def test_skill_md_is_a_directory(tmp_path):
    isolate(tmp_path)
    (tmp_path / "dirskill" / "SKILL.md").mkdir(parents=True)
    codes, _, _ = lint_case("SKILL.md is a directory", tmp_path, "dirskill")
    assert "SL013" in codes


# -- pathological but valid frontmatter ------------------------------------------


FIVE_THOUSAND_KEYS = "---\nname: manykeys\ndescription: Many keys. Use when testing.\n" + "".join(
    f"key{i}: value {i}\n" for i in range(5000)
) + "---\nbody\n"


@pytest.mark.slow
def test_5000_keys_are_reported(tmp_path):
    # The verdict, untimed: a frontmatter with 5,000 keys is linted, not refused.
    isolate(tmp_path)
    write_skill(tmp_path, "manykeys", FIVE_THOUSAND_KEYS)
    codes, doc, _ = lint_case("5,000 keys (unbounded)", tmp_path, "manykeys", limit=None)
    assert "SL121" in codes


def _keys(count: int) -> str:
    return "---\nname: manykeys\ndescription: Many keys. Use when testing.\n" + "".join(f"key{i}: value {i}\n" for i in range(count)) + "---\nbody\n"


# Calls at four times the size: linear work about 4 (less where a constant part weighs), quadratic 16.
LINEAR_CALLS_AT_4X = 6.0


@pytest.mark.slow
@pytest.mark.parametrize("targets", [(), ("--target", "all")], ids=["default targets", "every target"])
def test_5000_keys_take_work_linear_in_the_keys(tmp_path, targets):
    # 1,250 keys and 5,000 keys in one test (with every target: 50,000 per-target judgements and
    # 5,000 findings): four times the keys, about four times the calls; each key judged against
    # every other, sixteen.
    isolate(tmp_path)
    work = {}
    for count in (1250, 5000):
        write_skill(tmp_path, f"keys{count}", _keys(count))
        codes, _, work[count] = lint_case(f"{count:,} keys {' '.join(targets)}", tmp_path, f"keys{count}", *targets, limit=None)
        assert "SL121" in codes
    assert work[5000] / work[1250] < LINEAR_CALLS_AT_4X, work


@pytest.mark.slow
def test_5000_keys_suggestions_are_computed_once_per_key(tmp_path, monkeypatch):
    import difflib

    isolate(tmp_path)
    write_skill(tmp_path, "manykeys", FIVE_THOUSAND_KEYS)
    calls = []
    real = difflib.get_close_matches

    def counting(*args, **kwargs):
        calls.append(args[0] if args else kwargs.get("word"))
        return real(*args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    with deadline(HARD_DEADLINE):
        code, out, err = run_cli("check", "--output-format", "json", "--target", "all", "manykeys", cwd=tmp_path)
    assert code == 1, err
    assert len(calls) <= 5000, f"{len(calls):,} difflib searches for 5,000 keys"


LONG_DESCRIPTION = "---\nname: longdesc\ndescription: " + "word " * 200_000 + "\n---\nbody\n"  # ~1 MB, one line


def test_1mb_single_line_description_is_reported(tmp_path):
    # The verdict, untimed: the description is parsed whole (not truncated) and judged.
    isolate(tmp_path)
    write_skill(tmp_path, "longdesc", LONG_DESCRIPTION)
    assert len(LONG_DESCRIPTION.encode()) < CAP
    codes, _, _ = lint_case("1 MB description (unbounded)", tmp_path, "longdesc", limit=None)
    assert "SL113" in codes
    assert "SL011" not in codes


def test_1mb_single_line_description_takes_bounded_work(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "longdesc", LONG_DESCRIPTION)
    codes, _, _ = lint_case("1 MB description", tmp_path, "longdesc")
    assert "SL113" in codes


def test_1mb_single_line_description_all_targets(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "longdesc", LONG_DESCRIPTION)
    codes, _, _ = lint_case("1 MB description --target all", tmp_path, "longdesc", "--target", "all")
    assert "SL113" in codes


CONTROL = "\x07\x1b[2J\x1b]0;pwned\x07\x08"
BIDI = "\u202e\u200f\u2066"


def test_control_characters_in_name_and_description(tmp_path):
    # Raw C0 controls are not allowed in YAML: the frontmatter is invalid.
    isolate(tmp_path)
    write_skill(tmp_path, "ctrl", f"---\nname: ct{CONTROL}rl\ndescription: Bell{CONTROL}. Use when testing.\n---\nbody\n")
    codes, _, _ = lint_case("control characters", tmp_path, "ctrl")
    assert "SL005" in codes


def test_control_character_error_is_one_line_at_the_character(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "ctrl", "---\ndescription: Fine. Use when testing.\nname: ct\x07rl\n---\nbody\n")
    with deadline(HARD_DEADLINE):
        code, out, err = run_cli("check", "--output-format", "json", "ctrl", cwd=tmp_path)
    [diag] = [d for d in json.loads(out)["diagnostics"] if d["code"] == "SL005"]
    assert "\n" not in diag["message"], diag["message"]
    assert (diag["line"], diag["column"]) == (3, 9)  # the BEL after `name: ct`
    with deadline(HARD_DEADLINE):
        code, out, err = run_cli("check", "--output-format", "concise", "ctrl", cwd=tmp_path)
    assert all(re.match(r"^ctrl/SKILL\.md:\d+:\d+: ", line) for line in out.splitlines()), out


def test_escaped_control_characters_in_description(tmp_path):
    # Escaped in a double-quoted scalar they are valid YAML.
    isolate(tmp_path)
    write_skill(tmp_path, "escctrl", '---\nname: escctrl\ndescription: "Bell\\a \\e[2J \\u202e. Use when testing."\n---\nbody\n')
    lint_case("escaped control characters", tmp_path, "escctrl")


def test_right_to_left_marks_in_name_and_description(tmp_path):
    isolate(tmp_path)
    write_skill(tmp_path, "rtl", f"---\nname: r{BIDI}tl\ndescription: Use when {BIDI}testing backwards.\n---\nbody\n")
    codes, doc, _ = lint_case("RTL marks", tmp_path, "rtl")
    assert "SL104" in codes  # agentskills: name may only hold a-z, 0-9 and hyphens


_TERMINAL_HOSTILE = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_human_output_escapes_terminal_control_sequences(tmp_path, fmt):
    isolate(tmp_path)
    write_skill(tmp_path, "ctrl", f"---\nname: ct{CONTROL}rl\ndescription: Bell. Use when testing.\n---\nbody\n")
    write_skill(tmp_path, "rtl", f"---\nname: r{BIDI}tl\ndescription: Use when {BIDI}testing backwards.\n---\nbody\n")
    with deadline(HARD_DEADLINE):
        code, out, err = run_cli("check", "--output-format", fmt, "--color", "never", "ctrl", "rtl", cwd=tmp_path)
    assert code == 1, err
    hostile = sorted({f"U+{ord(c):04X}" for c in _TERMINAL_HOSTILE.findall(out)})
    assert not hostile, f"{fmt} output carries raw {hostile}"


def test_folder_name_with_spaces_and_unicode(tmp_path):
    isolate(tmp_path)
    folder = "my skill – ünïcödé ✓"
    write_skill(tmp_path, folder, "---\nname: my-skill\ndescription: Spaces. Use when testing odd folder names.\n---\nbody\n")
    codes, doc, _ = lint_case("folder with spaces + unicode", tmp_path, folder)
    assert "SL106" in codes
    assert any(d["path"] == f"{folder}/SKILL.md" for d in doc["diagnostics"])


# -- usage errors: exit 2, one line, no traceback ----------------------------------


def _plain_skill(base: Path) -> None:
    write_skill(base, "ok", "---\nname: ok\ndescription: Fine. Use when testing.\n---\nbody\n")


def test_config_invalid_toml(tmp_path):
    isolate(tmp_path)
    _plain_skill(tmp_path)
    (tmp_path / ".skilllint.toml").write_text('targets = ["claude-code"\nselect = [\n', encoding="utf-8")
    message = usage_error(["check", "ok"], tmp_path)
    assert ".skilllint.toml" in message and "TOML" in message


def test_explicit_config_invalid_toml(tmp_path):
    isolate(tmp_path)
    _plain_skill(tmp_path)
    (tmp_path / "custom.toml").write_text("this is = = not toml\n", encoding="utf-8")
    message = usage_error(["check", "--config", "custom.toml", "ok"], tmp_path)
    assert "custom.toml" in message and "TOML" in message


@pytest.mark.parametrize(
    "config",
    [
        '[rules.SL999]\nseverity = "error"\n',
        '[rules.no-such-rule]\nseverity = "error"\n',
        'select = ["SL999"]\n',
        'ignore = ["XYZ1"]\n',
        'targets = ["nosuch"]\n',
    ],
    ids=["rules-code", "rules-name", "select", "ignore", "targets"],
)
def test_config_names_unknown_rule_or_target(tmp_path, config):
    isolate(tmp_path)
    _plain_skill(tmp_path)
    (tmp_path / ".skilllint.toml").write_text(config, encoding="utf-8")
    message = usage_error(["check", "ok"], tmp_path)
    assert re.search(r"SL999|no-such-rule|XYZ1|nosuch", message), message


def test_target_nosuch(tmp_path):
    isolate(tmp_path)
    _plain_skill(tmp_path)
    message = usage_error(["check", "--target", "nosuch", "ok"], tmp_path)
    assert "nosuch" in message


def test_nonexistent_path(tmp_path):
    isolate(tmp_path)
    message = usage_error(["check", "does/not/exist"], tmp_path)
    assert "does/not/exist" in message


def test_path_is_a_fifo_argument(tmp_path):
    # A FIFO given on the command line is neither file nor folder: exit 2, no hang.
    isolate(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    message = usage_error(["check", "pipe"], tmp_path)
    assert "pipe" in message
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
