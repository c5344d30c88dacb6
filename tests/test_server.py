"""The HTTP API, served by a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from memvault import Vault
from memvault.errors import ConfigError
from memvault.server.app import check_bind, create_app


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Vault]]:
    vault = Vault(tmp_path / "server.db")
    config = uvicorn.Config(create_app(vault), host="127.0.0.1", port=0, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.02)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", vault
    srv.should_exit = True
    thread.join(timeout=10)
    vault.close()


@pytest.fixture
def client(server: tuple[str, Vault]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=30) as c:
        yield c


def test_healthz(client: httpx.Client) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_add_search_get_update_delete(client: httpx.Client) -> None:
    r = client.post(
        "/v1/memories", json={"user_id": "alice", "content": "Alice writes Go services"}
    )
    assert r.status_code == 201
    entry = r.json()
    assert entry["user_id"] == "alice"

    hits = client.post("/v1/memories/search", json={"user_id": "alice", "query": "go"}).json()
    assert [h["entry"]["id"] for h in hits["results"]] == [entry["id"]]
    none = client.post("/v1/memories/search", json={"user_id": "bob", "query": "go"}).json()
    assert none["results"] == []

    got = client.get(f"/v1/memories/{entry['id']}", params={"user_id": "alice"})
    assert got.status_code == 200 and got.json()["content"] == "Alice writes Go services"

    patched = client.patch(
        f"/v1/memories/{entry['id']}", json={"user_id": "alice", "content": "Alice writes Rust"}
    )
    assert patched.status_code == 200 and patched.json()["content"] == "Alice writes Rust"

    listed = client.get("/v1/memories", params={"user_id": "alice"}).json()
    assert listed["total"] == 1 and listed["items"][0]["content"] == "Alice writes Rust"

    assert (
        client.delete(f"/v1/memories/{entry['id']}", params={"user_id": "alice"}).status_code == 204
    )
    assert client.get(f"/v1/memories/{entry['id']}", params={"user_id": "alice"}).status_code == 404


def test_other_users_entry_is_not_found(client: httpx.Client) -> None:
    entry = client.post("/v1/memories", json={"user_id": "alice", "content": "secret plan"}).json()
    for method, kwargs in (
        ("GET", {"params": {"user_id": "bob"}}),
        ("PATCH", {"json": {"user_id": "bob", "content": "hijacked"}}),
        ("DELETE", {"params": {"user_id": "bob"}}),
    ):
        r = client.request(method, f"/v1/memories/{entry['id']}", **kwargs)
        assert r.status_code == 404, method
        assert r.json()["error"]["code"] == "not_found"
    still = client.get(f"/v1/memories/{entry['id']}", params={"user_id": "alice"}).json()
    assert still["content"] == "secret plan"


@pytest.mark.parametrize(
    "body",
    [
        {"user_id": "alice", "content": ""},
        {"user_id": "../x", "content": "hi"},
        {"user_id": "alice", "content": "x" * (1024 * 1024)},
        {"user_id": "alice", "content": "hi", "kind": "nope"},
        {"user_id": "alice", "content": "hi", "unexpected": 1},
        {"content": "no user"},
        {"user_id": "alice", "content": 5},
    ],
)
def test_bad_add_is_4xx_with_json_error_and_changes_nothing(
    client: httpx.Client, server: tuple[str, Vault], body: dict[str, object]
) -> None:
    client.post("/v1/memories", json={"user_id": "alice", "content": "existing"})
    before = list(server[1].export(user_id="alice"))
    r = client.post("/v1/memories", json=body)
    assert 400 <= r.status_code < 500
    error = r.json()["error"]
    assert error["code"] and error["message"]
    assert list(server[1].export(user_id="alice")) == before


def test_bad_search_and_unknown_id(client: httpx.Client) -> None:
    r = client.post("/v1/memories/search", json={"user_id": "alice", "query": "  "})
    assert r.status_code == 422
    r = client.get("/v1/memories/0123456789abcdef", params={"user_id": "alice"})
    assert r.status_code == 404
    r = client.patch("/v1/memories/0123456789abcdef", json={"user_id": "alice", "content": "x"})
    assert r.status_code == 404


def test_openapi_lists_routes(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/healthz", "/v1/memories", "/v1/memories/search", "/v1/memories/{entry_id}"} <= set(
        paths
    )


def test_bind_guard() -> None:
    check_bind("127.0.0.1")
    check_bind("::1")
    check_bind("localhost")
    with pytest.raises(ConfigError):
        check_bind("0.0.0.0")
