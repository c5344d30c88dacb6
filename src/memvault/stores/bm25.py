"""BM25 with the caller's own statistics, and the phrase terms it counts, as every
backend computes them.

These are the formulas, not the policy: which terms a query searches for is the
engine's choice (a ``protocols.TermPlanner``, see ``memvault.retrieval.terms``).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

from ..text import has_cjk
from .values import KeywordWeights, SearchDoc

# -- ranking: BM25 with the caller's own statistics ------------------------------------
# Every backend scores with these, over the caller's view only: how many entries the
# view holds, their average length and each term's document frequency in it. So no
# score depends on anything another user stored (FTS5's bm25() would use table-wide
# counts, and a score would move when someone else stores a word).

BM25_K1 = 1.2
BM25_B = 0.75
_IDF_FLOOR = 1e-6  # as FTS5: a term in over half the entries still counts, barely


def token_count(tokens: str) -> int:
    """Tokens in one full-text column (space-joined, as ``memvault.text.index_text`` writes)."""
    return tokens.count(" ") + 1 if tokens else 0


def doc_length(doc: SearchDoc) -> int:
    """An entry's length for BM25: its tokens in all three columns."""
    return token_count(doc.head) + token_count(doc.body) + token_count(doc.extra)


@lru_cache(maxsize=65536)
def index_form(token: str) -> str:
    """A token as the full-text index compares it: without diacritics ("café" -> "cafe"),
    like FTS5's ``unicode61 remove_diacritics 2``, so every backend matches alike.
    CJK tokens stay as they are: FTS5 keeps the voiced kana ("デ" is not "テ"), and
    hangul comes back whole from NFD."""
    if token.isascii() or has_cjk(token):
        return token
    bare = "".join(c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare)


def term_frequencies(doc: SearchDoc) -> dict[str, list[int]]:
    """Each distinct index-form token of ``doc`` (first occurrence first) with how often
    it occurs in the head, body and extra columns: BM25's term frequencies, for a
    server that scores an entry without reading its text."""
    found: dict[str, list[int]] = {}
    for column, text in enumerate((doc.head, doc.body, doc.extra)):
        for token in text.split():
            form = index_form(token)
            counts = found.get(form)
            if counts is None:
                counts = found[form] = [0, 0, 0]
            counts[column] += 1
    return found


def query_forms(terms: Sequence[str]) -> list[str]:
    """The distinct index forms of query terms, first occurrence first (a phrase, a
    term of several tokens, token by token: ``bm25.phrase_counter``)."""
    forms = (" ".join(index_form(t) for t in term.split()) for term in terms)
    return list(dict.fromkeys(f for f in forms if f))


def bm25_idf(entries: int, df: int) -> float:
    """Inverse document frequency of a term in ``df`` of a view's ``entries``."""
    return max(math.log((entries - df + 0.5) / (df + 0.5)), _IDF_FLOOR)


def bm25_part(idf: float, freq: float, length: int, avg_length: float) -> float:
    """One term's share of an entry's score; ``freq`` is its column-weighted count.

    The SQLite backend runs this same formula in SQL, in this order of operations."""
    norm = BM25_K1 * (1 - BM25_B + BM25_B * length / avg_length)
    return idf * freq * (BM25_K1 + 1) / (freq + norm)


# -- phrases: what a keyword index executes when a query term holds several tokens ----
# A term with spaces in it ("销售 售看 看板") is a phrase: it occurs in a column where
# its tokens follow one another there, in order. Every backend scores a phrase as one
# more BM25 term (its own document frequency, its column-weighted count of
# occurrences) whose share is weighted by its length (``phrase_weight``), so an entry
# holding the phrase gets that on top of its tokens' shares. Which phrases a query asks
# for, and how much they weigh, is the engine's choice (``memvault.text.query_phrases``,
# ``KeywordWeights.phrase``); a store only finds and counts them.


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
