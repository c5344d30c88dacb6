"""State cards, tasks and session links on PostgreSQL (``stores.workspace_sql``).

A first save inserts with ``ON CONFLICT DO NOTHING``: a concurrent first save waits for
the other's commit and then touches nothing, and no error aborts an enclosing
``atomic()`` block. A later save's ``UPDATE ... WHERE revision = ...`` re-checks the row
after waiting for a concurrent writer (read committed), so one of two writers wins.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from ..workspace_sql import SQLWorkspace
from .connection import PostgresConnection


class _Runner:
    mark = "%s"
    locking = ""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def rows(self, sql: str, params: Sequence[Any]) -> list[Sequence[Any]]:
        return list(self._conn.execute(sql, tuple(params)).fetchall())

    def run(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._conn.execute(sql, tuple(params)).rowcount)

    def insert_new(self, sql: str, params: Sequence[Any]) -> bool:
        return self.run(sql + " ON CONFLICT DO NOTHING", params) == 1


class PostgresWorkspace(PostgresConnection, SQLWorkspace):
    """The workspace's tables on the server."""

    @contextmanager
    def _ws_read(self, what: str) -> Iterator[_Runner]:
        with self._read(what) as conn:
            yield _Runner(conn)

    @contextmanager
    def _ws_write(self, what: str) -> Iterator[_Runner]:
        with self._write(what) as conn:
            yield _Runner(conn)
