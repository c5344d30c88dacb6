"""State cards, tasks and session links on MySQL / MariaDB (``stores.workspace_sql``).

A first save is a plain insert: a row already there fails it on the duplicate key,
which InnoDB rolls back as that one statement only, and that is the conflict. A
conflict's re-read is a locking read, since a repeatable-read snapshot may be older
than the row that won.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pymysql

from ..workspace_sql import SQLWorkspace
from .connection import MySQLConnection

_DUPLICATE_KEY = 1062


class _Runner:
    mark = "%s"
    locking = " FOR UPDATE"

    def __init__(self, cur: Any) -> None:
        self._cur = cur

    def rows(self, sql: str, params: Sequence[Any]) -> list[Sequence[Any]]:
        self._cur.execute(sql, tuple(params))
        return list(self._cur.fetchall())

    def run(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._cur.execute(sql, tuple(params)))

    def insert_new(self, sql: str, params: Sequence[Any]) -> bool:
        try:
            return self.run(sql, params) == 1
        except pymysql.err.IntegrityError as exc:
            if not exc.args or exc.args[0] != _DUPLICATE_KEY:
                raise
            return False


class MySQLWorkspace(MySQLConnection, SQLWorkspace):
    """The workspace's tables on the server."""

    @contextmanager
    def _ws_read(self, what: str) -> Iterator[_Runner]:
        with self._read(what) as cur:
            yield _Runner(cur)

    @contextmanager
    def _ws_write(self, what: str) -> Iterator[_Runner]:
        with self._write(what) as cur:
            yield _Runner(cur)
