"""What tells two catalog entries apart for a router (SL510).

A router matches a request against each entry's description and picks the best. Two near-duplicate
descriptions confuse it only when nothing in them sets them apart: a content word one has and the
other lacks routes a request that says it, and the rarer that word is in the catalog, the surer the
route (a word every description carries routes nowhere). So a pair is *distinguishable* when the
content words in one description and not the other weigh, by their inverse document frequency in
this catalog, at least as much as one word no other description has. A templated collection
("Automate Gmail tasks via …", "Automate Slack tasks via …") is told apart by its product names;
`gws-gmail-reply` and `gws-gmail-reply-all` by "reply-all"; "Drafts release notes…" and "Drafts the
notes of a release…" by nothing (they differ in stop words only), whatever their names say.

Words are the overlap score's content words (:func:`skilllint.catalog.overlap.content_words`: stop
words and routing boilerplate out, lightly stemmed), and every hyphenated compound whole, since a
compound such as "reply-all" names a thing its parts do not ("all" is a stop word).
"""

from __future__ import annotations

import math
from collections import Counter

from .. import lazyre
from .overlap import content_words

# Every run of words joined by hyphens, single words too (a run is read once: a pattern that
# demands a hyphen would try every start of a long word again), the compounds kept below.
_RUN = lazyre.compile(r"\w+(?:-\w+)*")


def description_words(description: str) -> frozenset[str]:
    """The words of a description a request can match: its content words and its hyphenated compounds."""
    compounds = (m.group(0) for m in _RUN.finditer(description.casefold()))
    return content_words(description) | frozenset(run for run in compounds if "-" in run)


class Distinctions:
    """The words of every description of one catalog and how many descriptions hold each."""

    def __init__(self, descriptions: list[str]) -> None:
        self.words = [description_words(text) for text in descriptions]
        self.frequency: Counter[str] = Counter(word for words in self.words for word in words)
        self.size = len(descriptions)

    def distinguishable(self, first: int, second: int) -> bool:
        """Whether the words one description has and the other lacks weigh at least as much as one
        word no other description of the catalog has (inverse document frequency)."""
        if self.size < 2:
            return True
        needed = math.log(self.size)
        weight = 0.0
        for word in self.words[first] ^ self.words[second]:
            weight += math.log(self.size / self.frequency[word])
            if weight >= needed - 1e-9:
                return True
        return False
