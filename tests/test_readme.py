"""The README's commands are the ones CI runs.

Its rule table is generated (`python scripts/generate.py`; tests/test_generated.py).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

def test_readme_commands_are_the_ci_commands():
    text = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]'" in text and "-e '.[test]'" in ci
    assert "python -m pytest -q" in text and "python -m pytest -q" in ci
    assert "skilllint check examples/" in text
