"""Combining channel rankings, then weighing the result by importance, recency and tier.

Reciprocal rank fusion (Cormack et al., 2009) adds ``weight / (k + rank)`` from
each channel that ranked an entry. Its scores are flat (rank 1 and rank 10 differ
by about 15% at k = 60), so the boosts applied afterwards are kept small: they
reorder near-ties and never lift an irrelevant entry over a relevant one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..model import DecisionStatus, MemoryEntry, Tier


def rrf(
    rankings: Mapping[str, Sequence[str]], *, k: float = 60.0, weights: Mapping[str, float]
) -> dict[str, float]:
    """Fused score per id: the sum over channels of ``weight / (k + rank)`` (rank from 1)."""
    scores: dict[str, float] = {}
    for channel, ids in rankings.items():
        weight = weights.get(channel, 1.0)
        if weight <= 0:
            continue
        for rank, entry_id in enumerate(ids, start=1):
            scores[entry_id] = scores.get(entry_id, 0.0) + weight / (k + rank)
    return scores


@dataclass(frozen=True, slots=True)
class Boosts:
    """Small multiplicative adjustments of a fused score (1.0 = neutral)."""

    importance: float = 0.05  # score x (1 + importance * (entry.importance - 0.5) * 2)
    recency: float = 0.05  # score x (1 + recency * 0.5 ** (age / half_life))
    half_life_days: float = 30.0
    cold: float = 0.97  # tier factors: active 1.0
    archive: float = 0.94
    # Use reinforces: after ``reinforce_after`` recalls, importance has moved this share
    # of its distance to 1.0 (linearly before; 0 recalls or reinforce_after 0: none).
    reinforce_after: int = 10
    reinforce_share: float = 0.5
    # A decision that was rejected, superseded or invalidated ranks below a live one.
    demoted_decision: float = 0.9

    def importance_of(self, entry: MemoryEntry) -> float:
        """The entry's importance, raised by use and bounded by 1.0."""
        if self.reinforce_after <= 0 or entry.access_count <= 0:
            return entry.importance
        used = min(entry.access_count, self.reinforce_after) / self.reinforce_after
        return entry.importance + (1.0 - entry.importance) * self.reinforce_share * used

    def factors(self, entry: MemoryEntry, now: datetime) -> tuple[float, float, float]:
        """The importance, recency and tier factors, each 1.0 when neutral (for ``explain``).
        Recency counts from the last activity: a write, an update or a recall."""
        importance = 1.0 + self.importance * (self.importance_of(entry) - 0.5) * 2.0
        recency = 1.0
        if self.recency and self.half_life_days > 0:
            age_days = max(0.0, (now - entry.last_activity).total_seconds() / 86400.0)
            recency = 1.0 + self.recency * math.pow(0.5, age_days / self.half_life_days)
        tier = 1.0  # the tier, and a decision's standing
        if entry.tier is Tier.COLD:
            tier = self.cold
        elif entry.tier is Tier.ARCHIVE:
            tier = self.archive
        if entry.status in _DEMOTED:
            tier *= self.demoted_decision
        return importance, recency, tier

    def factor(self, entry: MemoryEntry, now: datetime) -> float:
        """The product of :meth:`factors`, multiplied in their order."""
        importance, recency, tier = self.factors(entry, now)
        return importance * recency * tier


__all__ = ["Boosts", "rrf"]


_DEMOTED = frozenset({DecisionStatus.REJECTED, DecisionStatus.SUPERSEDED, DecisionStatus.INVALID})
