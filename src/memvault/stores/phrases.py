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

from ..text import has_cjk
from .bm25 import index_form
from .values import KeywordWeights


def is_phrase(term: str) -> bool:
    """Whether a query term is a phrase of several tokens."""
    return " " in term


def phrase_weight(term: str, weights: KeywordWeights) -> float:
    """What a phrase's BM25 share is multiplied by: ``weights.phrase`` per token in it."""
    return weights.phrase * len(term.split())


def count_phrase(column: str, phrase: str) -> int:
    """How often ``phrase`` (index forms, one space apart) occurs in a stored column
    (space-joined tokens) as consecutive whole tokens; overlapping occurrences count.

    The column's tokens are compared in index form; a phrase of CJK tokens only (the
    engine's phrases) is looked for in the column as stored, since index form changes
    no CJK token and makes none out of another token.
    """
    if not (column.isascii() or all(has_cjk(t) for t in phrase.split())):
        column = " ".join(map(index_form, column.split()))
    hay, needle = f" {column} ", f" {phrase} "
    count, at = 0, hay.find(needle)
    while at >= 0:
        count += 1
        at = hay.find(needle, at + 1)
    return count


__all__ = ["count_phrase", "is_phrase", "phrase_weight"]
