"""Background embedding: ``add`` returns as soon as the entry is stored.

Entries are findable by keyword the moment they are committed; this worker
embeds them in batches on one thread and writes the vectors, after which they
are findable by meaning too. When idle it back-fills entries that have no
vector for the current model (written by another process, before the embedder
changed, or left queued by a process that exited), so switching models
re-embeds lazily and loses nothing.

Read-your-writes: a search waits (bounded) in :meth:`EmbeddingWorker.wait_for` until
the entries its user added in this process have their vectors. Queued entries are
kept per user; a user someone is waiting for is served first, newest entries first,
so one user's bulk load does not hold up another user's search. A wait that runs out
marks that user's backlog as given up on: later searches do not wait for it again,
only for entries added after it (the backlog keeps keyword recall until embedded).

Writes first: the model's threads take every core, so a write running beside a batch
gets a share of them only (``add_many`` ran at less than half its speed). The write
path marks its work with :meth:`EmbeddingWorker.writing`; the worker starts a chunk of
a batch only once no write has run for :data:`WRITE_GRACE` seconds, unless a search
waits for vectors or it has waited :data:`WRITE_YIELD_MAX` seconds in a row (a steady
stream of writes slows the embedding down, but never stops it).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import Protocol

import numpy as np

from ..errors import ConflictError
from ..model import MemoryEntry
from ..stores.protocols import Store
from ..stores.values import VectorItem
from .base import Embedder, Vectors
from .guard import EmbeddingStopped, exiting

log = logging.getLogger(__name__)

#: How many back-filled entries are remembered so a queued copy is not embedded again (a
#: miss only costs a second embedding of the same text).
BACKFILLED_KEPT = 10_000

#: Seconds without a write before the worker embeds: a bulk load's next ``add_many``
#: follows the last one at once, and should not meet a model call starting in between.
WRITE_GRACE = 0.05
#: The longest the worker waits for writes in a row before it embeds a chunk anyway.
WRITE_YIELD_MAX = 5.0
#: Texts per model call of the worker: the point where it may yield to a write. Sorted
#: by length first, so a call pads little (as ``embed.onnx.CALL_BATCH``).
CHUNK = 32


class VectorCache(Protocol):
    """What the worker tells about the vectors it stored: the search side's in-memory
    index (``retrieval.vector.VectorIndex``), which stands above this package and is
    handed in by the engine, so that the embedders never import recall."""

    def upsert(self, user_id: str, items: Sequence[tuple[str, str | None, Vectors]]) -> None:
        """Reflect vectors this process just stored, ``(entry id, agent id, vector)``."""
        ...


#: Told each batch's entries and their new vectors (rows, in order) before the vectors
#: are stored: the write path's model screen (``security.scan.learned.ModelHold``),
#: handed in by the engine like the cache.
Screen = Callable[[Sequence[MemoryEntry], Vectors], None]


class EmbeddingWorker:
    """One daemon thread that turns queued entries into stored vectors."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        index: VectorCache,
        text_of: Callable[[MemoryEntry], str],
        *,
        batch_size: int = 64,
        backfill: bool = True,
        screen: Screen | None = None,
        start: bool = True,
    ) -> None:
        """``screen`` reads every batch before its vectors are stored. ``start=False``
        leaves the thread (and the back-fill) for ``start``: for an owner whose screen
        is made after the worker, so that not even the first batch goes unscreened."""
        self.store = store
        self.embedder = embedder
        self.index = index
        self.text_of = text_of
        self.batch_size = max(1, batch_size)
        # Per user, oldest first (dict order is the round-robin order of users); each
        # entry carries its submission number, which only grows.
        self._queues: dict[str, deque[tuple[int, MemoryEntry]]] = {}
        self._queued = 0
        self._seq = 0
        self._batch: list[tuple[str, int]] = []  # (user, number) of the queued batch in flight
        self._waiters: dict[str, int] = defaultdict(int)
        self._given_up: dict[str, int] = {}  # a wait ran out: entries up to here are not awaited
        self._cond = threading.Condition()
        self._in_flight = 0
        self._backfill = backfill
        self._backfill_after: tuple[str, str] | None = None
        # What the back-fill embedded lately, id -> the version embedded: an entry written
        # while the back-fill was reading may be queued too, and is then not embedded twice.
        self._backfilled: OrderedDict[str, datetime] = OrderedDict()
        self._backfill_batch: list[MemoryEntry] | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._at_exit: Callable[[], None] | None = None
        self.errors = 0
        self._screen = screen
        self._started = False
        self._writers = 0  # writes running now (``writing``)
        self._last_write = float("-inf")  # when the latest write ended (monotonic)
        if start:
            self.start()

    @property
    def screen(self) -> Screen | None:
        """What reads each batch before it is stored; fixed once the worker starts."""
        return self._screen

    def start(self, screen: Screen | None = None) -> None:
        """Let the thread run (the back-fill, and what was submitted meanwhile), with
        ``screen`` wired first. A started worker keeps its screen: a screen set while
        its thread runs would miss the batches already taken."""
        with self._cond:
            if self._started:
                if screen is not None and screen is not self._screen:
                    raise ConflictError("the embedding worker has started: pass its screen first")
                return
            if screen is not None:
                self._screen = screen
            self._started = True
            if self._backfill or self._queued:
                self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self._thread is None and self._started:
            self._thread = threading.Thread(target=self._run, name="memvault-embedder", daemon=True)
            self._thread.start()
            # A script that never closes its Vault must still exit cleanly: at exit the
            # thread takes no new batch (``embed.guard`` makes the exit wait for a batch
            # already running); what stays queued is back-filled on the next open.
            self._at_exit = partial(_close_at_exit, weakref.ref(self))
            atexit.register(self._at_exit)

    # -- API --------------------------------------------------------------------

    def submit(self, entries: Sequence[MemoryEntry]) -> None:
        if not entries:
            return
        with self._cond:
            for entry in entries:
                self._seq += 1
                self._queues.setdefault(entry.user_id, deque()).append((self._seq, entry))
            self._queued += len(entries)
            self._ensure_thread()
            self._cond.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Mark a write running on this process: the worker starts no model call
        meanwhile (see the module docstring). Marks nest (a batch, then each of its
        entries); only the end of the outermost wakes the worker, which waits for no
        writer: waking it at every entry took the GIL from the write hundreds of times
        a batch."""
        with self._cond:
            self._writers += 1
        try:
            yield
        finally:
            with self._cond:
                self._writers -= 1
                self._last_write = time.monotonic()
                if not self._writers:
                    self._cond.notify_all()

    def _yield_to_writers(self) -> None:
        """Wait (on the worker's thread) until no write has run for ``WRITE_GRACE``
        seconds, at most ``WRITE_YIELD_MAX``; not while a search waits for vectors."""
        deadline = time.monotonic() + WRITE_YIELD_MAX
        with self._cond:
            while not self._stopping and not self._waiters:
                now = time.monotonic()
                if now >= deadline:
                    return
                if self._writers:
                    left = deadline - now
                else:
                    left = min(self._last_write + WRITE_GRACE, deadline) - now
                    if left <= 0:
                        return
                self._cond.wait(left)

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
            return not self._queued and self._in_flight == 0 and not self._backfill

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued entry (and the back-fill) is done; False on timeout."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not self._queued and self._in_flight == 0 and not self._backfill,
                timeout=timeout,
            )

    def wait_for(self, user_id: str, timeout: float) -> bool:
        """Wait until the entries queued for ``user_id`` are embedded (their vectors
        written, or the call failed and left them to the back-fill). False when
        ``timeout`` seconds ran out first: what is queued then is not waited for again."""
        with self._cond:
            floor = self._given_up.get(user_id, 0)
            if not self._pending(user_id, floor):
                return True
            if timeout <= 0 or self._stopping:
                return False
            self._waiters[user_id] += 1
            self._cond.notify_all()
            try:
                done = self._cond.wait_for(
                    lambda: self._stopping or not self._pending(user_id, floor), timeout
                )
            finally:
                self._waiters[user_id] -= 1
                if not self._waiters[user_id]:
                    del self._waiters[user_id]
            if not done or self._stopping:
                self._given_up[user_id] = max(self._given_up.get(user_id, 0), self._seq)
                return False
            return True

    def _pending(self, user_id: str, floor: int) -> bool:
        """Whether an entry of ``user_id`` numbered above ``floor`` is queued or in flight.
        A user's queue stays in number order (taken from either end), so its last is its
        highest."""
        queue = self._queues.get(user_id)
        if queue and queue[-1][0] > floor:
            return True
        return any(user == user_id and seq > floor for user, seq in self._batch)

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

    def _take_queued(self) -> list[tuple[str, int, MemoryEntry]]:
        """The next batch from the queues (lock held). While a search waits for users,
        only their entries, newest first, so the batch it waits for is no bigger than
        it needs; otherwise every user in turn, oldest first."""
        taken: list[tuple[str, int, MemoryEntry]] = []
        skipped = 0  # entries taken off the queues, embedded now or already
        users = [u for u in self._waiters if u in self._queues] or list(self._queues)
        for user_id in users:
            queue = self._queues.pop(user_id)
            take = queue.pop if user_id in self._waiters else queue.popleft
            while queue and len(taken) < self.batch_size:
                seq, entry = take()
                skipped += 1
                if self._backfilled.pop(entry.id, None) == entry.updated_at:
                    continue  # the back-fill embedded this very version already
                taken.append((user_id, seq, entry))
            if queue:  # to the back of the turn
                self._queues[user_id] = queue
            if len(taken) >= self.batch_size:
                break
        self._queued -= skipped
        return taken

    def _next_batch(self) -> list[MemoryEntry] | None:
        with self._cond:
            while True:
                if self._stopping:
                    return None
                if self._queued:
                    taken = self._take_queued()
                    self._batch = [(user_id, seq) for user_id, seq, _ in taken]
                    self._in_flight = len(taken)
                    return [entry for _, _, entry in taken]
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
            self._backfill_batch = batch
            return batch

    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            if not batch:
                continue
            stop = False
            try:
                self._process(batch, polite=True)
                self._remember_backfilled(batch)
            except Exception as exc:  # keyword search still works; back-fill retries later
                # At exit (the guard refused the call, or a model loading while the
                # interpreter exits failed) the thread just stops: what is left is
                # back-filled on the next open.
                stop = isinstance(exc, EmbeddingStopped) or exiting() or self._stopping
                if stop:
                    log.debug("embedding stopped at exit, %d entries left: %s", len(batch), exc)
                else:
                    self.errors += 1
                    log.warning("embedding %d entries failed: %s", len(batch), exc)
            finally:
                with self._cond:
                    self._in_flight = 0
                    self._batch = []
                    self._backfill_batch = None
                    self._stopping = self._stopping or stop
                    self._cond.notify_all()
            if stop:
                return

    def _remember_backfilled(self, batch: list[MemoryEntry]) -> None:
        with self._cond:
            if batch is not self._backfill_batch:
                return
            for entry in batch:
                self._backfilled[entry.id] = entry.updated_at
                self._backfilled.move_to_end(entry.id)
            while len(self._backfilled) > BACKFILLED_KEPT:
                self._backfilled.popitem(last=False)

    def _process(self, batch: list[MemoryEntry], *, polite: bool = False) -> None:
        """Embed ``batch`` and store its vectors; ``polite`` (the worker's thread) lets
        writes go first before each chunk of model calls."""
        texts = [self.text_of(e) for e in batch]
        vectors = self._embed_politely(texts) if polite else self.embedder.embed(texts)
        if self._screen is not None:
            try:
                self._screen(batch, vectors)
            except Exception as exc:  # the prompt-time screen still reads the vectors
                log.warning("model screen of %d entries failed: %s", len(batch), exc)
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

    def _embed_politely(self, texts: list[str]) -> Vectors:
        """``embedder.embed(texts)`` a chunk at a time, yielding to writes before each."""
        if len(texts) <= CHUNK:
            self._yield_to_writers()
            return self.embedder.embed(texts)
        out: Vectors | None = None
        for picked in _chunks(texts, CHUNK):
            self._yield_to_writers()
            vectors = self.embedder.embed([texts[i] for i in picked])
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=vectors.dtype)
            out[picked] = vectors
        assert out is not None
        return out


def _chunks(texts: Sequence[str], size: int) -> list[list[int]]:
    """Positions of ``texts`` in chunks of ``size``, longest texts first."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
    return [order[start : start + size] for start in range(0, len(order), size)]


def _close_at_exit(ref: weakref.ref[EmbeddingWorker]) -> None:
    worker = ref()
    if worker is not None:
        worker.close(drain=False, timeout=30.0)


__all__ = ["EmbeddingWorker", "Screen", "VectorCache"]
