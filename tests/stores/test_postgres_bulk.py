"""The PostgreSQL store's bulk paths: entries and vectors go in by ``COPY``, the
keyword statistics and the vector log are kept once per statement (migration 5), and
each keeps what the per-row versions kept. Real server (``tests/servers/postgres.py``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import psycopg
import pytest

from memvault import ConflictError
from memvault.stores.bm25 import doc_length
from memvault.stores.postgres import PostgresStore
from memvault.stores.postgres.connection import conninfo_of
from memvault.stores.postgres.schema import LATEST_VERSION, vector_text
from memvault.stores.values import SearchDoc, VectorItem
from tests.servers import postgres
from tests.stores.conformance.support import MODEL, OWNER, entry, put

pytestmark = pytest.mark.postgres


def _sql(url: str, statement: str, *params: Any) -> list[Any]:
    with psycopg.connect(conninfo_of(url)) as conn:
        return conn.execute(statement, params).fetchall()


def _stats_kept_and_recounted(url: str) -> tuple[list[Any], list[Any]]:
    kept = _sql(url, "SELECT user_id, agent, entries, tokens FROM keyword_stats ORDER BY 1, 2")
    counts: dict[tuple[str, str], list[int]] = {}
    for user, agent, head, body, extra in _sql(
        url,
        "SELECT user_id, coalesce(agent_id, ''), fts_head, fts_body, fts_extra FROM memories",
    ):
        row = counts.setdefault((user, agent), [0, 0])
        row[0] += 1
        row[1] += doc_length(SearchDoc(head, body, extra))
    return kept, [(u, a, n, t) for (u, a), (n, t) in sorted(counts.items())]


def _unit(rng: np.random.Generator, n: int, dim: int = 8) -> np.ndarray:
    m = rng.normal(size=(n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_vectors_copied_in_bulk_are_stored_exactly_and_logged_once_each() -> None:
    url = postgres.postgres_database()
    store = PostgresStore(url)
    try:
        rng = np.random.default_rng(5)
        entries = put(store, *[entry(f"e{i}", f"note {i}") for i in range(40)])
        first, second = _unit(rng, 40), _unit(rng, 40)
        stale = entries[0].updated_at - timedelta(seconds=1)
        with store.atomic():  # two batches in one transaction share the staging table
            items = [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, first, strict=True)]
            assert store.put_vectors("alice", MODEL, items[:25]) == [e.id for e in entries[:25]]
            pairs = zip(entries, second, strict=True)
            again = [VectorItem(e.id, e.updated_at, v) for e, v in pairs]
            batch = [
                *items[25:],
                again[3],  # a second vector for e3 in a later batch replaces the first
                VectorItem("e30", stale, second[30]),  # older than the entry: skipped
                again[31],  # twice in one batch: the last one wins
                VectorItem("missing", entries[0].updated_at, second[0]),  # no such entry
            ]
            written = store.put_vectors("alice", MODEL, batch)
        assert written == [e.id for e in entries[25:]] + ["e3", "e31"]
        want = {e.id: first[i] for i, e in enumerate(entries)}
        want["e3"], want["e31"] = second[3], second[31]
        loaded = store.load_vectors("alice", MODEL)
        assert sorted(loaded.ids) == sorted(want)
        for entry_id, row in zip(loaded.ids, loaded.matrix, strict=True):
            assert row.tobytes() == want[entry_id].tobytes()  # bit for bit
        # pgvector's copy holds the same float32 values.
        for entry_id, same in _sql(
            url,
            "SELECT entry_id, vec = %s::vector FROM embeddings WHERE entry_id IN ('e3', 'e7')",
            vector_text(want["e3"].tobytes()),
        ):
            assert same == (entry_id == "e3")
        logged = _sql(url, "SELECT entry_id FROM vector_log WHERE user_id = 'alice'")
        # 25 of the first batch; the second's 15 new entries (e31 once) and e3 again
        assert len(logged) == 25 + 15 + 1
        nearest = store.nearest(OWNER, MODEL, want["e9"], k=1)
        assert nearest[0][0] == "e9"
    finally:
        store.close()


def test_keyword_statistics_follow_bulk_inserts_a_failed_batch_and_deletes() -> None:
    url = postgres.postgres_database()
    store = PostgresStore(url)
    try:
        put(store, *[entry(f"a{i}", "zebra " * (i + 1), agent_id=f"x{i % 3}") for i in range(30)])
        put(store, *[entry(f"b{i}", "apple pie", user="bob") for i in range(7)])
        before = _stats_kept_and_recounted(url)
        assert before[0] == before[1] and len(before[0]) == 4
        with pytest.raises(ConflictError):  # one id taken: the whole COPY is rolled back
            put(store, entry("new", "fresh words"), entry("a3", "taken id"))
        assert _stats_kept_and_recounted(url) == before
        store.delete(OWNER, [f"a{i}" for i in range(0, 30, 2)])
        kept, recounted = _stats_kept_and_recounted(url)
        assert kept == recounted
        store.delete(OWNER, [f"a{i}" for i in range(1, 30, 2)])
        kept, recounted = _stats_kept_and_recounted(url)
        assert kept == recounted and [row[0] for row in kept] == ["bob"]
    finally:
        store.close()


def test_a_database_of_the_per_row_triggers_keeps_its_statistics_and_log() -> None:
    url = postgres.postgres_database()
    old = PostgresStore(url, migrate_to=4)
    try:
        _, e2 = put(old, entry("e1", "old words one"), entry("e2", "old two", agent_id="x"))
        # A vector as version 4 wrote it (the store's own SQL is the latest).
        with psycopg.connect(conninfo_of(url)) as conn:
            conn.execute(
                "INSERT INTO embeddings (user_id, entry_id, model, dim, vector, vec) "
                "VALUES ('alice', 'e1', %s, 4, %s, %s::vector)",
                (MODEL, np.ones(4, "f4").tobytes(), vector_text(np.ones(4, "f4").tobytes())),
            )
        mark = old.load_vectors("alice", MODEL).mark
        assert mark > 0
    finally:
        old.close()
    store = PostgresStore(url)
    try:
        assert store.schema_version() == LATEST_VERSION
        kept, recounted = _stats_kept_and_recounted(url)
        assert kept == recounted
        put(store, entry("e3", "new words three"))
        store.put_vectors("alice", MODEL, [VectorItem("e2", e2.updated_at, np.ones(4, "f4"))])
        store.delete(OWNER, ["e1"])
        kept, recounted = _stats_kept_and_recounted(url)
        assert kept == recounted
        changes = store.vector_changes("alice", MODEL, mark)
        assert changes is not None
        assert changes.vectors.ids == ["e2"] and changes.removed == ["e1"]
    finally:
        store.close()


def test_a_user_who_grows_past_the_exact_scan_size_has_every_vector_in_the_hnsw_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memvault.stores.postgres.vectors as pg_vectors

    monkeypatch.setattr(pg_vectors, "EXACT_BELOW", 30)
    url = postgres.postgres_database()
    store = PostgresStore(url)
    try:
        rng = np.random.default_rng(9)
        vectors = _unit(rng, 50)
        entries = put(store, *[entry(f"e{i:02d}", f"note {i}") for i in range(50)])
        put(store, *[entry(f"s{i}", "small", user="bob") for i in range(5)])
        items = [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, vectors, strict=True)]
        store.put_vectors("alice", MODEL, items[:20])
        bob = store.load_vectors("bob", MODEL)
        assert bob.ids == []
        small = [VectorItem(f"s{i}", entries[0].updated_at, vectors[i]) for i in range(5)]
        store.put_vectors("bob", MODEL, small)

        def flags() -> dict[str, set[bool]]:
            out: dict[str, set[bool]] = {}
            for user, indexed in _sql(url, "SELECT user_id, indexed FROM embeddings"):
                out.setdefault(user, set()).add(indexed)
            return out

        assert flags() == {"alice": {False}, "bob": {False}}  # both below the size
        store.put_vectors("alice", MODEL, items[20:])  # alice grows past it
        assert flags() == {"alice": {True}, "bob": {False}}
        ids = [e.id for e in entries]
        for q in _unit(rng, 5):  # the index path finds the earlier vectors as well
            found = [i for i, _ in store.nearest(OWNER, MODEL, q, k=5)]
            sims = vectors @ q
            assert found == [ids[i] for i in np.argsort(-sims, kind="stable")[:5]]
    finally:
        store.close()


def _many_scored_entries() -> list[Any]:
    rng = np.random.default_rng(21)
    words = ["zebra", "apple", "coffee", "lisbon", "pie", "river", "stone", "café"]
    out = []
    for i in range(240):
        picked = rng.choice(words, size=int(rng.integers(1, 12)))
        name = str(rng.choice(words)) if i % 3 == 0 else ""
        out.append(entry(f"e{i:03d}", " ".join(picked) + f" filler{i % 17}", name=name))
    return out


QUERIES = [["zebra"], ["zebra", "apple"], ["coffee", "pie", "stone"], ["cafe", "river"]]


def test_ranking_in_the_server_gives_sqlites_results_and_scores(tmp_path: Any) -> None:
    from memvault.stores import open_store
    from memvault.text import index_text

    data = _many_scored_entries()
    sqlite_store = open_store(str(tmp_path / "same.db"))
    pg_store = PostgresStore(postgres.postgres_database())
    try:
        for store in (sqlite_store, pg_store):
            put(store, *data)
        for words in QUERIES:
            terms = [t for w in words for t in index_text(w).split()]
            for limit in (1, 5, 30):
                want = [
                    (e.id, s) for e, s in sqlite_store.keyword_search(OWNER, terms, limit=limit)
                ]
                got = [(e.id, s) for e, s in pg_store.keyword_search(OWNER, terms, limit=limit)]
                assert got == want and len(got) == limit  # more match than the limit
    finally:
        sqlite_store.close()
        pg_store.close()


def test_migration_7_gives_older_entries_their_term_frequencies() -> None:
    from memvault.text import index_text

    url = postgres.postgres_database()
    store = PostgresStore(url)
    data = _many_scored_entries()
    put(store, *data)
    terms = index_text("coffee pie").split()
    before = [(e.id, s) for e, s in store.keyword_search(OWNER, terms, limit=10)]
    store.close()
    with psycopg.connect(conninfo_of(url)) as conn:  # the database as version 6 left it
        for column in ("fts_tf_head", "fts_tf_body", "fts_tf_extra"):
            conn.execute(f"ALTER TABLE memories DROP COLUMN {column}".encode())
        conn.execute("DELETE FROM memvault_migrations WHERE version >= 7")
    store = PostgresStore(url)
    try:
        assert 7 in store.applied_migrations
        assert [(e.id, s) for e, s in store.keyword_search(OWNER, terms, limit=10)] == before
        counts = _sql(url, "SELECT fts_tf_body FROM memories WHERE id = 'e000'")[0][0]
        assert counts[0] == 0 and sum(counts) > 0  # the owner's key counts nothing
    finally:
        store.close()


def test_the_engine_leaves_a_large_users_vectors_to_the_store_and_caches_the_small(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import memvault.stores.postgres.vectors as pg_vectors
    from memvault.retrieval.vector import VectorIndex
    from memvault.stores import open_store
    from memvault.stores.values import View

    monkeypatch.setattr(pg_vectors, "IN_STORE_FROM", 20)
    rng = np.random.default_rng(4)
    sqlite_store = open_store(str(tmp_path / "cache.db"))
    pg_store = PostgresStore(postgres.postgres_database())
    try:
        for store in (sqlite_store, pg_store):
            for user, n in (("big", 30), ("small", 5)):
                vectors = _unit(np.random.default_rng(len(user)), n)
                entries = put(
                    store,
                    *[
                        entry(
                            f"{user}{i}", f"note {i}", user=user, agent_id="a1" if i % 4 else None
                        )
                        for i in range(n)
                    ],
                )
                items = [
                    VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, vectors, strict=True)
                ]
                store.put_vectors(user, MODEL, items)
        cached, in_store = VectorIndex(sqlite_store, MODEL), VectorIndex(pg_store, MODEL)
        for view in (View("big", all_agents=True), View("big"), View("small", "a1")):
            for q in _unit(rng, 4):
                want = cached.search(view, q, 7)
                got = in_store.search(view, q, 7)
                assert [i for i, _ in got] == [i for i, _ in want]
                assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
                ids = [i for i, _ in want[:3]] + ["missing"]
                assert in_store.similarity(view, q, ids) == pytest.approx(
                    cached.similarity(view, q, ids), abs=1e-5
                )
        assert set(in_store._users) == {"small"}  # the big user's vectors stay in the store
        assert set(cached._users) == {"big", "small"}  # SQLite: every user is cached
    finally:
        sqlite_store.close()
        pg_store.close()
