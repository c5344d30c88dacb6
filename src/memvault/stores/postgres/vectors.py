"""Vectors: one float32 vector per entry and model, and the log other processes read
to catch up with them.

Vectors are kept as raw float32 bytes (``bytea``), which the engine loads per user
into its in-memory index exactly as it does from SQLite. The log's positions are per
user (``StoredVectors.mark`` is the user's last seq): the trigger that writes the log
takes a per-user advisory lock, so within one user seq order is commit order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...model import MemoryEntry
from ..rows import format_time, row_to_entry
from ..values import StoredVectors, VectorChanges, VectorItem
from .connection import PostgresConnection
from .sql import SELECT, chunks

# Rows of the vector log kept; a process further behind than this reloads its vectors.
_VECTOR_LOG_KEEP = 100_000


def _stored_vectors(rows: Sequence[Any], mark: int) -> StoredVectors:
    """(id, agent_id, dim, bytes) rows as one matrix; rows of another size are left out."""
    if not rows:
        return StoredVectors([], [], np.zeros((0, 0), dtype=np.float32), mark)
    dim = rows[0][2]
    rows = [r for r in rows if r[2] == dim]
    matrix = np.frombuffer(b"".join(bytes(r[3]) for r in rows), dtype=np.float32)
    return StoredVectors(
        [r[0] for r in rows], [r[1] for r in rows], matrix.reshape(len(rows), dim).copy(), mark
    )


class PostgresVectors(PostgresConnection):
    """The vector half of the store."""

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        written: list[str] = []
        if not items:
            return written
        with self._write("writing vectors") as conn:
            for item in items:
                vector = np.ascontiguousarray(item.vector, dtype=np.float32)
                row = conn.execute(
                    "INSERT INTO embeddings (user_id, entry_id, model, dim, vector) "
                    "SELECT user_id, id, %s, %s, %s FROM memories "
                    "WHERE user_id = %s AND id = %s AND updated_at = %s "
                    "ON CONFLICT (user_id, entry_id) DO UPDATE SET model = excluded.model, "
                    "dim = excluded.dim, vector = excluded.vector RETURNING entry_id",
                    (
                        model,
                        int(vector.shape[0]),
                        vector.tobytes(),
                        user_id,
                        item.entry_id,
                        format_time(item.updated_at),
                    ),
                ).fetchone()
                if row is not None:
                    written.append(item.entry_id)
            conn.execute(
                "DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - %s",
                (_VECTOR_LOG_KEEP,),
            )
        return written

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        with self._snapshot("loading vectors") as conn:
            mark = _user_mark(conn, user_id)
            rows = conn.execute(
                "SELECT m.id, m.agent_id, e.dim, e.vector FROM embeddings e "
                "JOIN memories m ON m.user_id = e.user_id AND m.id = e.entry_id "
                "WHERE e.user_id = %s AND e.model = %s ORDER BY m.pk",
                (user_id, model),
            ).fetchall()
        return _stored_vectors(rows, mark)

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        with self._snapshot("reading vector changes") as conn:
            first = conn.execute("SELECT min(seq) FROM vector_log").fetchone()
            mark = _user_mark(conn, user_id)
            if first is None or first[0] is None:
                return VectorChanges(since, _stored_vectors([], since), [])
            if since < int(first[0]) - 1:
                return None  # pruned past ``since``
            changed = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT entry_id FROM vector_log "
                    "WHERE user_id = %s AND seq > %s AND seq <= %s",
                    (user_id, since, mark),
                ).fetchall()
            ]
            rows: list[Any] = []
            for chunk in chunks(changed):
                rows.extend(
                    conn.execute(
                        "SELECT m.id, m.agent_id, e.dim, e.vector FROM memories m "
                        "JOIN embeddings e ON e.user_id = m.user_id AND e.entry_id = m.id "
                        "AND e.model = %s WHERE m.user_id = %s AND m.id = ANY(%s)",
                        (model, user_id, chunk),
                    ).fetchall()
                )
        present = {r[0] for r in rows}
        mark = max(mark, since)
        return VectorChanges(
            mark, _stored_vectors(rows, mark), [i for i in changed if i not in present]
        )

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        after = after or ("", "")
        with self._read("listing entries without vectors") as conn:
            rows = conn.execute(
                f"SELECT {SELECT} FROM memories m "
                "LEFT JOIN embeddings e ON e.user_id = m.user_id AND e.entry_id = m.id "
                "AND e.model = %s "
                "WHERE e.entry_id IS NULL AND (m.user_id, m.id) > (%s, %s) "
                "ORDER BY m.user_id, m.id LIMIT %s",
                (model, *after, limit),
            ).fetchall()
        return [row_to_entry(r) for r in rows]


def _user_mark(conn: Any, user_id: str) -> int:
    row = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM vector_log WHERE user_id = %s", (user_id,)
    ).fetchone()
    return int(row[0]) if row else 0
