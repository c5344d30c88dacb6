"""``EntityGraph.link_new_entries``: a batch of new entries linked at once leaves the
graph that linking them one after another (``link_entities(..., new=True)``) leaves,
on every backend: the same entities, names, types, links, places and relations.

The batch is written in a few statements instead of several per entry (issue 29 item
5), so what one entry does to the next must still happen: a key one entry makes is an
entity the next one names; an unknown type is filled by a later mention, a known one
stays; an explicit (``override``) mention renames and retypes; each entry reads the
types as they were when it began (two names of one entity in one entry).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memvault import Store
from memvault.stores.graph_values import EntryMentions, Mention, RelationMention
from memvault.stores.protocols import EntityGraph

from .support import OWNER, entry, put

_M = Mention
_R = RelationMention

# (entry id, mentions, relations), linked in this order.
_BATCH: list[tuple[str, tuple[Mention, ...], tuple[RelationMention, ...]]] = [
    (
        "e1",
        (_M("ann", "Ann", "person"), _M("zeus", "Zeus"), _M("lisbon", "Lisbon")),
        (_R("ann", "zeus"), _R("ann", "lisbon"), _R("zeus", "lisbon")),
    ),
    # A key made by e1 named again; its unknown type filled in, a known one kept.
    ("e2", (_M("zeus", "ZEUS", "project"), _M("ann", "ann", "place")), (_R("zeus", "ann"),)),
    ("e3", (_M("zeus", "Zeus", "tool"), _M("", "nothing")), ()),
    # Stored before the batch: Hera (a person) and her alias; one entry names both
    # keys, an explicit mention first: it reads the types as they were when it began.
    (
        "e4",
        (_M("hera", "Hera Queen", "unknown", override=True), _M("queen hera", "QH", "tool")),
        (),
    ),
    # An explicit mention of a key made in the batch; a stated relation with co-mentions.
    (
        "e5",
        (_M("lisbon", "Lisboa", "place", override=True), _M("ann", "Ann"), _M("old", "Old")),
        (_R("ann", "lisbon", "lives_in"), _R("ann", "old"), _R("lisbon", "old")),
    ),
    # The same key twice in one entry (the last mention counts), and a self-relation.
    ("e6", (_M("kit", "Kit"), _M("kit", "KIT", "tool"), _M("old", "Old")), (_R("kit", "kit"),)),
    ("e7", (_M("old", "Old", "organisation"), _M("hera", "Hera")), (_R("old", "hera"),)),
]


def _fresh(make_store: Callable[[], Store]) -> tuple[Store, EntityGraph]:
    store = make_store()
    assert isinstance(store, EntityGraph)
    put(store, *(entry(f"e{n}", f"entry {n}", seconds=n) for n in range(8)))
    # Before the batch: e0 names Hera (a person) and an entity with an unknown type.
    store.link_entities("alice", "e0", [_M("hera", "Hera", "person"), _M("old", "old")])
    store.add_alias("alice", store.find_entities("alice", ["hera"])["hera"], "queen hera")
    return store, store


def _graph(store: EntityGraph) -> dict[str, Any]:
    entities = store.entities(OWNER, limit=1000)
    name = {e.id: e.name for e in entities}
    links, relations = store.entry_links("alice", [f"e{n}" for n in range(8)])
    keys = ["ann", "zeus", "lisbon", "hera", "queen hera", "old", "kit", ""]
    found = store.find_entities("alice", keys)
    return {
        "entities": sorted((e.name, e.type, e.entries, sorted(e.aliases)) for e in entities),
        "names": sorted((k, name[i]) for k, i in found.items()),
        "links": {e: sorted(name[i] for i in ids) for e, ids in links.items()},
        "relations": sorted((e, name[s], name[t], k) for e, s, t, k in relations),
    }


def test_a_batch_links_as_its_entries_one_after_another(
    make_store: Callable[[], Store],
) -> None:
    _, one_by_one = _fresh(make_store)
    for entry_id, mentions, relations in _BATCH:
        one_by_one.link_entities("alice", entry_id, mentions, relations, new=True)
    _, batch = _fresh(make_store)
    batch.link_new_entries("alice", [EntryMentions(*e) for e in _BATCH])

    want = _graph(one_by_one)
    assert _graph(batch) == want
    # The cases above happened: a type filled in, a known one kept, a rename. (Two
    # names of one entity in one entry, and one key twice, are left as each backend
    # leaves them one by one.)
    types = {n: t for n, t, *_ in want["entities"]}
    assert types["Ann"] == "person" and types["Zeus"] == "project"
    assert types["Lisboa"] == "place" and types["old"] == "organisation"


def test_an_empty_batch_changes_nothing(make_store: Callable[[], Store]) -> None:
    store, graph = _fresh(make_store)
    before = _graph(graph)
    graph.link_new_entries("alice", [])
    graph.link_new_entries("alice", [EntryMentions("e1", ())])
    assert _graph(graph) == before
    assert store.count(OWNER) == 8
