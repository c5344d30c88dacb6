"""BM25 with the caller's own statistics, as every backend computes it.

These are the formulas, not the policy: which terms a query searches for is decided
by ``plan_terms`` with the cutoff of ``KeywordWeights``.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


TermGroup = tuple[str, list[str]]  # (" OR " or " AND ", terms)


def plan_terms(terms: Sequence[str], view_df: Callable[[str], int], cutoff: int) -> list[TermGroup]:
    """Term groups to try in order, as (joiner, terms).

    A backend runs the first group, and the next only if the previous one found
    nothing. With a cutoff, a term found in more than
    ``cutoff`` of the caller's entries is "common", as in Lucene's common-terms
    query: when rarer terms exist, common ones are left out (their BM25 weight
    is small, their cost large), so entries holding only common terms are not
    returned; a query of common terms only first asks for entries holding all
    of them, then for any. Only the caller's own entries decide which terms are
    common, so other users' data cannot change which entries a search returns.
    ``view_df`` may cap its count at ``cutoff + 1``.
    """
    if cutoff <= 0:
        return [(" OR ", list(terms))]
    return plan_common_terms(terms, lambda term: view_df(term) > cutoff)


def plan_common_terms(terms: Sequence[str], is_common: Callable[[str], bool]) -> list[TermGroup]:
    """``plan_terms`` once the store has said which terms are common in the view."""
    full = (" OR ", list(terms))
    if len(terms) < 2:
        return [full]
    common = [t for t in terms if is_common(t)]
    if not common:
        return [full]
    rare = [t for t in terms if t not in common]
    if rare:
        return [(" OR ", rare)]
    return [(" AND ", common), full]


@dataclass(frozen=True, slots=True)
class WeightsPlanner:
    """The common-term policy as ``KeywordWeights`` configures it: what a keyword
    search does when the engine passes no ``TermPlanner`` of its own."""

    weights: KeywordWeights

    def cutoff_for(self, entries: int) -> int:
        return self.weights.cutoff_for(entries)

    def plan(self, terms: Sequence[str], is_common: Callable[[str], bool]) -> list[TermGroup]:
        return plan_common_terms(terms, is_common)
