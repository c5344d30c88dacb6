"""Tiers and decay (seed 004): entries start ``active``, go ``cold`` when their class's
window has passed without activity, and ``archive`` after a longer idle time.

Activity is the latest of an entry's creation, last update and last recall
(``last_accessed_at``): a memory in use never ages out. Each class has its own window
(``LifecycleConfig``: ``short_term`` 7 days, ``process`` 15, the rest none by default);
cold entries idle for ``archive_after_days`` (365) move to ``archive``. Recall still
finds demoted entries, after active ones (see ``retrieval``); nothing is ever deleted
by age.

``Maintenance.run`` applies the transitions. It is idempotent: the rules depend only on
the entry and the time, and one run takes an entry as far as the rules say (active to
archive at once when both limits have passed), so a second run at the same time moves
nothing. The tier change is not an edit: ``updated_at`` (the entry's version, which
reveal grants name) and the index text are kept as they are. Each entry's move is
re-decided inside its write, on the row as it is then, so an entry recalled or edited
between the scan and the write stays where it belongs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from ..config import LifecycleConfig
from ..model import MemClass, MemoryEntry, Tier
from ..stores.protocols import Store
from ..stores.values import EntryFilter, SearchDoc, View
from .compress import Compression

BATCH = 500


@dataclass(frozen=True, slots=True)
class TierMove:
    """One entry's transition, as a run decided it."""

    user_id: str
    entry_id: str
    mem_class: MemClass
    from_tier: Tier
    to_tier: Tier
    idle_days: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "entry_id": self.entry_id,
            "mem_class": self.mem_class.value,
            "from": self.from_tier.value,
            "to": self.to_tier.value,
            "idle_days": round(self.idle_days, 3),
        }


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """What one run looked at and moved (with ``dry_run``: what it would have moved)."""

    now: datetime
    dry_run: bool
    users: int
    scanned: int
    moves: tuple[TierMove, ...]
    # The summaries compression made (``lifecycle.compress``; dry run: would make).
    compressions: tuple[Compression, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        """Moves per transition, e.g. ``{"active->cold": 3, "cold->archive": 1}``."""
        counts: dict[str, int] = {}
        for move in self.moves:
            key = f"{move.from_tier.value}->{move.to_tier.value}"
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items()))

    def to_dict(self, *, max_moves: int | None = None) -> dict[str, Any]:
        """JSON-ready; ``max_moves`` caps the listed moves (the counts are always whole)."""
        shown = self.moves if max_moves is None else self.moves[:max_moves]
        return {
            "now": self.now.isoformat(),
            "dry_run": self.dry_run,
            "users": self.users,
            "scanned": self.scanned,
            "moved": len(self.moves),
            "counts": self.counts,
            "moves": [m.to_dict() for m in shown],
            "moves_truncated": len(shown) < len(self.moves),
            "compressed": len(self.compressions),
            "compressions": [c.to_dict() for c in self.compressions],
        }


def last_activity(entry: MemoryEntry) -> datetime:
    """When the entry was last written, changed or recalled."""
    return entry.last_activity


def window_of(mem_class: MemClass, config: LifecycleConfig) -> timedelta | None:
    """How long an entry of ``mem_class`` stays active without activity (None: always)."""
    days: float | None = getattr(config, f"{mem_class.value}_days")
    return None if days is None else timedelta(days=days)


def next_tier(entry: MemoryEntry, now: datetime, config: LifecycleConfig) -> Tier:
    """The tier the rules give ``entry`` at ``now``: never a promotion, and as far down
    as both limits allow."""
    idle = now - last_activity(entry)
    tier = entry.tier
    if tier is Tier.ACTIVE:
        window = window_of(entry.mem_class, config)
        if window is None or idle < window:
            return Tier.ACTIVE
        tier = Tier.COLD
    archive_after = config.archive_after_days
    if tier is Tier.COLD and archive_after is not None and idle >= timedelta(days=archive_after):
        return Tier.ARCHIVE
    return tier


class Maintenance:
    """The tier transitions over one store."""

    def __init__(
        self, store: Store, config: LifecycleConfig, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.config = config
        self._clock = clock

    def run(
        self,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        user_ids: Sequence[str] | None = None,
    ) -> MaintenanceReport:
        """Move every entry (of ``user_ids``, or of every user) to the tier the rules
        give it at ``now`` (the clock's time by default); ``dry_run`` writes nothing."""
        when = self._clock() if now is None else now
        users = list(self.store.user_ids() if user_ids is None else user_ids)
        scanned = 0
        moves: list[TierMove] = []
        for user_id in users:
            planned, seen = self._plan(user_id, when)
            scanned += seen
            if dry_run:
                moves.extend(planned)
            else:
                for start in range(0, len(planned), BATCH):
                    moves.extend(self._apply(user_id, planned[start : start + BATCH], when))
        return MaintenanceReport(when, dry_run, len(users), scanned, tuple(moves))

    def _candidates(self, user_id: str) -> Iterator[MemoryEntry]:
        owner = View(user_id, all_agents=True)
        for tier in (Tier.ACTIVE, Tier.COLD):
            yield from self.store.iter_entries(owner, EntryFilter(tier=tier))

    def _plan(self, user_id: str, now: datetime) -> tuple[list[TierMove], int]:
        planned: list[TierMove] = []
        seen = 0
        for entry in self._candidates(user_id):
            seen += 1
            target = next_tier(entry, now, self.config)
            if target is not entry.tier:
                idle = (now - last_activity(entry)).total_seconds() / 86400
                planned.append(
                    TierMove(user_id, entry.id, entry.mem_class, entry.tier, target, idle)
                )
        return planned, seen

    def _apply(self, user_id: str, planned: list[TierMove], now: datetime) -> list[TierMove]:
        """One transaction for the batch; each move decided again on the current row."""
        owner = View(user_id, all_agents=True)
        docs = self.store.search_docs(user_id, [m.entry_id for m in planned])
        done: list[TierMove] = []
        with self.store.atomic():
            for move in planned:
                doc = docs.get(move.entry_id)
                if doc is None:
                    continue  # deleted since the scan
                decided: list[Tier] = []
                demote = partial(self._demote, now=now, doc=doc, decided=decided)
                try:
                    self.store.update(owner, move.entry_id, demote)
                except LookupError:
                    continue  # deleted since the scan (NotFoundError)
                before, after = decided
                if after is not before:
                    done.append(replace(move, from_tier=before, to_tier=after))
        return done

    def _demote(
        self, current: MemoryEntry, *, now: datetime, doc: SearchDoc, decided: list[Tier]
    ) -> tuple[MemoryEntry, SearchDoc]:
        target = next_tier(current, now, self.config)
        decided[:] = [current.tier, target]
        return current.replace(tier=target), doc


__all__ = [
    "Maintenance",
    "MaintenanceReport",
    "TierMove",
    "last_activity",
    "next_tier",
    "window_of",
]
