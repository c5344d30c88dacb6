"""What only the MySQL / MariaDB store has: a server that can go away, logins, its
keyword terms across upgrades, and a ``Vault`` on top of it.

The store contract itself is checked on MariaDB by ``tests/stores/conformance``. The
tests here run their own throw-away server, since they stop and restart it.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from memvault import MemoryEntry, MigrationError, Store, StoreError, Vault, VaultConfig
from memvault.stores import open_store
from memvault.stores.mysql import MySQLStore
from memvault.stores.mysql.schema import LATEST_VERSION
from memvault.stores.sqlite import SQLiteStore
from memvault.stores.values import Mutation, SearchDoc, View
from memvault.text import index_text
from tests.servers import mariadb
from tests.stores.conformance.support import OWNER, doc, entry, hit_ids, put

SERVER_BACKENDS = True  # the vault tests below run on MariaDB too (conftest)


@pytest.fixture(scope="module")
def own_server() -> Iterator[mariadb.MariaDB]:
    if shutil.which("mariadbd") is None or shutil.which("mariadb-install-db") is None:
        pytest.fail("no MariaDB installed here: make test installs mariadb-server (apt)")
    server = mariadb.MariaDB()
    try:
        server.install()
        server.start()
        server.create_user()
        yield server
    finally:
        server.remove()


def test_a_stopped_server_gives_store_errors_and_the_store_recovers(
    own_server: mariadb.MariaDB,
) -> None:
    url = mariadb.fresh_database(own_server.url()) + "?connect_timeout=3"
    store = open_store(url)
    try:
        put(store, entry("e1", "walrus tusks"))
        own_server.stop()
        for call in (
            lambda: store.get(OWNER, "e1"),
            lambda: put(store, entry("e2", "narwhal")),
            lambda: store.keyword_search(OWNER, ["walrus"]),
        ):
            with pytest.raises(StoreError, match=r"unreachable.*retry") as caught:
                call()
            assert own_server.password not in str(caught.value)
        own_server.start()
        # The same store object, no reopening: the next call connects again.
        assert store.get(OWNER, "e1") is not None
        put(store, entry("e2", "narwhal"))
        assert hit_ids(store, OWNER, "narwhal") == ["e2"]
        assert store.count(OWNER) == 2  # the failed insert left nothing behind
    finally:
        store.close()


def test_a_server_with_the_default_full_text_settings_finds_short_words(
    own_server: mariadb.MariaDB,
) -> None:
    # Keyword search reads keyword_terms, not a FULLTEXT index (migration 10), so the
    # server's innodb_ft_* settings no longer matter: MariaDB's defaults drop words of
    # under three characters and stop words from FULLTEXT, none of them from the terms.
    url = mariadb.fresh_database(own_server.url())
    own_server.stop()
    own_server.start("--innodb-ft-min-token-size=3", "--innodb-ft-enable-stopword=ON")
    try:
        store = open_store(url)
        try:
            put(store, entry("go", "we use go and ai at work"), entry("zh", "周杰伦 的 歌"))
            put(store, entry("other", "something about the weather"))
            assert hit_ids(store, OWNER, "go") == ["go"]
            assert hit_ids(store, OWNER, "ai") == ["go"]
            assert hit_ids(store, OWNER, "杰伦") == ["zh"]
        finally:
            store.close()
    finally:
        own_server.stop()
        own_server.start()


def test_a_wrong_password_or_database_says_what_to_fix_without_the_password(
    own_server: mariadb.MariaDB,
) -> None:
    wrong = own_server.url("mysql").replace(own_server.password, "not-the-password-42")
    with pytest.raises(StoreError, match="refused the login of user 'memvault'") as caught:
        open_store(wrong)
    assert "not-the-password-42" not in str(caught.value)
    with pytest.raises(StoreError, match="CREATE DATABASE") as caught:
        open_store(own_server.url("no_such_db"))
    assert own_server.password not in str(caught.value)


def test_the_schema_is_recorded_and_a_second_open_applies_nothing(
    own_server: mariadb.MariaDB,
) -> None:
    url = mariadb.fresh_database(own_server.url())
    first = open_store(url)
    second = open_store(url)
    try:
        assert isinstance(first, MySQLStore) and isinstance(second, MySQLStore)
        every = list(range(1, LATEST_VERSION + 1))
        assert first.applied_migrations == every and second.applied_migrations == []
        health = second.health()
        assert health["backend"] == "mariadb" and health["schema_version"] == LATEST_VERSION
        assert own_server.password not in repr(health)
    finally:
        first.close()
        second.close()


# -- a Vault on every backend (MariaDB included, see SERVER_BACKENDS above)


def test_a_vault_adds_finds_changes_and_forgets(vault: Vault) -> None:
    e = vault.add("Alice writes Go services", user_id="alice", kind="user")
    vault.add("公司的数据仓库用的是 ClickHouse", user_id="alice", kind="project")
    vault.add("Bob writes Go too", user_id="bob")
    assert [h.entry.id for h in vault.search("go services", user_id="alice")] == [e.id]
    assert [h.entry.content for h in vault.search("数据仓库", user_id="alice")] == [
        "公司的数据仓库用的是 ClickHouse"
    ]
    vault.update(e.id, user_id="alice", content="Alice writes Rust services")
    assert [h.entry.id for h in vault.search("rust", user_id="alice")] == [e.id]
    assert vault.search("go", user_id="alice") == []
    vault.delete(e.id, user_id="alice")
    assert vault.search("rust", user_id="alice") == []
    assert [h.entry.content for h in vault.search("go", user_id="bob")] == ["Bob writes Go too"]


def test_vault_context_works_on_every_backend(vault: Vault, config: VaultConfig) -> None:
    vault.add("Alice prefers answers in bullet points", user_id="alice", kind="feedback")
    block = vault.context("how should answers be formatted? bullet points", user_id="alice")
    assert "bullet points" in block


# -- many threads on one store


def test_concurrent_read_modify_writes_of_one_entry_lose_no_update() -> None:
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    store = open_store(mariadb.fresh_database())
    try:
        put(store, entry("counter", "count", metadata={"n": 0}))

        def bump(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            new = current.replace(metadata={"n": current.metadata["n"] + 1})
            return new, doc(new)

        def work(worker: int) -> None:
            for i in range(10):
                store.update(OWNER, "counter", bump)
                put(store, entry(f"w{worker}-{i}", f"note {worker} {i}"))

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert store.get(OWNER, "counter").metadata == {"n": 40}  # type: ignore[union-attr]
        assert store.count(OWNER) == 41
        assert len(hit_ids(store, OWNER, "note")) == 10  # the default limit, all visible
    finally:
        store.close()
        mariadb.drop_created()


def test_a_connection_idle_across_a_restart_is_replaced_without_an_error(
    own_server: mariadb.MariaDB, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memvault.stores.mysql import connection

    store = open_store(mariadb.fresh_database(own_server.url()))
    try:
        put(store, entry("e1", "walrus tusks"))
        own_server.stop()
        own_server.start()
        monkeypatch.setattr(connection, "_PING_AFTER_S", 0.0)  # as if idle for long
        assert store.get(OWNER, "e1") is not None  # pinged, found dead, reconnected
    finally:
        store.close()


def _same_scores(
    ours: Store, theirs: Store, queries: Sequence[str], views: Sequence[View] = (OWNER,)
) -> None:
    for view, query in ((v, q) for v in views for q in queries):
        terms = index_text(query).split()
        a = [(e.id, s) for e, s in ours.keyword_search(view, terms)]
        b = [(e.id, s) for e, s in theirs.keyword_search(view, terms)]
        assert [i for i, _ in a] == [i for i, _ in b] and a, query
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12)


def test_upgrading_fills_the_keyword_terms_and_scores_are_sqlites(
    own_server: mariadb.MariaDB, tmp_path: Path
) -> None:
    # Migration 9 builds keyword_terms from the rows already stored: after the upgrade
    # the server ranks in SQL with SQLite's scores, and finds tokens of any length.
    url = mariadb.fresh_database(own_server.url())
    old = MySQLStore(url, migrate_to=8)
    data = [
        entry("a", "zebra apple pie", name="apple"),
        entry("b", "apple crumble and apple juice"),
        entry("c", "zebra crossing in Lisbon", agent_id="a1"),
        entry("d", "nothing here", user="bob"),
        entry("e", "x" * 300 + " long token"),
        *(entry(f"f{i}", f"filler words number {i}") for i in range(6)),
    ]
    put(old, *data)
    with pytest.raises(MigrationError, match="without migrate_to"):
        old.keyword_search(OWNER, ["apple"])  # an old schema has nothing to search
    old.close()
    new = open_store(url)
    sqlite = SQLiteStore(tmp_path / "v.db")
    try:
        assert isinstance(new, MySQLStore) and new.term_table
        put(sqlite, *data)
        assert hit_ids(new, OWNER, "x" * 300) == ["e"]
        _same_scores(new, sqlite, ("apple", "zebra apple", "lisbon", "x" * 300))
    finally:
        new.close()
        sqlite.close()


def _rewrite(content: str) -> Mutation:
    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = replace(current, content=content)
        return new, doc(new)

    return mutate


def test_what_an_old_process_wrote_after_the_upgrade_is_found_and_fulltext_is_gone(
    own_server: mariadb.MariaDB, tmp_path: Path
) -> None:
    # A process opened before migration 9 goes on writing without keyword terms while
    # another one upgrades: migration 10 indexes what it added or changed, then drops
    # the FULLTEXT index that only made every write slower.
    url = mariadb.fresh_database(own_server.url())
    old = MySQLStore(url, migrate_to=8)
    put(old, entry("a", "walrus tusks"), entry("b", "plain text here"), entry("z", "zebra"))
    upgraded = MySQLStore(url, migrate_to=9)  # back-fills a, b and z
    put(old, entry("c", "walrus again", agent_id="a1"))  # no terms
    old.update(OWNER, "b", _rewrite("a walrus story"))  # b's terms still say "plain text"
    assert hit_ids(upgraded, OWNER, "walrus") == ["a"]
    upgraded.close()
    old.close()
    new = open_store(url)
    sqlite = SQLiteStore(tmp_path / "v.db")
    try:
        assert isinstance(new, MySQLStore) and new.schema_version() == LATEST_VERSION
        assert sorted(hit_ids(new, OWNER, "walrus")) == ["a", "b", "c"]
        assert hit_ids(new, OWNER, "plain") == []
        put(
            sqlite,
            entry("a", "walrus tusks"),
            entry("b", "a walrus story"),
            entry("z", "zebra"),
            entry("c", "walrus again", agent_id="a1"),
        )
        views = (OWNER, View("alice", "a1"), View("alice", "a2"))
        _same_scores(new, sqlite, ("walrus", "zebra", "walrus story"), views)
        with new._read() as cur:
            cur.execute(
                "SELECT count(*) FROM information_schema.statistics "
                "WHERE table_schema = DATABASE() AND index_type = 'FULLTEXT'"
            )
            assert cur.fetchone()[0] == 0
    finally:
        new.close()
        sqlite.close()
