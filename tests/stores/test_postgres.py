"""What the PostgreSQL store does beyond the shared contract: nearest-neighbour search
in the database (one HNSW index per vector size), commits of other processes seen
through LISTEN/NOTIFY, statement timeouts, and a server that goes away and returns.

The contract itself (entries, keyword, vectors, reveal, atomic) runs on PostgreSQL in
``tests/stores/conformance``. Everything here uses a real server
(``tests/servers/postgres.py``).
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from memvault import StoreError, StoreUnavailableError, ValidationError
from memvault.stores import open_store
from memvault.stores.postgres import PostgresStore
from memvault.stores.postgres.connection import conninfo_of
from memvault.stores.values import SearchDoc, VectorItem, View
from tests.cli_process import run_cli
from tests.servers import postgres
from tests.stores.conformance.support import MODEL, OWNER, entry, hit_ids, put
from tests.waiting import until

pytestmark = pytest.mark.postgres


@pytest.fixture
def url() -> str:
    return postgres.postgres_database()


@pytest.fixture
def store(url: str) -> Iterator[PostgresStore]:
    opened = open_store(url)
    assert isinstance(opened, PostgresStore)
    yield opened
    opened.close()


def _with_vectors(
    store: PostgresStore, user: str, vectors: np.ndarray, prefix: str = "", **fields: Any
) -> None:
    entries = [
        entry(f"{prefix}{user}-{i}", f"note {i}", user=user, **fields) for i in range(len(vectors))
    ]
    put(store, *entries)
    items = [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, vectors, strict=True)]
    assert len(store.put_vectors(user, MODEL, items)) == len(items)


def _exact(vectors: np.ndarray, ids: list[str], query: np.ndarray, k: int) -> list[str]:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = unit @ (query / np.linalg.norm(query))
    return [ids[i] for i in np.argsort(-sims, kind="stable")[:k]]


@pytest.mark.parametrize("path", ["exact", "hnsw"])
def test_nearest_finds_the_most_similar_of_the_users_own_vectors(
    store: PostgresStore, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memvault.stores.postgres.vectors as pg_vectors

    if path == "hnsw":
        monkeypatch.setattr(pg_vectors, "EXACT_BELOW", 1)
    rng = np.random.default_rng(7)
    mine = rng.normal(size=(200, 16)).astype(np.float32)
    _with_vectors(store, "alice", mine)
    _with_vectors(store, "bob", rng.normal(size=(300, 16)).astype(np.float32))
    ids = [f"alice-{i}" for i in range(len(mine))]
    for q in rng.normal(size=(5, 16)).astype(np.float32):
        found = store.nearest(OWNER, MODEL, q, k=10)
        assert [i for i, _ in found] == _exact(mine, ids, q, 10)
        sims = [s for _, s in found]
        assert sims == sorted(sims, reverse=True) and -1.0 <= sims[-1] <= sims[0] <= 1.0
    assert store.nearest(View("carol"), MODEL, mine[0]) == []


def test_nearest_keeps_to_the_view_and_the_model(store: PostgresStore) -> None:
    rng = np.random.default_rng(3)
    _with_vectors(store, "alice", rng.normal(size=(5, 4)).astype(np.float32))
    _with_vectors(store, "alice", rng.normal(size=(5, 4)).astype(np.float32), "p", agent_id="a1")
    query = np.ones(4, "f4")
    shared = {i for i, _ in store.nearest(View("alice"), MODEL, query, k=50)}
    assert shared == {f"alice-{i}" for i in range(5)}
    with_a1 = {i for i, _ in store.nearest(View("alice", "a1"), MODEL, query, k=50)}
    assert with_a1 == shared | {f"palice-{i}" for i in range(5)}
    assert {i for i, _ in store.nearest(View("alice", "a2"), MODEL, query, k=50)} == shared
    assert store.nearest(OWNER, "another-model", np.ones(4, "f4")) == []
    with pytest.raises(ValidationError):
        store.nearest(OWNER, MODEL, np.array([np.nan, 1, 1, 1], "f4"))


def test_one_hnsw_index_per_vector_size_whatever_the_number_of_users(
    store: PostgresStore, url: str
) -> None:
    rng = np.random.default_rng(1)
    for n in range(40):
        _with_vectors(store, f"user{n}", rng.normal(size=(2, 8)).astype(np.float32))
    _with_vectors(store, "small", rng.normal(size=(2, 4)).astype(np.float32))
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'embeddings' "
            "AND indexdef LIKE '%%hnsw%%' ORDER BY 1"
        ).fetchall()
    assert [r[0] for r in rows] == ["embeddings_hnsw_4", "embeddings_hnsw_8"]


def test_without_pgvector_vectors_are_searched_in_the_application() -> None:
    # A schema without the pgvector column stands for a server without the extension.
    url = postgres.empty_database()
    PostgresStore(url).close()
    with psycopg.connect(conninfo_of(url), autocommit=True) as conn:
        conn.execute("ALTER TABLE embeddings DROP COLUMN vec")
    plain = PostgresStore(url)
    try:
        assert plain.pgvector is None
        assert "in the application" in plain.health()["vector_search"]
        vectors = np.eye(3, dtype=np.float32)
        _with_vectors(plain, "alice", vectors)
        found = plain.nearest(OWNER, MODEL, np.array([0, 1, 0.1], "f4"), k=2)
        assert [i for i, _ in found] == ["alice-1", "alice-2"]
    finally:
        plain.close()


def _wait_for(condition: Any, what: str) -> None:
    """Poll ``condition`` until it holds (a bound against hanging, not a timed check)."""
    assert until(condition, timeout=30), f"gave up waiting for {what}"


def test_another_stores_commit_moves_the_change_counter_and_the_vector_log(url: str) -> None:
    # Two stores on one database stand for two processes (each has its own connections).
    mine, theirs = open_store(url), open_store(url)
    try:
        (e1,) = put(theirs, entry("e1", "one"))
        before = mine.change_counter()
        loaded = mine.load_vectors("alice", MODEL)
        assert loaded.ids == []
        theirs.put_vectors("alice", MODEL, [VectorItem("e1", e1.updated_at, np.ones(3, "f4"))])
        _wait_for(lambda: mine.change_counter() != before, "the notification of the commit")
        changes = mine.vector_changes("alice", MODEL, loaded.mark)
        assert changes is not None and changes.vectors.ids == ["e1"] and changes.removed == []
        theirs.delete(OWNER, ["e1"])
        later = mine.vector_changes("alice", MODEL, changes.mark)
        assert later is not None and later.removed == ["e1"] and later.mark > changes.mark
        # Bob's log rows are his: alice's position does not move with them.
        (b1,) = put(theirs, entry("b1", "bob's", user="bob"))
        theirs.put_vectors("bob", MODEL, [VectorItem("b1", b1.updated_at, np.ones(3, "f4"))])
        unchanged = mine.vector_changes("alice", MODEL, later.mark)
        assert unchanged is not None and unchanged.mark == later.mark
        assert unchanged.vectors.ids == [] and unchanged.removed == []
    finally:
        mine.close()
        theirs.close()


def test_a_stores_own_commits_do_not_move_its_change_counter(url: str) -> None:
    """As SQLite's ``data_version``: the engine keeps its caches current with its own
    writes, and a counter that moved on them made it read again what it had (the
    person names of a user, on every search that followed a write)."""
    mine, theirs = open_store(url), open_store(url)
    try:
        before = mine.change_counter()  # listening from here
        put(mine, entry("m1", "mine"))
        put(theirs, entry("t1", "theirs"))  # notified after mine: delivered after it
        _wait_for(lambda: mine.change_counter() != before, "the notification of theirs")
        assert mine.change_counter() == before + 1  # theirs alone
    finally:
        mine.close()
        theirs.close()


def test_a_statement_that_waits_too_long_is_ended_by_the_timeout(url: str) -> None:
    store = PostgresStore(url, statement_timeout_ms=300)
    put(store, entry("e1", "locked soon"))
    holder = psycopg.connect(url)
    try:
        holder.execute("SELECT 1 FROM memories WHERE id = 'e1' FOR UPDATE")  # keeps the lock

        def retitle(current: Any) -> Any:
            raise AssertionError("never reached: the row stays locked")

        with pytest.raises(StoreError, match="statement timeout") as caught:
            store.update(OWNER, "e1", retitle)
        assert "raise statement_timeout_ms" in str(caught.value)
        assert not isinstance(caught.value, StoreUnavailableError)
    finally:
        holder.rollback()
        holder.close()
    assert store.get(OWNER, "e1") is not None  # and the store goes on working
    store.close()


def test_a_server_that_goes_away_gives_store_unavailable_and_the_pool_recovers(
    url: str,
) -> None:
    server = postgres.running_server()
    if server is None:
        pytest.skip("the server is external: this test stops and restarts its own")
    # A call waits up to connect_timeout_s for a connection before it gives up.
    store = PostgresStore(url, connect_timeout_s=1)
    put(store, entry("e1", "before the outage"))
    counted = store.change_counter()  # its listening connection breaks with the server
    server.stop()
    try:
        for call in (
            lambda: store.get(OWNER, "e1"),
            lambda: put(store, entry("e2", "during the outage")),
            lambda: hit_ids(store, OWNER, "outage"),
        ):
            with pytest.raises(StoreUnavailableError, match="cannot be reached") as caught:
                call()
            assert "running" in str(caught.value) and "retry" in str(caught.value)
            assert "postgresql://" not in str(caught.value)
    finally:
        server.start()
    # The same store serves again: broken connections were replaced, nothing was lost.
    assert store.get(OWNER, "e1") is not None
    assert store.get(OWNER, "e2") is None
    put(store, entry("e3", "after the outage"))
    assert hit_ids(store, OWNER, "outage") == ["e1", "e3"]
    assert store.change_counter() != counted  # a new listener: callers refresh their caches
    store.close()


def test_the_first_call_after_a_long_outage_is_served_while_the_pool_still_pauses(
    url: str,
) -> None:
    """The pool's pauses between reconnection attempts grow while the server is down
    (here past the one-second wait of a call); the first call after it is back must
    not fail for that."""
    server = postgres.running_server()
    if server is None:
        pytest.skip("the server is external: this test stops and restarts its own")
    store = PostgresStore(url, connect_timeout_s=1)
    put(store, entry("e1", "before the outage"))
    server.stop()
    try:
        for _ in range(3):  # each call fails; the pool keeps trying with growing pauses
            with pytest.raises(StoreUnavailableError):
                store.get(OWNER, "e1")
        time.sleep(2.5)
    finally:
        server.start()
    assert store.get(OWNER, "e1") is not None
    put(store, entry("e2", "after the outage"))
    assert hit_ids(store, OWNER, "outage") == ["e1", "e2"]
    store.close()


def _cli(tmp_path: Path, store_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(tmp_path / "home", *args, store=store_url)


def test_the_cli_runs_on_postgres_and_doctor_names_pgvector_not_the_password(
    url: str, tmp_path: Path
) -> None:
    with_password = url.replace("postgresql://postgres@", "postgresql://postgres:hunter2@", 1)
    added = _cli(tmp_path, with_password, "add", "--user", "alice", "Alice runs Postgres")
    assert added.returncode == 0, added.stderr
    found = _cli(tmp_path, with_password, "search", "--user", "alice", "postgres", "--json")
    assert found.returncode == 0 and "Alice runs Postgres" in found.stdout, found.stderr
    doctor = _cli(tmp_path, with_password, "doctor")
    assert doctor.returncode == 0, doctor.stderr
    assert "store backend: postgresql" in doctor.stdout
    assert "store vector_search: pgvector" in doctor.stdout
    assert "postgres:***@" in doctor.stdout and "hunter2" not in doctor.stdout


def test_the_cli_says_in_one_line_when_the_server_cannot_be_reached(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = _cli(tmp_path, f"postgresql://u:hunter2@127.0.0.1:{port}/db", "doctor")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be reached" in lines[0] and "hunter2" not in lines[0]


def test_a_database_that_does_not_exist_is_a_store_error_saying_so(url: str) -> None:
    missing = url.rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(StoreError, match="does not exist") as caught:
        open_store(missing)
    assert not isinstance(caught.value, StoreUnavailableError)  # retrying will not help
    assert "database name" in str(caught.value)


def test_another_store_sees_nothing_before_the_outer_commit(url: str) -> None:
    writer, reader = open_store(url), open_store(url)
    try:
        with writer.atomic():
            put(writer, entry("e1", "pending"))
            with writer.atomic():
                put(writer, entry("e2", "pending too"))
            assert reader.count(OWNER) == 0
            assert hit_ids(reader, OWNER, "pending") == []
        assert reader.count(OWNER) == 2
        with pytest.raises(RuntimeError), writer.atomic():
            put(writer, entry("e3", "never"))
            raise RuntimeError("undo")
        assert reader.count(OWNER) == 2 and writer.count(OWNER) == 2
    finally:
        writer.close()
        reader.close()


def test_concurrent_read_modify_writes_of_one_entry_lose_no_update(url: str) -> None:
    # Several stores (as several processes would) and threads bump one counter: each
    # update reads and writes under the row's lock, so every increment survives.
    stores = [open_store(url) for _ in range(3)]
    put(stores[0], entry("e1", "counted"))

    def bump(current: Any) -> Any:
        new = current.replace(access_count=current.access_count + 1)
        return new, SearchDoc(head="", body="counted")

    def work(store: Any) -> None:
        for _ in range(20):
            store.update(OWNER, "e1", bump)

    threads = [threading.Thread(target=work, args=(s,)) for s in stores for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    try:
        assert stores[1].get(OWNER, "e1").access_count == 120  # type: ignore[union-attr]
    finally:
        for s in stores:
            s.close()


def test_a_delete_racing_a_vector_batch_loses_only_that_vector(
    store: PostgresStore, url: str
) -> None:
    """A batch of vectors whose entry is deleted meanwhile stores the others: the batch
    locks its entries' keys before writing, so it waits for the delete and skips the
    deleted entry instead of failing on the foreign key."""
    entries = [entry(f"race-{i}", f"note {i}", user="racer") for i in range(3)]
    warm = entry("warm-0", "warm", user="warmer")  # the 8-d index exists before the race
    put(store, warm, *entries)
    store.put_vectors("warmer", MODEL, [VectorItem(warm.id, warm.updated_at, np.ones(8))])
    items = [VectorItem(e.id, e.updated_at, np.ones(8, dtype=np.float32)) for e in entries]
    outcome: dict[str, Any] = {}

    def write() -> None:
        try:
            outcome["stored"] = store.put_vectors("racer", MODEL, items)
        except Exception as exc:  # reported below, not lost in the thread
            outcome["error"] = exc

    with psycopg.connect(url) as deleter, psycopg.connect(url, autocommit=True) as watcher:
        deleter.execute("DELETE FROM memories WHERE user_id = 'racer' AND id = 'race-1'")
        writer = threading.Thread(target=write)
        writer.start()

        # Commit the delete only once the batch waits on the deleting transaction.
        def blocked() -> tuple[int] | None:
            return watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND wait_event = 'transactionid' AND datname = current_database()"
            ).fetchone()

        until(lambda: (row := blocked()) is not None and row[0] > 0, timeout=30)
        waiting = blocked()
        assert waiting and waiting[0] > 0, "the batch never waited for the delete"
        deleter.commit()
        writer.join(60)
    assert "error" not in outcome, outcome.get("error")
    assert sorted(outcome["stored"]) == ["race-0", "race-2"]


def test_imported_entries_get_their_vectors_when_the_worker_runs_before_the_commit(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An import writes its entries inside one transaction. The embedding worker reads
    # them on a connection of its own: told before the commit, it found none of them,
    # stored no vector, and the imported memories were found by keyword only (the
    # sharding test's "moved" user, now and then). Here the worker is made to finish
    # while the import's transaction is still open, every time.
    from memvault import Vault, load_config
    from memvault.embed import HashingEmbedder

    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    vault = Vault(url, config=config, embedder=HashingEmbedder())
    try:
        vault.add_many(
            [{"content": f"alpaca note {i}", "id": f"n{i}"} for i in range(3)], user_id="a"
        )
        assert vault.flush(timeout=60)
        records = list(vault.export(user_id="a"))
        writer = vault._e.transfer.writer
        insert = writer.insert

        def insert_then_let_the_worker_run(built: Any) -> Any:
            stored = insert(built)
            assert vault.flush(timeout=60)  # the import's transaction is still open
            return stored

        monkeypatch.setattr(writer, "insert", insert_then_let_the_worker_run)
        vault.import_(records, user_id="b")
        monkeypatch.undo()
        assert vault.flush(timeout=60)
        assert sorted(vault.store.load_vectors("b", vault.embedder.name).ids) == ["n0", "n1", "n2"]
    finally:
        vault.close()


def test_keyword_keys_with_quotes_backslashes_and_braces_are_stored_as_they_are(
    store: PostgresStore,
) -> None:
    # A batch is copied in with its keyword arrays written as array literals: whatever
    # a token holds comes back the same and is found.
    odd = ['a"b', "c\\d", "{x,y}", "NULL", "e,f", "plain"]
    e = entry("odd", "odd tokens")
    store.insert([(e, SearchDoc(head="", body=" ".join(odd)))])
    with store._read() as conn:
        keys, tf = conn.execute(
            "SELECT fts_keys, fts_tf_body FROM memories WHERE user_id = %s AND id = %s",
            (e.user_id, e.id),
        ).fetchone()
    assert keys[1:] == odd and tf == [0, 1, 1, 1, 1, 1, 1]
    for token in odd:
        assert [x.id for x, _ in store.keyword_search(OWNER, [token])] == ["odd"], token


def test_a_connection_given_back_whole_is_lent_again_unchecked_for_a_second(url: str) -> None:
    """The pool's check is a round trip; one given back whole within ``FRESH_S`` is lent
    without it. Older, it is checked: a connection the server ended is found out."""
    from memvault.stores.postgres.connection import FRESH_S, _Check

    clock = [0.0]
    check = _Check(monotonic=lambda: clock[0])
    with (
        psycopg.connect(conninfo_of(url), autocommit=True) as conn,
        psycopg.connect(conninfo_of(url), autocommit=True) as admin,
    ):
        check.given_back(conn)
        pid = conn.info.backend_pid
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        gone = "SELECT count(*) FROM pg_stat_activity WHERE pid = %s"
        assert until(lambda: admin.execute(gone, (pid,)).fetchone() == (0,), timeout=30)
        clock[0] += FRESH_S / 2
        check(conn)  # not looked at: lent as it is
        check.given_back(conn)
        clock[0] += FRESH_S
        with pytest.raises(psycopg.OperationalError):
            check(conn)  # looked at: the server ended it
        assert conn.broken or conn.closed
        check.given_back(conn)  # a broken one is not noted: checked next time
        with pytest.raises(psycopg.Error):
            check(conn)
