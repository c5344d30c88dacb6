"""How the SQL written once (``stores.sql``) runs on PostgreSQL (psycopg 3).

``%s`` marks; a read-modify-write locks the rows it reads (``FOR UPDATE``); ``ON
CONFLICT DO NOTHING`` / ``DO UPDATE``; a list of ids is one array parameter
(``= ANY(%s)``); batches run through a cursor. A first save that meets an existing row
touches nothing (no error aborts an enclosing ``atomic()`` block), and a later save's
``UPDATE ... WHERE revision = ...`` re-checks the row after waiting for a concurrent
writer (read committed), so of two writers at the same revision only one wins.

A batch of a few rows for one ``INSERT ... VALUES (%s, ...)`` is sent as one
statement of those rows, and a single row as a plain statement: the entity graph writes
a few rows per entry into four tables, and the driver's ``executemany`` costs more
client time per call (a pipeline and its sync) than the rows themselves. Only while the
statement has at most ``psycopg``'s cached number of parameters: a longer one would be
parsed again on every call, which costs more than ``executemany`` of the rows. An
upsert (``DO UPDATE``) keeps ``executemany``: one statement may not change a row twice.
"""

from __future__ import annotations

import re
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
    kept_counts=True,
)


# The one row of an INSERT's VALUES, all placeholders.
_ROW = re.compile(r"\bVALUES\s*(\(%s(?:,\s*%s)*\))", re.IGNORECASE)
# The most parameters of a statement psycopg keeps parsed (MAX_CACHED_STATEMENT_PARAMS).
_CACHED_PARAMS = 50


def multi_row(sql: str) -> tuple[str, str, str] | None:
    """``sql`` split around its one row of values (before, the row, after), if it is a
    plain ``INSERT ... VALUES (%s, ...)`` that may take many rows at once."""
    found = _ROW.search(sql)
    if found is None or not sql.lstrip().upper().startswith("INSERT"):
        return None
    if "DO UPDATE" in sql.upper() or _ROW.search(sql, found.end()) is not None:
        return None
    return sql[: found.start(1)], found.group(1), sql[found.end(1) :]


class _Runner(Runner):
    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        if len(rows) == 1:
            self.raw.execute(sql, tuple(rows[0]))
            return
        parts = multi_row(sql)
        if parts is None or len(rows) * parts[1].count("%s") > _CACHED_PARAMS:
            with self.raw.cursor() as cur:
                cur.executemany(sql, [tuple(r) for r in rows])
            return
        before, row, after = parts
        self.raw.execute(
            before + ", ".join([row] * len(rows)) + after, [v for r in rows for v in r]
        )

    def duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, psycopg.errors.UniqueViolation)


class PostgresBase(PostgresConnection, SQLBase):
    """The PostgreSQL pool, handing out runners."""

    dialect = DIALECT
    runner = _Runner


__all__ = ["DIALECT", "PostgresBase"]
