"""The first admin key cannot be lost (issue 33 §3).

`memvault serve` prints the first admin key once. A start on a busy port used to create
and print it, then die on "address already in use"; the next start printed nothing. Now
the port is bound first, and every start without an admin key says how to make one.
Real `memvault serve` processes on 127.0.0.1, a real keys file.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault.server.keys import KeyStore
from tests.waiting import until

SRC = Path(__file__).parents[2] / "src"
KEY = re.compile(r"\bmv_[0-9a-f]{12}_[A-Za-z0-9_-]+")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT_")}
    env.update(MEMVAULT_HOME=str(home), MEMVAULT_EMBEDDER="none", PYTHONPATH=str(SRC))
    return {**env, "PYTHONUNBUFFERED": "1"}  # the start-up lines reach the log at once


def _serve(home: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "memvault", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=_env(home),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another process is listening on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


def _shows(log: Path, server: subprocess.Popen[bytes], text: str) -> bool:
    """Whether the server's log shows ``text``, waiting while the server starts (or dies)."""
    until(lambda: text in log.read_text() or server.poll() is not None, timeout=120)
    return text in log.read_text()


def _stopped(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def test_a_busy_port_creates_no_key_and_the_next_start_prints_it(
    tmp_path: Path, busy_port: int
) -> None:
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "memvault", "serve", "--port", str(busy_port)],
        env=_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{busy_port}" in done.stderr
    assert "--port" in done.stderr
    assert not KEY.search(done.stdout + done.stderr)  # no key shown...
    assert KeyStore.in_home(home).list() == []  # ...and none consumed

    log = tmp_path / "serve.log"
    server = _serve(home, 0, log)  # port 0: a free one
    try:
        assert until(lambda: KEY.search(log.read_text()) or server.poll() is not None, 120)
        printed = KEY.search(log.read_text())
        assert printed, log.read_text()
        assert "created the first admin key" in log.read_text()
    finally:
        _stopped(server)
    who = KeyStore.in_home(home).authenticate(printed.group(0))
    assert who is not None and who.admin


def test_every_start_without_an_admin_key_says_how_to_make_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = KeyStore.in_home(home)
    keys.create(user_id="alice", label="laptop")  # keys exist, but no admin among them
    log = tmp_path / "serve.log"
    for _ in range(2):
        server = _serve(home, 0, log)
        try:
            assert _shows(log, server, "memvault keys create --admin"), log.read_text()
            assert not KEY.search(log.read_text())
        finally:
            _stopped(server)
    admin, _ = keys.create(user_id=None, label="ops")
    server = _serve(home, 0, log)
    try:
        assert _shows(log, server, "serving"), log.read_text()
        assert "keys create --admin" not in log.read_text()
    finally:
        _stopped(server)
    keys.revoke(admin.id)  # a revoked admin key is no admin key
    assert not keys.has_admin()
