"""What the process keeps beside the store and must follow its writes: the person
names recall weighs, and the vectors (embedded in the background, or at once).

``Derived`` is told of every insert, rewrite and delete the write path makes; the
embedding worker (``embed.worker``) fills the vector index, and a search waits for the
vectors of its user's earlier writes (read-your-writes, ``settle``). ``embed_text`` is
what the embedder sees of an entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import partial

from ..config import EmbeddingConfig
from ..embed.base import Embedder, RoutedEmbedder
from ..embed.worker import EmbeddingWorker, Screen
from ..model import MemoryEntry
from ..retrieval.people import People
from ..retrieval.vector import VectorIndex
from ..stores.protocols import Store, Transactional


def embed_text(entry: MemoryEntry, metadata_prefix: Sequence[str]) -> str:
    """What the embedder sees: 'speaker: title. description. content'."""
    prefix = [
        str(entry.metadata[key])
        for key in metadata_prefix
        if isinstance(entry.metadata.get(key), str | int | float)
    ]
    body = ". ".join(p for p in (entry.name, entry.description, entry.content) if p)
    return f"{' '.join(prefix)}: {body}" if prefix else body


class Derived:
    """What this process keeps next to the store and must follow its writes: the
    person names of recall, and the vectors (embedded in the background or at once)."""

    def __init__(
        self,
        commits: Transactional,
        people: People,
        index: VectorIndex | None = None,
        worker: EmbeddingWorker | None = None,
        *,
        background: bool = True,
        search_wait: float = 0.0,
    ) -> None:
        self.people = people
        self.index = index
        self.worker = worker
        self.background = background
        self.search_wait = search_wait
        # A write inside an engine's ``store.atomic()`` block tells this before the block
        # commits; the embedding worker, on a connection of its own, would then read none
        # of the new entries and store no vector for them. So what writes tell waits for
        # the commit (and goes with a rollback).
        self._commits = commits

    @classmethod
    def start(
        cls, store: Store, people: People, embedder: Embedder | None, config: EmbeddingConfig
    ) -> Derived:
        """With an embedder: a vector index and the worker that fills it. Pass the
        embedder behind ``embed.guard``, so a process that exits mid-batch stays whole.
        The worker waits for ``begin``: the engine wires its screen first."""
        if embedder is None:
            return cls(store, people, background=config.background)
        index = VectorIndex(
            store,
            embedder.name,
            budget_bytes=config.cache_mb * 2**20,
            routes_of=embedder.routes_of if isinstance(embedder, RoutedEmbedder) else None,
        )
        worker = EmbeddingWorker(
            store,
            embedder,
            index,
            partial(embed_text, metadata_prefix=config.metadata_prefix),
            batch_size=config.batch_size,
            backfill=config.background,
            start=False,
        )
        return cls(
            store,
            people,
            index,
            worker,
            background=config.background,
            search_wait=config.search_wait,
        )

    def begin(self, screen: Screen | None = None) -> None:
        """Start the worker (its back-fill first), ``screen`` reading every batch it
        stores: the write path's model screen (``security.scan.learned.ModelHold``)."""
        if self.worker is not None:
            self.worker.start(screen)

    def writing(self) -> AbstractContextManager[None]:
        """Around a write's work: the background embedder starts no model call
        meanwhile, so the write has the cores (``EmbeddingWorker.writing``)."""
        return nullcontext() if self.worker is None else self.worker.writing()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every stored entry has its vector; False if ``timeout`` ran out."""
        return True if self.worker is None else self.worker.flush(timeout)

    def settle(self, user_id: str) -> bool:
        """Read-your-writes, before a search ranks by meaning: wait (up to
        ``embedding.search_wait`` seconds) until the entries this process added for
        ``user_id`` have their vectors. False when the wait ran out."""
        if self.worker is None or not self.background:
            return True
        return self.worker.wait_for(user_id, self.search_wait)

    def reindex(
        self, user_id: str | None, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed now every entry (of ``user_id``, or all) lacking a current vector."""
        return 0 if self.worker is None else self.worker.reindex(user_id, progress)

    def close(self) -> None:
        """Finish queued embeddings."""
        if self.worker is not None:
            self.worker.close(drain=True)

    def inserted(self, entries: list[MemoryEntry]) -> None:
        self._commits.after_commit(partial(self._inserted, entries))

    def rewritten(self, entry: MemoryEntry, text_changed: bool) -> None:
        self._commits.after_commit(partial(self._rewritten, entry, text_changed))

    def removed(self, user_id: str, entry_ids: Sequence[str]) -> None:
        self._commits.after_commit(partial(self._removed, user_id, entry_ids))

    def _inserted(self, entries: list[MemoryEntry]) -> None:
        self.people.note(entries)
        if self.worker is None or not entries:
            return
        if self.background:
            self.worker.submit(entries)
        else:
            self.worker.embed_now(entries)

    def _rewritten(self, entry: MemoryEntry, text_changed: bool) -> None:
        self.people.forget(entry.user_id)
        if self.index is not None and text_changed:
            # The store dropped the old vector with the text change; embed the new text.
            self.index.remove(entry.user_id, [entry.id])
            self._inserted([entry])

    def _removed(self, user_id: str, entry_ids: Sequence[str]) -> None:
        self.people.forget(user_id)
        if self.index is not None:
            self.index.remove(user_id, entry_ids)


__all__ = ["Derived", "embed_text"]
