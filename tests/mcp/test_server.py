"""The MCP server, driven by the SDK's own client over all three transports.

Each transport runs the same script: list the 16 tools, call every tool and check
its effect, send bad arguments (each must come back as an ``isError`` result while
the server keeps serving), and check that bob sees none of alice's memories.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.memory import create_client_server_memory_streams

from memvault import Vault, VaultConfig
from memvault.agent.tools.vault import MEMORY_SAVE_SCHEMA
from memvault.mcp import (
    GRAPH_SCHEMAS,
    SERVER_INSTRUCTIONS,
    TOOL_NAMES,
    TOOLS,
    build_server,
)
from tests.gateway_server import Served

pytestmark = pytest.mark.anyio

ALL_TOOLS = {
    "memory_save",
    "memory_recall",
    "memory_decision",
    "memory",
    "memory_list",
    "memory_delete",
    "memory_remember",
    "state_card",
    "task_board",
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
}

# One call per tool whose arguments are wrong (by schema or by meaning).
BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_save", {"action": "fly", "name": "x", "type": "user"}),
    ("memory_recall", {}),
    ("memory", {"target": "nowhere", "action": "add", "content": "x"}),
    ("memory_list", {"limit": "ten"}),
    ("memory_delete", {"id": "0" * 32}),
    ("create_entities", {"entities": "Alice"}),
    ("create_relations", {"relations": [{"from": "Alice"}]}),
    ("add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}),
    ("delete_entities", {"entityNames": [1, 2]}),
    ("delete_observations", {"deletions": {}}),
    ("delete_relations", {}),
    ("search_nodes", {"query": "   "}),
    ("open_nodes", {"names": "Alice"}),
    ("no_such_tool", {}),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# -- the script every transport runs ------------------------------------------------


async def call(session: ClientSession, name: str, args: dict[str, Any] | None = None) -> Any:
    """Call a tool that must succeed; returns its text parsed as JSON (or the text)."""
    result = await session.call_tool(name, args or {})
    text = result.content[0].text
    assert not result.is_error, f"{name} failed: {text}"
    try:
        return json.loads(text)
    except ValueError:
        return text


async def check_tool_list(session: ClientSession) -> None:
    listed = (await session.list_tools()).tools
    assert {t.name for t in listed} == ALL_TOOLS
    for tool in listed:
        assert tool.description, tool.name
        assert tool.input_schema["type"] == "object", tool.name
    by_name = {t.name: t for t in listed}
    assert by_name["memory_save"].input_schema == MEMORY_SAVE_SCHEMA["parameters"]
    for name, schema in GRAPH_SCHEMAS.items():
        assert by_name[name].input_schema == schema


async def check_memory_tools(session: ClientSession) -> None:
    saved = await call(
        session,
        "memory_save",
        {
            "action": "create",
            "name": "editor",
            "type": "user",
            "content": "Alice edits code in Helix",
        },
    )
    memory_id = saved["memory"]["id"]
    recalled = await call(session, "memory_recall", {"query": "Helix editor"})
    assert [m["id"] for m in recalled["memories"]] == [memory_id]
    listed = await call(session, "memory_list", {"limit": 50})
    assert memory_id in [m["id"] for m in listed["memories"]]
    assert listed["total"] == len(listed["memories"])

    noted = await call(session, "memory", {"target": "user", "action": "add", "content": "Tea"})
    assert noted["success"] is True and noted["entry_count"] == 1

    await call(session, "memory_delete", {"id": memory_id})
    listed = await call(session, "memory_list", {})
    assert memory_id not in [m["id"] for m in listed["memories"]]
    assert (await call(session, "memory_recall", {"query": "Helix"}))["count"] == 0


async def check_graph_tools(session: ClientSession) -> None:
    created = await call(
        session,
        "create_entities",
        {
            "entities": [
                {"name": "Alice", "entityType": "person", "observations": ["writes Go"]},
                {"name": "Acme", "entityType": "company", "observations": []},
            ]
        },
    )
    assert [e["name"] for e in created] == ["Alice", "Acme"]
    again = await call(
        session,
        "create_entities",
        {"entities": [{"name": "Alice", "entityType": "person", "observations": []}]},
    )
    assert again == []  # an existing name is left alone
    relation = {"from": "Alice", "to": "Acme", "relationType": "works_at"}
    assert await call(session, "create_relations", {"relations": [relation]}) == [relation]
    added = await call(
        session,
        "add_observations",
        {"observations": [{"entityName": "Alice", "contents": ["likes pelicans", "writes Go"]}]},
    )
    assert added == [{"entityName": "Alice", "addedObservations": ["likes pelicans"]}]

    graph = await call(session, "read_graph")
    assert graph == {
        "entities": [
            {
                "name": "Alice",
                "entityType": "person",
                "observations": ["writes Go", "likes pelicans"],
            },
            {"name": "Acme", "entityType": "company", "observations": []},
        ],
        "relations": [relation],
    }
    # Graph entries are vault entries: plain recall finds them too.
    recalled = await call(session, "memory_recall", {"query": "pelicans"})
    assert [m["name"] for m in recalled["memories"]] == ["Alice"]

    found = await call(session, "search_nodes", {"query": "pelicans"})
    assert [e["name"] for e in found["entities"]] == ["Alice"]
    assert found["relations"] == []
    found = await call(session, "search_nodes", {"query": "works_at"})
    assert {e["name"] for e in found["entities"]} == {"Alice", "Acme"}
    assert found["relations"] == [relation]
    opened = await call(session, "open_nodes", {"names": ["Acme", "Nobody"]})
    assert [e["name"] for e in opened["entities"]] == ["Acme"] and opened["relations"] == []

    await call(
        session,
        "delete_observations",
        {"deletions": [{"entityName": "Alice", "observations": ["writes Go"]}]},
    )
    await call(session, "delete_relations", {"relations": [relation]})
    assert (await call(session, "read_graph"))["relations"] == []
    await call(session, "create_relations", {"relations": [relation]})
    await call(session, "delete_entities", {"entityNames": ["Acme"]})
    assert await call(session, "read_graph") == {
        "entities": [{"name": "Alice", "entityType": "person", "observations": ["likes pelicans"]}],
        "relations": [],  # deleting Acme took its relation with it
    }


async def check_bad_arguments(session: ClientSession) -> None:
    for name, args in BAD_CALLS:
        result = await session.call_tool(name, args)
        assert result.is_error, f"{name}({args}) was accepted"
        error = json.loads(result.content[0].text)
        assert error["success"] is False and error["error"], name
    # Still serving, and nothing was changed by the failures.
    graph = await call(session, "read_graph")
    assert [e["name"] for e in graph["entities"]] == ["Alice"]


async def alice_script(session: ClientSession) -> None:
    await check_tool_list(session)
    await check_memory_tools(session)
    await check_graph_tools(session)
    await check_bad_arguments(session)


async def bob_script(session: ClientSession) -> None:
    """Bob shares the vault and the data directory with alice, and sees nothing of hers."""
    assert (await call(session, "memory_list", {}))["total"] == 0
    assert (await call(session, "memory_recall", {"query": "pelicans"}))["count"] == 0
    assert await call(session, "read_graph") == {"entities": [], "relations": []}
    assert (await call(session, "search_nodes", {"query": "Alice"}))["entities"] == []
    noted = await call(session, "memory", {"target": "user", "action": "add", "content": "Coffee"})
    assert noted["entry_count"] == 1  # his own USER.md, not alice's
    # Alice's entity name is free in bob's graph.
    created = await call(
        session,
        "create_entities",
        {"entities": [{"name": "Alice", "entityType": "colleague", "observations": []}]},
    )
    assert [e["entityType"] for e in created] == ["colleague"]


# -- (1) in process, over the SDK's memory streams -----------------------------------


@asynccontextmanager
async def in_process(vault: Vault, user: str, base_dir: Path) -> AsyncIterator[ClientSession]:
    server = build_server(vault, user_id=user, base_dir=base_dir)
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as tg,
    ):
        options = server.create_initialization_options()
        tg.start_soon(server.run, server_streams[0], server_streams[1], options)
        async with ClientSession(*client_streams) as session:
            init = await session.initialize()
            assert init.instructions == SERVER_INSTRUCTIONS
            yield session
        tg.cancel_scope.cancel()


async def test_in_process(config: VaultConfig) -> None:
    with Vault(config=config) as vault:
        async with in_process(vault, "alice", config.home) as session:
            await alice_script(session)
        async with in_process(vault, "bob", config.home) as session:
            await bob_script(session)
        # The effects are in the vault itself, under alice only.
        names = {e.name for e in vault.list(user_id="alice")}
        assert names == {"Alice"}
        assert (config.home / "users" / "alice" / "USER.md").read_text().strip() == "Tea"


# -- (2) over stdio: `memvault mcp --user ID` as a subprocess ------------------------


@asynccontextmanager
async def over_stdio(home: Path, user: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvault.cli", "mcp", "--user", user],
        env={**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "none"},
    )
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        yield session


async def test_stdio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with anyio.fail_after(120):
        async with over_stdio(home, "alice") as session:
            await alice_script(session)
        async with over_stdio(home, "bob") as session:
            await bob_script(session)
    assert (home / "memvault.db").exists()


# -- (3) over streamable HTTP, mounted at /mcp of a real uvicorn server --------------


@pytest.fixture
def http_server(open_gateway: Served) -> str:
    return open_gateway.url


@asynccontextmanager
async def over_http(url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def test_streamable_http(http_server: str) -> None:
    with anyio.fail_after(120):
        async with over_http(f"{http_server}/mcp", {"X-Memvault-User": "alice"}) as session:
            await alice_script(session)
        # The query parameter names the user when the header is absent.
        async with over_http(f"{http_server}/mcp?user_id=bob", {}) as session:
            await bob_script(session)
        # Alice, again: bob's writes did not reach her.
        async with over_http(f"{http_server}/mcp", {"X-Memvault-User": "alice"}) as session:
            graph = await call(session, "read_graph")
            assert [e["entityType"] for e in graph["entities"]] == ["person"]


def test_http_request_without_user_is_refused(http_server: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"accept": "application/json, text/event-stream"}
    r = httpx.post(f"{http_server}/mcp", json=body, headers=accept, timeout=30)
    assert r.status_code == 400
    assert "X-Memvault-User" in r.json()["error"]["message"]
    r = httpx.post(
        f"{http_server}/mcp", json=body, headers={**accept, "X-Memvault-User": "../etc"}, timeout=60
    )
    assert r.status_code == 400
    # The REST routes are untouched by the mount.
    assert httpx.get(f"{http_server}/healthz", timeout=30).json()["status"] == "ok"


# -- the tool list itself -------------------------------------------------------------


def test_tool_constants() -> None:
    assert set(TOOL_NAMES) == ALL_TOOLS and len(TOOL_NAMES) == len(ALL_TOOLS)
    for tool in TOOLS:
        assert tool.description and len(tool.description) < 2000
        assert tool.annotations is not None
    read_only = {t.name for t in TOOLS if t.annotations and t.annotations.read_only_hint}
    assert read_only == {"memory_recall", "memory_list", "read_graph", "search_nodes", "open_nodes"}


async def test_streamable_http_with_and_without_a_key(config: VaultConfig) -> None:
    """The SDK's own client against the authenticated gateway: the key names the user."""
    from tests.gateway_server import live_gateway

    with live_gateway(config) as live:
        url = f"{live.url}/mcp"
        with anyio.fail_after(120):
            async with over_http(url, {"Authorization": f"Bearer {live.alice}"}) as session:
                tools = await session.list_tools()
                assert {t.name for t in tools.tools} >= {"memory_save", "memory_recall"}
                saved = await session.call_tool(
                    "memory_save",
                    {
                        "action": "create",
                        "name": "pet",
                        "type": "user",
                        "content": "Alice has a cat",
                    },
                )
                assert not saved.is_error
            async with over_http(url, {"Authorization": f"Bearer {live.bob}"}) as session:
                found = await session.call_tool("memory_recall", {"query": "cat"})
                assert '"count": 0' in found.content[0].text  # bob sees nothing of alice's
        r = httpx.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"accept": "application/json, text/event-stream"},
            timeout=30,
        )
        assert r.status_code == 401
        assert [e.content for e in live.vault.list(user_id="alice")] == ["Alice has a cat"]
