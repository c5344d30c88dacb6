"""The embedded default backend: one SQLite file in WAL mode.

Concurrency: every write runs in a ``BEGIN IMMEDIATE`` transaction, so a
read-then-write takes the write lock before it reads and concurrent writers
queue on ``busy_timeout`` instead of failing with "database is locked". Writes
share one connection under a lock; reads run on a connection per thread, so in
WAL mode a long search neither waits for a commit's fsync nor holds up other
searches (``":memory:"`` databases, private to one connection, use just the one).
Other processes coordinate through SQLite's own file locking.

Scope is enforced twice: the full-text index carries hashed scope tokens, so a
MATCH only ever walks the caller's rows, and every query also filters on
``user_id`` in SQL.

Keyword ranking does not use FTS5's ``bm25()``, whose statistics span the whole
table (a user's scores would move when another user stores a word): it computes
BM25 (``base.bm25_part``) from the index's instance table, with the entries, lengths
and document frequencies of the caller's view only (``keyword_docs`` and
``keyword_stats``, kept by triggers; migration 10).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConflictError, NotFoundError, StoreError
from ..model import MemoryEntry
from .base import (
    BM25_B,
    BM25_K1,
    DEFAULT_WEIGHTS,
    NO_FILTER,
    AuditRecord,
    EntryFilter,
    KeywordWeights,
    Mutation,
    RevealChange,
    RevealState,
    SearchDoc,
    StoredVectors,
    VectorChanges,
    VectorItem,
    View,
    bm25_idf,
    bm25_part,
    index_form,
    plan_terms,
    query_forms,
)
from .rows import ENTRY_COLUMNS, entry_to_row, format_time, parse_time, row_to_entry
from .sqlite_schema import LATEST_VERSION, apply_migrations, current_version

_SELECT = ", ".join(f"m.{c}" for c in ENTRY_COLUMNS)
_INSERT_COLUMNS = (*ENTRY_COLUMNS, "fts_scope", "fts_head", "fts_body", "fts_extra")
_INSERT_SQL = (
    f"INSERT INTO memories ({', '.join(_INSERT_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _INSERT_COLUMNS)})"
)
_UPDATE_SQL = (
    "UPDATE memories SET "
    + ", ".join(f"{c} = ?" for c in _INSERT_COLUMNS)
    + " WHERE user_id = ? AND id = ?"
)
_PAGE = 500
# Keyword ranking reads a term's occurrences in the instance table (all users') unless
# reading the view's matching entries' tokens is cheaper; one occurrence there costs
# about as much as this many tokens read in Python (measured on LoCoMo and store_bench).
_INSTANCE_SHARE = 6
# The scope token of a quarantined entry, so recall can leave held entries out inside FTS.
QUARANTINE_TOKEN = "qheld"
# Rows of the vector log kept; a process further behind than this reloads its vectors.
_VECTOR_LOG_KEEP = 100_000


def _h(*parts: str) -> str:
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=10).hexdigest()


def user_token(user_id: str) -> str:
    return "u" + _h(user_id)


def shared_token(user_id: str) -> str:
    return "s" + _h(user_id)


def private_token(user_id: str, agent_id: str) -> str:
    return "p" + _h(user_id, agent_id)


def scope_tokens(entry: MemoryEntry) -> str:
    """Tokens of the FTS ``scope`` column: owner, agent space and classification."""
    tokens = [user_token(entry.user_id)]
    if entry.agent_id is None:
        tokens.append(shared_token(entry.user_id))
    else:
        tokens.append(private_token(entry.user_id, entry.agent_id))
    tokens += [
        f"k{entry.kind.value}",
        f"c{entry.mem_class.value}".replace("_", ""),
        f"t{entry.tier.value}",
    ]
    if entry.domain is not None:
        tokens.append(f"d{entry.domain.value}")
    if entry.quarantine is not None:
        tokens.append(QUARANTINE_TOKEN)
    return " ".join(tokens)


def _view_sql(view: View, *, by_id: bool = False) -> tuple[str, list[Any]]:
    """The WHERE clause (table alias ``m``) that keeps a query inside ``view``.

    ``by_id``: the query also names entry ids. The agent test is then written
    ``+m.agent_id`` so SQLite looks rows up by the (user_id, id) key instead of
    walking the user's whole (user_id, agent_id) index range (measured: 7 ms
    against 0.3 ms for 50 ids among 10k entries).
    """
    agent = "+m.agent_id" if by_id else "m.agent_id"
    if view.all_agents:
        return "m.user_id = ?", [view.user_id]
    if view.agent_id is None:
        return f"m.user_id = ? AND {agent} IS NULL", [view.user_id]
    return f"m.user_id = ? AND ({agent} IS NULL OR {agent} = ?)", [
        view.user_id,
        view.agent_id,
    ]


def _filter_sql(flt: EntryFilter) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in (
        ("kind", flt.kind),
        ("mem_class", flt.mem_class),
        ("domain", flt.domain),
        ("tier", flt.tier),
        ("agent_id", flt.agent_id),
        ("session_id", flt.session_id),
    ):
        if value is not None:
            clauses.append(f"m.{column} = ?")
            params.append(value.value if hasattr(value, "value") else value)
    if flt.quarantined is not None:
        clauses.append(f"m.quarantine IS {'NOT ' if flt.quarantined else ''}NULL")
    return "".join(f" AND {c}" for c in clauses), params


def _scope_terms(view: View) -> tuple[str, ...]:
    """The scope tokens whose entries together make up ``view``."""
    if view.all_agents:
        return (user_token(view.user_id),)
    if view.agent_id is None:
        return (shared_token(view.user_id),)
    return (shared_token(view.user_id), private_token(view.user_id, view.agent_id))


def _scope_match(view: View, flt: EntryFilter) -> str:
    """The FTS5 expression that restricts a MATCH to the view (and classification filters)."""
    parts = ["scope : (" + " OR ".join(f'"{t}"' for t in _scope_terms(view)) + ")"]
    if flt.kind is not None:
        parts.append(f'scope : "k{flt.kind.value}"')
    if flt.mem_class is not None:
        parts.append(f'scope : "c{flt.mem_class.value.replace("_", "")}"')
    if flt.tier is not None:
        parts.append(f'scope : "t{flt.tier.value}"')
    if flt.domain is not None:
        parts.append(f'scope : "d{flt.domain.value}"')
    match = " AND ".join(parts)
    # FTS5's NOT binds tighter than AND, so this reads "(all of the above) and not held".
    if flt.quarantined is True:
        match += f' AND scope : "{QUARANTINE_TOKEN}"'
    elif flt.quarantined is False:
        match += f' NOT scope : "{QUARANTINE_TOKEN}"'
    return match


def _chunks(ids: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """``ids`` in pages that fit SQLite's parameter limit, each with its ``?, ?, ...`` list."""
    for start in range(0, len(ids), _PAGE):
        chunk = list(ids[start : start + _PAGE])
        yield chunk, ", ".join("?" for _ in chunk)


@contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Run several reads on one snapshot of the database (a read transaction)."""
    if conn.in_transaction:
        yield  # already inside one
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


def _vector_mark(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0])


def _stored_vectors(rows: Sequence[Any], mark: int) -> StoredVectors:
    """(id, agent_id, dim, blob) rows as one matrix; rows of another size are left out."""
    if not rows:
        return StoredVectors([], [], np.zeros((0, 0), dtype=np.float32), mark)
    dim = rows[0][2]
    rows = [r for r in rows if r[2] == dim]
    matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
    return StoredVectors(
        [r[0] for r in rows], [r[1] for r in rows], matrix.reshape(len(rows), dim).copy(), mark
    )


def _agents_sql(view: View, alias: str) -> tuple[str, list[Any]]:
    """The WHERE clause on a keyword table's (user_id, agent) that keeps to ``view``."""
    if view.all_agents:
        return f"{alias}.user_id = ?", [view.user_id]
    if view.agent_id is None:
        return f"{alias}.user_id = ? AND {alias}.agent = ''", [view.user_id]
    return f"{alias}.user_id = ? AND {alias}.agent IN ('', ?)", [view.user_id, view.agent_id]


def create_private(path: Path) -> bool:
    """Create ``path`` empty with mode 0600 unless it exists; True if this call made it.

    SQLite gives the ``-wal`` and ``-shm`` files it creates the mode of the database
    file, so these stay private too, whatever the process umask.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError:
        return False  # let sqlite3 report the problem with its own message
    os.close(fd)
    return True


# Database files this process is creating: zero-length until the open writes the header.
_CREATED_HERE: set[str] = set()
# How long a zero-length file may take to get its header from another process's open.
_EMPTY_GRACE_S = 0.5


def _refuse_emptied_file(file: Path) -> bool:
    """Refuse a database file that exists but is empty, unless this process created it;
    True when there is no file yet (this open will create it).

    SQLite would silently start a new, empty database in it, and every memory the file
    held would look lost without an error. Another process creating the same file
    writes its header within milliseconds, so a zero-length file is watched briefly.
    """
    deadline = time.monotonic() + _EMPTY_GRACE_S
    while True:
        try:
            size = file.stat().st_size
        except FileNotFoundError:
            return True
        except OSError:
            return False  # unreadable: connecting reports it
        if size > 0 or os.path.abspath(file) in _CREATED_HERE:
            return False
        if time.monotonic() >= deadline:
            raise StoreError(
                f"the database file {file} is empty (0 bytes) though it existed before this "
                "open, so its memories are gone or were never written: restore it from a "
                "backup, or move or delete it to start a fresh database",
                reason="the database file is empty (0 bytes)",
            )
        time.sleep(0.02)


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class SQLiteStore:
    """A ``Store`` on one SQLite file (or ``":memory:"``)."""

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout_ms: int = 10_000,
        synchronous: str = "FULL",
        migrate_to: int | None = None,
    ) -> None:
        self.path = str(path)
        created = False
        if self.path != ":memory:":
            # First, before anything below may create the file.
            created = _refuse_emptied_file(Path(self.path).expanduser())
            try:
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the directory of the SQLite database {self.path} "
                    f"({exc.strerror}): choose a location you can write"
                ) from None
            create_private(Path(self.path).expanduser())
        self._lock = threading.RLock()
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._local = threading.local()
        # Each thread's read connection, with the thread it belongs to: when a thread
        # has ended its connection is closed the next time a reader is opened, so apps
        # that start a thread per task do not pile up open files.
        self._readers: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        try:
            self._conn = sqlite3.connect(
                self.path,
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot open SQLite database {self.path}: {exc}; check the path and permissions"
            ) from exc
        mine = os.path.abspath(Path(self.path).expanduser()) if created else None
        if mine is not None:
            _CREATED_HERE.add(mine)  # until its header is written, below
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            if self.path != ":memory:":
                self._enable_wal(busy_timeout_ms)
            self._conn.execute(f"PRAGMA synchronous = {synchronous}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.applied_migrations = apply_migrations(self._conn, migrate_to)
        except BaseException as exc:
            self._conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(
                    f"cannot open SQLite database {self.path}: {exc}; check the path, its "
                    "permissions, and that it is a memvault database"
                ) from exc
            raise
        finally:
            if mine is not None:
                _CREATED_HERE.discard(mine)

    def _enable_wal(self, busy_timeout_ms: int) -> None:
        """Switch to WAL; SQLite answers "locked" at once (ignoring busy_timeout) while
        another connection holds a lock, so retry until the timeout runs out."""
        deadline = time.monotonic() + busy_timeout_ms / 1000
        delay = 0.005
        while True:
            try:
                mode = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.1)

    # -- transactions ---------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; rolled back on any exception."""
        with self._lock:
            self._check_open()
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(
                    f"database is busy ({exc}): retry, or raise busy_timeout_ms"
                ) from exc
            self._local.writing = True
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            finally:
                self._local.writing = False

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        if self.path == ":memory:" or getattr(self._local, "writing", False):
            # One private database, or a read inside this thread's own write
            # transaction (which must see its uncommitted changes): the writer.
            with self._lock:
                self._check_open()
                try:
                    yield self._conn
                except sqlite3.Error as exc:
                    raise StoreError(f"database read failed: {exc}") from exc
            return
        conn = self._reader()
        try:
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"database read failed: {exc}") from exc

    def _reader(self) -> sqlite3.Connection:
        """This thread's read-only connection, opened on first use."""
        conn: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if conn is not None and not self._closed:
            return conn
        # Not the writer's lock: a reader must open while a write transaction is open.
        with self._readers_lock:
            self._check_open()
            try:
                conn = sqlite3.connect(
                    self.path,
                    timeout=self._busy_timeout_ms / 1000,
                    isolation_level=None,
                    check_same_thread=False,
                )
                conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
                conn.execute("PRAGMA query_only = 1")
            except sqlite3.Error as exc:
                raise StoreError(
                    f"cannot open SQLite database {self.path} for reading: {exc}"
                ) from exc
            live = []
            for thread, reader in self._readers:
                owner = thread()
                if owner is not None and owner.is_alive():
                    live.append((thread, reader))
                else:
                    reader.close()
            live.append((weakref.ref(threading.current_thread()), conn))
            self._readers = live
        self._local.reader = conn
        return conn

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("this store is closed: open a new one")

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
                conn.executemany(_INSERT_SQL, rows)
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
        where, params = _view_sql(view, by_id=True)
        try:
            with self._write() as conn:
                row = conn.execute(
                    f"SELECT {_SELECT} FROM memories m WHERE {where} AND m.id = ?",
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
                    _UPDATE_SQL,
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
        where, params = _view_sql(view, by_id=True)
        deleted: list[str] = []
        try:
            with self._write() as conn:
                for chunk, marks in _chunks(entry_ids):
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
        where, params = _view_sql(view, by_id=True)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_SELECT} FROM memories m WHERE {where} AND m.id = ?",
                (*params, entry_id),
            ).fetchone()
        return None if row is None else row_to_entry(row)

    def list(
        self, view: View, flt: EntryFilter = NO_FILTER, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryEntry]:
        where, params = _view_sql(view)
        fsql, fparams = _filter_sql(flt)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_SELECT} FROM memories m WHERE {where}{fsql} "
                "ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?",
                (*params, *fparams, limit, offset),
            ).fetchall()
        return [row_to_entry(r) for r in rows]

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        where, params = _view_sql(view)
        fsql, fparams = _filter_sql(flt)
        after: tuple[str, str] = ("", "")
        while True:
            with self._read() as conn:
                rows = conn.execute(
                    f"SELECT {_SELECT} FROM memories m WHERE {where}{fsql} "
                    "AND (m.created_at, m.id) > (?, ?) ORDER BY m.created_at, m.id LIMIT ?",
                    (*params, *fparams, *after, _PAGE),
                ).fetchall()
            if not rows:
                return
            for row in rows:
                yield row_to_entry(row)
            last = rows[-1]
            after = (last[ENTRY_COLUMNS.index("created_at")], last[0])

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int:
        where, params = _view_sql(view)
        fsql, fparams = _filter_sql(flt)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}{fsql}", (*params, *fparams)
            ).fetchone()
        return int(row[0])

    def keyword_search(
        self,
        view: View,
        terms: Sequence[str],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
        weights: KeywordWeights = DEFAULT_WEIGHTS,
    ) -> list[tuple[MemoryEntry, float]]:
        terms = query_forms(terms)
        if not terms:
            return []
        scope = _scope_match(view, flt)
        with self._read() as conn, _snapshot(conn):
            entries, tokens = self._view_stats(conn, view)
            if entries == 0:
                return []
            cutoff = weights.common_term_cutoff
            global_df: dict[str, int] = {}
            if cutoff > 0 and len(terms) > 1:
                marks = ", ".join("?" for _ in terms)
                global_df = dict(
                    conn.execute(
                        f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})", terms
                    ).fetchall()
                )
                cutoff = weights.cutoff_for(entries)

            def view_df(term: str) -> int:
                # Rare across the whole table means rare for the caller; only globally
                # common terms are counted within the caller's scope (capped).
                if global_df.get(term, 0) <= cutoff:
                    return global_df.get(term, 0)
                row = conn.execute(
                    "SELECT count(*) FROM (SELECT rowid FROM memories_fts "
                    "WHERE memories_fts MATCH ? LIMIT ?)",
                    (f"{scope} AND {{head body extra}} : {_quote(term)}", cutoff + 1),
                ).fetchone()
                return int(row[0])

            groups = plan_terms(terms, view_df, cutoff)
            avg = tokens / entries if tokens else 1.0
            for n, (joiner, group) in enumerate(groups):
                ranked = self._rank(
                    conn, view, flt, group, joiner == " AND ", limit, weights, entries, avg
                )
                if ranked or n == len(groups) - 1:
                    break
            found = self._entries_by_pk(conn, view, [pk for pk, _ in ranked])
        return [(found[pk], score) for pk, score in ranked if pk in found]

    @staticmethod
    def _view_stats(conn: sqlite3.Connection, view: View) -> tuple[int, int]:
        """(entries, tokens) inside ``view``, from the trigger-kept ``keyword_stats``."""
        agents, params = _agents_sql(view, "s")
        row = conn.execute(
            "SELECT coalesce(sum(entries), 0), coalesce(sum(tokens), 0) "
            f"FROM keyword_stats s WHERE {agents}",
            params,
        ).fetchone()
        return int(row[0]), int(row[1])

    @staticmethod
    def _rank(
        conn: sqlite3.Connection,
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        entries: int,
        avg: float,
    ) -> list[tuple[int, float]]:
        """(pk, score) of the best ``limit`` entries holding any (or every) term of ``group``.

        Term frequencies come from the index's instance table (where each term occurs),
        each term's document frequency from a count inside the view (unfiltered),
        entries and average length from ``keyword_stats``, lengths from
        ``keyword_docs``: nothing of another user enters a score. The score is
        ``base.bm25_part`` summed over the terms.
        """
        scope = _scope_match(view, NO_FILTER)
        idf: list[Any] = []
        view_docs = 0
        for term in group:
            df = conn.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                (f"{scope} AND {{head body extra}} : {_quote(term)}",),
            ).fetchone()[0]
            if df:
                idf += [term, bm25_idf(entries, int(df))]
                view_docs += int(df)
        if not idf:
            return []
        scored = idf[::2]
        # Two ways to the same numbers. The instance table lists a term's occurrences in
        # every user's entries; when the view holds few of them, reading the tokens of the
        # view's matching entries is cheaper (the choice depends on others' data, the
        # scores do not: both add the same numbers in the same order).
        marks = ", ".join("?" for _ in scored)
        occurrences = conn.execute(
            f"SELECT coalesce(sum(cnt), 0) FROM memories_vocab WHERE term IN ({marks})", scored
        ).fetchone()[0]
        if occurrences * _INSTANCE_SHARE > view_docs * avg:
            return SQLiteStore._rank_from_tokens(
                conn, view, flt, group, every_term, limit, weights, scored, idf[1::2], avg
            )
        agents, aparams = _agents_sql(view, "k")
        fsql, fparams = _filter_sql(flt)
        filtered = ""
        if fsql:
            # Filters the instance table cannot see are checked on the entry itself.
            where, wparams = _view_sql(view)
            filtered = f"CROSS JOIN memories m ON m.pk = h.doc AND {where}{fsql}"
            fparams = [*wparams, *fparams]
        # One row per document: each term's column-weighted count, then the sum of the
        # terms' shares in query order (bm25_part, operation for operation).
        freqs = ", ".join(
            f"total(CASE WHEN term = ? THEN w END) AS f{i}" for i in range(len(scored))
        )
        parts = " + ".join(
            f"? * h.f{i} * (? + 1) / (h.f{i} + ? * (1 - ? + ? * k.len / ?))"
            for i in range(len(scored))
        )
        having = ""
        if every_term:  # every term of the group is in the entry (whatever its weight)
            freqs += ", " + " + ".join("max(term = ?)" for _ in scored) + " AS present"
            having = f" AND h.present = {len(group)}"
        sql = f"""
            SELECT h.doc, {parts} AS score
            FROM (
                SELECT doc, {freqs}
                FROM (
                    SELECT doc, term, CASE col WHEN 'head' THEN ? WHEN 'body' THEN ? ELSE ? END AS w
                    FROM memories_inst
                    WHERE term IN ({marks}) AND col IN ('head', 'body', 'extra')
                )
                GROUP BY doc
            ) h CROSS JOIN keyword_docs k ON k.pk = h.doc {filtered}
            WHERE {agents} AND score > 0{having}
            ORDER BY score DESC, h.doc
            LIMIT ?
        """
        part_args: list[Any] = []
        for i in range(len(scored)):
            part_args += [idf[2 * i + 1], BM25_K1, BM25_K1, BM25_B, BM25_B, avg]
        args = (
            *part_args,
            *scored,
            *(scored if every_term else ()),
            weights.head,
            weights.body,
            weights.extra,
            *scored,
            *fparams,
            *aparams,
            limit,
        )
        return [(int(pk), float(score)) for pk, score in conn.execute(sql, args).fetchall()]

    @staticmethod
    def _rank_from_tokens(
        conn: sqlite3.Connection,
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        scored: Sequence[str],
        idfs: Sequence[float],
        avg: float,
    ) -> list[tuple[int, float]]:
        """``_rank`` from the stored tokens of the view's matching entries, adding the
        same numbers in the same order as its SQL (so both give identical scores)."""
        joiner = " AND " if every_term else " OR "
        wanted = joiner.join(_quote(t) for t in group)
        match = f"{_scope_match(view, flt)} AND {{head body extra}} : ({wanted})"
        where, params = _view_sql(view)
        fsql, fparams = _filter_sql(flt)
        rows = conn.execute(
            "SELECT r.pk, k.len, m.fts_head, m.fts_body, m.fts_extra FROM ("
            "  SELECT rowid AS pk FROM memories_fts WHERE memories_fts MATCH ?"
            ") r CROSS JOIN memories m ON m.pk = r.pk CROSS JOIN keyword_docs k ON k.pk = r.pk "
            f"WHERE {where}{fsql}",
            (match, *params, *fparams),
        ).fetchall()
        slot = {t: i for i, t in enumerate(scored)}
        col_weights = (weights.head, weights.body, weights.extra)
        ranked: list[tuple[int, float]] = []
        for pk, length, *columns in rows:
            freqs = [0.0] * len(scored)
            seen = [False] * len(scored)
            for weight, text in zip(col_weights, columns, strict=True):
                for token in text.split():
                    i = slot.get(index_form(token))
                    if i is not None:
                        freqs[i] += weight
                        seen[i] = True
            if every_term and sum(seen) < len(group):
                continue
            score = 0.0
            for i, freq in enumerate(freqs):
                if seen[i]:
                    score += bm25_part(idfs[i], freq, length, avg)
            if score > 0:
                ranked.append((int(pk), score))
        ranked.sort(key=lambda p: (-p[1], p[0]))
        return ranked[:limit]

    @staticmethod
    def _entries_by_pk(
        conn: sqlite3.Connection, view: View, pks: Sequence[int]
    ) -> dict[int, MemoryEntry]:
        """The entries with these row ids inside ``view``.

        ``+m.user_id``: look rows up by pk, not by walking the user's index range."""
        out: dict[int, MemoryEntry] = {}
        for start in range(0, len(pks), _PAGE):
            chunk = pks[start : start + _PAGE]
            marks = ", ".join("?" for _ in chunk)
            rows = conn.execute(
                f"SELECT {_SELECT}, m.pk FROM memories m WHERE m.pk IN ({marks}) "
                "AND +m.user_id = ?",
                (*chunk, view.user_id),
            ).fetchall()
            for row in rows:
                found = row_to_entry(row)
                if view.sees(found):
                    out[int(row[-1])] = found
        return out

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        where, params = _view_sql(view, by_id=True)
        out: list[MemoryEntry] = []
        with self._read() as conn:
            for chunk, marks in _chunks(entry_ids):
                rows = conn.execute(
                    f"SELECT {_SELECT} FROM memories m WHERE {where} AND m.id IN ({marks})",
                    (*params, *chunk),
                ).fetchall()
                out.extend(row_to_entry(r) for r in rows)
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
        with self._read() as conn, _snapshot(conn):
            mark = _vector_mark(conn)
            rows = conn.execute(
                "SELECT m.id, m.agent_id, e.dim, e.vector FROM embeddings e "
                "JOIN memories m ON m.pk = e.memory_pk WHERE m.user_id = ? AND e.model = ?",
                (user_id, model),
            ).fetchall()
        return _stored_vectors(rows, mark)

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        with self._read() as conn, _snapshot(conn):
            first, mark = conn.execute("SELECT min(seq), max(seq) FROM vector_log").fetchone()
            if first is None:
                return VectorChanges(since, _stored_vectors([], since), [])
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
            for chunk, marks in _chunks(changed):
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
            int(mark), _stored_vectors(rows, int(mark)), [i for i in changed if i not in present]
        )

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        after = after or ("", "")
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_SELECT} FROM memories m "
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

    # -- sensitive data -------------------------------------------------------------

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT o.sealed FROM originals o JOIN memories m ON m.pk = o.memory_pk "
                "WHERE m.user_id = ? AND m.id = ?",
                (user_id, entry_id),
            ).fetchone()
        return None if row is None else bytes(row[0])

    @staticmethod
    def _append_audit(conn: sqlite3.Connection, record: AuditRecord) -> None:
        conn.execute(
            "INSERT INTO audit_log (at, user_id, entry_id, actor, action, outcome, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                format_time(record.at),
                record.user_id,
                record.entry_id,
                record.actor,
                record.action,
                record.outcome,
                record.detail,
            ),
        )

    def change_reveal(
        self, user_id: str, entry_id: str | None, change: RevealChange
    ) -> RevealState:
        try:
            with self._write() as conn:
                user = conn.execute(
                    "SELECT failures, first_failure_at, locked_at FROM reveal_users "
                    "WHERE user_id = ?",
                    (user_id,),
                ).fetchone()
                grant = None
                if entry_id is not None:
                    grant = conn.execute(
                        "SELECT granted_until, version FROM reveal_grants "
                        "WHERE user_id = ? AND entry_id = ?",
                        (user_id, entry_id),
                    ).fetchone()
                current = RevealState(
                    int(user[0]) if user else 0,
                    parse_time(user[1]) if user else None,
                    parse_time(user[2]) if user else None,
                    parse_time(grant[0]) if grant else None,
                    grant[1] if grant else None,
                )
                new, record = change(current)
                conn.execute(
                    "INSERT OR REPLACE INTO reveal_users "
                    "(user_id, failures, first_failure_at, locked_at) VALUES (?, ?, ?, ?)",
                    (
                        user_id,
                        new.failures,
                        format_time(new.first_failure_at),
                        format_time(new.locked_at),
                    ),
                )
                if entry_id is not None:
                    if new.granted_until is None or new.granted_version is None:
                        conn.execute(
                            "DELETE FROM reveal_grants WHERE user_id = ? AND entry_id = ?",
                            (user_id, entry_id),
                        )
                    else:
                        conn.execute(
                            "INSERT OR REPLACE INTO reveal_grants "
                            "(user_id, entry_id, granted_until, version) VALUES (?, ?, ?, ?)",
                            (
                                user_id,
                                entry_id,
                                format_time(new.granted_until),
                                new.granted_version,
                            ),
                        )
                self._append_audit(conn, record)
                return new
        except sqlite3.Error as exc:
            raise StoreError(f"reveal bookkeeping failed and was rolled back: {exc}") from exc

    def append_audit(self, record: AuditRecord) -> None:
        try:
            with self._write() as conn:
                self._append_audit(conn, record)
        except sqlite3.Error as exc:
            raise StoreError(f"audit write failed: {exc}") from exc

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        sql = (
            "SELECT seq, at, user_id, entry_id, actor, action, outcome, detail FROM audit_log "
            "WHERE user_id = ? AND seq > ?"
        )
        params: list[Any] = [user_id, after]
        if entry_id is not None:
            sql += " AND entry_id = ?"
            params.append(entry_id)
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY seq LIMIT ?", (*params, limit)).fetchall()
        return [
            AuditRecord(
                at=parse_time(r[1]),  # type: ignore[arg-type]
                user_id=r[2],
                entry_id=r[3],
                actor=r[4],
                action=r[5],
                outcome=r[6],
                detail=r[7],
                seq=int(r[0]),
            )
            for r in rows
        ]

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT salt, digest FROM reveal_secrets WHERE user_id = ?", (user_id,)
            ).fetchone()
        return None if row is None else (bytes(row[0]), bytes(row[1]))

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        try:
            with self._write() as conn:
                conn.execute(
                    "INSERT OR REPLACE INTO reveal_secrets (user_id, salt, digest) "
                    "VALUES (?, ?, ?)",
                    (user_id, salt, digest),
                )
                conn.execute("DELETE FROM reveal_grants WHERE user_id = ?", (user_id,))
        except sqlite3.Error as exc:
            raise StoreError(f"saving the reveal challenge failed: {exc}") from exc

    def erase_user(self, user_id: str) -> list[str]:
        # secure_delete zeroes freed pages, so deleted text does not linger in the file;
        # 'optimize' merges the index into one segment without the deleted rows' tokens;
        # the checkpoint empties the WAL, which still holds the old pages. The vector
        # log keeps its (user, entry id) rows: other processes read them to drop the
        # erased vectors from memory, and the log is pruned as it grows.
        with self._lock:
            self._check_open()
            self._conn.execute("PRAGMA secure_delete = ON")
            try:
                with self._write() as conn:
                    ids = [
                        r[0]
                        for r in conn.execute(
                            "SELECT id FROM memories WHERE user_id = ?", (user_id,)
                        ).fetchall()
                    ]
                    conn.execute("DELETE FROM memories WHERE user_id = ?", (user_id,))
                    for table in ("reveal_secrets", "reveal_users", "reveal_grants"):
                        conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
                    # The audit log refuses deletes except for a user being erased.
                    conn.execute("INSERT INTO audit_erasing (user_id) VALUES (?)", (user_id,))
                    conn.execute("DELETE FROM audit_log WHERE user_id = ?", (user_id,))
                    conn.execute("DELETE FROM audit_erasing WHERE user_id = ?", (user_id,))
                    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
                if self.path != ":memory:":
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StoreError(f"erasing the user failed and was rolled back: {exc}") from exc
            finally:
                self._conn.execute("PRAGMA secure_delete = OFF")
        return ids

    # -- admin ----------------------------------------------------------------------

    def schema_version(self) -> int:
        with self._read() as conn:
            return current_version(conn)

    def health(self) -> dict[str, Any]:
        if self.path != ":memory:":
            try:
                size: int | None = Path(self.path).expanduser().stat().st_size
            except OSError:
                size = None
            if not size:
                state = "empty (0 bytes)" if size == 0 else "missing"
                raise StoreError(
                    f"the database file {self.path} is {state} while open: stop the server "
                    "and restore it from a backup",
                    reason=f"the database file is {state}",
                )
        with self._read() as conn:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            entries = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            version = current_version(conn)
        if check != "ok":
            raise StoreError(f"SQLite integrity check failed: {check}; restore from a backup")
        return {
            "backend": "sqlite",
            "path": self.path,
            "sqlite_version": sqlite3.sqlite_version,
            "journal_mode": mode,
            "schema_version": version,
            "latest_schema_version": LATEST_VERSION,
            "entries": entries,
            "integrity": check,
        }

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with self._readers_lock:
                for _, reader in self._readers:
                    reader.close()
                self._readers.clear()
            self._conn.close()


__all__ = ["SQLiteStore", "create_private", "scope_tokens"]
