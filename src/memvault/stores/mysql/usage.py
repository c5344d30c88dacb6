"""The token ledger on MySQL / MariaDB (``stores.usage_sql``)."""

from __future__ import annotations

from datetime import datetime

from .. import usage_sql
from ..values import UsageRecord, UsageRow
from .connection import MySQLConnection


class MySQLUsage(MySQLConnection):
    """One row per LLM call; sums by operation and model."""

    def record_usage(self, record: UsageRecord) -> None:
        with self._write("recording an LLM call") as cur:
            cur.execute(usage_sql.insert_sql("%s"), usage_sql.insert_params(record))

    def usage(
        self, user_id: str | None, since: datetime, until: datetime | None = None
    ) -> list[UsageRow]:
        sql, params = usage_sql.sum_sql("%s", user_id, since, until)
        with self._read("reading the token ledger") as cur:
            cur.execute(sql, params)
            return usage_sql.sum_rows(cur.fetchall())

    def usage_records(self, user_id: str, *, limit: int = 100) -> list[UsageRecord]:
        with self._read("reading the token ledger") as cur:
            cur.execute(usage_sql.records_sql("%s"), (user_id, int(limit)))
            rows = cur.fetchall()
        return [usage_sql.record_of(r) for r in rows]
