"""SL510 reports near-duplicates a router cannot tell apart: what sets two entries apart is the
words one has and the other lacks, weighed by their rarity in the catalog (catalog.distinguish)."""

from __future__ import annotations

from conftest import lint_json, write_skill

from skilllint.catalog.distinguish import Distinctions

TEMPLATE = "Automate {app} tasks via Rube MCP (Composio). Search tools first, then run them. Always search tools first for current schemas."


def skill(root, folder: str, name: str, description: str) -> None:
    write_skill(root, folder, f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n")


def test_a_templated_collection_is_told_apart_by_its_product_names(tmp_path):
    (tmp_path / ".git").mkdir()
    apps = ["Gmail", "Slack", "Notion", "Here", "Asana", "Jira", "Trello", "Figma", "Zoom", "Stripe"]
    for app in apps:
        slug = app.lower()
        skill(tmp_path, f"skills/{slug}-automation", f"{slug}-automation", TEMPLATE.format(app=app))
    # one product under two spellings: nothing tells the copies apart
    skill(tmp_path, "skills/google_maps-automation", "google_maps-automation", TEMPLATE.format(app="Google Maps"))
    skill(tmp_path, "skills/google-maps-automation", "google-maps-automation", TEMPLATE.format(app="Google Maps") + " ")
    found = lint_json(".", "--select", "SL510", "--no-cache", cwd=tmp_path)["diagnostics"]
    paths = sorted(d["path"] for d in found)
    assert paths == ["skills/google-maps-automation/SKILL.md", "skills/google_maps-automation/SKILL.md"], found


def test_a_word_only_one_description_has_tells_them_apart_even_a_stop_word_in_a_compound():
    entries = [
        "Gmail: Reply to a message (handles threading automatically).",
        "Gmail: Reply-all to a message (handles threading automatically).",
        "Gmail: Send an email.",
    ]
    assert Distinctions(entries).distinguishable(0, 1)


def test_stop_words_and_common_words_tell_nothing_apart():
    entries = ["Drafts release notes from merged pull requests.", "Drafts the notes of a release from merged pull requests."]
    entries += [f"Something about topic {i} from merged pull requests." for i in range(8)]
    assert not Distinctions(entries).distinguishable(0, 1)  # "the", "of", "a": no content
