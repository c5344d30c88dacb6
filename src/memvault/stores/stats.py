"""The overview's numbers: what a store counts (``protocols.EntryStats``) and
``make_stats``, which turns that into the ``Stats`` (``results.stats``) of ``Vault.stats``.

A store answers with aggregates (one row per combination of classification values, one
row per active day), never with the entries themselves; this module fills in the
zeros, so every value of every enum and every day of the window is there, and sums the
rows per field. The pure-Python counting below is what the in-memory store runs and
what the SQL statements (``stores.sql.stats``) must agree with.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from enum import StrEnum

from ..model import Domain, Kind, MemClass, MemoryEntry, Tier
from ..results.stats import DayCount, Stats
from .rows import format_time

#: The ``by_domain`` key of entries that have no domain.
NO_DOMAIN = "none"


@dataclass(frozen=True, slots=True)
class TallyRow:
    """How many entries share one combination of classification values (``held``: in
    quarantine). Values are the stored strings; ``domain`` None for no domain."""

    kind: str
    mem_class: str
    tier: str
    domain: str | None
    held: bool
    count: int


def window_start(now: datetime, days: int) -> datetime:
    """Midnight UTC of the first of the ``days`` days that end with ``now``'s day."""
    today = now.astimezone(UTC).date()
    return datetime.combine(today - timedelta(days=days - 1), time(), tzinfo=UTC)


def tally_entries(entries: Iterable[MemoryEntry]) -> list[TallyRow]:
    """``entries`` counted as ``EntryStats.tally`` counts them (rows in no set order)."""
    counts = Counter(
        (
            e.kind.value,
            e.mem_class.value,
            e.tier.value,
            None if e.domain is None else e.domain.value,
            e.quarantine is not None,
        )
        for e in entries
    )
    return [TallyRow(*key, count) for key, count in counts.items()]


def entries_activity(entries: Iterable[MemoryEntry], since: datetime) -> list[DayCount]:
    """``entries`` counted by day as ``EntryStats.daily_activity`` counts them."""
    start = format_time(since) or ""
    created: Counter[str] = Counter()
    updated: Counter[str] = Counter()
    for e in entries:
        made, changed = format_time(e.created_at) or "", format_time(e.updated_at) or ""
        if made >= start:
            created[made[:10]] += 1
        if changed >= start and changed > made:
            updated[changed[:10]] += 1
    return [DayCount(d, created[d], updated[d]) for d in sorted(created.keys() | updated.keys())]


def _zeros(values: type[StrEnum]) -> dict[str, int]:
    return {v.value: 0 for v in values}


def make_stats(
    *,
    user_id: str,
    agent_id: str | None,
    now: datetime,
    days: int,
    tally: Sequence[TallyRow],
    activity: Sequence[DayCount],
    embedder: str | None,
    pending: int,
) -> Stats:
    """``Stats`` from a store's rows: every enum value and every day of the window
    present (zeros included), days oldest first."""
    by_kind, by_class, by_tier = _zeros(Kind), _zeros(MemClass), _zeros(Tier)
    by_domain = {**_zeros(Domain), NO_DOMAIN: 0}
    for row in tally:
        for counts, value in (
            (by_kind, row.kind),
            (by_class, row.mem_class),
            (by_tier, row.tier),
            (by_domain, NO_DOMAIN if row.domain is None else row.domain),
        ):
            if value in counts:  # a value no enum knows is in the total only
                counts[value] += row.count
    first = window_start(now, days).date()
    found = {d.day: d for d in activity}
    window = [(first + timedelta(days=n)).isoformat() for n in range(days)]
    return Stats(
        user_id=user_id,
        agent_id=agent_id,
        at=now,
        total=sum(row.count for row in tally),
        by_kind=by_kind,
        by_class=by_class,
        by_tier=by_tier,
        by_domain=by_domain,
        quarantined=sum(row.count for row in tally if row.held),
        embedder=embedder,
        pending_vectors=pending,
        days=days,
        activity=tuple(found.get(d, DayCount(d, 0, 0)) for d in window),
    )


__all__ = [
    "NO_DOMAIN",
    "TallyRow",
    "entries_activity",
    "make_stats",
    "tally_entries",
    "window_start",
]
