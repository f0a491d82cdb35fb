"""The lexical router of `skilllint eval`: BM25 over what the catalog shows, with a floor."""

from __future__ import annotations
from conftest import LINEAR_AT_4X, growth

from pathlib import Path

from skilllint.catalog.lexical_router import DEFAULT_FLOOR, LexicalIndex, LexicalRouter, content_words
from skilllint.catalog.routing import CatalogView, SkillView


def view(name: str, description: str, *, shown: str | None = None, included: bool = True) -> SkillView:
    return SkillView(name, Path(f"/skills/{name}/SKILL.md"), description if shown is None else shown, description, included)


def catalog(*skills: SkillView) -> CatalogView:
    return CatalogView("codex", "", tuple(skills))


def chosen(query: str, cat: CatalogView, router: LexicalRouter | None = None) -> tuple[str, ...]:
    (verdict,) = (router or LexicalRouter()).decide([query], cat, cat.skills[0])
    return verdict.triggered


PLOTS = view("matplotlib-plots", "Plot data with matplotlib: line plots, scatter plots and histograms.")
STATS = view("seaborn-stats", "Statistical charts with seaborn: distributions, regression fits and heatmaps of correlation matrices.")


def test_words_are_lowered_stemmed_and_stripped_of_stop_words_and_boilerplate():
    assert content_words("Use this skill when the user asks for Plotting the Histograms") == ["plot", "histogram"]
    assert content_words("pdf-forms: fill_in") == ["pdf", "form", "fill"]  # split at anything not a letter or digit
    assert content_words("a b c") == []  # single characters carry nothing


def test_the_sibling_whose_line_shares_the_query_words_wins():
    cat = catalog(PLOTS, STATS)
    assert chosen("Show a heatmap of the correlation matrix", cat) == ("seaborn-stats",)
    assert chosen("Make a scatter plot with matplotlib", cat) == ("matplotlib-plots",)


def test_a_query_below_the_floor_loads_no_skill():
    cat = catalog(PLOTS, STATS)
    assert chosen("Book a table for two at an Italian restaurant", cat) == ()  # no word in common
    # one word of eight in common: 1/8 is under the floor, so nothing triggers
    query = "Plot the quarterly revenue, expenses, margins, headcount, churn, and forecast"
    ranked = LexicalIndex(cat.skills).rank(query)
    assert ranked[0].name == "matplotlib-plots" and 0 < ranked[0].share < DEFAULT_FLOOR
    assert chosen(query, cat) == ()
    assert chosen(query, cat, LexicalRouter(floor=0.1)) == ("matplotlib-plots",)


def test_a_skill_left_out_of_the_catalog_is_never_chosen():
    omitted = view("matplotlib-plots", PLOTS.full, shown="", included=False)
    assert chosen("Make a scatter plot with matplotlib", catalog(omitted, STATS)) == ()


def test_a_cut_description_matches_only_on_what_is_shown():
    full = "Write release notes for a new version. Drafts the changelog from conventional commits."
    cut = view("notes", full, shown=full[:40])
    assert chosen("Draft the changelog from conventional commits", catalog(cut, STATS)) == ()
    assert chosen("Draft the changelog from conventional commits", catalog(view("notes", full), STATS)) == ("notes",)


def test_the_name_counts_as_shown_text():
    dropped = view("matplotlib-plots", PLOTS.full, shown="")  # Claude Code drops a description, keeps the name
    assert chosen("plots in matplotlib", catalog(dropped, STATS)) == ("matplotlib-plots",)


def test_the_choice_is_deterministic_and_ties_load_both_by_name():
    twin_a, twin_b = view("b-twin", "Convert CSV files to JSON."), view("a-twin", "Convert CSV files to JSON.")
    assert chosen("convert this CSV to JSON", catalog(twin_a, twin_b)) == ("a-twin", "b-twin")
    assert chosen("convert this CSV to JSON", catalog(twin_b, twin_a)) == ("a-twin", "b-twin")


def test_the_verdict_says_where_the_skill_under_evaluation_ranked():
    cat = catalog(PLOTS, STATS)
    (verdict,) = LexicalRouter().decide(["Plot a heatmap of the correlation matrix"], cat, PLOTS)
    assert verdict.triggered == ("seaborn-stats",)
    assert verdict.detail["skill"]["rank"] == 2
    assert [entry["name"] for entry in verdict.detail["ranking"]] == ["seaborn-stats", "matplotlib-plots"]
    (unrelated,) = LexicalRouter().decide(["Book a table for two"], cat, PLOTS)
    assert unrelated.detail["ranking"] == [] and unrelated.detail["skill"]["share"] == 0  # no word shared: no one ranks


def test_hostile_queries_route_in_linear_time():
    cat = catalog(PLOTS, STATS, *(view(f"skill-{i}", f"word{i} topic{i} subject{i}") for i in range(200)))
    router = LexicalRouter()

    def queries(q: int) -> list[str]:  # the whole size (q=1) or a quarter (q=4)
        return [
            "plot " * (200_000 // q),  # one word repeated
            " ".join(f"w{i}" for i in range(50_000 // q)),  # distinct words, each stemmed once
            "a" * (1_000_000 // q),  # one word a megabyte long
            "-_" * (500_000 // q),  # separators only
        ]

    verdicts = router.decide(queries(1), cat, PLOTS)
    assert verdicts[0].triggered == ("matplotlib-plots",) and all(v.triggered == () for v in verdicts[1:])
    # the work is linear in the length of the queries: two sizes compared in one run, by CPU time
    assert growth(lambda texts: router.decide(texts, cat, PLOTS), queries(4), queries(1)) < LINEAR_AT_4X


def test_a_product_named_like_a_stem_is_not_folded_with_the_words_that_stem_to_it():
    """In a generated collection every line says "Automate X tasks"; the product called Autom
    is its own stem, which "automate" and "automation" stem to as well. A name the lines write
    capitalised mid-sentence keeps its own term: a request about Autom routes to Autom, and
    "automate" and "automation" still fold together."""
    skills = [
        view(f"{app.lower()}-automation", f"Automate {app} tasks via Rube MCP (Composio): automation for {app} records.")
        for app in ("Asana", "Trello", "Jira", "Notion", "Autom")
    ]
    index = LexicalIndex(skills)
    assert len(index.postings["autom"]) == 1  # the name, in Autom's line alone
    assert content_words("automate automation", index.names_kept) == ["autom~", "autom~"]
    ranked = index.rank("sync my Autom workspace")
    assert ranked[0].name == "autom-automation" and ranked[1].score == 0
