"""Per-(user, agent) objects the servers keep are bounded, and an evicted agent comes back whole.

Agent ids are free-form, so a caller naming a new one on every request must not grow
the process: the v2 routes' memory files and the ``/mcp`` tools live in an LRU of
``ServerSettings.agent_cache_size``. Also here: ``/mcp`` answers 404 to a user key
naming another user with ``?user_id=``, as the REST routes do.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from memvault import Vault, VaultConfig
from memvault.errors import ValidationError
from memvault.lru import LRUCache
from memvault.server.app import create_app
from memvault.server.keys import KeyStore
from memvault.server.state import Gateway, ServerSettings
from tests.gateway_server import serving

BOUND = 8
AGENTS = 1000
ACCEPT = {"accept": "application/json, text/event-stream"}


@contextmanager
def _server(config: VaultConfig) -> Iterator[tuple[str, Gateway, Any, str, str]]:
    keys = KeyStore.in_home(config.home)
    admin = keys.ensure_admin()
    assert admin is not None
    alice = keys.create(user_id="alice", label="alice")[1]
    with Vault(config=config) as vault:
        app = create_app(vault, keys=keys, settings=ServerSettings(agent_cache_size=BOUND))
        with serving(app) as url:
            yield url, app.state.gateway, app, alice, admin


def _endpoint(app: Any) -> Any:
    (route,) = [r for r in app.routes if getattr(r, "path", None) == "/mcp"]
    guard = route.app if hasattr(route, "app") else route.endpoint
    return guard.endpoint


def _mcp(
    client: httpx.Client, tool: str, args: dict[str, Any], *, agent: str, query: str = ""
) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": args},
    }
    return client.post(f"/mcp{query}", json=body, headers={**ACCEPT, "X-Memvault-Agent": agent})


def _tool_result(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert not result.get("isError"), result
    parsed: dict[str, Any] = json.loads(result["content"][0]["text"])
    return parsed


def test_the_lru_keeps_the_most_recently_used() -> None:
    cache: LRUCache[int, str] = LRUCache(2)
    cache.setdefault(1, "one")
    cache.setdefault(2, "two")
    assert cache.get(1) == "one"  # 1 is now the most recent: 2 goes next
    cache.setdefault(3, "three")
    assert 2 not in cache and cache.get(1) == "one" and cache.get(3) == "three"
    assert cache.setdefault(3, "other") == "three"  # the first one stays
    assert cache.get_or_create(4, lambda: "four") == "four" and len(cache) == 2
    cache.discard_where(lambda k: k == 4)
    assert len(cache) == 1
    with pytest.raises(ValidationError):
        LRUCache(0)


def test_v2_routes_keep_at_most_the_bound_of_agents(config: VaultConfig) -> None:
    with (
        _server(config) as (url, gw, _, alice, _),
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {alice}"}) as c,
    ):
        r = c.post(
            "/api/memory/v2/entries",
            params={"agent_id": "first"},
            json={"target": "memory", "content": "The first agent deploys on Fridays"},
        )
        assert r.status_code == 200, r.text
        for i in range(AGENTS):
            r = c.get("/api/memory/v2/status", params={"agent_id": f"agent-{i}"})
            assert r.status_code == 200
            assert len(gw._builtin) <= BOUND
        assert ("alice", "first") not in gw._builtin
        # Evicted, then back: its notes are read from disk again, and it can write.
        back = c.get("/api/memory/v2", params={"agent_id": "first"}).json()
        assert back["memory_md"] == "The first agent deploys on Fridays"
        r = c.post(
            "/api/memory/v2/entries",
            params={"agent_id": "first"},
            json={"target": "memory", "content": "It also reviews on Mondays"},
        )
        assert r.json()["entries"] == [
            "The first agent deploys on Fridays",
            "It also reviews on Mondays",
        ]
        assert len(gw._builtin) <= BOUND


def test_mcp_keeps_at_most_the_bound_of_agents(config: VaultConfig) -> None:
    with _server(config) as (url, _, app, alice, _):
        endpoint = _endpoint(app)
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {alice}"}, timeout=30
        ) as c:
            note = {"target": "memory", "action": "add", "content": "Prefers short answers"}
            assert _tool_result(_mcp(c, "memory", note, agent="first"))["success"]
            saved = {"action": "create", "name": "pet", "type": "user", "content": "A cat"}
            assert _tool_result(_mcp(c, "memory_save", saved, agent="first"))["success"]

            errors: list[str] = []

            def sweep(start: int) -> None:
                with httpx.Client(
                    base_url=url, headers={"Authorization": f"Bearer {alice}"}, timeout=30
                ) as own:
                    for i in range(start, AGENTS, 2):
                        r = _mcp(own, "memory_list", {}, agent=f"agent-{i}")
                        if r.status_code != 200:
                            errors.append(r.text)

            threads = [threading.Thread(target=sweep, args=(n,)) for n in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert errors == []
            assert len(endpoint._tools) <= BOUND
            assert ("alice", "first") not in endpoint._tools

            again = {"target": "memory", "action": "add", "content": "Writes in British English"}
            added = _tool_result(_mcp(c, "memory", again, agent="first"))
            assert added["entry_count"] == 2  # the first note was read back from disk
            recalled = _tool_result(_mcp(c, "memory_recall", {"query": "cat"}, agent="first"))
            assert recalled["count"] == 1
            assert len(endpoint._tools) <= BOUND


def test_mcp_answers_404_to_a_user_key_naming_another_user(config: VaultConfig) -> None:
    with _server(config) as (url, _, _, alice, admin), httpx.Client(base_url=url, timeout=30) as c:
        as_alice = {"Authorization": f"Bearer {alice}"}
        c.headers.update(as_alice)
        saved = {"action": "create", "name": "pet", "type": "user", "content": "A cat"}
        assert _tool_result(_mcp(c, "memory_save", saved, agent="a"))["success"]
        for query in ("?user_id=bob", "?user_id=alice&user_id=bob", "?user_id=nobody"):
            r = _mcp(c, "memory_list", {}, agent="a", query=query)
            assert r.status_code == 404, (query, r.text)
            assert r.json()["error"]["code"] == "not_found"
        own = _mcp(c, "memory_list", {}, agent="a", query="?user_id=alice")
        assert _tool_result(own)["total"] == 1
        # An admin key names the user it acts for.
        c.headers.update({"Authorization": f"Bearer {admin}"})
        bob = _mcp(c, "memory_list", {}, agent="a", query="?user_id=bob")
        assert _tool_result(bob)["total"] == 0
