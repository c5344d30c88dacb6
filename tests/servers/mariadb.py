"""A throw-away MariaDB server for the tests, or the one ``MEMVAULT_TEST_MYSQL_URL`` names.

``server_url()`` starts one server per test process (so each pytest-xdist worker has
its own) the first time it is called: ``mariadb-install-db`` into a temporary data
directory, then ``mariadbd`` as root (``--user=root``) listening on 127.0.0.1 on a
free port, with its socket, pid file and error log in that directory. A user with a
password is created over the socket (no ``--skip-grant-tables``), and the server is
stopped and its directory removed when the process exits. ``fresh_database()`` then
gives each test an empty database of its own.

``MEMVAULT_TEST_MYSQL_URL=mysql://user:password@host:port/any`` uses that server
instead (MySQL 8 or MariaDB with default settings: no full-text index is used); the user
needs CREATE and DROP on databases named
``mvtest_*``. Without either, the tests that need a server are skipped.
"""

from __future__ import annotations

import atexit
import itertools
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.waiting import until

ENV = "MEMVAULT_TEST_MYSQL_URL"
USER = "memvault"

# The settings memvault's keyword search needs (README, Running on MySQL / MariaDB),
# and some that make a test server small and quick.
SERVER_SETTINGS = (
    "--innodb-ft-min-token-size=1",
    "--innodb-ft-enable-stopword=OFF",
    "--character-set-server=utf8mb4",
    "--collation-server=utf8mb4_unicode_520_ci",
    "--skip-name-resolve",
    "--innodb-buffer-pool-size=64M",
    "--innodb-log-file-size=16M",
    "--innodb-flush-log-at-trx-commit=2",
    "--innodb-file-per-table=OFF",  # each test's tables: no files to create and delete
    "--innodb-doublewrite=OFF",
    "--skip-log-bin",
    "--max-connections=400",
)

_lock = threading.Lock()
_started: MariaDB | None = None
_counter = itertools.count()


class MariaDB:
    """One running ``mariadbd`` in its own temporary directory."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="memvault-mariadb-"))
        self.port = 0
        self.password = secrets.token_urlsafe(12)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        return self.dir / "mysqld.sock"

    def install(self) -> None:
        _run_tool(
            [
                "mariadb-install-db",
                "--no-defaults",
                f"--datadir={self.dir / 'data'}",
                "--user=root",
                "--auth-root-authentication-method=socket",
                "--skip-test-db",
            ],
            timeout=120,
            reset=lambda: shutil.rmtree(self.dir / "data", ignore_errors=True),
        )

    def start(self, *settings: str) -> None:
        """Start the server on a free loopback port (the same one when it starts again);
        ``settings`` are more server options, or ones that replace the defaults."""
        if not self.port:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [
                "mariadbd",
                "--no-defaults",
                f"--datadir={self.dir / 'data'}",
                "--user=root",
                "--bind-address=127.0.0.1",
                f"--port={self.port}",
                f"--socket={self.socket_path}",
                f"--pid-file={self.dir / 'mysqld.pid'}",
                f"--log-error={self.dir / 'error.log'}",
                *SERVER_SETTINGS,
                *settings,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        process = self.process
        up = until(lambda: process.poll() is not None or self._answers(), timeout=60)
        if not up or process.poll() is not None:
            log = (self.dir / "error.log").read_text(errors="replace")[-2000:]
            self.stop()
            raise RuntimeError(f"mariadbd did not start:\n{log}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                return bool(conn.recv(1))  # the server's greeting
        except OSError:
            return False

    def create_user(self) -> None:
        # root logs in over the socket by being root (unix_socket authentication);
        # the tests log in over TCP with a password, as an application would.
        sql = (
            f"CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{self.password}';"
            f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'127.0.0.1';"
        )
        _run_tool(
            ["mariadb", "--no-defaults", f"--socket={self.socket_path}", "-uroot", "-e", sql],
            timeout=60,
        )

    def stop(self) -> None:
        """Stop the server (it can be started again with ``start``)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)  # mariadbd shuts down cleanly on TERM
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database: str = "mysql") -> str:
        return f"mysql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"


def _run_tool(
    command: list[str],
    *,
    timeout: float,
    attempts: int = 3,
    reset: Callable[[], None] | None = None,
) -> None:
    """Run a MariaDB tool, again (after a pause, and ``reset``) when it fails: on a
    machine at load 9 a first attempt has failed now and then. The last failure says
    what the tool printed."""
    for attempt in range(1, attempts + 1):
        done = subprocess.run(command, capture_output=True, timeout=timeout, check=False)
        if done.returncode == 0:
            return
        if attempt < attempts:
            time.sleep(2 * attempt)
            if reset is not None:
                reset()
    output = (done.stderr or done.stdout).decode(errors="replace")[-2000:]
    raise RuntimeError(f"{command[0]} failed ({done.returncode}) {attempts} times:\n{output}")


def available() -> bool:
    """Whether a server can be had: named by the environment, or installed here."""
    return bool(os.environ.get(ENV)) or (
        shutil.which("mariadbd") is not None and shutil.which("mariadb-install-db") is not None
    )


def local_server() -> MariaDB:
    """This process's own server, started on first use and stopped at exit."""
    global _started
    with _lock:
        if _started is None:
            server = MariaDB()
            try:
                server.install()
                server.start()
                server.create_user()
            except BaseException:
                server.remove()
                raise
            atexit.register(server.remove)
            _started = server
        return _started


def server_url() -> str:
    """A URL of the server the tests use (its database part is replaced per test)."""
    return os.environ.get(ENV) or local_server().url()


def with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, ""))


_created: list[str] = []


def fresh_database(url: str | None = None) -> str:
    """A URL of a new, empty database (``mvtest_<pid>_<n>``) on the test server (or
    on the server ``url`` names)."""
    import pymysql

    from memvault.stores.mysql import parse_url

    url = url or server_url()
    address = parse_url(url)
    name = f"mvtest_{os.getpid()}_{next(_counter)}"
    conn = pymysql.connect(**address.connect_args(with_database=False), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    finally:
        conn.close()
    made = with_database(url, name)
    _created.append(made)
    return made


def drop_created() -> None:
    """Drop the databases ``fresh_database`` made (at the end of each test)."""
    while _created:
        drop_database(_created.pop())


def drop_database(url: str) -> None:
    import pymysql

    from memvault.stores.mysql import parse_url

    address = parse_url(url)
    try:
        conn = pymysql.connect(**address.connect_args(with_database=False), autocommit=True)
    except pymysql.err.Error:
        return  # the server is gone (a test stopped it): its directory goes at exit
    try:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{address.database}`")
    finally:
        conn.close()
