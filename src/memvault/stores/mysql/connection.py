"""Connecting to a MySQL or MariaDB server, and the connections every query runs on.

PyMySQL has no pool, so the store keeps one connection per thread (opened on first
use, closed when its thread has ended or the store closes). That is what a pool
would give each thread anyway, and it makes ``atomic()`` simple: a thread's
transaction lives on its own connection, invisible to every other thread until the
outermost block commits. Connections run in autocommit mode; a write opens
``START TRANSACTION`` explicitly, an inner ``atomic()`` is a ``SAVEPOINT``, and
several reads that must agree run in one consistent-snapshot transaction.

Every statement has a time limit (``max_statement_time`` on MariaDB,
``max_execution_time`` on MySQL, which limits only SELECTs; row-lock waits end after
``innodb_lock_wait_timeout``), and the socket a read and write timeout, so a server
that stops answering gives a ``StoreError`` instead of a hung process. A connection
the server dropped is discarded, and the next call opens a new one: the store
recovers by itself once the server is back.

Messages never show the store URL (it may hold a password).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pymysql
import pymysql.cursors

from ...errors import ConfigError, StoreError, StoreUnavailableError
from ..protocols import CommitHooks
from .schema import LATEST_VERSION, TERMS_VERSION, apply_migrations, current_version

# Client error codes of a connection that is gone (can't connect, gone away, lost).
_GONE = {2002, 2003, 2006, 2013, 2014, 2055, 0}
_DEADLOCK, _LOCK_WAIT = 1213, 1205
_TIMED_OUT = {1969, 3024}  # MariaDB max_statement_time, MySQL max_execution_time
_PING_AFTER_S = 30.0  # a connection idle this long is pinged before it is used
_OPTIONS = {"unix_socket", "connect_timeout", "statement_timeout_ms", "lock_timeout_ms"}


@dataclass(frozen=True, slots=True)
class ServerAddress:
    """What a ``mysql://`` URL names; ``password`` is never shown (see ``__repr__``)."""

    host: str
    port: int
    user: str
    password: str = field(repr=False)
    database: str
    unix_socket: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def connect_args(self, *, with_database: bool = True) -> dict[str, Any]:
        """The keyword arguments of ``pymysql.connect`` for this server (utf8mb4, as every
        memvault connection is); without the database for server-wide statements."""
        args: dict[str, Any] = {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "unix_socket": self.unix_socket,
            "charset": "utf8mb4",
        }
        if with_database:
            args["database"] = self.database
        return args


def parse_url(url: str) -> ServerAddress:
    """``mysql://user:password@host:port/database?option=value`` (also ``mariadb://`` and
    ``+pymysql``); ``ConfigError`` naming the problem, never the URL."""
    try:
        parts = urlsplit(url)
        port = parts.port or 3306
    except ValueError:
        raise ConfigError(
            "the mysql:// URL is malformed (check the port): write "
            "mysql://user:password@host:3306/database"
        ) from None
    database = unquote(parts.path.lstrip("/"))
    if not database or "/" in database:
        raise ConfigError(
            "the mysql:// URL names no database: write mysql://user:password@host:3306/database"
        )
    if parts.fragment:
        raise ConfigError("a mysql:// URL takes no #fragment")
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(
            f"unknown mysql:// URL option {unknown[0]!r}: use {', '.join(sorted(_OPTIONS))}"
        )
    for key in ("connect_timeout", "statement_timeout_ms", "lock_timeout_ms"):
        if key in options and not (options[key].isdigit() and int(options[key]) > 0):
            raise ConfigError(f"the mysql:// URL option {key} must be a positive whole number")
    if not parts.hostname and "unix_socket" not in options:
        raise ConfigError("the mysql:// URL names no host: write mysql://user@host/database")
    return ServerAddress(
        host=parts.hostname or "localhost",
        port=port,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        database=database,
        unix_socket=options.get("unix_socket"),
        options=options,
    )


def store_error(exc: BaseException, what: str) -> StoreError:
    """A ``StoreError`` for a driver error, saying what to do (and never the URL)."""
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    detail = exc.args[1] if len(exc.args) > 1 else str(exc)
    if isinstance(exc, pymysql.err.OperationalError | pymysql.err.InterfaceError) and (
        code in _GONE or code is None
    ):
        return StoreUnavailableError(
            f"{what} failed: the MySQL server is unreachable ({detail}); check that it is "
            "running and reachable, then retry: the store reconnects by itself",
            reason="database unavailable",
        )
    if code in (_DEADLOCK, _LOCK_WAIT):
        return StoreError(
            f"{what} failed: the database is busy ({detail}); nothing was written, retry "
            "(or raise lock_timeout_ms in the store URL)",
            reason="database busy",
        )
    if code in _TIMED_OUT:
        return StoreError(
            f"{what} failed: a statement ran past its time limit ({detail}); retry, or "
            "raise statement_timeout_ms in the store URL",
            reason="statement timeout",
        )
    return StoreError(f"{what} failed and was rolled back: {detail}")


class _ThreadState(threading.local):
    conn: pymysql.connections.Connection | None = None
    used: float = 0.0  # time.monotonic() of the connection's last use
    depth: int = 0
    broken: bool = False  # the server ended this thread's transaction itself


class MySQLConnection:
    """The connections of one MySQL / MariaDB database, and its admin calls; the
    store's concerns (entries, keyword index, vectors, audit) build on it."""

    def __init__(
        self,
        url: str,
        *,
        statement_timeout_ms: int = 30_000,
        lock_timeout_ms: int = 10_000,
        migrate_to: int | None = None,
    ) -> None:
        self.address = parse_url(url)
        opts = self.address.options
        self.statement_timeout_ms = int(opts.get("statement_timeout_ms", statement_timeout_ms))
        self.lock_timeout_ms = int(opts.get("lock_timeout_ms", lock_timeout_ms))
        self.connect_timeout_s = int(opts.get("connect_timeout", 10))
        self._local = _ThreadState()
        self._hooks = CommitHooks()  # what waits for this thread's commit
        self._conns: list[tuple[weakref.ref[threading.Thread], Any]] = []
        self._conns_lock = threading.Lock()
        self._closed = False
        self.flavor = "mariadb"
        self.server_version = ""
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                # A migration may rebuild a big table: no statement limit meanwhile.
                limit = "max_statement_time" if self.flavor == "mariadb" else "max_execution_time"
                cur.execute(f"SET @memvault_limit = @@SESSION.{limit}")
                cur.execute(f"SET SESSION {limit} = 0")
                self.applied_migrations = apply_migrations(
                    cur, self.flavor, self.address.database, migrate_to
                )
                # Keyword search ranks in SQL from keyword_terms (migration 9); a schema
                # opened at an older version (tests of old data) cannot search.
                self.term_table = current_version(cur) >= TERMS_VERSION
                cur.execute(f"SET SESSION {limit} = @memvault_limit")
        except pymysql.err.Error as exc:
            conn.close()
            raise store_error(exc, "opening the MySQL store") from None
        except BaseException:
            conn.close()
            raise
        self._adopt(conn)

    # -- connections ----------------------------------------------------------------

    def _connect(self) -> Any:
        a = self.address
        # The socket timeouts outlast the statement limit, so the server's own limit
        # ends a slow statement first and the socket's only a server that went silent.
        io_timeout = self.statement_timeout_ms / 1000 + 5
        try:
            conn = pymysql.connect(
                **a.connect_args(),
                autocommit=True,
                connect_timeout=self.connect_timeout_s,
                read_timeout=io_timeout,
                write_timeout=io_timeout,
            )
        except pymysql.err.OperationalError as exc:
            code = exc.args[0] if exc.args else None
            if code == 1045:
                raise StoreError(
                    f"the MySQL server refused the login of user {a.user!r}: check the user "
                    "name and password in the store URL",
                    reason="login refused",
                ) from None
            if code == 1049:
                raise StoreError(
                    f"the database {a.database!r} does not exist on the MySQL server: create "
                    f"it (CREATE DATABASE `{a.database}` CHARACTER SET utf8mb4) or fix the URL",
                    reason="no such database",
                ) from None
            raise store_error(exc, "connecting to the MySQL server") from None
        except pymysql.err.Error as exc:
            raise store_error(exc, "connecting to the MySQL server") from None
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT VERSION()")
                version = str(cur.fetchone()[0])
                self.server_version = version
                self.flavor = "mariadb" if "mariadb" in version.lower() else "mysql"
                lock_s = max(1, -(-self.lock_timeout_ms // 1000))
                cur.execute("SET SESSION time_zone = '+00:00'")
                cur.execute(
                    "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,"
                    "ERROR_FOR_DIVISION_BY_ZERO'"
                )
                cur.execute(f"SET SESSION innodb_lock_wait_timeout = {lock_s}")
                # Writes lock the rows they read (FOR UPDATE) and nothing around them,
                # so concurrent writers of different entries do not deadlock on gap
                # locks; a read that needs one snapshot asks for it (``_snapshot``).
                cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
                if self.flavor == "mariadb":
                    seconds = self.statement_timeout_ms / 1000
                    cur.execute(f"SET SESSION max_statement_time = {seconds:.3f}")
                else:
                    cur.execute(f"SET SESSION max_execution_time = {self.statement_timeout_ms}")
        except pymysql.err.Error as exc:
            conn.close()
            raise store_error(exc, "setting up the MySQL connection") from None
        return conn

    def _adopt(self, conn: Any) -> None:
        """Make ``conn`` this thread's connection, closing those of ended threads."""
        with self._conns_lock:
            live = []
            for thread, other in self._conns:
                owner = thread()
                if owner is not None and owner.is_alive():
                    live.append((thread, other))
                else:
                    _close_quietly(other)
            live.append((weakref.ref(threading.current_thread()), conn))
            self._conns = live
        self._local.conn = conn

    def _conn(self) -> Any:
        """This thread's connection, opened on first use or after the server dropped it.

        One idle for a while is pinged first: the server closes idle connections
        (``wait_timeout``) and may have restarted, and a fresh connection then serves
        the call instead of an error.
        """
        self._check_open()
        state = self._local
        conn = state.conn
        now = time.monotonic()
        if conn is not None and state.depth == 0 and now - state.used > _PING_AFTER_S:
            try:
                conn.ping(reconnect=False)
            except pymysql.err.Error:
                self._forget()
                conn = None
        if conn is None:
            conn = self._connect()
            self._adopt(conn)
        state.used = now
        return conn

    def _forget(self) -> None:
        """Drop this thread's connection (after the server went away)."""
        conn, self._local.conn = self._local.conn, None
        if conn is not None:
            with self._conns_lock:
                self._conns = [(t, c) for t, c in self._conns if c is not conn]
            _close_quietly(conn)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("this store is closed: open a new one")

    # -- transactions ---------------------------------------------------------------

    def atomic(self) -> AbstractContextManager[None]:
        """One write transaction that nests: ``START TRANSACTION`` outermost, a
        ``SAVEPOINT`` inside; see ``protocols.Transactional``."""
        return self._hooks.around(self._write())

    def after_commit(self, hook: Callable[[], None]) -> None:
        """See ``protocols.Transactional.after_commit``."""
        self._hooks.after_commit(hook)

    @contextmanager
    def _write(self, what: str = "the write") -> Iterator[Any]:
        """A cursor inside a (nested) write transaction on this thread's connection;
        whatever this level wrote is rolled back on any exception that leaves it."""
        state = self._local
        depth = state.depth
        if depth and state.broken:
            raise StoreError(
                "the server already rolled back this transaction (a deadlock or a lost "
                "connection): leave the atomic() block and retry all of it",
                reason="transaction rolled back",
            )
        conn = self._conn()
        try:
            cur = conn.cursor()
            if depth == 0:
                cur.execute("START TRANSACTION")
                state.broken = False
            else:
                cur.execute(f"SAVEPOINT sp{depth}")
        except pymysql.err.Error as exc:
            self._failed(exc)
            raise store_error(exc, what) from None
        state.depth = depth + 1
        try:
            yield cur
            if depth == 0:
                conn.commit()
            else:
                cur.execute(f"RELEASE SAVEPOINT sp{depth}")
        except BaseException as exc:
            self._undo(conn, cur, depth)
            if isinstance(exc, pymysql.err.Error):
                self._failed(exc)
                raise store_error(exc, what) from None
            raise
        finally:
            state.depth = depth
            cur.close()

    def _undo(self, conn: Any, cur: Any, depth: int) -> None:
        try:
            if depth == 0:
                conn.rollback()
            elif not self._local.broken:
                cur.execute(f"ROLLBACK TO SAVEPOINT sp{depth}")
                cur.execute(f"RELEASE SAVEPOINT sp{depth}")
        except pymysql.err.Error:
            self._local.broken = True
            if depth == 0:
                self._forget()

    def _failed(self, exc: BaseException) -> None:
        """Note what a driver error did to this thread's connection and transaction."""
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        gone = isinstance(exc, pymysql.err.InterfaceError) or code in _GONE
        if self._local.depth and (gone or code == _DEADLOCK):
            self._local.broken = True  # InnoDB rolled the whole transaction back
        if gone and self._local.depth == 0:
            self._forget()

    @contextmanager
    def _read(self, what: str = "the read") -> Iterator[Any]:
        """A cursor for reads: inside this thread's write transaction when there is one
        (so it sees its own uncommitted writes), else in autocommit (latest commit)."""
        if self._local.depth and self._local.broken:
            raise StoreError(
                "the server already rolled back this transaction: leave the atomic() "
                "block and retry all of it",
                reason="transaction rolled back",
            )
        conn = self._conn()
        try:
            with conn.cursor() as cur:
                yield cur
        except pymysql.err.Error as exc:
            self._failed(exc)
            raise store_error(exc, what) from None

    @contextmanager
    def _snapshot(self, what: str = "the read") -> Iterator[Any]:
        """A cursor whose reads all see one consistent snapshot of the database."""
        with self._read(what) as cur:
            if self._local.depth:
                yield cur  # the write transaction is the snapshot
                return
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # the next one only
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
            try:
                yield cur
            finally:
                with suppress(pymysql.err.Error):
                    cur.execute("COMMIT")

    # -- admin ----------------------------------------------------------------------

    def schema_version(self) -> int:
        with self._read() as cur:
            return current_version(cur)

    def health(self) -> dict[str, Any]:
        with self._read("the health check") as cur:
            cur.execute("SELECT count(*) FROM memories")
            entries = int(cur.fetchone()[0])
            version = current_version(cur)
        return {
            "backend": self.flavor,
            "server_version": self.server_version,
            "host": self.address.unix_socket or f"{self.address.host}:{self.address.port}",
            "database": self.address.database,
            "schema_version": version,
            "latest_schema_version": LATEST_VERSION,
            "entries": entries,
            "vector_search": "in the application (vectors stored as BLOBs)",
        }

    def close(self) -> None:
        with self._conns_lock:
            if self._closed:
                return
            self._closed = True
            for _, conn in self._conns:
                _close_quietly(conn)
            self._conns.clear()


def _close_quietly(conn: Any) -> None:
    # Already closed, or the server is gone: nothing to release.
    with suppress(Exception):
        conn.close()
