"""SL014 code-fence-unclosed: a fence CommonMark leaves open to the end of the file, in SKILL.md or a
Markdown document it leads to; checked against a full CommonMark parse (markdown_oracle)."""

from __future__ import annotations

import pytest

import markdown_oracle
from conftest import lint_json, write_skill

from skilllint.skill.text.markdown import unclosed_fence

CASES = {
    "closed": ("# T\n\n```bash\nls\n```\n\nText.\n", None),
    "one backtick short": ("# T\n\n```bash\nls\n``\n\n## Next\n\nText.\n", 3),
    "tildes": ("~~~~\ncode\n~~~\n\n# Heading\n", 1),
    "a template holding its own block": ("```markdown\n# Doc\n```bash\nls\n```\n```\n\n## After\n", 6),
    "in a list item, ended by the item": ("1. Run:\n   ```bash\n   ls\n\n## Heading\n\nText.\n", None),
    "opened on the item's own line": ("1. Write\n2. ```sh\n   ls\n   ```\n\nText after.\n", None),
    "on the last line": ("# T\n\nText.\n\n```\n", None),
    "a longer closing fence closes": ("```\ncode\n`````\n\n# After\n", None),
    "indented three spaces at the top": ("   ```\ncode\n\n# After\n", 1),
}


@pytest.mark.parametrize("name", CASES)
def test_unclosed_fences_as_commonmark_reads_them(name):
    text, expected = CASES[name]
    assert unclosed_fence(text) == expected
    assert markdown_oracle.unclosed_fence(text) == expected  # the full parse agrees


def test_sl014_reports_skill_md_and_the_documents_it_leads_to(tmp_path):
    skill = write_skill(
        tmp_path, "notes",
        "---\nname: notes\ndescription: Keeps notes. Use when asked to note something.\n---\n# Notes\n\n"
        "Read [the guide](references/guide.md) when writing a note.\n\n```bash\nls\n\n## Steps\n\nWrite it.\n",
    )  # fmt: skip
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("# Guide\n\n~~~\nexample\n\n## More\n", encoding="utf-8")
    found = {(d["path"], d["line"]) for d in lint_json(str(tmp_path), "--select", "SL014", "--no-cache", cwd=tmp_path)["diagnostics"]}
    assert found == {("notes/SKILL.md", 9), ("notes/references/guide.md", 3)}


@pytest.mark.slow
def test_the_corpus_markdown_agrees_with_a_full_parse(corpus):
    disagree = []
    for path in sorted(corpus.rglob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if unclosed_fence(text) != markdown_oracle.unclosed_fence(text):
            disagree.append(str(path.relative_to(corpus)))
    assert disagree == []
