"""The entity graph on PostgreSQL: the shared SQL (``stores.graph_sql``) on this connection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..graph_sql import SQLGraph


class PostgresGraph(SQLGraph):
    """``%s`` marks, ``ON CONFLICT DO NOTHING``; batches through a cursor."""

    _gmark = "%s"

    def _gmany(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with conn.cursor() as cur:
                cur.executemany(sql, [tuple(r) for r in rows])

    def _ignore(self, body: str) -> str:
        return f"INSERT {body} ON CONFLICT DO NOTHING"


__all__ = ["PostgresGraph"]
