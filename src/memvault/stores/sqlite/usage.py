"""The token ledger on SQLite (``stores.usage_sql``)."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ...errors import StoreError
from .. import usage_sql
from ..values import UsageRecord, UsageRow
from .connection import SQLiteConnection


class SQLiteUsage(SQLiteConnection):
    """One row per LLM call; sums by operation and model."""

    def record_usage(self, record: UsageRecord) -> None:
        try:
            with self._write() as conn:
                conn.execute(usage_sql.insert_sql("?"), usage_sql.insert_params(record))
        except sqlite3.Error as exc:
            raise StoreError(f"recording an LLM call failed: {exc}") from exc

    def usage(
        self, user_id: str | None, since: datetime, until: datetime | None = None
    ) -> list[UsageRow]:
        sql, params = usage_sql.sum_sql("?", user_id, since, until)
        with self._read() as conn:
            return usage_sql.sum_rows(conn.execute(sql, params).fetchall())

    def usage_records(self, user_id: str, *, limit: int = 100) -> list[UsageRecord]:
        with self._read() as conn:
            rows = conn.execute(usage_sql.records_sql("?"), (user_id, int(limit))).fetchall()
        return [usage_sql.record_of(r) for r in rows]
