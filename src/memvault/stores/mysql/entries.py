"""Entries: insert, read, change and delete them inside a view."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import pymysql

from ...errors import ConflictError, NotFoundError
from ...fields import EMBEDDED
from ...model import MemoryEntry
from ..bm25 import doc_length
from ..rows import ENTRY_COLUMNS, entry_to_row, row_to_entry
from ..sql.clauses import order_clause, touch_params, touch_sql
from ..values import NO_FILTER, EntryFilter, EntryOrder, Mutation, SearchDoc, UserMemories, View
from .connection import MySQLConnection
from .sql import (
    INSERT_SQL,
    PAGE,
    SELECT,
    UPDATE_SQL,
    chunks,
    filter_sql,
    log_vectors,
    view_sql,
    with_vectors,
)

_DUPLICATE = 1062


def _row(entry: MemoryEntry, doc: SearchDoc) -> tuple[Any, ...]:
    return (*entry_to_row(entry), doc.head, doc.body, doc.extra, doc_length(doc))


class MySQLEntries(MySQLConnection):
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
        rows = [_row(e, d) for e, d in items]
        with self._write("the insert") as cur:
            try:
                cur.executemany(INSERT_SQL, rows)
            except pymysql.err.IntegrityError as exc:
                if exc.args[0] != _DUPLICATE:
                    raise
                raise ConflictError(
                    "an entry with one of these ids already exists for this user: "
                    "omit the id to get a new one, or update the existing entry"
                ) from None
            if originals:
                user_of = {e.id: e.user_id for e, _ in items}
                cur.executemany(
                    "INSERT INTO originals (user_id, entry_id, sealed) VALUES (%s, %s, %s)",
                    [(user_of[i], i, bytes(sealed)) for i, sealed in originals.items()],
                )

    def update(
        self, view: View, entry_id: str, mutate: Mutation, *, original: Any = ...
    ) -> MemoryEntry:
        where, params = view_sql(view)
        with self._write("the update") as cur:
            cur.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = %s FOR UPDATE",
                (*params, entry_id),
            )
            row = cur.fetchone()
            if row is None:
                raise NotFoundError(
                    f"no memory {entry_id!r} for user {view.user_id!r}: "
                    "list or search to find valid ids",
                    entry_id=entry_id,
                    user_id=view.user_id,
                )
            current = row_to_entry(row)
            new, doc = mutate(current)
            if new.id != entry_id or new.user_id != view.user_id:
                raise ValueError("update may not change an entry's id or owner")
            values = _row(new, doc)
            cur.execute(UPDATE_SQL, (*values[2:], view.user_id, entry_id))
            # What the embedder read changed: the stored vector is stale.
            if any(getattr(new, f) != getattr(current, f) for f in EMBEDDED) and with_vectors(
                cur, view.user_id, [entry_id]
            ):
                cur.execute(
                    "DELETE FROM embeddings WHERE user_id = %s AND entry_id = %s",
                    (view.user_id, entry_id),
                )
                log_vectors(cur, view.user_id, [entry_id])
            if original is not ...:
                cur.execute(
                    "DELETE FROM originals WHERE user_id = %s AND entry_id = %s",
                    (view.user_id, entry_id),
                )
                if original is not None:
                    cur.execute(
                        "INSERT INTO originals (user_id, entry_id, sealed) VALUES (%s, %s, %s)",
                        (view.user_id, entry_id, bytes(original)),
                    )
            return new

    def delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        if not entry_ids:
            return []
        where, params = view_sql(view)
        deleted: list[str] = []
        with self._write("the delete") as cur:
            for chunk, marks in chunks(list(dict.fromkeys(entry_ids))):
                cur.execute(
                    f"SELECT m.id FROM memories m WHERE {where} AND m.id IN ({marks}) FOR UPDATE",
                    (*params, *chunk),
                )
                found = [r[0] for r in cur.fetchall()]
                if found:
                    self._drop(cur, view.user_id, found)
                deleted.extend(found)
        return deleted

    @staticmethod
    def _drop(cur: Any, user_id: str, entry_ids: Sequence[str]) -> None:
        """Delete entries of one user with their vectors (logged), originals and grants."""
        log_vectors(cur, user_id, with_vectors(cur, user_id, entry_ids))
        for chunk, marks in chunks(entry_ids):
            cur.execute(
                f"DELETE FROM reveal_grants WHERE user_id = %s AND entry_id IN ({marks})",
                (user_id, *chunk),
            )
            # embeddings and originals go with their entry (ON DELETE CASCADE).
            cur.execute(
                f"DELETE FROM memories WHERE user_id = %s AND id IN ({marks})", (user_id, *chunk)
            )

    # -- reads ----------------------------------------------------------------------

    def get(self, view: View, entry_id: str) -> MemoryEntry | None:
        where, params = view_sql(view)
        with self._read() as cur:
            cur.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = %s",
                (*params, entry_id),
            )
            row = cur.fetchone()
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
        with self._read() as cur:
            cur.execute(
                f"SELECT {SELECT} FROM memories m WHERE {where}{fsql} "
                f"{order_clause(order)} LIMIT %s OFFSET %s",
                (*params, *fparams, int(limit), int(offset)),
            )
            rows = cur.fetchall()
        return [row_to_entry(r) for r in rows]

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        after: tuple[str, str] = ("", "")
        at = ENTRY_COLUMNS.index("created_at")
        while True:
            with self._read() as cur:
                cur.execute(
                    f"SELECT {SELECT} FROM memories m WHERE {where}{fsql} "
                    "AND (m.created_at > %s OR (m.created_at = %s AND m.id > %s)) "
                    "ORDER BY m.created_at, m.id LIMIT %s",
                    (*params, *fparams, after[0], after[0], after[1], PAGE),
                )
                rows = cur.fetchall()
            if not rows:
                return
            for row in rows:
                yield row_to_entry(row)
            last = rows[-1]
            after = (last[at], last[0])

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int:
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        with self._read() as cur:
            cur.execute(f"SELECT count(*) FROM memories m WHERE {where}{fsql}", (*params, *fparams))
            return int(cur.fetchone()[0])

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        where, params = view_sql(view)
        out: list[MemoryEntry] = []
        with self._read() as cur:
            for chunk, marks in chunks(list(dict.fromkeys(entry_ids))):
                cur.execute(
                    f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id IN ({marks})",
                    (*params, *chunk),
                )
                out.extend(row_to_entry(r) for r in cur.fetchall())
        return out

    def touch(self, user_id: str, entry_ids: Sequence[str], at: datetime) -> None:
        with self._write("recording recalls") as cur:
            cur.executemany(touch_sql("%s"), touch_params(user_id, entry_ids, at))

    def user_ids(self) -> list[str]:
        with self._read() as cur:
            cur.execute("SELECT DISTINCT user_id FROM memories")
            rows = cur.fetchall()
        return sorted(r[0] for r in rows)

    def user_counts(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        # user_id has a binary collation: it sorts by code point, as the other backends do.
        with self._read() as cur:
            cur.execute(
                "SELECT user_id, count(*) FROM memories GROUP BY user_id "
                "ORDER BY user_id LIMIT %s OFFSET %s",
                (limit, offset),
            )
            rows = cur.fetchall()
        return [UserMemories(r[0], int(r[1])) for r in rows]

    def search_docs(self, user_id: str, entry_ids: Sequence[str]) -> dict[str, SearchDoc]:
        out: dict[str, SearchDoc] = {}
        with self._read() as cur:
            for chunk, marks in chunks(list(dict.fromkeys(entry_ids))):
                cur.execute(
                    "SELECT id, fts_head, fts_body, fts_extra FROM memories "
                    f"WHERE user_id = %s AND id IN ({marks})",
                    (user_id, *chunk),
                )
                out.update((r[0], SearchDoc(r[1], r[2], r[3])) for r in cur.fetchall())
        return out

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        path = '$."' + key.replace('"', "").replace("\\", "") + '"'
        with self._read() as cur:
            cur.execute(
                "SELECT DISTINCT JSON_EXTRACT(metadata, %s) AS v FROM memories "
                "WHERE user_id = %s AND JSON_EXTRACT(metadata, %s) IS NOT NULL LIMIT %s",
                (path, user_id, path, int(limit)),
            )
            rows = cur.fetchall()
        out: list[Any] = []
        for (raw,) in rows:
            value = json.loads(raw) if isinstance(raw, str) else raw
            if isinstance(value, bool):
                value = int(value)  # as SQLite's json_extract answers
            elif isinstance(value, dict | list):
                value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            if value is not None:
                out.append(value)
        return list(dict.fromkeys(out))
