"""The graph channel's entity counts (``SQLGraph.entity_counts``) are the counts
``entities(view, ids=...)`` gives, on every backend and in every view: the cheap
reading (the user's links less those to entries outside the view) must never count
another agent's entry, a deleted one, or another user's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault import Store
from memvault.retrieval.graph import GraphChannel, LinkCounts
from memvault.stores.graph_values import Mention
from memvault.stores.protocols import EntityGraph
from memvault.stores.values import EntryFilter, View
from tests.stores.conformance.support import entry, put

SERVER_BACKENDS = True  # the SQL is written once for three backends: run it on each

VIEWS = [
    View("alice", all_agents=True),
    View("alice"),
    View("alice", "a1"),
    View("alice", "a2"),
    View("bob", all_agents=True),
    View("bob"),
    View("carol"),
]


def expected(graph: EntityGraph, view: View, ids: list[str]) -> dict[str, tuple[str, int]]:
    return {e.id: (e.type, e.entries) for e in graph.entities(view, ids=ids, limit=len(ids))}


def check(store: Store, ids: list[str]) -> None:
    assert isinstance(store, EntityGraph)
    channel = GraphChannel(store, store, hop_weight=0.5, max_share=0.05)
    for view in VIEWS:
        want = expected(store, view, ids)
        assert channel._counts(view, ids) == want, view
        if isinstance(store, LinkCounts):
            assert store.entity_counts(view, ids) == want, view


def test_counts_match_entities_in_every_view_and_after_deletes(store: Store) -> None:
    assert isinstance(store, EntityGraph)
    agents = [None, None, "a1", "a2", None, "a1"]
    put(store, *(entry(f"e{i}", f"zeus {i}", agent_id=a) for i, a in enumerate(agents)))
    put(store, entry("b0", "zeus of bob", user="bob"), entry("b1", "bob's", user="bob"))
    for i in range(len(agents)):
        mentions = [Mention("zeus", "Zeus", "project", False)]
        if i % 2:
            mentions.append(Mention("hera", "Hera", "unknown", False))
        store.link_entities("alice", f"e{i}", mentions)
    store.link_entities("bob", "b0", [Mention("zeus", "Zeus", "unknown", False)])
    ids = sorted(set(store.find_entities("alice", ["zeus", "hera"]).values()))
    ids += sorted(set(store.find_entities("bob", ["zeus"]).values()))
    assert len(ids) == 3
    check(store, ids)
    # A deleted entry's links go with it: no count may still hold it.
    store.delete(View("alice", all_agents=True), ["e1", "e2"])
    check(store, ids)
    store.delete(View("alice", all_agents=True), ["e3", "e5"])  # no hera left
    check(store, ids)


@pytest.mark.parametrize(("shared", "private"), [(1, 40), (30, 40), (100, 3)])
def test_counts_with_few_and_many_entries_outside_the_view(
    store: Store, shared: int, private: int
) -> None:
    """Few entries outside the view: their links are subtracted; many: the count joins
    the entries instead. Both paths give the same counts."""
    assert isinstance(store, EntityGraph)
    put(
        store,
        *(entry(f"s{i}", "zeus", agent_id=None) for i in range(shared)),
        *(entry(f"p{i}", "zeus", agent_id="a1" if i % 3 else "a2") for i in range(private)),
    )
    zeus = Mention("zeus", "Zeus", "unknown", False)
    for i in range(shared):
        store.link_entities("alice", f"s{i}", [zeus])
    for i in range(private):
        store.link_entities("alice", f"p{i}", [zeus, Mention("hera", "Hera", "person", False)])
    check(store, sorted(set(store.find_entities("alice", ["zeus", "hera"]).values())))


@pytest.mark.parametrize("limit", [3, 10])
def test_linked_entries_skip_the_best_ones_outside_the_view_or_filter(
    store: Store, limit: int
) -> None:
    """The links are ranked before the view and the filter are tested: entries that rank
    first but are another agent's or expired (more than a page of them) never take a
    place, and those that pass keep their order (weight, then newest id)."""
    assert isinstance(store, EntityGraph)
    now = datetime(2026, 2, 1, tzinfo=UTC)
    kept = [entry(f"k{i:03d}", "zeus", seconds=i) for i in range(20)]
    # Ids after the kept ones' ("z…" > "k…"): first among equals, all left out.
    hidden = [entry(f"z{i:03d}", "zeus", seconds=i, agent_id="a1") for i in range(150)]
    hidden += [
        entry(f"x{i:03d}", "zeus", seconds=i, expires_at=now - timedelta(days=1))
        for i in range(150)
    ]
    put(store, *kept, *hidden)
    zeus, hera = Mention("zeus", "Zeus", "unknown", False), Mention("hera", "Hera", "person", False)
    for e in [*kept, *hidden]:
        store.link_entities("alice", e.id, [zeus, hera] if e.id.endswith("7") else [zeus])
    found = store.find_entities("alice", ["zeus", "hera"])
    weights = {found["zeus"]: 1.0, found["hera"]: 0.5}
    ranked = store.linked_entries(
        View("alice"), weights, flt=EntryFilter(valid_at=now), limit=limit
    )
    by_weight = sorted(((1.5 if e.id.endswith("7") else 1.0, e.id) for e in kept), reverse=True)
    assert [(e.id, s) for e, s in ranked] == [(i, s) for s, i in by_weight][:limit]
    # With the other agent's view, its entries come first (newest id among equals).
    mine = store.linked_entries(View("alice", "a1"), weights, limit=limit)
    assert [e.id for e, _ in mine][:2] == ["z147", "z137"]
