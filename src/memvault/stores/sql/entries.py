"""Entries (``protocols.EntryStore``) on every SQL backend, written once: insert, read,
change and delete them inside a view.

A backend says what it stores beside an entry's columns for its keyword index
(``_index_columns`` and ``_index_values``: FTS5 scope tokens, keyword keys and term
frequencies, a document length), and may replace how a batch is written
(``_insert_rows``: PostgreSQL copies it in), what happens when an entry's embedded
text changes (``_changed``: MySQL drops the vector and logs it, where the other two
servers have a trigger) and how entries are dropped (``_drop``). Every statement
filters on ``user_id``; a read-modify-write locks the row it reads where the backend
needs that (``Dialect.lock``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from ...errors import ConflictError, NotFoundError
from ...model import EntryOrder, MemoryEntry
from ...results.stats import UserMemories
from ..rows import ENTRY_COLUMNS, entry_to_row, row_to_entry
from ..values import NO_FILTER, EntryFilter, Mutation, SearchDoc, View
from .clauses import (
    agents_clause,
    filter_clause,
    order_clause,
    touch_params,
    touch_sql,
    view_clause,
)
from .runner import PAGE, Runner, SQLBase, pages

SELECT = ", ".join(f"m.{c}" for c in ENTRY_COLUMNS)
_CREATED = ENTRY_COLUMNS.index("created_at")
_KEY = ("id", "user_id")  # never changed by an update


class SQLEntries(SQLBase):
    """The entry half of a SQL store."""

    # -- what a backend supplies ----------------------------------------------------

    def _index_columns(self) -> tuple[str, ...]:
        """The keyword index's columns stored beside the entry's own."""
        raise NotImplementedError

    def _index_values(self, entry: MemoryEntry, doc: SearchDoc) -> tuple[Any, ...]:
        """The values of ``_index_columns`` for ``entry`` with its tokens ``doc``."""
        raise NotImplementedError

    def _insert_rows(
        self, run: Runner, columns: Sequence[str], rows: list[tuple[Any, ...]]
    ) -> None:
        """Write a batch of new rows (one statement a row, unless the backend has better)."""
        marks = run.dialect.marks(len(columns))
        run.many(f"INSERT INTO memories ({', '.join(columns)}) VALUES ({marks})", rows)

    def _changed(self, run: Runner, current: MemoryEntry, new: MemoryEntry) -> None:
        """After ``current`` was rewritten as ``new`` (the backend's triggers do the rest)."""

    def _indexed(
        self, run: Runner, items: Sequence[tuple[MemoryEntry, SearchDoc]], *, new: bool
    ) -> None:
        """After these entries were written with these tokens (``new``: inserted, else
        rewritten): a backend keeping a keyword table of its own fills it here."""

    def _drop(self, run: Runner, user_id: str, entry_ids: Sequence[str]) -> None:
        """Delete the user's entries among ``entry_ids`` (at most a page of them); their
        vectors, originals, grants, versions and links go with them (cascades, triggers)."""
        among, params = run.dialect.among("id", entry_ids)
        run.run(f"DELETE FROM memories WHERE user_id = {run.mark} AND {among}", [user_id, *params])

    # -- writes ---------------------------------------------------------------------

    def _row(self, entry: MemoryEntry, doc: SearchDoc) -> tuple[Any, ...]:
        return (*entry_to_row(entry), *self._index_values(entry, doc))

    def insert(
        self,
        items: Sequence[tuple[MemoryEntry, SearchDoc]],
        *,
        originals: Mapping[str, bytes] | None = None,
    ) -> None:
        if not items:
            return
        columns = (*ENTRY_COLUMNS, *self._index_columns())
        rows = [self._row(e, d) for e, d in items]
        with self._writing("the insert") as run:
            try:
                self._insert_rows(run, columns, rows)
                self._indexed(run, items, new=True)
            except Exception as exc:
                if not run.duplicate(exc):
                    raise
                raise ConflictError(
                    "an entry with one of these ids already exists for this user: "
                    "omit the id to get a new one, or update the existing entry"
                ) from None
            if originals:
                user_of = {e.id: e.user_id for e, _ in items}
                run.many(
                    self._original_sql(self.original_insert),
                    [(user_of[i], i, bytes(sealed)) for i, sealed in originals.items()],
                )

    def update(
        self, view: View, entry_id: str, mutate: Mutation, *, original: Any = ...
    ) -> MemoryEntry:
        d = self.dialect
        where, params = view_clause(view, d.mark, agent=d.agent_by_id)
        with self._writing("the update") as run:
            row = run.one(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = {d.mark}{d.lock}",
                [*params, entry_id],
            )
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
            values = dict(
                zip((*ENTRY_COLUMNS, *self._index_columns()), self._row(new, doc), strict=True)
            )
            sets = [c for c in values if c not in _KEY]
            run.run(
                f"UPDATE memories SET {', '.join(f'{c} = {d.mark}' for c in sets)} "
                f"WHERE user_id = {d.mark} AND id = {d.mark}",
                [*(values[c] for c in sets), view.user_id, entry_id],
            )
            self._changed(run, current, new)
            self._indexed(run, [(new, doc)], new=False)
            if original is not ...:
                key = (view.user_id, entry_id)
                run.run(
                    f"DELETE FROM originals WHERE {self._original_sql(self.original_where)}", key
                )
                if original is not None:
                    run.run(self._original_sql(self.original_insert), (*key, bytes(original)))
            return new

    def delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        if not entry_ids:
            return []
        d = self.dialect
        where, params = view_clause(view, d.mark, agent=d.agent_by_id)
        deleted: list[str] = []
        with self._writing("the delete") as run:
            for page in pages(list(dict.fromkeys(entry_ids))):
                among, ids = d.among("m.id", page)
                sql = f"SELECT m.id FROM memories m WHERE {where} AND {among}{d.lock}"
                found = {r[0] for r in run.rows(sql, [*params, *ids])}
                mine = [i for i in page if i in found]
                if mine:
                    self._drop(run, view.user_id, mine)
                deleted.extend(mine)
        return deleted

    def touch(self, user_id: str, entry_ids: Sequence[str], at: datetime) -> None:
        with self._writing("recording recalls") as run:
            run.many(touch_sql(run.mark), touch_params(user_id, entry_ids, at))

    # -- reads ----------------------------------------------------------------------

    def get(self, view: View, entry_id: str) -> MemoryEntry | None:
        d = self.dialect
        where, params = view_clause(view, d.mark, agent=d.agent_by_id)
        with self._reading("reading the entry") as run:
            row = run.one(
                f"SELECT {SELECT} FROM memories m WHERE {where} AND m.id = {d.mark}",
                [*params, entry_id],
            )
        return None if row is None else row_to_entry(row)

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        d = self.dialect
        where, params = view_clause(view, d.mark, agent=d.agent_by_id)
        out: list[MemoryEntry] = []
        with self._reading("reading the entries") as run:
            for page in pages(list(dict.fromkeys(entry_ids))):
                among, ids = d.among("m.id", page)
                rows = run.rows(
                    f"SELECT {SELECT} FROM memories m WHERE {where} AND {among}", [*params, *ids]
                )
                out.extend(row_to_entry(r) for r in rows)
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
        m = self.dialect.mark
        where, params = view_clause(view, m)
        fsql, fparams = filter_clause(flt, m)
        with self._reading("listing entries") as run:
            rows = run.rows(
                f"SELECT {SELECT} FROM memories m WHERE {where}{fsql} "
                f"{order_clause(order)} LIMIT {m} OFFSET {m}",
                [*params, *fparams, int(limit), int(offset)],
            )
        return [row_to_entry(r) for r in rows]

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        d = self.dialect
        where, params = view_clause(view, d.mark)
        fsql, fparams = filter_clause(flt, d.mark)
        last: tuple[Any, Any] = ("", "")
        while True:
            after, aparams = d.after("m.created_at", "m.id", last)
            with self._reading("reading the entries") as run:
                rows = run.rows(
                    f"SELECT {SELECT} FROM memories m WHERE {where}{fsql} AND {after} "
                    f"ORDER BY m.created_at, m.id LIMIT {d.mark}",
                    [*params, *fparams, *aparams, PAGE],
                )
            if not rows:
                return
            for row in rows:
                yield row_to_entry(row)
            last = (rows[-1][_CREATED], rows[-1][0])

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int:
        m = self.dialect.mark
        where, params = view_clause(view, m)
        fsql, fparams = filter_clause(flt, m)
        if not fsql and self.dialect.kept_counts:
            # A whole view's entries are kept per (user, agent) by the keyword index's
            # triggers, in the same transaction as the entries: a few rows read instead
            # of every entry of the user (30 ms at 100,000 on PostgreSQL; the graph
            # channel asks on every search).
            agents, aparams = agents_clause(view, "s", m)
            with self._reading("counting entries") as run:
                row = run.one(
                    f"SELECT coalesce(sum(s.entries), 0) FROM keyword_stats s WHERE {agents}",
                    aparams,
                )
            return int(row[0]) if row else 0
        with self._reading("counting entries") as run:
            row = run.one(
                f"SELECT count(*) FROM memories m WHERE {where}{fsql}", [*params, *fparams]
            )
        return int(row[0]) if row else 0

    def user_ids(self) -> list[str]:
        with self._reading("listing users") as run:
            rows = run.rows("SELECT DISTINCT user_id FROM memories")
        return sorted(r[0] for r in rows)

    def user_counts(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        # user_id sorts by code point on every backend (binary collations on the servers).
        m = self.dialect.mark
        with self._reading("listing users") as run:
            rows = run.rows(
                "SELECT user_id, count(*) FROM memories GROUP BY user_id "
                f"ORDER BY user_id LIMIT {m} OFFSET {m}",
                (int(limit), int(offset)),
            )
        return [UserMemories(r[0], int(r[1])) for r in rows]

    def search_docs(self, user_id: str, entry_ids: Sequence[str]) -> dict[str, SearchDoc]:
        d = self.dialect
        out: dict[str, SearchDoc] = {}
        with self._reading("reading the keyword documents") as run:
            for page in pages(list(dict.fromkeys(entry_ids))):
                among, ids = d.among("id", page)
                rows = run.rows(
                    "SELECT id, fts_head, fts_body, fts_extra FROM memories "
                    f"WHERE user_id = {d.mark} AND {among}",
                    [user_id, *ids],
                )
                out.update((r[0], SearchDoc(r[1], r[2], r[3])) for r in rows)
        return out


__all__ = ["SELECT", "SQLEntries"]
