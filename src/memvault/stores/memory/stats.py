"""The overview's aggregates on the in-memory store (``protocols.EntryStats``): the
counting of ``stores.stats`` over the view's entries, under the store's lock."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from ...results.stats import DayCount
from ..stats import TallyRow, entries_activity, tally_entries
from ..values import NO_FILTER, EntryFilter, View

if TYPE_CHECKING:
    import threading

    import numpy as np

    from ...model import MemoryEntry
    from ..values import SearchDoc


class MemoryStats:
    """Counts by classification, activity by day, entries still without a vector."""

    if TYPE_CHECKING:
        _lock: threading.RLock
        _vectors: dict[tuple[str, str], tuple[str, np.ndarray]]

        def _visible(self, view: View, flt: EntryFilter) -> list[tuple[MemoryEntry, SearchDoc]]: ...

    def tally(self, view: View, flt: EntryFilter = NO_FILTER) -> list[TallyRow]:
        return tally_entries(e for e, _ in self._visible(view, flt))

    def daily_activity(self, view: View, since: datetime) -> list[DayCount]:
        return entries_activity((e for e, _ in self._visible(view, NO_FILTER)), since)

    def count_unembedded(self, view: View, model: str) -> int:
        with self._lock:
            entries = [e for e, _ in self._visible(view, NO_FILTER)]
            return sum(
                1 for e in entries if self._vectors.get((e.user_id, e.id), ("",))[0] != model
            )
