"""Keyword scores say nothing about other users (issue 11, section 5).

FTS5's bm25() takes its statistics from the whole table, so alice could tell whether
bob had stored a word: her score for it moved (a ratio of 0.908 after one entry of
his). Both backends now rank with the statistics of the caller's view alone. Here:
the attack through ``Vault``, the trigger-kept statistics of the SQLite store (after
every kind of write, and after the upgrade from a database made before them), and
that both backends score alike.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memvault import MemoryEntry, MemoryStore, SQLiteStore, Store, Vault, VaultConfig
from memvault.stores import open_store
from memvault.stores.bm25 import doc_length
from memvault.stores.sqlite.schema import LATEST_VERSION
from memvault.stores.values import EntryFilter, SearchDoc, View
from memvault.text import index_text, query_phrases, query_terms
from tests.servers import mariadb
from tests.servers.postgres import postgres_database
from tests.stores.conformance.support import alice_data, doc, entry, put, scores_of


def _server_store() -> Store:
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    return open_store(mariadb.fresh_database())


def _scores_for(vault: Vault, query: str, user: str) -> dict[str, float]:
    return {h.entry.id: h.sources["keyword"] for h in vault.search(query, user_id=user, limit=20)}


def _store(backend: str, tmp_path: Path) -> Store:
    if backend == "sqlite":
        return SQLiteStore(tmp_path / "v.db")
    if backend == "postgres":
        return open_store(postgres_database())
    if backend == "mariadb":
        return _server_store()
    return MemoryStore()


@pytest.mark.parametrize(
    "backend",
    ["sqlite", "memory", "mariadb", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def test_another_users_word_does_not_move_my_scores(
    config: VaultConfig, tmp_path: Path, backend: str
) -> None:
    store = _store(backend, tmp_path)
    with Vault(config=config, store=store) as vault:
        for text in ("The quokka lives on Rottnest", "Lunch with Sam", "Quokka photos", "Tea"):
            vault.add(text, user_id="alice")
        before = _scores_for(vault, "quokka photos", "alice")
        assert len(before) == 2
        vault.add("I saw a quokka", user_id="bob")
        assert _scores_for(vault, "quokka photos", "alice") == before  # ratio exactly 1.0
        vault.add_many([{"content": "photos " * 40} for _ in range(20)], user_id="bob")
        assert _scores_for(vault, "quokka photos", "alice") == before
    mariadb.drop_created()


def _recount(conn: sqlite3.Connection) -> list[tuple[str, str, int, int]]:
    """(user, agent space, entries, tokens) counted afresh from the stored tokens."""
    counts: dict[tuple[str, str], list[int]] = {}
    for user, agent, head, body, extra in conn.execute(
        "SELECT user_id, coalesce(agent_id, ''), fts_head, fts_body, fts_extra FROM memories"
    ):
        row = counts.setdefault((user, agent), [0, 0])
        row[0] += 1
        row[1] += doc_length(SearchDoc(head, body, extra))
    docs = conn.execute("SELECT count(*) FROM keyword_docs").fetchone()[0]
    assert docs == sum(n for n, _ in counts.values())
    return [(u, a, n, t) for (u, a), (n, t) in sorted(counts.items())]


def _kept(conn: sqlite3.Connection) -> list[tuple[str, str, int, int]]:
    return conn.execute(
        "SELECT user_id, agent, entries, tokens FROM keyword_stats ORDER BY 1, 2"
    ).fetchall()


def test_keyword_stats_follow_every_write(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db")
    put(store, *alice_data(), entry("b1", "bob words here", user="bob", agent_id="x"))
    conn = sqlite3.connect(tmp_path / "v.db")
    assert _kept(conn) == _recount(conn)

    def grow(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content=current.content + " and more words", agent_id="a5")
        return new, doc(new)

    store.update(View("alice", all_agents=True), "a1", grow)
    store.delete(View("alice", all_agents=True), ["a2", "a3", "twin1"])
    store.delete(View("bob", all_agents=True), ["b1"])
    assert _kept(conn) == _recount(conn)
    assert not [row for row in _kept(conn) if row[0] == "bob"]  # no trace of an emptied user
    store.close()


def test_upgrading_an_older_database_fills_the_statistics(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = SQLiteStore(path, migrate_to=7)
    # What a version-7 store wrote, before the keyword statistics existed.
    for e in alice_data():
        d = doc(e)
        old._conn.execute(
            "INSERT INTO memories (id, user_id, agent_id, content, kind, mem_class, importance, "
            "tier, created_at, updated_at, sensitivity, source, fts_scope, fts_head, fts_body, "
            "fts_extra) SELECT ?, ?, ?, ?, 'user', 'semantic', 0.5, 'active', ?, ?, 'normal', "
            "'api', ?, ?, ?, ?",
            (
                e.id,
                e.user_id,
                e.agent_id,
                e.content,
                e.created_at.isoformat(),
                e.updated_at.isoformat(),
                "u x",
                d.head,
                d.body,
                d.extra,
            ),
        )
    old.close()
    upgraded = SQLiteStore(path)
    assert upgraded.schema_version() == LATEST_VERSION
    conn = sqlite3.connect(path)
    assert _kept(conn) == _recount(conn)
    lengths = dict(
        conn.execute(
            "SELECT m.id, k.len FROM memories m JOIN keyword_docs k ON k.pk = m.pk"
        ).fetchall()
    )
    assert lengths == {
        e.id: len(doc(e).head.split()) + len(doc(e).body.split()) for e in alice_data()
    }
    upgraded.close()


def test_both_backends_rank_alike(tmp_path: Path) -> None:
    sqlite_store, memory_store = SQLiteStore(tmp_path / "v.db"), MemoryStore()
    data = [
        *alice_data(),
        entry("accent", "Un café à Lisbonne", name="café"),
        entry("plain", "cafe lisbonne notes"),
    ]
    for store in (sqlite_store, memory_store):
        put(store, *data)
    views = [View("alice", all_agents=True), View("alice"), View("alice", "a1")]
    on_sqlite, in_memory = scores_of(sqlite_store, views), scores_of(memory_store, views)
    assert [[i for i, _ in r] for r in on_sqlite] == [[i for i, _ in r] for r in in_memory]
    for a, b in zip(on_sqlite, in_memory, strict=True):
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12)
    # Diacritics fold as the index folds them, in both.
    for store in (sqlite_store, memory_store):
        found = store.keyword_search(views[0], index_text("café").split())
        assert sorted(e.id for e, _ in found) == ["accent", "plain"]
    sqlite_store.close()


def test_the_two_sqlite_ranking_paths_give_identical_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Which path runs depends on how many occurrences other users hold, so the two
    # must agree to the last bit, or the choice itself would leak.
    import memvault.stores.sqlite.keyword as sqlite_keyword

    store = SQLiteStore(tmp_path / "v.db")
    put(store, *alice_data(), *[entry(f"b{i}", "zebra apple pie", user="bob") for i in range(9)])
    views = [View("alice", all_agents=True), View("alice"), View("alice", "a1")]
    results = []
    for share in (10**9, 0):  # always the stored tokens / always the instance table
        monkeypatch.setattr(sqlite_keyword, "_INSTANCE_SHARE", share)
        results.append(scores_of(store, views))
    assert results[0] == results[1]
    assert any(results[0])
    store.close()


def test_both_sqlite_ranking_paths_leave_expired_entries_out_inside_the_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The candidate limit applies after the expiry test on either path, so expired
    # best matches never push valid ones out.
    import memvault.stores.sqlite.keyword as sqlite_keyword

    now = datetime(2026, 2, 1, tzinfo=UTC)
    store = SQLiteStore(tmp_path / "v.db")
    put(
        store,
        *[entry(f"old{i}", "walrus walrus", expires_at=now - timedelta(days=1)) for i in range(4)],
        *[entry(f"new{i}", "walrus and many other words here") for i in range(4)],
        *[entry(f"b{i}", "walrus walrus", user="bob") for i in range(9)],
        *[entry(f"f{i}", f"unrelated text {i}") for i in range(8)],
    )
    found = []
    for share in (10**9, 0):  # always the stored tokens / always the instance table
        monkeypatch.setattr(sqlite_keyword, "_INSTANCE_SHARE", share)
        ranked = store.keyword_search(
            View("alice", all_agents=True), ["walrus"], flt=EntryFilter(valid_at=now), limit=4
        )
        found.append([(e.id, s) for e, s in ranked])
    assert found[0] == found[1]
    assert [i for i, _ in found[0]] == ["new0", "new1", "new2", "new3"]
    store.close()


_CJK_DATA = [
    entry("c1", "销售看板下周上线", name="看板"),
    entry("c2", "销售团队说看板不好用，销售看了看板", agent_id="a1"),
    entry("c3", "数据中台的权限申请流程"),
    entry("c4", "数据中心在中台旁边", agent_id="a2"),
    entry("c5", "東京タワーに行きました、データベースを導入"),
    entry("c6", "서울에서 회의가 있습니다"),
    entry("c7", "Kafka 集群扩容，销售看板也要扩容"),
    *[entry(f"c{i}", f"无关的记录 {i}") for i in range(8, 14)],
]
_CJK_QUERIES = ["销售看板", "看板", "数据中台的权限", "データベース", "서울에서 회의", "扩容 Kafka"]


def _cjk_scores(store: Store) -> list[list[tuple[str, float]]]:
    out = []
    for view in (View("alice", all_agents=True), View("alice"), View("alice", "a1")):
        for query in _CJK_QUERIES:
            terms = query_terms(query) + query_phrases(query)
            out.append([(e.id, s) for e, s in store.keyword_search(view, terms, limit=50)])
    return out


def test_phrases_score_alike_on_both_backends_and_both_sqlite_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memvault.stores.sqlite.keyword as sqlite_keyword

    sqlite_store, memory_store = SQLiteStore(tmp_path / "v.db"), MemoryStore()
    bobs = [entry(f"b{i}", "销售看板 数据中台 销售看板", user="bob") for i in range(9)]
    for store in (sqlite_store, memory_store):
        put(store, *_CJK_DATA, *bobs)
    paths = []
    for share in (10**9, 0):  # always the stored tokens / always the instance table
        monkeypatch.setattr(sqlite_keyword, "_INSTANCE_SHARE", share)
        paths.append(_cjk_scores(sqlite_store))
    assert paths[0] == paths[1]
    in_memory = _cjk_scores(memory_store)
    assert [[i for i, _ in r] for r in paths[0]] == [[i for i, _ in r] for r in in_memory]
    for a, b in zip(paths[0], in_memory, strict=True):
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12)
    assert all(paths[0])
    sqlite_store.close()


def test_mariadb_ranks_exactly_as_sqlite(tmp_path: Path) -> None:
    # FULLTEXT only proposes candidates; the scores come from the view's own statistics,
    # so they are SQLite's, CJK phrases and folded diacritics included, whatever bob holds.
    sqlite_store, server = SQLiteStore(tmp_path / "v.db"), _server_store()
    try:
        data = [
            *alice_data(),
            entry("accent", "Un café à Lisbonne", name="café"),
            entry("plain", "cafe lisbonne notes"),
            *_CJK_DATA,
        ]
        bobs = [entry(f"b{i}", "zebra apple 销售看板 数据中台 café", user="bob") for i in range(9)]
        put(sqlite_store, *data)
        put(server, *data, *bobs)  # bob only on the server: no score may move for it
        views = [View("alice", all_agents=True), View("alice"), View("alice", "a1")]
        for ours, theirs in (
            (scores_of(server, views), scores_of(sqlite_store, views)),
            (_cjk_scores(server), _cjk_scores(sqlite_store)),
        ):
            assert [[i for i, _ in r] for r in ours] == [[i for i, _ in r] for r in theirs]
            for a, b in zip(ours, theirs, strict=True):
                assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12)
            assert any(ours)
        found = server.keyword_search(views[0], index_text("café").split())
        assert sorted(e.id for e, _ in found) == ["accent", "plain"]
    finally:
        sqlite_store.close()
        server.close()
        mariadb.drop_created()


# -- PostgreSQL: the same numbers as SQLite, to the last bit


@pytest.mark.postgres
def test_postgres_scores_exactly_as_sqlite(tmp_path: Path) -> None:
    sqlite_store, pg_store = SQLiteStore(tmp_path / "v.db"), _store("postgres", tmp_path)
    data = [
        *alice_data(),
        entry("accent", "Un café à Lisbonne", name="café"),
        entry("plain", "cafe lisbonne notes"),
        *[entry(f"b{i}", "zebra apple coffee " * (i + 1), user="bob") for i in range(6)],
    ]
    cjk = [entry(f"x{e.id}", e.content, name=e.name, agent_id=e.agent_id) for e in _CJK_DATA]
    bobs = [entry(f"cb{i}", "销售看板 数据中台 销售看板", user="bob") for i in range(9)]
    for store in (sqlite_store, pg_store):
        put(store, *data, *cjk, *bobs)
    views = [View("alice", all_agents=True), View("alice"), View("alice", "a1")]
    assert scores_of(pg_store, views) == scores_of(sqlite_store, views)
    assert _cjk_scores(pg_store) == _cjk_scores(sqlite_store)  # phrases and bigrams too
    found = pg_store.keyword_search(views[0], index_text("café").split())
    assert sorted(e.id for e, _ in found) == ["accent", "plain"]
    sqlite_store.close()
    pg_store.close()


@pytest.mark.postgres
def test_postgres_keyword_stats_follow_every_write(tmp_path: Path) -> None:
    import psycopg

    url = postgres_database()
    store = open_store(url)
    put(store, *alice_data(), entry("b1", "bob words here", user="bob", agent_id="x"))

    def kept_and_recounted() -> tuple[list[tuple[str, str, int, int]], list[Any]]:
        with psycopg.connect(url) as conn:
            kept = conn.execute(
                "SELECT user_id, agent, entries, tokens FROM keyword_stats ORDER BY 1, 2"
            ).fetchall()
            counts: dict[tuple[str, str], list[int]] = {}
            for user, agent, head, body, extra in conn.execute(
                "SELECT user_id, coalesce(agent_id, ''), fts_head, fts_body, fts_extra "
                "FROM memories"
            ):
                row = counts.setdefault((user, agent), [0, 0])
                row[0] += 1
                row[1] += doc_length(SearchDoc(head, body, extra))
        return kept, [(u, a, n, t) for (u, a), (n, t) in sorted(counts.items())]

    kept, recounted = kept_and_recounted()
    assert kept == recounted

    def grow(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content=current.content + " and more words", agent_id="a5")
        return new, doc(new)

    store.update(View("alice", all_agents=True), "a1", grow)
    store.delete(View("alice", all_agents=True), ["a2", "a3", "twin1"])
    store.delete(View("bob", all_agents=True), ["b1"])
    kept, recounted = kept_and_recounted()
    assert kept == recounted
    assert not [row for row in kept if row[0] == "bob"]  # no trace of an emptied user
    store.close()
