"""The lexical router: an offline, deterministic proxy for the model's choice of skill.

It reads what the model reads of each skill, the line the surface renders (its name and the
description as shown: cut where the budget cut it, absent where the budget left the skill
out), and ranks the skills of a catalog for a query with BM25 over stemmed content words.
A skill is a candidate only when its line holds at least :data:`DEFAULT_FLOOR` of the query's
distinct content words (the relevance floor: below it, no skill triggers), and the best-ranked
candidate is the one chosen (several only on an exact tie).

It is a proxy, not a model: it says which queries share no words with what the model sees,
and which sibling's words compete for a query, but not what a model that reads meaning would
do. Words are split on anything that is not a letter or a digit, lower-cased, stop words (the
Snowball English list, and the boilerplate of skill descriptions such as "use when the user
asks") dropped, and stemmed with the Snowball English stemmer (``snowballstemmer``, imported on
first use).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .. import lazyre
from .routing import CatalogView, SkillView, Verdict

# The share of a query's distinct content words a skill's line must hold to be chosen at all.
DEFAULT_FLOOR = 0.2
# BM25's usual constants: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75
# A longer run of letters is no word a stemmer knows (a hash, a blob): it is kept as it is.
MAX_STEMMED = 64
# How many ranked skills (of those sharing a word with the query) a verdict's detail keeps.
DETAIL_RANKS = 3

_WORD = re.compile(r"[^\W_]+")  # a run of letters and digits: one pass, linear

# The Snowball project's English stop word list (snowballstem.org, english/stop.txt).
_ENGLISH_STOP_WORDS = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that
these those am is are was were be been being have has had having do does did doing would should
could ought i'm you're he's she's it's we're they're i've you've we've they've i'd you'd he'd
she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't wasn't weren't hasn't
haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't
mustn't let's that's who's what's here's there's when's where's why's how's a an the and but if
or because as until while of at by for with about against between into through during before
after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so
than too very
""".split()
# Words every description or request uses whatever it is about: they route nothing.
_BOILERPLATE = """
use uses used using user users ask asks asked asking skill skills want wants wanted need needs
needed help helps helping please can may might must will also etc e.g i.e eg ie like trigger
triggers triggered triggering whenever claude
""".split()
STOP_WORDS = frozenset(word for phrase in _ENGLISH_STOP_WORDS + _BOILERPLATE for word in _WORD.findall(phrase))


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer  # imported on first use: only eval and the routing rule need it

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def content_words(text: str, names: frozenset[str] = frozenset()) -> list[str]:
    """The stemmed content words of ``text``, in order (repeats kept). A word whose stem is one
    of ``names`` (:func:`proper_names`) but is not that name keeps the stem apart (``autom~``):
    "Automate" and "Automation" still fold together, but not into the product called Autom."""
    words = []
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word in STOP_WORDS:
            continue
        stem = _stem(word) if len(word) <= MAX_STEMMED else word
        if stem in names and stem != word:
            stem += "~"
        words.append(stem)
    return words


# A capitalised word after a lowercase word or a comma, on the same line: mid-sentence, so a name.
_MID_SENTENCE_CAPITAL = lazyre.compile(r"(?<=[a-z,:(] )[A-Z][a-z0-9]+\b")


def proper_names(texts: list[str]) -> frozenset[str]:
    """Names the catalog lines write capitalised mid-sentence (a product, "Automate Autom tasks")
    that are their own stem: the stemmer would fold other words ("automation") into them."""
    names = set()
    for text in texts:
        for match in _MID_SENTENCE_CAPITAL.finditer(text):
            word = match.group().lower()
            if word not in STOP_WORDS and len(word) <= MAX_STEMMED and _stem(word) == word:
                names.add(word)
    return frozenset(names)


@dataclass(frozen=True)
class Ranked:
    """One skill's standing for a query: its BM25 score and the share of the query's
    distinct content words its line holds."""

    name: str
    score: float
    share: float


class LexicalIndex:
    """The BM25 index of one catalog's rendered lines: each included skill's name and shown
    description. A skill the surface left out is not in it, so it can never be chosen."""

    def __init__(self, skills: tuple[SkillView, ...] | list[SkillView]):
        self.names: list[str] = []
        self.lengths: list[int] = []
        # term -> [(skill index, occurrences)]: a query costs the postings of its own words only
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.names_kept = proper_names([skill.shown for skill in skills if skill.included])
        for skill in skills:
            if not skill.included:
                continue
            counts = Counter(content_words(skill.name.replace("-", " ") + " " + skill.shown, self.names_kept))
            for term, tf in counts.items():
                self.postings.setdefault(term, []).append((len(self.names), tf))
            self.names.append(skill.name)
            self.lengths.append(sum(counts.values()))
        count = len(self.names)
        self.average_length = (sum(self.lengths) / count) if count else 0.0
        self.idf = {term: math.log(1 + (count - len(posts) + 0.5) / (len(posts) + 0.5)) for term, posts in self.postings.items()}

    def rank(self, query: str) -> list[Ranked]:
        """Every skill of the index, best first (ties by name, then catalog order)."""
        query_terms = set(content_words(query, self.names_kept))
        scores = [0.0] * len(self.names)
        matched = [0] * len(self.names)
        for term in query_terms:
            posts = self.postings.get(term)
            if not posts:
                continue
            idf = self.idf[term]
            for index, tf in posts:
                norm = K1 * (1 - B + B * self.lengths[index] / self.average_length) if self.average_length else K1
                scores[index] += idf * tf * (K1 + 1) / (tf + norm)
                matched[index] += 1
        total = len(query_terms)
        order = sorted(range(len(self.names)), key=lambda i: (-scores[i], self.names[i], i))
        return [Ranked(self.names[i], scores[i], matched[i] / total if total else 0.0) for i in order]


class LexicalRouter:
    """:class:`skilllint.catalog.routing.Router` by BM25 over the rendered catalog lines."""

    name = "lexical"

    def __init__(self, floor: float = DEFAULT_FLOOR):
        self.floor = floor

    def choose(self, ranked: list[Ranked]) -> tuple[str, ...]:
        """The skills a query loads: the best-scoring candidate at or over the floor, with
        any that tie it exactly; none when no skill's line clears the floor."""
        candidates = [r for r in ranked if r.score > 0 and r.share >= self.floor]
        if not candidates:
            return ()
        best = candidates[0].score
        return tuple(r.name for r in candidates if r.score == best)

    def decide(self, queries: list[str], catalog: CatalogView, skill: SkillView) -> list[Verdict]:
        index = LexicalIndex(catalog.skills)
        verdicts = []
        for query in queries:
            ranked = index.rank(query)
            own = next((r for r in ranked if r.name == skill.name), None)
            detail = {
                "ranking": [{"name": r.name, "score": round(r.score, 4), "share": round(r.share, 4)} for r in ranked[:DETAIL_RANKS] if r.score > 0],
                "floor": self.floor,
            }
            if own is not None:
                detail["skill"] = {"rank": ranked.index(own) + 1, "score": round(own.score, 4), "share": round(own.share, 4)}
            verdicts.append(Verdict(self.choose(ranked), detail=detail))
        return verdicts
