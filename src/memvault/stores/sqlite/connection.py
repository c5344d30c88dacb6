"""Opening the SQLite file, and the connections every query runs on.

Concurrency: every write runs in a ``BEGIN IMMEDIATE`` transaction, so a
read-then-write takes the write lock before it reads and concurrent writers
queue on ``busy_timeout`` instead of failing with "database is locked". Writes
share one connection under a lock; reads run on a connection per thread, so in
WAL mode a long search neither waits for a commit's fsync nor holds up other
searches (``":memory:"`` databases, private to one connection, use just the one).
Other processes coordinate through SQLite's own file locking.

``atomic()`` nests: the outermost level is the ``BEGIN IMMEDIATE`` transaction, each
inner one a ``SAVEPOINT``; every write method runs in one, so it joins an enclosing
block.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any

from ...errors import StoreError
from ..protocols import CommitHooks
from .schema import LATEST_VERSION, apply_migrations, current_version


def create_private(path: Path) -> bool:
    """Create ``path`` as a new database with mode 0600 unless it exists; True if this
    call made it.

    SQLite gives the ``-wal`` and ``-shm`` files it creates the mode of the database
    file, so these stay private too, whatever the process umask. The file appears with
    its SQLite header already written (made beside it, then linked into place): a
    process stopped during its first open leaves no empty file behind, which the next
    open would have to refuse as a database whose memories were lost.
    """
    if _link_new_database(path):
        return True
    if path.exists():
        return False
    try:  # a file system without hard links: the file first, its header at the open
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError:
        return False  # let sqlite3 report the problem with its own message
    os.close(fd)
    return True


def _link_new_database(path: Path) -> bool:
    """Make an empty database (header only) in a private file beside ``path`` and link
    it to ``path``; False when ``path`` exists or the file system cannot do this."""
    try:
        fd, spare = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    except OSError:
        return False
    os.close(fd)  # mkstemp made it with mode 0600
    try:
        conn = sqlite3.connect(spare)
        try:
            conn.execute("PRAGMA journal_mode = WAL")  # writes the header
        finally:
            conn.close()
        os.link(spare, path)
        return True
    except (OSError, sqlite3.Error):
        return False
    finally:
        for leftover in (spare, f"{spare}-wal", f"{spare}-shm"):
            with suppress(FileNotFoundError):
                os.unlink(leftover)


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


class SQLiteConnection:
    """The connections of one SQLite file (or ``":memory:"``), and its admin calls;
    the store's concerns (entries, keyword index, vectors, audit) build on it."""

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
        self._hooks = CommitHooks()  # what waits for this thread's commit
        self._depth = 0  # nesting of write transactions; only the lock holder touches it
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

    def atomic(self) -> AbstractContextManager[None]:
        """One write transaction that nests: ``BEGIN IMMEDIATE`` outermost, a
        ``SAVEPOINT`` inside; see ``protocols.Transactional``.

        The writer lock is held from start to end, so this thread's reads inside
        see its own uncommitted writes, and every other connection sees none.
        """
        return self._hooks.around(self._write())

    def after_commit(self, hook: Callable[[], None]) -> None:
        """See ``protocols.Transactional.after_commit``."""
        self._hooks.after_commit(hook)

    @contextmanager
    def _write(self, what: str = "the write") -> Iterator[sqlite3.Connection]:
        """The writer connection inside a (nested) write transaction; whatever this
        level wrote is rolled back on any exception that leaves it. Driver errors are
        the caller's to report (``dialect.SQLiteBase._writing`` names ``what``)."""
        with self._lock:
            self._check_open()
            conn = self._conn
            depth = self._depth
            if depth == 0:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    raise StoreError(
                        f"database is busy ({exc}): retry, or raise busy_timeout_ms"
                    ) from exc
                self._local.writing = True
            else:
                conn.execute(f"SAVEPOINT sp{depth}")
            self._depth = depth + 1
            try:
                yield conn
                if depth == 0:
                    conn.execute("COMMIT")
                else:
                    conn.execute(f"RELEASE sp{depth}")
            except BaseException:
                # SQLite may have ended the transaction itself (a full disk, say).
                if conn.in_transaction:
                    if depth == 0:
                        conn.execute("ROLLBACK")
                    else:
                        conn.execute(f"ROLLBACK TO sp{depth}")
                        conn.execute(f"RELEASE sp{depth}")
                raise
            finally:
                self._depth = depth
                if depth == 0:
                    self._local.writing = False

    @contextmanager
    def _read(self, what: str = "the read") -> Iterator[sqlite3.Connection]:
        if self.path == ":memory:" or getattr(self._local, "writing", False):
            # One private database, or a read inside this thread's own write
            # transaction (which must see its uncommitted changes): the writer.
            with self._lock:
                self._check_open()
                try:
                    yield self._conn
                except sqlite3.Error as exc:
                    raise StoreError(f"{what} failed: {exc}") from exc
            return
        conn = self._reader()
        try:
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"{what} failed: {exc}") from exc

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
