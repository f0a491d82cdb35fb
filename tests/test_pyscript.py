"""skilllint/skill/scripts/python/prompt_reach.py: the prompts of a Python script and whether a command line gets to them.

The model is asked directly here (``analyse(text).reaches(i, args)``); the rule's use of it,
with the commands found in SKILL.md, is pinned in test_scripts.py. The last tests are hostile
scripts: work per script is bounded (conditions kept per node, one step budget per script), so
a script built to multiply call chains or conditions stays linear.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, deadline, growth
from test_scripts import findings, make, where

from skilllint.skill.scripts.python import prompt_reach as pyscript

# Function calls at four times the size: linear work about 4, quadratic 16.
LINEAR_CALLS_AT_4X = 6.0


def reached(text: str, *args: str) -> list[int]:
    """Lines of the prompts a run with ``args`` gets to."""
    model = pyscript.analyse(text)
    assert model is not None
    return [prompt.line for index, (prompt, _) in enumerate(model.prompt_sites) if model.reaches(index, tuple(args))]


MODES = """\
import argparse, os, sys
from getpass import getpass

def add_entry():
    return input("Name: ")

def loop():
    while True:
        input("> ")

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--add", action="store_true")
    parser.add_argument("--interactive", "-i", action="store_true")
    parser.add_argument("--mode", choices=["batch", "ask"], default="batch")
    parser.add_argument("file", nargs="?")
    args = parser.parse_args()
    if args.add:
        add_entry()
    if args.interactive:
        loop()
    if not args.file:
        input("File? ")
    if os.isatty(0):
        input("tty")
    if "--pw" in sys.argv:
        getpass()
    if len(sys.argv) < 2:
        input("usage")
    if args.mode == "ask":
        input("mode")

if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("args, lines", [
    ((), [23, 29]),
    (("--add",), [5, 23]),
    (("-i", "data.csv"), [9]),
    (("data.csv",), []),
    (("<file>", "--pw"), [27]),
    (("x", "--mode", "ask"), [31]),
    (("x", "--mode=ask"), [31]),
    (("x", "--mode", "batch"), []),
])
def test_conditions_are_judged_for_each_command_line(args, lines):
    assert reached(MODES, *args) == lines


def test_an_option_given_a_value_is_not_none():
    text = (
        "import argparse, logging\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--name')\n"
        "args = p.parse_args()\n"
        "if args.name is None:\n"
        "    args.name = input('Name: ')\n"
        "if args.name is not None:\n"
        "    logging.error('no exit here')\n"
        "input('after a log line')\n"
    )
    assert reached(text) == [6, 9] and reached(text, "--name", "<name>") == [9]


def test_unknown_conditions_count_as_met():
    text = "import os\nif os.path.exists('state.json') and config['ask']:\n    input('?')\n"
    assert reached(text) == [3]


def test_names_and_parameters_carry_their_values():
    text = (
        "import sys\n"
        "INTERACTIVE = '--interactive' in sys.argv\n"
        "def ask(prompt, interactive=INTERACTIVE):\n"
        "    if interactive:\n"
        "        return input(prompt)\n"
        "    return ''\n"
        "ask('a')\n"
        "ask('b', interactive=True)\n"
    )
    model = pyscript.analyse(text)
    assert [model.reaches(0, ()), model.reaches(0, ("--interactive",))] == [True, True]
    # Only through the second call (interactive=True) with no flag; drop it and nothing asks.
    assert reached(text.replace("ask('b', interactive=True)\n", "")) == []
    assert reached(text.replace("ask('b', interactive=True)\n", ""), "--interactive") == [5]


def test_a_function_passed_on_or_decorated_may_run_with_any_arguments():
    callback = "def ask(flag):\n    if flag:\n        input('?')\nregister(ask)\n"
    decorated = "import app\n@app.command()\ndef ask(flag=False):\n    if flag:\n        input('?')\n"
    uncalled = "def ask(flag):\n    if flag:\n        input('?')\n"
    assert reached(callback) == [3] and reached(decorated) == [5] and reached(uncalled) == [3]


def test_methods_are_followed_through_attribute_calls():
    text = (
        "import sys\n"
        "class Shell:\n"
        "    def ask(self):\n"
        "        return input('?')\n"
        "    def run(self, interactive):\n"
        "        if interactive:\n"
        "            self.ask()\n"
        "Shell().run('-i' in sys.argv)\n"
    )
    assert reached(text) == [] and reached(text, "-i") == [4]


def test_recursion_is_not_followed_forever():
    text = "def walk(n):\n    if n:\n        walk(n - 1)\n    input('?')\nimport sys\nif '--ask' in sys.argv:\n    walk(3)\n"
    assert reached(text) == [] and reached(text, "--ask") == [4]


def test_subcommands_and_argv_words():
    text = (
        "import argparse, sys\n"
        "p = argparse.ArgumentParser()\n"
        "sub = p.add_subparsers(dest='command')\n"
        "sub.add_parser('add')\n"
        "args = p.parse_args()\n"
        "if args.command == 'add':\n"
        "    input('Name: ')\n"
        "if sys.argv[1:] and sys.argv[1] == 'edit':\n"
        "    input('Edit: ')\n"
    )
    assert reached(text, "list") == [] and reached(text, "add", "x") == [7] and reached(text, "edit") == [9]


@pytest.mark.parametrize("text, token", [
    ("import pyinputplus as pyip\npyip.inputInt('n')\n", "pyip.inputInt()"),
    ("import pyinputplus\npyinputplus.inputYesNo('ok?')\n", "pyinputplus.inputYesNo()"),
    ("from prompt_toolkit import prompt\nprompt('> ')\n", "prompt()"),
    ("from prompt_toolkit.shortcuts import PromptSession as S\nS()\n", "S()"),
    ("import typer\ntyper.confirm('ok?')\n", "typer.confirm()"),
    ("import inquirer\ninquirer.list_input('pick')\n", "inquirer.list_input()"),
    ("raw_input('x')\n", "raw_input()"),
])
def test_each_prompt_library_is_found(text, token):
    model = pyscript.analyse(text)
    assert [prompt.token for prompt, _ in model.prompt_sites] == [token]


def test_a_prompt_word_elsewhere_is_not_a_prompt():
    text = "import click\ndef prompt(x):\n    return x\nprompt('a')\nclick.echo('input(')\nself.input('b')\n"
    assert pyscript.analyse(text).prompt_sites == []


def test_columns_count_characters_not_bytes():
    model = pyscript.analyse("x = 'é' + input('?')\n")
    prompt = model.prompt_sites[0][0]
    assert (prompt.line, prompt.column, prompt.token) == (1, 11, "input()")


def test_what_python_3_cannot_parse_is_left_to_the_text_scan():
    assert pyscript.analyse("print 'x'\nraw_input()\n") is None
    assert pyscript.analyse("x = 1\n").prompt_sites == []  # no prompt named: not even parsed


# -- hostile scripts: bounded work ----------------------------------------------------------


def _findings(tmp_path, text: str, body: str = "Nothing to run.") -> list[dict]:
    skill = make(tmp_path, {"scripts/x.py": text}, body=body)
    with deadline():  # a hang guard; the work is bounded by the growth checks beside
        return findings(skill, "SL701")


def _analysis_growth(make_text, size: int) -> float:
    """The function calls of analysing ``make_text(size)`` over those at a quarter of the size."""
    return growth(pyscript.analyse, make_text(size // 4), make_text(size), measure="calls")


def _exits(count: int) -> str:
    return "import sys\n" + "".join(f"if sys.argv[{i % 5}] == 'x{i}':\n    sys.exit(1)\n" for i in range(count)) + "input('?')\n"


def _chain(count: int) -> str:
    return "import sys\nx = " + " or ".join(f"v{i}" for i in range(count)) + " or input('?')\n"


@pytest.mark.slow
def test_thousands_of_early_exits_and_operands_stay_linear(tmp_path):
    # Each `if …: sys.exit()` is a condition of every statement after it, and each operand of an
    # `or` of every later one: kept whole, 10,000-20,000 of them made 10^8 tuple items or more.
    for make_text, size in ((_exits, 10000), (_chain, 20000)):
        text = make_text(size)
        assert len(_findings(tmp_path / str(len(text)), text)) == 1
        assert _analysis_growth(make_text, size) < LINEAR_CALLS_AT_4X


@pytest.mark.slow
def test_conditions_kept_per_node_are_bounded_in_memory():
    # 10,000 early exits: kept whole, every later node's conditions held up to 10,000 tests
    # (peak ~800 MB); bounded, ~110 MB. Measured in a process of its own (ru_maxrss is a high-water mark).
    program = (
        "import resource\n"
        "from skilllint.skill.scripts.python import prompt_reach as pyscript\n"
        "text = 'import sys\\n' + ''.join(f\"if sys.argv[{i % 5}] == 'x{i}':\\n    sys.exit(1)\\n\" for i in range(10000))\n"
        "model = pyscript.analyse(text + \"input('?')\\n\")\n"
        "assert model.reaches(0, ())\n"
        # VmHWM is this process's own peak; ru_maxrss also holds the high-water mark inherited
        # at fork/exec from the parent (a long pytest run: several hundred MB)
        "status = open('/proc/self/status').read() if __import__('os').path.exists('/proc/self/status') else ''\n"
        "line = [l for l in status.splitlines() if l.startswith('VmHWM:')]\n"
        "print(int(line[0].split()[1]) // 1024 if line else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 400


def test_a_call_graph_of_exponentially_many_chains_is_cut_short(tmp_path):
    # Level k has 12 functions, each calling all 12 of level k+1: 12^8 chains down to the prompt,
    # every one decided against by its test (`if '--never' in sys.argv`) only at the top.
    def graph(depth: int) -> str:
        lines = ["import sys", f"def f{depth + 1}_0():", "    input('?')"]
        for level in range(depth, -1, -1):
            for index in range(12):
                lines.append(f"def f{level}_{index}():")
                lines.extend(f"    f{level + 1}_{callee}()" for callee in range(12 if level < depth else 1))
        lines += ["if '--never' in sys.argv:"] + [f"    f0_{i}()" for i in range(12)]
        return "\n".join(lines) + "\n"

    found = _findings(tmp_path, graph(8))
    assert where(found) == [("x.py", 3, 5)]  # the search ran out: reachable, as any unknown
    # Two levels more: 144 times the chains, 1.5 times the functions; cut short, the work grows
    # with the functions (followed, with the chains).
    assert growth(pyscript.analyse, graph(3), graph(5), measure="calls") < 2


def test_deep_nesting_falls_back_to_the_text_scan(tmp_path):
    def text(depth: int) -> str:
        return "x = " + "(" * depth + "input('?')" + ")" * depth + "\n"

    assert where(_findings(tmp_path, text(3000))) == [("x.py", 1, 3005)]
    assert _analysis_growth(text, 3000) < LINEAR_CALLS_AT_4X


def test_thousands_of_commands_and_options(tmp_path):
    def skill(count: int) -> Path:
        options = "".join(f"p.add_argument('--o{i}', action='store_true')\n" for i in range(count))
        text = "import argparse\np = argparse.ArgumentParser()\n" + options + f"a = p.parse_args()\nif a.o{count - 1}:\n    input('?')\n"
        body = "```bash\n" + "python3 scripts/x.py --o1 x.py\n" * count + "```\n"
        return make(tmp_path / str(count), {"scripts/x.py": text}, body=body)

    small, large = skill(1250), skill(5000)
    with deadline():  # a hang guard
        assert findings(large, "SL701") == []
    lint = lambda folder: findings(folder, "SL701")  # noqa: E731
    assert growth(lint, small, large, measure="calls") < LINEAR_CALLS_AT_4X


def test_the_python_model_is_imported_only_for_a_python_script(tmp_path):
    """A run whose skills ship no Python script never imports the ast-based model, any of its three
    modules (startup of a pre-commit run on one skill); the first Python script does."""
    skill = tmp_path / "skills" / "plain"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: plain\ndescription: Formats notes. Use when asked to tidy notes.\n---\nBody.\n")
    code = (
        "import sys\n"
        "from skilllint.cli.main import main\n"
        "main(['check', '--no-cache', '-q', '--select', 'SL701', 'skills'])\n"
        "print(any(m in sys.modules for m in ('skilllint.skill.scripts.python.prompt_reach', 'skilllint.skill.scripts.python.model', 'skilllint.skill.scripts.python.judge')))\n"
    )
    run = lambda: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run().stdout.strip().splitlines()[-1] == "False"
    (skill / "scripts").mkdir()
    (skill / "scripts" / "go.py").write_text("print('hi')\n")
    assert run().stdout.strip().splitlines()[-1] == "True"
