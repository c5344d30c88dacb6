"""How the SQL written once (``stores.sql``) runs on MySQL / MariaDB (PyMySQL).

``%s`` marks; a read-modify-write locks the rows it reads (``FOR UPDATE``), and so does
a conflict's re-read, since a repeatable-read snapshot may be older than the row that
won; ``INSERT IGNORE`` and ``REPLACE``; keyset pages spelled out (the servers compare
rows, but plan the spelled-out form better); statements run on a cursor. A first save
is a plain insert: a row already there fails it on the duplicate key, which InnoDB
rolls back as that one statement only, and that is the conflict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pymysql

from ..sql.runner import Dialect, Runner, SQLBase
from .connection import MySQLConnection

DUPLICATE_KEY = 1062

DIALECT = Dialect(
    mark="%s",
    lock=" FOR UPDATE",
    reread=" FOR UPDATE",
    skip=("INSERT IGNORE", ""),
    replace="REPLACE",
    row_values=False,
)


class _Runner(Runner):
    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        self.raw.execute(sql, tuple(params))
        return list(self.raw.fetchall())

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return int(self.raw.execute(sql, tuple(params)))

    def insert_new(self, sql: str, params: Sequence[Any]) -> bool:
        try:
            return self.run(sql, params) == 1
        except pymysql.err.IntegrityError as exc:
            if not self.duplicate(exc):
                raise
            return False

    def duplicate(self, exc: BaseException) -> bool:
        return (
            isinstance(exc, pymysql.err.IntegrityError)
            and bool(exc.args)
            and exc.args[0] == DUPLICATE_KEY
        )


class MySQLBase(MySQLConnection, SQLBase):
    """The MySQL connections, handing out runners."""

    dialect = DIALECT
    runner = _Runner


__all__ = ["DIALECT", "MySQLBase"]
