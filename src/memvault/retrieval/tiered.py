"""Tier preference inside each channel: active first, then cold, then archive.

The tier factors of fusion (``retrieval.cold_factor`` / ``archive_factor``) act after
the channels have chosen their candidates, so on their own they cannot stop a year of
archived near-duplicates from taking every one of a channel's ``depth`` slots and
leaving the one active entry out. Each channel therefore does two things here:

* **quota** — when its ranking is full and holds demoted entries, it also asks for its
  active matches alone (and, when archived entries took places, its cold ones), so up
  to ``depth`` active entries always get in; demoted ones keep the slots the active
  ones leave free, and at least ``DEMOTED_SHARE`` of ``depth`` besides, cold ones
  first, so the best cold or archived match (an archived entry that is the only match,
  too) is still found;
* **order** — among the entries whose raw score is within a relevance floor of the
  channel's best (``KEYWORD_FLOOR`` of the BM25 score, ``VECTOR_FLOOR`` of the cosine),
  active ones rank before cold ones before archived ones; entries below the floor
  follow in score order. A demoted entry that matches far better than every active one
  keeps its place.

A caller that filters by tier gets that tier only, in plain score order. With every
entry active (a fresh vault, LoCoMo) nothing changes: one query, the same order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..model import MemoryEntry, Tier

#: Share of ``depth`` kept for demoted entries even when the active ones fill it.
DEMOTED_SHARE = 0.25
#: The relevance floor as a share of the channel's best raw score.
KEYWORD_FLOOR = 0.5
VECTOR_FLOOR = 0.85
#: The deepest a vector scan goes looking for active entries behind demoted ones.
MAX_VECTOR_SCAN = 4096

_ORDER = {Tier.ACTIVE: 0, Tier.COLD: 1, Tier.ARCHIVE: 2}


def demoted_quota(depth: int, active: int) -> int:
    """How many demoted entries a channel keeps beside ``active`` active ones."""
    return max(depth - active, math.ceil(depth * DEMOTED_SHARE))


def merge(
    active: Sequence[tuple[MemoryEntry, float]],
    demoted: Sequence[tuple[MemoryEntry, float]],
    depth: int,
) -> list[tuple[MemoryEntry, float]]:
    """The active matches and the best demoted ones within their quota (cold ones before
    archived ones), by raw score (an active entry first on a tie)."""
    by_tier = sorted(demoted, key=lambda pair: (_ORDER[pair[0].tier], -pair[1]))
    kept = list(active) + by_tier[: demoted_quota(depth, len(active))]
    return sorted(kept, key=lambda pair: -pair[1])  # stable: active first on ties


def prefer_active(
    ranked: Sequence[tuple[MemoryEntry, float]], floor: float
) -> list[tuple[MemoryEntry, float]]:
    """``ranked`` (best first) re-ordered: tier first among the entries within ``floor``
    of the best score, then the rest as they were."""
    if not ranked or all(entry.tier is Tier.ACTIVE for entry, _ in ranked):
        return list(ranked)
    best = max(score for _, score in ranked)
    threshold = best - (1.0 - floor) * abs(best)
    near = [(i, pair) for i, pair in enumerate(ranked) if pair[1] >= threshold]
    far = [pair for pair in ranked if pair[1] < threshold]
    near.sort(key=lambda item: (_ORDER[item[1][0].tier], item[0]))
    return [pair for _, pair in near] + far


__all__ = [
    "DEMOTED_SHARE",
    "KEYWORD_FLOOR",
    "MAX_VECTOR_SCAN",
    "VECTOR_FLOOR",
    "demoted_quota",
    "merge",
    "prefer_active",
]
