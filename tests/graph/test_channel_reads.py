"""What the graph channel reads: its named entities' entries, and their neighbours only
when those entries are fewer than the depth asked for (neighbours rank after them all).

A name common enough to fill the depth has the most neighbours, and reading them (every
co-mention of thousands of entries) was most of the channel's time at 100,000 entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memvault import Store
from memvault.retrieval.base import Pool, Query
from memvault.retrieval.graph import GraphChannel
from memvault.stores.graph_values import Mention, RelationMention
from memvault.stores.protocols import EntityGraph
from memvault.stores.values import NO_FILTER, View
from tests.stores.conformance.support import entry, put

VIEW = View("alice")


class Counted:
    """``store``'s graph, counting the reads of neighbours (either way a graph gives them)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.neighbour_reads = 0

    def __getattr__(self, name: str) -> Any:
        read = getattr(self.store, name)
        if name not in ("relation_counts", "entity_relations"):
            return read

        def counted(*args: Any) -> Any:
            self.neighbour_reads += 1
            return read(*args)

        return counted


def _graph(store: Store) -> None:
    """Zeus in e0-e3 (with Hera in e0), Hera alone in h0-h2, and 30 unrelated entries
    (so neither name is too common to count)."""
    put(
        store,
        *(entry(f"e{i}", "Zeus", seconds=i) for i in range(4)),
        *(entry(f"h{i}", "Hera", seconds=10 + i) for i in range(3)),
        *(entry(f"x{i:02}", "other", seconds=20 + i) for i in range(30)),
    )
    assert isinstance(store, EntityGraph)
    zeus, hera = Mention("zeus", "Zeus", "person"), Mention("hera", "Hera", "person")
    store.link_entities("alice", "e0", [zeus, hera], [RelationMention("zeus", "hera")])
    for i in range(1, 4):
        store.link_entities("alice", f"e{i}", [zeus])
    for i in range(3):
        store.link_entities("alice", f"h{i}", [hera])


def _rank(channel: GraphChannel, store: Store, depth: int) -> Sequence[str]:
    pool = Pool(store, VIEW)
    query = Query(text="what did Zeus say", terms=("zeus",))
    channel.prepare(VIEW, query, pool)
    return [i for i, _ in channel.rank(VIEW, query, depth, NO_FILTER, pool)]


def test_neighbours_are_read_only_when_the_named_entries_fall_short(store: Store) -> None:
    _graph(store)
    graph = Counted(store)
    channel = GraphChannel(store, graph, hop_weight=0.5, max_share=0.5)  # type: ignore[arg-type]
    # Four entries name Zeus: a depth of four is filled without the neighbours.
    assert sorted(_rank(channel, store, 4)) == ["e0", "e1", "e2", "e3"]
    assert graph.neighbour_reads == 0
    # A depth of ten: Hera's own entries follow Zeus's, found through the neighbour.
    found = _rank(channel, store, 10)
    assert sorted(found[:4]) == ["e0", "e1", "e2", "e3"]
    assert sorted(found[4:]) == ["h0", "h1", "h2"]
    assert graph.neighbour_reads == 1
    # What the channel shows (weights) still holds the neighbour.
    named, hops = channel.weights(VIEW, "what did Zeus say")
    assert len(named) == 1 and len(hops) == 1
