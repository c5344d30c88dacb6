"""The SQLite keyword ranking has three ways to the same scores: the stored tokens of
the view's matching entries, the instance table summed in SQL, and the instance table
summed in Python (for queries of many terms, where the SQL's cost grows with rows x
terms; there the document frequencies come from the rows, and a filter of moments is
checked on the best entries after scoring). Which runs depends on the query and on
other users' data, so all three must give the same entries in the same order with
scores equal to the last bit: over views, filters, expiry, supersession, held entries,
phrases, every-term groups, limits the filtered-out entries would fill, and other
users' occurrences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memvault.stores.sqlite.keyword as sqlite_keyword
from memvault import Kind, SQLiteStore
from memvault.stores.protocols import TermGroup
from memvault.stores.values import EntryFilter, View
from memvault.text import query_phrases, query_terms
from tests.stores.conformance.support import alice_data, entry, put

NOW = datetime(2026, 2, 1, tzinfo=UTC)

#: (``_INSTANCE_SHARE``, ``_PYTHON_TERMS``): stored tokens; instance rows in SQL; in Python.
PATHS = [(10**9, 10**9), (0, 10**9), (0, 1)]

VIEWS = [View("alice", all_agents=True), View("alice"), View("alice", "a1"), View("bob")]

FILTERS = [
    EntryFilter(),
    EntryFilter(kind=Kind.PROJECT),
    EntryFilter(session_id="s1"),
    EntryFilter(valid_at=NOW),
    EntryFilter(valid_at=NOW, current_at=NOW),
    EntryFilter(valid_at=NOW, current_at=NOW, quarantined=False),
]

LIMITS = [1, 2, 50]

QUERIES = [
    "zebra",
    "zebra apple pie recipe lisbon trip coffee",
    "apple pie recipe garden river piano stone",
    "lisbon coffee walrus",
    "销售看板",
    "数据中台的权限 销售看板 扩容 Kafka",
    "zebra 销售看板 coffee 数据中台",
]


class EveryTermFirst:
    """A planner asking for entries holding every term, then any."""

    def cutoff_for(self, entries: int) -> int:
        return 0

    def plan(self, terms: Sequence[str], is_common: Callable[[str], bool]) -> list[TermGroup]:
        return [(" AND ", list(terms)), (" OR ", list(terms))]


def data() -> list:  # type: ignore[type-arg]
    return [
        *alice_data(),
        entry("c1", "销售看板下周上线", name="销售看板 上线"),
        entry("c2", "销售团队说销售看板不好用，销售看了看板", agent_id="a1"),
        entry("c3", "数据中台的权限申请流程 zebra coffee", session_id="s1"),
        entry("c4", "Kafka 集群扩容，销售看板也要扩容", agent_id="a2", kind=Kind.PROJECT),
        entry("x1", "walrus coffee zebra apple", expires_at=NOW - timedelta(days=1)),
        # The best matches of several queries, each left out by one filter of moments.
        entry("x2", "zebra zebra apple pie recipe coffee", expires_at=NOW - timedelta(hours=1)),
        entry("x3", "zebra zebra apple pie recipe coffee", valid_to=NOW - timedelta(hours=1)),
        entry("x4", "销售看板 销售看板 数据中台 zebra coffee", quarantine="held for review"),
        *[entry(f"b{i}", "zebra apple pie 销售看板 数据中台 coffee", user="bob") for i in range(9)],
    ]


def ranked(store: SQLiteStore, planner: EveryTermFirst | None) -> list[list[tuple[str, float]]]:
    out = []
    for view in VIEWS:
        for flt in FILTERS:
            for query in QUERIES:
                terms = [*query_terms(query), *query_phrases(query)]
                for limit in LIMITS:
                    found = store.keyword_search(view, terms, flt=flt, limit=limit, planner=planner)
                    out.append([(e.id, score) for e, score in found])
    return out


@pytest.mark.parametrize("planner", [None, EveryTermFirst()])
def test_the_three_sqlite_ranking_paths_give_identical_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planner: EveryTermFirst | None
) -> None:
    store = SQLiteStore(tmp_path / "v.db")
    put(store, *data())
    results = []
    for share, terms in PATHS:
        monkeypatch.setattr(sqlite_keyword, "_INSTANCE_SHARE", share)
        monkeypatch.setattr(sqlite_keyword, "_PYTHON_TERMS", terms)
        results.append(ranked(store, planner))
    assert results[1] == results[0]
    assert results[2] == results[0]
    assert sum(map(bool, results[0])) > len(results[0]) // 2  # most queries find something
    store.close()


def test_python_sums_leave_out_other_agents_and_users_phrase_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry only a phrase finds still needs its length and the view's test."""
    store = SQLiteStore(tmp_path / "v.db")
    put(store, *data())
    monkeypatch.setattr(sqlite_keyword, "_INSTANCE_SHARE", 0)
    monkeypatch.setattr(sqlite_keyword, "_PYTHON_TERMS", 1)
    phrase = query_phrases("销售看板")
    assert phrase
    views = {
        View("alice"): {"c1", "x4"},
        View("alice", "a1"): {"c1", "c2", "x4"},
        View("carol"): set(),
    }
    for view, want in views.items():
        found = store.keyword_search(view, phrase, limit=50)
        assert {e.id for e, _ in found} == want
    store.close()


def test_when_the_filter_leaves_out_a_page_of_the_best_the_next_ones_fill_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 100 best matches have expired: the Python sums check the filter a page of
    the best at a time, and must reach past them to the same ten as the other paths."""
    store = SQLiteStore(tmp_path / "v.db")
    gone = NOW - timedelta(days=1)
    put(
        store,
        *[entry(f"e{i:03}", "kiwi kiwi kiwi mango lime", expires_at=gone) for i in range(100)],
        *[entry(f"k{i:03}", f"kiwi mango lime note {i} " + "filler " * i) for i in range(40)],
    )
    terms = query_terms("kiwi mango lime papaya guava melon")
    results = []
    for share, python_terms in PATHS:
        monkeypatch.setattr(sqlite_keyword, "_INSTANCE_SHARE", share)
        monkeypatch.setattr(sqlite_keyword, "_PYTHON_TERMS", python_terms)
        found = store.keyword_search(View("alice"), terms, flt=EntryFilter(valid_at=NOW), limit=10)
        results.append([(e.id, score) for e, score in found])
    assert [i for i, _ in results[0]] == [f"k{i:03}" for i in range(10)]
    assert results[1] == results[0]
    assert results[2] == results[0]
    store.close()
