"""Write every file generated from the rules and the code, or check that each is current.

    python scripts/generate.py           rewrite whatever is stale
    python scripts/generate.py --check   rewrite nothing; exit 1 naming each stale file, with a diff

What it generates:

- docs/rules.md, between ``<!-- rules:start -->`` and ``<!-- rules:end -->``: the rule table.
- skilllint/schemas/config.schema.json: what ``skilllint config --schema`` prints for the
  built-in rules, so editors can complete ``.skilllint.toml`` without running skilllint.
- rulebook/SLnnn-name/README.md, the rule book's pages: the first line (``# CODE name``), the
  kind of fix on the ``Fix:`` line (``none``, or ``safe``/``unsafe`` before the page's own
  words on what it does), and the output shown under each ``$ skilllint ...`` line of a
  ``console`` block, re-run from the rule folder.

The rule table and the schema list the built-in rules only: an installed plugin must not
leak into them. tests/test_generated.py runs ``--check``.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RULE_TABLE = ROOT / "docs" / "rules.md"
CONFIG_SCHEMA = ROOT / "skilllint" / "schemas" / "config.schema.json"
RULE_TABLE_START, RULE_TABLE_END = "<!-- rules:start -->", "<!-- rules:end -->"


def builtin_registry():
    from skilllint.registry import Registry
    from skilllint.rules import BUILTIN_RULES

    registry = Registry()
    for rule in BUILTIN_RULES:
        registry.add(rule)
    return registry


# -- docs/rules.md: the rule table ------------------------------------------------------------


def rule_table(registry) -> str:
    rows = ["| code | name | what it reports | default |", "|---|---|---|---|"]
    for rule in registry.sorted():
        levels = sorted({str(s) for s in rule.severity.values()}, key=["error", "warning", "info"].index)
        default = "opt-in" if rule.opt_in else "/".join(levels)
        rows.append(f"| {rule.code} | `{rule.name}` | {rule.summary} | {default} |")
    return "\n".join(rows)


def rule_table_page(registry) -> str:
    text = RULE_TABLE.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(RULE_TABLE_START) + r"\n.*?\n" + re.escape(RULE_TABLE_END), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{RULE_TABLE.relative_to(ROOT)} lacks the {RULE_TABLE_START} … {RULE_TABLE_END} markers")
    return pattern.sub(lambda _: f"{RULE_TABLE_START}\n{rule_table(registry)}\n{RULE_TABLE_END}", text)


# -- skilllint/schemas/config.schema.json ----------------------------------------------------


def config_schema(registry) -> str:
    import json

    from skilllint.config.settings import config_schema

    return json.dumps(config_schema(registry), indent=2) + "\n"


# -- rulebook/*/README.md: page headers and recorded example output -----------------------------

EXAMPLE_SETUP = "example-setup.toml"
CONSOLE = re.compile(r"```console\n(.*?)```", re.DOTALL)


def prepared(folder: Path, scratch: Path) -> Path:
    """``folder``, or a copy of it under ``scratch`` with the entries its example-setup.toml
    lists created: ``fifos = ["fail/x/pipe"]`` (git stores no FIFOs) and a ``[symlinks]``
    table of link path = link text (``"fail/x/system" = "/etc"``) for links that leave the
    repository, dangle or loop (the wheel and sdist builds follow links). Paths are relative
    to the rule folder."""
    setup = folder / EXAMPLE_SETUP
    if not setup.is_file():
        return folder
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib

    spec = tomllib.loads(setup.read_text(encoding="utf-8"))
    unknown = set(spec) - {"fifos", "symlinks"}
    if unknown:
        raise ValueError(f"{folder.name}/{EXAMPLE_SETUP}: unknown keys {sorted(unknown)}")
    copy = scratch / folder.name
    shutil.copytree(folder, copy, symlinks=True)
    for rel in spec.get("fifos", []):
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(copy / rel)
    for rel, text in spec.get("symlinks", {}).items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(text, copy / rel)
    return copy


def console_runs(page: str):
    """(command line, recorded output) for every ``$ skilllint`` line of a page's console blocks."""
    for block in CONSOLE.finditer(page):
        command, output = None, []
        for line in block.group(1).splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield command, "\n".join(output)
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            yield command, "\n".join(output)


def run_console(command: str, folder: Path) -> str:
    """What ``command`` (``skilllint ...``) prints on stdout, run in ``folder``."""
    from skilllint.cli import main as cli

    words = shlex.split(command)
    if words[0] != "skilllint":
        raise ValueError(f"not a skilllint command: {command}")
    out = io.StringIO()
    old = os.getcwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            cli.main(words[1:])
    finally:
        os.chdir(old)
    return out.getvalue().rstrip("\n")


def page_header(page: str, rule, where: str) -> str:
    """``page`` with its first line ``# CODE name`` and its Fix line's kind as the rule declares."""
    lines = page.split("\n")
    lines[0] = f"# {rule.code} {rule.name}"
    fix = next((i for i, line in enumerate(lines[:4]) if line.startswith("Fix:")), None)
    if fix is None:
        raise ValueError(f"{where}: no 'Fix:' line under the title and the Targets line")
    how = lines[fix].partition(" — ")[2]
    if rule.fixable is None:
        lines[fix] = "Fix: none"
    elif how:
        lines[fix] = f"Fix: {rule.fixable} — {how}"
    else:
        raise ValueError(f"{where}: the {rule.fixable} fix needs its words: 'Fix: {rule.fixable} — what it changes'")
    return "\n".join(lines)


def rulebook_pages(registry) -> dict[Path, str]:
    from skilllint.rulebook import rule_folders

    pages = {}
    for code, folder in rule_folders().items():
        rule = registry.rules.get(code)
        if rule is None:
            continue  # tests/test_rulebook.py names a folder without a rule
        path = folder / "README.md"
        page = page_header(path.read_text(encoding="utf-8"), rule, str(path.relative_to(ROOT)))
        with tempfile.TemporaryDirectory() as scratch:
            example = prepared(folder, Path(scratch))

            def rerun(block: re.Match) -> str:
                lines = []
                for command, _ in console_runs(block.group(0)):
                    lines.append(f"$ {command}")
                    output = run_console(command, example)
                    if output:
                        lines.append(output)
                return "```console\n" + "\n".join(lines) + "\n```"

            pages[path] = CONSOLE.sub(rerun, page)
    return pages


# -- all of them ---------------------------------------------------------------------------


def generated() -> dict[Path, str]:
    """Every generated file's path and the text it should hold."""
    registry = builtin_registry()
    files = {RULE_TABLE: rule_table_page(registry), CONFIG_SCHEMA: config_schema(registry)}
    files.update(rulebook_pages(registry))
    return files


def _diff_summary(path: Path, old: str, new: str, limit: int = 20) -> str:
    diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "current", "generated", lineterm="", n=1))
    shown = diff[:limit] + ([f"... {len(diff) - limit} more diff lines"] if len(diff) > limit else [])
    return f"{path.relative_to(ROOT)} is stale:\n" + "\n".join("    " + line for line in shown)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a generated file is stale")
    args = parser.parse_args(argv)
    try:
        files = generated()
    except ValueError as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 1
    stale = {path: text for path, text in files.items() if path.read_text(encoding="utf-8") != text}
    if args.check:
        for path, text in stale.items():
            print(_diff_summary(path, path.read_text(encoding="utf-8"), text))
        if stale:
            print(f"{len(stale)} generated file(s) stale: run `python scripts/generate.py`")
        return 1 if stale else 0
    for path, text in stale.items():
        path.write_text(text, encoding="utf-8")
        print(f"rewrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's skilllint, not an installed one
    sys.exit(main())
