"""skilllint.skill.claude_code_links: which nested skills Claude Code reaches through links."""

from __future__ import annotations


def test_claude_code_follows_links_through_any_document_a_skill_links(tmp_path):
    """A page the listed skill links counts as a document whatever its Markdown-ish suffix
    (skilllint.skill.inventory.is_document, as the reference scan reads them): a nested skill it
    links is reached, as when the page is a .md file."""
    from skilllint.skill.claude_code_links import linked_skills

    top = tmp_path / "skills"
    for suffix in (".md", ".txt", ".mdx"):
        outer = top / f"outer{suffix.strip('.')}"
        (outer / "inner").mkdir(parents=True)
        (outer / "SKILL.md").write_text(f"---\nname: o\ndescription: d\n---\nSee [guide](guide{suffix}).\n")
        (outer / f"guide{suffix}").write_text("Then [inner](inner/SKILL.md).\n")
        (outer / "inner" / "SKILL.md").write_text("---\nname: i\ndescription: d\n---\n")
    found = linked_skills(top, 1 << 20)
    assert sorted(p.parent.name for p in found) == ["outermd", "outermdx", "outertxt"]
