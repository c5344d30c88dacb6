"""``memvault serve --workers N`` on a database server: the real command in its own
process, several worker processes each with its own pool, one throw-away PostgreSQL
(or MariaDB) database behind them.

Which worker answered is read from the operating system, not from the server: each
client connection is an ESTABLISHED socket held by exactly one worker process
(``/proc/net/tcp`` gives the socket's inode, ``/proc/<pid>/fd`` the process holding it).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.servers import mariadb
from tests.servers.postgres import drop_database, postgres_database
from tests.waiting import until

pytestmark = pytest.mark.skipif(
    not Path("/proc/net/tcp").exists(), reason="reads sockets from /proc (Linux)"
)


NOTE = "Alice keeps bees on the roof in Porto"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """The running command: its process, base URL and the admin key it printed."""

    def __init__(self, proc: subprocess.Popen[Any], port: int, key: str | None) -> None:
        self.proc = proc
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}


@contextmanager
def _serve(home: Path, store: str, workers: int) -> Iterator[Served]:
    port = _free_port()
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_DB": store,
        "MEMVAULT_EMBEDDER": "hashing",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memvault.cli",
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches
    )
    try:
        assert proc.stdout is not None
        key = ""
        while not key:
            line = proc.stdout.readline()
            assert line, "the server exited before printing the admin key"
            if line.strip().startswith("mv_"):
                key = line.strip()
        served = Served(proc, port, key)
        started = until(
            lambda: (
                proc.poll() is not None or (len(_workers(proc.pid)) >= workers and _ready(served))
            ),
            timeout=90,
        )
        assert proc.poll() is None, proc.stdout.read()
        assert started, "the workers did not start"
        yield served
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _ready(served: Served) -> bool:
    try:
        return httpx.get(f"{served.base}/readyz", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text() if (task / "children").exists() else ""
        out.extend(int(p) for p in text.split())
    return out


def _workers(pid: int) -> list[int]:
    """The server's worker processes: its children that hold a listening socket."""
    return [p for p in _children(pid) if _alive(p) and _socket_inodes(p) & _listening()]


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]  # a zombie has exited


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").glob("*"):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _tcp_rows() -> list[list[str]]:
    return [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]


def _listening() -> set[str]:
    return {row[9] for row in _tcp_rows() if row[3] == "0A"}


def _holder(server_port: int, client_port: int, pids: list[int]) -> int | None:
    """The process holding the server side of the connection from ``client_port``."""
    for row in _tcp_rows():
        local, remote, state, inode = row[1], row[2], row[3], row[9]
        if (
            state == "01"  # ESTABLISHED
            and int(local.split(":")[1], 16) == server_port
            and int(remote.split(":")[1], 16) == client_port
        ):
            for pid in pids:
                if inode in _socket_inodes(pid):
                    return pid
    return None


def _write_then_read_everywhere(served: Served, workers: list[int]) -> None:
    """One write through one connection, then reads through fresh connections until
    every worker has answered one; each read must see the write."""
    with httpx.Client(base_url=served.base, headers=served.headers, timeout=30) as http:
        r = http.post("/v1/memories", json={"user_id": "alice", "content": NOTE})
        assert r.status_code == 201, r.text
        entry_id = r.json()["id"]
    answered: set[int] = set()
    clients: list[httpx.Client] = []
    try:
        for _ in range(200):
            http = httpx.Client(base_url=served.base, headers=served.headers, timeout=30)
            clients.append(http)  # kept open, so the next one is accepted by anyone
            got = http.get(f"/v1/memories/{entry_id}", params={"user_id": "alice"})
            assert got.status_code == 200, got.text
            assert got.json()["content"] == NOTE
            query = {"user_id": "alice", "query": "bees Porto", "limit": 5}
            found = http.post("/v1/memories/search", json=query)
            assert found.status_code == 200, found.text
            assert [h["entry"]["id"] for h in found.json()["results"]][:1] == [entry_id]
            local_port = _client_port(http)
            holder = _holder(served.port, local_port, workers)
            assert holder is not None, "no worker holds the connection"
            answered.add(holder)
            if answered == set(workers):
                break
    finally:
        for http in clients:
            http.close()
    assert answered == set(workers), f"only {len(answered)} of {len(workers)} workers answered"


def _client_port(http: httpx.Client) -> int:
    """The local port of the client's one kept-alive connection."""
    pool = http._transport._pool  # type: ignore[attr-defined]
    (conn,) = pool.connections
    stream = conn._connection._network_stream
    return int(stream.get_extra_info("socket").getsockname()[1])


def _stop(served: Served, sig: signal.Signals, workers: list[int]) -> None:
    """Send ``sig`` as a terminal does (to the process group); every process must end."""
    os.killpg(served.proc.pid, sig)
    assert served.proc.wait(timeout=60) == 0
    assert until(lambda: not any(_alive(p) for p in workers), timeout=30), (
        "a worker outlived the server"
    )


@pytest.mark.postgres
def test_two_workers_on_postgres_answer_and_stop_on_ctrl_c(tmp_path: Path) -> None:
    import psycopg

    url = postgres_database()
    database = url.rsplit("/", 1)[1]
    try:
        with _serve(tmp_path / "home", url, workers=2) as served:
            workers = _workers(served.proc.pid)
            assert len(workers) == 2
            _write_then_read_everywhere(served, workers)
            # the keys file is the parent's: the admin key works in every worker
            assert (tmp_path / "home" / "keys.json").is_file()
            _stop(served, signal.SIGINT, workers)
        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:

            def left() -> int:
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)
                ).fetchone()
                return row[0] if row else 0

            until(lambda: not left(), timeout=30)
            assert not left(), f"{left()} connections left open"
    finally:
        drop_database(url)


@pytest.mark.mariadb
def test_two_workers_on_mariadb_answer_and_stop_on_sigterm(tmp_path: Path) -> None:
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    url = mariadb.fresh_database()
    try:
        with _serve(tmp_path / "home", url, workers=2) as served:
            workers = _workers(served.proc.pid)
            assert len(workers) == 2
            _write_then_read_everywhere(served, workers)
            _stop(served, signal.SIGTERM, workers)
    finally:
        mariadb.drop_created()


def test_settings_given_in_code_reach_every_worker(tmp_path: Path) -> None:
    """``run(config, workers=2)`` from a program: a limit set in code, not in the
    environment, holds in both workers (they get the config, not a re-read of it)."""
    port = _free_port()
    program = (
        "from memvault import load_config\n"
        "from memvault.server.app import run\n"
        f"config = load_config(environ={{}}, home={str(tmp_path)!r}, max_content_bytes=64,\n"
        "                      embedding={'provider': 'none'})\n"
        f"run(config, port={port}, auth=False, workers=2)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("MEMVAULT_HOME", None)
    env.pop("MEMVAULT_DB", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", program],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        served = Served(proc, port, None)
        started = until(
            lambda: proc.poll() is not None or (len(_workers(proc.pid)) >= 2 and _ready(served)),
            timeout=90,
        )
        assert proc.poll() is None, "the server exited"
        assert started, "the workers did not start"
        workers = _workers(proc.pid)
        refused: set[int] = set()
        clients: list[httpx.Client] = []
        try:
            for _ in range(200):
                http = httpx.Client(base_url=served.base, timeout=30)
                clients.append(http)
                short = http.post("/v1/memories", json={"user_id": "u", "content": "short"})
                assert short.status_code == 201, short.text
                long = http.post("/v1/memories", json={"user_id": "u", "content": "x " * 100})
                assert long.status_code == 422 and "64" in long.text, long.text
                holder = _holder(port, _client_port(http), workers)
                assert holder is not None
                refused.add(holder)
                if refused == set(workers):
                    break
        finally:
            for http in clients:
                http.close()
        assert refused == set(workers)
        _stop(served, signal.SIGTERM, workers)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
