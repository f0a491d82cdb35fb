"""skilllint.discovery.claude_code_links: which nested skills Claude Code reaches through links."""

from __future__ import annotations


def test_claude_code_follows_links_through_any_document_a_skill_links(tmp_path):
    """A page the listed skill links counts as a document whatever its Markdown-ish suffix
    (skilllint.skill.inventory.is_document, as the reference scan reads them): a nested skill it
    links is reached, as when the page is a .md file."""
    from skilllint.discovery.claude_code_links import linked_skills

    top = tmp_path / "skills"
    for suffix in (".md", ".txt", ".mdx"):
        outer = top / f"outer{suffix.strip('.')}"
        (outer / "inner").mkdir(parents=True)
        (outer / "SKILL.md").write_text(f"---\nname: o\ndescription: d\n---\nSee [guide](guide{suffix}).\n")
        (outer / f"guide{suffix}").write_text("Then [inner](inner/SKILL.md).\n")
        (outer / "inner" / "SKILL.md").write_text("---\nname: i\ndescription: d\n---\n")
    found = linked_skills(top, 1 << 20)
    assert sorted(p.parent.name for p in found) == ["outermd", "outermdx", "outertxt"]


def test_an_answer_is_checked_against_its_files_once_per_run(tmp_path, monkeypatch):
    """Every nested skill of a skills folder asks for the same answer: within one run of the engine
    (``one_run``) it is checked against the files it read once, not at every question; outside a
    run (a language server linting after an edit) at every question, so an edit is seen."""
    from skilllint.discovery import claude_code_links as links

    top = tmp_path / "skills"
    (top / "outer" / "inner").mkdir(parents=True)
    (top / "outer" / "SKILL.md").write_text("---\nname: o\ndescription: d\n---\nSee [inner](inner/SKILL.md).\n")
    (top / "outer" / "inner" / "SKILL.md").write_text("---\nname: i\ndescription: d\n---\n")
    checks = []
    stamps = links._stamps
    monkeypatch.setattr(links, "_stamps", lambda paths: checks.append(tuple(paths)) or stamps(paths))
    monkeypatch.setattr(links, "_LINKED", {})
    inner = top / "outer" / "inner"
    with links.one_run():
        assert links.reached(inner, top, 1 << 20)
        made = len(checks)  # the answer made: its files' stamps taken once
        assert links.reached(inner, top, 1 << 20) and links.reached(inner, top, 1 << 20)
        assert len(checks) == made  # asked again in the run: not checked again
    assert links.reached(inner, top, 1 << 20)
    assert len(checks) == made + 1  # a new question outside the run: checked
    (top / "outer" / "SKILL.md").write_text("---\nname: o\ndescription: d\n---\nNo link now, and a longer text.\n")
    assert not links.reached(inner, top, 1 << 20)  # the edit is seen
    with links.one_run():
        assert not links.reached(inner, top, 1 << 20)
        (top / "outer" / "SKILL.md").write_text("---\nname: o\ndescription: d\n---\nSee [inner](inner/SKILL.md) again.\n")
        assert not links.reached(inner, top, 1 << 20)  # checked once in this run, kept for the rest of it
    with links.one_run():
        assert links.reached(inner, top, 1 << 20)  # the next run checks again
