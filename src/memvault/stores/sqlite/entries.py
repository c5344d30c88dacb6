"""What entries need on SQLite beyond the shared SQL (``stores.sql.entries``): the FTS5
scope tokens stored with each, and metadata values read from JSON."""

from __future__ import annotations

from typing import Any

from ...model import MemoryEntry
from ..sql.entries import SQLEntries
from ..values import SearchDoc
from .dialect import SQLiteBase
from .sql import scope_tokens


class SQLiteEntries(SQLiteBase, SQLEntries):
    """The entry half of the store."""

    def _index_columns(self) -> tuple[str, ...]:
        return ("fts_scope", "fts_head", "fts_body", "fts_extra")

    def _index_values(self, entry: MemoryEntry, doc: SearchDoc) -> tuple[Any, ...]:
        return (scope_tokens(entry), doc.head, doc.body, doc.extra)

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        path = '$."' + key.replace('"', "") + '"'
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT json_extract(metadata, ?) AS v FROM memories "
                "WHERE user_id = ? AND v IS NOT NULL LIMIT ?",
                (path, user_id, limit),
            ).fetchall()
        return [r[0] for r in rows]
