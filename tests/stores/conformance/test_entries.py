"""``EntryStore``: writing, reading, filtering, deleting and erasing entries inside a view."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from memvault import (
    ConflictError,
    DecisionStatus,
    Domain,
    Kind,
    MemClass,
    MemoryEntry,
    NotFoundError,
    Sensitivity,
    Source,
    Store,
    StoreError,
    Tier,
)
from memvault.model import EntryOrder
from memvault.stores.protocols import EntryStore
from memvault.stores.values import EntryFilter, RevealState, SearchDoc, VectorItem, View

from .support import (
    MODEL,
    OWNER,
    SHARED,
    T0,
    audit_row,
    doc,
    entry,
    hit_ids,
    ids,
    put,
    put_state,
    read_state,
    stored,
    vec,
)


def test_every_backend_is_an_entry_store(store: Store) -> None:
    assert isinstance(store, EntryStore)


def test_every_backend_satisfies_the_store_protocol(store: Store) -> None:
    assert isinstance(store, Store)


# -- insert / get ------------------------------------------------------------------


def test_get_returns_the_inserted_entry_with_every_field(store: Store) -> None:
    full = entry(
        "e1",
        "The deploy runs on Fridays",
        agent_id="a1",
        session_id="s1",
        workspace_id="w1",
        name="deploy day",
        description="when we deploy",
        kind=Kind.PROJECT,
        mem_class=MemClass.PROCESS,
        domain=Domain.WORK,
        category="ops",
        confidence=0.25,
        importance=0.75,
        tier=Tier.COLD,
        last_accessed_at=T0 + timedelta(days=1, microseconds=123),
        access_count=3,
        expires_at=T0 + timedelta(days=30),
        status=DecisionStatus.ADOPTED,
        sensitivity=Sensitivity.SENSITIVE,
        metadata={"tags": ["ops", "deploy"], "n": 1, "nested": {"ok": True}, "zh": "数据"},
        source=Source.TOOL,
    )
    minimal = entry("e2", "minimal")
    put(store, full, minimal)

    assert store.get(OWNER, "e1") == full
    assert store.get(OWNER, "e2") == minimal


def test_user_ids_names_every_user_with_an_entry_once(store: Store) -> None:
    assert store.user_ids() == []
    put(store, entry("e1", "one"), entry("e2", "two", agent_id="a1"))
    put(store, entry("e1", "bob's", user="bob"), entry("z", "zed's", user="Zed"))
    assert store.user_ids() == sorted(["alice", "bob", "Zed"])
    store.delete(View("bob", all_agents=True), ["e1"])
    assert store.user_ids() == sorted(["alice", "Zed"])


def test_user_counts_pages_users_in_user_ids_order_with_their_counts(store: Store) -> None:
    assert store.user_counts() == []
    put(store, entry("e1", "one"), entry("e2", "two", agent_id="a1"), entry("e3", "three"))
    put(store, entry("e1", "bob's", user="bob"), entry("z", "zed's", user="Zed"))
    put(store, entry("u", "unicode", user="\u00e9mile"))
    everyone = store.user_counts(limit=10)
    assert [u.user_id for u in everyone] == store.user_ids()
    assert {u.user_id: u.memories for u in everyone} == {
        "Zed": 1,
        "alice": 3,
        "bob": 1,
        "\u00e9mile": 1,
    }
    assert store.user_counts(limit=2) == everyone[:2]
    assert store.user_counts(limit=2, offset=2) == everyone[2:]
    assert store.user_counts(limit=5, offset=4) == []
    store.delete(View("bob", all_agents=True), ["e1"])
    assert "bob" not in [u.user_id for u in store.user_counts()]


def test_get_of_unknown_id_is_none(store: Store) -> None:
    put(store, entry("e1", "x"))
    assert store.get(OWNER, "nope") is None
    assert store.get(View("bob", all_agents=True), "e1") is None


def test_insert_of_nothing_is_a_no_op(store: Store) -> None:
    store.insert([])
    assert store.count(OWNER) == 0


# -- list / count / iter_entries ---------------------------------------------------


def test_list_is_newest_first_and_pages_with_limit_and_offset(store: Store) -> None:
    # Inserted out of order; e3 and e3b share a timestamp (ties are broken by id).
    put(
        store,
        entry("e2", "two", seconds=2),
        entry("e4", "four", seconds=4),
        entry("e1", "one", seconds=1),
        entry("e3b", "three b", seconds=3),
        entry("e3", "three", seconds=3),
    )
    newest_first = ["e4", "e3b", "e3", "e2", "e1"]

    assert ids(store.list_entries(OWNER)) == newest_first
    assert ids(store.list_entries(OWNER, limit=2)) == newest_first[:2]
    assert ids(store.list_entries(OWNER, limit=2, offset=2)) == newest_first[2:4]
    assert ids(store.list_entries(OWNER, limit=2, offset=4)) == newest_first[4:]
    assert store.list_entries(OWNER, limit=2, offset=5) == []


def test_list_and_count_apply_the_entry_filter(store: Store) -> None:
    put(
        store,
        entry("p1", "x", kind=Kind.PROJECT, seconds=1),
        entry("p2", "x", kind=Kind.PROJECT, tier=Tier.COLD, seconds=2),
        entry("u1", "x", kind=Kind.USER, domain=Domain.LIFE, session_id="s1", seconds=3),
        entry("f1", "x", kind=Kind.FEEDBACK, mem_class=MemClass.SHORT_TERM, seconds=4),
        entry("a1", "x", agent_id="bot", seconds=5),
    )
    cases = {
        EntryFilter(kind=Kind.PROJECT): ["p2", "p1"],
        EntryFilter(kind=Kind.PROJECT, tier=Tier.COLD): ["p2"],
        EntryFilter(tier=Tier.ACTIVE): ["a1", "f1", "u1", "p1"],
        EntryFilter(domain=Domain.LIFE): ["u1"],
        EntryFilter(domain=Domain.WORK): [],
        EntryFilter(mem_class=MemClass.SHORT_TERM): ["f1"],
        EntryFilter(session_id="s1"): ["u1"],
        EntryFilter(agent_id="bot"): ["a1"],
    }
    for flt, expected in cases.items():
        assert ids(store.list_entries(OWNER, flt)) == expected, flt
        assert store.count(OWNER, flt) == len(expected), flt
    assert store.count(OWNER) == 5


def test_list_sorts_oldest_first_or_by_last_update(store: Store) -> None:
    # e2 was written second but changed last; e3 and e3b share both times (id breaks ties).
    changed = {"e1": 10, "e2": 50, "e3": 30, "e3b": 30}
    put(
        store,
        *(
            entry(i, i, seconds=s).replace(updated_at=T0 + timedelta(seconds=changed[i]))
            for i, s in (("e3", 3), ("e1", 1), ("e3b", 3), ("e2", 2))
        ),
    )
    assert ids(store.list_entries(OWNER, order=EntryOrder.NEWEST)) == ["e3b", "e3", "e2", "e1"]
    assert ids(store.list_entries(OWNER, order=EntryOrder.OLDEST)) == ["e1", "e2", "e3", "e3b"]
    assert ids(store.list_entries(OWNER, order=EntryOrder.UPDATED)) == ["e2", "e3b", "e3", "e1"]
    # Pages follow the order, and the order composes with the filter.
    assert ids(store.list_entries(OWNER, order=EntryOrder.OLDEST, limit=2, offset=1)) == [
        "e2",
        "e3",
    ]
    late = EntryFilter(created_after=T0 + timedelta(seconds=2))
    assert ids(store.list_entries(OWNER, late, order=EntryOrder.UPDATED)) == ["e2", "e3b", "e3"]


def test_created_after_is_inclusive_and_created_before_exclusive(store: Store) -> None:
    put(store, *(entry(f"d{s}", "x", seconds=s) for s in range(5)))
    put(store, entry("theirs", "x", user="bob", seconds=2))
    at = [T0 + timedelta(seconds=s) for s in range(5)]
    cases = {
        EntryFilter(created_after=at[2]): ["d4", "d3", "d2"],
        EntryFilter(created_before=at[2]): ["d1", "d0"],
        EntryFilter(created_after=at[1], created_before=at[3]): ["d2", "d1"],
        EntryFilter(created_after=at[4] + timedelta(microseconds=1)): [],
        EntryFilter(created_after=at[1], created_before=at[3], kind=Kind.PROJECT): [],
    }
    for flt, expected in cases.items():
        assert ids(store.list_entries(OWNER, flt)) == expected, flt
        assert store.count(OWNER, flt) == len(expected), flt
        assert ids(list(store.iter_entries(OWNER, flt))) == expected[::-1], flt


def test_iter_entries_is_oldest_first_across_pages(store: Store) -> None:
    # More rows than one page (500), three per timestamp so that page boundaries
    # fall between rows with equal created_at, and another user's rows interleaved.
    mine = [entry(f"m{i:04d}", f"row {i}", seconds=i // 3) for i in range(1203)]
    theirs = [entry(f"m{i:04d}", "not alice's", user="bob", seconds=i) for i in range(0, 1203, 7)]
    store.insert([(e, doc(e)) for e in reversed(mine + theirs)])

    got = list(store.iter_entries(OWNER))

    assert ids(got) == ids(sorted(mine, key=lambda e: (e.created_at, e.id)))
    assert all(e.user_id == "alice" for e in got)
    assert store.count(OWNER) == 1203
    assert len(list(store.iter_entries(View("bob", all_agents=True)))) == len(theirs)


def test_iter_entries_applies_view_and_filter(store: Store) -> None:
    put(
        store,
        entry("s1", "x", seconds=1),
        entry("p1", "x", agent_id="a1", kind=Kind.PROJECT, seconds=2),
        entry("p2", "x", agent_id="a2", seconds=3),
    )
    assert ids(store.iter_entries(SHARED)) == ["s1"]
    assert ids(store.iter_entries(View("alice", "a1"))) == ["s1", "p1"]
    assert ids(store.iter_entries(OWNER, EntryFilter(kind=Kind.PROJECT))) == ["p1"]


# -- update ------------------------------------------------------------------------


def test_update_passes_the_current_entry_and_stores_the_result(store: Store) -> None:
    original = put(store, entry("e1", "the cat sat", metadata={"v": 1}))[0]
    seen: list[MemoryEntry] = []

    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        seen.append(current)
        new = current.replace(content="the dog barked", metadata={"v": 2}, tier=Tier.COLD)
        return new, doc(new)

    returned = store.update(OWNER, "e1", mutate)

    assert seen == [original]
    assert returned.content == "the dog barked"
    assert store.get(OWNER, "e1") == returned
    assert hit_ids(store, OWNER, "dog") == ["e1"]
    assert hit_ids(store, OWNER, "cat") == []
    assert hit_ids(store, OWNER, "dog", flt=EntryFilter(tier=Tier.COLD)) == ["e1"]
    assert hit_ids(store, OWNER, "dog", flt=EntryFilter(tier=Tier.ACTIVE)) == []


def test_touch_records_recalls_without_editing(store: Store) -> None:
    """A recall moves last_accessed_at forward (never back) and counts; the version,
    index and vector stay, and other users' entries with the same id are untouched."""
    put(store, entry("e1", "the cat sat"), entry("e1", "the cat sat", user="bob"))
    before = store.get(OWNER, "e1")
    assert before is not None and before.last_accessed_at is None
    store.put_vectors("alice", MODEL, [VectorItem("e1", before.updated_at, vec(1.0, 0.0))])
    store.touch("alice", ["e1", "e1", "missing"], T0 + timedelta(days=2))
    store.touch("alice", ["e1"], T0 + timedelta(days=1))  # an older report: no step back
    after = store.get(OWNER, "e1")
    assert after is not None
    assert after.last_accessed_at == T0 + timedelta(days=2)
    assert after.access_count == 2  # the repeated id in one call counts once
    assert after.updated_at == before.updated_at and after.content == before.content
    assert hit_ids(store, OWNER, "cat") == ["e1"]
    assert "e1" in stored(store)
    bob = store.get(View("bob", all_agents=True), "e1")
    assert bob is not None and bob.access_count == 0 and bob.last_accessed_at is None


def test_update_sees_the_previous_update(store: Store) -> None:
    put(store, entry("e1", "v0"))
    for n in range(1, 4):

        def bump(current: MemoryEntry, n: int = n) -> tuple[MemoryEntry, SearchDoc]:
            assert current.content == f"v{n - 1}"
            new = current.replace(content=f"v{n}")
            return new, doc(new)

        store.update(OWNER, "e1", bump)
    assert store.get(OWNER, "e1").content == "v3"  # type: ignore[union-attr]


def test_exception_inside_mutate_changes_nothing(store: Store) -> None:
    original = put(store, entry("e1", "the cat sat"))[0]

    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        store.update(OWNER, "e1", mutate)

    assert store.get(OWNER, "e1") == original
    assert hit_ids(store, OWNER, "cat") == ["e1"]


def test_update_may_not_change_id_or_owner(store: Store) -> None:
    original = put(store, entry("e1", "the cat sat"))[0]
    for changes in ({"id": "e2"}, {"user_id": "bob"}):

        def mutate(current: MemoryEntry, c: dict[str, Any] = changes) -> Any:
            new = current.replace(content="changed", **c)
            return new, doc(new)

        with pytest.raises(ValueError):
            store.update(OWNER, "e1", mutate)
    assert store.get(OWNER, "e1") == original
    assert store.get(OWNER, "e2") is None
    assert store.count(View("bob", all_agents=True)) == 0


def test_update_outside_the_view_is_not_found_and_does_not_call_mutate(store: Store) -> None:
    put(store, entry("e1", "private", agent_id="a1"), entry("b1", "bob's", user="bob"))

    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        raise AssertionError(f"mutate called with {current.id} outside the view")

    for view, entry_id in [
        (View("alice", "a2"), "e1"),  # another agent's private entry
        (SHARED, "e1"),  # the shared space does not include private entries
        (OWNER, "b1"),  # another user's entry
        (OWNER, "missing"),
    ]:
        with pytest.raises(NotFoundError):
            store.update(view, entry_id, mutate)


# -- delete ------------------------------------------------------------------------


def test_delete_returns_the_ids_deleted_and_leaves_the_rest(store: Store) -> None:
    put(store, entry("e1", "one"), entry("e2", "two"), entry("e3", "three"))

    deleted = store.delete(OWNER, ["e1", "e3", "missing", "e1"])

    assert sorted(deleted) == ["e1", "e3"]
    assert ids(store.list_entries(OWNER)) == ["e2"]
    assert hit_ids(store, OWNER, "one", "three") == []
    assert store.delete(OWNER, ["e1"]) == []
    assert store.delete(OWNER, []) == []


def test_delete_leaves_ids_outside_the_view_alone(store: Store) -> None:
    put(
        store,
        entry("e1", "alice shared"),
        entry("p1", "alice private a1", agent_id="a1"),
        entry("e1", "bob shared", user="bob"),
    )

    assert store.delete(View("alice", "a2"), ["p1"]) == []
    assert store.delete(SHARED, ["p1"]) == []
    assert store.delete(View("carol", all_agents=True), ["e1", "p1"]) == []
    assert store.count(OWNER) == 2

    assert store.delete(View("alice", "a1"), ["e1", "p1"]) in (["e1", "p1"], ["p1", "e1"])
    assert store.count(OWNER) == 0
    assert store.get(View("bob", all_agents=True), "e1") is not None


def test_delete_many_ids_crosses_pages(store: Store) -> None:
    put(store, *[entry(f"e{i:04d}", f"row {i}") for i in range(1100)])
    doomed = [f"e{i:04d}" for i in range(0, 1100, 2)] + [f"x{i}" for i in range(300)]

    deleted = store.delete(OWNER, doomed)

    assert sorted(deleted) == sorted(f"e{i:04d}" for i in range(0, 1100, 2))
    assert store.count(OWNER) == 550


# -- get_many ----------------------------------------------------------------------


def test_get_many_returns_the_visible_entries_among_the_ids(store: Store) -> None:
    put(
        store,
        entry("s1", "shared"),
        entry("p1", "a1's", agent_id="a1"),
        entry("p2", "a2's", agent_id="a2"),
        entry("s1", "bob's s1", user="bob"),
        entry("b2", "bob's b2", user="bob"),
    )
    asked = ["s1", "p1", "p2", "b2", "missing", "s1"]

    assert sorted(ids(store.get_many(OWNER, asked))) == ["p1", "p2", "s1"]
    assert sorted(ids(store.get_many(View("alice", "a1"), asked))) == ["p1", "s1"]
    assert {e.user_id for e in store.get_many(OWNER, asked)} == {"alice"}
    assert store.get_many(OWNER, []) == []


# -- conflicts and atomicity -------------------------------------------------------


def test_duplicate_id_within_one_batch_is_a_conflict_and_nothing_is_stored(
    store: Store,
) -> None:
    batch = [entry("n1", "quokka"), entry("n2", "wombat"), entry("n1", "platypus")]
    with pytest.raises(ConflictError):
        put(store, *batch)
    assert store.count(OWNER) == 0
    assert hit_ids(store, OWNER, "quokka", "wombat", "platypus") == []


def test_inserting_an_existing_id_is_a_conflict_and_nothing_is_stored(store: Store) -> None:
    original = put(store, entry("e1", "original"))[0]
    with pytest.raises(ConflictError):
        put(store, entry("n1", "quokka"), entry("e1", "replacement"), entry("n2", "wombat"))
    assert ids(store.list_entries(OWNER)) == ["e1"]
    assert store.get(OWNER, "e1") == original
    assert hit_ids(store, OWNER, "quokka", "wombat", "replacement") == []


# -- scope -------------------------------------------------------------------------


def test_the_same_id_for_two_users_are_two_separate_entries(store: Store) -> None:
    alice_e, bob_e = put(
        store, entry("same", "alice zebra"), entry("same", "bob zebra", user="bob")
    )
    bob = View("bob", all_agents=True)

    assert store.get(OWNER, "same") == alice_e
    assert store.get(bob, "same") == bob_e
    assert store.list_entries(OWNER) == [alice_e]
    assert list(store.iter_entries(bob)) == [bob_e]
    assert [e for e, _ in store.keyword_search(OWNER, ["zebra"])] == [alice_e]

    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content="alice changed")
        return new, doc(new)

    store.update(OWNER, "same", mutate)
    assert store.get(bob, "same") == bob_e

    assert store.delete(OWNER, ["same"]) == ["same"]
    assert store.get(bob, "same") == bob_e
    assert [e for e, _ in store.keyword_search(bob, ["zebra"])] == [bob_e]


def test_a_view_never_returns_another_users_rows(store: Store) -> None:
    put(
        store,
        *[entry(f"a{i}", f"zebra apple {i}", seconds=i) for i in range(5)],
        *[entry(f"a{i}", f"zebra apple bob {i}", user="bob", agent_id="x") for i in range(8)],
    )
    for view in (OWNER, SHARED, View("alice", "x")):
        assert {e.user_id for e in store.list_entries(view)} == {"alice"}
        assert {e.user_id for e in store.iter_entries(view)} == {"alice"}
        assert {e.user_id for e, _ in store.keyword_search(view, ["zebra", "bob"])} == {"alice"}
        assert store.count(view) == 5


# -- values and lifecycle ----------------------------------------------------------


def test_changing_a_returned_entrys_metadata_does_not_change_the_store(store: Store) -> None:
    inserted = entry("e1", "x", metadata={"tags": ["a"]})
    put(store, inserted)
    inserted.metadata["tags"].append("from-insert")
    fetched = store.get(OWNER, "e1")
    assert fetched is not None
    fetched.metadata["tags"].append("from-get")

    assert store.get(OWNER, "e1").metadata == {"tags": ["a"]}  # type: ignore[union-attr]


def test_a_closed_store_raises_store_error(store: Store) -> None:
    put(store, entry("e1", "x"))
    store.close()
    with pytest.raises(StoreError):
        store.get(OWNER, "e1")
    with pytest.raises(StoreError):
        put(store, entry("e2", "y"))


# -- erase_user ------------------------------------------------------------------


def test_erase_user_removes_everything_of_that_user_only(store: Store) -> None:
    put(
        store,
        entry("a", "erasable words"),
        entry("b", "more erasable words"),
        entry("a", "erasable words of bob", user="bob"),
    )
    (a,) = [e for e in store.list_entries(OWNER) if e.id == "a"]
    store.put_vectors("alice", "m", [VectorItem("a", a.updated_at, np.ones(4, np.float32))])
    store.set_reveal_secret("alice", b"salt", b"digest")
    store.set_reveal_secret("bob", b"salt", b"digest")
    store.change_reveal("alice", "a", put_state(RevealState(1, T0, None)))
    store.append_audit(audit_row("bob", "kept"))

    assert sorted(store.erase_user("alice")) == ["a", "b"]
    assert store.count(OWNER) == 0 and store.get(OWNER, "a") is None
    assert hit_ids(store, OWNER, "erasable") == []
    assert hit_ids(store, View("bob", all_agents=True), "erasable") == ["a"]
    assert store.load_vectors("alice", "m").ids == []
    assert store.reveal_secret("alice") is None and store.reveal_secret("bob") is not None
    assert read_state(store, "alice", "a") == RevealState()
    assert [r.action for r in store.audit_log("alice")] == ["look"]  # only the read above
    assert [r.action for r in store.audit_log("bob")] == ["kept"]
    assert store.erase_user("nobody") == []


# -- validity ----------------------------------------------------------------------


def test_valid_at_leaves_out_entries_expired_by_then(store: Store) -> None:
    now = T0 + timedelta(days=10)
    put(
        store,
        entry("forever", "x", seconds=1),
        entry("expired", "x", seconds=2, expires_at=now - timedelta(seconds=1)),
        entry("at-now", "x", seconds=3, expires_at=now),  # expires_at <= valid_at: gone
        entry("later", "x", seconds=4, expires_at=now + timedelta(microseconds=1)),
        entry("project", "x", seconds=5, kind=Kind.PROJECT, expires_at=now - timedelta(days=1)),
    )
    valid = EntryFilter(valid_at=now)
    assert ids(store.list_entries(OWNER, valid)) == ["later", "forever"]
    assert ids(store.list_entries(OWNER, valid, limit=1)) == ["later"]
    assert store.count(OWNER, valid) == 2
    assert ids(store.iter_entries(OWNER, valid)) == ["forever", "later"]
    assert store.count(OWNER, EntryFilter(kind=Kind.PROJECT, valid_at=now)) == 0
    assert store.count(OWNER, EntryFilter(valid_at=T0)) == 5  # before any expiry
    assert store.count(OWNER) == 5  # no valid_at: expired entries are still there
    assert valid.matches(store.get(OWNER, "later"))  # type: ignore[arg-type]
    assert not valid.matches(store.get(OWNER, "at-now"))  # type: ignore[arg-type]


def test_a_views_count_is_its_entries_after_writes_and_deletes(store: Store) -> None:
    # SQLite and PostgreSQL read an unfiltered count from the keyword index's kept
    # counts: they must follow every write, delete and erasure like the entries.
    put(
        store,
        *(entry(f"s{i}", "shared") for i in range(3)),
        *(entry(f"a{i}", "mine", agent_id="a1") for i in range(2)),
        entry("b1", "theirs", agent_id="a2"),
        entry("o1", "bob's", user="bob"),
    )
    store.delete(OWNER, ["s0", "a1"])
    views = (OWNER, SHARED, View("alice", "a1"), View("alice", "a2"), View("bob"), View("carol"))

    def check() -> None:
        for view in views:
            assert store.count(view) == len(list(store.iter_entries(view))), view

    check()
    assert [store.count(v) for v in views] == [4, 2, 3, 3, 1, 0]
    store.delete(View("alice", "a2"), ["b1", "s1"])
    check()
    assert store.count(OWNER) == 2
