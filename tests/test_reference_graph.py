"""The reference graph: what counts as a reference and how it resolves."""

from skilllint.skill.package import SkillPackage
from skilllint.skill.references.graph import is_placeholder

from conftest import write_skill
from skilllint.skill.references.graph import reference_graph


def graph_of(tmp_path, body, files=()):
    skill = write_skill(tmp_path, "demo", f"---\nname: demo\ndescription: D. Use when x.\n---\n{body}")
    for rel, text in files:
        path = skill / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return reference_graph(SkillPackage(skill, tmp_path))


def summary(graph):
    return [(r.source, r.line, r.kind, r.path, r.status) for r in graph.references]


def test_links_code_and_plain_paths(tmp_path):
    body = (
        "Read [the guide](references/guide.md) first.\n"
        "Run `python scripts/run.py --fast` to build.\n"
        "Then open assets/template.html in a browser.\n"
        "```\nreferences/in-code.md\n```\n"
        "Scripts/tools in prose are words, not paths.\n"
    )
    files = [("references/guide.md", "# Guide\n"), ("scripts/run.py", ""), ("assets/template.html", "")]
    assert summary(graph_of(tmp_path, body, files)) == [
        ("SKILL.md", 5, "link", "references/guide.md", "ok"),
        ("SKILL.md", 6, "code", "scripts/run.py", "ok"),
        ("SKILL.md", 7, "plain", "assets/template.html", "ok"),
    ]


def test_referenced_markdown_is_scanned_one_hop_further(tmp_path):
    files = [("references/a.md", "See [b](b.md).\n"), ("references/b.md", "end\n")]
    graph = graph_of(tmp_path, "[a](references/a.md)\n", files)
    assert graph.scanned == {"SKILL.md": 0, "references/a.md": 1, "references/b.md": 2}
    assert graph.chain("references/b.md") == ["SKILL.md", "references/a.md", "references/b.md"]


def test_missing_outside_case_and_fragments(tmp_path):
    body = "[x](references/Guide.md#setup) [y](../other/SKILL.md) [z](/etc/passwd) [w](references/gone.md)\n"
    graph = graph_of(tmp_path, body, [("references/guide.md", "# Setup\n")])
    found = {r.raw: (r.status, r.fragment, r.case_match) for r in graph.references}
    assert found == {
        "references/Guide.md#setup": ("missing", "setup", "references/guide.md"),
        "../other/SKILL.md": ("outside", None, None),
        "/etc/passwd": ("outside", None, None),
        "references/gone.md": ("missing", None, None),
    }


def test_placeholders_and_root_variables(tmp_path):
    body = (
        "Write `references/<topic>.md` or `references/filename.md` per topic; see `phase_prompts/phaseN.md`.\n"
        "Load [quick ref]({baseDir}/references/quick.md).\n"
    )
    graph = graph_of(tmp_path, body, [("references/quick.md", "q\n"), ("phase_prompts/phase1.md", "p\n")])
    assert summary(graph) == [("SKILL.md", 6, "link", "references/quick.md", "ok")]
    assert is_placeholder("references/*.md") and is_placeholder("scripts/{name}.py")
    assert not is_placeholder("references/api-errors.md")


def test_extensionless_mention_of_a_document(tmp_path):
    graph = graph_of(tmp_path, "| `references/open-coding` | notes |\n", [("references/open-coding.md", "x\n")])
    assert [(r.status, r.resolved) for r in graph.references] == [("ok", "references/open-coding.md")]


def test_nested_skill_is_not_scanned_as_part_of_its_parent(tmp_path):
    files = [("child/SKILL.md", "---\nname: child\ndescription: d\n---\n[x](../../outside.md)\n")]
    graph = graph_of(tmp_path, "[child](child/SKILL.md)\n", files)
    assert list(graph.scanned) == ["SKILL.md"]


def test_a_nested_skill_is_one_whatever_the_case_of_its_skill_md(tmp_path):
    # Discovery lints a folder holding skill.md as a skill of its own: its pages are its own.
    files = [("child/skill.md", "---\nname: child\ndescription: d\n---\n"), ("child/notes.md", "[x](gone.md)\n")]
    graph = graph_of(tmp_path, "[notes](child/notes.md)\n", files)
    assert list(graph.scanned) == ["SKILL.md"]
