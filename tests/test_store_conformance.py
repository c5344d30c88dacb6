"""The ``Store`` contract, run on every backend in ``conftest.STORE_BACKENDS``.

These tests talk to a store directly (no ``Vault``), building entries and their
``SearchDoc`` by hand, so they pin down what any new backend has to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt
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
from memvault.stores.base import EntryFilter, KeywordWeights, SearchDoc, VectorItem, View
from memvault.text import index_text

T0 = datetime(2026, 1, 1, tzinfo=UTC)

OWNER = View("alice", all_agents=True)
SHARED = View("alice")


def entry(
    entry_id: str,
    content: str,
    *,
    user: str = "alice",
    seconds: float = 0,
    **fields: Any,
) -> MemoryEntry:
    at = T0 + timedelta(seconds=seconds)
    return MemoryEntry(
        id=entry_id, user_id=user, content=content, created_at=at, updated_at=at, **fields
    )


def doc(e: MemoryEntry) -> SearchDoc:
    return SearchDoc(head=index_text(e.name, e.description), body=index_text(e.content))


def put(store: Store, *entries: MemoryEntry) -> list[MemoryEntry]:
    store.insert([(e, doc(e)) for e in entries])
    return list(entries)


def ids(entries: Sequence[MemoryEntry]) -> list[str]:
    return [e.id for e in entries]


def hit_ids(store: Store, view: View, *words: str, **kwargs: Any) -> list[str]:
    terms = [t for w in words for t in index_text(w).split()]
    return [e.id for e, _ in store.keyword_search(view, terms, **kwargs)]


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

    assert ids(store.list(OWNER)) == newest_first
    assert ids(store.list(OWNER, limit=2)) == newest_first[:2]
    assert ids(store.list(OWNER, limit=2, offset=2)) == newest_first[2:4]
    assert ids(store.list(OWNER, limit=2, offset=4)) == newest_first[4:]
    assert store.list(OWNER, limit=2, offset=5) == []


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
        assert ids(store.list(OWNER, flt)) == expected, flt
        assert store.count(OWNER, flt) == len(expected), flt
    assert store.count(OWNER) == 5


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
    assert ids(store.list(OWNER)) == ["e2"]
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


# -- keyword search ----------------------------------------------------------------


def test_keyword_search_finds_an_entry_by_one_of_its_tokens(store: Store) -> None:
    put(
        store,
        entry("e1", "Our warehouse runs on ClickHouse"),
        entry("e2", "Lunch is at noon"),
        entry("e3", "公司的数据仓库用的是 ClickHouse"),
    )
    assert hit_ids(store, OWNER, "warehouses") == ["e1"]  # stemmed like the document
    assert sorted(hit_ids(store, OWNER, "clickhouse")) == ["e1", "e3"]
    assert hit_ids(store, OWNER, "数据仓库") == ["e3"]
    assert hit_ids(store, OWNER, "zebra") == []
    assert store.keyword_search(OWNER, []) == []


def test_keyword_search_scores_are_positive_and_best_first(store: Store) -> None:
    put(
        store,
        entry("both", "red apples and green pears", seconds=1),
        entry("one", "red cars and fast trains", seconds=2),
        # Entries that match nothing keep both terms rare enough to carry weight.
        *[entry(f"filler{i}", f"unrelated text number {i}", seconds=3 + i) for i in range(6)],
    )
    ranked = store.keyword_search(OWNER, ["red", "pear"])

    assert [e.id for e, _ in ranked] == ["both", "one"]
    assert ranked[0][1] > ranked[1][1] > 0


def test_keyword_search_ranks_name_matches_above_body_matches(store: Store) -> None:
    put(
        store,
        entry("in-body", "notes about the kafka cluster sizing"),
        entry("in-name", "notes about the cluster sizing", name="kafka"),
        *[entry(f"filler{i}", f"unrelated text number {i}") for i in range(6)],
    )
    assert hit_ids(store, OWNER, "kafka") == ["in-name", "in-body"]


def test_keyword_search_respects_limit(store: Store) -> None:
    put(store, *[entry(f"e{i}", f"common word {i}") for i in range(20)])
    assert len(hit_ids(store, OWNER, "common", limit=7)) == 7
    assert len(hit_ids(store, OWNER, "common", limit=100)) == 20


def test_common_terms_are_dropped_when_the_query_has_rarer_ones(store: Store) -> None:
    put(
        store,
        *[entry(f"c{i}", f"coffee note {i}") for i in range(5)],
        entry("rare", "coffee with lisbon friends"),
        entry("other", "tea in lisbon"),
        entry("plain", "an unrelated line"),
    )
    # 6 of 8 entries say coffee: over a 50% share it is common, and left out.
    by_share = KeywordWeights(common_term_cutoff=1000, common_term_share=0.5)
    assert sorted(hit_ids(store, OWNER, "coffee lisbon", weights=by_share)) == ["other", "rare"]
    # The share rule alone decides here; the absolute cutoff is far away.
    plain = KeywordWeights(common_term_cutoff=1000)
    assert len(hit_ids(store, OWNER, "coffee lisbon", weights=plain, limit=20)) == 7
    # A floor above the view's size keeps the share rule out of small vaults.
    floored = KeywordWeights(common_term_cutoff=1000, common_term_share=0.5, common_term_floor=8)
    assert len(hit_ids(store, OWNER, "coffee lisbon", weights=floored, limit=20)) == 7


def test_common_term_share_counts_only_the_callers_view(store: Store) -> None:
    put(
        store,
        entry("a-coffee", "coffee in the morning"),
        entry("a-lisbon", "a trip to lisbon"),
        entry("a-1", "plain line one"),
        entry("a-2", "plain line two"),
        *[entry(f"b{i}", f"coffee number {i}", user="bob") for i in range(10)],
    )
    # Counted over everyone, coffee (11 of 14 entries) would be common and dropped;
    # for alice it is in 1 of 4, so both words are searched.
    weights = KeywordWeights(common_term_cutoff=1000, common_term_share=0.6)
    found = sorted(hit_ids(store, OWNER, "coffee lisbon", weights=weights))
    assert found == ["a-coffee", "a-lisbon"]


def test_common_only_queries_ask_for_all_terms_first(store: Store) -> None:
    put(
        store,
        entry("both", "coffee and tea"),
        *[entry(f"c{i}", f"coffee {i}") for i in range(3)],
        *[entry(f"t{i}", f"tea {i}") for i in range(3)],
    )
    weights = KeywordWeights(common_term_cutoff=1000, common_term_share=0.3)
    assert hit_ids(store, OWNER, "coffee tea", weights=weights, limit=20) == ["both"]
    # Nothing holds every word: any of them will do.
    store.delete(OWNER, ["both"])
    assert len(hit_ids(store, OWNER, "coffee tea", weights=weights, limit=20)) == 6


def test_keyword_search_respects_the_view(store: Store) -> None:
    put(
        store,
        entry("shared", "zebra shared"),
        entry("mine", "zebra private to a1", agent_id="a1"),
        entry("theirs", "zebra private to a2", agent_id="a2"),
        entry("bobs", "zebra of bob", user="bob"),
        entry("bobs-a1", "zebra of bob's a1", user="bob", agent_id="a1"),
    )
    assert sorted(hit_ids(store, OWNER, "zebra")) == ["mine", "shared", "theirs"]
    assert hit_ids(store, SHARED, "zebra") == ["shared"]
    assert sorted(hit_ids(store, View("alice", "a1"), "zebra")) == ["mine", "shared"]
    assert sorted(hit_ids(store, View("alice", "a3"), "zebra")) == ["shared"]
    assert sorted(hit_ids(store, View("bob", "a1"), "zebra")) == ["bobs", "bobs-a1"]
    assert hit_ids(store, View("carol", all_agents=True), "zebra") == []


def test_keyword_search_applies_kind_tier_and_domain_filters(store: Store) -> None:
    put(
        store,
        entry("proj-work", "zebra", kind=Kind.PROJECT, domain=Domain.WORK),
        entry("proj-cold", "zebra", kind=Kind.PROJECT, tier=Tier.COLD),
        entry("user-life", "zebra", kind=Kind.USER, domain=Domain.LIFE),
        entry("ref-short", "zebra", kind=Kind.REFERENCE, mem_class=MemClass.SHORT_TERM),
    )
    cases = {
        EntryFilter(kind=Kind.PROJECT): ["proj-cold", "proj-work"],
        EntryFilter(kind=Kind.FEEDBACK): [],
        EntryFilter(tier=Tier.COLD): ["proj-cold"],
        EntryFilter(tier=Tier.ACTIVE): ["proj-work", "ref-short", "user-life"],
        EntryFilter(domain=Domain.WORK): ["proj-work"],
        EntryFilter(domain=Domain.LIFE): ["user-life"],
        EntryFilter(kind=Kind.PROJECT, domain=Domain.LIFE): [],
        EntryFilter(mem_class=MemClass.SHORT_TERM): ["ref-short"],
    }
    for flt, expected in cases.items():
        assert sorted(hit_ids(store, OWNER, "zebra", flt=flt)) == expected, flt


def test_keyword_search_fills_the_limit_when_filtering_by_session(store: Store) -> None:
    put(
        store,
        *[entry(f"s1-{i}", "apple apple apple", session_id="s1") for i in range(3)],
        *[entry(f"s2-{i}", "apple pie with some more words", session_id="s2") for i in range(2)],
    )
    found = hit_ids(store, OWNER, "apple", flt=EntryFilter(session_id="s2"), limit=2)
    assert sorted(found) == ["s2-0", "s2-1"]


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
    assert ids(store.list(OWNER)) == ["e1"]
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
    assert store.list(OWNER) == [alice_e]
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
        assert {e.user_id for e in store.list(view)} == {"alice"}
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


# -- vectors -----------------------------------------------------------------------

MODEL = "test-model"


def vec(*values: float) -> npt.NDArray[np.float32]:
    return np.array(values, dtype=np.float32)


def stored(store: Store, user: str = "alice", model: str = MODEL) -> dict[str, Any]:
    vectors = store.load_vectors(user, model)
    assert vectors.matrix.shape[0] == len(vectors.ids)
    return {
        i: (agent, tuple(float(x) for x in row))
        for i, agent, row in zip(vectors.ids, vectors.agent_ids, vectors.matrix, strict=True)
    }


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
    (c,) = [e for e in store.list(OWNER) if e.id == "c"]
    store.put_vectors("alice", MODEL, [VectorItem("c", c.updated_at, vec(1, 0))])

    def keys(entries: list[MemoryEntry]) -> list[tuple[str, str]]:
        return [(e.user_id, e.id) for e in entries]

    assert keys(store.missing_vectors(MODEL)) == [("alice", "a"), ("alice", "b"), ("bob", "a")]
    assert keys(store.missing_vectors(MODEL, limit=2)) == [("alice", "a"), ("alice", "b")]
    assert keys(store.missing_vectors(MODEL, after=("alice", "b"))) == [("bob", "a")]
    assert len(store.missing_vectors("another-model")) == 4


def test_change_counter_is_an_int(store: Store) -> None:
    assert isinstance(store.change_counter(), int)


# -- keyword scores use the caller's own statistics (issue 11, section 5) -------------
# FTS5's bm25() counts entries, lengths and document frequencies over the whole table,
# so a score moved when another user stored a word. Scores and order must depend on
# the caller's view alone.

ISOLATION_QUERIES: list[tuple[str, EntryFilter]] = [
    ("zebra", EntryFilter()),
    ("zebra apple", EntryFilter()),
    ("apple pie recipe", EntryFilter()),
    ("lisbon trip coffee", EntryFilter()),
    ("coffee", EntryFilter(kind=Kind.PROJECT)),
    ("zebra lisbon", EntryFilter(session_id="s1")),
]


def _alice_data() -> list[MemoryEntry]:
    words = ["zebra", "apple", "pie", "recipe", "lisbon", "trip", "coffee", "notes"]
    words += ["garden", "river", "piano", "stone", "cloud", "ember", "frost", "maple", "quill"]
    out = []
    for i in range(24):
        picked = " ".join(words[(i * k) % len(words)] for k in range(1, 2 + i % 5))
        out.append(
            entry(
                f"a{i}",
                f"{picked} entry {i}" + " filler" * (i % 4),
                seconds=i,
                name="zebra" if i % 7 == 0 else "",
                agent_id=("a1" if i % 3 == 1 else "a2" if i % 3 == 2 else None),
                kind=Kind.PROJECT if i % 2 else Kind.USER,
                session_id="s1" if i % 4 == 0 else None,
            )
        )
    # Two entries that score exactly alike: their order is the order they were stored.
    out += [
        entry("twin1", "lisbon coffee", seconds=90),
        entry("twin2", "lisbon coffee", seconds=91),
    ]
    return out


def _scores(store: Store, views: Sequence[View]) -> list[list[tuple[str, float]]]:
    out = []
    for view in views:
        for query, flt in ISOLATION_QUERIES:
            terms = index_text(query).split()
            ranked = store.keyword_search(view, terms, flt=flt, limit=50)
            out.append([(e.id, score) for e, score in ranked])
    return out


def test_keyword_scores_and_order_ignore_other_users_data(store: Store) -> None:
    put(store, *_alice_data())
    views = [OWNER, SHARED, View("alice", "a1"), View("alice", "a9")]
    before = _scores(store, views)
    assert all(before[:4]), "every unfiltered query finds something"

    bob = [
        # the same words, more often, in longer and shorter entries
        *[
            entry(f"b{i}", "zebra apple lisbon coffee " * (1 + i % 3), user="bob")
            for i in range(30)
        ],
        *[entry(f"bn{i}", f"pie recipe notes {i}", user="bob", name="zebra") for i in range(5)],
        # none of the words
        *[entry(f"bx{i}", "completely different words " * 9, user="bob") for i in range(40)],
        # private to an agent with alice's agent id, and kinds alice filters on
        *[
            entry(f"bp{i}", "coffee zebra", user="bob", agent_id="a1", kind=Kind.PROJECT)
            for i in range(6)
        ],
    ]
    put(store, *bob)
    assert _scores(store, views) == before

    # A user whose id only differs in case, and a further user with one entry.
    put(store, entry("c1", "zebra " * 50, user="Alice"), entry("d1", "apple", user="dave"))
    assert _scores(store, views) == before

    # Changing and deleting others' entries moves nothing either.
    def lengthen(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content=current.content + " lisbon pie" * 20)
        return new, doc(new)

    store.update(View("bob", all_agents=True), "b0", lengthen)
    store.delete(View("bob", all_agents=True), [e.id for e in bob[::2]])
    assert _scores(store, views) == before


def test_keyword_statistics_are_those_of_the_exact_view(store: Store) -> None:
    put(store, *_alice_data())
    shared_and_a1 = [SHARED, View("alice", "a1")]
    before = _scores(store, shared_and_a1)
    # Another agent's private entries are outside these views: their scores stay.
    put(
        store,
        *[entry(f"p{i}", "zebra apple lisbon " * 3, agent_id="a7") for i in range(12)],
    )
    assert _scores(store, shared_and_a1) == before
    # The owner's view holds them, so its scores move.
    assert _scores(store, [OWNER]) != _scores(store, [View("alice", "a1")])


def test_ties_go_to_the_entry_stored_first(store: Store) -> None:
    put(store, *_alice_data())
    ranked = store.keyword_search(OWNER, index_text("lisbon coffee").split(), limit=50)
    order = [e.id for e, _ in ranked]
    scores = dict((e.id, s) for e, s in ranked)
    assert scores["twin1"] == scores["twin2"]
    assert order.index("twin1") + 1 == order.index("twin2")


# == reveal state, grants and erasing a user (issue 11 §1) ===================================
# Wrong answers and the lock belong to a user; a grant belongs to one entry and ends when the
# entry is deleted or the secret changes; erase_user leaves nothing of the user behind.

from memvault.stores.base import AuditRecord, RevealState  # noqa: E402


def _audit_row(user: str, action: str, entry_id: str | None = None) -> AuditRecord:
    return AuditRecord(T0, user, "tester", action, "ok", entry_id)


def _put_state(new: RevealState, user: str = "alice", entry_id: str | None = None) -> Any:
    return lambda _old: (new, _audit_row(user, "test", entry_id))


def _read_state(store: Store, user: str, entry_id: str | None) -> RevealState:
    seen: list[RevealState] = []

    def look(state: RevealState) -> tuple[RevealState, AuditRecord]:
        seen.append(state)
        return state, _audit_row(user, "look", entry_id)

    store.change_reveal(user, entry_id, look)
    return seen[0]


def test_reveal_failures_and_lock_are_shared_by_all_entries_of_a_user(store: Store) -> None:
    put(store, entry("a", "x"), entry("b", "x"), entry("a", "x", user="bob"))
    later = T0 + timedelta(minutes=1)
    store.change_reveal("alice", "a", _put_state(RevealState(2, T0, later)))
    assert _read_state(store, "alice", "b") == RevealState(2, T0, later)
    assert _read_state(store, "alice", None) == RevealState(2, T0, later)
    assert _read_state(store, "bob", "a") == RevealState()


def test_a_grant_is_per_entry_and_ignored_without_one(store: Store) -> None:
    put(store, entry("a", "x"), entry("b", "x"))
    until = T0 + timedelta(minutes=30)
    store.change_reveal(
        "alice", "a", _put_state(RevealState(granted_until=until, granted_version="v1"))
    )
    assert _read_state(store, "alice", "a").granted_version == "v1"
    assert _read_state(store, "alice", "b").granted_until is None
    # Without an entry the grant fields are neither shown nor written.
    assert _read_state(store, "alice", None).granted_until is None
    store.change_reveal("alice", None, _put_state(RevealState(1, T0, None, None, None)))
    assert _read_state(store, "alice", "a").granted_version == "v1"


def test_deleting_an_entry_or_changing_the_secret_ends_its_grant(store: Store) -> None:
    put(store, entry("a", "x"), entry("b", "x"))
    grant = RevealState(granted_until=T0 + timedelta(minutes=30), granted_version="v1")
    store.change_reveal("alice", "a", _put_state(grant))
    store.change_reveal("alice", "b", _put_state(grant))
    store.delete(OWNER, ["a"])
    put(store, entry("a", "x"))
    assert _read_state(store, "alice", "a").granted_until is None
    assert _read_state(store, "alice", "b").granted_version == "v1"
    store.set_reveal_secret("alice", b"salt", b"digest")
    assert _read_state(store, "alice", "b").granted_until is None


def test_erase_user_removes_everything_of_that_user_only(store: Store) -> None:
    put(
        store,
        entry("a", "erasable words"),
        entry("b", "more erasable words"),
        entry("a", "erasable words of bob", user="bob"),
    )
    (a,) = [e for e in store.list(OWNER) if e.id == "a"]
    store.put_vectors("alice", "m", [VectorItem("a", a.updated_at, np.ones(4, np.float32))])
    store.set_reveal_secret("alice", b"salt", b"digest")
    store.set_reveal_secret("bob", b"salt", b"digest")
    store.change_reveal("alice", "a", _put_state(RevealState(1, T0, None)))
    store.append_audit(_audit_row("bob", "kept"))

    assert sorted(store.erase_user("alice")) == ["a", "b"]
    assert store.count(OWNER) == 0 and store.get(OWNER, "a") is None
    assert hit_ids(store, OWNER, "erasable") == []
    assert hit_ids(store, View("bob", all_agents=True), "erasable") == ["a"]
    assert store.load_vectors("alice", "m").ids == []
    assert store.reveal_secret("alice") is None and store.reveal_secret("bob") is not None
    assert _read_state(store, "alice", "a") == RevealState()
    assert [r.action for r in store.audit_log("alice")] == ["look"]  # only the read above
    assert [r.action for r in store.audit_log("bob")] == ["kept"]
    assert store.erase_user("nobody") == []


def test_audit_sequence_numbers_are_never_reused_after_an_erase(store: Store) -> None:
    store.append_audit(_audit_row("alice", "one"))
    store.append_audit(_audit_row("bob", "two"))
    before = store.audit_log("bob")[0].seq
    store.erase_user("bob")
    store.append_audit(_audit_row("bob", "three"))
    (after,) = store.audit_log("bob")
    assert after.seq > before
