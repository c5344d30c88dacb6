"""``EntryHistory`` and the validity filters: versions kept per entry, in order, inside
their transaction, gone with their entry; superseded entries left out inside the query."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memvault import NotFoundError, Store
from memvault.stores.protocols import EntryHistory
from memvault.stores.values import EntryFilter, StoredVersion

from .support import OWNER, SHARED, T0, entry, hit_ids, ids, put

DAY = timedelta(days=1)


def version(e_id: str, content: str, at_days: int, *, user: str = "alice") -> StoredVersion:
    state = entry(e_id, content, user=user, metadata={"n": at_days})
    return StoredVersion(
        user, e_id, T0 + at_days * DAY, "owner", "update", ("content", "metadata"), state
    )


def test_every_backend_keeps_versions(store: Store) -> None:
    assert isinstance(store, EntryHistory)


def test_versions_come_back_in_order_as_they_were_kept(store: Store) -> None:
    put(store, entry("a", "now"), entry("b", "other"))
    store.add_version(version("a", "first", 1))
    store.add_version(version("b", "b before", 1))
    store.add_version(version("a", "second", 2))
    found = store.versions("alice", ["b", "a", "missing"])
    assert [(v.entry_id, v.seq, v.entry.content) for v in found] == [
        ("a", 1, "first"),
        ("a", 2, "second"),
        ("b", 1, "b before"),
    ]
    first = found[0]
    assert first.at == T0 + DAY and first.actor == "owner" and first.action == "update"
    assert first.changed == ("content", "metadata")
    assert first.entry == entry("a", "first", metadata={"n": 1})  # every field round-trips


def test_versions_belong_to_their_user(store: Store) -> None:
    put(store, entry("a", "alice's"), entry("a", "bob's", user="bob"))
    store.add_version(version("a", "alice before", 1))
    assert store.versions("bob", ["a"]) == []
    with pytest.raises(NotFoundError):
        store.add_version(version("nope", "no such entry", 1))
    with pytest.raises(NotFoundError):
        store.add_version(version("a", "carol has no a", 1, user="carol"))


def test_a_version_is_part_of_the_enclosing_transaction(store: Store) -> None:
    put(store, entry("a", "now"))
    with pytest.raises(RuntimeError), store.atomic():
        store.add_version(version("a", "first", 1))
        raise RuntimeError("the change failed")
    assert store.versions("alice", ["a"]) == []
    with store.atomic():
        store.add_version(version("a", "first", 1))
    assert [v.seq for v in store.versions("alice", ["a"])] == [1]


def test_deleting_or_erasing_an_entry_removes_its_versions(store: Store) -> None:
    put(store, entry("a", "one"), entry("b", "two"), entry("c", "bob's", user="bob"))
    for e_id in ("a", "b"):
        store.add_version(version(e_id, "before", 1))
    store.add_version(version("c", "before", 1, user="bob"))
    assert store.delete(OWNER, ["a"]) == ["a"]
    assert [v.entry_id for v in store.versions("alice", ["a", "b"])] == ["b"]
    put(store, entry("a", "a new entry with the old id"))
    assert store.versions("alice", ["a"]) == []  # nothing of the deleted one comes back
    store.erase_user("alice")
    assert store.versions("alice", ["a", "b"]) == []
    assert [v.entry_id for v in store.versions("bob", ["c"])] == ["c"]


def test_superseded_entries_are_left_out_inside_every_query(store: Store) -> None:
    put(
        store,
        entry("old", "alice lives in berlin", valid_to=T0 + DAY, superseded_by="new"),
        entry("new", "alice lives in munich", seconds=86400, supersedes="old"),
        entry("later", "alice lives in lisbon", seconds=3 * 86400, valid_from=T0 + 3 * DAY),
    )
    now = EntryFilter(current_at=T0 + 2 * DAY)
    assert sorted(ids(store.list_entries(OWNER, now))) == ["later", "new"]
    assert store.count(OWNER, now) == 2
    assert hit_ids(store, SHARED, "lives", flt=now, limit=1) in (["new"], ["later"])
    assert sorted(hit_ids(store, SHARED, "lives", flt=now)) == ["later", "new"]
    # Before it was superseded, the old entry was current.
    before = EntryFilter(current_at=T0 + DAY / 2)
    assert sorted(ids(store.list_entries(OWNER, before))) == ["later", "new", "old"]
    # At a moment: written by then, current from then, not yet superseded.
    then = EntryFilter(current_at=T0 + DAY / 2, existed_at=T0 + DAY / 2)
    assert ids(store.list_entries(OWNER, then)) == ["old"]
    assert hit_ids(store, SHARED, "lives", flt=then) == ["old"]
    assert store.count(OWNER, EntryFilter(existed_at=T0 + 2 * DAY)) == 2
    assert all(now.matches(e) == (e.id != "old") for e in store.list_entries(OWNER))
