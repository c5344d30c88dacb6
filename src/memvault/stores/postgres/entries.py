"""Entries: insert, read, change and delete them inside a view."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import psycopg
import psycopg.errors

from ...errors import ConflictError, NotFoundError
from ...model import MemoryEntry
from ..rows import ENTRY_COLUMNS, row_to_entry
from ..sql.clauses import order_clause, touch_params, touch_sql
from ..values import NO_FILTER, EntryFilter, EntryOrder, Mutation, SearchDoc, UserMemories, View
from .connection import PostgresConnection
from .sql import COPY_SQL, PAGE, SELECT, UPDATE_SQL, chunks, filter_sql, view_sql, write_row

_CREATED = ENTRY_COLUMNS.index("created_at")


class PostgresEntries(PostgresConnection):
    """The entry half of the store."""

    # -- writes ---------------------------------------------------------------------

    def insert(
        self,
        items: Sequence[tuple[MemoryEntry, SearchDoc]],
        *,
        originals: Mapping[str, bytes] | None = None,
    ) -> None:
        if not items:
            return
        full = self.term_frequencies
        rows = [write_row(e, d, full) for e, d in items]
        with self._write("the insert") as conn:
            try:
                with conn.cursor() as cur:
                    # COPY: one round trip for the batch instead of one statement per row.
                    with cur.copy(COPY_SQL[full]) as copy:
                        for row in rows:
                            copy.write_row(row)
                    if originals:
                        user_of = {e.id: e.user_id for e, _ in items}
                        cur.executemany(
                            "INSERT INTO originals (user_id, entry_id, sealed) VALUES (%s, %s, %s)",
                            [(user_of[i], i, sealed) for i, sealed in originals.items()],
                        )
            except psycopg.errors.UniqueViolation:
                raise ConflictError(
                    "an entry with one of these ids already exists for this user: "
                    "omit the id to get a new one, or update the existing entry"
                ) from None

    def update(
        self, view: View, entry_id: str, mutate: Mutation, *, original: Any = ...
    ) -> MemoryEntry:
        where, params = view_sql(view)
        with self._write("the update") as conn:
            row = conn.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = %s FOR UPDATE",
                (*params, entry_id),
            ).fetchone()
            if row is None:
                raise NotFoundError(
                    f"no memory {entry_id!r} for user {view.user_id!r}: "
                    "list or search to find valid ids",
                    entry_id=entry_id,
                    user_id=view.user_id,
                )
            new, doc = mutate(row_to_entry(row))
            if new.id != entry_id or new.user_id != view.user_id:
                raise ValueError("update may not change an entry's id or owner")
            full = self.term_frequencies
            conn.execute(UPDATE_SQL[full], (*write_row(new, doc, full), view.user_id, entry_id))
            if original is not ...:
                conn.execute(
                    "DELETE FROM originals WHERE user_id = %s AND entry_id = %s",
                    (view.user_id, entry_id),
                )
                if original is not None:
                    conn.execute(
                        "INSERT INTO originals (user_id, entry_id, sealed) VALUES (%s, %s, %s)",
                        (view.user_id, entry_id, original),
                    )
            return new

    def delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        if not entry_ids:
            return []
        where, params = view_sql(view)
        deleted: list[str] = []
        with self._write("the delete") as conn:
            for chunk in chunks(list(dict.fromkeys(entry_ids))):
                rows = conn.execute(
                    f"DELETE FROM memories m WHERE {where} AND m.id = ANY(%s) RETURNING m.id",
                    (*params, chunk),
                ).fetchall()
                found = {r[0] for r in rows}
                deleted.extend(i for i in chunk if i in found)
        return deleted

    # -- reads ----------------------------------------------------------------------

    def get(self, view: View, entry_id: str) -> MemoryEntry | None:
        where, params = view_sql(view)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = %s",
                (*params, entry_id),
            ).fetchone()
        return None if row is None else row_to_entry(row)

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        where, params = view_sql(view)
        out: list[MemoryEntry] = []
        with self._read() as conn:
            for chunk in chunks(list(entry_ids)):
                rows = conn.execute(
                    f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = ANY(%s)",
                    (*params, chunk),
                ).fetchall()
                out.extend(row_to_entry(r) for r in rows)
        return out

    def touch(self, user_id: str, entry_ids: Sequence[str], at: datetime) -> None:
        with self._write("recording recalls") as conn, conn.cursor() as cur:
            cur.executemany(touch_sql("%s"), touch_params(user_id, entry_ids, at))

    def user_ids(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute("SELECT DISTINCT user_id FROM memories").fetchall()
        return sorted(r[0] for r in rows)

    def user_counts(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        # user_id is COLLATE "C": it sorts by code point, as the other backends do.
        with self._read() as conn:
            rows = conn.execute(
                "SELECT user_id, count(*) FROM memories GROUP BY user_id "
                "ORDER BY user_id LIMIT %s OFFSET %s",
                (limit, offset),
            ).fetchall()
        return [UserMemories(r[0], int(r[1])) for r in rows]

    def search_docs(self, user_id: str, entry_ids: Sequence[str]) -> dict[str, SearchDoc]:
        out: dict[str, SearchDoc] = {}
        with self._read() as conn:
            for chunk in chunks(list(dict.fromkeys(entry_ids))):
                rows = conn.execute(
                    "SELECT id, fts_head, fts_body, fts_extra FROM memories "
                    "WHERE user_id = %s AND id = ANY(%s)",
                    (user_id, chunk),
                ).fetchall()
                out.update((r[0], SearchDoc(r[1], r[2], r[3])) for r in rows)
        return out

    def list_entries(
        self,
        view: View,
        flt: EntryFilter = NO_FILTER,
        *,
        limit: int = 100,
        offset: int = 0,
        order: EntryOrder = EntryOrder.NEWEST,
    ) -> list[MemoryEntry]:
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where}{fsql} "
                f"{order_clause(order)} LIMIT %s OFFSET %s",
                (*params, *fparams, limit, offset),
            ).fetchall()
        return [row_to_entry(r) for r in rows]

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        after: tuple[str, str] = ("", "")
        while True:
            with self._read() as conn:
                rows = conn.execute(
                    f"SELECT {SELECT} FROM memories m WHERE {where}{fsql} "
                    "AND (m.created_at, m.id) > (%s, %s) ORDER BY m.created_at, m.id LIMIT %s",
                    (*params, *fparams, *after, PAGE),
                ).fetchall()
            if not rows:
                return
            for row in rows:
                yield row_to_entry(row)
            last = rows[-1]
            after = (last[_CREATED], last[0])

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int:
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}{fsql}", (*params, *fparams)
            ).fetchone()
        return int(row[0]) if row else 0

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        # As SQLite's json_extract: scalars as they are, objects and arrays as JSON text.
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT CASE jsonb_typeof(v) "
                "  WHEN 'object' THEN v::text WHEN 'array' THEN v::text ELSE NULL END, v "
                "FROM (SELECT metadata::jsonb -> %s AS v FROM memories WHERE user_id = %s) t "
                "WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null' LIMIT %s",
                (key.replace('"', ""), user_id, limit),
            ).fetchall()
        return [text if text is not None else value for text, value in rows]
