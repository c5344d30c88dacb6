"""The connection pool of one PostgreSQL database, transactions, and admin calls.

Concurrency: every thread takes its own connection from a ``psycopg_pool`` pool for
each call, so searches and writes of different threads (and processes) run side by
side; a read-modify-write locks its row (``FOR UPDATE``) or the user (an advisory
lock) instead of the whole database. ``atomic()`` nests: the outermost level is one
transaction on a connection the thread keeps until it ends, each inner level a
``SAVEPOINT``; every write method runs in one, so it joins an enclosing block, and
reads inside it run on the same connection (they see its uncommitted writes).

Every statement runs under ``statement_timeout``, and a connection idle inside a
transaction is ended by the server after a while, so neither a slow query nor a
vanished client hangs anything. A server that cannot be reached or goes away raises
``StoreUnavailableError`` (with what to do); the pool replaces broken connections
by itself, so calls succeed again once the server is back. Messages never hold the
URL (it may hold a password).

Other processes' commits are seen through ``LISTEN``/``NOTIFY``: every write
transaction notifies at commit, signed by its store, and ``change_counter`` counts
the notifications of other stores a listening connection has received (they are
delivered only after the commit); each call is one round trip on that connection,
which also tells when it has broken.
"""

from __future__ import annotations

import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg import pq
from psycopg_pool import ConnectionPool, PoolTimeout

from ...errors import ConfigError, StoreError, StoreUnavailableError
from ..protocols import CommitHooks
from .schema import LATEST_VERSION, apply_migrations, current_version

CHANNEL = "memvault_changes"
_IDLE = pq.TransactionStatus.IDLE
#: A connection given back this recently, whole, is lent again without a check.
FRESH_S = 1.0


class _Check:
    """The pool's check of a connection it lends: a round trip, skipped for one given
    back whole within ``FRESH_S`` seconds.

    Why: a search takes a connection several times, and each check was a round trip
    (a few milliseconds each on a busy machine). A connection that just worked rarely
    broke since; if it did (the server restarted in that second), its next statement
    fails like any database error and the pool drops it when it comes back."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._returned: weakref.WeakKeyDictionary[psycopg.Connection[Any], float] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def given_back(self, conn: psycopg.Connection[Any]) -> None:
        """Note a connection going back to the pool (whole and idle, or not noted)."""
        if not conn.closed and not conn.broken and conn.info.transaction_status == _IDLE:
            with self._lock:
                self._returned[conn] = self._monotonic()

    def __call__(self, conn: psycopg.Connection[Any]) -> None:
        with self._lock:
            returned = self._returned.pop(conn, None)
        if returned is not None and self._monotonic() - returned < FRESH_S:
            return
        ConnectionPool.check_connection(conn)


def _close(conn: psycopg.Connection[Any]) -> None:
    """Give back a connection that belongs to no pool: close it."""
    conn.close()


def conninfo_of(url: str) -> str:
    """The libpq URL of a ``postgresql://`` or ``postgresql+driver://`` store URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower().split("+", 1)[0]
    if scheme not in ("postgresql", "postgres"):
        raise ConfigError("a PostgreSQL store URL starts with postgresql://")
    if not parts.path.strip("/"):
        raise ConfigError(
            "the postgresql:// URL names no database: write "
            "postgresql://user:password@host:5432/database"
        )
    return urlunsplit(parts._replace(scheme="postgresql"))


class PostgresConnection:
    """The pool of one PostgreSQL database, and its admin calls; the store's concerns
    (entries, keyword index, vectors, audit) build on it."""

    def __init__(
        self,
        url: str,
        *,
        statement_timeout_ms: int = 30_000,
        connect_timeout_s: float = 10.0,
        pool_size: int = 10,
        migrate_to: int | None = None,
    ) -> None:
        conninfo = conninfo_of(url)
        self._secret = unquote(urlsplit(conninfo).password or "")
        self.statement_timeout_ms = int(statement_timeout_ms)
        self._connect_timeout_s = float(connect_timeout_s)
        self._local = threading.local()
        self._hooks = CommitHooks()  # what waits for this thread's commit
        self._closed = False
        self._kwargs: dict[str, Any] = {
            "autocommit": True,
            "connect_timeout": max(1, int(connect_timeout_s)),
            "options": (
                f"-c statement_timeout={self.statement_timeout_ms} "
                "-c idle_in_transaction_session_timeout="
                f"{max(60_000, self.statement_timeout_ms * 4)}"
            ),
        }
        self._conninfo = conninfo
        # Signs this store's notifications: its own commits do not move its counter.
        self._token = uuid.uuid4().hex
        self._listener_lock = threading.Lock()
        self._listener: psycopg.Connection[Any] | None = None
        self._notifications = 0
        self._hnsw_dims: set[int] = set()  # vector sizes whose HNSW index exists
        # One direct connection first: an unreachable server fails at once (the pool
        # would keep retrying until its timeout), and the schema is brought up to date.
        try:
            with psycopg.connect(conninfo, **self._kwargs) as conn:
                self.applied_migrations = apply_migrations(conn, migrate_to)
                self.pgvector = _pgvector_version(conn)
                self.term_frequencies = _has_term_frequencies(conn)
        except psycopg.Error as exc:
            raise self._error(exc, "opening the PostgreSQL database") from None
        self._pool_size = max(1, int(pool_size))
        self._check = _Check()
        self._pool_lock = threading.Lock()
        self._pool = self._new_pool()
        try:
            self._pool.open(wait=True, timeout=connect_timeout_s)
        except PoolTimeout as exc:
            self._pool.close()
            raise self._error(exc, "opening the PostgreSQL database") from None

    def _new_pool(self) -> ConnectionPool[Any]:
        return ConnectionPool(
            self._conninfo,
            min_size=1,
            max_size=self._pool_size,
            kwargs=self._kwargs,
            check=self._check,  # a broken connection is replaced
            timeout=self._connect_timeout_s,
            open=False,
            name="memvault",
        )

    def _getconn(
        self,
    ) -> tuple[Callable[[psycopg.Connection[Any]], None], psycopg.Connection[Any]]:
        """A connection, and how to give it back.

        After an outage the pool retries with growing pauses (and a stale connection
        it lends fails its check, which costs a pause of its own), so it may still be
        pausing when the server is back. If no connection comes in time, one direct
        connection tells whether the server answers: if it does, that connection
        serves this call (closed when given back) and the pool is replaced by a fresh
        one for the calls after it, so the first call after an outage never fails
        because the pool was waiting."""
        self._check_open()
        pool = self._pool
        try:
            return pool.putconn, pool.getconn()
        except PoolTimeout:
            # Still unreachable: its error reaches the caller, which reports it.
            direct = psycopg.connect(self._conninfo, **self._kwargs)
            with self._pool_lock:
                if self._closed:
                    direct.close()
                    self._check_open()
                if self._pool is pool:
                    self._pool = self._new_pool()
                    self._pool.open(wait=False)
                    pool.close(timeout=0)
            return _close, direct

    # -- errors ---------------------------------------------------------------------

    def _message(self, exc: BaseException) -> str:
        """What the server said, without the password (never the URL)."""
        text = ""
        if isinstance(exc, psycopg.Error) and exc.diag.message_primary:
            text = exc.diag.message_primary
        else:
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if self._secret:
            text = text.replace(self._secret, "***")
        return text

    def _error(self, exc: BaseException, what: str) -> StoreError:
        """The memvault error for a driver error while doing ``what``."""
        said = self._message(exc)
        if isinstance(exc, psycopg.errors.QueryCanceled):
            return StoreError(
                f"{what} took longer than the statement timeout "
                f"({self.statement_timeout_ms} ms) and was rolled back: retry, or raise "
                "statement_timeout_ms"
            )
        state = exc.sqlstate if isinstance(exc, psycopg.Error) else None
        if state is not None and state.startswith("40"):  # deadlock, serialization
            return StoreError(
                f"{what} clashed with a concurrent write ({said}) and was rolled back: retry it"
            )
        refused = said.split("FATAL:", 1)[1].strip() if "FATAL:" in said else ""
        if refused and not any(
            word in refused for word in ("too many", "starting up", "shutting down", "recovery")
        ):  # reachable, but it will not take this user or database: a set-up problem
            return StoreError(
                f"{what} failed: the PostgreSQL server refused the connection ({refused}): "
                "check the URL's user, password and database name, and that the database "
                "exists"
            )
        if isinstance(exc, PoolTimeout) or (
            isinstance(exc, psycopg.OperationalError)
            and (state is None or state.startswith(("08", "57P")))
        ):
            return StoreUnavailableError(
                f"{what} failed: the PostgreSQL server cannot be reached ({said}); nothing was "
                "changed. Check that the server is running; memvault reconnects by itself "
                "when it is back, so retry then"
            )
        return StoreError(f"{what} failed and was rolled back: {said}")

    # -- transactions ---------------------------------------------------------------

    def atomic(self) -> AbstractContextManager[None]:
        """One write transaction that nests: a transaction outermost, a ``SAVEPOINT``
        inside; see ``protocols.Transactional``."""
        return self._hooks.around(self._write("the write"))

    def after_commit(self, hook: Callable[[], None]) -> None:
        """See ``protocols.Transactional.after_commit``."""
        self._hooks.after_commit(hook)

    @contextmanager
    def _write(self, what: str = "the write") -> Iterator[psycopg.Connection[Any]]:
        """This thread's connection inside a (nested) write transaction; whatever this
        level wrote is rolled back on any exception that leaves it."""
        local = self._local
        conn: psycopg.Connection[Any] | None = getattr(local, "conn", None)
        if conn is not None:
            depth: int = local.depth
            try:
                conn.execute(f"SAVEPOINT sp{depth}")
            except psycopg.Error as exc:
                raise self._error(exc, what) from None
            local.depth = depth + 1
            try:
                yield conn
                conn.execute(f"RELEASE SAVEPOINT sp{depth}")
            except BaseException as exc:
                if not conn.closed and conn.info.transaction_status != _IDLE:
                    with suppress(psycopg.Error):  # if it broke, the outer level reports it
                        conn.execute(f"ROLLBACK TO SAVEPOINT sp{depth}")
                        conn.execute(f"RELEASE SAVEPOINT sp{depth}")
                if isinstance(exc, psycopg.Error):
                    raise self._error(exc, what) from None
                raise
            finally:
                local.depth = depth
            return
        try:
            give_back, conn = self._getconn()
        except (PoolTimeout, psycopg.Error) as exc:
            raise self._error(exc, what) from None
        local.conn, local.depth = conn, 1
        try:
            conn.execute("BEGIN")
            yield conn
            # One round trip: with no parameters the two go as one simple query.
            conn.execute(f"NOTIFY {CHANNEL}, '{self._token}'; COMMIT")
        except BaseException as exc:
            if not conn.closed and conn.info.transaction_status != _IDLE:
                with suppress(psycopg.Error):
                    conn.execute("ROLLBACK")
            if isinstance(exc, psycopg.Error):
                raise self._error(exc, what) from None
            raise
        finally:
            local.conn, local.depth = None, 0
            self._check.given_back(conn)
            give_back(conn)

    @contextmanager
    def _read(self, what: str = "the read") -> Iterator[psycopg.Connection[Any]]:
        """A connection to read on: this thread's write transaction if it has one."""
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None:
            try:
                yield conn
            except psycopg.Error as exc:
                raise self._error(exc, what) from None
            return
        try:
            give_back, conn = self._getconn()
        except (PoolTimeout, psycopg.Error) as exc:
            raise self._error(exc, what) from None
        try:
            yield conn
        except psycopg.Error as exc:
            raise self._error(exc, what) from None
        finally:
            if not conn.closed and conn.info.transaction_status != _IDLE:
                with suppress(psycopg.Error):
                    conn.rollback()
            self._check.given_back(conn)
            give_back(conn)

    @contextmanager
    def _snapshot(self, what: str = "the read") -> Iterator[psycopg.Connection[Any]]:
        """Several reads on one snapshot (a repeatable-read transaction), or inside this
        thread's write transaction if it has one."""
        with self._read(what) as conn:
            if conn.info.transaction_status != _IDLE:
                yield conn
                return
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield conn
            finally:
                if not conn.closed and conn.info.transaction_status != _IDLE:
                    with suppress(psycopg.Error):
                        conn.execute("ROLLBACK")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("this store is closed: open a new one")

    # -- other processes' commits ---------------------------------------------------

    def change_counter(self) -> int:
        """Counts the commits of other stores (processes, connections) the listening
        connection has heard of; this store's own are signed and not counted, as
        SQLite's ``data_version`` does not count them: the engine keeps its caches
        current with its own writes, and a count that moved on them made it read
        again what it already had (a user's person names, on every write and search).

        When the listener had to be (re)connected, the count moves too: what was
        committed while nobody listened is unknown, so callers refresh."""
        self._check_open()
        with self._listener_lock:
            for attempt in (1, 2):
                try:
                    listener = self._listener
                    if listener is None or listener.closed or listener.broken:
                        self._drop_listener()
                        listener = psycopg.connect(self._conninfo, **self._kwargs)
                        listener.add_notify_handler(self._heard)
                        listener.execute(f"LISTEN {CHANNEL}")
                        self._listener = listener
                        self._notifications += 1
                    # A round trip: delivers what has arrived to ``_heard``, and finds out
                    # whether the connection still works (a restart leaves it dead).
                    listener.execute("SELECT 1")
                    return self._notifications
                except psycopg.Error as exc:
                    # A listener that broke (the server restarted) is replaced once.
                    self._drop_listener()
                    if attempt == 2:
                        raise self._error(exc, "checking for other processes' writes") from None
            raise AssertionError("unreachable")

    def _heard(self, notification: psycopg.Notify) -> None:
        if notification.payload != self._token:
            self._notifications += 1

    def _drop_listener(self) -> None:
        if self._listener is not None:
            with suppress(psycopg.Error):
                self._listener.close()
            self._listener = None

    # -- admin ----------------------------------------------------------------------

    def schema_version(self) -> int:
        with self._read() as conn:
            return current_version(conn)

    def health(self) -> dict[str, Any]:
        with self._read("the health check") as conn:
            row = conn.execute(
                "SELECT current_setting('server_version'), "
                "(SELECT count(*) FROM memories), current_database()"
            ).fetchone()
            version = current_version(conn)
        assert row is not None
        return {
            "backend": "postgresql",
            "server_version": row[0],
            "database": row[2],
            "schema_version": version,
            "latest_schema_version": LATEST_VERSION,
            "entries": int(row[1]),
            "pgvector": self.pgvector,
            "vector_search": (
                f"pgvector {self.pgvector}"
                if self.pgvector
                else "in the application (the server has no pgvector extension)"
            ),
            "statement_timeout_ms": self.statement_timeout_ms,
        }

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._listener_lock:
            self._drop_listener()
        with self._pool_lock:
            self._pool.close()


def _has_term_frequencies(conn: psycopg.Connection[Any]) -> bool:
    """Whether entries carry their term frequencies (migration 7), so the server ranks
    keyword matches; a schema opened at an older version is ranked in the application."""
    row = conn.execute(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = 'memories' AND column_name = 'fts_tf_head'"
    ).fetchone()
    return row is not None


def _pgvector_version(conn: psycopg.Connection[Any]) -> str | None:
    """The pgvector version the store uses (its extension, and the ``vec`` column of
    migration 4); None without it: vectors are then searched in the application."""
    row = conn.execute(
        "SELECT e.extversion FROM pg_extension e WHERE e.extname = 'vector' AND EXISTS ("
        " SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = 'embeddings' AND column_name = 'vec')"
    ).fetchone()
    return str(row[0]) if row else None
