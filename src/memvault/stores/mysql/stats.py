"""The overview's aggregates on MySQL / MariaDB (``stores.stats_sql``)."""

from __future__ import annotations

from datetime import datetime

from .. import stats_sql
from ..stats import DayCount, TallyRow
from ..values import NO_FILTER, EntryFilter, View
from .connection import MySQLConnection

_JOINED = "e.user_id = m.user_id AND e.entry_id = m.id"


class MySQLStats(MySQLConnection):
    """Counts by classification, activity by day, entries still without a vector."""

    def tally(self, view: View, flt: EntryFilter = NO_FILTER) -> list[TallyRow]:
        sql, params = stats_sql.tally_sql(view, flt, "%s")
        with self._read("counting entries") as cur:
            cur.execute(sql, params)
            return stats_sql.tally_rows(cur.fetchall())

    def daily_activity(self, view: View, since: datetime) -> list[DayCount]:
        sql, params = stats_sql.activity_sql(view, since, "%s")
        with self._read("counting entries by day") as cur:
            cur.execute(sql, params)
            return stats_sql.activity_rows(cur.fetchall())

    def count_unembedded(self, view: View, model: str) -> int:
        sql, params = stats_sql.unembedded_sql(view, model, "%s", joined=_JOINED)
        with self._read("counting entries without vectors") as cur:
            cur.execute(sql, params)
            return int(cur.fetchone()[0])
