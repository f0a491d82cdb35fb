"""What `pip install .` brings is what skilllint needs at run time, and no more.

The runtime dependencies in pyproject.toml are exactly the third-party packages
skilllint/ imports (module- or function-level; the lsp extra's pygls for the
server); packages only the tests use (markdown-it-py, the Markdown scanners'
comparison oracle; pre-commit, which drives the hook in tests) sit in the test
extra, and skilllint imports and runs with them made unimportable.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

PACKAGE = ROOT / "skilllint"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _requirements(group: list[str]) -> tuple[set[str], set[str]]:
    """The normalised (PEP 503) distribution names of ``group``: those this interpreter
    installs, and those its environment markers leave out (tomli on Python >= 3.11)."""
    from packaging.requirements import Requirement

    here, elsewhere = set(), set()
    for line in group:
        requirement = Requirement(line)
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        (here if requirement.marker is None or requirement.marker.evaluate() else elsewhere).add(name)
    return here, elsewhere


def _imports_in(statements: list[ast.stmt]) -> set[str]:
    names = set()
    for statement in statements:
        if isinstance(statement, ast.Import):
            names.update(alias.name.split(".")[0] for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            names.add(statement.module.split(".")[0])
    return names


def _imported_top_levels() -> tuple[set[str], set[str]]:
    """The top-level names of every module skilllint/ imports, at any depth in its code, and
    of the packages whose data it reads (``importlib.resources.files("name")``); and those
    of them imported only on some Pythons: under a check of ``sys.version_info``, or tried
    under a ``try`` that falls back when they are missing (``tomllib`` before 3.11)."""
    names: set[str] = set()
    tried: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= _imports_in([node])
            elif (
                isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "files"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            ):
                names.add(node.args[0].value.split(".")[0])
            elif isinstance(node, ast.Try) and any(
                ast.unparse(handler.type or ast.Name("")) in ("ImportError", "ModuleNotFoundError") for handler in node.handlers
            ):
                tried |= _imports_in(node.body)
            elif isinstance(node, ast.If) and "version_info" in ast.unparse(node.test):
                tried |= _imports_in(node.body + node.orelse)
    outside = set(sys.stdlib_module_names) | {"skilllint", "__future__"}
    return names - outside, tried - outside


def _providers() -> dict[str, set[str]]:
    """Top-level module name -> the installed distributions that provide it, read from each
    distribution's file list (Python 3.10's packages_distributions reads only top_level.txt,
    which wheels built by hatchling, jsonschema's among them, lack)."""
    owners: dict[str, set[str]] = {}
    for dist in importlib.metadata.distributions():
        names = set((dist.read_text("top_level.txt") or "").split())
        for file in dist.files or ():
            top = file.parts[0]
            if len(file.parts) == 1 and top.endswith(".py"):
                names.add(top[:-3])
            elif len(file.parts) > 1 and not top.endswith((".dist-info", ".data")) and top != "..":
                names.add(top)
        for name in names:
            owners.setdefault(name, set()).add(dist.metadata["Name"])
    return owners


def test_runtime_dependencies_are_what_skilllint_imports():
    declared, not_here = _requirements(PROJECT["dependencies"])
    lsp, _ = _requirements(PROJECT["optional-dependencies"]["lsp"])
    for name in list(lsp):  # the server imports pygls's own protocol types (lsprotocol) too
        lsp |= _requirements(importlib.metadata.requires(name) or [])[0]
    owners = _providers()
    imported = set()
    names, tried = _imported_top_levels()
    for name in names:
        if name not in owners and (name in not_here or name in tried):
            continue  # a backport this Python does not need, or a module a fallback stands in for
        assert name in owners, f"skilllint/ imports {name!r}, which no installed distribution provides"
        imported.update(re.sub(r"[-_.]+", "-", dist).lower() for dist in owners[name])
    assert not imported - declared - lsp, f"imported but not declared: {sorted(imported - declared - lsp)}"
    assert not declared - imported, f"declared but never imported by skilllint/: {sorted(declared - imported)}"


# A fresh interpreter where the test-only packages cannot be imported: every skilllint
# module imports, and `skilllint check` lints the examples and a tree that asks the
# Markdown scanners for everything (links, anchors, inline HTML in headings).
_WITHOUT_TEST_EXTRAS = r"""
import importlib, importlib.abc, pkgutil, sys

BLOCKED = {"markdown_it", "pre_commit", "mdurl"}

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{name} is blocked", name=name)
        return None

sys.meta_path.insert(0, Blocker())
import skilllint
# the lsp extra's modules: pygls at import
LSP = {"skilllint.server.main", "skilllint.server.convert", "skilllint.server.features", "skilllint.server.watch"}
for module in pkgutil.walk_packages(skilllint.__path__, "skilllint."):
    if module.name not in LSP:
        importlib.import_module(module.name)
from skilllint.cli.main import main
sys.exit(main(sys.argv[1:]))
"""

_HEADINGS = """---
name: html-headings
description: Checks heading anchors when headings hold inline HTML. Use when linting anchors.
---

# Setup <br/> and <a name="x"></a>List<T>

See [setup](#setup--and-listt), [missing](#nowhere) and [guide](references/guide.md#a-bc).
"""


def test_skilllint_runs_without_the_test_extras(tmp_path):
    skill = tmp_path / "html-headings"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(_HEADINGS, encoding="utf-8")
    (skill / "references" / "guide.md").write_text("# A <b>b</b>c\n\n## `code` <-> *emph*\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_TEST_EXTRAS, "check", "--target", "all", "--select", "ALL",
         "--output-format", "json", "--no-cache", str(ROOT / "examples"), str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 1, proc.stderr  # the examples hold errors on purpose
    assert "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    assert report["summary"]["packages"] > 1
    anchors = [d for d in report["diagnostics"] if d["code"] == "SL307"]
    assert [d["message"] for d in anchors if "html-headings" in d["path"]], "the anchor rule did not run"


def test_the_distribution_is_not_named_like_the_other_skilllint_on_pypi():
    """PyPI's `skilllint` is another project (a linter for Claude Code plugins, with the same
    import package and command): `pip install skilllint` or `pip install -U` would put it in
    place of this one. This one is distributed under its own name, which pip knows it by once
    installed (.ci/run installs from this checkout), and which `--version` prints."""
    from skilllint import DISTRIBUTION

    normalised = re.sub(r"[-_.]+", "-", PROJECT["name"]).lower()
    assert PROJECT["name"] == DISTRIBUTION and normalised == "agent-skilllint"
    # PyPI also refuses a name that differs from a taken one only in separators (skill-lint)
    assert re.sub(r"[-_.]+", "", normalised) != "skilllint"
    installed = importlib.metadata.distribution(DISTRIBUTION)
    assert installed.metadata["Name"] == DISTRIBUTION
    scripts = {e.name: e.value for e in installed.entry_points if e.group == "console_scripts"}
    assert scripts == {"skilllint": "skilllint.cli.main:run"}


def test_no_distribution_name_in_the_docs_and_messages_is_the_other_projects():
    """Every `pip install` of this project that the README's commands, the action and skilllint's
    own messages give names this checkout or agent-skilllint, never `skilllint` (the other one)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    texts = {"README.md commands": "\n".join(re.findall(r"```\w*\n(.*?)```", readme, re.DOTALL))}
    texts.update((str(path), path.read_text(encoding="utf-8")) for path in [ROOT / "action.yml", *PACKAGE.rglob("*.py")])
    assert "pip install" in texts["README.md commands"]
    for name, text in [*texts.items(), ("README.md", readme)]:
        assert not re.search(r"pip install[^\n`]*(?<![\w-])skilllint\[", text), name
    for name, text in texts.items():
        assert not re.search(r"pip install (-U |--upgrade )?'?skilllint(?![\w-])", text), name


def test_the_source_distribution_holds_the_documents_the_repository_cites():
    """README, CONTRIBUTING.md and docs/ (the surface evidence the rule book cites) travel
    with the source, as every top-level Markdown file does."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = set(config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    wanted = {path.name for path in ROOT.glob("*.md")} | {"docs"}
    assert wanted <= included, sorted(wanted - included)


# -- ready to publish ------------------------------------------------------------------------


def test_the_license_is_the_one_the_metadata_names():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_the_classifiers_name_each_python_from_the_oldest_claimed():
    """requires-python's oldest version is the first version classifier, and no version is
    skipped between it and the newest one named."""
    oldest = tuple(int(part) for part in re.fullmatch(r">=(\d+)\.(\d+)", PROJECT["requires-python"]).groups())
    versions = sorted(
        tuple(int(part) for part in match.groups())
        for classifier in PROJECT["classifiers"]
        if (match := re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", classifier))
    )
    assert versions[0] == oldest
    assert versions == [(3, minor) for minor in range(oldest[1], versions[-1][1] + 1)]


def test_the_project_links_only_to_a_home_it_has():
    """skilllint.HOMEPAGE is the one place the project's address is written; pyproject.toml names
    it, or nothing while there is none."""
    from skilllint import HOMEPAGE

    urls = PROJECT.get("urls", {})
    assert (urls == {}) if HOMEPAGE is None else (HOMEPAGE in urls.values())
    written = [
        path.relative_to(ROOT).as_posix()
        for folder in ("skilllint", "scripts", "docs")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".md", ".json", ".toml") and "github.com/skilllint" in path.read_text(encoding="utf-8")
    ]
    assert written == []


def test_sarif_and_init_follow_the_homepage(monkeypatch, tmp_path):
    from skilllint.cli import init_file
    from skilllint.output import sarif

    monkeypatch.setattr(sarif, "HOMEPAGE", "https://example.org/skilllint")
    monkeypatch.setattr(init_file, "HOMEPAGE", "https://example.org/skilllint")
    assert init_file.schema_line() == "#:schema https://example.org/skilllint/raw/main/skilllint/schemas/config.schema.json"
    from skilllint.registry import registry
    from skilllint.rulebook import rule_folders

    rule = registry().rules["SL106"]
    descriptor = sarif.rule_descriptor(rule, None, rule_folders())
    assert descriptor["helpUri"] == f"https://example.org/skilllint/blob/main/rulebook/{rule_folders()['SL106'].name}/README.md"


@pytest.mark.slow
def test_the_release_builds_and_passes_twine_check(tmp_path):
    """The sdist and the wheel a release uploads: built by `python -m build` (its isolated build
    environment fetches the build requirements), checked by `twine check` as PyPI would; both
    carry the LICENSE, and the wheel the rule book."""
    import tarfile
    import zipfile

    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp_path), str(ROOT)], capture_output=True, text=True)
    if proc.returncode != 0 and "Could not find a version" in proc.stdout + proc.stderr:
        pytest.skip("the build requirements cannot be fetched here")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    (sdist,) = tmp_path.glob("*.tar.gz")
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert any(name.startswith("skilllint/rulebook/SL101-") and name.endswith("/README.md") for name in names)
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/LICENSE") for name in archive.getnames())
