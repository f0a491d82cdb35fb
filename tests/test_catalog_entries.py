"""Catalog entries remembered between runs (skilllint.lint.cache.catalog_entries)."""

from __future__ import annotations

import json
import os

import pytest

from conftest import lint_json, write_skill
from skilllint.lint.cache import catalog_entries as entries_module
from skilllint.catalog import model
from skilllint.lint.cache.catalog_entries import FILENAME, CatalogEntries
from skilllint.catalog.model import read_entry
from skilllint.skill.package import SkillPackage
from skilllint.targets import TARGETS

FIELDS = ("name", "description", "hidden", "when_to_use", "first_body_line")


@pytest.fixture
def settled(monkeypatch):
    """Files written by the test count as settled (the store skips files changed in the last 2 s)."""
    monkeypatch.setattr(entries_module, "RACY_SECONDS", 0)


@pytest.fixture
def reads(monkeypatch):
    """How many entries were read from the skills rather than the store."""
    count = {"n": 0}

    def counting(package, target):
        count["n"] += 1
        return read_entry(package, target)

    monkeypatch.setattr(entries_module, "read_entry", counting)
    monkeypatch.setattr(model, "read_entry", counting)  # the engine reads linted skills' entries through the model
    return count


SKILLS = {
    "plain": "---\nname: plain\ndescription: Plain work. Use when asked.\n---\n# Plain\n",
    "hidden": "---\nname: hidden\ndescription: Hidden. Use when asked.\ndisable-model-invocation: true\n---\nbody\n",
    "when": "---\nname: when\ndescription: With a when.\nwhen_to_use: When the user says when.\n---\nbody\n",
    "bodyline": "---\nname: bodyline\n---\n\nFirst body line lists the skill.\n",
    "broken": "---\nname: [broken\n---\nStill listed by Claude Code.\n",
}


def _fields(skill):
    return None if skill is None else tuple(getattr(skill, f) for f in FIELDS)


@pytest.mark.parametrize("target", ["claude-code", "codex", "copilot"])
def test_a_stored_entry_is_the_entry_read_afresh(tmp_path, settled, reads, target):
    for name, text in SKILLS.items():
        write_skill(tmp_path / "skills", name, text)
    implicit = tmp_path / "skills" / "plain" / "agents"
    implicit.mkdir()
    (implicit / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    packages = [SkillPackage(tmp_path / "skills" / name) for name in SKILLS]
    fresh = [_fields(read_entry(p, TARGETS[target])) for p in packages]
    store = CatalogEntries(tmp_path / "cache", "salt")
    first = [_fields(store.read(p, TARGETS[target])) for p in packages]
    store.save()
    reads["n"] = 0
    again = CatalogEntries(tmp_path / "cache", "salt")
    second = [_fields(again.read(SkillPackage(p.root), TARGETS[target])) for p in packages]
    assert fresh == first == second and reads["n"] == 0
    if target == "codex":
        assert fresh[0][2] is True  # agents/openai.yaml hides it from Codex's catalog
    if target == "claude-code":
        assert fresh[2][3] == "When the user says when." and fresh[3][4] == "First body line lists the skill."


def test_a_changed_skill_is_read_again(tmp_path, settled, reads):
    skill = write_skill(tmp_path / "skills", "one", SKILLS["plain"])
    store = CatalogEntries(tmp_path / "cache", "salt")
    store.read(SkillPackage(skill), TARGETS["codex"])
    store.save()
    # same size, different text: the modification time tells
    (skill / "SKILL.md").write_text(SKILLS["plain"].replace("Plain work", "Other work"))
    os.utime(skill / "SKILL.md", ns=(1_000_000_000, 1_000_000_000))
    reads["n"] = 0
    entry = CatalogEntries(tmp_path / "cache", "salt").read(SkillPackage(skill), TARGETS["codex"])
    assert reads["n"] == 1 and entry.description == "Other work. Use when asked."
    # an agents/openai.yaml added later changes Codex's entry too
    store = CatalogEntries(tmp_path / "cache", "salt")
    assert store.read(SkillPackage(skill), TARGETS["codex"]).hidden is False
    store.save()
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    assert CatalogEntries(tmp_path / "cache", "salt").read(SkillPackage(skill), TARGETS["codex"]).hidden is True


def test_a_recent_change_is_not_stored(tmp_path, reads):
    skill = write_skill(tmp_path / "skills", "one", SKILLS["plain"])  # written just now
    store = CatalogEntries(tmp_path / "cache", "salt")
    store.read(SkillPackage(skill), TARGETS["codex"])
    store.save()
    assert not (tmp_path / "cache" / FILENAME).exists()


@pytest.mark.parametrize("content", ["{not json", json.dumps({"salt": "other", "entries": {}}), json.dumps({"salt": "salt", "entries": {"k": [1, 2]}}), json.dumps([1])])
def test_a_foreign_or_torn_store_is_a_miss(tmp_path, settled, reads, content):
    skill = write_skill(tmp_path / "skills", "one", SKILLS["plain"])
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / FILENAME).write_text(content)
    entry = CatalogEntries(tmp_path / "cache", "salt").read(SkillPackage(skill), TARGETS["codex"])
    assert entry.name == "plain" and reads["n"] == 1


def test_pre_commit_reads_the_siblings_once(tmp_path, settled, reads):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for i in range(40):
        write_skill(repo / ".agents" / "skills", f"skill-{i:02}", f"---\nname: skill-{i:02}\ndescription: Skill {i}. Use when asked.\n---\n")
    args = (".agents/skills/skill-00/SKILL.md", "--target", "codex", "--select", "SL5")
    first = lint_json(*args, cwd=repo)
    assert reads["n"] == 40
    second = lint_json(*args, cwd=repo)
    assert first == second and reads["n"] == 40  # nothing read again
    assert (repo / ".skilllint_cache" / "v2" / FILENAME).is_file()
    # a sibling's description changes: only it is read again, and the catalog sees the change
    (repo / ".agents" / "skills" / "skill-07" / "SKILL.md").write_text("---\nname: skill-07\ndescription: Skill 0. Use when asked.\n---\n")
    third = lint_json(*args, cwd=repo)
    assert reads["n"] == 41
    assert [d["code"] for d in third["diagnostics"]] == ["SL510"]  # now identical to skill-00's


def test_kept_answers_are_saved_with_the_entries(tmp_path):
    store = CatalogEntries(tmp_path / "cache", "salt")
    store.kept["question"] = [[0, 1, 0.5, False]]
    store.save()
    again = CatalogEntries(tmp_path / "cache", "salt")
    assert again.kept.get("question") == [[0, 1, 0.5, False]] and not again.kept.changed
    again.kept["question"] = [[0, 1, 0.5, False]]  # the same answer: nothing to write
    assert not again.kept.changed
    # another salt (other skilllint code): nothing kept is used
    assert CatalogEntries(tmp_path / "cache", "other").kept == {}


def test_kept_answers_are_bounded_and_this_runs_come_first(tmp_path, monkeypatch):
    monkeypatch.setattr(entries_module, "MAX_ANSWERS", 3)
    store = CatalogEntries(tmp_path / "cache", "salt")
    for i in range(5):
        store.kept[f"old-{i}"] = [i]
    store.save()
    store = CatalogEntries(tmp_path / "cache", "salt")
    store.kept.get("old-4")
    store.kept["new"] = []
    store.save()
    saved = json.loads((tmp_path / "cache" / FILENAME).read_text())["kept"]
    assert list(saved)[:2] == ["old-4", "new"] and len(saved) == 3


def test_siblings_are_not_listed_again_after_discovery(tmp_path, settled, monkeypatch):
    """Discovery hands each skill folder's listing to its package: a pre-commit run's siblings
    are listed once (by the walk), not again to find their SKILL.md."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for i in range(30):
        write_skill(repo / ".agents" / "skills", f"skill-{i:02}", f"---\nname: skill-{i:02}\ndescription: Skill {i}. Use when asked.\n---\n")
    import sys

    listed = []
    real_listdir = os.listdir

    def listdir(path="."):
        if sys._getframe(1).f_globals["__name__"] == "skilllint.skill.package":  # SkillPackage.listing, not a rule's walk
            listed.append(os.fspath(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    lint_json(".agents/skills/skill-00/SKILL.md", "--target", "codex", "--select", "SL5", cwd=repo)
    siblings = [p for p in listed if os.path.basename(p) != "skill-00"]  # the linted skill came as a file
    assert siblings == [], siblings[:3]


def test_a_stored_entry_keeps_where_the_name_and_description_are_written(tmp_path, settled):
    """A catalog rule's finding points at the description: a skill whose entry came from the store
    is not parsed again for it, and the place is the one its frontmatter gives."""
    from skilllint.catalog.render import description_span, name_span, value_span_of

    for name, text in SKILLS.items():
        write_skill(tmp_path / "skills", name, text)
    roots = [tmp_path / "skills" / name for name in SKILLS]
    store = CatalogEntries(tmp_path / "cache", "salt")
    for root in roots:
        store.read(SkillPackage(root), TARGETS["claude-code"])
    store.save()
    again = CatalogEntries(tmp_path / "cache", "salt")
    for root in roots:
        stored = SkillPackage(root)
        again.read(stored, TARGETS["claude-code"])
        spans = (name_span(stored), description_span(stored))
        assert stored._parse_cache == {}  # from the entry: no frontmatter parsed
        fresh = SkillPackage(root)
        assert spans == (value_span_of(fresh, "name"), value_span_of(fresh, "description"))
    plain = SkillPackage(roots[0])
    again.read(plain, TARGETS["claude-code"])
    assert (description_span(plain).line, description_span(plain).column) == (3, 14)


@pytest.mark.parametrize(
    "spans",
    [None, [], [[1, 1, 1, 4]], [[1, 1, 1, 4], [1, 1, 1]], [[1, 1, 1, 4], [0, 1, 1, 4]], [[1, 1, 1, 4], [1, "1", 1, 4]], [[1, 1, 1, 4], [1, 1, 1, 1 << 40]]],
)
def test_an_entry_with_a_malformed_place_is_not_used(spans):
    assert not entries_module._valid(["n", "d", False, "", "", spans])
    assert entries_module._valid(["n", "d", False, "", "", [[1, 1, 1, 4], [2, 3, 2, 9]]])
