"""The README's rule table is generated from the registry and kept current.

`python tests/test_readme.py --refresh` rewrites it after rules change.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def rule_table() -> str:
    from skilllint.registry import registry

    rows = ["| code | name | what it reports | default |", "|---|---|---|---|"]
    for rule in registry().sorted():
        levels = sorted({str(s) for s in rule.severity.values()}, key=["error", "warning", "info"].index)
        default = "opt-in" if rule.opt_in else "/".join(levels)
        rows.append(f"| {rule.code} | `{rule.name}` | {rule.summary} | {default} |")
    return "\n".join(rows)


def _current() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(re.escape(START) + r"\n(.*?)\n" + re.escape(END), text, re.DOTALL)
    assert match, "README.md lacks the rules table markers"
    return match.group(1)


def test_readme_rule_table_is_current():
    assert _current() == rule_table(), "run `python tests/test_readme.py --refresh`"


def test_readme_commands_are_the_ci_commands():
    text = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]'" in text and "-e '.[test]'" in ci
    assert "python -m pytest -q" in text and "python -m pytest -q" in ci
    assert "skilllint check examples/" in text


if __name__ == "__main__" and "--refresh" in sys.argv:
    sys.path.insert(0, str(ROOT))
    text = README.read_text(encoding="utf-8")
    text = re.sub(re.escape(START) + r"\n.*?\n" + re.escape(END), lambda m: f"{START}\n{rule_table()}\n{END}", text, flags=re.DOTALL)
    README.write_text(text, encoding="utf-8")
