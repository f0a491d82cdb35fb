"""The README's commands are the ones CI runs.

Its rule table is generated (`python scripts/generate.py`; tests/test_generated.py).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

def test_readme_commands_are_the_ci_commands():
    text = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]'" in text and "-e '.[test]'" in ci
    assert "python -m pytest -q" in text and "python -m pytest -q" in ci
    assert "skilllint check examples/" in text


def _yaml_blocks(section: str) -> list[dict]:
    text = README.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", body, re.DOTALL)]


def test_the_readme_pins_skilllint_by_no_tag_that_does_not_exist():
    """The pre-commit and Action snippets name this repository at a ref a user can fetch: no
    release is tagged, so a commit SHA (the placeholder COMMIT_SHA), or a tag `git tag` lists."""
    tags = set(subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split())
    (config,) = _yaml_blocks("pre-commit")
    refs = [entry["rev"] for entry in config["repos"]]
    (workflow,) = _yaml_blocks("GitHub Actions")
    for job in workflow["jobs"].values():
        refs += [step["uses"].rpartition("@")[2] for step in job["steps"] if "/skilllint@" in step.get("uses", "")]
    assert refs
    for ref in refs:
        assert ref == "COMMIT_SHA" or re.fullmatch(r"[0-9a-f]{40}", ref) or ref in tags, ref
