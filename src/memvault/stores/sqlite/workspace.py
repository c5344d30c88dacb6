"""State cards, tasks and session links on SQLite (``stores.workspace_sql``).

Every write holds SQLite's write lock (``BEGIN IMMEDIATE``), so a compare-and-set cannot
interleave with another writer's, in this process or another.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...errors import StoreError
from ..workspace_sql import SQLWorkspace
from .connection import SQLiteConnection


class _Runner:
    mark = "?"
    locking = ""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def rows(self, sql: str, params: Sequence[Any]) -> list[Sequence[Any]]:
        return list(self._conn.execute(sql, tuple(params)).fetchall())

    def run(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._conn.execute(sql, tuple(params)).rowcount)

    def insert_new(self, sql: str, params: Sequence[Any]) -> bool:
        return self.run(sql + " ON CONFLICT DO NOTHING", params) == 1


class SQLiteWorkspace(SQLiteConnection, SQLWorkspace):
    """The workspace's tables in the SQLite file."""

    @contextmanager
    def _ws_read(self, what: str) -> Iterator[_Runner]:
        try:
            with self._read() as conn:
                yield _Runner(conn)
        except sqlite3.Error as exc:
            raise StoreError(f"{what} failed: {exc}") from exc

    @contextmanager
    def _ws_write(self, what: str) -> Iterator[_Runner]:
        try:
            with self._write() as conn:
                yield _Runner(conn)
        except sqlite3.Error as exc:
            raise StoreError(f"{what} failed and was rolled back: {exc}") from exc
