"""What a vault holds, at a glance: one user's counts and daily activity
(``Vault.stats``), and the users of a store with their number of memories."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class DayCount:
    """One UTC day (``YYYY-MM-DD``): entries written that day, and entries whose latest
    change after they were written fell on it."""

    day: str
    created: int
    updated: int

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "created": self.created, "updated": self.updated}


@dataclass(frozen=True, slots=True, kw_only=True)
class Stats:
    """One user's entries at a glance (``Vault.stats``): what the panel's first screen
    shows. Counts are of current entries (as ``Vault.count``); ``activity`` and
    ``pending_vectors`` are of every stored one, superseded or expired included (they
    were written, and the embedder still embeds them)."""

    user_id: str
    agent_id: str | None
    at: datetime
    total: int
    by_kind: Mapping[str, int]
    by_class: Mapping[str, int]
    by_tier: Mapping[str, int]
    by_domain: Mapping[str, int]
    quarantined: int
    embedder: str | None
    pending_vectors: int
    days: int
    activity: tuple[DayCount, ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the body of ``GET /v1/stats``)."""
        return {
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "at": self.at.isoformat(),
            "total": self.total,
            "by_kind": dict(self.by_kind),
            "by_class": dict(self.by_class),
            "by_tier": dict(self.by_tier),
            "by_domain": dict(self.by_domain),
            "quarantined": self.quarantined,
            "embedding": {"model": self.embedder, "pending": self.pending_vectors},
            "days": self.days,
            "activity": [d.to_dict() for d in self.activity],
        }


@dataclass(frozen=True, slots=True)
class UserMemories:
    """One user of a store and how many entries they have there (every agent's)."""

    user_id: str
    memories: int


__all__ = ["DayCount", "Stats", "UserMemories"]
