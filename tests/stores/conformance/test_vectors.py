"""``VectorStore``: one vector per entry and model, dropped when the entry's text changes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from memvault import MemoryEntry, Store, Tier
from memvault.stores.protocols import VectorStore
from memvault.stores.values import SearchDoc, VectorItem

from .support import MODEL, OWNER, doc, entry, ids, put, stored, vec


def test_every_backend_is_a_vector_store(store: Store) -> None:
    assert isinstance(store, VectorStore)


def test_put_and_load_vectors_per_user_and_model(store: Store) -> None:
    e1, e2, b1 = put(
        store,
        entry("e1", "one"),
        entry("e2", "two", agent_id="a1"),
        entry("e1", "bob's", user="bob"),
    )
    written = store.put_vectors(
        "alice",
        MODEL,
        [VectorItem("e1", e1.updated_at, vec(1, 0)), VectorItem("e2", e2.updated_at, vec(0, 1))],
    )
    assert sorted(written) == ["e1", "e2"]
    assert store.put_vectors("bob", "other-model", [VectorItem("e1", b1.updated_at, vec(3, 3))])

    assert stored(store) == {"e1": (None, (1.0, 0.0)), "e2": ("a1", (0.0, 1.0))}
    assert stored(store, "bob") == {}
    assert stored(store, "bob", "other-model") == {"e1": (None, (3.0, 3.0))}
    assert stored(store, "carol") == {}


def test_vector_models_lists_the_users_models_only(store: Store) -> None:
    e1, e2, b1 = put(
        store, entry("e1", "one"), entry("e2", "two", agent_id="a1"), entry("e1", "b", user="bob")
    )
    assert store.vector_models("alice") == []
    store.put_vectors("alice", "zeta", [VectorItem("e1", e1.updated_at, vec(1, 0))])
    store.put_vectors("alice", MODEL, [VectorItem("e2", e2.updated_at, vec(0, 1))])
    store.put_vectors("bob", "other-model", [VectorItem("e1", b1.updated_at, vec(3, 3))])

    assert store.vector_models("alice") == [MODEL, "zeta"]
    assert store.vector_models("bob") == ["other-model"]
    assert store.vector_models("carol") == []
    store.delete(OWNER, ["e1"])
    assert store.vector_models("alice") == [MODEL]


def test_put_vectors_skips_entries_changed_since_and_other_users_entries(store: Store) -> None:
    (e1,) = put(store, entry("e1", "one"))
    stale = e1.updated_at - timedelta(seconds=1)

    assert store.put_vectors("alice", MODEL, [VectorItem("e1", stale, vec(1, 0))]) == []
    assert store.put_vectors("bob", MODEL, [VectorItem("e1", e1.updated_at, vec(1, 0))]) == []
    assert store.put_vectors("alice", MODEL, [VectorItem("nope", e1.updated_at, vec(1, 0))]) == []
    assert stored(store) == {}
    assert stored(store, "bob") == {}


def _with_vector(store: Store) -> MemoryEntry:
    (e1,) = put(store, entry("e1", "one"))
    assert store.put_vectors("alice", MODEL, [VectorItem("e1", e1.updated_at, vec(1, 0))])
    return e1


def _set(**changes: Any) -> Any:
    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(**changes, updated_at=current.updated_at + timedelta(seconds=1))
        return new, doc(new)

    return mutate


def test_changing_an_entrys_text_drops_its_vector(store: Store) -> None:
    _with_vector(store)
    store.update(OWNER, "e1", _set(content="changed"))
    assert stored(store) == {}
    assert ids(store.missing_vectors(MODEL)) == ["e1"]


def test_an_update_that_keeps_the_text_keeps_the_vector(store: Store) -> None:
    _with_vector(store)
    store.update(OWNER, "e1", _set(tier=Tier.COLD, importance=0.9))
    assert stored(store) == {"e1": (None, (1.0, 0.0))}


def test_deleting_an_entry_drops_its_vector(store: Store) -> None:
    _with_vector(store)
    store.delete(OWNER, ["e1"])
    assert stored(store) == {}


def test_missing_vectors_lists_entries_without_one_by_user_and_id(store: Store) -> None:
    put(
        store,
        entry("b", "x"),
        entry("a", "x"),
        entry("c", "x"),
        entry("a", "x", user="bob"),
    )
    (c,) = [e for e in store.list_entries(OWNER) if e.id == "c"]
    store.put_vectors("alice", MODEL, [VectorItem("c", c.updated_at, vec(1, 0))])

    def keys(entries: list[MemoryEntry]) -> list[tuple[str, str]]:
        return [(e.user_id, e.id) for e in entries]

    assert keys(store.missing_vectors(MODEL)) == [("alice", "a"), ("alice", "b"), ("bob", "a")]
    assert keys(store.missing_vectors(MODEL, limit=2)) == [("alice", "a"), ("alice", "b")]
    assert keys(store.missing_vectors(MODEL, after=("alice", "b"))) == [("bob", "a")]
    assert len(store.missing_vectors("another-model")) == 4


def test_change_counter_is_an_int(store: Store) -> None:
    assert isinstance(store.change_counter(), int)
