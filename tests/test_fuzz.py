"""Property tests (hypothesis) over skilllint's parsers and catalog renderers.

Invariants: no exception but the module's own error escapes, and every
position (line, column, span) lies inside the text it points into. The
catalog renderers never exceed their budget; Codex's is order-independent
(R1 and R2 host order), Copilot's listing includes a name-ordered prefix.

How many examples: the hypothesis profile (tests/conftest.py): ``ci`` (the
default, 100 examples per property) or ``long`` for a campaign::

    HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q tests/test_fuzz.py

The engine-level property lints a real package per example and runs a quarter
as many. Inputs are drawn from alphabets of the tokens that matter to each
parser (fences, brackets, anchors, line breaks, BOMs, NULs, astral
characters) mixed with arbitrary text, so short examples reach deep paths.

A real bug found here is pinned as an ``xfail(strict=True)`` example at the
end of this file, with the reason, until skilllint is fixed; once fixed, the
example stays as a plain regression test.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import markdown_oracle

from skilllint.skill.text import frontmatter, markdown, yamltree
from skilllint.catalog import codex, copilot
from skilllint.catalog.codex import (
    R1,
    R2_EXTENSION,
    R2_HOST,
    CatalogEntry,
    Characters,
    Tokens,
    line_cost,
    render_catalog,
)
from skilllint.skill.text.frontmatter import SourceText
from skilllint.skill.references.graph import reference_graph

_PROFILE = settings()  # the loaded profile (conftest.py): its example count scales the slow properties
_SLOW = settings(
    max_examples=max(10, _PROFILE.max_examples // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _lines(text: str) -> list[str]:
    """Lines as skilllint numbers them: ``\\n``, ``\\r\\n`` and ``\\r`` end a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


# ----------------------------------------------------------------------------- frontmatter splitters

_FM_TOKENS = st.sampled_from(
    ["---", "--- ", " ---", "----", "---x", "\t---", "name: a", "description: b --- c", "|", "  ---", "", " ", "x", "é", "😀",
     "\ufeff", "\ufeff---", "...", "#", "\x00"]
)
_FM_BREAKS = st.sampled_from(["\n", "\r\n", "\r", "\n\n"])


@st.composite
def _frontmatter_texts(draw) -> str:
    parts = draw(st.lists(st.tuples(_FM_TOKENS, _FM_BREAKS), max_size=12))
    text = "".join(token + brk for token, brk in parts)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text


def _offset(text: str, line: int, column: int) -> int:
    """Index in ``text`` (split on ``\\n``) of a 0-based (line, column)."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    assert 0 <= line < len(starts), (line, len(starts))
    line_end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
    assert 0 <= column <= line_end - starts[line], (line, column)
    return starts[line] + column


@given(st.one_of(_frontmatter_texts(), st.text(max_size=80)))
def test_splitters_place_the_yaml_and_the_closing_fence_inside_the_text(raw):
    source = SourceText.from_text(raw)
    assert frontmatter.leading_junk(source) in (None, "bom", "blank-lines")
    for name, split in frontmatter.SPLITTERS.items():
        result = split(source)
        assert result.status in ("ok", "missing", "unclosed", "empty"), name
        if result.status != "ok":
            continue
        text = source.text
        start = _offset(text, result.yaml_line, result.yaml_column)
        assert text[start : start + len(result.yaml)] == result.yaml, name
        close = _offset(text, result.close_line, result.close_column)
        assert text[close:].startswith("---"), name
        assert start + len(result.yaml) <= close, name
        # The body starts after the closing fence: inside the file, or just past its end.
        assert result.close_line + 1 <= len(source.lines), name


# ----------------------------------------------------------------------------- YAML

_YAML_ATOMS = st.sampled_from(
    ["a", "é", "日本", "😀", "key", "- ", ": ", "? ", "[", "]", "{", "}", ",", "&a ", "*a", "&b ", "*b", "!!str ", "!x ",
     "'q'", '"d\\u00e9"', '"\\x', "|\n  x", ">-\n  y", "#c", "\t", "  ", "\n", "\n  ", "---", "...", "<<: *a", "<<: [*a, *b]",
     "\ufeff", "\x85", "\u2028", "%YAML 1.2\n", "\x00", "\x07", "~", "yes", "0x1F", "1:20", "2026-02-30", ".inf", "-"]
)
_YAML_TEXTS = st.one_of(st.lists(_YAML_ATOMS, max_size=40).map("".join), st.text(max_size=80))


def _assert_within(lines: list[str], line: int, column: int, what: str) -> None:
    assert 0 <= line < len(lines), (what, line, column, len(lines))
    assert 0 <= column <= len(lines[line]), (what, line, column, lines[line])


@given(_YAML_TEXTS)
def test_yaml_parse_raises_only_yaml_error_and_keeps_positions_inside_the_text(text):
    # SKILL.md never hands the parser a "\r" (SourceText turns line endings into "\n").
    text = text.replace("\r", "")
    # YAML text ends where the closing fence starts: a position on the line after it
    # (libyaml's end of stream) is the fence line of the file, column 0.
    lines = text.split("\n") + [""]
    try:
        doc = yamltree.parse(text)
    except yamltree.YamlError as exc:
        _assert_within(lines, exc.line, exc.column, f"error {exc.message!r}")
        assert "\n" not in exc.message
        return
    for node in yamltree.walk(doc.root):
        _assert_within(lines, node.line, node.column, "start")
        _assert_within(lines, node.end_line, node.end_column, "end")
        assert (node.line, node.column) <= (node.end_line, node.end_column)
        if "\ufeff" in text:  # ruamel does not count a BOM in its columns
            continue
        if node.kind == "scalar" and not node.alias and node.tag is None and not node.anchor:
            here = lines[node.line][node.column :]
            if node.style is None and re.fullmatch(r"[\w.-]+", node.value or ""):
                assert here.startswith(node.value), (node.value, lines[node.line], node.column)
            elif node.style in ("'", '"'):
                assert here.startswith(node.style), (node.style, lines[node.line], node.column)
    for semantics in ("strict", "serde", "yaml11", "yaml12"):
        try:
            yamltree.to_python(doc.root, semantics)
        except yamltree.YamlError as exc:  # the alias-bomb guard
            assert isinstance(exc, yamltree.AliasBombError)
    for key, first in doc.duplicate_keys():
        assert (first.line, first.column) < (key.line, key.column)
    for node, _what, _words in doc.strict_violations():
        _assert_within(lines, node.line, node.column, "strict violation")


@st.composite
def _alias_fans(draw) -> str:
    """Billion-laughs shapes of any width and depth, as sequences, mappings or merge keys."""
    width = draw(st.integers(1, 12))
    depth = draw(st.integers(1, 12))
    shape = draw(st.sampled_from(["seq", "map", "merge"]))
    lines = ["a0: &a0 [lol, lol]"]
    for level in range(1, depth + 1):
        refs = [f"*a{level - 1}"] * width
        if shape == "seq":
            lines.append(f"a{level}: &a{level} [{', '.join(refs)}]")
        elif shape == "map":
            lines.append(f"a{level}: &a{level} {{{', '.join(f'k{i}: {r}' for i, r in enumerate(refs))}}}")
        else:
            lines[0] = "a0: &a0 {k: v}"
            lines.append(f"a{level}: &a{level} {{<<: [{', '.join(refs)}], n{level}: x}}")
    return "\n".join(lines) + "\n"


@given(_alias_fans())
def test_alias_expansion_is_bounded_whatever_the_shape(text):
    doc = yamltree.parse(text)
    for semantics in ("strict", "serde", "yaml11", "yaml12"):
        try:
            yamltree.to_python(doc.root, semantics)
        except yamltree.AliasBombError:
            pass


# ----------------------------------------------------------------------------- Markdown

_MD_ATOMS = st.sampled_from(
    ["[", "]", "(", ")", "!", "<", ">", "`", "```", "~~~", "#", "# ", "\n", " ", "    ", "\t", "a", "é", "😀",
     "references/a.md", "x.md", "http://x", "a:b", '"t"', "'t'", "\\", "*", "_", "]:", "](", "<a:b>", "%20", "#frag",
     "---", "===", "> ", "- ", "1. ", "|", "&amp;", "\u202e", "\x00", "\u2028", "[x]: <y z>"]
)
_MD_TEXTS = st.one_of(st.lists(_MD_ATOMS, max_size=50).map("".join), st.text(max_size=80))


@given(_MD_TEXTS, st.integers(0, 40))
def test_scan_links_finds_each_destination_where_it_is_written(text, offset):
    lines = text.split("\n")
    links, code = markdown.scan_links(text, offset)
    for link in links:
        assert offset < link.line <= offset + len(lines), link
        line = lines[link.line - 1 - offset]
        assert 1 <= link.column <= len(line) + 1, (link, line)
        if link.kind != "definition":  # a definition's `<dest>` loses every < and > (strip("<>"))
            assert line[link.column - 1 :].startswith(link.target), (link, line)
    assert all(offset < number <= offset + len(lines) for number in code)
    headings, fenced = markdown.scan_headings(text, offset)
    assert fenced == code
    for heading in headings:
        assert offset < heading.line <= offset + len(lines) and 1 <= heading.level <= 6


@given(_MD_TEXTS, st.integers(0, 40))
def test_markdown_parse_positions_lie_within_the_text(text, offset):
    text = text.replace("\r", "")  # the body reaches the parser with "\n" line endings only
    lines = text.split("\n")
    doc = markdown_oracle.parse(text, offset)
    for link in doc.links:
        assert offset < link.line <= offset + len(lines), link
        assert 1 <= link.column <= len(lines[link.line - 1 - offset]) + 1, link
    for block in doc.blocks:
        assert offset < block.start <= block.end <= offset + len(lines), block
    for heading in doc.headings:
        assert offset < heading.line <= offset + len(lines), heading


# ----------------------------------------------------------------------------- a whole package: references and every rule

_FIELD_LINES = st.sampled_from(
    ["name: s", "name: S x", "description: Does x. Use when y.", "description: >\n  folded\n  text", "description: |\n  a\n  b",
     "metadata:\n  k: v", "version: 1", "allowed-tools: [a, b]", "x: &a [1]", "y: *a", "name: é日", 'description: "q\\u00e9"',
     "---", "  ---", "bad: [", "k: v: w", "\t", "", "# c", "when_to_use: now", "disable-model-invocation: yes", "license: MIT",
     "compatibility: " + "x" * 600, "name: " + "n" * 70]
)
_BODY_ATOMS = st.sampled_from(
    ["[a](references/a.md)", "[b](missing.md)", "`scripts/run.py`", "references/a.md", "[c](a/../../x.md)", "# Head", "## Head",
     "```", "```bash\npython scripts/run.py\n```", "\n", " ", "é", "😀", "/Users/bob/x", "[d](#head)", "[e](references/a.md#nope)",
     "<https://x>", "[f]: references/a.md", "\r\n", "\r", "\t", "\x00", "\ufeff", "Use when", "~~~", "> q", "- item",
     "| a | b |\n|---|---|\n| 1 | 2 |", "`{baseDir}/references/a.md`", "[g](<references/a.md>)", "references/", "\xff"]
)


@st.composite
def _skill_files(draw) -> bytes:
    head = draw(st.sampled_from(["---\n", "\ufeff---\n", "---\r\n", "", "--- \n"]))
    fields = "\n".join(draw(st.lists(_FIELD_LINES, max_size=8)))
    close = draw(st.sampled_from(["\n---\n", "\n---", "\r\n---\r\n", "\n--- \n", ""]))
    body = "".join(draw(st.lists(_BODY_ATOMS, max_size=24)))
    # "\xff" stands for a byte that is not UTF-8.
    return (head + fields + close).encode("utf-8") + b"\xff".join(part.encode("utf-8") for part in body.split("\xff"))


@pytest.fixture(scope="module")
def workspace():
    from skilllint.config.settings import load_settings
    from skilllint.registry import registry
    from skilllint.targets import TARGETS

    base = Path(tempfile.mkdtemp(prefix="skilllint-fuzz-"))
    (base / ".git").mkdir()
    settings_ = load_settings(registry(), base, None)
    settings_.targets = tuple(TARGETS)  # every target: every splitter, parser and rule
    yield base, settings_
    shutil.rmtree(base, ignore_errors=True)


def _write_package(base: Path, skill_md: bytes, reference: str) -> Path:
    root = base / "s"
    shutil.rmtree(root, ignore_errors=True)
    (root / "references").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "SKILL.md").write_bytes(skill_md)
    (root / "references" / "a.md").write_bytes(reference.encode("utf-8", "surrogatepass"))
    (root / "scripts" / "run.py").write_text("print(1)\n")
    return root


def _file_lines(data: bytes) -> list[str]:
    """A file's lines as diagnostics count them (line 1 starts after a BOM)."""
    return SourceText.from_text(data.decode("utf-8", errors="replace")).lines


def _assert_span_inside(lines: list[str], span, what) -> None:
    assert 1 <= span.line <= len(lines), (what, span, len(lines))
    assert 1 <= span.column <= len(lines[span.line - 1]) + 1, (what, span, lines[span.line - 1])
    assert (span.line, span.column) <= (span.end_line, span.end_column), (what, span)
    assert span.end_line <= len(lines), (what, span, len(lines))
    # A one-character highlight at the end of a line covers its line break.
    widened = span.end_line == span.line and span.end_column == span.column + 1
    assert span.end_column <= len(lines[span.end_line - 1]) + 1 + widened, (what, span, lines[span.end_line - 1])


def _lint_and_check_positions(base: Path, settings_, skill_md: bytes, reference: str) -> None:
    from skilllint.lint.engine import lint_paths
    from skilllint.skill.package import SkillPackage

    root = _write_package(base, skill_md, reference)
    texts = {"SKILL.md": skill_md, "references/a.md": reference.encode("utf-8", "surrogatepass")}
    # The reference graph: each reference's span holds what it says was written there.
    graph = reference_graph(SkillPackage(root, base))
    for ref in graph.references:
        assert ref.source in graph.scanned, ref
        assert ref.status in ("ok", "missing", "outside", "loop", "unknown"), ref
        if ref.source not in texts:
            continue
        lines = _lines(graph.texts[ref.source]) if ref.source != "SKILL.md" else _file_lines(skill_md)
        assert 1 <= ref.line <= len(lines), ref
        line = lines[ref.line - 1]
        assert 1 <= ref.column <= ref.end_column <= len(line) + 1, (ref, line)
        assert line[ref.column - 1 : ref.end_column - 1] == ref.raw, (ref, line)
        if ref.status == "ok":
            assert ref.resolved is not None and (ref.resolved == "." or (root / ref.resolved).exists()), ref
    # Every rule on every target: no internal error, every position inside its file.
    result = lint_paths(["s"], settings_, base)
    assert not result.internal_errors, result.internal_errors
    for diag in result.diagnostics:
        rel = diag.path.relative_to(root).as_posix() if diag.path != root else "."
        if rel in texts:
            lines = _file_lines(texts[rel])
            _assert_span_inside(lines, diag.span, (diag.code, rel))
            for related in diag.related:
                if related.path == diag.path:
                    _assert_span_inside(lines, related.span, (diag.code, "related"))


@_SLOW
@given(skill_md=_skill_files(), reference=st.one_of(_MD_TEXTS, st.text(max_size=60)))
def test_every_rule_keeps_its_positions_inside_the_file(workspace, skill_md, reference):
    base, settings_ = workspace
    _lint_and_check_positions(base, settings_, skill_md, reference)


# ----------------------------------------------------------------------------- Codex catalog (extends tests/test_catalog_codex.py)
# tests/test_catalog_codex.py already holds the R1 property with whitespace-collapsed
# descriptions. Here: the R2 generations (host and extension, with short descriptions,
# 1,024-character pre-truncation, unscoped entries and the omission marker), and R1 fed
# descriptions the loader never produces (line breaks, surrogates, 1,100 characters).

_names = st.text(alphabet="abcxyz-é日", min_size=1, max_size=6)
_raw_descs = st.one_of(
    st.text(max_size=40),
    st.builds(lambda c, n: c * n, st.sampled_from(["a", "é", "😀", " ", "\n"]), st.integers(990, 1100)),
)
_paths = st.sampled_from(["/a", "/a/b", "/a-b", "/z/SKILL.md", "./r", "/日/SKILL.md", "a\\b", "/a//b/."]).flatmap(
    lambda base: st.integers(0, 3).map(lambda i: f"{base}/{i}/SKILL.md")
)


def _entries(scopes):
    return st.lists(
        st.builds(
            CatalogEntry,
            name=_names,
            description=_raw_descs,
            path=_paths,
            scope=st.sampled_from(scopes),
            enabled=st.booleans() | st.just(True),
            allow_implicit_invocation=st.booleans() | st.just(True),
            short_description=st.none() | st.text(max_size=12),
        ),
        max_size=8,
    )


def _check_render(entries, budget, options):
    text, receipt = result = render_catalog(entries, budget, options)
    visible = [e for e in entries if e.enabled and e.allow_implicit_invocation]
    assert receipt.budget_used <= budget.limit  # never over budget
    if isinstance(budget, Characters):
        # "used" is what the text costs: every line plus its line break (a line break
        # inside a description belongs to its line and costs one character either way).
        assert receipt.budget_used == (len(text) + 1 if text else 0)
    assert receipt.total_count == len(visible) == receipt.included_count + receipt.omitted_count
    for s in receipt.skills:
        assert 0 <= s.chars_shown <= s.description_chars
        if options.max_description_chars is not None:
            assert s.description_chars <= options.max_description_chars
        if s.included:
            assert f"- {s.name}: " in text and f"(file: {s.path})" in text
    if options.omission_marker and receipt.omitted_count:
        marker = codex.omission_marker(receipt.omitted_count)
        assert text.endswith(marker) or line_cost(budget, marker) > budget.limit
    return result


@given(entries=_entries(["system", "admin", "repo", "user", None]), data=st.data())
def test_codex_r2_renderers_stay_within_budget(entries, data):
    options = data.draw(st.sampled_from([R2_HOST, R2_EXTENSION]))
    unit = data.draw(st.sampled_from([Characters, Tokens]))
    full = sum(line_cost(unit(10**12), codex.full_line(e.name, e.short_description or e.description, e.path)) for e in entries)
    budget = unit(data.draw(st.integers(0, full + 5)))
    result = _check_render(entries, budget, options)
    permuted = data.draw(st.permutations(entries))
    if options is R2_HOST:
        assert render_catalog(permuted, budget, options) == result  # sorted: input order is irrelevant
    else:
        # Provider order is kept: the included skills appear in the order given.
        order = [(e.name, e.path.replace("\\", "/")) for e in entries if e.enabled and e.allow_implicit_invocation]
        included = [(s.name, s.path) for s in result.receipt.skills if s.included]
        rest = iter(order)
        assert all(item in rest for item in included), (included, order)  # a subsequence


@given(entries=_entries(["system", "admin", "repo", "user"]), data=st.data())
def test_codex_r1_stays_within_budget_for_descriptions_the_loader_never_makes(entries, data):
    unit = data.draw(st.sampled_from([Characters, Tokens]))
    full = sum(line_cost(unit(10**12), codex.full_line(e.name, e.description, e.path)) for e in entries)
    budget = unit(data.draw(st.integers(0, full + 5)))
    result = _check_render(entries, budget, R1)
    assert render_catalog(data.draw(st.permutations(entries)), budget, R1) == result


# ----------------------------------------------------------------------------- Copilot listing


@given(
    st.lists(st.tuples(st.text(max_size=10), st.text(max_size=60)), max_size=12, unique_by=lambda t: t[0]).map(
        lambda pairs: [copilot.ListingEntry(name, desc, key=f"k{i}") for i, (name, desc) in enumerate(pairs)]
    ),
    st.integers(1, 2_000),
    st.data(),
)
def test_copilot_listing_is_a_name_ordered_prefix_within_budget(entries, budget, data):
    listing = copilot.listing(entries, budget)
    assert listing.used <= listing.budget == budget
    ordered = sorted(entries, key=lambda e: (e.name, e.order))
    included = [s.included for s in listing.skills]
    assert [s.name for s in listing.skills] == [e.name for e in ordered]
    assert included == sorted(included, reverse=True), "the included skills are a prefix"
    assert listing.included == sum(included) and listing.total == len(entries)
    assert listing.used == sum(s.cost for s in listing.skills if s.included)
    if listing.omitted:
        first_out = listing.skills[listing.included]
        assert listing.used + first_out.cost > budget  # the loop stopped because it did not fit
        assert listing.text.endswith(listing.notice)
    blocks = [copilot.block(e.name, e.description) for e, s in zip(ordered, listing.skills) if s.included]
    assert listing.text.startswith("\n".join(blocks))  # whole blocks: descriptions are never cut
    assert sum(len(b) + 1 for b in blocks) == listing.used
    assert copilot.listing(data.draw(st.permutations(entries)), budget) == listing


# ----------------------------------------------------------------------------- found by fuzzing, fixed since
# SkillPackage.byte_position once counted only b"\n" as a line break and the BOM as a column,
# so SL009 named the wrong line after a lone "\r" and a column past the line's end.


def _sl009_position(tmp_path: Path, data: bytes) -> tuple[int, int]:
    from conftest import lint_json

    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "SKILL.md").write_bytes(data)
    [diag] = lint_json("--select", "SL009", "s", cwd=tmp_path)["diagnostics"]
    return diag["line"], diag["column"]


def test_sl009_position_after_a_lone_carriage_return(tmp_path):
    data = b"---\nname: s\ndescription: Does x. Use when y.\n---\na\rb\x00c\n"
    # Lines end at \n, \r\n or \r (diagnostics.Edit): the NUL is on line 6, column 2.
    assert _sl009_position(tmp_path, data) == (6, 2)


def test_sl009_position_after_a_byte_order_mark(tmp_path):
    assert _sl009_position(tmp_path, b"\xef\xbb\xbf--\x00-\nname: s\n") == (1, 3)
