"""The entity graph on MySQL / MariaDB: the shared SQL (``stores.graph_sql``) on a cursor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..graph_sql import SQLGraph


class MySQLGraph(SQLGraph):
    """``%s`` marks, ``INSERT IGNORE``; the store's transactions hand out cursors."""

    _gmark = "%s"

    def _gq(self, conn: Any, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        conn.execute(sql, tuple(params))
        return [tuple(r) for r in conn.fetchall()]

    def _ge(self, conn: Any, sql: str, params: Sequence[Any]) -> None:
        conn.execute(sql, tuple(params))

    def _ignore(self, body: str) -> str:
        return f"INSERT IGNORE {body}"


__all__ = ["MySQLGraph"]
