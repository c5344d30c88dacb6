"""The token ledger on PostgreSQL (``stores.usage_sql``)."""

from __future__ import annotations

from datetime import datetime

from .. import usage_sql
from ..values import UsageRecord, UsageRow
from .connection import PostgresConnection


class PostgresUsage(PostgresConnection):
    """One row per LLM call; sums by operation and model."""

    def record_usage(self, record: UsageRecord) -> None:
        with self._write("recording an LLM call") as conn:
            conn.execute(usage_sql.insert_sql("%s"), usage_sql.insert_params(record))

    def usage(
        self, user_id: str | None, since: datetime, until: datetime | None = None
    ) -> list[UsageRow]:
        sql, params = usage_sql.sum_sql("%s", user_id, since, until)
        with self._read("reading the token ledger") as conn:
            return usage_sql.sum_rows(conn.execute(sql, params).fetchall())

    def usage_records(self, user_id: str, *, limit: int = 100) -> list[UsageRecord]:
        with self._read("reading the token ledger") as conn:
            rows = conn.execute(usage_sql.records_sql("%s"), (user_id, int(limit))).fetchall()
        return [usage_sql.record_of(r) for r in rows]
