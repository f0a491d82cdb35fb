"""Every section of docs/surfaces.md that the rule book or the code cites exists, and the rule book
cites nothing its readers do not have.

Rule pages (rulebook/*/README.md) and modules (skilllint/) cite the evidence a rule rests on as
`docs/surfaces.md §2b`, `§1b item 9`, `§6 items 32-33`. The older form `SURFACES.md §2b` named a team file
users never had; its sections were kept, number for number, in docs/surfaces.md, so both forms are checked
against that one document. A `§` after some other document (`SARIF 2.1.0 §3.11.5`, `DESIGN.md §4`) is not
a citation of it.

The rule pages are shipped (`skilllint rule CODE`, SARIF help, editor hovers), so they cite public sources
only: no path into the developers' own material beside the repository (`../shared/corpus`,
`../shared/SURFACES.md`, `../shared/security/`, `RULES.md`) and no folder name of the corpus copy
(`github__awesome-copilot/...`); a public skill is named by its repository and path
(github/awesome-copilot `skills/create-readme/SKILL.md`).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SURFACES = ROOT / "docs" / "surfaces.md"

# The numbering citations rely on; renumbering would silently repoint every citation.
SECTIONS = {"0", "1", "1a", "1b", "2", "2a", "2b", "2c", "3", "3a", "3b", "3c", "3d", "4", "4a", "5", "6", "7"}

HEADING = re.compile(r"^#{2,3} §(\d+[a-z]?)(?: |$)")
NUMBERED_ITEM = re.compile(r"^(\d+)\. ")
FENCE = re.compile(r"^\s*(```|~~~)")

# A document named just before a section sign: the surfaces document in either spelling, or any other
# `*.md` that is itself followed by a section reference (which then owns the `§` that follow it).
SURFACES_NAME = r"(?:docs/surfaces\.md|SURFACES\.md)"
DOC_NAME = re.compile(
    rf"(?<![\w./-])(?:(?P<ours>{SURFACES_NAME})|(?P<other>[\w./-]+\.md)(?=\s+(?:§|sections?\s+\d)))"
)
# `§2b` or `section 3d`, optionally followed by the numbered items cited in it: `item 9`, `items 3, 4
# and 7`, `items 32-33`, `, step 8`, `, check 10`. A dotted number (`§3.11.5`) is another document's.
ITEM_LIST = r"\d+(?:\s*(?:-|–|,|and|, and)\s*\d+)*"
SECTION_REF = re.compile(
    rf"(?:§|{SURFACES_NAME}\s+sections?\s+)(?P<section>\d+[a-z]?)(?![\w]|\.\d)"
    rf"(?:,?\s+(?:items?|steps?|checks?)\s+(?P<items>{ITEM_LIST}))?"
)


def surfaces_outline() -> dict[str, set[int]]:
    """Section id -> the numbers of the numbered list items in it (code blocks excluded)."""
    outline: dict[str, set[int]] = {}
    current = None
    in_fence = False
    for line in SURFACES.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading:
            current = heading.group(1)
            assert current not in outline, f"docs/surfaces.md has two headings for §{current}"
            outline[current] = set()
        elif current is not None and (item := NUMBERED_ITEM.match(line)):
            outline[current].add(int(item.group(1)))
    return outline


def _item_numbers(items: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*(?:, and|,|and)\s*", items.strip()):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2:
            numbers.extend(range(int(bounds[0]), int(bounds[1]) + 1))
        else:
            numbers.append(int(bounds[0]))
    return numbers


def citations(text: str) -> list[tuple[str, list[int], int]]:
    """(section, cited item numbers, offset) for every reference that belongs to the surfaces document."""
    owners = [(m.start(), m.group("ours") is not None) for m in DOC_NAME.finditer(text)]
    found = []
    for ref in SECTION_REF.finditer(text):
        preceding = [ours for start, ours in owners if start <= ref.start()]
        if preceding and preceding[-1]:
            items = _item_numbers(ref.group("items")) if ref.group("items") else []
            found.append((ref.group("section"), items, ref.start()))
    return found


def cited_files() -> list[Path]:
    pages = sorted((ROOT / "rulebook").glob("*/README.md"))
    modules = sorted((ROOT / "skilllint").rglob("*.py"))
    return pages + modules


def test_surfaces_keeps_its_section_numbers():
    outline = surfaces_outline()
    assert set(outline) == SECTIONS
    # §6 is cited item by item: its list runs 1..62 without gaps.
    assert outline["6"] == set(range(1, 63))
    assert outline["1b"] == set(range(1, 11))
    assert outline["2a"] == set(range(1, 9))


def test_every_cited_section_exists_in_surfaces():
    outline = surfaces_outline()
    missing = []
    total = 0
    for path in cited_files():
        text = path.read_bytes().decode("utf-8", "replace")
        for section, items, offset in citations(text):
            total += 1
            where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, offset) + 1}"
            if section not in outline:
                missing.append(f"{where}: §{section}")
                continue
            missing.extend(f"{where}: §{section} item {n}" for n in items if n not in outline[section])
    assert total > 0, "no citation of docs/surfaces.md found: the citation pattern no longer matches"
    assert not missing, "cited but not in docs/surfaces.md:\n" + "\n".join(missing)


def test_citation_parser():
    text = (
        "See docs/surfaces.md §1 (spec), §1b items 3, 4 and 7, §2a, step 8 and §6 items 32-33.\n"
        "SARIF 2.1.0 §3.11.5 is not ours; docs/surfaces.md section 3d is; DESIGN.md §4 is not, nor §5 after it."
    )
    found = [(section, items) for section, items, _ in citations(text)]
    assert found == [("1", []), ("1b", [3, 4, 7]), ("2a", [8]), ("6", [32, 33]), ("3d", [])]


# Paths and names of the developers' own material, which users of the rule book do not have. A folder
# called `shared/` inside an example tree (`fail/shared/style-guide.md`) or a public skill
# (`skills/claude-api/shared/error-codes.md`) is not one of them.
PRIVATE_MATERIAL = re.compile(
    r"(?:\.\./|/work/)shared/"  # any path into the folder beside the repository ...
    r"(?:corpus|security|hooks|SURFACES\.md|RULES\.md|DESIGN\.md)"
    r"|\bshared/(?:corpus|security)\b"  # ... or into its corpus and fixtures, however reached
    r"|(?<![\w./-])(?:SURFACES|RULES)\.md\b"  # the team's documents, by name
    r"|\b[A-Za-z0-9][\w.-]*__[\w.-]+/"  # a corpus folder (`owner__repo/`) in place of owner/repo
)


def test_private_material_pattern():
    for private in (
        "On `../shared/corpus` (1,021 skills)",
        "see ../shared/SURFACES.md §2b",
        "`../shared/security/cisco-skill-scanner-evals`",
        "the team's RULES.md",
        "`github__awesome-copilot/skills/create-readme/SKILL.md`",
        "/work/shared/corpus/anthropics__skills",
    ):
        assert PRIVATE_MATERIAL.search(private), private
    for public in (
        "github/awesome-copilot `skills/create-readme/SKILL.md`",
        "[the style guide](../shared/style-guide.md)",
        "`fail/shared/changelog`",
        "anthropics/skills `skills/claude-api/shared/error-codes.md`",
        "docs/surfaces.md §2b",
        "`__init__.py`, `Path(__file__).parent`",
    ):
        assert not PRIVATE_MATERIAL.search(public), public


def test_rule_pages_cite_no_private_material():
    found = []
    for page in sorted((ROOT / "rulebook").glob("*/README.md")):
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if match := PRIVATE_MATERIAL.search(line):
                found.append(f"{page.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()[:100]}")
    assert not found, (
        "rule pages cite material users do not have; cite docs/surfaces.md, the public source, or the public\n"
        "repository and path of a skill instead:\n" + "\n".join(found)
    )
