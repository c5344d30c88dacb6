"""The entity graph on SQLite: the shared SQL (``stores.graph_sql``) on this connection."""

from __future__ import annotations

from ..graph_sql import SQLGraph


class SQLiteGraph(SQLGraph):
    """``?`` marks, ``INSERT OR IGNORE``, statements on the connection itself."""


__all__ = ["SQLiteGraph"]
