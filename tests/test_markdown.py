"""The Markdown layer: headings with GitHub anchors, links with file positions, blocks."""

from skilllint import markdown

SAMPLE = """# Title

See [the API](references/api.md#errors) and ![diagram](assets/a.png).

## Use it: now!

- item with `code` and [runner](scripts/run.py)

```bash
[notalink](foo.md)
```

| file | when |
|---|---|
| [rows](references/r.md) | after a 500 |

## Title

[def]: references/def.md
"""


def test_links_images_and_definitions_with_file_positions():
    doc = markdown.parse(SAMPLE, line_offset=10)
    found = [(link.kind, link.target, link.text, link.line, link.column) for link in doc.links]
    assert ("link", "references/api.md#errors", "the API", 13, 15) in found
    assert ("image", "assets/a.png", "diagram", 13, 56) in found
    assert ("link", "scripts/run.py", "runner", 17, 33) in found
    assert ("link", "references/r.md", "rows", 25, 10) in found
    assert ("definition", "references/def.md", "def", 29, 8) in found
    assert not any(link.target == "foo.md" for link in doc.links), "links in fenced code are not links"


def test_headings_get_github_anchors_with_duplicate_suffixes():
    doc = markdown.parse(SAMPLE)
    assert [(h.level, h.anchor) for h in doc.headings] == [(1, "title"), (2, "use-it-now"), (2, "title-1")]


def test_blocks_carry_line_ranges():
    doc = markdown.parse(SAMPLE)
    kinds = {(b.kind, b.start, b.end) for b in doc.blocks}
    assert ("fence", 9, 11) in kinds
    assert ("list_item", 7, 8) in kinds
    assert ("table_row", 15, 15) in kinds
    assert doc.code_lines() == {9, 10, 11}


def test_cheap_scanners_agree_with_the_full_parse():
    text = SAMPLE + "\nSetext title\nover two lines\n---\n\n### `code` and *emph* with ld_preload <-> x\n"
    full = markdown.parse(text)
    headings, code = markdown.scan_headings(text)
    assert [(h.line, h.anchor) for h in headings] == [(h.line, h.anchor) for h in full.headings]
    assert code == full.code_lines()
    links, _ = markdown.scan_links(text)
    assert sorted((l.kind, l.target, l.line, l.column) for l in links) == sorted(
        (l.kind, l.target, l.line, l.column) for l in full.links
    )
