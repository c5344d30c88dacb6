"""A database server that goes away under the HTTP API and the CLI, and comes back.

The real gateway (uvicorn on 127.0.0.1, auth on) runs on a PostgreSQL or a MariaDB
store; the test stops that database server mid-run. Every request must then come back
(no hang: the store gives up after its connect timeout) as a 503 whose JSON body says
to retry once the server runs again, without the URL or the password; the CLI on the
same URL prints one line and exits 1. When the server returns, the same HTTP server
serves again, and what was written before the outage is all there.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from memvault import Store, Vault, VaultConfig
from memvault.server.app import create_app
from memvault.server.keys import KeyStore
from memvault.stores.mysql import MySQLStore
from memvault.stores.postgres import PostgresStore
from tests.cli_process import run_cli
from tests.gateway_server import serving
from tests.servers import mariadb, postgres


@dataclass
class Outage:
    """A store URL on a server of the test's own, and how to stop and start it."""

    url: str
    store: Callable[[], Store]
    stop: Callable[[], None]
    start: Callable[[], None]
    secrets: tuple[str, ...]  # what no error may show


@contextmanager
def _postgres_outage() -> Iterator[Outage]:
    created = postgres.postgres_database()
    # The test server trusts loopback logins, so a password in the URL is accepted
    # (and ignored): it must not show in any error.
    url = created.replace("postgresql://postgres@", "postgresql://postgres:hunter2@", 1)
    server = postgres.running_server()
    if server is None:
        pytest.skip("the server is external: this test stops and restarts its own")
    try:
        yield Outage(
            url,
            lambda: PostgresStore(url, connect_timeout_s=1),
            server.stop,
            server.start,
            (url, "hunter2"),
        )
    finally:
        postgres.drop_database(created)


@contextmanager
def _mariadb_outage() -> Iterator[Outage]:
    if not mariadb.available() or os.environ.get(mariadb.ENV):
        pytest.skip("needs a MariaDB of its own to stop: make test installs mariadb-server")
    server = mariadb.MariaDB()
    try:
        server.install()
        server.start()
        server.create_user()
        url = mariadb.fresh_database(server.url()) + "?connect_timeout=2"
        yield Outage(
            url,
            lambda: MySQLStore(url),
            server.stop,
            server.start,
            (url, server.password),
        )
    finally:
        server.remove()


OUTAGES = {"postgres": _postgres_outage, "mariadb": _mariadb_outage}


@pytest.fixture(params=sorted(OUTAGES), ids=sorted(OUTAGES))
def outage(request: pytest.FixtureRequest) -> Iterator[Outage]:
    with OUTAGES[request.param]() as o:
        yield o


def _cli(home: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(home, *args, store=url)


def _assert_unavailable(response: httpx.Response, secrets: tuple[str, ...]) -> None:
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["code"] == "store_unavailable", error
    message = error["message"]
    assert "retry" in message, message  # says what to do
    for secret in secrets:
        assert secret not in response.text


def test_the_api_answers_503_while_the_database_is_down_and_serves_again_after(
    outage: Outage, config: VaultConfig, tmp_path: Path
) -> None:
    keys = KeyStore.in_home(config.home)
    admin = keys.ensure_admin()
    assert admin is not None
    alice = keys.create(user_id="alice", label="alice")[1]
    auth = {"Authorization": f"Bearer {alice}"}
    store = outage.store()
    with (
        Vault(store=store, config=config) as vault,
        serving(create_app(vault, keys=keys)) as base,
        httpx.Client(base_url=base, headers=auth, timeout=120) as client,
    ):
        before = []
        for text in ("Alice keeps bees on the roof", "Alice's hives are painted blue"):
            r = client.post("/v1/memories", json={"content": text})
            assert r.status_code == 201, r.text
            before.append(r.json()["id"])

        outage.stop()
        try:
            calls = (
                lambda: client.post("/v1/memories/search", json={"query": "bees"}),
                lambda: client.post("/v1/memories", json={"content": "during the outage"}),
                lambda: client.get("/v1/memories"),
                lambda: client.get(f"/v1/memories/{before[0]}"),
            )
            for call in calls:
                _assert_unavailable(call(), outage.secrets)
            ready = httpx.get(f"{base}/readyz", timeout=120)
            assert ready.status_code == 503
            assert all(secret not in ready.text for secret in outage.secrets)
            # The CLI on the same store: one line on stderr, exit 1, no secret in it.
            cli = _cli(tmp_path / "cli-home", outage.url, "search", "--user", "alice", "bees")
            assert cli.returncode == 1, cli.stderr
            lines = cli.stderr.strip().splitlines()
            assert len(lines) == 1, cli.stderr
            assert all(secret not in lines[0] for secret in outage.secrets)
        finally:
            outage.start()

        # The same HTTP server and store, no restart: it serves again, nothing is lost.
        listed = client.get("/v1/memories")
        assert listed.status_code == 200, listed.text
        contents = sorted(e["content"] for e in listed.json()["items"])
        assert contents == ["Alice keeps bees on the roof", "Alice's hives are painted blue"]
        hits = client.post("/v1/memories/search", json={"query": "bees"})
        assert hits.status_code == 200, hits.text
        assert [h["entry"]["id"] for h in hits.json()["results"]] == [before[0]]
        r = client.post("/v1/memories", json={"content": "Alice harvested honey"})
        assert r.status_code == 201, r.text
        assert client.get(f"/v1/memories/{r.json()['id']}").status_code == 200
        assert httpx.get(f"{base}/readyz", timeout=120).status_code == 200
    found = _cli(tmp_path / "cli-home", outage.url, "search", "--user", "alice", "honey")
    assert found.returncode == 0 and "Alice harvested honey" in found.stdout, found.stderr
