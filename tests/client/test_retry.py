"""How the HTTP client retries: a loopback server that answers 503 (as memvault's gateway
does while its database is away) and then 200, and a port nothing listens on.

The waits go through the client's ``sleep``, recorded here: the tests check what the
client asked to wait, never how long anything took.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memvault import ConfigError, StoreUnavailableError, UpstreamError
from memvault.client import AsyncClient, Client, RetryPolicy

Answer = tuple[int, dict[str, str], Any]

UNAVAILABLE = {
    "error": {
        "code": "store_unavailable",
        "message": "the database server cannot be reached: retry once it runs again",
    }
}
HEALTHY = {"status": "ok", "version": "test"}


class Scripted:
    """Answers each request with the next scripted (status, headers, JSON body); the
    last answer repeats. Records the path of every request."""

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = answers
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer.paths.append(self.path)
                status, headers, body = outer.answers[min(len(outer.paths), len(outer.answers)) - 1]
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Scripted:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on (bound and closed again)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    yield port


def test_a_503_is_retried_with_doubling_waits_then_succeeds() -> None:
    waits: list[float] = []
    script: list[Answer] = [(503, {}, UNAVAILABLE), (503, {}, UNAVAILABLE), (200, {}, HEALTHY)]
    with Scripted(script) as server, Client(server.url, sleep=waits.append) as c:
        assert c.health() == HEALTHY
    assert server.paths == ["/healthz"] * 3
    assert waits == [0.5, 1.0]


def test_retry_after_is_honoured() -> None:
    waits: list[float] = []
    script: list[Answer] = [(503, {"Retry-After": "3"}, UNAVAILABLE), (200, {}, HEALTHY)]
    with Scripted(script) as server, Client(server.url, sleep=waits.append) as c:
        assert c.health() == HEALTHY
    assert waits == [3.0]


def test_an_http_date_retry_after_is_read_on_the_injected_clock() -> None:
    now = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
    later = format_datetime(datetime(2026, 12, 1, 12, 0, 7, tzinfo=UTC), usegmt=True)
    waits: list[float] = []
    script: list[Answer] = [(503, {"Retry-After": later}, UNAVAILABLE), (200, {}, HEALTHY)]
    policy = RetryPolicy(clock=lambda: now)
    with Scripted(script) as server, Client(server.url, retry=policy, sleep=waits.append) as c:
        assert c.health() == HEALTHY
    assert waits == [7.0]


def test_a_retry_after_beyond_the_bound_is_not_waited_for() -> None:
    waits: list[float] = []
    script: list[Answer] = [(503, {"Retry-After": "3600"}, UNAVAILABLE), (200, {}, HEALTHY)]
    with (
        Scripted(script) as server,
        Client(server.url, sleep=waits.append) as c,
        pytest.raises(StoreUnavailableError, match="retry once it runs again"),
    ):
        c.health()
    assert waits == [] and len(server.paths) == 1


def test_the_attempts_are_bounded_and_the_last_error_is_the_servers() -> None:
    waits: list[float] = []
    policy = RetryPolicy(attempts=3, backoff=1.0, max_delay=1.5)
    with (
        Scripted([(503, {}, UNAVAILABLE)]) as server,
        Client(server.url, retry=policy, sleep=waits.append) as c,
        pytest.raises(StoreUnavailableError) as raised,
    ):
        c.health()
    assert str(raised.value) == UNAVAILABLE["error"]["message"]
    assert raised.value.context["status"] == 503
    assert len(server.paths) == 3 and waits == [1.0, 1.5]


def test_a_503_that_names_a_setup_problem_is_not_retried() -> None:
    answer = {"error": {"code": "config_error", "message": "memory.provider is unknown"}}
    waits: list[float] = []
    with (
        Scripted([(503, {}, answer)]) as server,
        Client(server.url, sleep=waits.append) as c,
        pytest.raises(ConfigError, match=r"memory\.provider"),
    ):
        c.health()
    assert len(server.paths) == 1 and waits == []


def test_a_refused_connection_is_retried_then_named(closed_port: int) -> None:
    waits: list[float] = []
    url = f"http://127.0.0.1:{closed_port}"
    with Client(url, sleep=waits.append) as c, pytest.raises(UpstreamError) as raised:
        c.health()
    assert waits == [0.5, 1.0, 2.0]
    assert "after 4 tries" in str(raised.value) and "memvault serve" in str(raised.value)
    no_retry = RetryPolicy(connect_errors=False)
    with Client(url, retry=no_retry, sleep=waits.append) as c, pytest.raises(UpstreamError):
        c.health()
    assert waits == [0.5, 1.0, 2.0]


def test_the_async_client_retries_the_same_way(closed_port: int) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def run(url: str) -> dict[str, Any]:
        async with AsyncClient(url, sleep=sleep) as c:
            return await c.health()

    script: list[Answer] = [(503, {"Retry-After": "2"}, UNAVAILABLE), (200, {}, HEALTHY)]
    with Scripted(script) as server:
        assert asyncio.run(run(server.url)) == HEALTHY
    assert waits == [2.0]
    with pytest.raises(UpstreamError, match="could not reach"):
        asyncio.run(run(f"http://127.0.0.1:{closed_port}"))
    assert waits == [2.0, 0.5, 1.0, 2.0]


def test_an_answer_without_memvaults_body_is_mapped_by_its_status() -> None:
    with (
        Scripted([(502, {}, {"detail": "bad gateway"})]) as server,
        Client(server.url) as c,
        pytest.raises(UpstreamError, match="the server answered 502 to GET /healthz"),
    ):
        c.health()


def test_an_answer_in_an_unknown_shape_is_an_upstream_error() -> None:
    with (
        Scripted([(200, {}, {"items": "not a list of entries"})]) as server,
        Client(server.url, user_id="alice") as c,
        pytest.raises(UpstreamError, match="not in the shape this client reads"),
    ):
        c.list()


@pytest.mark.parametrize(
    "bad", [{"attempts": 0}, {"attempts": 1.5}, {"backoff": -1}, {"connect_errors": "yes"}]
)
def test_the_policy_checks_its_settings(bad: dict[str, Any]) -> None:
    from memvault import ValidationError

    with pytest.raises(ValidationError):
        RetryPolicy(**bad)
