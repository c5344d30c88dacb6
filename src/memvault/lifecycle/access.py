"""Reinforcement: recording which memories recall showed, so use keeps them current.

Every ``search`` and ``context`` reports the entries it returned; their
``last_accessed_at`` moves to that time and ``access_count`` grows (``Store.touch``).
Recency then counts from the last activity and importance rises a little with use
(bounded: see ``retrieval.fusion``), and a memory in use never ages into ``cold``.

Writing on every read would put a write transaction in every search, so reports are
gathered and written together: when ``max_pending`` entries wait, when ``interval``
seconds of the injected clock have passed since the last write (checked at the next
report, on the caller's thread — no thread of its own), and at ``close``. Measuring the
interval on the vault's clock keeps what is written, and when, a function of the calls
made: the same calls under the same clock give the same stored statistics. Access
statistics are best effort: a write that fails is logged and dropped, never raised into
the search that caused it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from ..errors import MemvaultError
from ..stores.protocols import EntryStore

log = logging.getLogger(__name__)


class AccessLog:
    """Pending recall reports of one store, written in batches."""

    def __init__(
        self,
        store: EntryStore,
        clock: Callable[[], datetime],
        *,
        interval: float = 2.0,
        max_pending: int = 256,
    ) -> None:
        self.store = store
        self._clock = clock
        self.interval = timedelta(seconds=interval)
        self.max_pending = max_pending
        self._pending: dict[str, dict[str, datetime]] = {}
        self._count = 0
        self._last_write: datetime | None = None
        self._lock = threading.Lock()

    def record(self, user_id: str, entry_ids: Sequence[str]) -> None:
        """Note that ``entry_ids`` of ``user_id`` were just recalled."""
        if not entry_ids:
            return
        now = self._clock()
        with self._lock:
            seen = self._pending.setdefault(user_id, {})
            for entry_id in entry_ids:
                if entry_id not in seen:
                    self._count += 1
                seen[entry_id] = now
            if self._last_write is None:
                self._last_write = now
            due = self._count >= self.max_pending or now - self._last_write >= self.interval
        if due:
            self.flush()

    def flush(self) -> None:
        """Write every pending report now (one ``touch`` per user and time)."""
        with self._lock:
            pending, self._pending, self._count = self._pending, {}, 0
            self._last_write = self._clock()
        for user_id, seen in pending.items():
            by_time: dict[datetime, list[str]] = {}
            for entry_id, at in seen.items():
                by_time.setdefault(at, []).append(entry_id)
            try:
                for at, ids in by_time.items():
                    self.store.touch(user_id, ids, at)
            except MemvaultError as exc:
                log.warning("recall statistics of %d memories not recorded: %s", len(seen), exc)


__all__ = ["AccessLog"]
