"""The README's commands are the ones CI runs, its snippets pin refs that exist, its links lead
to files of the checkout, and the description PyPI shows holds none of those links.

The rule table is generated into docs/rules.md (`python scripts/generate.py`; tests/test_generated.py).
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

def test_readme_commands_are_the_ci_commands():
    text = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]'" in text and "-e '.[test]'" in ci
    assert "python -m pytest -q" in text and "python -m pytest -q" in ci
    assert "skilllint check examples/" in text


def _yaml_blocks(section: str, document: Path = README) -> list[dict]:
    text = document.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", body, re.DOTALL)]


def test_the_readme_pins_skilllint_by_no_tag_that_does_not_exist():
    """The pre-commit and Action snippets name this repository at a ref a user can fetch: no
    release is tagged, so a commit SHA (the placeholder COMMIT_SHA), or a tag `git tag` lists."""
    tags = set(subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split())
    refs = []
    for document in (README, ROOT / "docs" / "integrations.md"):
        (config,) = _yaml_blocks("pre-commit", document)
        refs += [entry["rev"] for entry in config["repos"]]
        (workflow,) = _yaml_blocks("GitHub Actions", document)
        for job in workflow["jobs"].values():
            refs += [step["uses"].rpartition("@")[2] for step in job["steps"] if "/skilllint@" in step.get("uses", "")]
    assert len(refs) >= 4
    for ref in refs:
        assert ref == "COMMIT_SHA" or re.fullmatch(r"[0-9a-f]{40}", ref) or ref in tags, ref


# A Markdown link whose target has no scheme (`https:`) and is no anchor of the page itself: a path
# into the checkout, which PyPI's copy of the README cannot follow.
RELATIVE_LINK = re.compile(r"\[([^\]\n]+)\]\((?![a-zA-Z][a-zA-Z0-9+.-]*:|#)([^)\s]*)\)")
DOCUMENTS = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def pypi_description(text: str) -> str:
    """``text`` as hatch-fancy-pypi-readme makes the long description from it with pyproject.toml's
    configuration: each substitution is ``re.compile(pattern).sub(replacement, text)``, in order."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    hook = config["tool"]["hatch"]["metadata"]["hooks"]["fancy-pypi-readme"]
    assert [fragment["path"] for fragment in hook["fragments"]] == ["README.md"]
    for substitution in hook["substitutions"]:
        text = re.compile(substitution["pattern"]).sub(substitution["replacement"], text)
    return text


def test_the_readme_is_the_pypi_description_and_its_only_source():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "readme" in config["project"]["dynamic"] and "readme" not in config["project"]
    assert "hatch-fancy-pypi-readme" in " ".join(config["build-system"]["requires"])


def test_the_pypi_description_has_no_link_into_the_checkout():
    readme = README.read_text(encoding="utf-8")
    assert RELATIVE_LINK.search(readme)  # the README links docs/, which the substitution must undo
    described = pypi_description(readme)
    assert not RELATIVE_LINK.search(described), RELATIVE_LINK.findall(described)
    assert "docs/configuration.md" in described  # each link's text stays, naming the file
    assert "https://agentskills.io" in described  # absolute links are kept


def test_the_substitution_keeps_text_and_absolute_links():
    sample = (
        "See [`docs/output.md`](docs/output.md), [the rule book](rulebook/), [CONTRIBUTING.md](CONTRIBUTING.md),"
        " [Agent Skills](https://agentskills.io) and [Install](#install)."
    )
    assert pypi_description(sample) == (
        "See `docs/output.md`, the rule book, CONTRIBUTING.md,"
        " [Agent Skills](https://agentskills.io) and [Install](#install)."
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_of_the_documentation_leads_to_a_file(document):
    text = re.sub(r"```.*?```", "", document.read_text(encoding="utf-8"), flags=re.DOTALL)
    missing = []
    for _, target in RELATIVE_LINK.findall(text):
        path, _, anchor = target.partition("#")
        if path and not (document.parent / path).exists():
            missing.append(target)
        elif anchor and path.endswith(".md"):
            headings = re.findall(r"^#+ (.*)$", (document.parent / path).read_text(encoding="utf-8"), re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            if anchor not in slugs:
                missing.append(target)
    assert not missing, missing


def test_no_figure_of_cost_outside_the_performance_page():
    """Cost and speed figures live in docs/performance.md only, each with the benchmark behind it."""
    figure = re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b(?! ?[-/])|\b\d+ ?% (?:faster|slower|cheaper|more|less)")
    for document in DOCUMENTS:
        if document.name in ("performance.md", "surfaces.md"):
            continue
        text = re.sub(r"```.*?```", "", document.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert not figure.findall(text), (document.name, figure.findall(text))


@pytest.mark.slow
def test_the_built_wheel_describes_the_project_without_checkout_links(tmp_path):
    """The metadata hatchling writes (a wheel built as pip builds it, with the build requirements of
    pyproject.toml) holds the README, with no link into the checkout."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    if proc.returncode != 0 and "No matching distribution" in proc.stderr:
        pytest.skip("the build requirements cannot be fetched here: " + proc.stderr.strip().splitlines()[-1])
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    assert metadata["Description-Content-Type"] == "text/markdown"
    description = metadata.get_payload()
    assert description.startswith("# skilllint\n")
    assert not RELATIVE_LINK.search(description), RELATIVE_LINK.findall(description)
    assert description == pypi_description(README.read_text(encoding="utf-8"))
