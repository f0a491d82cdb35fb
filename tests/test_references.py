"""SL301, SL302, SL305, SL306, SL307, SL311: behaviour beyond the rule-book examples."""

from __future__ import annotations

import os

import pytest

from conftest import lint_json, write_skill

CODES = "SL301,SL302,SL305,SL306,SL307,SL311"
FRONT = "---\nname: demo\ndescription: Demonstrates references. Use when testing.\n---\n"


def make(tmp_path, body: str, files=()):
    skill = write_skill(tmp_path, "demo", FRONT + body)
    for rel, text in files:
        path = skill / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return skill


def found(tmp_path, select: str = CODES, *extra: str):
    result = lint_json(str(tmp_path / "demo"), "--select", select, "--target", "agentskills", *extra, cwd=tmp_path)
    return [(d["code"], d["path"], d["line"], d["severity"], d["message"]) for d in result["diagnostics"]]


def codes(tmp_path, select: str = CODES):
    return [(code, line) for code, _, line, _, _ in found(tmp_path, select)]


# -- what is a reference ------------------------------------------------------------


def test_notation_markdown_reads_as_a_link_is_no_reference(tmp_path):
    """`SHA256[cwd](0:12)` is an index then a call (the first 12 characters of a hash), which
    CommonMark happens to read as a link: glued to a word and naming neither a folder nor an
    extension, it names no file. A real link glued to a word, or an unglued one, still counts."""
    make(tmp_path, "Key: SHA256[cwd](0:12) and items[i](n).\n\nSee docs[the guide](guide.md) and [setup](setup-notes).\n")
    assert codes(tmp_path, "SL301") == [("SL301", 7), ("SL301", 7)]


def test_placeholders_are_not_reported(tmp_path):
    body = (
        "Add one file per topic, e.g. `references/filename.md` or `references/<topic>.md`.\n"
        "Phases live in `references/phaseN.md`; scripts match `scripts/*.py`.\n"
        "Write `references/{name}.md` and `references/${TOPIC}.md` as needed.\n"
    )
    make(tmp_path, body, [("references/a.md", "# A\n"), ("scripts/run.py", "")])
    assert codes(tmp_path) == []


def test_root_variables_resolve_from_the_skill_root(tmp_path):
    body = (
        "Read [the guide]({baseDir}/references/guide.md) and [the same](%7BbaseDir%7D/references/guide.md).\n"
        "Run `python ${CLAUDE_SKILL_DIR}/scripts/run.py`.\n"
        "Then read [missing]({baseDir}/references/missing.md).\n"
    )
    make(tmp_path, body, [("references/guide.md", "# Guide\n"), ("scripts/run.py", "")])
    assert codes(tmp_path) == [("SL301", 7)]


def test_fenced_code_is_not_a_reference(tmp_path):
    body = "```bash\npython scripts/missing.py\ncat references/gone.md\n```\n\n~~~\n[x](references/nope.md)\n~~~\n"
    make(tmp_path, body, [("references/a.md", "# A\n"), ("scripts/run.py", "")])
    assert codes(tmp_path) == []


def test_a_mention_resolves_from_its_files_folder(tmp_path):
    files = [
        ("references/guide.md", "See `examples/basic.md` for a worked case.\n"),
        ("references/examples/basic.md", "# Basic\n"),
        ("examples/other.md", "# Other\n"),
    ]
    make(tmp_path, "Read [the guide](references/guide.md) before starting.\n", files)
    assert codes(tmp_path) == []


def test_percent_encoded_links_and_query_strings(tmp_path):
    body = (
        "Read [notes](references/release%20notes.md) and [raw](references/a.md?plain=1#top).\n"
        "Skip [gone](references/old%20notes.md).\n"
    )
    make(tmp_path, body, [("references/release notes.md", "# Notes\n"), ("references/a.md", "# Top\n")])
    result = found(tmp_path)
    assert [(c, line) for c, _, line, _, _ in result] == [("SL301", 6)]
    assert "`references/old notes.md`" in result[0][4]


# -- SL301 / SL305 --------------------------------------------------------------------


def test_links_are_errors_mentions_warnings(tmp_path):
    body = "Read [api](references/api.md). Run `scripts/build.sh` then check assets/logo.svg.\n"
    make(tmp_path, body, [("references/x.md", "x\n"), ("scripts/run.py", ""), ("assets/a.png", "")])
    assert [(c, s) for c, _, _, s, _ in found(tmp_path)] == [("SL301", "error"), ("SL301", "warning"), ("SL301", "warning")]


def test_case_mismatch_is_sl305_not_sl301(tmp_path):
    body = "Read `references/security.md` and [retention](References/retention.md).\n"
    make(tmp_path, body, [("references/Security.md", "# S\n"), ("references/retention.md", "# R\n")])
    result = found(tmp_path)
    assert [c for c, *_ in result] == ["SL305", "SL305"]
    assert "`references/Security.md`" in result[0][4]
    assert "`references/retention.md`" in result[1][4]


def test_a_finding_in_a_referenced_file_points_into_it(tmp_path):
    files = [("references/guide.md", "# Guide\n\nThen read [details](details.md).\n")]
    make(tmp_path, "Read [the guide](references/guide.md) first.\n", files)
    result = lint_json(str(tmp_path / "demo"), "--select", "SL301", "--target", "agentskills", cwd=tmp_path)
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["path"].endswith("references/guide.md") and diagnostic["line"] == 3
    assert "`references/details.md`" in diagnostic["message"]
    (related,) = diagnostic["related"]
    assert related["path"].endswith("SKILL.md") and related["line"] == 5
    assert "SKILL.md -> references/guide.md" in related["message"]


def test_a_close_name_is_suggested(tmp_path):
    make(tmp_path, "Run `scripts/fill_form.py`.\n", [("scripts/fill_forms.py", "")])
    (finding,) = found(tmp_path)
    assert "did you mean `scripts/fill_forms.py`?" in finding[4]


def test_footnote_definitions_are_not_link_definitions(tmp_path):
    body = "Keys rotate daily[^1][^policy].\n\n[^1]: See the upstream rotation tool.\n[^policy]: policy.md of the old handbook\n"
    make(tmp_path, body)
    assert found(tmp_path) == []


def test_a_file_in_an_absent_skill_folder_is_missing(tmp_path):
    body = "Follow `resources/implementation-playbook.md` step by step; run scripts/setup.sh first.\n"
    make(tmp_path, body)
    assert [(c, m.split("`")[1]) for c, _, _, _, m in found(tmp_path)] == [
        ("SL301", "resources/implementation-playbook.md"),
        ("SL301", "scripts/setup.sh"),
    ]


def test_an_absent_folder_alone_or_an_api_method_is_not_a_file(tmp_path):
    make(tmp_path, "Put images in `assets/`; the server answers `resources/list` and `resources/read`.\n")
    assert found(tmp_path) == []


def test_examples_and_other_places_are_judged_per_mention(tmp_path):
    body = (
        "Bundle helpers, e.g. `scripts/rotate_pdf.py` for rotation.\n"
        "**Examples**: `assets/logo.png` for brands, `assets/slides.pptx` for decks.\n"
        "Save icons in your project's `assets/` folder (e.g. `assets/icons/wifi.xml`).\n"
        "A `scripts/fill_form.py` script would be helpful here.\n"
        "Read `references/checklist.md` before you start.\n"
    )
    make(tmp_path, body, [("scripts/run.py", "print(1)\n"), ("assets/base.html", "<html></html>\n"), ("references/index.md", "# Index\n")])
    # the illustrations are not findings; the real reference beside them still is
    assert [m.split("`")[1] for c, _, _, _, m in found(tmp_path)] == ["references/checklist.md"]


# Whose files a passage names (skilllint/skill/text/passages.py): each test has a real missing reference
# beside the passage that is someone else's, and only the real one is reported.

HAS = [("references/index.md", "# Index\n"), ("scripts/run.py", "print(1)\n")]


def missing(tmp_path):
    return [m.split("`")[1] for c, _, _, _, m in found(tmp_path, "SL301")]


def test_another_skills_file_is_not_missing_here(tmp_path):
    body = (
        "Models are never named here; see `model-selection`'s\n"
        "`references/model-catalog.md` for which checkpoint to load, and Acme's `scripts/deploy.sh` for releases.\n"
        "See `dataset-curation`'s replay recipe (`references/synthetic-data.md`) for the swap.\n\n"
        "- `model-selection` — its\n  `references/hardware.md` is the place to check.\n\n"
        "Read `references/checklist.md` before you start.\n"
    )
    make(tmp_path, body, HAS)
    assert missing(tmp_path) == ["references/checklist.md"]


def test_a_file_spelled_out_below_its_label_is_one_to_write(tmp_path):
    body = (
        "**File:** `scripts/setup-loop.sh`\n\n```bash\n#!/bin/bash\necho start\n```\n\n"
        "### Setup script (scripts/setup-winrm.ps1)\n\n```powershell\nwinrm quickconfig -q\n```\n\n"
        "Run `scripts/check.py` on the input:\n\n```bash\npython scripts/check.py in.pdf\n```\n"
    )
    make(tmp_path, body, HAS)
    # the command block names the file it runs: that label is a use of the skill's script
    assert missing(tmp_path) == ["scripts/check.py"]


def test_files_the_reader_is_to_make_are_not_missing(tmp_path):
    body = (
        "Add `references/orders-example.md` with a worked example once Square is wired in.\n"
        "Store durable examples in `references/evidence/` when regressions appear.\n"
        "Obtain an existing `assets/preview.png` or ask the user to add it.\n\n"
        "Move detailed content to `references/`:\n"
        "- Detailed patterns → `references/patterns.md`\n"
        "- Migration guides → `references/migration.md`\n\n"
        "The form workflow uses:\n"
        "- `references/forms.md` for the field names\n"
    )
    make(tmp_path, body, HAS)
    assert missing(tmp_path) == ["references/forms.md"]


def test_a_list_about_some_other_skill_is_not_this_skills(tmp_path):
    body = (
        "When building a hooks skill, the analysis shows:\n"
        "1. Hooks need validating each time\n"
        "2. `references/patterns.md` for detailed hook patterns\n\n"
        "This skill's steps:\n"
        "1. `references/steps.md` for the order of work\n"
    )
    make(tmp_path, body, HAS)
    assert missing(tmp_path) == ["references/steps.md"]


def test_the_generator_named_by_a_generated_page_is_not_the_skills(tmp_path):
    body = (
        "> Auto-generated from the package docstrings.\n"
        "> Do not edit by hand: run `uv run python scripts/generate_docs.py`.\n\n"
        "Fill the form with `scripts/fill.py`.\n"
    )
    make(tmp_path, body, HAS)
    assert missing(tmp_path) == ["scripts/fill.py"]


def test_files_of_a_clone_are_not_missing(tmp_path):
    elsewhere = (
        "## Where the scripts live\n\n"
        "The scripts live in a local clone of https://example.com/tools (the setup command makes it).\n\n"
        "## Workflow\n\nThe orchestrator is `scripts/onboard.py`; it cross-references `references/signatures.md`.\n"
    )
    make(tmp_path, elsewhere)
    assert missing(tmp_path) == []
    # without the sentence saying where they live, the same files are the skill's and missing
    make(tmp_path, elsewhere.split("## Workflow")[1])
    assert missing(tmp_path) == ["scripts/onboard.py", "references/signatures.md"]


def test_a_guide_to_writing_skills_reports_its_real_references_beside_its_layouts(tmp_path):
    layout = (
        "## Layout\n\n"
        "| Artifact | Use |\n|---|---|\n| `references/evidence/` | persistent examples |\n\n"
        "Keep SKILL.md lean; the patterns belong in `references/patterns.md`.\n\n"
        "## Before you start\n\n"
        "Read `references/checklist.md` before you start.\n"
    )
    guide = "---\nname: skill-guide\ndescription: Create new skills and improve existing ones. Use when writing a skill.\n---\n"
    write_skill(tmp_path, "demo", guide + layout)
    (tmp_path / "demo" / "references").mkdir()
    (tmp_path / "demo" / "references" / "index.md").write_text("# Index\n", encoding="utf-8")
    assert missing(tmp_path) == ["references/checklist.md"]
    # a skill that does not teach writing skills owns the same layout: all three are missing
    write_skill(tmp_path, "demo", FRONT + layout)
    assert missing(tmp_path) == ["references/evidence/", "references/patterns.md", "references/checklist.md"]


# -- SL302 ----------------------------------------------------------------------------


def test_outside_paths_say_what_breaks(tmp_path):
    body = "See [sibling](../other/SKILL.md), [home](~/notes/x.md) and [abs](/opt/skills/shared/x.md).\n"
    make(tmp_path, body)
    messages = [m for c, _, _, _, m in found(tmp_path) if c == "SL302"]
    assert len(messages) == 3
    assert "`other/SKILL.md`" in messages[0] and "installed alone" in messages[0]
    assert "home folder" in messages[1]
    assert "absolute path" in messages[2]


def test_root_relative_web_links_are_one_finding_per_file(tmp_path):
    page = "# Scopes\n\n" + "".join(f"- [m{i}](/docs/api/rest/reference/m{i}/methods/)\n" for i in range(40))
    body = "Read [the scopes](references/scopes.md).\n"
    make(tmp_path, body, [("references/scopes.md", page)])
    messages = [m for c, _, _, _, m in found(tmp_path, "SL302")]
    assert len(messages) == 1
    assert "`/docs/api/rest/reference/m0/methods/` is root-relative" in messages[0]
    assert "(39 more root-relative links in this file)" in messages[0]
    assert "absolute path" not in messages[0]


def test_command_links_and_protocol_relative_urls_are_not_paths(tmp_path):
    make(tmp_path, "Run [/deploy:staging](/deploy:staging) or see [docs](//example.com/x).\n")
    assert found(tmp_path, "SL302") == []


def test_a_file_system_root_is_still_an_absolute_path(tmp_path):
    make(tmp_path, "See [config](/etc/app/config.yaml) and [notes](/Users/dana/notes.md).\n")
    messages = [m for c, _, _, _, m in found(tmp_path, "SL302")]
    assert len(messages) == 2 and all("absolute path" in m for m in messages)


def test_a_path_through_an_escaping_link_is_outside(tmp_path):
    skill = make(tmp_path, "Read [the style guide](shared/style.md).\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "style.md").write_text("# Style\n")
    os.symlink("../outside", skill / "shared")
    result = found(tmp_path, "SL302")
    assert [c for c, *_ in result] == ["SL302"] and "symbolic link" in result[0][4]


# -- SL307 ----------------------------------------------------------------------------


def test_anchor_rules(tmp_path):
    guide = (
        "# Guide\n\n## Setup\n\ntext\n\n## Setup\n\n## Case A {#case-a}\n\n"
        '<a id="legacy"></a>\n\n## C++ & Rust: FFI!\n\n```\n# Not a heading\n```\n'
    )
    body = (
        "[a](references/guide.md#setup) [b](references/guide.md#setup-1) [c](references/guide.md#case-a)\n"
        "[d](references/guide.md#legacy) [e](references/guide.md#c--rust-ffi) [f](references/guide.md#SETUP)\n"
        "[g](references/guide.md#user-content-setup) [h](scripts/run.py#L10-L20) [i](#local)\n"
        "[bad](references/guide.md#not-a-heading) [gone](#nowhere)\n\n"
        "## Local\n"
    )
    make(tmp_path, body, [("references/guide.md", guide), ("scripts/run.py", "")])
    assert [(c, line) for c, _, line, _, _ in found(tmp_path, "SL307")] == [("SL307", 8), ("SL307", 8)]


def test_an_anchor_in_the_same_referenced_file(tmp_path):
    files = [("references/guide.md", "# Guide\n\n- [Install](#install)\n- [Use](#usage)\n\n## Install\n\n## Use\n")]
    make(tmp_path, "Read [the guide](references/guide.md).\n", files)
    result = found(tmp_path, "SL307")
    assert [(c, p.endswith("references/guide.md"), line) for c, p, line, _, _ in result] == [("SL307", True, 4)]
    assert "did you mean `#use`?" in result[0][4]


# -- SL306 / SL311 --------------------------------------------------------------------


def test_a_generic_folder_link_is_sl311_not_sl306(tmp_path):
    make(tmp_path, "See [templates/](templates/) for the templates.\n", [("templates/only.md", "x\n")])
    assert codes(tmp_path, "SL306,SL311") == [("SL311", 5)]


def test_a_folder_link_heading_its_files_is_neither(tmp_path):
    body = "See the [references/](references/) directory for guides:\n\n- [api.md](references/api.md): the API\n"
    make(tmp_path, body, [("references/api.md", "x\n"), ("references/cli.md", "y\n")])
    assert codes(tmp_path, "SL306,SL311") == []


def test_a_folder_link_used_as_a_file_is_sl306(tmp_path):
    make(tmp_path, "Fill [the template](assets/invoice) with the order.\n", [("assets/invoice/invoice.html", "")])
    assert codes(tmp_path, "SL306,SL311") == [("SL306", 5)]


@pytest.mark.parametrize(
    "body",
    [
        "Use other fonts: search the `./fonts` directory for one that fits.\n",
        "Pick a typeface from the folder `assets/fonts`.\n",
        "Fonts: the subdirectory `assets/fonts` holds one file per family.\n",
    ],
)
def test_a_folder_the_text_calls_a_folder_is_not_sl306(tmp_path, body):
    make(tmp_path, body, [("fonts/a.ttf", ""), ("assets/fonts/a.ttf", "")])
    assert codes(tmp_path, "SL306,SL311") == []


def test_a_folder_noun_elsewhere_on_the_line_does_not_excuse_a_folder_used_as_a_file(tmp_path):
    make(tmp_path, "Fill [the template](assets/invoice) with the order, then save it to the output directory.\n",
         [("assets/invoice/invoice.html", "")])
    assert codes(tmp_path, "SL306,SL311") == [("SL306", 5)]


@pytest.mark.parametrize(
    "body",
    [
        "Never write to `references/` at run time.\n",
        "Copy each template from `references/` into `docs/`.\n",
        "| `references/` | Background documents |\n|---|---|\n",
        "The `references/` folder contains:\n\n- `api.md`: the API\n- `cli.md`: the CLI\n",
        "Detailed material lives in `references/`, load on demand.\n\n## References\n\n| File | When |\n|---|---|\n| [api](references/api.md) | API errors |\n",
        "Checklists are documented in `references/`.\n\n## Steps\n\nOn an API error read `references/api.md`.\n",
        # a code span whose code holds a backtick (markdown.CODE_SPAN, the one reading of a span): code, not prose
        "Search with `` grep -n '`' then check the references folder `` on each file.\n",
        # the file named in the prose of the sentence, by its name with its extension
        "**Use api.md** (see references/) when the API fails.\n",
    ],
)
def test_mentions_that_are_not_generic_pointers(tmp_path, body):
    make(tmp_path, body, [("references/api.md", "x\n"), ("references/cli.md", "y\n")])
    assert codes(tmp_path, "SL306,SL311") == []


@pytest.mark.parametrize(
    "body",
    [
        "For details, see `references/`.\n",
        "Read the relevant guide from references/ when needed.\n",
        "If anything is unclear, check the references folder.\n",
        "See the API documentation in the references for complete details.\n",
        "- Reference files in `references/` dir. Read on demand.\n",
    ],
)
def test_generic_pointers(tmp_path, body):
    make(tmp_path, body, [("references/api.md", "x\n"), ("references/cli.md", "y\n")])
    assert codes(tmp_path, "SL306,SL311") == [("SL311", 5)]


@pytest.mark.parametrize(
    "body, files",
    [
        (  # the cases are named by stem in the table under the pointer's section
            "## Case set\n\nAXIS scenarios live in `evals/scenarios/`.\n\n| Case | Purpose |\n|---|---|\n"
            "| `small-inline-workflow` | catches over-splitting |\n| `reference-backed` | routes to a reference |\n",
            [("evals/scenarios/small-inline-workflow.json", "{}"), ("evals/scenarios/reference-backed.json", "{}")],
        ),
        (  # the file is named in the fenced command that follows
            "First resolve this skill's directory, then use the fetch script in its `scripts/` directory:\n\n"
            "```bash\nnode <skill-dir>/scripts/fetch.js <url>\n```\n",
            [("scripts/fetch.js", ""), ("scripts/cache.js", "")],
        ),
        (  # a worked example in a fenced block names the template the pointer leads to
            "**For template reference:** See [templates/](templates/) directory for skill type templates.\n\n"
            "```\n1. Identify type: Fuzzer Skill\n2. Read templates/fuzzer-skill.md\n```\n",
            [("templates/fuzzer-skill.md", "x\n"), ("templates/tool-skill.md", "y\n")],
        ),
    ],
)
def test_files_named_by_stem_or_in_code_are_named(tmp_path, body, files):
    make(tmp_path, body, files)
    assert codes(tmp_path, "SL306,SL311") == []


def test_a_plain_word_stem_does_not_name_a_file(tmp_path):
    # `setup` is a word code spans hold for many reasons: only a stem with a separator names a file
    make(tmp_path, "For details, see `scripts/`; run `setup` first.\n", [("scripts/setup.sh", ""), ("scripts/x.sh", "")])
    assert codes(tmp_path, "SL306,SL311") == [("SL311", 5)]


def test_the_references_in_a_page_of_that_folder_means_references_in_general(tmp_path):
    make(
        tmp_path,
        "Read [the server guide](references/server.md) when you build the server.\n",
        [
            ("references/server.md", "# Server\n\nSee the MCP SDK documentation in the references for complete details.\n"),
            ("references/client.md", "x\n"),
        ],
    )
    assert codes(tmp_path, "SL311") == []


def test_a_folder_path_shown_as_its_own_link_text_is_one_pointer(tmp_path):
    make(tmp_path, "See [`references/`](references/) for worked examples.\n", [("references/a.md", ""), ("references/b.md", "")])
    found = lint_json(str(tmp_path / "demo"), "--select", "SL311", "--target", "agentskills", cwd=tmp_path)["diagnostics"]
    assert [(d["line"], d["message"].split(" the folder")[0]) for d in found] == [(5, "this sentence links to")]


def test_a_folder_with_one_file_is_still_generic(tmp_path):
    make(tmp_path, "Load the checklist in `checklists/` before reviewing.\n", [("checklists/review.md", "x\n")])
    assert codes(tmp_path, "SL311") == [("SL311", 5)]


def test_files_named_in_a_list_above_the_pointer_are_named(tmp_path):
    # the list gives each file by its name, in bold prose: the closing pointer sends the agent to files it knows
    body = (
        "## Scripts\n\n- **init.sh** - one-command setup\n- **bundle.sh** - shrink the bundle\n\n"
        "See `scripts/` directory for automation tools.\n"
    )
    make(tmp_path, body, [("scripts/init.sh", ""), ("scripts/bundle.sh", "")])
    assert codes(tmp_path, "SL311") == []
    # a list that names no file of the folder leaves the pointer generic
    make(tmp_path, body.replace("init.sh", "Setup").replace("bundle.sh", "Shrink"), [("scripts/init.sh", ""), ("scripts/bundle.sh", "")])
    assert codes(tmp_path, "SL311") == [("SL311", 10)]


@pytest.mark.parametrize("entry", ["README.md", "readme.txt", "README", "index.md"])
def test_a_folder_with_its_own_entry_document_is_a_unit(tmp_path, entry):
    # one example project, pointed at whole: the agent opens its README, not a guess among its files
    files = [(f"examples/upload/{entry}", "# Upload\n"), ("examples/upload/src/index.ts", ""), ("examples/upload/package.json", "{}")]
    make(tmp_path, "## Upload\n\nSee `examples/upload/` for a complete working project.\n", files)
    assert codes(tmp_path, "SL311") == []


@pytest.mark.parametrize(
    "files",
    [
        # a bag of templates that shares a manifest: the manifest is no document to start from
        [("templates/a.ts", ""), ("templates/b.ts", ""), ("templates/package.json", "{}")],
        # an entry document deeper down is another folder's
        [("templates/a.ts", ""), ("templates/b.ts", ""), ("templates/site/README.md", "x\n")],
        # an index that is code, not a page to read
        [("templates/a.ts", ""), ("templates/index.ts", "")],
    ],
)
def test_a_folder_without_an_entry_document_of_its_own_is_a_bag_of_files(tmp_path, files):
    make(tmp_path, "Check `templates/` for working examples.\n", files)
    assert codes(tmp_path, "SL311") == [("SL311", 5)]


def test_a_directive_after_the_files_are_named_is_a_reminder(tmp_path):
    body = (
        "- GSAP: `references/gsap.md`\n- Framer: `references/framer.md`\n\n## Workflow\n\n"
        "1. Pick the library.\n2. Read the relevant reference document in `references/`.\n"
    )
    make(tmp_path, body, [("references/gsap.md", "x\n"), ("references/framer.md", "y\n")])
    assert codes(tmp_path, "SL311") == []


def test_rules_do_not_read_outside_the_package(tmp_path):
    """Anchors are read only from files inside the package."""
    skill = make(tmp_path, "[x](references/out.md#top)\n", [("references/in.md", "# In\n")])
    (tmp_path / "secret.md").write_text("# Top\n")
    os.symlink("../../secret.md", skill / "references" / "out.md")
    assert codes(tmp_path, "SL301,SL307") == []



def _plugin_skill(tmp_path, body):
    plugin = tmp_path / "my-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "my-plugin"}', encoding="utf-8")
    (plugin / "CONNECTORS.md").write_text("# Connectors\n", encoding="utf-8")
    write_skill(plugin / "skills", "deploy", FRONT.replace("demo", "deploy") + body)
    return plugin


def _plugin_findings(tmp_path, targets):
    result = lint_json(str(tmp_path / "my-plugin"), "--select", "SL301,SL302", "--target", targets, cwd=tmp_path)
    return sorted((d["code"], tuple(d["targets"]), d["message"].split("`")[1]) for d in result["diagnostics"])


def test_a_file_of_the_plugin_is_there_where_the_plugin_is_installed_whole(tmp_path):
    _plugin_skill(tmp_path, "Read [connectors](../../CONNECTORS.md) first.\n")
    assert _plugin_findings(tmp_path, "claude-code") == []
    # installed alone (claude.ai, the spec's layout), the file does not come along
    assert _plugin_findings(tmp_path, "claude-code,agentskills") == [("SL302", ("agentskills",), "../../CONNECTORS.md")]


def test_a_sibling_skill_the_plugin_does_not_have_is_missing_not_outside(tmp_path):
    _plugin_skill(tmp_path, "Then use [the checklist](../owasp-checklist/SKILL.md).\n")
    assert _plugin_findings(tmp_path, "claude-code,agentskills") == [
        ("SL301", ("claude-code",), "../owasp-checklist/SKILL.md"),
        ("SL302", ("agentskills",), "../owasp-checklist/SKILL.md"),
    ]


def test_a_nested_document_may_lean_on_the_skill_that_links_it(tmp_path):
    """Claude Code never lists `.claude/skills/release/notes`, but reads it through the link from
    `release`, whose folder holds it: its links up into `release` stay inside what Claude reads
    (no SL302), and one to a file `release` lacks is missing there (SL301)."""
    skills = tmp_path / ".claude" / "skills"
    write_skill(skills, "release", FRONT.replace("demo", "release") + "When writing notes, follow [notes](notes/SKILL.md).\n")
    (skills / "release" / "references").mkdir()
    (skills / "release" / "references" / "style.md").write_text("# Style\n")
    body = "Back to [release](../SKILL.md); see [style](../references/style.md) and [old](../references/gone.md).\n"
    write_skill(skills, "release/notes", FRONT.replace("demo", "notes") + body)
    result = lint_json(str(tmp_path), "--select", "SL301,SL302", cwd=tmp_path)
    found = [(d["code"], d["targets"], d["message"]) for d in result["diagnostics"]]
    assert found == [
        (
            "SL301",
            ["claude-code"],
            "link `../references/gone.md` does not exist in the skill `release` (Claude Code reads this nested skill "
            "as a document of it, through a link, so it may lean on that skill's other files, but not on this one)",
        )
    ]


def test_a_skill_nested_in_another_comes_with_it(tmp_path):
    """Outside Claude Code's listing, a skill inside another skill's folder is installed (copied or
    loaded in place) with that skill: its links to its siblings there stay inside what is installed,
    and one to a file the outer skill lacks is missing there."""
    outer = write_skill(tmp_path / "skills", "scaling", FRONT.replace("demo", "scaling") + "Pick [qps](qps/SKILL.md) or [volume](volume/SKILL.md).\n")
    write_skill(outer, "volume", FRONT.replace("demo", "volume"))
    write_skill(outer, "qps", FRONT.replace("demo", "qps") + "Or scale [volume](../volume/SKILL.md); see [gone](../gone.md).\n")
    result = lint_json(str(tmp_path / "skills"), "--select", "SL301,SL302", "--target", "agentskills,codex", cwd=tmp_path)
    found = [(d["code"], d["message"].split("`")[1], d["message"].split("`")[3]) for d in result["diagnostics"]]
    assert found == [("SL301", "../gone.md", "scaling")]


def test_a_skill_template_may_link_the_skills_its_holder_ships_beside_it(tmp_path):
    """A skill that carries skill templates (nested skills, or documents with a name and a
    description) writes them into a project's skills folder beside the other skills it names:
    a template's `../<name>/SKILL.md` is judged there, not here. A sibling the holder never names
    is still missing."""
    outer = write_skill(
        tmp_path / "skills",
        "derive",
        FRONT.replace("demo", "derive")
        + "Copy [plan](resources/plan/SKILL.md) into `ai-tools/skills/`; render [debug](resources/debug-template.md) too.\n"
        "Both hand off to `review-phase`, which this skill generates.\n",
    )
    write_skill(outer / "resources", "plan", FRONT.replace("demo", "plan") + "Then run [review](../review-phase/SKILL.md) and [x](../unknown/SKILL.md).\n")
    (outer / "resources" / "debug-template.md").write_text(
        "---\nname: debug\ndescription: Debug {{PROJECT}}.\n---\n\nThen [review](../review-phase/SKILL.md) and [y](../other/SKILL.md).\n",
        encoding="utf-8",
    )
    result = lint_json(str(tmp_path / "skills"), "--select", "SL301,SL302", "--target", "agentskills", cwd=tmp_path)
    found = sorted((d["code"], d["message"].split("`")[1]) for d in result["diagnostics"])
    assert found == [("SL301", "../other/SKILL.md"), ("SL301", "../unknown/SKILL.md")]


def test_a_link_out_of_the_skill_to_a_file_that_is_nowhere_says_so(tmp_path):
    """Outside any plugin a link to a sibling skill is SL302 either way; when the linted tree does not
    hold the file, the one finding says it is missing too (it was only "leaves the skill folder")."""
    write_skill(tmp_path / "skills", "deploy", FRONT.replace("demo", "deploy") + "Use [b](../checks/SKILL.md) and [c](../gone/SKILL.md).\n")
    write_skill(tmp_path / "skills", "checks", FRONT.replace("demo", "checks"))
    result = lint_json(str(tmp_path / "skills"), "--select", "SL301,SL302", "--target", "agentskills", cwd=tmp_path)
    found = sorted((d["code"], d["message"].split("`")[1], "no such file exists" in d["message"]) for d in result["diagnostics"])
    assert found == [("SL302", "../checks/SKILL.md", False), ("SL302", "../gone/SKILL.md", True)]


def test_whether_a_file_beyond_the_linted_tree_exists_is_never_asked(tmp_path):
    """A link that climbs past the lint root: nothing there is looked at, so the message does not
    claim the file is missing (nor that it exists)."""
    (tmp_path / "gone.md").write_text("# outside the linted tree\n")
    write_skill(tmp_path / "tree" / "skills", "deploy", FRONT.replace("demo", "deploy") + "See [x](../../../gone.md) and [y](../../../none.md).\n")
    result = lint_json(str(tmp_path / "tree"), "--select", "SL302", "--target", "agentskills", cwd=tmp_path)
    assert [("no such file" in d["message"]) for d in result["diagnostics"]] == [False, False]


def test_a_folder_whose_files_the_document_lists_by_title_is_named(tmp_path):
    """"Read the corresponding theme file from `themes/`" after a list of the themes' titles: the
    reader's choice among the titles picks the file. Every file must be listed: one title matching
    one file of the folder leaves the others unnamed."""
    files = [("themes/ocean-depths.md", "x\n"), ("themes/golden-hour.md", "y\n")]
    listed = "## Themes\n\n1. **Ocean Depths** - calm blues\n2. **Golden Hour** - warm tones\n\n"
    pointer = "After a theme is chosen, read the corresponding theme file from the `themes/` directory.\n"
    make(tmp_path, listed + pointer, files)
    assert codes(tmp_path, "SL311") == []
    make(tmp_path, "## Themes\n\n1. **Ocean Depths** - calm blues\n\n" + pointer, files)
    assert codes(tmp_path, "SL311") == [("SL311", 9)]


def test_a_file_a_missing_reference_names_but_for_its_extension_is_its_target_not_an_orphan(tmp_path):
    from conftest import lint_json, write_skill

    skill = write_skill(
        tmp_path, "diagrams",
        "---\nname: diagrams\ndescription: Draws diagrams. Use when asked for a flowchart.\n---\n# Diagrams\n\n"
        "Start from `templates/flowchart-template.json` when drawing a flowchart.\n",
    )  # fmt: skip
    (skill / "templates").mkdir()
    (skill / "templates" / "flowchart-template.excalidraw").write_text("{}", encoding="utf-8")
    (skill / "templates" / "unused.excalidraw").write_text("{}", encoding="utf-8")
    found = lint_json(str(tmp_path), "--select", "SL301,SL304", "--no-cache", cwd=tmp_path)["diagnostics"]
    by_code = {d["code"]: d for d in found}
    assert "did you mean `templates/flowchart-template.excalidraw`?" in by_code["SL301"]["message"]
    assert [d["path"] for d in found if d["code"] == "SL304"] == ["diagrams/templates/unused.excalidraw"]
