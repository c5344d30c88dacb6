"""Vectors: one float32 BLOB per entry and model, and the log other processes
read to catch up with them."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import StoreError
from ...model import MemoryEntry
from ..rows import format_time, row_to_entry, stored_vectors
from ..values import StoredVectors, VectorChanges, VectorItem
from .connection import SQLiteConnection
from .sql import SELECT, chunks, snapshot

# Rows of the vector log kept; a process further behind than this reloads its vectors.
_VECTOR_LOG_KEEP = 100_000


def _vector_mark(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0])


class SQLiteVectors(SQLiteConnection):
    """The vector half of the store."""

    # -- vectors --------------------------------------------------------------------

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        written: list[str] = []
        if not items:
            return written
        try:
            with self._write() as conn:
                for item in items:
                    vector = np.ascontiguousarray(item.vector, dtype=np.float32)
                    cur = conn.execute(
                        "INSERT OR REPLACE INTO embeddings (memory_pk, model, dim, vector) "
                        "SELECT pk, ?, ?, ? FROM memories "
                        "WHERE user_id = ? AND id = ? AND updated_at = ?",
                        (
                            model,
                            int(vector.shape[0]),
                            vector.tobytes(),
                            user_id,
                            item.entry_id,
                            format_time(item.updated_at),
                        ),
                    )
                    if cur.rowcount:
                        written.append(item.entry_id)
                conn.execute(
                    "DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - ?",
                    (_VECTOR_LOG_KEEP,),
                )
        except sqlite3.Error as exc:
            raise StoreError(f"writing vectors failed and was rolled back: {exc}") from exc
        return written

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        with self._read() as conn, snapshot(conn):
            mark = _vector_mark(conn)
            rows = conn.execute(
                "SELECT m.id, m.agent_id, e.dim, e.vector FROM embeddings e "
                "JOIN memories m ON m.pk = e.memory_pk WHERE m.user_id = ? AND e.model = ?",
                (user_id, model),
            ).fetchall()
        return stored_vectors(rows, mark)

    def vector_models(self, user_id: str) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT e.model FROM embeddings e JOIN memories m "
                "ON m.pk = e.memory_pk WHERE m.user_id = ? ORDER BY e.model",
                (user_id,),
            ).fetchall()
        return [r[0] for r in rows]

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        with self._read() as conn, snapshot(conn):
            first, mark = conn.execute("SELECT min(seq), max(seq) FROM vector_log").fetchone()
            if first is None:
                return VectorChanges(since, stored_vectors([], since), [])
            if since < first - 1:
                return None  # pruned past ``since``
            changed = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT entry_id FROM vector_log "
                    "WHERE seq > ? AND seq <= ? AND user_id = ?",
                    (since, mark, user_id),
                ).fetchall()
            ]
            rows: list[Any] = []
            for chunk, marks in chunks(changed):
                rows.extend(
                    conn.execute(
                        "SELECT m.id, m.agent_id, e.dim, e.vector FROM memories m "
                        "JOIN embeddings e ON e.memory_pk = m.pk AND e.model = ? "
                        f"WHERE m.user_id = ? AND m.id IN ({marks})",
                        (model, user_id, *chunk),
                    ).fetchall()
                )
        present = {r[0] for r in rows}
        return VectorChanges(
            int(mark), stored_vectors(rows, int(mark)), [i for i in changed if i not in present]
        )

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        after = after or ("", "")
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {SELECT} FROM memories m "
                "LEFT JOIN embeddings e ON e.memory_pk = m.pk AND e.model = ? "
                "WHERE e.memory_pk IS NULL AND (m.user_id, m.id) > (?, ?) "
                "ORDER BY m.user_id, m.id LIMIT ?",
                (model, *after, limit),
            ).fetchall()
        return [row_to_entry(r) for r in rows]

    def change_counter(self) -> int:
        # On the writer connection: its data_version ignores this store's own commits
        # (the caller tracks those itself) and moves on anyone else's.
        with self._lock:
            self._check_open()
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
