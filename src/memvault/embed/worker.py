"""Background embedding: ``add`` returns as soon as the entry is stored.

Entries are findable by keyword the moment they are committed; this worker
embeds them in batches on one thread and writes the vectors, after which they
are findable by meaning too. When idle it back-fills entries that have no
vector for the current model (written by another process, or before the
embedder changed), so switching models re-embeds lazily and loses nothing.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from functools import partial

from ..model import MemoryEntry
from ..retrieval.vector import VectorIndex
from ..stores.base import Store, VectorItem
from .base import Embedder

log = logging.getLogger(__name__)


class EmbeddingWorker:
    """One daemon thread that turns queued entries into stored vectors."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        index: VectorIndex,
        text_of: Callable[[MemoryEntry], str],
        *,
        batch_size: int = 64,
        backfill: bool = True,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.index = index
        self.text_of = text_of
        self.batch_size = max(1, batch_size)
        self._queue: deque[MemoryEntry] = deque()
        self._cond = threading.Condition()
        self._in_flight = 0
        self._backfill = backfill
        self._backfill_after: tuple[str, str] | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._at_exit: Callable[[], None] | None = None
        self.errors = 0
        if backfill:
            self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memvault-embedder", daemon=True)
            self._thread.start()
            # A script that never closes its Vault must still exit cleanly: a daemon
            # thread killed inside the model's native code aborts the interpreter. At exit
            # the thread only finishes its current batch (a model cannot even load then);
            # the entries are stored, and the next open back-fills their vectors.
            self._at_exit = partial(_close_at_exit, weakref.ref(self))
            atexit.register(self._at_exit)

    # -- API --------------------------------------------------------------------

    def submit(self, entries: Sequence[MemoryEntry]) -> None:
        if not entries:
            return
        with self._cond:
            self._queue.extend(entries)
            self._ensure_thread()
            self._cond.notify_all()

    def embed_now(self, entries: Sequence[MemoryEntry]) -> None:
        """Embed and store on the caller's thread (synchronous mode)."""
        self._process(list(entries))

    def reindex(
        self,
        user_id: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Embed now, on the caller's thread, every entry (of ``user_id``, or of everyone)
        that has no vector of the current model; returns how many were embedded.

        What the back-fill would do lazily, done eagerly after a model switch. A first
        pass counts the entries (a read, no model call) so ``progress(done, total)`` knows the end.
        """
        total = sum(len(page) for page in self._missing_pages(user_id))
        done = 0
        if progress is not None:
            progress(done, total)
        for page in self._missing_pages(user_id):
            self._process(page)
            done += len(page)
            if progress is not None:
                progress(min(done, total), max(total, done))
        return done

    def _missing_pages(self, user_id: str | None) -> Iterator[list[MemoryEntry]]:
        """Entries without a vector of the current model, a batch at a time, in key order
        (starting at ``user_id``'s first entry and stopping after its last)."""
        after = (user_id, "") if user_id is not None else None
        while True:
            page = self.store.missing_vectors(
                self.embedder.name, limit=self.batch_size, after=after
            )
            if user_id is not None:
                page = [e for e in page if e.user_id == user_id]
            if not page:
                return
            yield page
            after = (page[-1].user_id, page[-1].id)

    def idle(self) -> bool:
        with self._cond:
            return not self._queue and self._in_flight == 0 and not self._backfill

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued entry (and the back-fill) is done; False on timeout."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not self._queue and self._in_flight == 0 and not self._backfill,
                timeout=timeout,
            )

    def close(self, *, drain: bool = True, timeout: float | None = 60.0) -> None:
        if drain and self._thread is not None:
            with self._cond:
                self._backfill = False  # finish what was asked, not the whole back-fill
            self.flush(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
            if self._at_exit is not None:
                atexit.unregister(self._at_exit)  # this worker's own handler only
                self._at_exit = None

    # -- the thread -------------------------------------------------------------

    def _next_batch(self) -> list[MemoryEntry] | None:
        with self._cond:
            while True:
                if self._stopping:
                    return None
                if self._queue:
                    n = min(self.batch_size, len(self._queue))
                    batch = [self._queue.popleft() for _ in range(n)]
                    self._in_flight = len(batch)
                    return batch
                if self._backfill:
                    break
                self._cond.wait()
        # Back-fill outside the lock: it reads the store.
        try:
            batch = self.store.missing_vectors(
                self.embedder.name, limit=self.batch_size, after=self._backfill_after
            )
        except Exception as exc:
            log.warning("embedding back-fill stopped: %s", exc)
            batch = []
        with self._cond:
            if not batch:
                self._backfill = False
                self._cond.notify_all()
                return []
            self._backfill_after = (batch[-1].user_id, batch[-1].id)
            self._in_flight = len(batch)
            return batch

    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            if not batch:
                continue
            try:
                self._process(batch)
            except Exception as exc:  # keyword search still works; back-fill retries later
                self.errors += 1
                log.warning("embedding %d entries failed: %s", len(batch), exc)
            finally:
                with self._cond:
                    self._in_flight = 0
                    self._cond.notify_all()

    def _process(self, batch: list[MemoryEntry]) -> None:
        vectors = self.embedder.embed([self.text_of(e) for e in batch])
        by_user: dict[str, list[tuple[MemoryEntry, int]]] = defaultdict(list)
        for i, entry in enumerate(batch):
            by_user[entry.user_id].append((entry, i))
        for user_id, items in by_user.items():
            written: set[str] = set(
                self.store.put_vectors(
                    user_id,
                    self.embedder.name,
                    [VectorItem(e.id, e.updated_at, vectors[i]) for e, i in items],
                )
            )
            # Entries changed or deleted meanwhile were skipped by the store: skip them here too.
            self.index.upsert(
                user_id, [(e.id, e.agent_id, vectors[i]) for e, i in items if e.id in written]
            )


def _close_at_exit(ref: weakref.ref[EmbeddingWorker]) -> None:
    worker = ref()
    if worker is not None:
        worker.close(drain=False, timeout=30.0)


__all__ = ["EmbeddingWorker"]
