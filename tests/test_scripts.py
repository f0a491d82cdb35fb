"""Bundled scripts (SL701-SL703, skilllint/rules/scripts/sl70x_scripts.py and the script_* analysis modules).

Scripts are read as text only. The lexers blank comments and strings so that a
prompt or a runner named in a docstring, a help text or a heredoc is not taken
for a call; SL702 judges only files SKILL.md tells the agent to run as a command.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import LINEAR_AT_4X, LINEAR_CALLS_AT_4X, growth, lint_json, write_skill
from hypothesis import example, given
from hypothesis import strategies as st

from skilllint.skill.scripts import runner_pins, invocations as script_invocations
from skilllint.skill.scripts import lexers as S
from skilllint.skill.scripts.prompts import _functions, argument_fallback, shell_prompts

SKILL = """---
name: {name}
description: A test skill for script checks. Use when testing skilllint.
---

# {name}

{body}
"""


def make(base: Path, files: dict[str, str | bytes], body: str = "Nothing to run.", name: str = "demo", executable=()) -> Path:
    (base / ".git").mkdir(parents=True, exist_ok=True)
    skill = write_skill(base, name, SKILL.format(name=name, body=body))
    for rel, content in files.items():
        path = skill / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        mode = 0o755 if rel in executable else 0o644
        os.chmod(path, mode)
    return skill


def findings(skill: Path, select: str = "SL7") -> list[dict]:
    # --no-cache: make() lays a git repository, so a run could file its results, and whether it does
    # depends on the files' age (a slow machine ages them): a count of the work then counts a cache hit
    return lint_json("--no-cache", "--target", "agentskills", "--select", select, str(skill), cwd=skill.parent)["diagnostics"]


def where(found: list[dict]) -> list[tuple[str, int, int]]:
    return sorted((Path(d["path"]).name, d["line"], d["column"]) for d in found)


# -- lexers ------------------------------------------------------------------------------


def test_python_lexer_blanks_comments_and_strings_keeping_positions():
    text = 'x = input("a # b")  # input(\n"""doc input("""\ny = f\'{1}\'\n'
    masked = S.lex_python(text)
    assert len(masked.code) == len(text)
    assert masked.code.count("\n") == text.count("\n")
    assert "input(" in masked.code.split("\n")[0]
    assert "#" not in masked.code and "doc" not in masked.code
    assert [s[2] for s in masked.strings] == ["a # b", "doc input(", "{1}"]


def _python_lexer_by_character(text: str):
    """The Python lexer as it was, one character at a time: what the one that skips ahead must give."""
    chars = list(text)
    strings = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            chars[i:end] = [" " if ch != "\n" else ch for ch in text[i:end]]
            i = end
            continue
        if c in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            j = i + len(quote)
            closed = False
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    j += len(quote)
                    closed = True
                    break
                if len(quote) == 1 and text[j] == "\n":
                    break
                j += 1
            j = min(j, n)
            inner_end = j - len(quote) if closed else j
            strings.append((i, j, text[i + len(quote) : inner_end]))
            start = i + len(quote)
            chars[start:inner_end] = [" " if ch != "\n" else ch for ch in text[start:inner_end]]
            i = j
            continue
        i += 1
    return "".join(chars), strings


@given(st.lists(st.sampled_from(["'", '"', "'''", '"""', "#", "\\", "\n", "a", " ", "é", "f", "x = "]), max_size=40).map("".join))
@example('"""a\\"""b"""')
@example("'a\\\nb' # c")
@example("'''")
def test_python_lexer_skips_ahead_to_what_the_character_loop_found(text):
    masked = S.lex_python(text)
    assert (masked.code, masked.strings) == _python_lexer_by_character(text)


def test_python_lexer_positions_are_the_lines_of_its_code():
    masked = S.lex_python("a = 1\n# two\n\nb = 'x'\n")
    assert [masked.position(at) for at in (0, 4, 6, 12, 13, 18)] == [(1, 1), (1, 5), (2, 1), (3, 1), (4, 1), (4, 6)]


def test_shell_lexer_blanks_heredocs_and_quotes():
    text = "cat <<'EOF'\nread -p x y\nEOF\necho '$(read -p q)' # read -p z\nread -p \"ok\" v\n"
    code = S.lex_shell(text).code
    lines = code.split("\n")
    assert "read" not in lines[1] and lines[2] == "EOF"
    assert "read" not in lines[3]
    assert lines[4].startswith("read -p")


def test_js_lexer_handles_regex_and_templates():
    text = "const r = /['\"]/g; const t = `a ${b} 'c'`; prompt('x') // y\n"
    masked = S.lex_js(text)
    assert "prompt(" in masked.code
    assert "//" not in masked.code.split("prompt")[1]


# -- SL701 ------------------------------------------------------------------------------


def test_python_prompts(tmp_path):
    skill = make(tmp_path, {
        "scripts/ask.py": (
            '"""Call input() to ask."""\n'
            "import getpass\n"
            "name = input('Name: ')  # input(\n"
            "pw = getpass.getpass()\n"
            "value = obj.input(3)\n"
            "print('use input() here')\n"
        ),
    })
    found = findings(skill, "SL701")
    assert where(found) == [("ask.py", 3, 8), ("ask.py", 4, 6)]
    assert "`input()` waits for an answer on stdin" in found[0]["message"] or "`input()`" in found[1]["message"]
    assert all(d["severity"] == "warning" for d in found)


def test_python_guards(tmp_path):
    guarded = "import sys\nif sys.stdin.isatty():\n    x = input('?')\n"
    eof = "try:\n    x = input('?')\nexcept EOFError:\n    x = ''\n"
    own = "def input(prompt):\n    return ''\nx = input('?')\n"
    skill = make(tmp_path, {"scripts/a.py": guarded, "scripts/b.py": eof, "scripts/c.py": own})
    assert findings(skill, "SL701") == []


def test_python_libraries(tmp_path):
    skill = make(tmp_path, {"scripts/a.py": "import click\nif click.confirm('Go?'):\n    pass\nfrom rich.prompt import Prompt\nPrompt.ask('x')\n"})
    assert where(findings(skill, "SL701")) == [("a.py", 2, 4), ("a.py", 5, 1)]


def test_shell_prompts(tmp_path):
    script = (
        "#!/bin/bash\n"
        "echo -n 'Continue? [y/N] '\n"
        "read answer\n"
        "read -rp 'Name: ' name\n"
        "read -r line < /dev/tty\n"
        "while IFS= read -r line; do echo \"$line\"; done < list.txt\n"
        "read -r first <<< \"$text\"\n"
        "printf '%s\\n' a | read x\n"
        "read -t 5 -p 'auto in 5s' x\n"
        "read -n 1 -s -p 'Press a key' key\n"
        "echo 'log line' > out.txt\n"
        "read y\n"
        "select opt in a b; do break; done\n"
        "cat <<EOF\nread -p 'inside a heredoc' z\nEOF\n"
        "# read -p 'in a comment' q\n"
    )
    found = findings(make(tmp_path, {"scripts/run.sh": script}), "SL701")
    assert where(found) == [("run.sh", 3, 1), ("run.sh", 4, 1), ("run.sh", 5, 1), ("run.sh", 10, 1), ("run.sh", 13, 1)]


FALLBACK = (
    "#!/bin/bash\n"
    "set -e\n"
    "main() {\n"
    "  if [ -n \"$1\" ]; then\n"
    "    NAME=\"$1\"\n"
    "  else\n"
    "    read -rp 'Name: ' NAME\n"  # line 7: only when argument 1 is missing
    "  fi\n"
    "  if [ -n \"$2\" ]; then DOMAIN=\"$2\"; else read -rp 'Domain: ' DOMAIN; fi\n"  # line 9: argument 2
    "  read -rp 'Press Enter to go on' _\n"  # line 10: always
    "}\n"
    "main \"$@\"\n"
)
KIND = "#!/bin/bash\nKIND=${1:-\"\"}\nif [ -z \"$KIND\" ]; then\n  read -p 'Kind (1-3): ' choice\nfi\n"
COUNT = "#!/bin/bash\nif [ $# -lt 1 ]; then\n  read -p 'Target: ' target\nfi\n"
OWN_ARGS = "#!/bin/bash\nask() {\n  if [ -z \"$1\" ]; then read -p 'Value: ' v; fi\n}\nask \"$HOME\"\nask\n"


def test_a_prompt_that_stands_in_for_a_missing_argument_needs_a_run_without_it(tmp_path):
    """A `read` reached only when a positional argument is missing is never reached by a run that
    passes it: reported only when SKILL.md runs the script without that argument."""
    files = {"scripts/token.sh": FALLBACK, "scripts/kind.sh": KIND, "scripts/count.sh": COUNT}
    # SKILL.md shows the first argument of token.sh (usage notation is an argument too), none of the others'
    body = "| Script | Usage |\n|---|---|\n| `token.sh` | `./token.sh [name]` |\n\nRun `bash scripts/kind.sh react` or `scripts/count.sh web`."
    assert where(findings(make(tmp_path / "a", files, body=body), "SL701")) == [("token.sh", 9, 42), ("token.sh", 10, 3)]
    # Never run by SKILL.md: quiet when the script's usage shows the argument, the way in
    documented = {"scripts/kind.sh": KIND + "# Usage: ./kind.sh [kind]\n", "scripts/count.sh": COUNT}
    found = findings(make(tmp_path / "b", documented), "SL701")
    assert where(found) == [("count.sh", 3, 3)]
    assert "when argument 1 is missing, and neither SKILL.md nor the script's usage shows it" in found[0]["message"]
    # Run without the argument: the prompt is reached, and the message says by which line
    found = findings(make(tmp_path / "c", files, body="Run `bash scripts/kind.sh`, `./scripts/count.sh` and `./scripts/token.sh`."), "SL701")
    assert where(found) == [("count.sh", 3, 3), ("kind.sh", 4, 3), ("token.sh", 7, 5), ("token.sh", 9, 42), ("token.sh", 10, 3)]
    [kind] = [d["message"] for d in found if d["path"].endswith("kind.sh")]
    assert "when argument 1 is missing, and SKILL.md line 8 runs the script as `bash scripts/kind.sh`, without it" in kind


def test_a_functions_own_argument_is_not_the_scripts(tmp_path):
    """`$1` in a function called with arguments of its own (not `"$@"`) is the function's: its test says
    nothing about how the script is run."""
    found = findings(make(tmp_path, {"scripts/ask.sh": OWN_ARGS}, body="Run `./scripts/ask.sh x`."), "SL701")
    assert where(found) == [("ask.sh", 3, 24)]


@pytest.mark.parametrize(
    "shape",
    [
        lambda n: "X=$1\n" + 'if [ -z "$X" ]; then\n' * n + "read -p 'x' y\n" + "f() { :; }\n" * n,  # deep ifs, many functions
        lambda n: "g() {\n" * n + 'if [ -z "$1" ]; then read -p "x" y; fi\n' + 'g "$@"\n' * n,  # unclosed bodies, many calls
    ],
    ids=["guards", "functions"],
)
def test_argument_fallbacks_are_read_in_linear_time(shape):
    def read(text: str) -> None:
        _functions.cache_clear()  # each run reads the functions again
        script = S.Script("a.sh", "shell", text)
        for prompt in shell_prompts(script)[: S.MAX_FINDINGS_PER_FILE]:
            argument_fallback(script, prompt.offset)

    assert growth(read, shape(2_000), shape(8_000)) < LINEAR_AT_4X


def test_shell_tty_check_skips_the_file(tmp_path):
    script = "if [ -t 0 ]; then\n  read -p 'Name: ' name\nfi\n"
    assert findings(make(tmp_path, {"scripts/run.sh": script}), "SL701") == []


def test_js_prompts(tmp_path):
    files = {
        "scripts/ask.js": (
            "const readline = require('readline');\n"
            "const rl = readline.createInterface({ input: process.stdin, output: process.stdout });\n"
            "rl.question('Name? ', (a) => rl.close());\n"
        ),
        "scripts/lines.mjs": (
            "import readline from 'node:readline';\n"
            "const rl = readline.createInterface({ input: process.stdin });\n"
            "for await (const line of rl) console.log(line);\n"
        ),
        "scripts/sync.js": "const prompt = require('prompt-sync')();\nconst n = prompt('Name? ');\n",
        "scripts/inq.ts": "import { input, confirm } from '@inquirer/prompts';\nconst a = await input({ message: 'x' });\n",
        "assets/app.js": "const n = window.prompt('Name?');\n",
    }
    found = findings(make(tmp_path, files), "SL701")
    assert where(found) == [("ask.js", 2, 21), ("inq.ts", 2, 17), ("sync.js", 2, 11)]


def test_powershell_read_host(tmp_path):
    found = findings(make(tmp_path, {"scripts/setup.ps1": "# Read-Host in a comment\n$name = Read-Host 'Name'\n"}), "SL701")
    assert where(found) == [("setup.ps1", 2, 9)]


def test_extensionless_script_with_a_shebang(tmp_path):
    files = {"bin/ask": "#!/usr/bin/env python3\nx = input('?')\n", "bin/notes": "input( is just text here\n"}
    assert where(findings(make(tmp_path, files), "SL701")) == [("ask", 2, 5)]


def test_a_bypass_flag_that_skill_md_passes(tmp_path):
    script = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--yes')\nif not p.parse_args().yes:\n    input('Sure? ')\n"
    found = findings(make(tmp_path / "a", {"scripts/go.py": script}), "SL701")
    assert len(found) == 1 and "knows `--yes`, but SKILL.md never passes it" in found[0]["message"]
    skill = make(tmp_path / "b", {"scripts/go.py": script}, body="Run `python3 scripts/go.py --yes`.")
    assert findings(skill, "SL701") == []


TAG = (
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('folder')\n"
    "parser.add_argument('--interactive', '-i', action='store_true')\n"
    "args = parser.parse_args()\n"
    "if args.interactive:\n"
    "    tag = input('Tag: ')\n"
)


def test_a_prompt_only_in_an_opt_in_mode_skill_md_does_not_run_is_not_reported(tmp_path):
    argv = "import sys\nif '--add' in sys.argv:\n    name = input('Name: ')\n"
    usage = "import sys\nif len(sys.argv) < 2:\n    path = input('File: ')\nelse:\n    path = sys.argv[1]\n"
    early = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--no-interactive', action='store_true')\n"
        "p.add_argument('--yes', action=argparse.BooleanOptionalAction, default=False)\n"
        "def confirm(args):\n    if args.no_interactive or args.yes:\n        return True\n    return input('Go? ') == 'y'\n"
        "confirm(p.parse_args())\n"
    )
    body = "```bash\npython3 scripts/tag.py photos/\npython scripts/argv.py list\npython scripts/usage.py data.csv\n" \
           "python scripts/early.py --no-interactive\npython scripts/early.py --yes\n```\n"
    files = {"scripts/tag.py": TAG, "scripts/argv.py": argv, "scripts/usage.py": usage, "scripts/early.py": early}
    assert findings(make(tmp_path / "a", files, body=body), "SL701") == []
    # The same scripts run with no arguments (SKILL.md never says how): `usage.py` and `early.py` ask.
    assert where(findings(make(tmp_path / "b", files), "SL701")) == [("early.py", 8, 12), ("usage.py", 3, 12)]


def test_a_function_called_only_under_a_flag_is_judged_at_its_call_sites(tmp_path):
    script = (
        "import argparse, sys\n"
        "def add_entry(book):\n"
        "    book.append(input('Name: '))\n"
        "def ask_all(interactive):\n"
        "    if interactive:\n"
        "        add_entry([])\n"
        "def main():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('command', choices=['list', 'add'])\n"
        "    parser.add_argument('--quiet', action='store_true')\n"
        "    args = parser.parse_args()\n"
        "    if args.command == 'add':\n"
        "        add_entry([])\n"
        "    ask_all(interactive=not args.quiet)\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    quiet = make(tmp_path / "a", {"scripts/book.py": script}, body="Run `python3 scripts/book.py list --quiet`.")
    assert findings(quiet, "SL701") == []
    # Without --quiet, ask_all() passes interactive=True: the prompt is reached through it.
    loud = make(tmp_path / "b", {"scripts/book.py": script}, body="Run `python3 scripts/book.py list`.")
    assert where(findings(loud, "SL701")) == [("book.py", 3, 17)]


def test_click_options_and_early_exits(tmp_path):
    script = (
        "import click, sys\n"
        "@click.command()\n"
        "@click.option('--interactive/--batch', default=False)\n"
        "def main(interactive):\n"
        "    if not interactive:\n"
        "        sys.exit(0)\n"
        "    click.confirm('Go?')\n"
    )
    assert findings(make(tmp_path / "a", {"scripts/go.py": script}), "SL701") == []
    found = findings(make(tmp_path / "b", {"scripts/go.py": script}, body="Run `python scripts/go.py --interactive`."), "SL701")
    assert where(found) == [("go.py", 7, 5)]


def test_skill_md_running_the_opt_in_mode_is_reported_with_its_command(tmp_path):
    body = "Tag the photos:\n\n```bash\npython3 scripts/tag.py photos/\n$ python3 scripts/tag.py \\\n    --interactive photos/\n```\n"
    found = findings(make(tmp_path, {"scripts/tag.py": TAG}, body=body), "SL701")
    assert where(found) == [("tag.py", 7, 11)]
    assert "SKILL.md line 12 runs the script as `python3 scripts/tag.py --interactive photos/`, which gets there" in found[0]["message"]
    assert "non-interactive shells" in found[0]["message"]


@pytest.mark.parametrize("command", [
    "`uv run scripts/tag.py -i photos/`",
    "`uv run --with pillow python scripts/tag.py -i photos/`",
    "`python -m scripts.tag photos/ --interactive`",
    "`cd scripts && python3 tag.py -i photos/`",
    "`FOO=1 ./scripts/tag.py --interactive x`",
    "`${CLAUDE_SKILL_DIR}/scripts/tag.py --interactive x | tee log`",
])
def test_the_ways_skill_md_runs_a_python_script(tmp_path, command):
    skill = make(tmp_path, {"scripts/tag.py": "#!/usr/bin/env python3\n" + TAG}, body=f"Run {command}.")
    found = findings(skill, "SL701")
    assert where(found) == [("tag.py", 8, 11)], command
    assert "runs the script as" in found[0]["message"]


def test_usage_brackets_are_not_a_run(tmp_path):
    skill = make(tmp_path, {"scripts/tag.py": TAG}, body="Usage: `python3 scripts/tag.py <folder> [--interactive]`")
    assert findings(skill, "SL701") == []


def test_isatty_and_eof_handlers_guard_only_their_own_prompt(tmp_path):
    script = (
        "import sys\n"
        "if sys.stdin.isatty():\n"
        "    a = input('a')\n"
        "try:\n"
        "    b = input('b')\n"
        "except (EOFError, KeyboardInterrupt):\n"
        "    b = ''\n"
        "try:\n"
        "    import click\n"
        "    c = click.prompt('c')\n"
        "except EOFError:\n"
        "    c = ''\n"
        "d = input('d')\n"
    )
    # click.prompt raises Abort, not EOFError, at end of input: its handler does not cope.
    assert where(findings(make(tmp_path, {"scripts/ask.py": script}), "SL701")) == [("ask.py", 10, 9), ("ask.py", 13, 5)]


def test_prompts_are_found_through_the_imports(tmp_path):
    script = (
        "from getpass import getpass as ask_password\n"
        "from rich.prompt import Confirm as Yes\n"
        "import questionary as q\n"
        "class Prompt:\n"
        "    @staticmethod\n"
        "    def ask(text):\n"
        "        return text\n"
        "ask_password()\n"
        "Yes.ask('Go?')\n"
        "q.select('Pick', choices=['a'])\n"
        "Prompt.ask('not rich')\n"
        "io.input('not the builtin')\n"
    )
    found = findings(make(tmp_path, {"scripts/ask.py": script}), "SL701")
    assert where(found) == [("ask.py", 8, 1), ("ask.py", 9, 1), ("ask.py", 10, 1)]
    assert "`ask_password()` asks for a password" in found[0]["message"]


def test_python_2_is_read_as_text(tmp_path):
    script = "print 'Name?'\nname = raw_input()  # raw_input( in a comment\n"
    assert where(findings(make(tmp_path, {"scripts/old.py": script}), "SL701")) == [("old.py", 2, 8)]


def test_vendored_and_nested_scripts_are_left_alone(tmp_path):
    files = {
        "venv/lib/site-packages/pkg/x.py": "input('?')\n",
        "nested/SKILL.md": SKILL.format(name="nested", body="x"),
        "nested/scripts/x.py": "input('?')\n",
        "scripts/empty.py": "",
        "scripts/blob.py": b"\x00\x01input('?')",
    }
    # The nested skill is linted on its own: its script is reported once, for it.
    assert where(findings(make(tmp_path, files), "SL701")) == [("x.py", 1, 1)]


# -- SL702 ------------------------------------------------------------------------------

RUN_BODY = """Run the report:

```bash
scripts/report.sh --since yesterday
python3 scripts/fetch.py
```

Then run `scripts/fetch.py --all`, or see `scripts/notes.py` for details.
"""


def test_a_script_run_as_a_command_needs_a_run_bit_and_a_shebang(tmp_path):
    files = {"scripts/report.sh": "echo report\n", "scripts/fetch.py": "print('x')\n", "scripts/notes.py": "print(1)\n"}
    found = findings(make(tmp_path, files, body=RUN_BODY), "SL702")
    assert where(found) == [("fetch.py", 1, 1), ("report.sh", 1, 1)]
    report = next(d for d in found if d["path"].endswith("report.sh"))
    assert "SKILL.md (line 11) runs `scripts/report.sh`" in report["message"]
    assert "no run bit" in report["message"] and "no `#!` line" in report["message"]
    assert report["severity"] == "info"
    assert report["related"][0]["line"] == 11
    fetch = next(d for d in found if d["path"].endswith("fetch.py"))
    assert "runs the Python code as shell commands" in fetch["message"]


def test_a_runnable_script_gives_nothing(tmp_path):
    files = {"scripts/report.sh": "#!/usr/bin/env bash\necho report\n", "scripts/fetch.py": "#!/usr/bin/env python3\n"}
    skill = make(tmp_path, files, body=RUN_BODY, executable=("scripts/report.sh", "scripts/fetch.py"))
    assert findings(skill, "SL702") == []


def test_an_interpreter_before_the_path_needs_nothing(tmp_path):
    body = "```bash\nbash scripts/report.sh\nuv run scripts/fetch.py\n```\n"
    files = {"scripts/report.sh": "echo\n", "scripts/fetch.py": "print()\n"}
    assert findings(make(tmp_path, files, body=body), "SL702") == []


def test_a_direct_call_beside_a_run_through_the_interpreter_is_an_alternative(tmp_path):
    """SKILL.md's block runs the script with `bash`, which needs no run bit; "`./scripts/pr.sh
    notes.md` also works" beside it is the same run written another way, one the agent need not
    take. A script only ever called directly still needs the bit (and a direct call with other
    arguments is a run of its own: RUN_BODY's `scripts/fetch.py --all`)."""
    body = (
        "```bash\nbash scripts/pr.sh notes.md\n```\n\n(It has the run bit, so `./scripts/pr.sh notes.md` also works.)\n\n"
        "Then run `./scripts/other.sh notes.md`.\n"
    )
    files = {"scripts/pr.sh": "echo\n", "scripts/other.sh": "echo\n"}
    assert where(findings(make(tmp_path, files, body=body), "SL702")) == [("other.sh", 1, 1)]


def test_crlf_and_bom_shebangs(tmp_path):
    body = "```sh\n./scripts/a.sh\n{baseDir}/scripts/b.sh\n```\n"
    files = {"scripts/a.sh": b"#!/bin/bash\r\necho a\r\n", "scripts/b.sh": b"\xef\xbb\xbf#!/bin/sh\necho b\n"}
    found = findings(make(tmp_path, files, body=body, executable=tuple(files)), "SL702")
    messages = {Path(d["path"]).name: d["message"] for d in found}
    assert "carriage return" in messages["a.sh"] and "`/bin/bash\\r`" in messages["a.sh"]
    assert "byte-order mark" in messages["b.sh"]


def test_console_transcripts_and_other_fences(tmp_path):
    body = (
        "```console\n$ scripts/a.sh\nscripts/b.sh is printed output\n```\n\n"
        "```\nscripts/c.sh\n```\n\n"
        "```text\nscripts/c.sh\n```\n"
    )
    files = {"scripts/a.sh": "echo\n", "scripts/b.sh": "echo\n", "scripts/c.sh": "echo\n"}
    assert where(findings(make(tmp_path, files, body=body), "SL702")) == [("a.sh", 1, 1)]


def test_empty_placeholders_are_not_judged(tmp_path):
    assert findings(make(tmp_path, {"scripts/report.sh": ""}, body=RUN_BODY), "SL702") == []


def test_skill_root_variables_and_install_paths(tmp_path):
    body = "```bash\n${CLAUDE_SKILL_DIR}/scripts/a.sh\n~/.codex/skills/demo/scripts/b.sh x\n/usr/bin/env true\n```\n"
    files = {"scripts/a.sh": "echo\n", "scripts/b.sh": "echo\n"}
    assert where(findings(make(tmp_path, files, body=body), "SL702")) == [("a.sh", 1, 1), ("b.sh", 1, 1)]


# -- SL703 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, expected",
    [
        ("npx create-app", ("npx", "create-app", None)),
        ("npx -y prettier --write .", ("npx", "prettier", None)),
        ("npx @scope/tool run", ("npx", "@scope/tool", None)),
        ("npx prettier@latest .", ("npx", "prettier", "latest")),
        ("npx prettier@3.3.3 .", None),
        ("npx @scope/tool@1.2.0", None),
        ("npx -p typescript@5.4 tsc", None),
        ("npx -p typescript tsc", ("npx", "typescript", None)),
        ("npx ./local-bin", None),
        ("npx $TOOL", None),
        ("npx github:user/repo", None),
        ("uvx ruff check .", ("uvx", "ruff", None)),
        ("uvx ruff@0.6.9 check", None),
        ("uvx ruff@latest check", ("uvx", "ruff", "latest")),
        ("uvx --from 'ruff==0.6.9' ruff", None),
        ("uvx --from ruff ruff", ("uvx", "ruff", None)),
        ("uvx --python 3.12 black .", ("uvx", "black", None)),
        ("uvx 'black[jupyter]>=24' .", None),
        ("uv tool run mypy", ("uv tool run", "mypy", None)),
        ("pipx run black .", ("pipx run", "black", None)),
        ("pipx run --spec black==24.8.0 black", None),
        ("pnpm dlx create-vite", ("pnpm dlx", "create-vite", None)),
        ("npm exec -- cowsay hi", ("npm exec", "cowsay", None)),
        ("bunx cowsay@1.6.0", None),
        ("npm install foo", None),
        ("npx jest --watch", None),
        ("npx --yes jest", ("npx", "jest", None)),
        ("pnpm dlx turbo run build", ("pnpm dlx", "turbo", None)),
        ("uv run script.py", None),
        ("npx --no-install othertool", None),
        ("npm exec --no -- othertool", None),
    ],
)
def test_judge_runner(argv, expected):
    import shlex

    verdict = runner_pins.judge_runner(shlex.split(argv))
    if expected is None:
        assert verdict is None
    else:
        assert verdict is not None and (verdict.runner, verdict.name, verdict.tag) == expected


SKILL_MD_RUNNERS = """Start with `npx -y create-thing --flag`, then `npx prettier@3.3.3 .`.

```bash
uvx ruff check . && \\
  pipx run black .
cat <<EOT
npx in-a-heredoc
EOT
echo "npx in-a-string"   # npx in-a-comment
```

```console
$ bunx cowsay hi
npx output-of-the-last-command
```

```text
npx not-a-shell-block
```

The `npx` launcher, `uvx create-thing` and `uvx ruff check .` again.

```sh
npm install -D @azure/static-web-apps-cli
npx swa start
npx --yes degit user/repo
npx @scope/tool
npx --no-install othertool
```
"""


def test_runners_in_skill_md_commands(tmp_path):
    found = findings(make(tmp_path, {}, body=SKILL_MD_RUNNERS), "SL703")
    assert where(found) == [
        ("SKILL.md", 8, 13),  # npx -y create-thing (a code span that starts with a command)
        ("SKILL.md", 11, 1), ("SKILL.md", 12, 3),  # uvx ruff, pipx run black (a continued line)
        ("SKILL.md", 20, 3),  # bunx cowsay after the console prompt; not its output
        ("SKILL.md", 28, 22),  # uvx create-thing; not `uvx ruff`, which the block above gives
        ("SKILL.md", 33, 1),  # --yes: a download is expected, though a package is installed
        ("SKILL.md", 34, 1),  # npx @scope/tool: a package, not a command of the one installed
    ]
    first = found[0]["message"]
    assert first.startswith("`npx create-thing` names no version of `create-thing`: each time the agent runs this command")


def test_skill_md_npx_of_an_installed_package_is_the_installed_copy(tmp_path):
    body = "```bash\nnpx tool-a\nnpm install -D tool-a\nnpx tool-a --check\nnpx -y tool-a\nnpx tool-b\n```\n"
    found = findings(make(tmp_path, {}, body=body), "SL703")
    # before the install: fetched; after it: the installed copy (--yes or not); another package: fetched
    assert [(d["line"], d["message"].split("`")[1]) for d in found] == [(9, "npx tool-a"), (13, "npx tool-b")]


def test_npx_of_a_dependency_the_projects_package_json_declares_runs_the_projects_copy(tmp_path):
    pkg = '```json\n{\n  "devDependencies": {\n    "wrangler": "^4.81.0",\n    "@prisma/cli": "^5.0.0"\n  }\n}\n```\n\n'
    body = pkg + "```bash\nbunx wrangler dev\nnpx cli generate\nnpx other-tool\n```\n"
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [d["message"].split("`")[1] for d in found] == ["npx other-tool"]
    script = "#!/bin/sh\ncat > package.json <<'EOF'\n{\"devDependencies\": {\"wrangler\": \"^4.81.0\"}}\nEOF\nbun install\nbunx wrangler deploy\nnpx other-tool\n"
    found = findings(make(tmp_path / "s", {"scripts/setup.sh": script}, body="Run `scripts/setup.sh` when setting up.\n"), "SL703")
    assert [d["message"].split("`")[1] for d in found] == ["npx other-tool"]


def test_a_shell_block_in_a_markdown_template_is_the_documents_content(tmp_path):
    # The README a generator writes nests its own ```bash block in a ```markdown block: the bare
    # fence after `npx tool-a` closes the nested block, and the template goes on to its own close.
    body = (
        "### README.md\n\n```markdown\n# Project\n\n```bash\nnpx tool-a\n```\n\nMore of the README.\n\n"
        "```bash\nnpx tool-b serve\n```\n```\n\n"
        "````markdown\n```bash\nnpx tool-c\n```\n````\n\n"  # four backticks: CommonMark alone does it
        "Then run:\n\n```bash\nnpx tool-d\n```\n"
    )
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [d["message"].split("`")[1] for d in found] == ["npx tool-d"]
    assert where(found) == [("SKILL.md", 33, 1)]


def test_code_spans_offered_as_examples_or_as_a_keys_value_are_not_commands(tmp_path):
    body = (
        "- `runner` (optional): a command prefix (for example `uv run`, `pipx run ruff`).\n"
        "- Else use any equivalent that invokes it (e.g. `npx tool-a`), or stop and ask the user.\n"
        "- A launcher such as `uvx tool-b`.\n"
        "- **Cross-platform install:** `npx skills add someone/some-skill`\n"
        "\n"
        "- **Run:** `npx tool-c --check`\n"
        "- Run diagnostics: `npx tool-d`\n"
        "- Test with the inspector: `npx tool-e`\n"
    )
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [d["message"].split("`")[1] for d in found] == ["npx tool-c", "npx tool-d", "npx tool-e"]


def test_a_code_span_describing_a_bundled_scripts_command_is_reported_at_the_script(tmp_path):
    files = {"scripts/make-app.sh": "#!/bin/sh\nbunx create-thing -t default \"$1\"\n"}
    body = (
        "The script creates the app with `bunx create-thing -t default@1` once per version.\n\n"
        "Set up the other one with `bunx create-other`.\n"
    )
    found = findings(make(tmp_path, files, body=body), "SL703")
    assert sorted((Path(d["path"]).name, d["message"].split("`")[1]) for d in found) == [
        ("SKILL.md", "bunx create-other"), ("make-app.sh", "bunx create-thing"),
    ]


def test_a_code_span_naming_a_command_again_is_reported_once(tmp_path):
    body = (
        "- This skill drives the device with `npx device-tool@latest`, run on demand.\n"
        "- The verbs come from the controller (`npx device-tool@latest`).\n"
        "- Record with `npx recorder`.\n"
    )
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [(d["line"], d["message"].split("`")[1]) for d in found] == [(8, "npx device-tool@latest"), (10, "npx recorder")]


@pytest.mark.parametrize(
    "argv, expected",
    [
        ("npx mytool", None),  # the installed copy runs
        ("npx -y mytool", None),
        ("npx othertool", ("npx", "othertool", None)),
        ("pnpm dlx mytool", ("pnpm dlx", "mytool", None)),  # dlx downloads all the same
        ("npx swa start", None),  # the command of @azure/static-web-apps-cli: its initials
        ("npx lint init --yes", None),  # @acme/lint-cli's command; --yes is its own option
        ("npx acme start", ("npx", "acme", None)),  # a scope names no command
        ("npx mcp-remote http://x", ("npx", "mcp-remote", None)),
        ("npx z", ("npx", "z", None)),  # one word has no initials
    ],
)
def test_judge_runner_of_an_installed_package(argv, expected):
    installed = frozenset().union(*map(runner_pins.installed_names, ["mytool", "@azure/static-web-apps-cli", "@acme/lint-cli", "zod"]))
    verdict = runner_pins.judge_runner(argv.split(), installed)
    assert (verdict and (verdict.runner, verdict.name, verdict.tag)) == expected


def test_runners_in_scripts(tmp_path):
    files = {
        "scripts/build.sh": (
            "#!/bin/sh\n"
            "npx -y create-thing --flag\n"
            "echo \"then run npx something\"   # npx in a comment\n"
            "VERSION=1 uvx ruff check && pipx run black .\n"
            "npx prettier@3.3.3 --check .\n"
        ),
        "scripts/fmt.py": (
            "import subprocess\n"
            "subprocess.run(['npx', '-y', 'prettier', '--write', '.'])\n"
            "subprocess.run('uvx black@latest .', shell=True)\n"
            "print('Install with: npx prettier')\n"
            "USAGE = 'npx prettier --write'\n"
        ),
        "scripts/gen.js": (
            "const { execSync } = require('child_process');\n"
            "execSync(`npx create-vite ${name}`);\n"
            "execSync('npx eslint .');\n"  # the project's own eslint: not judged
            "execSync('npx @redocly/cli lint');\n"
            "throw new Error(`npx canceled due to missing packages`);\n"
        ),
    }
    found = findings(make(tmp_path, files), "SL703")
    assert where(found) == [
        ("build.sh", 2, 1), ("build.sh", 4, 11), ("build.sh", 4, 29),
        ("fmt.py", 2, 18), ("fmt.py", 3, 17),
        ("gen.js", 2, 11), ("gen.js", 4, 11),
    ]
    assert all(d["severity"] == "info" for d in found)
    latest = next(d for d in found if "black@latest" in d["message"])
    assert "asks for the `latest` release of `black` explicitly" in latest["message"]


def test_a_script_runs_the_copy_it_installs_or_makes_sure_of(tmp_path):
    script = (
        "#!/bin/sh\n"
        "npx tool-a init\n"  # 2: not installed yet: fetched
        "npm install --save-dev tool-a\n"
        "npx tool-a build\n"  # the installed copy
        "command -v tool-b >/dev/null && npx tool-b run\n"  # found on the PATH
        "npx tool-b again\n"  # 6: no test covers this one
        "if command -v tool-c >/dev/null 2>&1; then\n  npx tool-c x\nelse\n  npx tool-d y\nfi\n"  # 10: tool-d is not tested
        "if ! command -v tool-e; then\n  echo missing\nelse\n  npx tool-e z\nfi\n"
        "if ! npx cmd-f --version >/dev/null; then\n  npm install -D package-providing-f\nfi\n"  # the test, answered by an install
        "npx cmd-f build\n"  # the command the install provides, whatever the package is called
        "command -v tool-g || exit 1\n"
        "npx tool-g go\n"
        "if ! grep -q '@acme/widget' package.json; then\n  echo 'add @acme/widget'\n  exit 1\nfi\n"
        "npx acme-widget build\n"  # the command of the @acme/widget the project declares
        "command -v tool-h && pnpm dlx tool-h\n"  # 28: dlx downloads whatever is on the PATH
        "command -v tool-i && uvx tool-i\n"  # 29: so does uvx
        "command -v tool-j && npx tool-j@latest\n"  # 30: asks the registry for its latest
    )
    found = findings(make(tmp_path, {"scripts/setup.sh": script}), "SL703")
    assert [(d["line"], d["message"].split("`")[1]) for d in found] == [
        (2, "npx tool-a"), (6, "npx tool-b"), (10, "npx tool-d"),
        (28, "pnpm dlx tool-h"), (29, "uvx tool-i"), (30, "npx tool-j@latest"),
    ]


def test_a_skill_md_block_that_tests_for_the_command_runs_the_one_found(tmp_path):
    body = "```bash\nif command -v tool-a >/dev/null; then\n  npx tool-a check\nfi\nnpx tool-a again\n```\n"
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [(d["line"], d["message"].split("`")[1]) for d in found] == [(12, "npx tool-a")]


def test_a_line_that_installs_this_skill_is_for_the_person_installing_it(tmp_path):
    body = "## Setup\n\n```bash\nnpx skills add someone/repo/skills/demo\nnpx skills add someone/another-skill\n```\n"
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [(d["line"], d["message"].split("`")[1]) for d in found] == [(12, "npx skills")]
    verdict = runner_pins.judge_runner(["npx", "skills", "add", "Owner/Repo"])
    origins = ({"owner/repo"}, {"social"})
    assert runner_pins.installs_this_skill(("npx", "skills", "add", "Owner/Repo"), verdict, origins)
    assert runner_pins.installs_this_skill(("npx", "skills", "add", "https://github.com/owner/repo.git"), verdict, origins)
    assert not runner_pins.installs_this_skill(("npx", "skills", "add", "owner/other"), verdict, origins)
    assert not runner_pins.installs_this_skill(("npx", "social", "post"), runner_pins.judge_runner(["npx", "social", "post"]), origins)


def test_code_spans_that_name_a_tool_or_text_to_write_are_not_commands(tmp_path):
    body = (
        "Scaffolding tools like `bunx create-thing` download and execute remote code.\n\n"
        "3. **Manual deploy steps** that aren't in CI: `npx tool-a post`, `pnpm deploy`, `kubectl apply`, etc.\n\n"
        "## Testing guidance for the README\n\n"
        "- Provide the inspector command: `npx tool-b`\n"
        "- Explain how to start the server (`npx tool-c serve`)\n"
        "- Run it like `npx tool-d` does.\n"
        "- Run the linter: `npx tool-e`, then `npx tool-f`.\n"
    )
    found = findings(make(tmp_path, {}, body=body), "SL703")
    assert [d["message"].split("`")[1] for d in found] == ["npx tool-d", "npx tool-e", "npx tool-f"]


def test_a_package_json_the_skill_ships_is_the_projects_once_set_up(tmp_path):
    files = {"templates/package.json": '{"devDependencies": {"tool-a": "^4.0.0", "tool-b": "^1.0.0"}}\n'}
    body = "```bash\nbunx tool-a deploy\nnpx tool-b migrate\nnpm install tool-b\nnpx tool-c\n```\n"
    found = findings(make(tmp_path, files, body=body), "SL703")
    # tool-b enters the project at the step SKILL.md installs it: before that it is fetched
    assert [d["message"].split("`")[1] for d in found] == ["npx tool-b", "npx tool-c"]


# -- robustness -------------------------------------------------------------------------


def test_a_script_link_out_of_the_skill_is_not_read(tmp_path):
    outside = tmp_path / "evil.py"
    outside.write_text("input('?')\n")
    skill = make(tmp_path / "repo", {})
    (skill / "scripts").mkdir()
    os.symlink(outside, skill / "scripts" / "evil.py")
    assert findings(skill) == []


def test_huge_and_odd_files_do_not_break_the_run(tmp_path):
    files = {
        "scripts/big.sh": "echo x\n" * 100_000,  # over the scan cap: skipped
        "scripts/weird.sh": "'unterminated \"quote\n$(( 1 + \n<<EOF\nread -p x\n",
        "scripts/weird.js": "/* unterminated comment\nprompt('x')",
        "scripts/weird.py": "'''never closed\ninput('x')\n",
    }
    assert findings(make(tmp_path, files), "SL7") == []


def test_the_inventory_records_the_run_bit(tmp_path):
    skill = make(tmp_path, {"scripts/x.sh": "#!/bin/sh\n"}, executable=("scripts/x.sh",))
    from skilllint.skill.package import SkillPackage

    entry = SkillPackage(skill).inventory.entries["scripts/x.sh"]
    assert entry.mode & stat.S_IXUSR


def test_corpus_detects_commands_but_reports_no_placeholder(corpus):
    """Four of the corpus's repositories keep scripts as empty placeholders: SKILL.md's commands
    are found but nothing is reported about an empty file. (The six later ones keep script text,
    which the script rules do judge; the copy kept no run bits, so SL702 is left out here.)"""
    from skilllint.skill.package import SkillPackage

    skill = corpus / "obra__superpowers" / "skills" / "subagent-driven-development"
    calls = script_invocations.invocations(SkillPackage(skill))
    assert {c.rel for c in calls} == {"scripts/sdd-workspace", "scripts/task-brief", "scripts/review-package"}
    result = lint_json("--target", "all", "--select", "SL7", "--ignore", "SL702", str(corpus), cwd=corpus)
    reported = {Path(d["path"]) for d in result["diagnostics"]}
    assert reported, "the scripts with text should give the script rules something to judge"
    empty = [p for p in reported if (corpus / p if not p.is_absolute() else p).stat().st_size == 0]
    assert empty == []


def test_a_code_span_holding_a_backtick_is_read_as_one_span(tmp_path):
    """A run of two backticks opens a span that a single backtick inside does not close
    (markdown.CODE_SPAN, the one reading of a code span)."""
    from skilllint.skill.package import SkillPackage

    skill = make(tmp_path, {"scripts/split.sh": "#!/bin/sh\n"}, body="Run `` scripts/split.sh --sep '`' `` on each file.", executable=("scripts/split.sh",))
    calls = script_invocations.invocations(SkillPackage(skill))
    assert [(c.rel, c.line) for c in calls] == [("scripts/split.sh", 8)]


def test_a_line_of_thousands_of_code_spans_is_read_in_linear_time(tmp_path):
    from skilllint.skill.package import SkillPackage

    def package(spans: int) -> SkillPackage:
        skill = make(tmp_path / str(spans), {"scripts/x.sh": "#!/bin/sh\necho hi\n"})
        (skill / "SKILL.md").write_text(
            (skill / "SKILL.md").read_text(encoding="utf-8") + "\n" + "`a/b.md` " * spans + "\n", encoding="utf-8"
        )
        return SkillPackage(skill)

    # The look-back before each span was the whole line (~60 s): two sizes compared in one run, by CPU
    # time (the look-back is a str search, in C). The package is made again for each run (it caches).
    small, large = package(3_000).root, package(12_000).root
    assert growth(lambda root: script_invocations.invocations(SkillPackage(root)), small, large) < LINEAR_AT_4X


@pytest.mark.slow
def test_skill_md_commands_are_judged_in_linear_time(tmp_path):
    # Many installs and many npx commands: each npx is one set lookup, not a walk over what is installed.
    def skill(count: int) -> Path:
        installs = " ".join(f"pkg-{i}-cli" for i in range(count))
        runs = "\n".join(f"npx tool{i}" for i in range(count))
        spans = " ".join(f"`npx span{i}`" for i in range(count))
        body = f"```bash\nnpm install {installs}\n{runs}\n```\n\n{spans}\n"
        return make(tmp_path / str(count), {}, body=body)

    small, large = skill(5_000), skill(20_000)
    assert len(findings(large, "SL703")) == S.MAX_FINDINGS_PER_FILE
    # linear: four times the commands, about four times the calls (a walk over what is installed for
    # each npx: sixteen)
    assert growth(lambda folder: findings(folder, "SL703"), small, large, measure="calls") < LINEAR_CALLS_AT_4X
