"""Entries: insert, read, change and delete them inside a view."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from ...errors import ConflictError, NotFoundError, StoreError
from ...model import MemoryEntry
from ..rows import ENTRY_COLUMNS, entry_to_row, row_to_entry
from ..sql.clauses import order_clause, touch_params, touch_sql
from ..values import NO_FILTER, EntryFilter, EntryOrder, Mutation, SearchDoc, UserMemories, View
from .connection import SQLiteConnection
from .sql import (
    INSERT_SQL,
    PAGE,
    SELECT,
    UPDATE_SQL,
    chunks,
    filter_sql,
    scope_tokens,
    view_sql,
)


class SQLiteEntries(SQLiteConnection):
    """The entry half of the store."""

    # -- writes ---------------------------------------------------------------------

    def insert(
        self,
        items: Sequence[tuple[MemoryEntry, SearchDoc]],
        *,
        originals: Mapping[str, bytes] | None = None,
    ) -> None:
        rows = [(*entry_to_row(e), scope_tokens(e), d.head, d.body, d.extra) for e, d in items]
        try:
            with self._write() as conn:
                conn.executemany(INSERT_SQL, rows)
                if originals:
                    user_of = {e.id: e.user_id for e, _ in items}
                    conn.executemany(
                        "INSERT INTO originals (memory_pk, sealed) "
                        "SELECT pk, ? FROM memories WHERE user_id = ? AND id = ?",
                        [(sealed, user_of[i], i) for i, sealed in originals.items()],
                    )
        except sqlite3.IntegrityError as exc:
            raise ConflictError(
                f"an entry with one of these ids already exists for this user ({exc}): "
                "omit the id to get a new one, or update the existing entry"
            ) from exc
        except sqlite3.Error as exc:
            raise StoreError(f"insert failed and was rolled back: {exc}") from exc

    def update(
        self, view: View, entry_id: str, mutate: Mutation, *, original: Any = ...
    ) -> MemoryEntry:
        where, params = view_sql(view, by_id=True)
        try:
            with self._write() as conn:
                row = conn.execute(
                    f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = ?",
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
                conn.execute(
                    UPDATE_SQL,
                    (
                        *entry_to_row(new),
                        scope_tokens(new),
                        doc.head,
                        doc.body,
                        doc.extra,
                        view.user_id,
                        entry_id,
                    ),
                )
                if original is not ...:
                    pk = conn.execute(
                        "SELECT pk FROM memories WHERE user_id = ? AND id = ?",
                        (view.user_id, entry_id),
                    ).fetchone()[0]
                    conn.execute("DELETE FROM originals WHERE memory_pk = ?", (pk,))
                    if original is not None:
                        conn.execute(
                            "INSERT INTO originals (memory_pk, sealed) VALUES (?, ?)",
                            (pk, original),
                        )
                return new
        except sqlite3.Error as exc:
            raise StoreError(f"update failed and was rolled back: {exc}") from exc

    def delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        if not entry_ids:
            return []
        where, params = view_sql(view, by_id=True)
        deleted: list[str] = []
        try:
            with self._write() as conn:
                for chunk, marks in chunks(entry_ids):
                    found = conn.execute(
                        f"SELECT m.id FROM memories m WHERE {where} AND m.id IN ({marks})",
                        (*params, *chunk),
                    ).fetchall()
                    ids = [r[0] for r in found]
                    if ids:
                        marks = ", ".join("?" for _ in ids)
                        conn.execute(
                            f"DELETE FROM memories WHERE user_id = ? AND id IN ({marks})",
                            (view.user_id, *ids),
                        )
                    deleted.extend(ids)
        except sqlite3.Error as exc:
            raise StoreError(f"delete failed and was rolled back: {exc}") from exc
        return deleted

    # -- reads ----------------------------------------------------------------------

    def get(self, view: View, entry_id: str) -> MemoryEntry | None:
        where, params = view_sql(view, by_id=True)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = ?",
                (*params, entry_id),
            ).fetchone()
        return None if row is None else row_to_entry(row)

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
                f"{order_clause(order)} LIMIT ? OFFSET ?",
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
                    "AND (m.created_at, m.id) > (?, ?) ORDER BY m.created_at, m.id LIMIT ?",
                    (*params, *fparams, *after, PAGE),
                ).fetchall()
            if not rows:
                return
            for row in rows:
                yield row_to_entry(row)
            last = rows[-1]
            after = (last[ENTRY_COLUMNS.index("created_at")], last[0])

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int:
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}{fsql}", (*params, *fparams)
            ).fetchone()
        return int(row[0])

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        where, params = view_sql(view, by_id=True)
        out: list[MemoryEntry] = []
        with self._read() as conn:
            for chunk, marks in chunks(entry_ids):
                rows = conn.execute(
                    f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id IN ({marks})",
                    (*params, *chunk),
                ).fetchall()
                out.extend(row_to_entry(r) for r in rows)
        return out

    def touch(self, user_id: str, entry_ids: Sequence[str], at: datetime) -> None:
        try:
            with self._write() as conn:
                conn.executemany(touch_sql("?"), touch_params(user_id, entry_ids, at))
        except sqlite3.Error as exc:
            raise StoreError(f"recording recalls failed and was rolled back: {exc}") from exc

    def user_ids(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute("SELECT DISTINCT user_id FROM memories").fetchall()
        return sorted(r[0] for r in rows)

    def user_counts(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT user_id, count(*) FROM memories GROUP BY user_id "
                "ORDER BY user_id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [UserMemories(r[0], int(r[1])) for r in rows]

    def search_docs(self, user_id: str, entry_ids: Sequence[str]) -> dict[str, SearchDoc]:
        out: dict[str, SearchDoc] = {}
        with self._read() as conn:
            for chunk, marks in chunks(list(dict.fromkeys(entry_ids))):
                rows = conn.execute(
                    "SELECT id, fts_head, fts_body, fts_extra FROM memories "
                    f"WHERE user_id = ? AND id IN ({marks})",
                    (user_id, *chunk),
                ).fetchall()
                out.update((r[0], SearchDoc(r[1], r[2], r[3])) for r in rows)
        return out

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        path = '$."' + key.replace('"', "") + '"'
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT json_extract(metadata, ?) AS v FROM memories "
                "WHERE user_id = ? AND v IS NOT NULL LIMIT ?",
                (path, user_id, limit),
            ).fetchall()
        return [r[0] for r in rows]
