"""How the SQL written once (``stores.sql``) runs on PostgreSQL (psycopg 3).

``%s`` marks; a read-modify-write locks the rows it reads (``FOR UPDATE``); ``ON
CONFLICT DO NOTHING`` / ``DO UPDATE``; a list of ids is one array parameter
(``= ANY(%s)``); batches run through a cursor. A first save that meets an existing row
touches nothing (no error aborts an enclosing ``atomic()`` block), and a later save's
``UPDATE ... WHERE revision = ...`` re-checks the row after waiting for a concurrent
writer (read committed), so of two writers at the same revision only one wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg.errors

from ..sql.runner import Dialect, Runner, SQLBase
from .connection import PostgresConnection

DIALECT = Dialect(
    mark="%s",
    lock=" FOR UPDATE",
    reread="",
    skip=("INSERT", " ON CONFLICT DO NOTHING"),
    replace=None,
    arrays=True,
)


class _Runner(Runner):
    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.raw.cursor() as cur:
                cur.executemany(sql, [tuple(r) for r in rows])

    def duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, psycopg.errors.UniqueViolation)


class PostgresBase(PostgresConnection, SQLBase):
    """The PostgreSQL pool, handing out runners."""

    dialect = DIALECT
    runner = _Runner


__all__ = ["DIALECT", "PostgresBase"]
