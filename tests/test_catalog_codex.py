"""The Codex catalog renderer (skilllint.catalog.codex) against docs/surfaces.md §3d.

Every R1 unit-test fixture of openai/codex codex-rs/core-skills/src/render.rs @0899b7c4
is reproduced (same names, scopes, descriptions and "/tmp/{name}/SKILL.md" paths as
Codex's ``make_skill``), each run with the input as given and reversed. Expected
costs are derived from the line templates, never hard-coded.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skilllint.catalog import codex
from skilllint.catalog.codex import (
    R1,
    R2_EXTENSION,
    R2_HOST,
    CatalogEntry,
    Characters,
    Tokens,
    budget_for,
    cost,
    full_line,
    line_cost,
    minimum_line,
    render_catalog,
)

ORDERS = pytest.mark.parametrize("order", ["given", "reversed"])

CHARS_INF = Characters(10**12)
TOKENS_INF = Tokens(10**12)

PLAIN_SHORTENED = (
    "Skill descriptions were shortened to fit the skills context budget. Codex can still see every "
    "skill, but some descriptions are shorter. Disable unused skills or plugins to leave more room "
    "for the rest."
)
PERCENT_SHORTENED = (
    "Skill descriptions were shortened to fit the 2% skills context budget. Codex can still see every "
    "skill, but some descriptions are shorter. Disable unused skills or plugins to leave more room "
    "for the rest."
)


def skill(name: str, scope: str = "repo", description: str = "desc", **kw) -> CatalogEntry:
    """Codex's test ``make_skill``: description "desc", path /tmp/{name}/SKILL.md."""
    return CatalogEntry(name=name, description=description, path=f"/tmp/{name}/SKILL.md", scope=scope, **kw)


def arrange(entries, order):
    return list(entries) if order == "given" else list(reversed(entries))


def min_cost(entry: CatalogEntry, budget=CHARS_INF) -> int:
    return line_cost(budget, minimum_line(entry.name, entry.path))


def full_cost(entry: CatalogEntry, budget=CHARS_INF) -> int:
    return line_cost(budget, full_line(entry.name, entry.description, entry.path))


def expected_line(entry: CatalogEntry, description: str) -> str:
    return full_line(entry.name, description, entry.path)


# --------------------------------------------------------------------------- budget and cost


def test_default_budget_uses_two_percent_of_full_context_window():
    assert budget_for(200_000) == Tokens(4_000)
    assert budget_for(99) == Tokens(1)
    assert budget_for(context_window=1) == Tokens(1)


def test_default_budget_falls_back_to_characters_without_context_window():
    assert budget_for(None) == Characters(8_000)
    assert budget_for(-1) == Characters(8_000)
    assert budget_for(0) == Characters(8_000)


def test_r2_configured_max_context_tokens_wins_and_is_capped():
    assert budget_for(200_000, max_context_tokens=3_000) == Tokens(3_000)
    assert budget_for(None, max_context_tokens=50_000) == Tokens(10_000)
    assert budget_for(None, max_context_tokens=10_000) == Tokens(10_000)
    # Option<NonZeroUsize>: 0 means "not configured"
    assert budget_for(200_000, max_context_tokens=0) == Tokens(4_000)
    with pytest.raises(ValueError):
        budget_for(None, max_context_tokens=-5)


def test_budget_units_are_distinct_types():
    assert Tokens(5) != Characters(5)
    assert Tokens(5).unit == "tokens" and Characters(5).unit == "characters"
    assert Tokens(7).limit == 7


def test_cost_units():
    # Characters: Unicode scalar values; Tokens: ceil(utf8 bytes / 4)
    assert cost(CHARS_INF, "héllo") == 5
    assert cost(TOKENS_INF, "héllo") == 2  # 6 bytes
    assert cost(TOKENS_INF, "abcd") == 1
    assert cost(TOKENS_INF, "abcde") == 2
    assert cost(TOKENS_INF, "") == 0
    assert cost(CHARS_INF, "日本") == 2 and cost(TOKENS_INF, "日本") == 2  # 6 bytes
    # a line is costed with its newline
    assert line_cost(CHARS_INF, "abc") == 4
    assert line_cost(TOKENS_INF, "abcd") == 2


def test_line_templates():
    assert minimum_line("n", "/p/SKILL.md") == "- n: (file: /p/SKILL.md)"
    assert full_line("n", "d", "/p/SKILL.md") == "- n: d (file: /p/SKILL.md)"
    assert full_line("n", "", "/p/SKILL.md") == minimum_line("n", "/p/SKILL.md")


# --------------------------------------------------------------------------- R1 fixtures


@ORDERS
def test_budgeted_rendering_truncates_descriptions_equally_before_omitting_skills(order):
    alpha = skill("alpha-skill", description="abcdef")
    beta = skill("beta-skill", description="uvwxyz")
    budget = Characters(min_cost(alpha) + min_cost(beta) + 6)

    text, receipt = render_catalog(arrange([beta, alpha], order), budget)

    assert receipt.included_count == 2
    assert receipt.omitted_count == 0
    assert receipt.truncated_description_chars == 8
    assert receipt.warning is None
    assert text.split("\n") == [expected_line(alpha, "ab"), expected_line(beta, "uv")]


@ORDERS
def test_budgeted_rendering_does_not_warn_when_average_description_truncation_is_within_threshold(order):
    alpha = skill("alpha-skill", description="abcdefghij")
    beta = skill("beta-skill", description="uvwxyzabcd")
    budget = Characters(min_cost(alpha) + min_cost(beta) + 6)

    _, receipt = render_catalog(arrange([alpha, beta], order), budget)

    assert receipt.included_count == 2
    assert receipt.omitted_count == 0
    assert receipt.truncated_description_chars == 16
    assert receipt.truncated_description_count == 2
    assert receipt.warning is None


@ORDERS
def test_budgeted_rendering_warns_when_average_description_truncation_exceeds_threshold(order):
    long_skill = skill("long-skill", description="a" * 250)
    empty_skill = skill("empty-skill", description="")
    budget = Characters(min_cost(long_skill) + min_cost(empty_skill) + 49)

    _, receipt = render_catalog(arrange([long_skill, empty_skill], order), budget)

    assert receipt.total_count == 2
    assert receipt.included_count == 2
    assert receipt.omitted_count == 0
    # 49 = 2 (first char + its space) + 47 more -> 48 shown, 250 - 48 = 202
    assert receipt.truncated_description_chars == 202
    assert receipt.truncated_description_count == 1
    assert receipt.warning == PLAIN_SHORTENED


@ORDERS
def test_budgeted_rendering_token_budget_truncation_warning_mentions_two_percent(order):
    long_skill = skill("long-skill", description="a" * 1000)
    budget = Tokens(min_cost(long_skill, TOKENS_INF) + 1)

    _, receipt = render_catalog(arrange([long_skill], order), budget)

    assert receipt.warning == PERCENT_SHORTENED
    assert receipt.budget_unit == "tokens"
    assert receipt.budget_used <= receipt.budget_limit


@ORDERS
def test_budgeted_rendering_redistributes_unused_description_budget(order):
    short = skill("short-skill", description="x")
    long = skill("long-skill", description="abcdefghi")
    budget = Characters(min_cost(short) + min_cost(long) + 11)

    text, receipt = render_catalog(arrange([short, long], order), budget)

    assert receipt.included_count == 2
    assert receipt.omitted_count == 0
    assert receipt.warning is None
    assert text.split("\n") == [expected_line(long, "abcdefgh"), expected_line(short, "x")]


@ORDERS
def test_budgeted_rendering_preserves_prompt_priority_when_minimum_lines_exceed_budget(order):
    system = skill("system-skill", "system")
    user = skill("user-skill", "user")
    repo = skill("repo-skill", "repo")
    admin = skill("admin-skill", "admin")
    budget = Characters(cost(CHARS_INF, minimum_line(system.name, system.path) + "\n")
                        + cost(CHARS_INF, minimum_line(admin.name, admin.path) + "\n"))

    text, receipt = render_catalog(arrange([system, user, repo, admin], order), budget)

    assert receipt.included_count == 2
    assert receipt.omitted_count == 2
    assert receipt.warning == (
        "Exceeded skills context budget. All skill descriptions were removed and 2 additional "
        "skills were not included in the model-visible skills list."
    )
    assert "- system-skill:" in text
    assert "- admin-skill:" in text
    assert "desc" not in text
    assert "- repo-skill:" not in text
    assert "- user-skill:" not in text
    assert text.split("\n") == [minimum_line(system.name, system.path), minimum_line(admin.name, admin.path)]


@ORDERS
def test_budgeted_rendering_keeps_scanning_after_oversized_entry(order):
    oversized = skill("oversized-system-skill", "system", description="desc " * 100)
    repo = skill("repo-skill", "repo")
    budget = Characters(full_cost(repo))

    text, receipt = render_catalog(arrange([oversized, repo], order), budget)

    assert receipt.included_count == 1
    assert receipt.omitted_count == 1
    assert receipt.warning == (
        "Exceeded skills context budget. All skill descriptions were removed and 1 additional "
        "skill was not included in the model-visible skills list."
    )
    assert "- oversized-system-skill:" not in text
    assert "- repo-skill:" in text
    # the repo skill is first in neither priority nor input: the scan went on past the oversized one
    assert [s.name for s in receipt.skills] == ["oversized-system-skill", "repo-skill"]
    assert [s.included for s in receipt.skills] == [False, True]


# --------------------------------------------------------------------------- issue 4 acceptance cases


@ORDERS
def test_acceptance_a_equal_allowance_for_six_character_descriptions(order):
    one = skill("one", description="abcdef")
    two = skill("two", description="ghijkl")
    budget = Characters(min_cost(one) + min_cost(two) + 6)

    text, receipt = render_catalog(arrange([one, two], order), budget)

    # first character costs 2 (itself + the space before "(file:"), later ones 1:
    # pass 1: 2 + 2, pass 2: 1 + 1 -> two characters each, budget exactly used
    assert receipt.omitted_count == 0
    assert [s.chars_shown for s in receipt.skills] == [2, 2]
    assert text.split("\n") == [expected_line(one, "ab"), expected_line(two, "gh")]
    assert receipt.truncated_description_chars == 8
    assert receipt.truncated_description_count == 2
    assert receipt.budget_used == receipt.budget_limit
    assert receipt.phase == "descriptions-shortened"
    assert receipt.warning is None


@pytest.mark.parametrize("unit", [Characters, Tokens])
@ORDERS
def test_acceptance_b_below_minimum_catalog(order, unit):
    inf = unit(10**12)
    sys_ = skill("zeta-system", "system", description="system skill description")
    adm = skill("admin-tool", "admin", description="admin description")
    rep_a = skill("alpha-repo", "repo", description="repo a")
    rep_b = skill("beta-repo", "repo", description="")
    usr = skill("aaa-user-skill-with-a-long-name", "user", description="user description that is long " * 5)
    entries = [sys_, adm, rep_a, rep_b, usr]
    priority = [sys_, adm, rep_a, rep_b, usr]
    mins = [min_cost(e, inf) for e in priority]
    # room for system, admin and alpha-repo minimum lines, one unit short for beta-repo
    limit = mins[0] + mins[1] + mins[2] + mins[3] - 1
    assert mins[4] > mins[3] - 1  # and user does not fit in the leftover either
    budget = unit(limit)

    text, receipt = render_catalog(arrange(entries, order), budget)

    assert receipt.phase == "descriptions-removed"
    assert text.split("\n") == [minimum_line(e.name, e.path) for e in priority[:3]]
    assert [s.name for s in receipt.skills] == [e.name for e in priority]
    assert [s.included for s in receipt.skills] == [True, True, True, False, False]
    assert all(s.chars_shown == 0 for s in receipt.skills)
    assert [s.minimum_cost for s in receipt.skills] == mins
    assert [s.full_cost for s in receipt.skills] == [full_cost(e, inf) for e in priority]
    assert receipt.total_count == 5
    assert receipt.included_count == 3
    assert receipt.omitted_count == 2
    # every description is lost, omitted ones included; beta-repo had none
    assert receipt.truncated_description_chars == sum(len(e.description) for e in entries)
    assert receipt.truncated_description_count == 4
    assert receipt.budget_used == sum(mins[:3]) <= limit
    of = " of 2%" if unit is Tokens else ""
    assert receipt.warning == (
        f"Exceeded skills context budget{of}. All skill descriptions were removed and 2 additional "
        "skills were not included in the model-visible skills list."
    )


def test_acceptance_c_reversed_input_gives_identical_result():
    a = [skill("one", description="abcdef"), skill("two", description="ghijkl")]
    budget_a = Characters(min_cost(a[0]) + min_cost(a[1]) + 6)
    b = [skill("s", "system", "x" * 40), skill("a", "admin", "y" * 40), skill("r", "repo", "z"),
         skill("u", "user", "w" * 9)]
    budget_b = Characters(min_cost(b[0]) + min_cost(b[1]) + 3)
    for entries, budget in ((a, budget_a), (b, budget_b)):
        assert render_catalog(entries, budget) == render_catalog(list(reversed(entries)), budget)


# --------------------------------------------------------------------------- details of the model


@ORDERS
def test_everything_fits_renders_full_lines_without_warning(order):
    entries = [skill("b", "user", "second"), skill("a", "system", "first")]
    budget = Characters(sum(full_cost(e) for e in entries))
    text, receipt = render_catalog(arrange(entries, order), budget)
    assert text.split("\n") == [expected_line(entries[1], "first"), expected_line(entries[0], "second")]
    assert receipt.phase == "full"
    assert receipt.truncated_description_chars == 0 and receipt.warning is None
    assert receipt.budget_used == budget.limit
    # one unit less: descriptions get shortened (the last pass cannot afford the final character)
    text2, receipt2 = render_catalog(entries, Characters(budget.limit - 1))
    assert receipt2.phase == "descriptions-shortened"
    assert receipt2.truncated_description_chars == 1


def test_first_description_character_pays_for_its_separator():
    e = skill("solo", description="abc")
    base = min_cost(e)
    shown = [render_catalog([e], Characters(base + k)).receipt.skills[0].chars_shown for k in range(4)]
    assert shown == [0, 0, 1, 2]
    # and k = 4 is the full line
    assert render_catalog([e], Characters(base + 4)).receipt.phase == "full"


def test_token_budget_marginal_costs_follow_byte_rounding():
    # Tokens: extra cost of k chars = ceil((min_bytes + k_bytes + 1) / 4) - ceil(min_bytes / 4)
    e = skill("tok", description="é" * 20)  # 2 bytes per character
    line = minimum_line(e.name, e.path) + "\n"
    min_bytes = len(line.encode())
    base = -(-min_bytes // 4)
    for extra in range(0, 12):
        _, receipt = render_catalog([e], Tokens(base + extra))
        k = receipt.skills[0].chars_shown
        expected = max(j for j in range(0, 21) if j == 0 or -(-(min_bytes + 2 * j + 1) // 4) - base <= extra)
        assert k == expected
        assert receipt.budget_used <= receipt.budget_limit


def test_scope_then_name_then_path_order():
    entries = [
        CatalogEntry("same", "d", "/z/SKILL.md", "user"),
        CatalogEntry("same", "d", "/a/SKILL.md", "user"),
        CatalogEntry("b", "d", "/b/SKILL.md", "repo"),
        CatalogEntry("a", "d", "/a2/SKILL.md", "repo"),
        CatalogEntry("zz", "d", "/zz/SKILL.md", "admin"),
        CatalogEntry("zzz", "d", "/zzz/SKILL.md", "system"),
    ]
    _, receipt = render_catalog(entries, CHARS_INF)
    assert [(s.scope, s.name, s.path) for s in receipt.skills] == [
        ("system", "zzz", "/zzz/SKILL.md"),
        ("admin", "zz", "/zz/SKILL.md"),
        ("repo", "a", "/a2/SKILL.md"),
        ("repo", "b", "/b/SKILL.md"),
        ("user", "same", "/a/SKILL.md"),
        ("user", "same", "/z/SKILL.md"),
    ]


def test_r1_orders_paths_by_components_r2_by_string():
    # Rust Path ordering is component-wise: "/a/b" < "/a-b" ("a" < "a-b"), while as strings
    # "/a-b" < "/a/b" ('-' 0x2d < '/' 0x2f).
    e1 = CatalogEntry("s", "d", "/a/b/SKILL.md", "repo")
    e2 = CatalogEntry("s", "d", "/a-b/SKILL.md", "repo")
    assert [s.path for s in render_catalog([e2, e1], CHARS_INF, R1).receipt.skills] == [e1.path, e2.path]
    assert [s.path for s in render_catalog([e1, e2], CHARS_INF, R2_HOST).receipt.skills] == [e2.path, e1.path]


@ORDERS
def test_disabled_and_implicit_invocation_off_cost_nothing(order):
    kept = [skill("one", description="abcdef"), skill("two", description="ghijkl")]
    hidden = [skill("off", enabled=False, description="x" * 500),
              skill("explicit-only", allow_implicit_invocation=False, description="y" * 500)]
    budget = Characters(min_cost(kept[0]) + min_cost(kept[1]) + 6)
    text, receipt = render_catalog(arrange(kept + hidden, order), budget)
    ref_text, ref_receipt = render_catalog(kept, budget)
    assert text == ref_text
    assert receipt.total_count == 2 and receipt.skills == ref_receipt.skills
    assert {(x.name, x.reason) for x in receipt.excluded} == {
        ("off", "disabled"), ("explicit-only", "implicit-invocation-disabled")}


def test_empty_catalog():
    text, receipt = render_catalog([skill("off", enabled=False)], Characters(10))
    assert text == "" and receipt.total_count == 0 and receipt.phase == "empty"
    assert receipt.warning is None and receipt.budget_used == 0


@pytest.mark.parametrize("truncated,warns", [(100, False), (101, True)])
def test_warning_threshold_is_strictly_above_100_average(truncated, warns):
    e = skill("t", description="q" * 150)
    shown = 150 - truncated
    _, receipt = render_catalog([e], Characters(min_cost(e) + 1 + shown))
    assert receipt.truncated_description_chars == truncated
    assert receipt.warning == (PLAIN_SHORTENED if warns else None)


def test_warning_average_rounds_up():
    # 2 skills, 201 truncated chars: ceil(201 / 2) = 101 > 100 -> warning (floor would be 100)
    a = skill("a", description="q" * 150)
    b = skill("b", description="r" * 150)
    # shown 50 + 49 = 99 chars: costs (1 + 50) + (1 + 49)
    budget = Characters(min_cost(a) + min_cost(b) + 101)
    _, receipt = render_catalog([a, b], budget)
    assert receipt.truncated_description_chars == 201
    assert receipt.warning == PLAIN_SHORTENED


def test_singular_omission_warning_with_percent_for_tokens():
    big = skill("big", "system", description="d")
    small = skill("s", "repo", description="d")
    budget = Tokens(min_cost(small, TOKENS_INF))
    assert min_cost(big, TOKENS_INF) > budget.limit
    _, receipt = render_catalog([big, small], budget)
    assert receipt.warning == (
        "Exceeded skills context budget of 2%. All skill descriptions were removed and 1 additional "
        "skill was not included in the model-visible skills list."
    )
    _, r2 = render_catalog([big, small], budget, R2_HOST)
    assert r2.warning.startswith("Exceeded skills context budget. All")


def test_receipt_is_json_serialisable_and_costs_match_text():
    entries = [skill("one", description="abcdef"), skill("two", "system", description="ghijkl")]
    text, receipt = render_catalog(entries, Characters(min_cost(entries[0]) + min_cost(entries[1]) + 5))
    data = json.loads(json.dumps(receipt.to_dict()))
    assert data["budget_unit"] == "characters"
    assert data["skills"][0]["name"] == "two"
    assert data["skills"][0]["truncated_chars"] == 6 - data["skills"][0]["chars_shown"]
    assert receipt.budget_used == sum(line_cost(Characters(0), l) for l in text.split("\n"))
    assert receipt.model == codex.MODELLED_VERSION and "0899b7c4" in codex.MODELLED_VERSION


def test_backslashes_in_paths_are_rendered_as_slashes():
    e = CatalogEntry("w", "d", "C:\\skills\\w\\SKILL.md", "user")
    assert render_catalog([e], CHARS_INF).text == "- w: d (file: C:/skills/w/SKILL.md)"


def test_unknown_scope_rejected():
    with pytest.raises(ValueError):
        CatalogEntry("x", "d", "/p", "project")


# --------------------------------------------------------------------------- R2 options


def test_r2_pretruncates_descriptions_to_1024_chars():
    e = skill("long", description="a" * 2000)
    text, receipt = render_catalog([e], CHARS_INF, R2_HOST)
    assert text == expected_line(e, "a" * 1021 + "...")
    assert receipt.skills[0].description_chars == 1024
    assert receipt.truncated_description_chars == 0
    # R1 has no pre-truncation
    assert render_catalog([e], CHARS_INF, R1).text == expected_line(e, "a" * 2000)
    assert codex.truncate_catalog_description("a" * 1024) == "a" * 1024


def test_r2_plain_shortened_warning_for_tokens():
    long_skill = skill("long-skill", description="a" * 1000)
    budget = Tokens(min_cost(long_skill, TOKENS_INF) + 1)
    assert render_catalog([long_skill], budget, R2_HOST).receipt.warning == PLAIN_SHORTENED


def test_r2_extension_omission_marker_pops_lines_until_it_fits():
    # provider order kept; every minimum line is longer than any marker line
    entries = [skill(f"skill-with-a-rather-long-name-{i}", description="") for i in range(4)]
    mins = [min_cost(e) for e in entries]
    assert min(mins) > line_cost(Characters(0), codex.omission_marker(3))
    budget = Characters(mins[0] + mins[1] + mins[2])  # 3 of 4 fit, the marker does not fit next to them
    text, receipt = render_catalog(entries, budget, R2_EXTENSION)
    lines = text.split("\n")
    assert lines[-1] == codex.omission_marker(receipt.omitted_count)
    assert receipt.omitted_count == 2 and receipt.included_count == 2
    assert lines[:-1] == [minimum_line(e.name, e.path) for e in entries[:2]]
    assert receipt.budget_used <= budget.limit
    assert receipt.warning == (
        "Exceeded skills context budget. All skill descriptions were removed and 2 additional "
        "skills were not included in the model-visible skills list."
    )
    assert codex.omission_marker(1) == "- 1 additional skill omitted from this bounded skills list."


def test_r2_extension_prefers_short_description_and_keeps_provider_order():
    entries = [skill("b", description="long text", short_description="short"), skill("a", "system")]
    text, _ = render_catalog(entries, CHARS_INF, R2_EXTENSION)
    assert text.split("\n") == [expected_line(entries[0], "short"), expected_line(entries[1], "desc")]
    text_r1, _ = render_catalog(entries, CHARS_INF, R1)
    assert text_r1.split("\n") == [expected_line(entries[1], "desc"), expected_line(entries[0], "long text")]


# --------------------------------------------------------------------------- properties

_names = st.text(alphabet="abcxyz-é日", min_size=1, max_size=6)
# The loader collapses whitespace in descriptions before they reach the
# renderer (S-CX-LOAD sanitize_single_line), so no line breaks here.
_descs = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zl", "Zp", "Cc")), max_size=40).map(
    lambda text: " ".join(text.split())
)
_entries = st.lists(
    st.builds(
        CatalogEntry,
        name=_names,
        description=_descs,
        path=st.sampled_from(["/a", "/a/b", "/a-b", "/z/SKILL.md", "./r", "/日/SKILL.md"]).flatmap(
            lambda base: st.integers(0, 3).map(lambda i: f"{base}/{i}/SKILL.md")),
        scope=st.sampled_from(["system", "admin", "repo", "user"]),
        enabled=st.booleans() | st.just(True),
        allow_implicit_invocation=st.booleans() | st.just(True),
    ),
    max_size=8,
)


@given(entries=_entries, data=st.data())
def test_property_never_exceeds_budget_and_is_order_independent(entries, data):
    unit = data.draw(st.sampled_from([Characters, Tokens]))
    inf = unit(10**12)
    visible = [e for e in entries if e.enabled and e.allow_implicit_invocation]
    full = sum(full_cost(e, inf) for e in visible)
    limit = data.draw(st.integers(0, full + 5))
    budget = unit(limit)

    result = render_catalog(entries, budget)
    text, receipt = result
    lines = text.split("\n") if text else []

    # never exceeds the budget, and the receipt's "used" is the text's real cost
    used = sum(line_cost(budget, line) for line in lines)
    assert used == receipt.budget_used <= limit
    assert receipt.included_count + receipt.omitted_count == receipt.total_count == len(visible)
    assert len(lines) == receipt.included_count
    # each rendered line is its skill's line with a description prefix
    shown = [s for s in receipt.skills if s.included]
    for line, s in zip(lines, shown):
        e = next(e for e in visible if e.name == s.name and e.path == s.path and e.scope == s.scope
                 and line == full_line(e.name, e.description[: s.chars_shown], e.path))
        assert line_cost(budget, line) <= s.full_cost
        assert s.minimum_cost == min_cost(e, inf)
    assert receipt.truncated_description_chars == sum(s.description_chars - s.chars_shown for s in receipt.skills)
    if receipt.omitted_count:
        assert all(s.chars_shown == 0 for s in receipt.skills)  # descriptions go before entries
    if receipt.phase == "full":
        assert receipt.truncated_description_chars == 0 and receipt.warning is None

    # order independence
    permuted = data.draw(st.permutations(entries))
    assert render_catalog(permuted, budget) == result
