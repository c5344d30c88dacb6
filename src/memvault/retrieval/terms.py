"""Which of a query's terms a keyword search runs: the common-term policy.

This is ranking policy, so it lives here and not in the stores: the engine hands a
``CommonTermPlanner`` to ``keyword_search`` (as a ``stores.protocols.TermPlanner``),
and the store only answers, from the caller's view, whether a term is common, then
runs the groups of terms the planner chose.

The rule is Lucene's common-terms query: a term found in many of the caller's
entries carries little BM25 weight and costs much to score, so when a query also
has rarer terms the common ones are left out; a query of common terms only first
asks for entries holding all of them, then for any. Only the caller's own entries
decide what is common, so another user's data never changes which entries a search
returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..config import KeywordConfig
from ..stores.values import TermGroup


def plan_common_terms(terms: Sequence[str], is_common: Callable[[str], bool]) -> list[TermGroup]:
    """Term groups to try in order, as (joiner, terms), once it is known which are common.

    The store runs the first group, and the next only if the one before found nothing.
    """
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
class CommonTermPlanner:
    """When a term counts as common, and what a search does about it.

    A term is common when it is found in more of the caller's entries than
    ``cutoff_for(entries)``: at most ``cutoff`` (0 disables the rule), and less when
    the term is in more than ``share`` of the caller's entries, as with Lucene's
    fractional ``maxTermFrequency``; ``floor`` keeps small vaults, where scoring
    every term is cheap, out of that second rule. The defaults disable it all; the
    engine's come from ``KeywordConfig`` (``planner_for``).
    """

    cutoff: int = 0
    share: float = 0.0
    floor: int = 0

    def cutoff_for(self, entries: int) -> int:
        """The document count above which a term is common, in a view of ``entries``."""
        cutoff = self.cutoff
        if cutoff > 0 and self.share > 0:
            share = int(self.share * entries)
            cutoff = max(1, min(cutoff, max(self.floor, share)))
        return cutoff

    def plan(self, terms: Sequence[str], is_common: Callable[[str], bool]) -> list[TermGroup]:
        return plan_common_terms(terms, is_common)


def planner_for(config: KeywordConfig) -> CommonTermPlanner:
    """The planner the ``keyword.common_term_*`` settings describe."""
    return CommonTermPlanner(
        cutoff=config.common_term_cutoff,
        share=config.common_term_share,
        floor=config.common_term_floor,
    )


__all__ = ["CommonTermPlanner", "plan_common_terms", "planner_for"]
