"""Concurrent queries share one embedding call (of the model's query side).

A search has to embed its query before the vector channel can run. One query
at a time, a CPU model spends most of each call on fixed overhead (MiniLM on
2 cores: about 11 ms for one short query, 3 ms each in a batch of eight), so
under load the searches that arrive while a call is running are embedded
together in the next one, like a database's group commit. Nobody waits for a
timer: when the model is idle a query is embedded at once, alone.

The caller that finds the model idle becomes the leader and runs the call;
callers that arrive meanwhile wait. When the leader's call ends it hands the
lead to the oldest waiter, which embeds everything queued by then.
"""

from __future__ import annotations

import threading

from ..errors import EmbeddingError
from .base import Embedder, Vectors, embed_queries


class _Request:
    __slots__ = ("among", "error", "lead", "ready", "text", "vector")

    def __init__(self, text: str, among: frozenset[str] | None) -> None:
        self.text = text
        self.among = among
        self.vector: Vectors | None = None
        self.error: BaseException | None = None
        self.lead = False  # handed the lead: run the next call
        self.ready = threading.Event()  # answered, or handed the lead


class QueryBatcher:
    """Embeds single texts from many threads, batching those that arrive together."""

    def __init__(self, embedder: Embedder, *, max_batch: int = 32) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self.embedder = embedder
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._pending: list[_Request] = []
        self._busy = False
        self.calls = 0  # model calls made, for tests and metrics

    def waiting(self) -> int:
        """Texts queued behind the running call."""
        with self._lock:
            return len(self._pending)

    def embed(self, text: str, among: frozenset[str] | None = None) -> Vectors:
        """The query vector of one text (shape ``(dim,)``); raises what the embedder
        raises. ``among``: the routes of the stored vectors it will meet
        (``embed.base.RoutedEmbedder``; ``None``: any)."""
        request = _Request(text, among)
        with self._lock:
            self._pending.append(request)
            leading = not self._busy
            self._busy = True
        if not leading:
            request.ready.wait()
        if request.lead or leading:
            self._run_once()
        if request.error is not None:
            raise request.error
        assert request.vector is not None
        return request.vector

    def _run_once(self) -> None:
        """Embed the oldest queued texts (the leader's among them), then pass the lead on."""
        with self._lock:
            batch = self._pending[: self.max_batch]
            del self._pending[: self.max_batch]
        try:
            # One call per set of routes asked for (nearly always one).
            groups: dict[frozenset[str] | None, list[_Request]] = {}
            for request in batch:
                groups.setdefault(request.among, []).append(request)
            for among, group in groups.items():
                vectors = embed_queries(self.embedder, [r.text for r in group], among)
                self.calls += 1
                if len(vectors) != len(group):
                    raise EmbeddingError(
                        f"the embedder returned {len(vectors)} vectors for {len(group)} "
                        "texts: check the embedding service"
                    )
                for request, vector in zip(group, vectors, strict=True):
                    request.vector = vector
        except BaseException as exc:  # every caller in the batch gets the failure
            for request in batch:
                request.error = exc
        finally:
            with self._lock:
                if self._pending:
                    heir = self._pending[0]
                    heir.lead = True
                    heir.ready.set()
                else:
                    self._busy = False
            for request in batch:
                if not request.lead:
                    request.ready.set()


__all__ = ["QueryBatcher"]
