"""The overview's aggregates on SQLite (``stores.stats_sql``)."""

from __future__ import annotations

from datetime import datetime

from .. import stats_sql
from ..stats import DayCount, TallyRow
from ..values import NO_FILTER, EntryFilter, View
from .connection import SQLiteConnection


class SQLiteStats(SQLiteConnection):
    """Counts by classification, activity by day, entries still without a vector."""

    def tally(self, view: View, flt: EntryFilter = NO_FILTER) -> list[TallyRow]:
        sql, params = stats_sql.tally_sql(view, flt, "?")
        with self._read() as conn:
            return stats_sql.tally_rows(conn.execute(sql, params).fetchall())

    def daily_activity(self, view: View, since: datetime) -> list[DayCount]:
        sql, params = stats_sql.activity_sql(view, since, "?")
        with self._read() as conn:
            return stats_sql.activity_rows(conn.execute(sql, params).fetchall())

    def count_unembedded(self, view: View, model: str) -> int:
        sql, params = stats_sql.unembedded_sql(view, model, "?", joined="e.memory_pk = m.pk")
        with self._read() as conn:
            return int(conn.execute(sql, params).fetchone()[0])
