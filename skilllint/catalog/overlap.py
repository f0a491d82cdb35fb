"""Description overlap within one catalog (rule SL510, description-overlap).

Given the descriptions of the skills one surface lists together, find for each
skill its closest partner and a similarity score, so SL510 can report a
*warning* for identical descriptions and an *info* for near-duplicates at or
above a configurable threshold: one finding per skill, naming the partner and
the score.

Score
-----
``score`` is the **Jaccard similarity of the two descriptions' content-word
sets**: ``|A & B| / |A | B|``, where a description's content words are its
lower-cased alphanumeric words, minus English stop words and the routing
boilerplate every description carries ("use", "when", "user", "skill",
"asks", ...), lightly stemmed (plural ``s``/``ies``, ``ing``, ``ed``, final
``e``) so "creates"/"creating"/"create" count once.

Why this score and not TF-IDF cosine or word-bigram shingles:

* **explainable** - "these two descriptions share 8 of their 9 distinct content
  words" is a sentence an author can check by eye;
* **catalog-independent** - a pair's score depends only on the two texts, so
  adding an unrelated skill to the catalog never changes an existing finding
  (TF-IDF weights move with every skill added);
* **robust to rewording** - word order and inflection are folded, so template
  clones ("Get best practices for XUnit unit testing ..." / "... for NUnit
  ...") score high even where bigram shingles break at every swapped word;
* **exact and cheap candidate generation** - a set-similarity threshold admits
  *prefix filtering* (Bayardo et al., "Scaling up all pairs similarity
  search", WWW 2007): order every set's words rarest first; two sets with
  Jaccard >= t must share a word among the first ``|x| - ceil(t*|x|) + 1``
  words of each. Indexing and probing only those prefixes, plus the size filter
  ``t*|x| <= |y| <= |x|/t``, yields every pair at or above the threshold while
  touching only rare words, whose postings are short.

On 527 public skills (anthropics/skills, obra/superpowers, github/awesome-copilot,
trailofbits/skills) the cosine and
bigram variants rank the same template families at the top (checked by
scoring every pair all three ways); the default threshold is justified on the corpus
at :data:`DEFAULT_THRESHOLD`.

Identical descriptions
----------------------
``identical`` compares the descriptions after folding case, whitespace and
punctuation (every run of non-alphanumeric characters becomes one space).
Identical descriptions always score 1.0 and are reported whatever the
threshold. Two different texts can also score 1.0 (same content words,
different order or stop words); they are near-duplicates, not identical.
Empty and whitespace-only descriptions are skipped: a missing description is
another rule's finding, and two empty descriptions are not an overlap. A
description with no content words (only stop words) can still be identical to
another, but scores 0.0 against everything else.

Partner choice
--------------
The closest partner is the one with the highest ``(identical, score)``; ties
go to the lowest partner index. The result holds one :class:`Overlap` per
skill that has a partner at or above the threshold (or an identical one),
sorted by index; it is deterministic, and permuting the input permutes the
result (up to which of several equally close partners is named).

Cost
----
Linear in the number of skills for realistic catalogs: every word's posting
list is capped (:data:`POSTING_CAP`); words in more postings than that are
neither indexed nor probed (at 10,000 skills that is words in more than 2% of
descriptions, i.e. domain stop words like "code" or "file"). Because prefixes
hold each set's rarest words, a capped word only reaches a prefix when a
description has almost nothing but very common words; such a pair can be
missed, which is the documented price of the cap.

Templated catalogs are where that happens: every description carries the same
template words, so two whose word sets are equal, or one word apart, share
nothing but capped words. Those pairs are found by hashing instead, independent
of the cap (:func:`_one_word_apart`): equal word sets by hashing the set, sets
one word apart (a word added, removed or swapped) through each set's *deletion
neighbourhood* (the set itself and the set minus each of its words, keyed by
the sum of their words' hashes, so ``n`` words give ``n + 1`` keys in O(n)).
Within one key every pair's score follows from the set sizes, so a key keeps
only its lowest-index members and no group is walked pairwise: each skill
costs its word count, however many skills the template makes alike. Only sets
the prefix filter may miss are filed (fewer words under the cap than their
probing prefix holds: a missed pair shares only capped words in its prefixes,
so both its sets are such), so a catalog without capped words pays nothing. Pairs
that differ by two words or more on one side and share only capped words can
still be missed. Identical descriptions are grouped by hashing the normalised
text. :func:`find_overlaps` accepts a ``stats`` dict that receives the number
of candidate pairs scored, so the bound can be tested in operations rather
than time.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "DEFAULT_THRESHOLD",
    "POSTING_CAP",
    "STOP_WORDS",
    "Overlap",
    "content_words",
    "find_overlaps",
    "normalise",
    "similarity",
]

#: Default near-duplicate threshold (Jaccard of content-word sets), chosen on
#: the real corpus (527 skills as one catalog, every pair scored): 54 pairs
#: score >= 0.5. Read by hand, 14 of the 33 pairs >= 0.6 and 7 of the 21 in
#: [0.5, 0.6) compete for the same request (parent/child skills, placeholder
#: "Skill converted from X.prompt.md" descriptions, C# test-framework clones
#: that never say "C#"); the rest are template siblings told apart by one
#: platform word (AWS/Azure, Ruby/Swift). Below 0.5 the share of real
#: ambiguities falls (4 of 12 in [0.4, 0.5)) and the pairs become
#: same-family-different-task. Lexical scores cannot tell a decisive word
#: from an incidental one, hence SL510 near-duplicates are info, not warnings.
DEFAULT_THRESHOLD = 0.5

#: Words held by more than this many descriptions are not used to find
#: candidates (they still count in the score).
POSTING_CAP = 200

#: English stop words plus routing boilerplate that every description shares.
STOP_WORDS = frozenset(
    """
    a an the and or nor but of to in on for with by from as at is are be been being am this that these those
    it its it's into onto via per than then so if else about above below up down out off over under again
    further once here there all any both each few more most other some such no not only own same too very
    can could will would shall should must may might do does did doing done has have had having was were
    i me my we our ours us you your yours he she him her his they them their theirs what which who whom whose
    where when whenever while how why after before during between through until also etc eg e g ie
    use used uses using usage skill skills user users ask asks asked asking want wants wanted need needs
    needed help helps helping trigger triggers triggered triggering like just even new
    """.split()
)

_WORD = re.compile(r"[a-z0-9]+")
_ALNUM = re.compile(r"[0-9a-z]+")


@dataclass(frozen=True)
class Overlap:
    """One SL510 finding: skill ``index`` and its closest ``partner``."""

    index: int
    partner: int
    score: float
    identical: bool


@lru_cache(maxsize=16384)  # each target's catalog of a folder holds the same descriptions
def normalise(description: str) -> str:
    """Fold case, whitespace and punctuation: the text ``identical`` compares."""
    return " ".join(_ALNUM.findall(description.casefold()))  # each non-alphanumeric run: one space


@lru_cache(maxsize=65536)  # words recur across a catalog's descriptions: stem each once
def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


@lru_cache(maxsize=16384)  # one catalog per target holds the same descriptions
def content_words(description: str) -> frozenset[str]:
    """The set of stemmed content words of a description (what the score compares)."""
    words = set(_WORD.findall(description.casefold()))
    words -= STOP_WORDS  # each distinct word once, before the (Python-level) stemming
    return frozenset(_stem(w) for w in words if len(w) > 1)


def _normalised_content_words(text: str) -> frozenset[str]:
    """:func:`content_words` of a :func:`normalise` d text, whose words are its space-separated runs."""
    return frozenset(_stem(w) for w in set(text.split()) - STOP_WORDS if len(w) > 1)


def similarity(a: str, b: str) -> float:
    """The SL510 score of two descriptions (1.0 when their normalised texts are equal)."""
    if normalise(a) == normalise(b) and normalise(a):
        return 1.0
    x, y = content_words(a), content_words(b)
    union = len(x | y)
    return len(x & y) / union if union else 0.0


def find_overlaps(
    descriptions: Sequence[str],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    posting_cap: int = POSTING_CAP,
    stats: dict[str, int] | None = None,
    kept: MutableMapping | None = None,
) -> list[Overlap]:
    """One :class:`Overlap` per skill whose closest partner scores >= ``threshold`` or is identical.

    ``threshold`` must be in (0, 1]. ``stats``, when given, receives
    ``candidates`` (pairs scored), ``neighbours`` (those of them found by
    hashing word sets one word apart), ``probes`` (posting entries visited) and
    ``skipped_words`` (distinct words over ``posting_cap``). ``kept``: answers
    of earlier runs (JSON-shaped), read and added to.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    # The result depends on the normalised texts alone: each surface's catalog of one
    # folder (Codex collapses whitespace, Copilot does not) asks the same question.
    norm = tuple(normalise(text) if isinstance(text, str) else "" for text in descriptions)
    if stats is not None:
        return _find_overlaps(norm, threshold, posting_cap, stats)
    if kept is None:
        return list(_find_overlaps_once(norm, threshold, posting_cap))
    # Kept between runs (pre-commit asks the same of a 1,000-skill catalog on every commit):
    # keyed by the normalised texts, which are all the answer depends on.
    key = "overlaps:" + hashlib.sha256(f"{threshold!r}\0{posting_cap}\0{len(norm)}\0{RS.join(norm)}".encode("utf-8", "surrogatepass")).hexdigest()
    found = _from_kept(kept.get(key), len(norm), threshold)
    if found is None:
        found = list(_find_overlaps_once(norm, threshold, posting_cap))
        kept[key] = [[o.index, o.partner, o.score, o.identical] for o in found]
    return found


RS = "\x1e"  # between texts in a key: no normalised text holds it (only letters, digits and spaces)


def _from_kept(rows, n: int, threshold: float) -> list[Overlap] | None:
    """Overlaps as :func:`find_overlaps` kept them, or None when ``rows`` is not such a list
    (kept answers come from a file in the tree: each row is checked against what the search returns)."""
    if not isinstance(rows, list) or len(rows) > n:  # at most one overlap per skill
        return None
    found = []
    seen = set()
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4):
            return None
        index, partner, score, identical = row
        if not (type(index) is int and type(partner) is int and 0 <= index < n and 0 <= partner < n):
            return None
        if index == partner or index in seen:
            return None
        if not (type(score) in (int, float) and 0 <= score <= 1 and type(identical) is bool):
            return None
        if not (identical or score >= threshold):
            return None
        seen.add(index)
        found.append(Overlap(index, partner, float(score), identical))
    return found


@lru_cache(maxsize=8)
def _find_overlaps_once(norm: tuple[str, ...], threshold: float, posting_cap: int) -> tuple[Overlap, ...]:
    return tuple(_find_overlaps(norm, threshold, posting_cap, None))


def _find_overlaps(norm: tuple[str, ...], threshold: float, posting_cap: int, stats: dict[str, int] | None) -> list[Overlap]:
    n = len(norm)
    # best[i] = (identical, score, -partner) maximised; stored as tuple for cheap comparison.
    best: dict[int, tuple[bool, float, int]] = {}

    def offer(i: int, j: int, identical: bool, score: float) -> None:
        key = (identical, score, -j)
        cur = best.get(i)
        if cur is None or key > cur:
            best[i] = key

    # 1. identical descriptions: group by normalised text.
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(norm):
        if t:
            groups.setdefault(t, []).append(i)
    for members in groups.values():
        if len(members) > 1:
            first, second = members[0], members[1]
            for i in members:
                offer(i, second if i == first else first, True, 1.0)

    sets: list[frozenset[str]] = [_normalised_content_words(t) if t else frozenset() for t in norm]

    df: dict[str, int] = {}
    for s in sets:
        for w in s:
            df[w] = df.get(w, 0) + 1
    skipped = sum(1 for c in df.values() if c > posting_cap)

    # 2. equal word sets and sets one word apart, by hashing: found whatever words they
    # share, so a templated catalog, whose shared words are all over the cap, loses none.
    # A pair the prefix filter misses shares only capped words in its prefixes, so each
    # of its sets has fewer words under the cap than its probing prefix holds: only such
    # sets need their neighbours looked up.
    if skipped:
        capped = frozenset(w for w, c in df.items() if c > posting_cap)
        at_risk = [len(s) - len(s & capped) < _probe_length(len(s), threshold) for s in sets]
    else:
        at_risk = [False] * n
    neighbours = _one_word_apart(sets, norm, threshold, offer, at_risk)

    # 3. near-duplicates: prefix filtering over rarest-first content words.
    order = {w: (c, w) for w, c in df.items()}
    ordered: list[list[str]] = [sorted(s, key=order.__getitem__) for s in sets]

    # PPJoin-style: visit skills by size; each probes the index of smaller (or
    # equal) skills with its probing prefix (|x| - ceil(t|x|) + 1 words), then
    # indexes its shorter indexing prefix (|y| - ceil(2t/(1+t)|y|) + 1 words),
    # which suffices because every later partner is at least as large.
    postings: dict[str, list[int]] = {}
    index_t = 2 * threshold / (1 + threshold)
    candidates = 0
    probes = 0
    for i in sorted(range(n), key=lambda k: (len(sets[k]), k)):
        words = ordered[i]
        size = len(words)
        if not size:
            continue
        x = sets[i]
        lo = threshold * size - 1e-9
        plen = _probe_length(size, threshold)
        seen: set[int] = set()
        for w in words[:plen]:
            plist = postings.get(w)
            if plist is None or df[w] > posting_cap:
                continue
            probes += len(plist)
            for j in plist:
                if j in seen:
                    continue
                seen.add(j)
                ys = len(sets[j])
                if ys < lo:
                    continue
                candidates += 1
                inter = len(x & sets[j])
                score = inter / (size + ys - inter)
                if score >= threshold - 1e-12:
                    same = norm[i] == norm[j]
                    s = 1.0 if same else score
                    offer(i, j, same, s)
                    offer(j, i, same, s)
        ilen = size - math.ceil(index_t * size - 1e-9) + 1
        for w in words[:ilen]:
            if df[w] <= posting_cap:
                postings.setdefault(w, []).append(i)

    if stats is not None:
        stats["candidates"] = candidates + neighbours
        stats["neighbours"] = neighbours
        stats["probes"] = probes
        stats["skipped_words"] = skipped
    return [Overlap(i, -key[2], key[1], key[0]) for i, key in sorted(best.items())]


def _probe_length(size: int, threshold: float) -> int:
    """How many of a set's rarest words it probes the index with: a partner scoring >= ``threshold`` shares one."""
    return size - math.ceil(threshold * size - 1e-9) + 1


_MASK = (1 << 64) - 1


def _word_hash(word: str) -> int:
    """A 64-bit hash of a word, the same in every process (``hash`` of a str is salted)."""
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def _one_word_apart(sets: Sequence[frozenset[str]], norm: Sequence[str], threshold: float, offer, at_risk: Sequence[bool]) -> int:
    """Offer each skill its closest partner among skills whose content-word set is the same,
    or one word apart (one word added, removed or swapped) when both are ``at_risk``;
    return the number of pairs scored.

    Equal sets are grouped by hashing the set. For the rest, each distinct set ``S`` is
    filed under its *deletion neighbourhood*: ``S`` itself and ``S - {w}`` for each of its
    words, each keyed by the sum of its words' hashes (so a key costs O(1) from the sum of
    ``S``). Two distinct sets share a key exactly when one word tells them apart: ``S``
    and ``S + {w}`` under ``S``, ``K + {a}`` and ``K + {b}`` under ``K``. Within a key
    every pair's score follows from the set sizes, so a key keeps only its lowest-index
    member of each kind and no group is ever walked pairwise: a templated catalog, where
    thousands of sets are one word apart, costs the same per skill as any other. Each set's
    best candidate is then scored like any other pair (a hash collision only costs a
    candidate that fails the score).
    """
    by_set: dict[frozenset[str], list[int]] = {}
    for i, s in enumerate(sets):
        if s:
            by_set.setdefault(s, []).append(i)
    for members in by_set.values():  # equal sets score 1.0 (identical texts were offered already)
        if len(members) > 1:
            first, second = members[0], members[1]
            for i in members:
                j = second if i == first else first
                offer(i, j, norm[i] == norm[j], 1.0)

    # in order of lowest member: a lower position is a lower partner index
    distinct = [s for s, members in by_set.items() if at_risk[members[0]]]
    hashes: dict[str, int] = {}
    totals = []
    for s in distinct:
        total = 0
        for w in s:
            h = hashes.get(w)
            if h is None:
                h = hashes[w] = _word_hash(w)
            total += h
        totals.append(total & _MASK)

    # per key (positions in distinct): the set equal to it, the first and second sets one word over it
    equal_to: dict[int, int] = {}
    first_over: dict[int, int] = {}
    second_over: dict[int, int] = {}  # held apart: most keys have one set over them
    for k, (s, total) in enumerate(zip(distinct, totals)):
        equal_to.setdefault(total, k)
        for w in s:
            key = (total - hashes[w]) & _MASK
            if first_over.setdefault(key, k) != k:
                second_over.setdefault(key, k)

    scored = 0
    for k, (s, total) in enumerate(zip(distinct, totals)):
        size = len(s)
        # candidates as (expected score, partner position): the best one is scored
        found: list[tuple[float, int]] = []
        over = first_over.get(total)  # S + {w}: |S| / (|S| + 1)
        if over is not None and over != k:
            found.append((size / (size + 1), -over))
        for w in s:
            key = (total - hashes[w]) & _MASK
            equal = equal_to.get(key)
            if equal is not None and equal != k:  # S - {w}: (|S| - 1) / |S|
                found.append(((size - 1) / size, -equal))
            first = first_over[key]
            other = second_over.get(key) if first == k else first
            if other is not None and other != k:  # S - {w} + {v}: (|S| - 1) / (|S| + 1)
                found.append(((size - 1) / (size + 1), -other))
        for expected, neg in sorted(found, reverse=True):
            if expected < threshold - 1e-12:
                break
            partner = distinct[-neg]
            scored += 1
            inter = len(s & partner)
            score = inter / (size + len(partner) - inter)
            if score >= threshold - 1e-12:
                j = by_set[partner][0]
                for i in by_set[s]:
                    offer(i, j, False, score)
            if score == expected:  # the later candidates score no more (else a hash collision: go on)
                break
    return scored


def generate_descriptions(n: int, *, seed: int = 0, clone_rate: float = 0.1) -> list[str]:
    """Synthetic catalog descriptions for benchmarks and tests (deterministic).

    Words come from a Zipf-like vocabulary of ``max(2000, n)`` words so common
    words are very common and most are rare, like real descriptions; a
    ``clone_rate`` share are template clones of an earlier description with one
    or two words swapped, and a few are exact copies.
    """
    import random

    rng = random.Random(seed)
    vocab_size = max(2000, n)
    vocab = [f"w{k}" for k in range(vocab_size)]
    weights = [1.0 / (k + 1) for k in range(vocab_size)]
    boiler = ["Use", "when", "the", "user", "asks", "to"]
    out: list[str] = []
    for i in range(n):
        r = rng.random()
        if out and r < clone_rate:
            base = out[rng.randrange(len(out))].split()
            for _ in range(rng.randint(1, 2)):
                base[rng.randrange(len(base))] = rng.choice(vocab)
            out.append(" ".join(base))
        elif out and r < clone_rate + 0.01:
            out.append(out[rng.randrange(len(out))].upper())
        else:
            k = rng.randint(8, 30)
            words = rng.choices(vocab, weights=weights, k=k)
            out.append(" ".join(words[: k // 2] + boiler + words[k // 2 :]))
    return out


if __name__ == "__main__":  # pragma: no cover - benchmark
    import sys
    import time

    sizes = [int(a) for a in sys.argv[1:]] or [1_000, 10_000]
    for size in sizes:
        data = generate_descriptions(size)
        st: dict[str, int] = {}
        t0 = time.perf_counter()
        found = find_overlaps(data, stats=st)
        elapsed = time.perf_counter() - t0
        ident = sum(1 for o in found if o.identical)
        print(
            f"n={size}: {elapsed:.3f} s, {len(found)} findings ({ident} identical), "
            f"{st['candidates']} pairs scored ({st['candidates'] / size:.1f} per skill), "
            f"{st['probes']} posting entries visited, {st['skipped_words']} words over the cap"
        )
