"""The overview's aggregates (``protocols.EntryStats``) on every SQL backend, written
once; a backend differs only in its parameter mark and how a vector is tied to its entry
(``SQLBase.vector_join``).

Each is one grouped query inside the caller's view: the store never walks the entries.
Times are fixed-width UTC text (``rows.format_time``), so a day is the first ten
characters of one and text order is time order.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...results.stats import DayCount
from ..rows import format_time
from ..stats import TallyRow
from ..values import NO_FILTER, EntryFilter, View
from .clauses import filter_clause, view_clause
from .runner import SQLBase

_HELD = "CASE WHEN m.quarantine IS NULL THEN 0 ELSE 1 END"


def tally_sql(view: View, flt: EntryFilter, mark: str) -> tuple[str, list[Any]]:
    """The entries of ``view`` matching ``flt`` by kind, class, tier, domain and held."""
    where, params = view_clause(view, mark)
    fsql, fparams = filter_clause(flt, mark)
    sql = (
        f"SELECT m.kind, m.mem_class, m.tier, m.domain, {_HELD}, count(*) "
        f"FROM memories m WHERE {where}{fsql} GROUP BY m.kind, m.mem_class, m.tier, "
        f"m.domain, {_HELD}"
    )
    return sql, [*params, *fparams]


def tally_rows(rows: Sequence[Sequence[Any]]) -> list[TallyRow]:
    return [TallyRow(r[0], r[1], r[2], r[3], bool(r[4]), int(r[5])) for r in rows]


def activity_sql(view: View, since: datetime, mark: str) -> tuple[str, list[Any]]:
    """Per day from ``since``: entries created, and entries last changed after creation."""
    where, params = view_clause(view, mark)
    start = format_time(since)
    sql = (
        "SELECT t.day, sum(t.created), sum(t.updated) FROM ("
        "SELECT substr(m.created_at, 1, 10) AS day, 1 AS created, 0 AS updated "
        f"FROM memories m WHERE {where} AND m.created_at >= {mark} "
        "UNION ALL SELECT substr(m.updated_at, 1, 10), 0, 1 "
        f"FROM memories m WHERE {where} AND m.updated_at >= {mark} "
        "AND m.updated_at > m.created_at"
        ") t GROUP BY t.day"
    )
    return sql, [*params, start, *params, start]


def activity_rows(rows: Sequence[Sequence[Any]]) -> list[DayCount]:
    # Sorted here: the servers' collations may order text differently.
    return sorted((DayCount(str(r[0]), int(r[1]), int(r[2])) for r in rows), key=lambda d: d.day)


def unembedded_sql(view: View, model: str, mark: str, *, joined: str) -> tuple[str, list[Any]]:
    """How many entries of ``view`` lack a ``model`` vector; ``joined`` is the condition
    that ties an ``embeddings e`` row to its entry ``m`` on this backend."""
    where, params = view_clause(view, mark)
    sql = (
        f"SELECT count(*) FROM memories m WHERE {where} AND NOT EXISTS "
        f"(SELECT 1 FROM embeddings e WHERE {joined} AND e.model = {mark})"
    )
    return sql, [*params, model]


class SQLStats(SQLBase):
    """Counts by classification, activity by day, entries still without a vector."""

    def tally(self, view: View, flt: EntryFilter = NO_FILTER) -> list[TallyRow]:
        with self._reading("counting entries") as run:
            return tally_rows(run.rows(*tally_sql(view, flt, run.mark)))

    def daily_activity(self, view: View, since: datetime) -> list[DayCount]:
        with self._reading("counting entries by day") as run:
            return activity_rows(run.rows(*activity_sql(view, since, run.mark)))

    def count_unembedded(self, view: View, model: str) -> int:
        with self._reading("counting entries without vectors") as run:
            sql = unembedded_sql(view, model, run.mark, joined=self.vector_join)
            row = run.one(*sql)
        return int(row[0]) if row else 0


__all__ = ["SQLStats"]
