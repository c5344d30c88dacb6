"""``EntityGraph``: entities, their names, entry links and relations, on every backend.

What a view sees of the graph is what its entries link to; links go with their entry
(deleted, re-linked, erased); keys merge spellings; nothing crosses users.
"""

from __future__ import annotations

import pytest

from memvault import ConflictError, NotFoundError, Store
from memvault.model import Kind
from memvault.retrieval.graph import RelationCounts
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


def _co(*keys: str) -> list[RelationMention]:
    """What extraction states of names in text order: each related to every later one."""
    return [RelationMention(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]


def _said(store: Store, entry_ids: list[str]) -> set[tuple[str, str, str, str]]:
    """(entry, source, target, type) by name, as ``entry_links`` reads them back."""
    g = graph(store)
    _, rels = g.entry_links("alice", entry_ids)
    ids = {e.id: e.name for e in g.entities(OWNER, limit=1000)}
    return {(e, ids[s], ids[t], k) for e, s, t, k in rels}


def test_co_mentions_read_back_as_stated_whatever_keeps_them(store: Store) -> None:
    # Co-mentions are kept as places on the links (stores.graph_values), the rest as
    # rows: what reads give back is exactly what was stated, one direction each.
    g = graph(store)
    put(store, entry("e1", "one"), entry("e2", "two", agent_id="a1"), entry("e1", "b", user="bob"))
    stated = [
        *_co("ann", "bo", "cy", "di"),
        RelationMention("di", "ann"),  # an LLM's: the other way round
        RelationMention("ann", "di", "works_with"),
    ]
    g.link_entities("alice", "e1", [m("ann"), m("bo"), m("cy"), m("di"), m("ed")], stated)
    g.link_entities("alice", "e2", [m("ed"), m("ann")], _co("ed", "ann"))
    g.link_entities("bob", "e1", [m("ann"), m("cy")], _co("cy", "ann"))
    w = "mentioned_with"
    assert _said(store, ["e1", "e2"]) == {
        *(("e1", a.title(), b.title(), w) for a, b in [("ann", "bo"), ("ann", "cy")]),
        *(("e1", a.title(), b.title(), w) for a, b in [("ann", "di"), ("bo", "cy")]),
        *(("e1", a.title(), b.title(), w) for a, b in [("bo", "di"), ("cy", "di")]),
        ("e1", "Di", "Ann", w),
        ("e1", "Ann", "Di", "works_with"),
        ("e2", "Ed", "Ann", w),
    }
    ids = g.find_entities("alice", ["ann", "ed", "cy"])
    rel = g.entity_relations(OWNER, [ids["ed"], ids["cy"]])
    assert [(r.source, r.type, r.target, r.entry_id) for r in rel if r.type == w] == [
        (r.source, r.type, r.target, r.entry_id)
        for r in sorted(rel, key=lambda r: (r.source_id, r.target_id, r.type, r.entry_id))
    ]
    assert {(r.source, r.type, r.target, r.entry_id) for r in rel} == {
        ("Ann", w, "Cy", "e1"),
        ("Bo", w, "Cy", "e1"),
        ("Cy", w, "Di", "e1"),
        ("Ed", w, "Ann", "e2"),
    }
    # Another agent's entry, another user's: not seen.
    assert {r.entry_id for r in g.entity_relations(SHARED, [ids["ed"], ids["ann"]])} == {"e1"}
    bob = g.find_entities("bob", ["ann"])["ann"]
    rel = g.entity_relations(View("bob", all_agents=True), [bob])
    assert [(r.source, r.target, r.entry_id) for r in rel] == [("Cy", "Ann", "e1")]
    assert g.entity_relations(View("carol", all_agents=True), [ids["ann"]]) == []


def test_co_mentions_of_two_names_of_one_entity_and_after_a_merge(store: Store) -> None:
    g = graph(store)
    put(store, entry("e1", "one"), entry("e2", "two"), entry("e3", "three"))
    g.link_entities("alice", "e1", [m("nyc")])
    g.add_alias("alice", g.find_entities("alice", ["nyc"])["nyc"], "big apple")
    # "nyc" and "big apple" name one entity, before and after "bob": both directions.
    g.link_entities(
        "alice", "e2", [m("nyc"), m("bob"), m("big apple")], _co("nyc", "bob", "big apple")
    )
    g.link_entities("alice", "e3", [m("pat"), m("quin"), m("ray")], _co("pat", "quin", "ray"))
    w = "mentioned_with"
    assert _said(store, ["e2"]) == {("e2", "Nyc", "Bob", w), ("e2", "Bob", "Nyc", w)}
    ids = g.find_entities("alice", ["pat", "ray", "bob", "nyc"])
    g.merge_entities("alice", ids["pat"], ids["ray"])  # ray's relations move to pat
    g.merge_entities("alice", ids["nyc"], ids["bob"])
    assert _said(store, ["e2", "e3"]) == {("e3", "Pat", "Quin", w), ("e3", "Quin", "Pat", w)}
    rel = g.entity_relations(OWNER, list(g.find_entities("alice", ["quin"]).values()))
    assert sorted((r.source, r.target) for r in rel) == [("Pat", "Quin"), ("Quin", "Pat")]


@pytest.mark.sql_only  # the memory store counts through entity_relations (the channel's)
def test_relation_counts_count_what_entity_relations_gives(store: Store) -> None:
    # The graph channel counts its neighbours' relations in the server (no names, no
    # rows): the numbers must be what the relations read one by one give, in every view.
    g = graph(store)
    put(
        store,
        *(entry(f"e{i}", "text") for i in range(1, 5)),
        entry("e5", "theirs", agent_id="a1"),
        entry("e1", "bob's", user="bob"),
    )
    g.link_entities("alice", "e1", [m("nyc")])
    g.add_alias("alice", g.find_entities("alice", ["nyc"])["nyc"], "big apple")
    g.link_entities(
        "alice", "e2", [m("nyc"), m("bob"), m("big apple")], _co("nyc", "bob", "big apple")
    )
    g.link_entities(
        "alice",
        "e3",
        [m("ann"), m("bob"), m("cy"), m("di")],
        [*_co("ann", "bob", "cy", "di"), RelationMention("di", "ann"), RelationMention("cy", "cy")],
    )
    g.link_entities(
        "alice",
        "e4",
        [m("pat"), m("ann"), m("ray")],
        [*_co("pat", "ann", "ray"), *_co("ray", "nyc")],
    )
    g.link_entities(
        "alice",
        "e5",
        [m("ann"), m("nyc")],
        [*_co("ann", "nyc"), RelationMention("nyc", "ann", "knows")],
    )
    g.link_entities("bob", "e1", [m("ann"), m("nyc")], _co("ann", "nyc"))
    ids = g.find_entities("alice", ["nyc", "bob", "ann", "cy", "di", "pat", "ray"])
    g.merge_entities("alice", ids.pop("pat"), ids["ray"])
    assert isinstance(store, RelationCounts)
    counts = store.relation_counts
    for view in (OWNER, SHARED, View("alice", "a1"), View("bob", all_agents=True)):
        for wanted in (sorted(ids.values()), [ids["ann"]], [ids["nyc"], ids["cy"]]):
            expected: dict[tuple[str, str], int] = {}
            for r in g.entity_relations(view, wanted):
                for end, other in ((r.source_id, r.target_id), (r.target_id, r.source_id)):
                    if end in wanted and other != end:
                        expected[(end, other)] = expected.get((end, other), 0) + 1
            assert counts(view, wanted) == expected
    assert counts(OWNER, [ids["ann"]])[(ids["ann"], ids["di"])] == 2  # either way, one each
    assert counts(View("carol", all_agents=True), [ids["ann"]]) == {}


@pytest.mark.sql_only  # the memory store has no older vaults
def test_co_mention_rows_of_an_older_vault_become_places(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The schema step of every SQL backend (stores.sql.co_mentions.fold_stored) on rows
    # as an older memvault stored them: every read gives back the same.
    from memvault.stores.sql import co_mentions
    from memvault.stores.sql.co_mentions import fold_stored
    from memvault.stores.sql.graph import SQLGraph

    assert isinstance(store, SQLGraph)
    monkeypatch.setattr(co_mentions, "_FOLD_PAGE", 1)  # an entry a page: the paging runs
    g = graph(store)
    put(store, entry("e1", "one"), entry("e2", "two"), entry("e1", "b", user="bob"))
    g.link_entities(
        "alice",
        "e1",
        [m("ann"), m("bo"), m("cy"), m("di")],
        [*_co("ann", "bo", "cy"), RelationMention("di", "ann"), RelationMention("bo", "di", "x")],
    )
    g.link_entities("alice", "e2", [m("cy"), m("ann")], _co("cy", "ann"))
    g.link_entities("bob", "e1", [m("ann"), m("cy")], _co("ann", "cy"))
    users = ("alice", "bob")
    before = {u: g.entry_links(u, ["e1", "e2"]) for u in users}
    ids = {u: sorted(g.find_entities(u, ["ann", "bo", "cy", "di"]).values()) for u in users}
    views = {u: View(u, all_agents=True) for u in users}
    shown = {u: g.entity_relations(views[u], ids[u]) for u in users}
    mk = store.dialect.mark
    places = "user_id, entry_id, entity_id, co_first, co_last"
    rows = "user_id, entry_id, source_id, target_id, rel_type"
    with store._writing("ageing the vault") as conn:  # as an older memvault kept it
        placed = set(map(tuple, conn.rows(f"SELECT {places} FROM graph_links")))
        kept = set(map(tuple, conn.rows(f"SELECT {rows} FROM graph_relations")))
        assert {r[4] for r in kept} == {"mentioned_with", "x"}  # the LLM's and another type
        conn.run("UPDATE graph_links SET co_first = NULL, co_last = NULL")
        conn.many(
            "INSERT INTO graph_relations (user_id, entry_id, source_id, target_id, rel_type) "
            f"VALUES ({mk}, {mk}, {mk}, {mk}, {mk})",
            [
                (u, e, s, t, k)
                for u in users
                for e, s, t, k in before[u][1]
                if k == "mentioned_with" and (u, e, s, t, k) not in kept
            ],
        )
        every = sum(len(before[u][1]) for u in users)
        assert len(conn.rows("SELECT 1 FROM graph_relations")) == every == 7
        fold_stored(conn.rows, conn.many, mk)
        fold_stored(conn.rows, conn.many, mk)  # again: nothing changes
        assert set(map(tuple, conn.rows(f"SELECT {places} FROM graph_links"))) == placed
        assert set(map(tuple, conn.rows(f"SELECT {rows} FROM graph_relations"))) == kept
    assert {u: g.entry_links(u, ["e1", "e2"]) for u in users} == before
    assert {u: g.entity_relations(views[u], ids[u]) for u in users} == shown
