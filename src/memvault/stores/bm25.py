"""BM25 with the caller's own statistics, as every backend computes it.

These are the formulas, not the policy: which terms a query searches for is the
engine's choice (a ``protocols.TermPlanner``, see ``memvault.retrieval.terms``).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from ..text import has_cjk
from .values import SearchDoc

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


def query_forms(terms: Sequence[str]) -> list[str]:
    """The distinct index forms of query terms, first occurrence first (a phrase, a
    term of several tokens, token by token: ``stores.phrases``)."""
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
