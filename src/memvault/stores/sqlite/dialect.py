"""How the SQL written once (``stores.sql``) runs on SQLite.

``?`` marks; no row locks, since every write transaction is ``BEGIN IMMEDIATE`` and so
holds the database's one write lock before it reads; ``INSERT OR IGNORE`` and ``INSERT
OR REPLACE``; statements run on the connection itself. A query that names ids writes
the agent column ``+m.agent_id`` (``sql.clauses.view_clause``) to steer the planner,
and a query by entity names the graph index it reads by (``Dialect.using``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from ...errors import StoreError
from ..sql.runner import Dialect, Runner, SQLBase
from .connection import SQLiteConnection

DIALECT = Dialect(
    mark="?",
    lock="",
    reread="",
    skip=("INSERT OR IGNORE", ""),
    replace="INSERT OR REPLACE",
    agent_by_id="+m.agent_id",
    indexed_by=True,
    kept_counts=True,
)


class _Runner(Runner):
    def duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)


class SQLiteBase(SQLiteConnection, SQLBase):
    """The SQLite connections, handing out runners."""

    dialect = DIALECT
    runner = _Runner
    # Vectors and originals reference the entry's rowid.
    vector_join = "e.memory_pk = m.pk"
    original_where = "memory_pk = (SELECT pk FROM memories WHERE user_id = ? AND id = ?)"
    original_insert = (
        "INSERT INTO originals (memory_pk, sealed) "
        "SELECT pk, ?3 FROM memories WHERE user_id = ?1 AND id = ?2"
    )

    @contextmanager
    def _writing(self, what: str) -> Iterator[Runner]:
        try:
            with self._write(what) as conn:
                yield _Runner(DIALECT, conn)
        except sqlite3.Error as exc:
            raise StoreError(f"{what} failed and was rolled back: {exc}") from exc


__all__ = ["DIALECT", "SQLiteBase"]
