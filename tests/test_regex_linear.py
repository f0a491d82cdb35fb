"""Every regular expression of skilllint runs in linear time on hostile input.

Three parts:

* every pattern of the package, found by tests/regex_adversary.py (module attributes,
  literals in ``re`` calls, patterns built at run time, schema keywords), is run in each
  way the package uses it on strings built from its own parse tree, each within a bound
  that a quadratic or cubic pattern overshoots many times (a pattern added later is
  covered without a line here);
* the rewritten patterns and the scanners that replace some (code spans, heading tails,
  suppression comments, heading markup, run phrases) give what the old regexes gave,
  checked with hypothesis against the old regexes kept here as literals;
* end to end, in a separate process (tests/test_hostile.py's harness): the three inputs
  that were reported, and the other blow-ups found while auditing.
"""

from __future__ import annotations

import re
import sys
import time

import pytest
import regex_adversary as adversary
from hypothesis import example, given
from hypothesis import strategies as st
from conftest import LINEAR_AT_4X, growth
from test_hostile import check_json, skill, tree  # noqa: F401  (tree: a fixture)

from skilllint.skill.fields import frontmatter_fixes
from skilllint.skill.text import markdown
from skilllint.skill.suppressions import comments as suppress
from skilllint.skill.references import graph as reference_links
from skilllint.catalog import description_trigger as catalog_trigger
from skilllint.skill.references import document_toc, mention_context, resource_reach
from skilllint.skill.scripts import invocations as scripts
from skilllint.skill.references import folder_mentions
from skilllint.skill.references import generic_pointers as reference_rules

RUN = 20_000  # characters in a run after an opener: cubic patterns take minutes, quadratic seconds
REPEAT = 100_000  # characters of repeated openers: a rescan from each takes seconds
# Each hostile string is tried at a sixteenth, a quarter and the whole size, and the CPU time of
# each size compared with the one before (best of three; a ratio of two sizes in one run, never a
# number of seconds): linear work about 4, quadratic 16, cubic 64. A cubic pattern fails at the small
# sizes instead of hanging on the large. Below NOISE_FLOOR a run's time is taken as NOISE_FLOOR: a
# ratio of microseconds is the timer's noise, and a pattern that takes that little is no danger.
NOISE_FLOOR = 0.002  # seconds: a floor for the divisor, not a bound

# Patterns only ever applied to text cut to a length: tried up to that length, where quadratic work
# is bounded by the cap and allowed (CAPPED_AT_4X), cubic is not. (The "asks to"
# cue's (?=.*\b(?:user|you|…)\b) looks to the end of the description from each "asks to".)
# Globs are matched against paths: at most 4,096 characters (PATH_MAX) and 255 a segment,
# where the two stars a segment may hold (discovery.tame_glob) cost its length squared.
CAPPED = {"skilllint.catalog.description_trigger.CUES": catalog_trigger.SCAN_CHARS, "skilllint.discovery.gitignore:__init__ (built)": 4096}


# -- every pattern, found --------------------------------------------------------------------

PATTERNS = adversary.all_patterns()


def test_the_search_finds_the_patterns_of_every_kind():
    where = {found.where for found in PATTERNS}
    assert len(PATTERNS) > 150
    assert "skilllint.skill.suppressions.comments._YAML" in where  # module level, re.compile
    assert "skilllint.skill.references.document_toc._TOC_TITLE" in where  # module level, lazyre.compile
    assert "skilllint.catalog.description_trigger.CUES" in where  # inside a tuple
    assert any(w.startswith("skilllint.skill.references.disclosure_graph:") for w in where)  # re.sub(r"…", …) in a function
    assert any(w.startswith("skilllint.skill.references.graph:_plain_pattern") for w in where)  # built at run time
    assert any(w.startswith("schema ") for w in where)


def test_every_pattern_built_at_run_time_has_a_builder_here():
    # A call like re.compile(f"…{x}…") in a function: add it to BUILT_AT_RUN_TIME in
    # tests/regex_adversary.py with a call that builds its patterns, so they are timed.
    assert adversary.unlisted_builders() == []


# Patterns passed on, whose uses the source scan cannot see, with the uses they are put to where
# they arrive. (Full-matched, the fence markers are quadratic on a run of backticks and a line
# break: x16 at four times the size; _fences only ever calls ``marker.match(text, start)``.)
PASSED_ON_USES = {
    "skilllint.skill.text.markdown._FENCE_MARKER": frozenset({"match"}),
    "skilllint.skill.text.markdown._INDENTED_FENCE": frozenset({"match"}),
}


def _ways(found: adversary.Found) -> tuple[str, ...]:
    """How the package uses a pattern: a search (tried at every position; also
    ``match(text, pos)``), a match at the start, a full match; all where it is passed on
    or built (unless PASSED_ON_USES says)."""
    uses = PASSED_ON_USES.get(found.where, found.uses)
    ways = []
    if uses & (adversary.SEARCHING | {"?"}):
        ways.append("search")
    elif "match" in uses:
        ways.append("match")
    if uses & {"fullmatch", "?"}:
        ways.append("fullmatch")
    return tuple(ways)


def _run(compiled: re.Pattern, way: str, text) -> None:
    if way == "search":
        for _ in compiled.finditer(text):
            pass
    elif way == "match":
        compiled.match(text)
    else:
        compiled.fullmatch(text)


def _cpu(compiled: re.Pattern, way: str, text) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        _run(compiled, way, text)
        best = min(best, time.process_time() - start)
    return max(best, NOISE_FLOOR)


CAPPED_AT_4X = 32.0  # within a cap: quadratic (16) allowed, cubic (64) not


@pytest.mark.slow
@pytest.mark.parametrize("found", PATTERNS, ids=[f.where for f in PATTERNS])
def test_every_pattern_is_linear_on_hostile_strings(found):
    compiled = found.compiled()
    cap = CAPPED.get(found.where)
    bound = CAPPED_AT_4X if cap else LINEAR_AT_4X
    sizes = [(cap // 16, cap // 16), (cap // 4, cap // 4), (cap, cap)] if cap else [(RUN // k, REPEAT // k) for k in (16, 4, 1)]
    previous = None
    for run, repeat in sizes:
        texts = [text[: cap or len(text)] for text in adversary.hostile_strings(found, run, repeat)]
        times = {(index, way): _cpu(compiled, way, text) for index, text in enumerate(texts) for way in _ways(found)}
        if previous is not None:
            grew = [
                (round(times[key] / previous[key], 1), key[1], texts[key[0]][:40], len(texts[key[0]]))
                for key in times
                if key in previous and times[key] / previous[key] > bound
            ]
            assert not grew, f"{found.where} {found.pattern!r}: four times the size, x{bound}+ the CPU time: {grew[:3]}"
        previous = times


# -- what replaced a regex gives what the regex gave ----------------------------------------

# The patterns as they were, kept to prove the new forms equal.
OLD_CODE_SPAN_LOOKBEHIND = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
OLD_CODE_SPAN_POSSESSIVE = r"(`(?<!``)`*+)((?:[^`\n]++|`++)+?)(?<!`)\1(?!`)"  # Python 3.11+ only
OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
OLD_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
OLD_TOC_TITLE = re.compile(
    r"^ {0,3}(?:#{1,6}\s+)?(?:\*\*|__)?(?:table of contents|contents|toc|on this page|in this (?:file|document|guide|page|reference)|sections)"
    r"(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*$",
    re.IGNORECASE,
)
OLD_MD = re.compile(r"<!--\s*skilllint-(disable-next-line|disable-line|disable-file|disable|enable)\b(.*?)-->")
OLD_YAML = re.compile(r"#\s*skilllint:\s*disable(?:=([A-Za-z0-9_, ]+))?\s*$")
OLD_PY_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([\w, ]+)|import\s+([\w., ]+))", re.MULTILINE)
OLD_LEAD_TAIL = re.compile(r"[`\[!]*(?:\{baseDir\}/|\$\{CLAUDE_SKILL_DIR\}/|\$CLAUDE_SKILL_DIR/|\./)?$")
OLD_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`([^`]*)`|</?[A-Za-z][^>]*>|(\*\*|\*|~~|(?<!\w)__?|__?(?!\w))")
OLD_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
OLD_LABEL = re.compile(r"^\s*(?:\*\*|__)?([^*_:|]{2,80}?)(?:\*\*|__)?\s*[:—–-]\s")
OLD_INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\((?=(\s*))\3"
    r"(?P<dest><[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?=(\s*))\5(?:(?<=\s)(?:\"[^\"]*\"|'[^']*'|\([^)]*\))(?=(\s*))\6)?\)"
)
OLD_ANCHOR_LINK = re.compile(r"\]\(#[^)\s]+\)")
OLD_LINK_TARGET = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OLD_WHOLE_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
OLD_LINK_DESTINATION = re.compile(r"\]\([^)]*\)")
OLD_COMMA_OUTSIDE_PARENS = re.compile(r",(?![^()]*\))")
OLD_RUN_WORDS = re.compile(r"(?i)\b(?:run|execute|invoke|launch|call)\s+(?:(?:the|this|that|skill's|script|command|helper|it|with)\s+){0,3}$")


def texts(*pieces: str, size: int = 24):
    return st.lists(st.sampled_from(pieces), max_size=size).map("".join)


def _spans(matches) -> list:
    return [(m.span(), m.span(1), m.span(2), m.group(0), m.group(1), m.group(2)) for m in matches]


SPAN_TEXT = texts("`", "``", "```", "a", " ", "\n", "é", "|", "\\", size=40)


@given(SPAN_TEXT)
def test_code_spans_are_the_lookbehind_regex_matches(text):
    assert _spans(markdown.CODE_SPAN.finditer(text)) == _spans(OLD_CODE_SPAN_LOOKBEHIND.finditer(text))
    replace = lambda m: f"<{m.group(2)}>"  # noqa: E731
    assert markdown.CODE_SPAN.sub(replace, text) == OLD_CODE_SPAN_LOOKBEHIND.sub(replace, text)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="possessive quantifiers exist from Python 3.11")
@given(SPAN_TEXT)
def test_code_spans_are_the_possessive_regex_matches_it_replaces(text):
    old = re.compile(OLD_CODE_SPAN_POSSESSIVE)
    assert _spans(markdown.CODE_SPAN.finditer(text)) == _spans(old.finditer(text))


HEADING_LINE = texts(" ", "#", "##", "\t", "a", "b c", "\r", "*", size=16)


@given(HEADING_LINE)
def test_atx_heading_reads_a_line_as_the_old_regex(line):
    old = OLD_ATX.match(line)
    assert markdown.atx_heading(line) == (old and (len(old.group(1)), old.group(2)))


@given(HEADING_LINE)
def test_disclosure_heading_reads_a_line_as_the_old_regex(line):
    old = OLD_HEADING.match(line)
    assert mention_context._heading(line) == (old and (len(old.group(1)), old.group(2)))


@given(texts(" ", "#", "**", "__", "Contents", "table of contents", ":", "\t", "x", "\x0b", size=10))
def test_toc_title_matches_what_it_matched(line):
    assert bool(document_toc._TOC_TITLE.match(line)) == bool(OLD_TOC_TITLE.match(line))


@given(texts("<!--", "-->", " ", "skilllint-", "disable", "-line", "-next-line", "-file", "enable", "SL1", "x", "<", "-", size=16))
def test_suppression_comments_are_the_old_regex_matches(line):
    assert list(suppress._comments(line)) == [m.groups() for m in OLD_MD.finditer(line)]


@given(texts("#", " skilllint:", "skilllint:", " disable", "disable", "=", "SL1", ",", " ", "\t", "x", size=10))
def test_yaml_suppression_matches_as_before(line):
    # Without a reason (no `--` in these lines) the codes are the old group 1, now group 2.
    new, old = suppress._YAML.search(line), OLD_YAML.search(line)
    assert (new and (new.span(), new.group(2))) == (old and (old.span(), old.group(1)))


@given(texts("from", "import", " ", "\n", "\t", ".", "x", ",", "!", "\x0c", size=14))
def test_python_imports_are_found_as_before(text):
    assert [m.groups() for m in resource_reach._PY_IMPORT.finditer(text)] == [m.groups() for m in OLD_PY_IMPORT.finditer(text)]


@given(texts("`", "[", "!", "./", "{baseDir}/", "$CLAUDE_SKILL_DIR/", "a", " ", "/", "."))
def test_lead_tail_removes_what_it_removed(text):
    assert folder_mentions._LEAD_TAIL.sub("", text) == OLD_LEAD_TAIL.sub("", text)


# The old regex dropped any `<x…>`; since SL307 learned that only what parses as an HTML tag is
# one (`gcroot<T^>` keeps its letters in GitHub's slug), the reference drops only those.
OLD_MARKUP_TAGS_ONLY = re.compile(
    OLD_MARKUP.pattern.replace(r"|</?[A-Za-z][^>]*>|", "|(?:" + markdown._HTML_TAG.pattern + ")|")
)


def _old_plain_heading_text(title: str) -> str:
    def keep(match):
        return match.group(1) if match.group(1) is not None else match.group(2) if match.group(2) is not None else ""

    return OLD_MARKUP_TAGS_ONLY.sub(keep, title).strip()


@given(texts("!", "[", "]", "(", ")", "`", "<", ">", "/", "*", "~", "_", " ", "a", "Z", "](", "![", "</", "**", "__", size=30))
@example("<a!>")  # no tag: kept (hypothesis found it once the reference still dropped it)
def test_heading_markup_is_reduced_as_the_old_regex_did(title):
    assert markdown._plain_heading_text(title) == _old_plain_heading_text(title)


@given(texts("run", "Run", "EXECUTE", "the", "this", "it", "with", "skill's", " ", "  ", "\t", "x", "rerun", "these", "`", size=12))
def test_run_phrases_end_where_the_old_regex_matched(text):
    ends = scripts._run_phrase_ends(text)
    for end in range(len(text) + 1):
        if end == len(text) or not text[end].isspace():  # a code span starts with a backtick
            assert (end in ends) == bool(OLD_RUN_WORDS.search(text[:end])), end


def _old_first_word(line: str):
    stripped = line.lstrip()
    offset = len(line) - len(stripped)
    if stripped.startswith("$ "):
        stripped, offset = stripped[2:], offset + 2
    while True:
        now = stripped.lstrip()
        offset += len(stripped) - len(now)
        stripped = now
        match = re.match(r"""[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+""", stripped)
        if not match:
            break
        stripped, offset = stripped[match.end() :], offset + match.end()
    match = re.match(r"""("[^"]+"|'[^']+'|[^\s;&|()<>"']+)""", stripped)
    return (match.group(1).strip("\"'"), offset) if match else None


@given(texts("$ ", "A=", "b", "=", '"', "'", " ", "\t", "x y", ";", "\u3000", "./s.sh", size=10))
def test_first_word_is_found_as_before(line):
    assert scripts.first_word(line) == _old_first_word(line)


@given(texts("!", "[", "]", "(", ")", "](", " ", '"', "a", "\t", "![", size=30))
def test_links_are_replaced_as_the_old_regex_did(text):
    assert mention_context._sub_links(text, lambda label: f"<{label}>") == OLD_LINK.sub(lambda m: f"<{m.group(1)}>", text)


@given(texts("*", "**", "_", "__", ":", "—", "-", " ", "a", "b c", "|", "\t", size=14))
def test_labels_are_read_as_before_on_text_that_starts_with_no_blank(text):
    text = text.lstrip()  # as _label_reason's text: joined stripped lines, the mention mark before a non-blank
    new, old = mention_context._LABEL.match(text), OLD_LABEL.match(text)
    assert (new and new.group(1)) == (old and old.group(1))


@given(texts("!", "[", "]", "(", ")", "](", " ", '"', "'", "a", "<", ">", size=24))
def test_inline_links_differ_only_where_commonmark_has_no_link(text):
    new = [m.span() for m in markdown._INLINE_LINK.finditer(text)]
    old = [m.span() for m in OLD_INLINE_LINK.finditer(text)]
    if new != old:  # only an <…> destination holding "<" or a (…) title holding "(" made a link before
        assert any("<" in m.group("dest")[1:] or "(" in m.group(0)[m.end("dest") - m.start() :] for m in OLD_INLINE_LINK.finditer(text))


@given(texts("[", "]", "(", ")", "](", "](#", "#", " ", "a", "\t", size=24))
def test_bracket_link_scans_find_what_the_old_regexes_found(text):
    assert document_toc._anchor_links(text) == len(OLD_ANCHOR_LINK.findall(text))
    targets = folder_mentions._bracket_links(text, folder_mentions._DESTINATION_END.compiled(), filled=True)
    assert [text[start:end] for _, _, start, end in targets] == [m.group(1) for m in OLD_LINK_TARGET.finditer(text)]
    assert folder_mentions._without_links(text) == OLD_WHOLE_LINK.sub("", text)
    assert reference_rules._mask_code(text) == OLD_LINK_DESTINATION.sub(lambda m: " " * len(m.group(0)), text)


@given(texts(",", "(", ")", "a", " ", size=24))
def test_commas_outside_parentheses_are_the_old_regex_matches(text):
    assert frontmatter_fixes.commas_outside_parens(text) == [m.start() for m in OLD_COMMA_OUTSIDE_PARENS.finditer(text)]
    assert frontmatter_fixes.split_outside_parens(text) == OLD_COMMA_OUTSIDE_PARENS.split(text)


def _old_inside_link_syntax(line: str, start: int) -> bool:
    before = line[:start]
    if before.endswith(("](", "<")) or before.rstrip().endswith("]:"):
        return True
    opening = before.rfind("[")
    return opening >= 0 and "]" not in before[opening:] and "](" in line[start:]


@given(texts("[", "]", "(", ")", "](", "]:", "<", " ", "\t", "a", "r/x", size=14), st.lists(st.integers(0, 60), max_size=6))
def test_link_syntax_is_judged_as_before(line, positions):
    syntax = reference_links._LinkSyntax(line)
    for start in sorted({p for p in positions if p <= len(line)}):
        assert syntax.covers(start) == _old_inside_link_syntax(line, start)


CODES = st.sampled_from(["SL1", "SL10", "SL101", "SL2", "*", "X", "SL101X"])


@given(
    st.sets(CODES, max_size=2),
    st.dictionaries(st.integers(1, 10), st.sets(CODES, min_size=1, max_size=2), max_size=3),
    st.lists(st.tuples(st.integers(1, 10), st.integers(0, 3), st.sets(CODES, min_size=1, max_size=2)), max_size=6),
)
def test_suppressions_answer_as_the_scan_of_every_range_did(file_codes, line_codes, ranges):
    found = suppress.Suppressions(set(file_codes), dict(line_codes), [(a, a + length, codes) for a, length, codes in ranges])

    def covered(code, codes):
        return any(c == suppress.ALL or code.startswith(c) for c in codes)

    for code in ("SL101", "SL2", "SL3", "X1", "Y"):
        for line in range(14):
            old = covered(code, found.file_codes) or covered(code, found.line_codes.get(line, ()))
            old = old or any(a <= line <= b and covered(code, c) for a, b, c in found.ranges)
            assert found.suppresses(code, line) == old


# -- the scanners that replaced regexes are linear ------------------------------------------


def _judge_every_path(line: str) -> list[bool]:
    syntax = reference_links._LinkSyntax(line)
    return [syntax.covers(at) for at in range(2, len(line), 17)]  # where each "references/a.md" starts


# Each case: the scanner and its input at a quarter (q=4) and the whole size (q=1).
SCANNER_CASES = {
    # the old code span regex: each run length without a partner scans the rest of the line
    "code spans, 1,000 unpaired run lengths": (
        lambda text: list(markdown.CODE_SPAN.finditer(text)),
        lambda q: "".join("`" * k + "x" for k in range(2, 2 + 1000 // q)) + "x`" * (250_000 // q),
    ),
    "heading markup, 500,000 openers without a closer": (
        markdown._plain_heading_text, lambda q: "<a" * (250_000 // q) + "[" * (250_000 // q) + "![" * (100_000 // q)
    ),
    "heading text, a million blanks": (markdown.atx_heading, lambda q: "# a" + " \t" * (500_000 // q) + "b"),
    "disclosure heading, a million blanks": (mention_context._heading, lambda q: "# a" + " " * (1_000_000 // q) + "b"),
    "suppression comments, a megabyte of openers": (lambda line: list(suppress._comments(line)), lambda q: "<!-- skilllint-disable " * (45_000 // q)),
    "run phrases, 200,000 verbs": (scripts._run_phrase_ends, lambda q: "run the " * (200_000 // q)),
    "first word, 200,000 assignments": (scripts.first_word, lambda q: "A=1 " * (200_000 // q) + "x"),
    "links, 100,000 without destination end": (lambda text: mention_context._sub_links(text, str), lambda q: "![](" * (100_000 // q)),
    "link syntax, 100,000 paths on a line": (_judge_every_path, lambda q: "x references/a.md" * (100_000 // q)),
    "anchor links, 100,000 without a close": (document_toc._anchor_links, lambda q: "](#" * (100_000 // q)),
    "links, 300,000 brackets": (folder_mentions._without_links, lambda q: "[" * (300_000 // q) + "[](" * (100_000 // q)),
    "link destinations, 200,000 without a close": (reference_rules._mask_code, lambda q: "](" * (200_000 // q)),
    "links sharing a destination end before a million blanks": (
        lambda text: mention_context._sub_links(text, str), lambda q: "![](" * (50_000 // q) + " " * (1_000_000 // q) + "x"
    ),
    "commas, 300,000 outside parentheses": (frontmatter_fixes.commas_outside_parens, lambda q: "," * (300_000 // q)),
    "suppressions, 20,000 ranges and 20,000 questions": (
        lambda found: [found.suppresses("SL101", line) for line in range(len(found.directives))],
        lambda q: suppress.parse(["<!-- skilllint-disable SL2 -->", "<!-- skilllint-enable -->"] * (20_000 // q)),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCANNER_CASES))
def test_scanners_are_linear(name):
    # Two sizes in one run, by CPU time (the work is in regexes and str methods, in C): four times
    # the input, about four times the work; the old regexes, sixteen times or far more.
    function, make = SCANNER_CASES[name]
    assert growth(function, make(4), make(1)) < LINEAR_AT_4X


# -- end to end: the reported inputs and the others found ------------------------------------

# Each a run of its own under the harness's hang guard, judged by what it finds (and the bytes it
# reads); the old code took 65 s (heading), 73 s (TOC title), 21 s (backtick runs) of CPU and
# minutes more. That the scanners are linear is proved above, two sizes compared in one run.


@pytest.mark.e2e
def test_a_heading_with_4000_blanks_inside(tree):  # noqa: F811
    root = skill(tree.root, "heading", "# a" + " " * 4000 + "b\n\nSee [the guide](references/guide.md).\n")
    (root / "references").mkdir()
    (root / "references" / "guide.md").write_text("# Guide\n\nText.\n")
    result = check_json(tree, "heading", label="heading of 4,000 blanks")
    assert "SL310" in result.codes()  # the rule that reads the heading still runs


@pytest.mark.e2e
def test_a_megabyte_line_of_suppression_openers(tree):  # noqa: F811
    skill(tree.root, "suppress", "Intro.\n\n" + "<!-- skilllint-disable " * 45_000 + "\n")
    check_json(tree, "suppress", label="1 MiB of <!-- skilllint-disable")  # old: minutes


@pytest.mark.e2e
def test_a_toc_title_followed_by_4000_tabs(tree):  # noqa: F811
    root = skill(tree.root, "toc", "# T\n\nRead [the guide](references/guide.md) when deploying.\n")
    (root / "references").mkdir()
    (root / "references" / "guide.md").write_text("contents" + "\t" * 4000 + "x\n\n" + "line\n" * 150)
    result = check_json(tree, "toc", "--select", "SL312", label="contents and 4,000 tabs")
    assert result.codes() == {"SL312"}  # the line is no title: the long file has no table of contents


@pytest.mark.e2e
def test_a_megabyte_line_of_backtick_runs_of_a_thousand_lengths(tree):  # noqa: F811
    # each run length without a partner made the code span regex scan the rest of the line
    line = "".join("`" * k + "x" for k in range(2, 1002)) + "x`" * 200_000
    skill(tree.root, "ticks", "Intro.\n\n" + line + "\n")
    check_json(tree, "ticks", label="backtick runs of 1,000 lengths")


@pytest.mark.e2e
def test_allowed_tools_of_200000_commas_inside_parentheses(tree):  # noqa: F811
    root = tree.root / "tools"
    root.mkdir()
    (root / "SKILL.md").write_text(
        '---\nname: tools\ndescription: Test skill for hostile input. Use when testing skilllint.\nallowed-tools: "Bash('
        + "," * 200_000
        + ')"\n---\nBody.\n'
    )
    check_json(tree, "tools", "--select", "ALL", label="allowed-tools of 200,000 commas")


@pytest.mark.e2e
def test_a_gitignore_glob_with_four_stars_in_one_segment(tree):  # noqa: F811
    (tree.root / ".gitignore").write_text("*a*a*a*a\n")
    references = skill(tree.root, "globs") / "references"
    for index in range(30):  # each folder name took about two seconds to match
        (references / ("a" * 250 + f"b{index}")).mkdir(parents=True)
    check_json(tree, ".", label=".gitignore *a*a*a*a and 250-character names")
