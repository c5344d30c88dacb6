"""What only the MySQL / MariaDB store has: a server that can go away, logins, the
server settings keyword search needs, and a ``Vault`` on top of it.

The store contract itself is checked on MariaDB by ``tests/stores/conformance``. The
tests here run their own throw-away server, since they stop and restart it.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator

import pytest

from memvault import ConfigError, MemoryEntry, StoreError, Vault, VaultConfig
from memvault.stores import open_store
from memvault.stores.mysql import MySQLStore
from memvault.stores.mysql.schema import LATEST_VERSION
from memvault.stores.values import SearchDoc
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


def test_a_server_that_drops_short_words_is_refused_with_the_settings_to_use(
    own_server: mariadb.MariaDB,
) -> None:
    url = mariadb.fresh_database(own_server.url())
    own_server.stop()
    own_server.start("--innodb-ft-min-token-size=3")  # MariaDB's default
    try:
        with pytest.raises(ConfigError, match="innodb_ft_min_token_size=1"):
            open_store(url)
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


def test_upgrading_fills_the_keyword_terms_and_scores_stay_the_same(
    own_server: mariadb.MariaDB,
) -> None:
    # Migration 9 builds keyword_terms from the rows already stored: after the upgrade
    # the server ranks in SQL, with the scores the FULLTEXT path gave before it.
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
    queries = ("apple", "zebra apple", "lisbon", "x" * 300)

    def results(store: MySQLStore) -> list[list[tuple[str, float]]]:
        return [
            [(e.id, s) for e, s in store.keyword_search(OWNER, index_text(q).split())]
            for q in queries
        ]

    before = results(old)
    old.close()
    new = open_store(url)
    try:
        assert isinstance(new, MySQLStore) and new.term_table
        after = results(new)
        assert [[i for i, _ in r] for r in after] == [["a", "b"], ["a", "b", "c"], ["c"], ["e"]]
        # FULLTEXT never indexed a word over 84 characters; keyword_terms holds any.
        assert before[3] == []
        assert [[i for i, _ in r] for r in after[:3]] == [[i for i, _ in r] for r in before[:3]]
        for ours, theirs in zip(after[:3], before[:3], strict=True):
            assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-12)
    finally:
        new.close()
