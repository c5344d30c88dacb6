"""``memvault.client`` over the routes added for the panel's screens, against a real
gateway on 127.0.0.1 (uvicorn, auth on): stats, the entity graph and an entity's
memories, the users list, the workspace's sessions, bulk delete, and the listing's order
and created-date range. Each answer decodes into the dataclass ``Vault`` returns, equal
to what the vault behind the server gives; refusals are the library's own errors, and
bob's key never reaches alice's data."""

from __future__ import annotations

import asyncio
import inspect

import httpx
import pytest

from memvault import ForbiddenError, NotFoundError, ValidationError, Vault
from memvault.client import AsyncClient, Client
from memvault.results.graph import EntityDetail, EntityGraphView
from memvault.results.stats import Stats, UserMemories
from memvault.results.workspace import WorkspaceSession
from tests.gateway_server import Live

STORY = (
    "Caroline joined Project Helios in Berlin.",
    "Melanie visited Caroline in Berlin.",
    "Project Helios uses ClickHouse.",
)


@pytest.fixture(scope="module")
def live(module_live: Live) -> Live:
    """One gateway for the module: the tests keep to users of their own."""
    return module_live


def _dated(user: str, *days: str) -> list[dict[str, str]]:
    """Records to import, one per day, written at noon UTC of it."""
    return [
        {"content": f"{user} wrote this on {d}", "created_at": f"{d}T12:00:00+00:00"} for d in days
    ]


def test_stats_decode_into_the_vaults_stats(live: Live) -> None:
    with Client(live.url, api_key=live.alice) as c:
        c.add_many([{"content": "Alice writes Go"}, {"content": "Alice runs", "kind": "project"}])
        got = c.stats(days=7)
    assert isinstance(got, Stats) and got.user_id == "alice" and got.days == 7
    direct = live.vault.stats(user_id="alice", days=7)
    assert {**got.to_dict(), "at": None} == {**direct.to_dict(), "at": None}
    assert got.total == 2 and got.by_kind["project"] == 1 and len(got.activity) == 7
    assert got.activity[-1].created >= 2  # today's writes, the last day of the window

    with Client(live.url, api_key=live.bob) as bob:
        assert bob.stats().user_id == "bob"
        with pytest.raises(NotFoundError):  # as for a user nobody has: nothing inferred
            bob.stats(user_id="alice")
        with pytest.raises(ValidationError, match="days"):
            bob.stats(days=0)


def test_the_entity_graph_and_an_entitys_memories(live: Live) -> None:
    with Client(live.url, api_key=live.admin, user_id="carol") as c:
        added = [c.add(text) for text in STORY]
        graph = c.entity_graph()
        assert isinstance(graph, EntityGraphView)
        assert graph == live.vault.entity_graph(user_id="carol")
        assert {n.name for n in graph.nodes} >= {"Caroline", "Berlin", "Project Helios"}

        around = c.entity_graph(center="melanie", depth=1)
        assert around.center == "Melanie" and around.depth == 1
        assert {n.name: n.hops for n in around.nodes} == {"Melanie": 0, "Caroline": 1, "Berlin": 1}

        listed = c.entities(prefix="car")
        assert [e.name for e in listed] == ["Caroline"] and listed[0].entries == 2
        detail = c.entity("caroline")
        assert isinstance(detail, EntityDetail)
        assert detail == live.vault.entity("Caroline", user_id="carol")

        memories = c.entity_memories("Berlin")
        assert [m.id for m in memories] == list(detail.entry_ids)
        assert {m.id for m in memories} == {added[0].id, added[1].id}
        assert [m.to_dict() for m in memories] == [
            e.to_dict() for e in live.vault.entity_memories("Berlin", user_id="carol")
        ]
        assert len(c.entity_memories("Berlin", limit=1)) == 1

        with pytest.raises(NotFoundError):
            c.entity_graph(center="Atlantis")
        with pytest.raises(NotFoundError):
            c.entity_memories("Atlantis")
        with pytest.raises(ValidationError, match="depth"):
            c.entity_graph(center="Berlin", depth=9)
        with pytest.raises(ValidationError) as too_many:
            c.entity_memories("Berlin", limit=21)  # more than the route ever adds
        assert too_many.value.context["field"] == "limit"


def test_another_users_entities_are_never_found(live: Live) -> None:
    with Client(live.url, api_key=live.alice) as alice:
        alice.add("Alice met Zebulon in Kyoto.")
        assert alice.entity("Zebulon").entity.name == "Zebulon"
    with Client(live.url, api_key=live.bob) as bob:
        for read in (
            lambda: bob.entity("Zebulon"),
            lambda: bob.entity_memories("Zebulon"),
            lambda: bob.entity_graph(center="Zebulon"),
        ):
            with pytest.raises(NotFoundError) as missing:
                read()
            assert "Alice" not in str(missing.value) and "Kyoto" not in str(missing.value)
        assert "Zebulon" not in {n.name for n in bob.entity_graph().nodes}
        with pytest.raises(NotFoundError):
            bob.entity_graph(user_id="alice")


def test_users_are_listed_for_admin_keys_only(live: Live) -> None:
    with Client(live.url, api_key=live.admin, user_id="dora") as admin:
        admin.add_many([{"content": "one"}, {"content": "two"}])
        rows = admin.users(limit=1000)
        assert all(isinstance(r, UserMemories) for r in rows)
        assert UserMemories("dora", 2) in rows
        assert [r.user_id for r in rows] == sorted(r.user_id for r in rows)
        assert admin.user_total() == len(rows) == len(live.vault.users(limit=1000))
        assert admin.users(limit=1, offset=1) == rows[1:2]
        with pytest.raises(ValidationError, match="limit"):
            admin.users(limit=0)
    with Client(live.url, api_key=live.bob) as bob:
        with pytest.raises(ForbiddenError) as refused:
            bob.users()
        assert "dora" not in str(refused.value)
        with pytest.raises(ForbiddenError):
            bob.user_total()


def test_workspace_sessions_are_the_callers(live: Live) -> None:
    live.vault.upsert_card(user_id="alice", session_id="chat-1", goal="parse", workspace_id="w1")
    live.vault.add_task(user_id="alice", workspace_id="w2", session_id="chat-2", title="lexer")
    live.vault.add_task(user_id="bob", workspace_id="w1", session_id="bobs", title="hidden")
    with Client(live.url, api_key=live.alice) as alice:
        found = alice.workspace_sessions()
        assert all(isinstance(s, WorkspaceSession) for s in found)
        assert found == live.vault.workspace_sessions(user_id="alice")
        assert [(s.session_id, s.workspace_id, s.card_revision, s.tasks) for s in found] == [
            ("chat-1", "w1", 1, 0),
            ("chat-2", "w2", 0, 1),
        ]
        assert [s.session_id for s in alice.workspace_sessions(workspace_id="w2")] == ["chat-2"]
        with pytest.raises(ValidationError) as bad:
            alice.workspace_sessions(workspace_id="../w1")
        assert bad.value.context["field"] == "workspace_id"
    with Client(live.url, api_key=live.bob) as bob:
        assert [s.session_id for s in bob.workspace_sessions()] == ["bobs"]


def test_delete_many_deletes_the_callers_and_reports_the_rest_missing(live: Live) -> None:
    with Client(live.url, api_key=live.alice) as alice:
        mine = alice.add_many([{"content": f"to go {n}"} for n in range(3)])
    with Client(live.url, api_key=live.bob) as bob:
        theirs = bob.add("bob keeps this")
        # alice's ids look like ids that never were: nothing goes, nothing is told.
        assert bob.delete_many([mine[0].id, theirs.id]) == [theirs.id]
        with pytest.raises(NotFoundError):
            bob.get(theirs.id)
    with Client(live.url, api_key=live.alice) as alice:
        assert alice.get(mine[0].id).id == mine[0].id
        gone = alice.delete_many([mine[1].id, mine[0].id, mine[1].id])  # duplicates once
        assert gone == [mine[1].id, mine[0].id]
        assert [e.id for e in alice.list(limit=100) if e.id in {m.id for m in mine}] == [mine[2].id]
        for bad in ([], ["not an id"], "0123"):
            with pytest.raises(ValidationError) as refused:
                alice.delete_many(bad)
            assert refused.value.context["field"] in ("entry_ids", "id")


def test_list_and_count_sort_and_keep_a_created_range(live: Live) -> None:
    days = ("2026-01-10", "2026-02-10", "2026-03-10")
    with Client(live.url, api_key=live.admin, user_id="erin") as c:
        ids = c.import_(_dated("erin", *days))
        newest = [e.id for e in c.list()]
        assert newest == ids[::-1]
        assert [e.id for e in c.list(sort="oldest")] == ids
        assert [e.id for e in c.list(sort="updated", limit=1)] == [ids[-1]]

        kept = c.list(created_after="2026-02-01", created_before="2026-03-10", sort="oldest")
        assert [e.id for e in kept] == [ids[1]]
        assert c.count(created_after="2026-02-10T12:00:00+00:00") == 2  # from that moment on
        assert c.count(created_before="2026-01-10") == 0
        direct = live.vault.list(user_id="erin", sort="oldest", created_after="2026-02-01")
        assert [e.id for e in c.list(sort="oldest", created_after="2026-02-01")] == [
            e.id for e in direct
        ]
        with pytest.raises(ValidationError, match="sort"):
            c.list(sort="random")
        with pytest.raises(ValidationError, match="created_after"):
            c.count(created_after="last tuesday")


def test_the_async_client_has_the_same_calls(live: Live) -> None:
    async def run() -> None:
        async with AsyncClient(live.url, api_key=live.admin, user_id="fay") as c:
            first = await c.add("Fay visited Lisbon with Gus.")
            assert (await c.stats()).total == 1
            graph = await c.entity_graph()
            assert {n.name for n in graph.nodes} == {"Fay", "Lisbon", "Gus"}
            assert [m.id for m in await c.entity_memories("Lisbon")] == [first.id]
            assert (await c.entity("gus")).entry_ids == (first.id,)
            assert UserMemories("fay", 1) in await c.users(limit=1000)
            assert await c.workspace_sessions() == []
            assert [e.id for e in await c.list(sort="oldest")] == [first.id]
            assert await c.count(created_before="2000-01-01") == 0
            assert await c.delete_many([first.id]) == [first.id]
            assert await c.count() == 0

    asyncio.run(run())


NEW = [
    "stats",
    "entities",
    "entity",
    "entity_memories",
    "entity_graph",
    "workspace_sessions",
    "users",
    "user_total",
    "delete_many",
    "list",
    "count",
]


@pytest.mark.parametrize("name", NEW)
def test_the_new_methods_mirror_the_vaults(name: str) -> None:
    """Every argument is the ``Vault`` method's, with its default (``user_id`` may be
    left to the client), and ``AsyncClient`` has the very same signature."""
    ours = inspect.signature(getattr(Client, name)).parameters
    theirs = inspect.signature(getattr(Vault, name)).parameters
    for param in list(ours.values())[1:]:
        if param.name == "user_id":
            continue
        assert param.name in theirs, f"{name}({param.name}=) is not an argument of Vault.{name}"
        assert param.default == theirs[param.name].default, f"{name}({param.name}=)"
    assert inspect.signature(getattr(AsyncClient, name)) == inspect.signature(getattr(Client, name))


def test_every_new_route_the_client_calls_exists(live: Live) -> None:
    spec = httpx.get(
        f"{live.url}/openapi.json", headers={"Authorization": f"Bearer {live.alice}"}, timeout=30
    ).json()
    for path in (
        "/v1/stats",
        "/v1/entities",
        "/v1/entities/graph",
        "/v1/entities/{name}",
        "/v1/cards",
        "/v1/users",
        "/v1/memories/delete",
    ):
        assert path in spec["paths"], path
    for name in ("sort", "created_after", "created_before"):
        assert name in {p["name"] for p in spec["paths"]["/v1/memories"]["get"]["parameters"]}
