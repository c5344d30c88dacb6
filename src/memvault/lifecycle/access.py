"""Reinforcement: recording which memories recall showed, so use keeps them current.

Every ``search`` and ``context`` reports the entries it returned; their
``last_accessed_at`` moves to that time and ``access_count`` grows (``Store.touch``).
Recency then counts from the last activity and importance rises a little with use
(bounded: see ``retrieval.fusion``), and a memory in use never ages into ``cold``.

Writing on every read would put a write transaction in every search, so reports are
gathered and written together: when ``max_pending`` entries wait, when ``interval``
seconds of the injected clock have passed since the last write (checked at the next
report), and at ``close``. Measuring the interval on the vault's clock keeps what is
written a function of the calls made: the same calls under the same clock give the same
stored statistics. Access statistics are best effort: a write that fails is logged and
dropped, never raised into the search that caused it.

With ``background=True`` (the engine's choice) the batch a report makes due is taken at
once, on the caller's thread, and written on a short-lived thread of its own: the write
transaction, and on SQLite the commit's fsync, then never land in a search (they were
most of the slowest searches' time). Batches are written in the order they were taken,
and :meth:`AccessLog.flush` returns once everything taken so far is written.
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
        background: bool = False,
    ) -> None:
        self.store = store
        self.background = background
        self._clock = clock
        self.interval = timedelta(seconds=interval)
        self.max_pending = max_pending
        self._pending: dict[str, dict[str, datetime]] = {}
        self._count = 0
        self._last_write: datetime | None = None
        self._lock = threading.Lock()
        # The last batch written on a thread (each waits for the one before it).
        self._writer: threading.Thread | None = None
        self._writer_lock = threading.Lock()

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
        if not due:
            return
        if self.background:
            self._write_later()
        else:
            self.flush()

    def flush(self) -> None:
        """Write every pending report now (one ``touch`` per user and time), after any
        batch a background write still holds."""
        if not self.background:
            self._write(self._take())
            return
        writer = self._write_later()
        if writer is not None:
            writer.join()

    def _take(self) -> dict[str, dict[str, datetime]]:
        with self._lock:
            pending, self._pending, self._count = self._pending, {}, 0
            self._last_write = self._clock()
        return pending

    def _write_later(self) -> threading.Thread | None:
        """Take the pending reports and write them on a thread of their own, after the
        batches taken before them (taken and queued under one lock, so in order); the
        thread (None: written here, the interpreter starting no more threads)."""
        with self._writer_lock:
            pending = self._take()
            before = self._writer
            writer = threading.Thread(
                target=self._write_after,
                args=(before, pending),
                name="memvault-access-log",
                daemon=True,
            )
            try:
                writer.start()
            except RuntimeError:
                self._write_after(before, pending)
                return None
            self._writer = writer
        return writer

    def _write_after(
        self, before: threading.Thread | None, pending: dict[str, dict[str, datetime]]
    ) -> None:
        if before is not None:
            before.join()
        self._write(pending)

    def _write(self, pending: dict[str, dict[str, datetime]]) -> None:
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
