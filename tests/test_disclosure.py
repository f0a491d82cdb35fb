"""SL303, SL304, SL310, SL312 beyond their rule-book examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import LINEAR_AT_4X, growth, lint_json, write_skill
from skilllint.skill.references.document_toc import has_toc
from skilllint.skill.references.mention_context import BodyContext

HEAD = "---\nname: {name}\ndescription: Does a thing. Use when the user asks for the thing.\n---\n"


def make_skill(base: Path, name: str, body: str, files: dict[str, str] | None = None) -> Path:
    skill = write_skill(base, name, HEAD.format(name=name) + body)
    for rel, text in (files or {}).items():
        target = skill / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return skill


def diagnostics(tmp_path: Path, codes: str, *extra: str) -> list[dict]:
    return lint_json(str(tmp_path), "--select", codes, *extra, cwd=tmp_path)["diagnostics"]


# -- SL310: cue detection ----------------------------------------------------------


def explain(body: str, target: str = "references/api-errors.md") -> str | None:
    """The verdict on the first mention of ``target`` in ``body`` (a SKILL.md body)."""
    lines = body.split("\n")
    for number, line in enumerate(lines, start=1):
        column = line.find(target)
        if column >= 0:
            return BodyContext(lines, 0).explain(number, column + 1, target)
    raise AssertionError(f"{target} not in body")


@pytest.mark.parametrize(
    "body",
    [
        "Read `references/api-errors.md` after a non-200 response.",
        "When a call fails, read `references/api-errors.md`.",
        "If the API returns 429, see `references/api-errors.md`.",
        "Read `references/api-errors.md` to decide whether to retry.",
        "Read `references/api-errors.md` for the status codes and retry rules.",
        "Always read `references/api-errors.md` first.",
        "- `references/api-errors.md` — status codes, retry rules and backoff",
        "- **Retries and backoff**: see `references/api-errors.md`",
        "| Got a 4xx or 5xx | `references/api-errors.md` |",
        "1. Check the response status against `references/api-errors.md`",
        "## When the API fails\n\nSee `references/api-errors.md`.",
        "## Step 3: Handle the response\n\nSee `references/api-errors.md`.",
        "## Troubleshooting\n\nSee `references/api-errors.md`.",
        "If a call returns an error, read:\n\n- `references/api-errors.md`",
        "- Handling failed calls:\n  - `references/api-errors.md`",
        "**Rate limits and retries:** `references/api-errors.md`",
    ],
)
def test_conditions_are_found(body):
    assert explain(body) is not None, body


@pytest.mark.parametrize(
    "body",
    [
        "See `references/api-errors.md`.",
        "See `references/api-errors.md` for details.",
        "For more, see [api-errors.md](references/api-errors.md)",
        "See `references/api-errors.md` for the complete reference.",
        "Read `references/api-errors.md` if needed.",
        "Load `references/api-errors.md` as needed.",
        "Refer to `references/api-errors.md`.",
        "- [API errors](references/api-errors.md)",
        "- `references/api-errors.md` - API error reference",
        "**Errors**: `references/api-errors.md`",
        "| `references/api-errors.md` | |",
        "For detailed guidance, see:\n\n- `references/api-errors.md`",
        "## References\n\n- `references/api-errors.md`",
        "## Quick Reference\n\nSee `references/api-errors.md`.",
        "# When anything happens (the title)\n\nSee `references/api-errors.md`.",
    ],
)
def test_bare_pointers_have_no_condition(body):
    assert explain(body) is None, body


def test_a_sections_own_label_line_says_when_its_files_apply():
    body = "## Patterns\n\n### Pattern 1: Hono middleware\n\nOne-line integration.\n\n**When to Use**:\n- Building with Hono\n\n**Template**: `references/api-errors.md`"
    assert explain(body) == "section label (condition)"
    assert explain(body.replace("**When to Use**:", "When to read: with Hono.")) == "section label (condition)"
    # a label that names its own subject says when to use that, not the section's files
    body = "## Ad-hoc dependencies\n\n**When to use `--with` vs `uv add`:**\n- one-off runs\n\nSee `references/api-errors.md` for more."
    assert explain(body) is None


@pytest.mark.parametrize(
    "body",
    [
        # a sub-item under the link's item describes the file
        "## References\n\n- [api-errors.md](references/api-errors.md)\n  - Use when a call fails",
        "## References\n\n* [API errors](references/api-errors.md)\n    + Load it after a non-200 response",
        # a "when" label right under the file's heading, or under the link's line
        "## References\n\n### [api-errors.md](references/api-errors.md)\n\n**When to read:** a call fails.",
        "## References\n\n### `references/api-errors.md`\nWhen to load: a call fails\n\n### Other\n",
        "## References\n\n- `references/api-errors.md`\n\n**When to load:** a call fails",
        "## References\n\n`references/api-errors.md`\n\nWhen to use: a call fails.",
        "## References\n\n`references/api-errors.md`\n\n**Before deploying:** check the codes.",
    ],
)
def test_a_condition_written_under_the_link_is_the_files(body):
    assert explain(body) is not None, body


@pytest.mark.parametrize(
    "body",
    [
        # a sub-item that names another file speaks of that file
        "## References\n\n- [API errors](references/api-errors.md)\n  - [cli.md](references/cli.md): use when the CLI fails",
        # a sub-item of the next item is not this item's
        "## References\n\n- [API errors](references/api-errors.md)\n- [CLI](references/cli.md)\n  - Use when the CLI fails",
        # a label under a list of several files stands under the last one only
        "## References\n\n- `references/api-errors.md`\n- `references/cli.md`\n\n**When to load:** a call fails",
        # a label under the heading of another section
        "## References\n\n### [api-errors.md](references/api-errors.md)\n\nThe codes.\n\n### CLI\n\n**When to read:** the CLI fails.",
        # labels that frame an example or a message say no when
        "## References\n\n- `references/api-errors.md`\n\n**Before:**\n\n```\nold()\n```",
        "## References\n\n`references/api-errors.md`\n\n**Error:** connection refused",
        "## References\n\n`references/api-errors.md`\n\n**If needed:** read it.",
        # nor, in the section above the mention
        "## Notes\n\n**Error:** connection refused\n\nSee `references/api-errors.md`.",
    ],
)
def test_a_condition_under_the_link_must_be_about_it(body):
    assert explain(body) is None, body


def test_a_fenced_hash_line_is_not_a_heading():
    body = "## References\n\n```bash\n# When the build fails\nmake\n```\n\nSee `references/api-errors.md`."
    assert explain(body) is None


def test_the_sentence_not_the_paragraph_is_judged():
    body = "Retry when the server is busy. See `references/api-errors.md`."
    assert explain(body) is None
    body = "The API is rate limited. Read `references/api-errors.md` when it returns 429."
    assert explain(body) is not None


def test_a_routing_table_row_counts_even_with_terse_cells():
    body = "| Language | Guide |\n|---|---|\n| C/C++ | [lang-c.md](references/lang-c.md) |"
    assert explain(body, "references/lang-c.md") == "table row"


def test_sl310_reports_the_first_mention_of_a_file_without_any_condition(tmp_path):
    make_skill(
        tmp_path,
        "billing",
        "\n# Billing\n\nSee `references/api-errors.md`.\n\nAlso `references/api-errors.md`.\n",
        {"references/api-errors.md": "# Errors\n"},
    )
    found = diagnostics(tmp_path, "SL310")
    assert [(d["line"], d["column"]) for d in found] == [(8, 6)]
    assert "document `references/api-errors.md`" in found[0]["message"]


@pytest.mark.parametrize(
    "body",
    [
        # a question lead-in names the situation its list answers
        "**Having issues?**\n- PulseAudio setup → [PulseAudio Guide](troubleshooting/pulseaudio-setup.md)",
        "Something broke?\n\n- [guide](troubleshooting/pulseaudio-setup.md)",
        # so does a question heading
        "## No sound?\n\nSee [PulseAudio Guide](troubleshooting/pulseaudio-setup.md).",
        # the condition is one sentence on, about "that file"
        "Detailed documentation lives in `troubleshooting/pulseaudio-setup.md`. Read that file when the tier above "
        "is insufficient.",
        # a lead-in's purpose names what its items are for
        "For ALSA loopback devices and headless mixing, see:\n\n- [`pulseaudio-setup.md`](troubleshooting/pulseaudio-setup.md)",
        # one of numbered choices: the heading is the situation
        "## Option 2: Troubleshoot a problem\n\n### Workflow\n\nSee `troubleshooting/pulseaudio-setup.md` for guidance.",
        "### Method 1: AI-assisted generation\n\nSee `troubleshooting/pulseaudio-setup.md` for the complete template.",
        # a reading order: at the start
        "Start here:\n1. [troubleshooting/pulseaudio-setup.md](troubleshooting/pulseaudio-setup.md)\n2. [b](b.md)",
        # an obligation is a condition: always
        "- You MUST read [the setup guide](troubleshooting/pulseaudio-setup.md)",
    ],
)
def test_conditions_in_a_question_or_the_next_sentence(body):
    assert explain(body, "troubleshooting/pulseaudio-setup.md") is not None, body


@pytest.mark.parametrize(
    "body",
    [
        # the next sentence does not go on about the file
        "Detailed documentation lives in `references/api-errors.md`. Retry when the server is busy.",
        # nor does one two sentences on
        "See `references/api-errors.md`. Keep going. Read that file when a call fails.",
        # a question that is not the list's lead-in
        "Why retry?\n\nSee `references/api-errors.md`.",
        # "Options" as a topic, not one of numbered choices
        "## Options\n\nSee `references/api-errors.md`.",
        # a lead-in whose "for" names no subject
        "For detailed guidance on specific topics, see:\n\n- [Errors](references/api-errors.md)",
    ],
)
def test_no_condition_from_a_sentence_that_is_not_about_the_file(body):
    assert explain(body) is None, body


def test_sl310_alternatives_one_word_apart_are_picked_by_that_word(tmp_path):
    make_skill(
        tmp_path,
        "mobile",
        "\n# Mobile\n\n## Platform setup\n\n- [Android](references/android-setup.md)\n"
        "- [iOS](references/ios-setup.md)\n\n"
        "See `references/aws-modules.md` and `references/oci-modules.md`.\n\n"
        "## More\n\n- [Reference map](references/probe-reference-map.md)\n- [Source map](references/source-map.md)\n\n"
        "See `references/web-setup.md`.\n",
        {
            name: "# x\n"
            for name in (
                "references/android-setup.md",
                "references/ios-setup.md",
                "references/aws-modules.md",
                "references/oci-modules.md",
                "references/probe-reference-map.md",
                "references/source-map.md",
                "references/web-setup.md",
            )
        },
    )
    found = sorted(d["message"].split("`")[1] for d in diagnostics(tmp_path, "SL310"))
    # two subjects that share a last word are no choice; a lone file has no alternative
    assert found == ["references/probe-reference-map.md", "references/source-map.md", "references/web-setup.md"]


def test_sl310_one_conditioned_mention_is_enough(tmp_path):
    make_skill(
        tmp_path,
        "billing",
        "\n# Billing\n\nSee `references/api-errors.md`.\n\nRead `references/api-errors.md` after a non-200 response.\n",
        {"references/api-errors.md": "# Errors\n"},
    )
    assert diagnostics(tmp_path, "SL310") == []


def test_sl310_says_run_for_scripts_and_ignores_assets(tmp_path):
    make_skill(
        tmp_path,
        "forms",
        "\n# Forms\n\nSee `scripts/fill.py`.\n\nSee `assets/template.json`.\n\n![diagram](assets/flow.png)\n",
        {"scripts/fill.py": "print('x')\n", "assets/template.json": "{}\n", "assets/flow.png": ""},
    )
    found = diagnostics(tmp_path, "SL310")
    assert len(found) == 1 and "script `scripts/fill.py`" in found[0]["message"] and "run it" in found[0]["message"]


# -- SL303 ---------------------------------------------------------------------------


def test_sl303_follows_a_chain_of_three_hops(tmp_path):
    make_skill(
        tmp_path,
        "deep",
        "\n# Deep\n\nRead [references/a.md](references/a.md) before you start.\n",
        {
            "references/a.md": "# A\n\nNext, [b.md](b.md).\n",
            "references/b.md": "# B\n\nThen [c.md](c.md).\n",
            "references/c.md": "# C\n",
        },
    )
    found = diagnostics(tmp_path, "SL303")
    assert len(found) == 1  # one chain, one entry point: one finding, where the chain leaves it
    chain = found[0]
    assert Path(chain["path"]).name == "a.md"
    assert chain["message"].startswith("2 files are reached only through `references/a.md`, up to a chain of 3 hops")
    assert "(deepest: SKILL.md → references/a.md → references/b.md → references/c.md)" in chain["message"]
    notes = [r["message"] for r in chain["related"]]
    assert notes == [
        "hop 1 of 3: SKILL.md → references/a.md",
        "hop 2 of 3: references/a.md → references/b.md",
        "the file reached: references/c.md",
    ]
    assert [Path(r["path"]).name for r in chain["related"]] == ["SKILL.md", "a.md", "c.md"]


def test_sl303_an_index_tree_is_one_finding_per_entry_point(tmp_path):
    """A deliberate index tree (an index page per folder, read in order) is one design choice:
    reported once per file SKILL.md names, with the count and the depth, not once per page."""
    pages = {"references/index.md": "# Index\n\n" + "".join(f"- [{t}]({t}/index.md)\n" for t in "abcdefgh")}
    for topic in "abcdefgh":
        pages[f"references/{topic}/index.md"] = f"# {topic}\n\n" + "".join(f"- [{n}]({n}.md)\n" for n in ("one", "two"))
        pages.update({f"references/{topic}/{n}.md": "# Page\n" for n in ("one", "two")})
    pages["references/other.md"] = "# Other\n\nSee [more](more.md).\n"
    pages["references/more.md"] = "# More\n"
    make_skill(
        tmp_path,
        "tree",
        "\n# Tree\n\nRead [the index](references/index.md) first, and [other](references/other.md) when stuck.\n",
        pages,
    )
    found = sorted(d["message"] for d in diagnostics(tmp_path, "SL303"))
    assert len(found) == 2
    assert found[0].startswith("24 files are reached only through `references/index.md`, up to a chain of 3 hops")
    assert "and 19 more" in found[0]
    assert found[1].startswith("`references/more.md` is reached only through a chain of 2 hops")


def test_sl303_a_folder_skill_md_points_at_is_listed_not_walked(tmp_path):
    make_skill(
        tmp_path,
        "folder",
        "\n# Folder\n\nRead [the guide](references/guide.md) first; templates are in [templates/](templates/).\n",
        {
            "references/guide.md": "# Guide\n\nStart from [page](../templates/page.html) or [deep](../templates/parts/deep.html).\n",
            "templates/page.html": "<html></html>\n",
            "templates/parts/deep.html": "<html></html>\n",
        },
    )
    # the listing shows `page.html`; the subfolder's file is a hop further
    assert _sl303_targets(tmp_path) == ["templates/parts/deep.html"]


def test_sl303_data_a_script_skill_md_runs_opens_is_no_hop(tmp_path):
    make_skill(
        tmp_path,
        "fetch",
        "\n# Fetch\n\nRead [the guide](references/guide.md) first.\n\n```bash\npython scripts/fetch.py GSE1\n```\n",
        {
            "references/guide.md": "# Guide\n\nGenomes live in `scripts/config/genomes.yaml`; codes in `scripts/config/codes.yaml`.\n",
            "scripts/fetch.py": "GENOMES = SCRIPT_DIR / 'config' / 'genomes.yaml'\n",
            "scripts/config/genomes.yaml": "a: 1\n",
            "scripts/config/codes.yaml": "a: 1\n",
        },
    )
    assert _sl303_targets(tmp_path) == ["scripts/config/codes.yaml"]


def test_sl303_reports_each_file_once_and_not_when_skill_md_names_it(tmp_path):
    make_skill(
        tmp_path,
        "named",
        "\n# Named\n\nRead [references/index.md](references/index.md) before you start.\n"
        "The topic files are `shared/topic-*.md`; `notes.md` holds the history.\n",
        {
            "references/index.md": "# Index\n\n[x](x.md), [x again](x.md), [t](../shared/topic-one.md), "
            "[n](notes.md), [req](../scripts/requirements.txt), ![d](d.png)\n",
            "references/x.md": "# X\n",
            "references/notes.md": "# Notes\n",
            "references/d.png": "",
            "shared/topic-one.md": "# One\n",
            "scripts/requirements.txt": "pypdf\n",
        },
    )
    assert _sl303_targets(tmp_path) == ["references/x.md"]


def test_sl303_a_bare_name_several_files_share_names_none_of_them(tmp_path):
    make_skill(
        tmp_path,
        "shared-name",
        "\n# Shared\n\nRead [references/index.md](references/index.md) first; `impl.md` has the details.\n",
        {
            "references/index.md": "# Index\n\n[api](api/impl.md) and [cli](cli/impl.md)\n",
            "references/api/impl.md": "# API\n",
            "references/cli/impl.md": "# CLI\n",
        },
    )
    assert _sl303_targets(tmp_path) == ["references/api/impl.md", "references/cli/impl.md"]


def test_sl303_wildcards_in_one_long_token_are_expanded_once(tmp_path):
    from skilllint.skill.references.disclosure_graph import NamedBy

    # once per token: linear (per marker: ~minutes); two sizes compared in one run, by CPU time
    text = lambda count: "`" + "ab*" * count + "`"  # noqa: E731
    assert growth(lambda text: NamedBy(text).patterns, text(25_000), text(100_000)) < LINEAR_AT_4X


def test_sl303_ignores_files_of_a_nested_skill(tmp_path):
    skill = make_skill(
        tmp_path,
        "outer",
        "\n# Outer\n\nRead [references/a.md](references/a.md) before you start.\n",
        {"references/a.md": "# A\n\nSee [inner](../inner/guide.md).\n"},
    )
    make_skill(skill, "inner", "\n# Inner\n\nRead [guide.md](guide.md) first.\n", {"guide.md": "# Guide\n"})
    assert [d for d in diagnostics(tmp_path, "SL303") if "outer" in d["path"]] == []


def _sl303_targets(tmp_path: Path) -> list[str]:
    """The files each SL303 finding names as reached only through a chain (a finding per entry
    point names up to five)."""
    reached = []
    for d in diagnostics(tmp_path, "SL303"):
        message = d["message"]
        if message.startswith("`"):
            reached.append(message.split("`")[1])
        else:
            reached.extend(message.split("(deepest")[0].split("`")[3::2])
    return sorted(reached)


def test_sl303_a_link_back_up_to_a_file_that_leads_down_is_no_hop(tmp_path):
    make_skill(
        tmp_path,
        "back-up",
        "\n# Back up\n\nRead [references/guide.md](references/guide.md) before you start.\n",
        {
            "README.md": "# Back up\n\nThe guide: [guide](references/guide.md).\n",
            "references/guide.md": "# Guide\n\nText.\n\n> **Back to:** [Main README](../README.md)\n\n"
            "See also [peer](../examples/peer.md).\n",
            # side by side, naming each other: the peer is still a hop below the guide
            "examples/peer.md": "# Peer\n\nBack to [the guide](../references/guide.md).\n",
        },
    )
    assert _sl303_targets(tmp_path) == ["examples/peer.md"]


def test_sl303_what_skill_md_has_the_agent_write_is_not_read_on_the_way(tmp_path):
    make_skill(
        tmp_path,
        "writer",
        "\n# Writer\n\n| Task | Read |\n|---|---|\n"
        "| author or update `SKILL.md`, `SPEC.md`, and supporting files | `references/authoring.md` |\n\n"
        "1. Read `references/authoring.md` before you write anything.\n"
        "2. Create or update `SPEC.md` when the skill's contract changes.\n"
        "3. Read `references/guide.md` when you choose a layout.\n",
        {
            "SPEC.md": "# Spec\n\nProvenance lives in `SOURCES.md`; evals in `EVAL.md`.\n",
            "SOURCES.md": "# Sources\n",
            "EVAL.md": "# Evals\n",
            "references/authoring.md": "# Authoring\n",
            "references/guide.md": "# Guide\n\nDetails in `references/layouts.md`.\n\n"
            "## Changelog\n\n- 2026-05-04: Added `references/history.md`.\n\n## Next\n\nThen `references/more.md`.\n",
            "references/layouts.md": "# Layouts\n",
            "references/history.md": "# History\n",
            "references/more.md": "# More\n",
        },
    )
    assert _sl303_targets(tmp_path) == ["references/layouts.md", "references/more.md"]


def test_sl303_data_a_script_page_or_its_own_description_names_is_no_hop(tmp_path):
    make_skill(
        tmp_path,
        "data",
        "\n# Data\n\nRun `scripts/analyze.py`; read [scripts/README.md](scripts/README.md) when it fails "
        "and [references/attrs.md](references/attrs.md) when a resource is missing.\n",
        {
            "scripts/analyze.py": "print('x')\n",
            "scripts/README.md": "# Analyze\n\nBy default, uses `references/attrs.json`. "
            "Templates: `assets/deploy.yaml`; see `references/deep.md`.\n",
            "references/attrs.md": "# Attributes\n\nThis page explains `references/attrs.json`; "
            "copy `assets/other.yaml` to start.\n",
            "references/attrs.json": "{}\n",
            "references/deep.md": "# Deep\n",
            "assets/deploy.yaml": "a: 1\n",
            "assets/other.yaml": "a: 1\n",
        },
    )
    assert _sl303_targets(tmp_path) == ["assets/other.yaml", "references/deep.md"]


def test_sl303_a_bare_name_means_the_file_beside_the_mentioning_one(tmp_path):
    make_skill(
        tmp_path,
        "beside",
        "\n# Beside\n\nRead [the example index](examples/index.md) before you start.\n",
        {
            "NOTES.md": "# Maintainer notes\n",
            "examples/index.md": "# Examples\n\nThis folder holds:\n\n- `NOTES.md` - what changed\n",
            "examples/NOTES.md": "# Notes\n",
        },
    )
    assert _sl303_targets(tmp_path) == []


# -- SL304 ---------------------------------------------------------------------------


def unreferenced(tmp_path: Path) -> list[str]:
    return sorted(d["message"].split("`")[1] for d in diagnostics(tmp_path, "SL304"))


def test_sl304_nested_skills_are_not_unreferenced_files(tmp_path):
    skill = make_skill(tmp_path, "outer", "\n# Outer\n\nNothing bundled is named here.\n")
    make_skill(skill, "inner", "\n# Inner\n\nRead [guide.md](guide.md) first.\n", {"guide.md": "# Guide\n"})
    (skill / "inner" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    found = [(Path(d["path"]).parent.name, d["message"].split("`")[1]) for d in diagnostics(tmp_path, "SL304")]
    assert found == [("inner", "orphan.md")]  # reported once, by the inner skill itself


def test_a_folder_whose_skill_md_is_no_file_is_a_nested_skill_too(tmp_path):
    """Discovery lints a folder holding an entry named SKILL.md of any kind as a skill of its
    own (one definition: the inventory's), so its files are not the outer skill's to judge."""
    skill = make_skill(tmp_path, "outer", "\n# Outer\n\nSee `inner/notes.md`.\n")
    (skill / "inner" / "SKILL.md").mkdir(parents=True)
    (skill / "inner" / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (skill / "inner" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    found = [(d["code"], d["message"].split("`")[1]) for d in diagnostics(tmp_path, "SL304,SL310") if "outer" in d["path"]]
    assert found == []


def test_sl304_exemptions(tmp_path):
    make_skill(
        tmp_path,
        "tidy",
        "\n# Tidy\n\nRun `scripts/go.py` when asked.\n",
        {
            "scripts/go.py": "print('go')\n",
            "LICENSE.txt": "MIT\n",
            "README.md": "# Tidy\n",
            "agents/openai.yaml": "interface:\n  display_name: Tidy\n",
            "scripts/pyproject.toml": "[project]\nname = 'go'\n",
            "scripts/test_go.py": "def test(): pass\n",
            ".gitignore": "*.pyc\n",
        },
    )
    assert unreferenced(tmp_path) == []


def test_sl304_what_counts_as_a_reference(tmp_path):
    make_skill(
        tmp_path,
        "refs",
        "\n# Refs\n\nPick a theme from `themes/` when styling.\n"
        "Run `python scripts/build.py` to render.\n"
        "```python\nfrom core.easing import ease\n```\n",
        {
            "themes/dark.md": "# Dark\n",  # under a referenced folder
            "themes/light.md": "# Light\n",
            "scripts/build.py": "from lib import render\nopen('assets/base.html')\n",
            "scripts/lib.py": "def render(): pass\n",  # imported
            "assets/base.html": "<html></html>\n",  # named in a script
            "assets/icon.svg": "<svg/>\n",  # named by agents/openai.yaml
            "agents/openai.yaml": 'interface:\n  icon_small: "assets/icon.svg"\n',
            "core/easing.py": "def ease(): pass\n",  # dotted module in a code sample
        },
    )
    assert unreferenced(tmp_path) == []


def test_sl304_paths_a_script_joins_from_literals_are_referenced(tmp_path):
    make_skill(
        tmp_path,
        "joins",
        "\n# Joins\n\nRun `python scripts/detect.py` and `node scripts/render.js` on the input.\n",
        {
            "scripts/detect.py": "import os\nfrom pathlib import Path\n"
            "configs = Path(__file__).parent / 'config' / 'pipelines'\n"
            "schema = os.path.join(os.path.dirname(__file__), 'schemas', 'main.xsd')\n",
            "scripts/render.js": "const dir = path.join(__dirname, '..', 'templates');\n",
            "scripts/config/pipelines/rnaseq.yaml": "name: rnaseq\n",
            "scripts/schemas/main.xsd": "<xs:schema/>\n",
            "templates/report.html": "<html></html>\n",
            "scripts/config/unused.yaml": "x: 1\n",
        },
    )
    assert unreferenced(tmp_path) == ["scripts/config/unused.yaml"]


def test_sl304_evals_are_the_authors_material(tmp_path):
    make_skill(tmp_path, "evald", "\n# Evald\n\nNothing bundled is named here.\n", {"evals/evals.json": "[]\n"})
    assert unreferenced(tmp_path) == []


def test_sl304_a_file_does_not_reference_itself(tmp_path):
    make_skill(
        tmp_path,
        "self",
        "\n# Self\n\nNothing bundled is named here.\n",
        {"scripts/old_fill.py": '"""Usage: python old_fill.py form.pdf"""\n'},
    )
    assert unreferenced(tmp_path) == ["scripts/old_fill.py"]


def test_sl304_files_named_only_by_an_unreferenced_file_are_listed_under_it(tmp_path):
    make_skill(
        tmp_path,
        "cluster",
        "\n# Cluster\n\nNothing bundled is named here.\n",
        {
            "references/ir.md": "# IR\n\nRun `tools/diff_ir.sh` to compare.\n",
            "tools/diff_ir.sh": "echo diff\n",
            "notes/a.md": "See b.md.\n",  # a cycle: one of the two is reported
            "notes/b.md": "See a.md.\n",
        },
    )
    found = diagnostics(tmp_path, "SL304")
    assert sorted(d["message"].split("`")[1] for d in found) == ["notes/a.md", "references/ir.md"]
    ir = next(d for d in found if "references/ir.md" in d["message"])
    assert "1 more file named only by it" in ir["message"]
    assert [r["message"] for r in ir["related"]] == ["named only by references/ir.md: tools/diff_ir.sh"]


def test_sl304_a_sibling_path_does_not_cover_the_folder(tmp_path):
    make_skill(
        tmp_path,
        "siblings",
        "\n# Siblings\n\nRun `scripts/a.py` when asked.\n",
        {"scripts/a.py": "print(1)\n", "scripts/b.py": "print(2)\n"},
    )
    assert unreferenced(tmp_path) == ["scripts/b.py"]


def test_sl304_files_a_reached_schema_imports_are_referenced(tmp_path):
    # The validator loads main.xsd, which imports common.xsd, which includes types.xsd; the JSON
    # Schema SKILL.md names refers to a sibling definitions file.
    make_skill(
        tmp_path,
        "schemas",
        "\n# Schemas\n\nValidate with `python scripts/validate.py` against `schemas/config.schema.json`.\n",
        {
            "scripts/validate.py": "import os\nschema = os.path.join(os.path.dirname(__file__), '..', 'xsd', 'main.xsd')\n",
            "xsd/main.xsd": '<xs:schema><xs:import schemaLocation="common.xsd"/></xs:schema>\n',
            "xsd/common.xsd": '<xs:schema><xs:include schemaLocation="types.xsd"/></xs:schema>\n',
            "xsd/types.xsd": "<xs:schema/>\n",
            "schemas/config.schema.json": '{"properties": {"x": {"$ref": "defs.schema.json#/x"}}}\n',
            "schemas/defs.schema.json": '{"x": {"type": "string"}}\n',
            "schemas/unused.schema.json": "{}\n",
        },
    )
    assert unreferenced(tmp_path) == ["schemas/unused.schema.json"]


def test_sl304_a_document_in_a_referenced_folder_names_files_too(tmp_path):
    # SKILL.md points at `references/`; the migration guide there runs the script.
    make_skill(
        tmp_path,
        "folder",
        "\n# Folder\n\nThe guides are in `references/`.\n",
        {
            "references/migration.md": "# Migrate\n\nRun `./scripts/migrate.sh src/Dialog.tsx`.\n",
            "scripts/migrate.sh": "echo migrate\n",
            "scripts/orphan.sh": "echo orphan\n",
        },
    )
    assert unreferenced(tmp_path) == ["scripts/orphan.sh"]


def test_sl304_modules_a_script_imports_without_their_extension_are_referenced(tmp_path):
    make_skill(
        tmp_path,
        "tsmods",
        "\n# TS\n\nRun `npx tsx scripts/main.ts` on the input.\n",
        {
            "scripts/main.ts": "import { load } from './lib/load';\nconst u = require('../shared/util');\n",
            "scripts/lib/load.ts": "export const load = 1;\n",
            "shared/util.js": "module.exports = {};\n",
            "shared/other.js": "module.exports = {};\n",
        },
    )
    assert unreferenced(tmp_path) == ["shared/other.js"]


def test_sl304_files_beside_a_script_whose_text_is_unknown_are_not_shown_unreferenced(tmp_path):
    # SKILL.md runs scripts/install.sh, which is empty here (as in a copy that keeps names only):
    # what it loads is unknown, so the archive beside it is not shown to be unreferenced. A
    # folder no such script lies in is judged as before.
    make_skill(
        tmp_path,
        "opaque",
        "\n# Opaque\n\nRun `bash scripts/install.sh` first, then `python tools/run.py`.\n",
        {
            "scripts/install.sh": "",
            "scripts/components.tar.gz": "",
            "scripts/lib/helper.py": "",
            "tools/run.py": "print('run')\n",
            "tools/orphan.py": "print('orphan')\n",
            "notes.md": "# Notes\n",
        },
    )
    assert unreferenced(tmp_path) == ["notes.md", "tools/orphan.py"]


def test_sl304_an_eval_folder_is_known_by_its_cases_not_its_name(tmp_path):
    make_skill(
        tmp_path,
        "evaluated",
        "\n# Evaluated\n\nRead [the guide](references/guide.md).\n",
        {
            "references/guide.md": "# Guide\n",
            "evaluations/cases.json": '[{"query": "Extract the tables", "files": ["fixtures/a.pdf"], "expected_behavior": ["reads a.pdf"]}]\n',
            "evaluations/fixtures/a.pdf": "",
            "evaluations/README.md": "# How to run\n",
            "checks/positive-1.yaml": "inputs:\n  prompt: Use it\nexpected:\n  should_trigger: true\n",
            "references/evals.yaml": "- prompt: Summarise\n  expectations: [short]\n",
            "references/orphan.md": "# Orphan\n",
            "data/table.json": '[{"query": "select 1", "rows": 1}]\n',  # a query with no judgement: data
        },
    )
    assert unreferenced(tmp_path) == ["data/table.json", "references/orphan.md"]


# -- SL312 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "top",
    [
        "# Guide\n\n## Contents\n\n- Setup\n",
        "# Guide\n\n**Table of Contents:**\n",
        "# Guide\n\nContents:\n\n- [Setup](#setup) — install\n- [Usage](#usage) — run\n",
        "# Guide\n\nJump to [Setup](#setup), [Usage](#usage) or [FAQ](#faq).\n",
    ],
)
def test_tables_of_contents(top):
    assert has_toc(top.split("\n"))


@pytest.mark.parametrize(
    "top",
    [
        "# Guide\n\n## Index Table Pattern\n\nText.\n",
        "# Guide\n\nSee [templates](#templates) below.\n",
        "# Guide\n\n```\n## Contents\n```\n",
        "# Guide\n\n" + "text\n" * 45 + "## Contents\n",
    ],
)
def test_not_tables_of_contents(top):
    assert not has_toc(top.split("\n"))


def test_sl312_is_opt_in_and_counts_lines(tmp_path):
    long = "# Long\n\n" + "".join(f"## Part {i}\n\nText {i}.\n\n" for i in range(30))
    make_skill(
        tmp_path,
        "long",
        "\n# Long\n\nRead `references/long.md` when you need a part.\n",
        {"references/long.md": long, "references/short.md": "# Short\n"},
    )
    default = lint_json(str(tmp_path), cwd=tmp_path)["diagnostics"]
    assert "SL312" not in {d["code"] for d in default}
    found = diagnostics(tmp_path, "SL312")
    assert len(found) == 1 and "`references/long.md` is 122 lines" in found[0]["message"]
    config = tmp_path / "skilllint.toml"
    config.write_text("[rules.SL312]\nmax-lines = 200\n", encoding="utf-8")
    assert diagnostics(tmp_path, "SL312") == []


# -- the corpus ------------------------------------------------------------------------


def test_disclosure_rules_on_the_corpus_are_clean(corpus):
    # Their cost is measured by benchmarks/family_cost.py, not here.
    report = lint_json(str(corpus), "--select", "SL303,SL304,SL310,SL312", cwd=corpus)
    codes = {d["code"] for d in report["diagnostics"]}
    assert codes <= {"SL303", "SL304", "SL310", "SL312"}
    assert report["summary"]["packages"] == 1445


def test_sl310_judges_a_reference_definition_where_its_label_is_used(tmp_path):
    files = {"references/api-errors.md": "# Errors\n"}
    make_skill(
        tmp_path, "defs", "\n# Defs\n\nRead the [error table][errors] after a non-200 response.\n\n"
        "[errors]: references/api-errors.md\n", files,
    )
    make_skill(tmp_path, "bare", "\n# Bare\n\nSee [errors].\n\n[errors]: references/api-errors.md\n", files)
    found = diagnostics(tmp_path, "SL310")
    assert [Path(d["path"]).parent.name for d in found] == ["bare"]



def test_sl310_finds_a_mention_s_sentence_without_reading_the_whole_paragraph():
    from skilllint.skill.references.mention_context import SENTINEL, _sentence

    def paragraph(sentences: int) -> str:
        return "Run it now. " * sentences + SENTINEL + "Read `scripts/x.py` when it fails. And more."

    assert _sentence(paragraph(20_000)) == "Read `scripts/x.py` when it fails."

    def thousand(text: str) -> None:
        for _ in range(1_000):  # as for a paragraph of a thousand mentions
            _sentence(text)

    # Four times the sentences before the mention: about the same work (CPU time, two sizes in one
    # run); reading from the paragraph's start each time, four times as much (~40 s in all).
    assert growth(thousand, paragraph(5_000), paragraph(20_000)) < 2
