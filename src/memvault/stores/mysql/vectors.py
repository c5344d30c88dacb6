"""Vectors: one float32 BLOB per entry, searched in the application (as on SQLite:
the engine's ``VectorIndex`` caches each user's matrix), and the log other
processes read to catch up with changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import StoreError
from ...model import MemoryEntry
from ..rows import format_time, row_to_entry, stored_vectors
from ..values import StoredVectors, VectorChanges, VectorItem
from .connection import MySQLConnection
from .sql import SELECT, chunks, log_vectors

# Rows of the vector log kept; a process further behind than this reloads its vectors.
_VECTOR_LOG_KEEP = 100_000
# Server counters that move whenever any connection changes a row (for change_counter):
# MariaDB has no Innodb_rows_* counters; its Handler_* ones leave temporary tables out.
_WRITE_COUNTERS = {
    "mariadb": ("Handler_write", "Handler_update", "Handler_delete"),
    "mysql": ("Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted"),
}


def _mark(cur: Any) -> int:
    cur.execute("SELECT seq FROM vector_log_head WHERE id = 1")
    return int(cur.fetchone()[0])


class MySQLVectors(MySQLConnection):
    """The vector half of the store."""

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        if not items:
            return []
        written: list[str] = []
        with self._write("writing vectors") as cur:
            for item in items:
                vector = np.ascontiguousarray(item.vector, dtype=np.float32)
                # Only while the entry is as it was when the vector was computed.
                cur.execute(
                    "SELECT 1 FROM memories WHERE user_id = %s AND id = %s AND updated_at = %s "
                    "FOR UPDATE",
                    (user_id, item.entry_id, format_time(item.updated_at)),
                )
                if cur.fetchone() is None:
                    continue
                cur.execute(
                    "REPLACE INTO embeddings (user_id, entry_id, model, dim, vector) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    (user_id, item.entry_id, model, int(vector.shape[0]), vector.tobytes()),
                )
                written.append(item.entry_id)
            log_vectors(cur, user_id, written)
            if written:
                cur.execute(
                    "DELETE FROM vector_log WHERE seq <= %s",
                    (_mark(cur) - _VECTOR_LOG_KEEP,),
                )
        return written

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        with self._snapshot("loading vectors") as cur:
            mark = _mark(cur)
            cur.execute(
                "SELECT m.id, m.agent_id, e.dim, e.vector FROM embeddings e "
                "JOIN memories m ON m.user_id = e.user_id AND m.id = e.entry_id "
                "WHERE e.user_id = %s AND e.model = %s ORDER BY m.pk",
                (user_id, model),
            )
            rows = cur.fetchall()
        return stored_vectors(rows, mark)

    def vector_models(self, user_id: str) -> list[str]:
        with self._snapshot("listing vector models") as cur:
            cur.execute(
                "SELECT DISTINCT model FROM embeddings WHERE user_id = %s ORDER BY model",
                (user_id,),
            )
            rows = cur.fetchall()
        return [r[0] for r in rows]

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        with self._snapshot("reading vector changes") as cur:
            mark = _mark(cur)
            cur.execute("SELECT min(seq) FROM vector_log")
            first = cur.fetchone()[0]
            if first is None:
                if mark > since:
                    return None  # changes happened and were pruned
                return VectorChanges(since, stored_vectors([], since), [])
            if since < int(first) - 1:
                return None  # pruned past ``since``
            cur.execute(
                "SELECT DISTINCT entry_id FROM vector_log "
                "WHERE user_id = %s AND seq > %s AND seq <= %s",
                (user_id, since, mark),
            )
            changed = [r[0] for r in cur.fetchall()]
            rows: list[Any] = []
            for chunk, marks in chunks(changed):
                cur.execute(
                    "SELECT m.id, m.agent_id, e.dim, e.vector FROM memories m "
                    "JOIN embeddings e ON e.user_id = m.user_id AND e.entry_id = m.id "
                    f"AND e.model = %s WHERE m.user_id = %s AND m.id IN ({marks})",
                    (model, user_id, *chunk),
                )
                rows.extend(cur.fetchall())
        present = {r[0] for r in rows}
        return VectorChanges(
            mark, stored_vectors(rows, mark), [i for i in changed if i not in present]
        )

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        after = after or ("", "")
        with self._read("listing entries without vectors") as cur:
            cur.execute(
                f"SELECT {SELECT} FROM memories m "
                "LEFT JOIN embeddings e ON e.user_id = m.user_id AND e.entry_id = m.id "
                "AND e.model = %s "
                "WHERE e.entry_id IS NULL AND (m.user_id > %s OR (m.user_id = %s AND m.id > %s)) "
                "ORDER BY m.user_id, m.id LIMIT %s",
                (model, after[0], after[0], after[1], int(limit)),
            )
            rows = cur.fetchall()
        return [row_to_entry(r) for r in rows]

    def change_counter(self) -> int:
        # The server's row-change counters move on every write by any connection (this
        # store's own included: callers that track their writes then just re-check).
        with self._read("reading the change counter") as cur:
            cur.execute(
                "SHOW GLOBAL STATUS WHERE Variable_name IN (%s, %s, %s)",
                _WRITE_COUNTERS[self.flavor],
            )
            counters = cur.fetchall()
        if len(counters) != 3:
            raise StoreError(
                "the MySQL server does not report its row-change counters "
                f"({', '.join(_WRITE_COUNTERS[self.flavor])}): use MySQL 8 or MariaDB 10.6+"
            )
        return sum(int(value) for _, value in counters)
