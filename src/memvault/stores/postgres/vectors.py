"""Vectors: one float32 vector per entry and model, the log other processes read to
catch up with them, and nearest-neighbour search in the database.

Vectors are kept as raw float32 bytes (``bytea``), which the engine loads per user
into its in-memory index exactly as it does from SQLite; where the server has pgvector
each is also a ``vector`` for ``nearest``, which the engine asks instead for a user
with ``IN_STORE_FROM`` vectors or more (``searches_in_store``). The log's positions are
per user (``StoredVectors.mark`` is the user's last seq): the trigger that writes the
log takes a per-user advisory lock, so within one user seq order is commit order.
A batch is written with one binary ``COPY`` and one set-based upsert.

``nearest``: one HNSW index per vector size for the whole table (``vec::vector(n)``
WHERE dim = n AND indexed), never one per user or bank: thousands of per-tenant
indexes exhaust PostgreSQL's lock table. Only the rows of users with ``EXACT_BELOW``
vectors of that size or more are in it (``indexed``, set for all of a user's rows
when the user grows past it), since smaller users are scanned exactly and the graph
walk of each insert was what bounded bulk loads. A large user's kNN walks the index
with ``hnsw.iterative_scan = strict_order``, so the user filter never leaves it short
of ``k`` results nor out of order.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import ValidationError
from ...model import MemoryEntry
from ..rows import format_time, row_to_entry, stored_vectors
from ..values import StoredVectors, VectorChanges, VectorItem, View
from .connection import PostgresConnection
from .schema import INDEXED_FROM, vector_text
from .sql import SELECT, chunks, view_sql

# Rows of the vector log kept; a process further behind than this reloads its vectors.
_VECTOR_LOG_KEEP = 100_000
# Below this many vectors of a user and model, ``nearest`` scans them exactly; from
# this many of one size on, a user's vectors are in the HNSW index (schema migration 6).
EXACT_BELOW = INDEXED_FROM
# From this many vectors of a user and model on, the engine asks ``nearest`` instead of
# holding them in its memory (see ``searches_in_store``; measured in bench/scale.py).
IN_STORE_FROM = 50_000
# HNSW build settings (pgvector's defaults) and the search breadth.
_HNSW_M, _HNSW_EF_CONSTRUCTION, _EF_SEARCH = 16, 64, 100


# The session-temporary tables a batch of vectors is copied into (with the pgvector
# value, or without where the server has no pgvector); emptied at each commit.
_STAGE = {True: "memvault_vectors_in", False: "memvault_vectors_in_bytes"}
_STAGE_SQL = {
    with_vec: f'CREATE TEMP TABLE IF NOT EXISTS {name} (ord integer, entry_id text COLLATE "C", '
    'updated_at text COLLATE "C", dim integer, vector bytea'
    + (", vec vector" if with_vec else "")
    + ") ON COMMIT DELETE ROWS"
    for with_vec, name in _STAGE.items()
}
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
_COPY_TRAILER = struct.pack("!h", -1)


def _binary_copy(rows: Sequence[tuple[str, str | None, Any]], with_vec: bool) -> bytes:
    """The rows ((entry id, updated_at, float32 vector), numbered) in PostgreSQL's binary COPY
    format; pgvector's binary form of a vector is its size, a zero and the floats, all
    big-endian."""
    parts = [_COPY_HEADER]
    fields = struct.pack("!h", 6 if with_vec else 5)
    for ord_, (entry_id, updated_at, vector) in enumerate(rows):
        ident, at = entry_id.encode(), (updated_at or "").encode()
        raw = vector.tobytes()
        dim = int(vector.shape[0])
        parts.append(fields)
        parts.append(struct.pack("!ii", 4, ord_))
        parts.append(struct.pack("!i", len(ident)) + ident)
        parts.append(struct.pack("!i", len(at)) + at)
        parts.append(struct.pack("!ii", 4, dim))
        parts.append(struct.pack("!i", len(raw)) + raw)
        if with_vec:
            big = vector.astype(">f4").tobytes()
            parts.append(struct.pack("!ihh", 4 + len(big), dim, 0) + big)
    parts.append(_COPY_TRAILER)
    return b"".join(parts)


class PostgresVectors(PostgresConnection):
    """The vector half of the store."""

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        """One binary ``COPY`` of the batch into a session-temporary table, then one
        set-based upsert of the rows whose entry is unchanged since ``updated_at``:
        a few round trips per batch, and the pgvector value sent in its binary form
        (no text to build or parse)."""
        if not items:
            return []
        rows: list[tuple[str, str | None, Any]] = []  # (entry id, time, vector) per item
        for item in items:
            vector = np.ascontiguousarray(item.vector, dtype=np.float32).reshape(-1)
            rows.append((item.entry_id, format_time(item.updated_at), vector))
        dims = sorted({int(v.shape[0]) for _, _, v in rows})
        with_vec = bool(self.pgvector)
        stage = _STAGE[with_vec]
        # With pgvector: its copy of the vector, and whether the row is in the HNSW index.
        vec, update = (", vec", ", vec = excluded.vec") if with_vec else ("", "")
        flag, value, keep_flag = (
            (", indexed", ", dim = ANY(%s)", ", indexed = embeddings.indexed OR excluded.indexed")
            if with_vec
            else ("", "", "")
        )
        with self._write("writing vectors") as conn:
            # The lock the vector log's trigger takes, taken first: whether this user is
            # large enough to be in the HNSW index is decided by one writer at a time.
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('memvault-vectors:' || %s, 0))",
                (user_id,),
            )
            large: set[int] = set()
            if with_vec:
                for dim in dims:
                    self._ensure_hnsw(conn, dim)
                    had = self._vector_count(conn, user_id, dim)
                    if had + sum(1 for _, _, v in rows if v.shape[0] == dim) >= EXACT_BELOW:
                        large.add(dim)
            conn.execute(_STAGE_SQL[with_vec])
            conn.execute(f"DELETE FROM {stage}")  # what an earlier call of this transaction left
            with conn.cursor() as cur:
                with cur.copy(f"COPY {stage} FROM STDIN (FORMAT BINARY)") as copy:
                    copy.write(_binary_copy(rows, with_vec))
                # An entry named twice gets the last of its items that is still current,
                # as writing them one after the other would. The entries' keys are locked
                # first (FOR KEY SHARE): an entry being deleted meanwhile is waited for and
                # then left out, instead of failing the whole batch on the foreign key.
                cur.execute(
                    "WITH live AS (SELECT m.user_id, m.id, m.updated_at FROM memories m "
                    f"WHERE m.user_id = %s AND m.id IN (SELECT entry_id FROM {stage}) "
                    "FOR KEY SHARE), "
                    "src AS (SELECT DISTINCT ON (t.entry_id) m.user_id, m.id, "
                    f"t.updated_at, t.dim, t.vector{vec.replace(' ', ' t.')} FROM {stage} t "
                    "JOIN live m ON m.id = t.entry_id "
                    "AND m.updated_at = t.updated_at ORDER BY t.entry_id, t.ord DESC), "
                    "ins AS (INSERT INTO embeddings "
                    f"(user_id, entry_id, model, dim, vector{vec}{flag}) "
                    f"SELECT user_id, id, %s, dim, vector{vec}{value} FROM src "
                    "ON CONFLICT (user_id, entry_id) DO UPDATE SET model = excluded.model, "
                    f"dim = excluded.dim, vector = excluded.vector{update}{keep_flag} "
                    "RETURNING entry_id) "
                    "SELECT src.id, src.updated_at FROM src JOIN ins ON ins.entry_id = src.id",
                    (user_id, model, sorted(large)) if with_vec else (user_id, model),
                )
                stored = {(r[0], r[1]) for r in cur.fetchall()}
                for dim in sorted(large):  # a user who just grew past the size: the rest too
                    cur.execute(
                        "UPDATE embeddings SET indexed = true "
                        "WHERE user_id = %s AND dim = %s AND NOT indexed",
                        (user_id, dim),
                    )
            conn.execute(  # this user's log only: no statement reaches another user's rows
                "DELETE FROM vector_log WHERE user_id = %s AND seq <= "
                "(SELECT max(seq) FROM vector_log WHERE user_id = %s) - %s",
                (user_id, user_id, _VECTOR_LOG_KEEP),
            )
        return [entry_id for entry_id, at, _ in rows if (entry_id, at) in stored]

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        with self._snapshot("loading vectors") as conn:
            mark = _user_mark(conn, user_id)
            rows = conn.execute(
                "SELECT m.id, m.agent_id, e.dim, e.vector FROM embeddings e "
                "JOIN memories m ON m.user_id = e.user_id AND m.id = e.entry_id "
                "WHERE e.user_id = %s AND e.model = %s ORDER BY m.pk",
                (user_id, model),
            ).fetchall()
        return stored_vectors(rows, mark)

    def vector_models(self, user_id: str) -> list[str]:
        with self._snapshot("listing vector models") as conn:
            rows = conn.execute(
                "SELECT DISTINCT model FROM embeddings WHERE user_id = %s ORDER BY model",
                (user_id,),
            ).fetchall()
        return [r[0] for r in rows]

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        with self._snapshot("reading vector changes") as conn:
            mark = _user_mark(conn, user_id)
            if mark == 0:  # the user has no log rows: nothing changed
                return VectorChanges(since, stored_vectors([], since), [])
            # Pruning keeps the user's rows within _VECTOR_LOG_KEEP of the user's last seq
            # at the time (never more than now): at or after this, nothing was pruned.
            if since < mark - _VECTOR_LOG_KEEP:
                return None  # pruned past ``since``, perhaps
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
            mark, stored_vectors(rows, mark), [i for i in changed if i not in present]
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

    # -- nearest neighbours in the database -------------------------------------------

    @staticmethod
    def _vector_count(conn: Any, user_id: str, dim: int) -> int:
        """The user's vectors of ``dim`` values, counted up to ``EXACT_BELOW``."""
        row = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM embeddings WHERE user_id = %s AND dim = %s "
            "LIMIT %s) t",
            (user_id, dim, EXACT_BELOW),
        ).fetchone()
        return int(row[0]) if row else 0

    def _ensure_hnsw(self, conn: Any, dim: int) -> None:
        """The HNSW index for vectors of ``dim`` values, made with the first of them.

        Made inside the writing transaction (under an advisory lock, so two writers
        never race to make it): a second connection would wait on this one's locks."""
        known = self._hnsw_dims
        if dim in known:
            return
        name = f"embeddings_hnsw_{dim}"
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (name,))
        exists = conn.execute("SELECT to_regclass(%s)", (name,)).fetchone()
        if exists is None or exists[0] is None:
            conn.execute(
                f"CREATE INDEX {name} ON embeddings USING hnsw "
                f"((vec::vector({dim})) vector_cosine_ops) "
                f"WITH (m = {_HNSW_M}, ef_construction = {_HNSW_EF_CONSTRUCTION}) "
                f"WHERE dim = {dim} AND indexed"
            )
        else:
            known.add(dim)  # committed already; one made here counts once it commits

    def nearest(self, view: View, model: str, query: Any, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` entries of ``view`` whose ``model`` vectors are most similar (cosine)
        to ``query``, as (id, similarity), best first; ties by id.

        In the database with pgvector (HNSW, or an exact scan for a user with few
        vectors), else over the user's vectors in the application."""
        vector = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        if vector.size == 0 or not np.isfinite(vector).all():
            raise ValidationError("the query vector must be non-empty and finite numbers")
        if not isinstance(k, int) or k < 1:
            raise ValidationError("k must be a positive whole number")
        dim = int(vector.size)
        if not self.pgvector:
            return self._nearest_in_app(view, model, vector, k)
        where, params = view_sql(view)
        text = vector_text(vector.tobytes())
        with self._snapshot("the vector search") as conn:
            row = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM embeddings WHERE model = %s "
                "AND user_id = %s AND dim = %s LIMIT %s) t",
                (model, view.user_id, dim, EXACT_BELOW),
            ).fetchone()
            exact = row is None or int(row[0]) < EXACT_BELOW
            if exact:  # not the indexed expression: the planner scans the user's rows
                distance, order, part = "e.vec <=> %s::vector", "d, m.id", ""
            else:  # the indexed expression, ordered by it alone, so the index serves it;
                # a user this large has every vector of this size in the index
                distance, order = f"e.vec::vector({dim}) <=> %s::vector({dim})", "d"
                part = f" AND e.dim = {dim} AND e.indexed"
                conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
                conn.execute(f"SET LOCAL hnsw.ef_search = {max(_EF_SEARCH, 2 * k)}")
            rows = conn.execute(
                f"SELECT m.id, {distance} AS d FROM embeddings e "
                "JOIN memories m ON m.user_id = e.user_id AND m.id = e.entry_id "
                f"WHERE e.model = %s AND e.dim = %s{part} AND e.user_id = %s AND {where} "
                f"ORDER BY {order} LIMIT %s",
                (text, model, dim, view.user_id, *params, k),
            ).fetchall()
        found = sorted(((float(d), i) for i, d in rows if d == d), key=lambda p: p)
        return [(i, 1.0 - d) for d, i in found]

    def searches_in_store(self, user_id: str, model: str) -> bool:
        """With pgvector, a user with ``IN_STORE_FROM`` vectors or more is searched here
        (HNSW): holding them in each process would cost ~1.5 kB per vector there."""
        if not self.pgvector:
            return False
        with self._read("counting vectors") as conn:
            row = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM embeddings WHERE model = %s "
                "AND user_id = %s LIMIT %s) t",
                (model, user_id, IN_STORE_FROM),
            ).fetchone()
        return row is not None and int(row[0]) >= IN_STORE_FROM

    def vector_similarity(
        self, user_id: str, model: str, query: Any, entry_ids: Sequence[str]
    ) -> dict[str, float]:
        vector = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        out: dict[str, float] = {}
        with self._read("reading vectors") as conn:
            for chunk in chunks(list(dict.fromkeys(entry_ids))):
                for entry_id, dim, raw in conn.execute(
                    "SELECT entry_id, dim, vector FROM embeddings "
                    "WHERE user_id = %s AND model = %s AND entry_id = ANY(%s)",
                    (user_id, model, chunk),
                ).fetchall():
                    if int(dim) == vector.size:
                        stored = np.frombuffer(bytes(raw), dtype=np.float32)
                        out[entry_id] = float(np.einsum("i,i->", stored, vector))
        return out

    def _nearest_in_app(
        self, view: View, model: str, vector: Any, k: int
    ) -> list[tuple[str, float]]:
        stored = self.load_vectors(view.user_id, model)
        if not stored.ids or stored.matrix.shape[1] != vector.size:
            return []
        keep = [
            i
            for i, agent in enumerate(stored.agent_ids)
            if view.all_agents or agent is None or agent == view.agent_id
        ]
        if not keep:
            return []
        matrix = stored.matrix[keep]
        norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(vector))
        sims = (matrix @ vector) / np.where(norms == 0, 1.0, norms)
        order = sorted(range(len(keep)), key=lambda i: (-float(sims[i]), stored.ids[keep[i]]))
        return [(stored.ids[keep[i]], float(sims[i])) for i in order[:k]]


def _user_mark(conn: Any, user_id: str) -> int:
    row = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM vector_log WHERE user_id = %s", (user_id,)
    ).fetchone()
    return int(row[0]) if row else 0
