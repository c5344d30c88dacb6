"""Phrase terms: what a keyword index executes when a query term holds several tokens.

A term with spaces in it ("销售 售看 看板") is a phrase: it occurs in a column where
its tokens follow one another there, in order. Every backend scores a phrase as one
more BM25 term (its own document frequency, its column-weighted count of
occurrences) whose share is weighted by its length (``phrase_weight``), so an entry
holding the phrase gets that on top of its tokens' shares. Which phrases a query asks
for, and how much they weigh, is the engine's choice (``memvault.text.query_phrases``,
``KeywordWeights.phrase``); a store only finds and counts them.
"""

from __future__ import annotations

from collections.abc import Callable

from ..text import has_cjk
from .bm25 import index_form
from .values import KeywordWeights


def is_phrase(term: str) -> bool:
    """Whether a query term is a phrase of several tokens."""
    return " " in term


def phrase_weight(term: str, weights: KeywordWeights) -> float:
    """What a phrase's BM25 share is multiplied by: ``weights.phrase`` per token in it."""
    return weights.phrase * len(term.split())


def phrase_counter(phrase: str) -> Callable[[str], int]:
    """A function that counts ``phrase`` (index forms, one space apart) in a stored
    column (space-joined tokens), as consecutive whole tokens; overlaps count.

    The column's tokens are compared in index form; a phrase of CJK tokens only (the
    engine's phrases) is looked for in the column as stored, since index form changes
    no CJK token and makes none out of another token.
    """
    as_stored = all(has_cjk(t) for t in phrase.split())
    needle = f" {phrase} "

    def count(column: str) -> int:
        if not (as_stored or column.isascii()):
            column = " ".join(map(index_form, column.split()))
        if phrase not in column:
            return 0
        hay = f" {column} "
        found, at = 0, hay.find(needle)
        while at >= 0:
            found += 1
            at = hay.find(needle, at + 1)
        return found

    return count


__all__ = ["is_phrase", "phrase_counter", "phrase_weight"]
