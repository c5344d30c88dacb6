"""``open_store``: which backend each URL or path opens, and the errors for the rest."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from memvault import ConfigError, MemoryStore, SQLiteStore, StoreError, StoreUnavailableError
from memvault.stores import open_store, sqlite_file


def test_a_plain_path_opens_sqlite(tmp_path: Path) -> None:
    for where in (tmp_path / "a.db", str(tmp_path / "b.db")):
        store = open_store(where)
        try:
            assert isinstance(store, SQLiteStore)
            assert Path(store.path) == Path(where)
        finally:
            store.close()
    assert (tmp_path / "a.db").exists() and (tmp_path / "b.db").exists()


def test_a_sqlite_url_names_an_absolute_path(tmp_path: Path) -> None:
    target = tmp_path / "with space" / "v.db"
    store = open_store("sqlite://" + str(target).replace(" ", "%20"), busy_timeout_ms=1234)
    try:
        assert isinstance(store, SQLiteStore)
        assert Path(store.path) == target
        assert store._busy_timeout_ms == 1234
    finally:
        store.close()
    assert target.exists()


def test_in_memory_sqlite_and_the_memory_store(tmp_path: Path) -> None:
    for url in ("sqlite:///:memory:", "sqlite://:memory:", ":memory:"):
        store = open_store(url)
        assert isinstance(store, SQLiteStore) and store.path == ":memory:", url
        store.close()
    store = open_store("memory://")
    assert isinstance(store, MemoryStore)
    store.close()
    assert list(tmp_path.iterdir()) == []


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once the socket closes


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "postgresql+psycopg"])
def test_an_unreachable_postgres_server_is_store_unavailable_without_the_password(
    scheme: str,
) -> None:
    url = f"{scheme}://memvault:hunter2@127.0.0.1:{_closed_port()}/memvault"
    with pytest.raises(StoreUnavailableError, match="cannot be reached") as caught:
        open_store(url)
    assert "hunter2" not in str(caught.value)  # the URL may hold a password
    assert "running" in str(caught.value)  # and it says what to do


def test_a_postgres_url_without_a_database_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="names no database") as caught:
        open_store("postgresql://memvault:hunter2@127.0.0.1:5432")
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    "scheme", ["mysql", "mysql+pymysql", "mariadb", "mariadb+pymysql", "MySQL"]
)
def test_mysql_urls_open_the_mysql_store_and_never_show_the_password(scheme: str) -> None:
    # A loopback port where nothing listens: the connection is refused at once.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StoreError, match="unreachable") as caught:
        open_store(f"{scheme}://memvault:hunter2@127.0.0.1:{port}/memvault?connect_timeout=2")
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://u:hunter2@db/", "names no database"),
        ("mysql://u:hunter2@db:99999/v", "malformed"),
        ("mysql://u:hunter2@db/v?colour=red", "unknown mysql:// URL option 'colour'"),
        ("mysql://u:hunter2@db/v?statement_timeout_ms=-1", "positive whole number"),
    ],
)
def test_bad_mysql_urls_are_config_errors_without_the_password(url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as caught:
        open_store(url)
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis://localhost/0", "unknown store scheme 'redis'"),
        ("sqlite://host/v.db", "no host"),
        ("sqlite:///", "names no file"),
        ("sqlite:///v.db?mode=ro", "no ?query"),
        ("memory://somewhere", "takes no path"),
        ("", "empty"),
    ],
)
def test_bad_locations_are_config_errors(url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("?", r"\?")):
        open_store(url)


def test_four_slashes_name_the_same_absolute_file(tmp_path: Path) -> None:
    store = open_store("sqlite:///" + str(tmp_path / "v.db"))
    try:
        assert Path(store.path) == tmp_path / "v.db"  # type: ignore[attr-defined]
    finally:
        store.close()


def test_sqlite_file_says_which_file_a_location_opens(tmp_path: Path) -> None:
    assert sqlite_file(tmp_path / "a.db") == tmp_path / "a.db"
    assert sqlite_file(str(tmp_path / "a.db")) == tmp_path / "a.db"
    assert sqlite_file("~/x.db") == Path("~/x.db").expanduser()
    assert sqlite_file("sqlite:///srv/v%20x.db") == Path("/srv/v x.db")
    for other in (":memory:", "sqlite:///:memory:", "memory://", "postgresql://u:p@h/db"):
        assert sqlite_file(other) is None, other
    with pytest.raises(ConfigError):
        sqlite_file("sqlite://host/v.db")
