"""Description overlap (skilllint.catalog.overlap), the engine of rule SL510."""

from __future__ import annotations

import itertools
import random
import pytest

from skilllint.catalog.overlap import (
    DEFAULT_THRESHOLD,
    Overlap,
    content_words,
    find_overlaps,
    generate_descriptions,
    normalise,
    similarity,
)

def brute_force(descriptions, threshold=DEFAULT_THRESHOLD):
    """All-pairs reference: best (identical, score, lowest partner) per skill."""
    norm = [normalise(d) for d in descriptions]
    sets = [content_words(d) if n else frozenset() for d, n in zip(descriptions, norm)]
    best = {}
    for i, j in itertools.permutations(range(len(descriptions)), 2):
        if not norm[i] or not norm[j]:
            continue
        same = norm[i] == norm[j]
        union = len(sets[i] | sets[j])
        score = 1.0 if same else (len(sets[i] & sets[j]) / union if union else 0.0)
        if not same and score < threshold:
            continue
        key = (same, score, -j)
        if i not in best or key > best[i]:
            best[i] = key
    return [Overlap(i, -k[2], k[1], k[0]) for i, k in sorted(best.items())]


def test_identical_after_folding_case_whitespace_punctuation():
    descs = [
        "Extract text and tables from PDF files.",
        "extract   TEXT and tables\nfrom pdf files",
        "Deploy a container to Kubernetes with Helm charts.",
    ]
    found = find_overlaps(descs)
    assert found == [Overlap(0, 1, 1.0, True), Overlap(1, 0, 1.0, True)]


def test_identical_reported_whatever_the_threshold_and_even_without_content_words():
    descs = ["Use this skill.", "use this SKILL", "Something else entirely about databases."]
    found = find_overlaps(descs, threshold=1.0)
    assert [(o.index, o.partner, o.identical, o.score) for o in found] == [(0, 1, True, 1.0), (1, 0, True, 1.0)]


def test_identical_group_of_three_names_lowest_other_index():
    descs = ["Same words here.", "other topic: sql migrations", "same words HERE", "Same, words; here!"]
    found = find_overlaps(descs)
    assert [(o.index, o.partner) for o in found] == [(0, 2), (2, 0), (3, 0)]
    assert all(o.identical and o.score == 1.0 for o in found)


def test_near_duplicates_found_unrelated_not():
    descs = [
        "Get best practices for XUnit unit testing, including data-driven tests",
        "Get best practices for NUnit unit testing, including data-driven tests",
        "Render Mermaid diagrams from architecture notes into SVG images.",
        "Triage Fedora Linux issues with dnf, systemd and SELinux.",
    ]
    found = find_overlaps(descs)
    assert [(o.index, o.partner, o.identical) for o in found] == [(0, 1, False), (1, 0, False)]
    assert found[0].score == pytest.approx(0.8)  # {best, practice, unit, test, includ, data, driven} + xunit/nunit
    assert similarity(descs[2], descs[3]) == 0.0


def test_threshold_is_respected():
    a = "Analyze AWS resources and optimize costs, creating GitHub issues for optimizations."
    b = "Analyze Azure resources and optimize costs, creating GitHub issues for optimizations."
    s = similarity(a, b)
    assert 0 < s < 1
    assert find_overlaps([a, b], threshold=s) != []
    assert find_overlaps([a, b], threshold=min(1.0, s + 0.01)) == []


def test_one_result_per_skill_naming_best_partner():
    descs = [
        "Convert PDF documents into Markdown for analysis and search.",  # 0
        "Convert Word documents into Markdown for analysis and search.",  # 1: closer to 0 than 2 is
        "Convert Excel workbooks into Markdown tables for analysis.",  # 2
        "Schedule cron jobs on Kubernetes clusters.",  # 3
    ]
    found = find_overlaps(descs, threshold=0.3)
    assert len({o.index for o in found}) == len(found)
    assert [o.index for o in found] == sorted(o.index for o in found)
    by = {o.index: o for o in found}
    assert by[0].partner == 1 and by[1].partner == 0
    assert by[2].partner == 0  # ties between 0 and 1: lowest index
    assert by[2].score == pytest.approx(similarity(descs[2], descs[0]))
    assert 3 not in by
    assert all(o.partner != o.index for o in found)


def test_ties_go_to_lowest_partner_index():
    descs = ["alpha beta gamma delta", "alpha beta gamma epsilon", "alpha beta gamma zeta"]
    found = find_overlaps(descs)
    assert [(o.index, o.partner) for o in found] == [(0, 1), (1, 0), (2, 0)]


def test_identical_partner_beats_equal_score_non_identical():
    descs = ["beta alpha", "alpha beta", "Alpha  beta."]
    found = find_overlaps(descs)
    by = {o.index: o for o in found}
    assert by[1] == Overlap(1, 2, 1.0, True)
    assert by[0] == Overlap(0, 1, 1.0, False)  # same words, different order: score 1.0, not identical


def test_empty_and_short_descriptions():
    assert find_overlaps([]) == []
    assert find_overlaps(["only one"]) == []
    assert find_overlaps(["", "   ", "", "\n"]) == []  # missing descriptions are another rule's business
    assert find_overlaps(["PDF", "pdf"]) == [Overlap(0, 1, 1.0, True), Overlap(1, 0, 1.0, True)]
    assert find_overlaps(["PDF", "PDF tools"], threshold=0.5) == [
        Overlap(0, 1, 0.5, False),
        Overlap(1, 0, 0.5, False),
    ]
    assert find_overlaps(["a", "the", "x y"]) == []  # no content words, not identical


def test_threshold_must_be_in_range():
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError):
            find_overlaps(["a b", "a b c"], threshold=bad)


def test_matches_brute_force_on_generated_catalog():
    descs = generate_descriptions(400, seed=3)
    for t in (0.3, DEFAULT_THRESHOLD, 0.8):
        assert find_overlaps(descs, threshold=t, posting_cap=10**9) == brute_force(descs, t)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deterministic_and_order_independent(seed):
    descs = generate_descriptions(300, seed=10 + seed)
    first = find_overlaps(descs)
    assert find_overlaps(list(descs)) == first
    perm = list(range(len(descs)))
    random.Random(seed).shuffle(perm)  # new position k holds old index perm[k]
    shuffled = [descs[p] for p in perm]
    mapped = {perm[o.index]: (perm[o.partner], o.score, o.identical) for o in find_overlaps(shuffled)}
    original = {o.index: (o.partner, o.score, o.identical) for o in first}
    assert mapped.keys() == original.keys()
    for i, (partner, score, identical) in original.items():
        m_partner, m_score, m_identical = mapped[i]
        assert (m_score, m_identical) == (score, identical)
        # the named partner may differ only among equally close partners
        assert similarity(descs[i], descs[m_partner]) == pytest.approx(score) or identical


@pytest.mark.slow
def test_scored_pairs_linear_at_5000():
    n = 5000
    descs = generate_descriptions(n, seed=7)
    stats: dict[str, int] = {}
    found = find_overlaps(descs, stats=stats)
    assert stats["candidates"] < 50 * n
    assert stats["probes"] < 200 * n
    assert len(found) <= n
    assert any(o.identical for o in found) and any(not o.identical for o in found)


def test_common_words_are_capped():
    # every description shares five very common words; only the rare tails decide
    n = 600
    common = "alpha bravo charlie delta echo"
    descs = [f"{common} tail{i} tail{i}b" for i in range(n)]
    descs.append(f"{common} tail5 tail5b extra")
    stats: dict[str, int] = {}
    found = find_overlaps(descs, threshold=0.7, stats=stats)
    assert stats["skipped_words"] == 5
    assert stats["candidates"] < 5 * n
    assert [(o.index, o.partner) for o in found] == [(5, n), (n, 5)]


def test_real_corpus_matches_brute_force_and_finds_known_clones(corpus):
    from skilllint.skill.package import SkillPackage

    dirs = sorted(p.parent for p in corpus.rglob("SKILL.md"))
    descs = []
    for d in dirs:
        value = (SkillPackage(d).canonical.mapping or {}).get("description")  # None: no frontmatter mapping
        descs.append(value if isinstance(value, str) else "")
    found = find_overlaps(descs)
    assert found == brute_force(descs)
    names = {(dirs[o.index].name, dirs[o.partner].name) for o in found}
    assert ("webapp-testing", "webapp-testing") in names  # anthropics and awesome-copilot copies
    assert ("java-springboot", "kotlin-springboot") in names
    assert all(o.identical == (normalise(descs[o.index]) == normalise(descs[o.partner])) for o in found)


@pytest.mark.parametrize(
    "text",
    ["Creates PDFs; use when asked!", "  Ünïcode—dash…and 3 numbers 42  ", "", "---", "a_b c-d e.f", "Tabs\tand\nnewlines"],
)
def test_the_normalised_fast_path_finds_the_same_content_words(text):
    from skilllint.catalog.overlap import _normalised_content_words

    assert _normalised_content_words(normalise(text)) == content_words(text) == content_words(normalise(text))


def test_answers_kept_between_runs_are_reused_and_checked(monkeypatch):
    from skilllint.catalog import overlap as overlap_module

    texts = generate_descriptions(300, seed=3)
    kept: dict = {}
    fresh = find_overlaps(texts, 0.6, kept=kept)
    assert fresh == find_overlaps(texts, 0.6) and len(kept) == 1
    (key,) = kept
    # the next run answers from what was kept, without searching
    calls = []
    real = overlap_module._find_overlaps_once
    monkeypatch.setattr(overlap_module, "_find_overlaps_once", lambda *a: calls.append(a) or real(*a))
    assert find_overlaps(texts, 0.6, kept=kept) == fresh and calls == []
    # another threshold or other texts are other questions
    find_overlaps(texts, 0.7, kept=kept)
    find_overlaps(texts[:-1], 0.6, kept=kept)
    assert len(calls) == 2 and len(kept) == 3
    # a kept answer that is no such answer (a tampered or foreign cache) is searched again
    for bad in ([[0, 999, 0.5, False]], [[0, 1, 2.0, False]], [[0, 1, 0.5, "yes"]], {"x": 1}, [[0, 1]]):
        kept[key] = bad
        assert find_overlaps(texts, 0.6, kept=kept) == fresh
        assert kept[key] == [[o.index, o.partner, o.score, o.identical] for o in fresh]


# Templated catalogs: every description carries the same template words, each in more
# descriptions than the posting cap, so the prefix filter cannot join two descriptions
# whose difference is a word or none; hashing the word sets must.

_REPORT = (
    "Generates {slot} reports for the finance team from ledger exports, with charts, summaries, audit notes, "
    "variance tables, budget forecasts, cost centres and approval workflows. Use when the user asks for a "
    "{slot} report or reconciliation."
)


def _report_catalog(n=200):
    """``n`` templated skills, each told apart by three words of its own (86% alike: below 0.9)."""
    return [_REPORT.format(slot=f"north{i} south{i} east{i}") for i in range(n)]


def test_templated_catalog_pair_whose_words_are_the_same():
    descs = _report_catalog()
    # the second repeats a word the two already share: other texts, one word set
    descs.append(_REPORT.format(slot="ledger finance"))
    descs.append(_REPORT.format(slot="ledger finance") + " For the finance ledger.")
    found = find_overlaps(descs, threshold=0.9)
    assert [(o.index, o.partner, o.score, o.identical) for o in found] == [(200, 201, 1.0, False), (201, 200, 1.0, False)]
    assert found == brute_force(descs, 0.9)


def test_templated_catalog_identical_word_sets_and_identical_texts():
    descs = _report_catalog()
    descs.append(_REPORT.format(slot="ledger audit"))
    descs.append(_REPORT.format(slot="audit ledger").upper())  # same words, other order: not identical
    descs.append(_REPORT.format(slot="ledger audit"))  # the same text: identical
    found = find_overlaps(descs, threshold=0.9)
    assert [(o.index, o.partner, o.score, o.identical) for o in found] == [
        (200, 202, 1.0, True),
        (201, 200, 1.0, False),
        (202, 200, 1.0, True),
    ]


def test_templated_catalog_pairs_one_word_apart():
    descs = _report_catalog()
    descs.append(_REPORT.format(slot="ledger"))  # 200: the template's words alone
    descs.append(_REPORT.format(slot="ledger quarterly"))  # 201: one word more than 200
    descs.append(_REPORT.format(slot="ledger annual"))  # 202: one word other than 201
    t = content_words(descs[200])
    assert len(t) >= 18  # so that one swapped word still scores >= 0.9
    found = find_overlaps(descs, threshold=0.9)
    assert found == brute_force(descs, 0.9)
    by = {o.index: (o.partner, o.score) for o in found}
    assert by == {
        200: (201, len(t) / (len(t) + 1)),
        201: (200, len(t) / (len(t) + 1)),
        202: (200, len(t) / (len(t) + 1)),
    }
    # one word swapped, with the template alone out of the way
    del descs[200]
    found = find_overlaps(descs, threshold=0.9)
    assert [(o.index, o.partner) for o in found] == [(200, 201), (201, 200)]
    assert found[0].score == pytest.approx(len(t) / (len(t) + 2))


def _templated(n, seed, *, template=20, slots=30):
    """Descriptions made of one template's words (each in every description), as texts that
    vary in order, case, stop words and repeats: each is the template, or the template plus one
    slot word, or the template minus one word plus a slot word. Any two scoring >= 0.9 are
    at most one word apart on each side."""
    rng = random.Random(seed)
    words = [f"tmpl{k}" for k in range(template)]
    out = []
    for _ in range(n):
        kind = rng.random()
        chosen = list(words)
        if kind < 0.2:
            chosen.remove(rng.choice(words))
        if kind < 0.9:
            chosen.append(f"slot{rng.randrange(slots)}")
        chosen += rng.sample(chosen, rng.randint(0, 3)) + rng.sample(["use", "when", "the", "to", "with"], 2)
        rng.shuffle(chosen)
        out.append(" ".join(w.upper() if rng.random() < 0.1 else w for w in chosen) + rng.choice(["", ".", "!"]))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_templated_catalog_matches_brute_force(seed):
    descs = _templated(400, seed)
    stats: dict[str, int] = {}
    found = find_overlaps(descs, threshold=0.9, stats=stats)
    assert stats["skipped_words"] >= 20  # every template word is over the cap
    assert found == brute_force(descs, 0.9)
    assert len(found) == len(descs)


@pytest.mark.slow
def test_templated_candidates_stay_linear_at_20000():
    n = 20_000
    # every description is one word apart from thousands of others: all pairs score >= 0.9
    descs = [_REPORT.format(slot=f"ledger q{i}") if i % 7 else _REPORT.format(slot="ledger") for i in range(n)]
    stats: dict[str, int] = {}
    found = find_overlaps(descs, threshold=0.9, stats=stats)
    assert len(found) == n
    assert stats["candidates"] < 5 * n  # the work counted: pairwise within the template would be n * n / 2
    for o in found[:50] + found[-50:]:
        assert similarity(descs[o.index], descs[o.partner]) == pytest.approx(o.score) and o.score >= 0.9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairs_one_word_apart_are_never_missed(seed):
    # template words over the cap mixed with slot words under it: some sets are found by
    # the prefix filter, some only by hashing; a pair one word apart must never be missed
    rng = random.Random(seed)
    template = [f"tmpl{k}" for k in range(20)]
    descs = []
    for _ in range(400):
        chosen = set(template) - ({rng.choice(template)} if rng.random() < 0.3 else set())
        chosen |= {f"slot{rng.randrange(40)}" for _ in range(rng.randint(0, 3))}
        descs.append(" ".join(rng.sample(sorted(chosen), len(chosen))))
    found = {o.index: o for o in find_overlaps(descs, threshold=0.9)}
    sets = [content_words(d) for d in descs]
    for i, j in itertools.permutations(range(len(descs)), 2):
        if len(sets[i] - sets[j]) <= 1 and len(sets[j] - sets[i]) <= 1:
            score = len(sets[i] & sets[j]) / len(sets[i] | sets[j])
            if score >= 0.9:
                assert i in found and found[i].score >= score, (i, j)
    for o in found.values():
        assert similarity(descs[o.index], descs[o.partner]) == pytest.approx(o.score) and o.score >= 0.9
