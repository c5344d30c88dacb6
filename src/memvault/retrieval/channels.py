"""The keyword and vector channels, and the list of channels a vault's config asks for.

The interface they share (``Query``, ``Pool``, ``Channel``) is in ``retrieval.base``,
below this module and the graph channel (``retrieval.graph``) alike.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..config import VaultConfig
from ..embed.base import Embedder, Vectors
from ..embed.batching import QueryBatcher
from ..embed.guard import EmbeddingStopped
from ..model import MemoryEntry, Tier
from ..stores.protocols import EntityGraph, Store, TermPlanner
from ..stores.values import NO_FILTER, EntryFilter, KeywordWeights, View
from . import tiered
from .base import Channel, Pool, Query
from .graph import GraphChannel
from .terms import planner_for
from .vector import VectorIndex


class KeywordChannel:
    """BM25 over the engine-made tokens, in the store, with the caller's statistics;
    ``planner`` decides which of a query's terms run (``terms.CommonTermPlanner``).
    ``prefer_tiers``: active entries before demoted ones (``retrieval.tiered``)."""

    name = "keyword"

    def __init__(
        self,
        store: Store,
        weights: KeywordWeights,
        planner: TermPlanner,
        *,
        prefer_tiers: bool = True,
    ) -> None:
        self.store = store
        self.weights = weights
        self.planner = planner
        self.prefer_tiers = prefer_tiers

    def prepare(self, view: View, query: Query, pool: Pool) -> None:
        """Nothing: the keyword search is one statement."""

    def _search(
        self, view: View, query: Query, depth: int, flt: EntryFilter
    ) -> list[tuple[MemoryEntry, float]]:
        return self.store.keyword_search(
            view,
            [*query.terms, *query.phrases],
            flt=flt,
            limit=depth,
            weights=self.weights,
            planner=self.planner,
        )

    def rank(
        self, view: View, query: Query, depth: int, flt: EntryFilter, pool: Pool
    ) -> list[tuple[str, float]]:
        found = self._search(view, query, depth, flt)
        if self.prefer_tiers and flt.tier is None:
            demoted = [(e, s) for e, s in found if e.tier is not Tier.ACTIVE]
            if demoted and len(found) >= depth:
                # Full, and demoted entries took slots: the active matches get theirs,
                # and the cold ones theirs where archived entries took places.
                active = self._search(view, query, depth, replace(flt, tier=Tier.ACTIVE))
                if any(e.tier is Tier.ARCHIVE for e, _ in demoted):
                    cold = self._search(
                        view,
                        query,
                        tiered.demoted_quota(depth, len(active)),
                        replace(flt, tier=Tier.COLD),
                    )
                    demoted = [p for p in demoted if p[0].tier is Tier.ARCHIVE] + cold
                found = tiered.merge(active, demoted, depth)
            found = tiered.prefer_active(found, tiered.KEYWORD_FLOOR)
        pool.add(e for e, _ in found)
        return [(e.id, score) for e, score in found]


class _Embedding:
    """One query's embedding, computed on a daemon thread started at once; ``among``
    (called on that thread) names the routes of the vectors it will meet."""

    def __init__(
        self,
        queries: QueryBatcher,
        text: str,
        among: Callable[[], frozenset[str] | None],
    ) -> None:
        self._queries = queries
        self._text = text
        self._among = among
        self.routes: frozenset[str] | None = None  # what it was embedded for
        self._done = threading.Event()
        self._vector: Vectors | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = threading.Thread(
            target=self._run, name="memvault-query", daemon=True
        )
        try:
            self._thread.start()
        except RuntimeError:  # no new threads (the interpreter is exiting): embed in result()
            self._thread = None

    def _embed(self) -> Vectors:
        self.routes = self._among()
        return self._queries.embed(self._text, self.routes)

    def _run(self) -> None:
        try:
            self._vector = self._embed()
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> Vectors:
        if self._thread is None:
            return self._embed()
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._vector is not None
        return self._vector


class VectorChannel:
    """Cosine similarity of the query's embedding to the stored vectors.

    Matches weaker than ``min_similarity`` are kept only when an earlier channel
    ranked the entry; the first weak one it did not cuts the ranking off, as the
    rest are weaker still. ``settle(user_id)`` runs between embedding the query and
    searching the vectors: the engine waits there, bounded, for the vectors of the
    user's own recent writes (read-your-writes), which the background thread has been
    embedding while this thread embedded the query.
    """

    name = "vector"

    def __init__(
        self,
        index: VectorIndex,
        queries: QueryBatcher,
        *,
        min_similarity: float,
        settle: Callable[[str], object] | None = None,
        prefer_tiers: bool = True,
    ) -> None:
        self.index = index
        self.queries = queries
        self.min_similarity = min_similarity
        self.settle = settle
        self.prefer_tiers = prefer_tiers

    def prepare(self, view: View, query: Query, pool: Pool) -> None:
        """Embed the query on another thread while the other channels read the store:
        both the model and SQLite release the GIL, and the query's embedding is most
        of a search's time. A daemon thread of its own, not a pool: a pool refuses work
        once the interpreter shuts down and holds up its exit."""
        pool.prepared[self.name] = _Embedding(
            self.queries, query.text, lambda: self.index.routes(view)
        )

    def rank(
        self, view: View, query: Query, depth: int, flt: EntryFilter, pool: Pool
    ) -> list[tuple[str, float]]:
        pending: _Embedding | None = pool.prepared.pop(self.name, None)
        try:
            vector = self.queries.embed(query.text) if pending is None else pending.result()
        except EmbeddingStopped:  # a search running while the process exits: keyword only
            return []
        if self.settle is not None:
            self.settle(view.user_id)
        if pending is not None and pending.routes is not None:
            # Vectors of a route the query was not embedded for arrived meanwhile (the
            # user's first memory in another language): embed it for every route.
            now = self.index.routes(view, others=False)
            if now is None or not now <= pending.routes:
                try:
                    vector = self.queries.embed(query.text)
                except EmbeddingStopped:
                    return []
        # A filter is checked after the vector search: look deeper so enough remain.
        # Only filters other than the moments (expiry, supersession: rare) make the index
        # over-fetch at once; when entries left out by the filter took places anyway, the
        # search looks deeper again, so they never take a candidate's place.
        fetch = depth if flt.timeless() == NO_FILTER else depth * 4
        prefer = self.prefer_tiers and flt.tier is None
        active: list[tuple[MemoryEntry, float]] = []  # every match, without a preference
        demoted: list[tuple[MemoryEntry, float]] = []
        kept: dict[Tier, int] = {}
        seen: set[str] = set()
        # Other processes' writes are looked for once per search (a round trip on a
        # server store): by the routes the query was embedded for, or the first search.
        looked = pending is not None and pending.routes is not None
        while True:
            similar = self.index.search(view, vector, fetch, others=not looked)
            looked = True
            fresh = [(i, sim) for i, sim in similar if i not in seen]
            seen.update(i for i, _ in fresh)
            pool.fetch([i for i, _ in fresh])
            done = filtered = False
            for entry_id, sim in fresh:
                entry = pool.entries.get(entry_id)
                if entry is None or not flt.matches(entry):
                    filtered = True
                    continue
                if sim < self.min_similarity and entry_id not in pool.ranked:
                    done = True
                    break
                if prefer and entry.tier is not Tier.ACTIVE:
                    if kept.get(entry.tier, 0) < depth:  # up to depth of each demoted tier
                        kept[entry.tier] = kept.get(entry.tier, 0) + 1
                        demoted.append((entry, sim))
                    continue
                active.append((entry, sim))
                if len(active) >= depth:
                    done = True
                    break
            if done or len(similar) < fetch:
                break
            if filtered:  # entries the filter leaves out took places: look behind them
                fetch *= 4
            elif demoted and fetch < tiered.MAX_VECTOR_SCAN:  # demoted ones did: the same
                fetch = min(fetch * 4, tiered.MAX_VECTOR_SCAN)
            else:
                break
        found = active
        if demoted:
            found = tiered.prefer_active(tiered.merge(active, demoted, depth), tiered.VECTOR_FLOOR)
        pool.query_vector = vector  # for context()'s relevance gate
        return [(entry.id, sim) for entry, sim in found]

    def similarities(self, view: View, pool: Pool, entry_ids: Sequence[str]) -> dict[str, float]:
        """The query's cosine to each of ``entry_ids`` (read into ``pool``) that has a
        vector; empty when the query was not embedded."""
        if pool.query_vector is None or not entry_ids:
            return {}
        # After ``rank`` (which set the query vector), which looked for others' writes.
        return self.index.similarity(view, pool.query_vector, entry_ids, others=False)


def channels_for(
    store: Store,
    config: VaultConfig,
    index: VectorIndex | None,
    embedder: Embedder | None,
    settle: Callable[[str], object] | None = None,
) -> list[Channel]:
    """The configured channels, in fusion order: keyword always (even at weight 0 its
    matches let weak vector matches through), vector with an embedder and a weight
    (``settle``: see :class:`VectorChannel`), graph when on and the store has it."""
    kw = config.keyword
    weights = KeywordWeights(kw.head_weight, kw.body_weight, kw.extra_weight, kw.phrase_weight)
    rc = config.retrieval
    prefer = rc.tier_preference
    channels: list[Channel] = [KeywordChannel(store, weights, planner_for(kw), prefer_tiers=prefer)]
    if index is not None and embedder is not None and rc.vector_weight > 0:
        queries = QueryBatcher(embedder)
        channels.append(
            VectorChannel(
                index,
                queries,
                min_similarity=rc.min_similarity,
                settle=settle,
                prefer_tiers=prefer,
            )
        )
    if rc.graph_channel and rc.graph_weight > 0 and isinstance(store, EntityGraph):
        channels.append(
            GraphChannel(store, store, hop_weight=rc.graph_hop_weight, max_share=rc.graph_max_share)
        )
    return channels


__all__ = ["KeywordChannel", "VectorChannel", "channels_for"]
