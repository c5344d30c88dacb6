"""What the SQL written once (``stores.sql``) needs of a backend: a ``Dialect`` (how
its SQL is spelled) and a ``Runner`` (how a statement runs on its connection).

The three backends agree on what every statement means; they differ in the parameter
mark, in how an insert skips or replaces a row whose key exists, in whether a
read-modify-write must lock the rows it reads (SQLite's write transaction already
holds the whole database), in how a list of ids is passed, and in whether a driver
runs statements on the connection or on a cursor. Those differences live here and in
each backend's ``dialect`` module, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

#: Ids per statement: an ``IN`` list within SQLite's parameter limit, an array of
#: bounded size on PostgreSQL.
PAGE = 500


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one backend spells what the shared SQL says."""

    mark: str  # the parameter mark: ``?`` or ``%s``
    lock: str  # what a read that a write in the same transaction depends on appends
    reread: str  # what a conflict's re-read appends (MySQL's snapshot may be older)
    skip: tuple[str, str]  # (verb, tail) of an insert that skips a row whose key exists
    replace: str | None  # the verb of an insert that replaces such a row; None: ON CONFLICT
    arrays: bool = False  # a list of ids is one array parameter (``= ANY(%s)``)
    row_values: bool = True  # ``(a, b) > (x, y)`` compares as a row
    agent_by_id: str = "m.agent_id"  # how a query that names ids spells the agent column
    indexed_by: bool = False  # a table may name the index its rows are read by
    kept_counts: bool = False  # ``keyword_stats`` holds the entries per (user, agent)

    def using(self, table: str, alias: str, index: str) -> str:
        """``table alias``, read by ``index`` where the backend lets a query say so.

        SQLite without statistics reads a user's graph links or relations whole by
        their primary key (it covers the query) rather than by the entity index a
        query names entities by: at 10,000 entries that is 100,000 rows read for ten.
        """
        if self.indexed_by:
            return f"{table} {alias} INDEXED BY {index}"
        return f"{table} {alias}"

    def marks(self, n: int) -> str:
        return ", ".join([self.mark] * n)

    def insert_skipping(self, body: str) -> str:
        """``INSERT`` + ``body`` (``INTO t (...) VALUES|SELECT ...``), skipping rows whose
        key exists."""
        verb, tail = self.skip
        return f"{verb} {body}{tail}"

    def upsert(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        """One row of ``columns`` into ``table``, replacing the row with the same ``key``."""
        values = f"({', '.join(columns)}) VALUES ({self.marks(len(columns))})"
        if self.replace is not None:
            return f"{self.replace} INTO {table} {values}"
        sets = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        return f"INSERT INTO {table} {values} ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sets}"

    def among(self, column: str, ids: Sequence[str]) -> tuple[str, list[Any]]:
        """The condition that ``column`` is one of ``ids`` (at most ``PAGE`` of them)."""
        if self.arrays:
            return f"{column} = ANY({self.mark})", [list(ids)]
        return f"{column} IN ({self.marks(len(ids))})", list(ids)

    def after(self, first: str, second: str, values: tuple[Any, Any]) -> tuple[str, list[Any]]:
        """The keyset condition ``(first, second) > values`` and its parameters."""
        m = self.mark
        if self.row_values:
            return f"({first}, {second}) > ({m}, {m})", list(values)
        sql = f"({first} > {m} OR ({first} = {m} AND {second} > {m}))"
        return sql, [values[0], values[0], values[1]]


def pages(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` in pages of ``PAGE``."""
    for start in range(0, len(ids), PAGE):
        yield list(ids[start : start + PAGE])


class Runner:
    """A backend's statement runner inside one read or write transaction.

    ``raw`` is the driver's connection or cursor, for what only one backend does.
    """

    def __init__(self, dialect: Dialect, raw: Any) -> None:
        self.dialect = dialect
        self.raw = raw
        self.mark = dialect.mark
        self.locking = dialect.reread

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        return list(self.raw.execute(sql, tuple(params)).fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write; the number of rows it touched."""
        return int(self.raw.execute(sql, tuple(params)).rowcount)

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each of ``rows``."""
        if rows:
            self.raw.executemany(sql, [tuple(r) for r in rows])

    def insert_new(self, sql: str, params: Sequence[Any]) -> bool:
        """Run a plain ``INSERT``; False (and nothing written) when its key exists."""
        return self.run(sql + " ON CONFLICT DO NOTHING", params) == 1

    def duplicate(self, exc: BaseException) -> bool:
        """Whether ``exc`` is the driver's error for a key that exists."""
        raise NotImplementedError


class SQLBase:
    """What every written-once part of a SQL store stands on: the backend's dialect and
    its transactions, each handing out a ``Runner``."""

    dialect: Dialect
    #: The condition tying an ``embeddings e`` row to its entry ``m``.
    vector_join = "e.user_id = m.user_id AND e.entry_id = m.id"
    #: The condition on ``originals`` that finds the sealed original of one entry, and
    #: the statement that stores one (parameters: user id, entry id[, sealed bytes]);
    #: ``{m}`` is the parameter mark.
    original_where = "user_id = {m} AND entry_id = {m}"
    original_insert = "INSERT INTO originals (user_id, entry_id, sealed) VALUES ({m}, {m}, {m})"

    def _original_sql(self, template: str) -> str:
        return template.format(m=self.dialect.mark)

    runner: type[Runner] = Runner

    def _read(self, what: str) -> AbstractContextManager[Any]:
        """The backend's connection (or cursor) for reads."""
        raise NotImplementedError

    def _write(self, what: str) -> AbstractContextManager[Any]:
        """The backend's connection (or cursor) inside a (nested) write transaction."""
        raise NotImplementedError

    @contextmanager
    def _reading(self, what: str) -> Iterator[Runner]:
        """A runner for reads: inside this thread's write transaction when there is one."""
        with self._read(what) as raw:
            yield self.runner(self.dialect, raw)

    @contextmanager
    def _writing(self, what: str) -> Iterator[Runner]:
        """A runner inside a (nested) write transaction; ``what`` names the work in the
        error that a failure raises."""
        with self._write(what) as raw:
            yield self.runner(self.dialect, raw)


__all__ = ["PAGE", "Dialect", "Runner", "SQLBase", "pages"]
