"""The graph channel: entries linked to the entities a query names, and one hop out.

The query's candidate names (``names.candidate_keys``: runs of words, CJK
substrings, in any case or width) are looked up among the user's entity keys in one
indexed read; what the caller's view links to counts. Each named entity weighs its
inverse document frequency in the view (a rare name says more than a common one);
an entity linked to more than ``max_share`` of the view's entries (and more than 20)
is ignored, as a stop word would be. Its one-hop neighbours (relations either way)
weigh ``hop_weight`` of that (the 32 strongest, most often related, at most). An
entry linked to a named entity scores the sum of
their weights and ranks before every entry linked only to neighbours (scored by the
sum of theirs), so naming many things beside the one asked about never lifts an
entry above one about it. Both rankings run in the store with the caller's filter
inside the query; the raw score is what ``explain`` shows.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..names import candidate_keys, named_here, written_as_name
from ..stores.graph_values import UNKNOWN
from ..stores.protocols import EntityGraph, Store
from ..stores.values import EntryFilter, View
from .base import Pool, Query

#: Below this many linked entries an entity is never too common to count.
_ALWAYS_COUNTS = 20
#: The one-hop neighbours that count, at most (the strongest, most related first).
_MAX_HOPS = 32


@runtime_checkable
class LinkCounts(Protocol):
    """A graph that counts an entity's entries in a view cheaply (``stores.sql.graph``)."""

    def entity_counts(self, view: View, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """Type and entries in ``view`` of each of ``ids`` linked to one at least."""
        ...


@runtime_checkable
class RelationCounts(Protocol):
    """A graph that counts an entity's relations by their other end (``stores.sql.graph``)."""

    def relation_counts(self, view: View, entity_ids: Sequence[str]) -> dict[tuple[str, str], int]:
        """Relations in ``view`` between each of ``entity_ids`` and each other entity."""
        ...


class GraphChannel:
    """Ranks by the entity graph (``stores.protocols.EntityGraph``)."""

    name = "graph"

    def __init__(
        self, store: Store, graph: EntityGraph, *, hop_weight: float, max_share: float
    ) -> None:
        self.store = store
        self.graph = graph
        self.hop_weight = hop_weight
        self.max_share = max_share

    def weights(self, view: View, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """The weight of each entity the query names, and of their one-hop neighbours."""
        named, cap = self.named(view, text)
        return named, self.hops(view, named, cap)

    def named(self, view: View, text: str) -> tuple[dict[str, float], float]:
        """The weight of each entity the query names, and the most entries an entity
        may have in ``view`` to count (more: too common)."""
        keys = [k for k in candidate_keys(text) if named_here(k, text)]
        found = self.graph.find_entities(view.user_id, keys)
        ids = sorted(set(found.values()))
        if not ids:
            return {}, 0.0
        # A lower-case word of the query names an entity only when the entity is typed
        # or has more than one word: "research" in a question is not the "Research" a
        # sentence once began with.
        written = {i for k, i in found.items() if written_as_name(k, text)}
        seen = {
            i: entries
            for i, (kind, entries) in self._counts(view, ids).items()
            if i in written or kind != UNKNOWN
        }
        if not seen:
            return {}, 0.0
        total = max(1, self.store.count(view))
        cap = max(_ALWAYS_COUNTS, self.max_share * total)
        return {i: math.log(1.0 + total / n) for i, n in sorted(seen.items()) if n <= cap}, cap

    def hops(self, view: View, named: dict[str, float], cap: float) -> dict[str, float]:
        """The weight of the one-hop neighbours of the ``named`` entities, of those with
        at most ``cap`` entries in ``view`` (the 32 most related, at most)."""
        hops: dict[str, float] = {}
        if self.hop_weight > 0 and named:
            ties: dict[str, int] = {}
            for (via, near), n in sorted(self._relation_counts(view, list(named)).items()):
                if via in named and near not in named:
                    hops[near] = max(hops.get(near, 0.0), self.hop_weight * named[via])
                    ties[near] = ties.get(near, 0) + n
            if len(hops) > _MAX_HOPS:
                # The neighbours most often related to what the query names; counting
                # the entries of every neighbour of a common name cost 100-400 ms.
                kept = heapq.nlargest(_MAX_HOPS, hops, key=lambda i: (hops[i], ties[i], i))
                hops = {i: hops[i] for i in kept}
            if hops:
                counts = {i: n for i, (_, n) in self._counts(view, sorted(hops)).items()}
                hops = {i: w for i, w in hops.items() if counts.get(i, cap + 1) <= cap}
        return hops

    def _counts(self, view: View, ids: list[str]) -> dict[str, tuple[str, int]]:
        """The type and the number of entries in ``view`` of each of ``ids`` that has one."""
        if isinstance(self.graph, LinkCounts):
            return self.graph.entity_counts(view, ids)
        linked = self.graph.entities(view, ids=ids, limit=len(ids))
        return {e.id: (e.type, e.entries) for e in linked}

    def _relation_counts(self, view: View, ids: list[str]) -> dict[tuple[str, str], int]:
        """Relations between each of ``ids`` and each other entity, by (that one, the
        other): counted by the store when it can (a common name's co-mentions are
        thousands of relations, each read and built here cost the search 20-40 ms)."""
        if isinstance(self.graph, RelationCounts):
            return self.graph.relation_counts(view, ids)
        wanted = set(ids)
        counts: dict[tuple[str, str], int] = {}
        for rel in self.graph.entity_relations(view, ids):
            for via, near in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
                if via in wanted and near != via:
                    counts[(via, near)] = counts.get((via, near), 0) + 1
        return counts

    def prepare(self, view: View, query: Query, pool: Pool) -> None:
        """The named entities' weights: read while the query is being embedded."""
        pool.prepared[self.name] = self.named(view, query.text)

    def rank(
        self, view: View, query: Query, depth: int, flt: EntryFilter, pool: Pool
    ) -> list[tuple[str, float]]:
        """Entries linked to a named entity first (by the sum of their weights), then
        those linked only to a neighbour (by the sum of the neighbours' weights).

        The neighbours are read only when the named entities' entries are fewer than
        ``depth``: they would rank after all of those. A name common enough to fill the
        depth alone has the most neighbours, and reading them (every co-mention of its
        thousands of entries) was most of the channel's time, for nothing."""
        prepared: tuple[dict[str, float], float] | None
        prepared = pool.prepared.pop(self.name, None)
        named, cap = self.named(view, query.text) if prepared is None else prepared
        if not named:
            return []
        found = self.graph.linked_entries(view, named, flt=flt, limit=depth)
        hops = self.hops(view, named, cap) if len(found) < depth else {}
        if hops:
            direct = {e.id for e, _ in found}
            more = self.graph.linked_entries(view, hops, flt=flt, limit=depth)
            found += [(e, s) for e, s in more if e.id not in direct][: depth - len(found)]
        pool.add(e for e, _ in found)
        return [(e.id, score) for e, score in found]


__all__ = ["GraphChannel", "LinkCounts", "RelationCounts"]
