"""``EntryStats``: the overview's aggregates, counted inside the view and the filter,
never across users."""

from __future__ import annotations

from datetime import timedelta

from memvault import Domain, Kind, MemClass, Store, Tier
from memvault.results.stats import DayCount
from memvault.stores.protocols import EntryStats
from memvault.stores.stats import TallyRow
from memvault.stores.values import EntryFilter, VectorItem, View

from .support import MODEL, OWNER, SHARED, T0, entry, put, vec

DAY = 86_400


def _tally(store: Store, view: View, flt: EntryFilter | None = None) -> set[TallyRow]:
    rows = store.tally(view) if flt is None else store.tally(view, flt)
    return set(rows)


def test_every_backend_counts_for_the_overview(store: Store) -> None:
    assert isinstance(store, EntryStats)


def test_tally_groups_the_views_entries_by_their_classification(store: Store) -> None:
    put(
        store,
        entry("e1", "one", kind=Kind.PROJECT, domain=Domain.WORK),
        entry("e2", "two", kind=Kind.PROJECT, domain=Domain.WORK),
        entry("e3", "three", mem_class=MemClass.PROCESS, tier=Tier.COLD, agent_id="a1"),
        entry("e4", "held", quarantine="override", domain=Domain.LIFE),
        entry("e1", "bob's", user="bob", kind=Kind.PROJECT, domain=Domain.WORK),
    )
    assert _tally(store, OWNER) == {
        TallyRow("project", "semantic", "active", "work", False, 2),
        TallyRow("user", "process", "cold", None, False, 1),
        TallyRow("user", "semantic", "active", "life", True, 1),
    }
    # The shared view leaves agent a1's private entry out; a filter runs inside the query.
    assert sum(r.count for r in store.tally(SHARED)) == 3
    assert _tally(store, OWNER, EntryFilter(kind=Kind.PROJECT)) == {
        TallyRow("project", "semantic", "active", "work", False, 2)
    }
    assert _tally(store, View("bob", all_agents=True)) == {
        TallyRow("project", "semantic", "active", "work", False, 1)
    }
    assert store.tally(View("carol", all_agents=True)) == []


def test_tally_keeps_to_the_filters_moments(store: Store) -> None:
    put(
        store,
        entry("old", "was true", valid_to=T0 + timedelta(seconds=10)),
        entry("new", "is true", seconds=10),
    )
    now = T0 + timedelta(seconds=20)
    assert _tally(store, OWNER, EntryFilter(current_at=now)) == {
        TallyRow("user", "semantic", "active", None, False, 1)
    }
    assert sum(r.count for r in store.tally(OWNER)) == 2


def test_daily_activity_counts_writes_and_later_changes_by_utc_day(store: Store) -> None:
    put(
        store,
        entry("before", "outside the window", seconds=-DAY),
        entry("d0a", "first day", seconds=10),
        entry("d0b", "first day too", seconds=DAY - 1),
        # Written on day 0 and changed on day 2: a write on one day, a change on the other.
        entry("d0c", "changed later", seconds=20).replace(
            updated_at=T0 + timedelta(seconds=2 * DAY + 5)
        ),
        entry("d2", "third day", seconds=2 * DAY, agent_id="a1"),
        entry("b", "bob's", user="bob", seconds=10),
    )
    assert store.daily_activity(OWNER, T0) == [
        DayCount("2026-01-01", 3, 0),
        DayCount("2026-01-03", 1, 1),
    ]
    assert store.daily_activity(SHARED, T0) == [
        DayCount("2026-01-01", 3, 0),
        DayCount("2026-01-03", 0, 1),
    ]
    assert store.daily_activity(OWNER, T0 + timedelta(days=1)) == [DayCount("2026-01-03", 1, 1)]
    assert store.daily_activity(View("bob", all_agents=True), T0) == [DayCount("2026-01-01", 1, 0)]
    assert store.daily_activity(View("carol", all_agents=True), T0) == []


def test_count_unembedded_counts_the_views_entries_without_a_vector_of_the_model(
    store: Store,
) -> None:
    e1, _, e3, b1 = put(
        store,
        entry("e1", "one"),
        entry("e2", "two"),
        entry("e3", "three", agent_id="a1"),
        entry("e1", "bob's", user="bob"),
    )
    assert store.count_unembedded(OWNER, MODEL) == 3
    store.put_vectors("alice", MODEL, [VectorItem("e1", e1.updated_at, vec(1, 0))])
    store.put_vectors("alice", MODEL, [VectorItem("e3", e3.updated_at, vec(0, 1))])
    store.put_vectors("bob", MODEL, [VectorItem("e1", b1.updated_at, vec(1, 1))])
    assert store.count_unembedded(OWNER, MODEL) == 1
    assert store.count_unembedded(SHARED, MODEL) == 1
    assert store.count_unembedded(OWNER, "another-model") == 3
    assert store.count_unembedded(View("bob", all_agents=True), MODEL) == 0
    assert store.count_unembedded(View("carol", all_agents=True), MODEL) == 0
