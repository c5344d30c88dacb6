"""``EntityGraph``: entities, their names, entry links and relations, on every backend.

What a view sees of the graph is what its entries link to; links go with their entry
(deleted, re-linked, erased); keys merge spellings; nothing crosses users.
"""

from __future__ import annotations

import pytest

from memvault import ConflictError, NotFoundError, Store
from memvault.model import Kind
from memvault.stores.graph_values import Mention, RelationMention
from memvault.stores.protocols import EntityGraph
from memvault.stores.values import EntryFilter, View

from .support import OWNER, SHARED, entry, put


def m(key: str, kind: str = "unknown", *, override: bool = False) -> Mention:
    return Mention(key, key.title(), kind, override)


def graph(store: Store) -> EntityGraph:
    assert isinstance(store, EntityGraph)
    return store


def names(store: Store, view: View, **kw: object) -> dict[str, int]:
    return {e.name: e.entries for e in graph(store).entities(view, **kw)}  # type: ignore[arg-type]


def test_every_backend_keeps_the_graph(store: Store) -> None:
    assert isinstance(store, EntityGraph)


def test_links_are_seen_through_their_entries_scope(store: Store) -> None:
    g = graph(store)
    put(
        store,
        entry("e1", "Alice and Zeus"),
        entry("e2", "Zeus again", agent_id="a1"),
        entry("e1", "Bob's own Zeus", user="bob"),
    )
    g.link_entities(
        "alice",
        "e1",
        [m("alice", "person"), m("zeus")],
        [RelationMention("alice", "zeus", "works_on")],
    )
    g.link_entities("alice", "e2", [m("zeus", "project")])
    g.link_entities("bob", "e1", [m("zeus")])

    assert names(store, OWNER) == {"Zeus": 2, "Alice": 1}
    assert names(store, SHARED) == {"Alice": 1, "Zeus": 1}
    assert names(store, View("alice", "a1")) == {"Zeus": 2, "Alice": 1}
    assert names(store, View("bob", all_agents=True)) == {"Zeus": 1}
    assert names(store, View("carol", all_agents=True)) == {}
    zeus = g.find_entities("alice", ["zeus", "nobody"])
    assert list(zeus) == ["zeus"]
    assert zeus["zeus"] != g.find_entities("bob", ["zeus"])["zeus"]
    # An unknown type is filled in by a later mention; a known one stays.
    types = {e.name: e.type for e in g.entities(OWNER)}
    assert types == {"Alice": "person", "Zeus": "project"}
    rel = g.entity_relations(OWNER, [zeus["zeus"]])
    assert [(r.source, r.type, r.target, r.entry_id) for r in rel] == [
        ("Alice", "works_on", "Zeus", "e1")
    ]
    assert g.entity_relations(View("bob", all_agents=True), [zeus["zeus"]]) == []


def test_linked_entries_rank_by_weight_and_honour_the_filter(store: Store) -> None:
    g = graph(store)
    put(
        store,
        entry("e1", "zeus and apollo", seconds=1),
        entry("e2", "zeus", seconds=2, kind=Kind.PROJECT),
        entry("e3", "apollo", seconds=3),
        entry("e4", "nothing", seconds=4),
    )
    g.link_entities("alice", "e1", [m("zeus"), m("apollo")])
    g.link_entities("alice", "e2", [m("zeus")])
    g.link_entities("alice", "e3", [m("apollo")])
    ids = g.find_entities("alice", ["zeus", "apollo"])
    weights = {ids["zeus"]: 1.0, ids["apollo"]: 0.5}
    found = g.linked_entries(OWNER, weights, limit=10)
    assert [(e.id, s) for e, s in found] == [("e1", 1.5), ("e2", 1.0), ("e3", 0.5)]
    assert [e.id for e, _ in g.linked_entries(OWNER, weights, limit=2)] == ["e1", "e2"]
    only = g.linked_entries(OWNER, weights, flt=EntryFilter(kind=Kind.PROJECT), limit=1)
    assert [e.id for e, _ in only] == ["e2"]
    assert g.linked_entries(View("bob", all_agents=True), weights) == []


def test_relinking_replaces_and_deleting_unlinks_and_prunes(store: Store) -> None:
    g = graph(store)
    put(store, entry("e1", "one"), entry("e2", "two"))
    g.link_entities("alice", "e1", [m("zeus"), m("hera")], [RelationMention("zeus", "hera")])
    g.link_entities("alice", "e2", [m("zeus")])
    g.link_entities("alice", "e1", [m("apollo")])
    assert names(store, OWNER) == {"Apollo": 1, "Zeus": 1}
    assert "hera" not in g.find_entities("alice", ["hera"])  # no link left: pruned
    assert g.entity_relations(OWNER, list(g.find_entities("alice", ["zeus"]).values())) == []
    g.unlink_entries("alice", ["e1"])
    store.delete(OWNER, ["e1"])
    assert names(store, OWNER) == {"Zeus": 1}
    assert g.find_entities("alice", ["apollo"]) == {}
    # A delete alone (the cascade) leaves no link behind either.
    store.delete(OWNER, ["e2"])
    assert names(store, OWNER) == {}


def test_aliases_and_merges(store: Store) -> None:
    g = graph(store)
    put(store, entry("e1", "one"), entry("e2", "two"), entry("e3", "three"))
    g.link_entities("alice", "e1", [m("nyc")], [])
    g.link_entities(
        "alice", "e2", [m("new york"), m("bob")], [RelationMention("bob", "new york", "lives_in")]
    )
    g.link_entities("alice", "e3", [m("nyc"), m("new york")])
    ids = g.find_entities("alice", ["nyc", "new york", "bob"])
    g.add_alias("alice", ids["nyc"], "the big apple")
    g.add_alias("alice", ids["nyc"], "the big apple")  # again: nothing changes
    assert g.find_entities("alice", ["the big apple"]) == {"the big apple": ids["nyc"]}
    with pytest.raises(ConflictError):
        g.add_alias("alice", ids["nyc"], "bob")
    with pytest.raises(NotFoundError):
        g.add_alias("alice", "no-such-entity", "x")
    with pytest.raises(NotFoundError):
        g.add_alias("bob", ids["nyc"], "x")  # another user's entity is not there
    g.merge_entities("alice", ids["nyc"], ids["new york"])
    assert g.find_entities("alice", ["new york"]) == {"new york": ids["nyc"]}
    merged = g.entities(OWNER, ids=[ids["nyc"]])[0]
    assert merged.entries == 3
    assert set(merged.aliases) == {"nyc", "new york", "the big apple"}
    rel = g.entity_relations(OWNER, [ids["nyc"]])
    assert [(r.source, r.type, r.target_id) for r in rel] == [("Bob", "lives_in", ids["nyc"])]
    assert {e.name for e in g.entities(OWNER, prefix="the big")} == {"Nyc"}
    with pytest.raises(NotFoundError):
        g.merge_entities("alice", ids["nyc"], ids["new york"])  # gone


def test_erasing_a_user_erases_the_graph(store: Store) -> None:
    g = graph(store)
    put(store, entry("e1", "one"), entry("e1", "one", user="bob"))
    g.link_entities("alice", "e1", [m("zeus")])
    g.link_entities("bob", "e1", [m("zeus")])
    store.erase_user("alice")
    assert g.find_entities("alice", ["zeus"]) == {}
    assert names(store, View("bob", all_agents=True)) == {"Zeus": 1}


def test_a_failed_block_leaves_no_links(store: Store) -> None:
    g = graph(store)
    put(store, entry("e1", "one"))
    with pytest.raises(RuntimeError), store.atomic():
        g.link_entities("alice", "e1", [m("zeus")])
        raise RuntimeError("undo")
    assert names(store, OWNER) == {}
    assert g.find_entities("alice", ["zeus"]) == {}


def test_entry_links_read_back_what_was_linked(store: Store) -> None:
    g = graph(store)
    put(store, entry("e1", "one"), entry("e2", "two"), entry("e1", "b", user="bob"))
    g.link_entities("alice", "e1", [m("zeus"), m("hera")], [RelationMention("zeus", "hera", "wed")])
    g.link_entities("bob", "e1", [m("apollo")])
    ids = g.find_entities("alice", ["zeus", "hera"])
    links, rels = g.entry_links("alice", ["e1", "e2", "nope"])
    assert links == {"e1": sorted([ids["zeus"], ids["hera"]])}
    assert rels == [("e1", ids["zeus"], ids["hera"], "wed")]
    assert g.entry_links("carol", ["e1"]) == ({}, [])
