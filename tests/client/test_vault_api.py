"""``memvault.client`` against a real gateway on 127.0.0.1 (uvicorn, auth on), sync and
async: every method returns the library's own objects, equal to what the vault behind
the server holds, and every refusal comes back as the library's own error class."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import httpx
import pytest

from memvault import (
    AuthError,
    ConflictError,
    DecisionStatus,
    Explanation,
    Hit,
    Kind,
    MemoryEntry,
    NotFoundError,
    PayloadTooLargeError,
    Profile,
    Remembered,
    ValidationError,
)
from memvault.client import (
    AsyncClient,
    Client,
    ConfigField,
    FileUsage,
    MemoryConfig,
    MemoryEntries,
    MemoryOverview,
    ProviderStatus,
    decode,
)
from memvault.results.external import ExternalHit
from memvault.results.history import Version
from memvault.server import schemas
from memvault.server.state import ServerSettings
from tests.gateway_server import Live


@pytest.fixture(scope="module")
def module_gateway_settings() -> ServerSettings:
    return ServerSettings(max_body_bytes=64 * 1024)


@pytest.fixture(scope="module")
def live(module_live: Live) -> Live:
    """One gateway for the module: the tests keep to users of their own."""
    return module_live


def _same(a: MemoryEntry, b: MemoryEntry) -> None:
    assert a.to_dict() == b.to_dict()


def test_the_vault_api_round_trips_typed_objects(live: Live) -> None:
    with Client(live.url, api_key=live.alice) as c:
        e = c.add("Alice writes Go services", kind="project", metadata={"team": "core"})
        assert isinstance(e, MemoryEntry) and e.kind is Kind.PROJECT and e.user_id == "alice"
        _same(e, live.vault.get(e.id, user_id="alice"))
        _same(c.get(e.id), e)

        changed = c.update(e.id, content="Alice writes Go and Rust services", importance=0.8)
        assert changed.content == "Alice writes Go and Rust services" and changed.importance == 0.8
        assert changed.updated_at >= e.updated_at

        many = c.add_many(
            [{"content": "Prefers short answers"}, {"content": "Lives in Lisbon", "kind": "user"}]
        )
        assert [m.content for m in many] == ["Prefers short answers", "Lives in Lisbon"]

        listed = c.list(limit=10)
        assert {m.id for m in listed} == {e.id, *(m.id for m in many)}
        assert c.count() == 3 == live.vault.count(user_id="alice")
        assert c.count(kind="project") == 1

        hits = c.search("rust services")
        assert hits and isinstance(hits[0], Hit) and hits[0].entry.id == e.id
        direct = live.vault.search("rust services", user_id="alice")
        assert [(h.entry.id, h.sources) for h in hits] == [(h.entry.id, h.sources) for h in direct]
        # Recency counts from the moment of each search: the scores agree to the clock.
        assert [h.score for h in hits] == pytest.approx([h.score for h in direct], rel=1e-6)

        block = c.context("what services does she write?")
        assert "Go and Rust" in block and block.startswith("<memory-context>")
        assert c.context("the weather in Oslo tomorrow") == ""

        why = c.explain("rust services", limit=2)
        assert isinstance(why, Explanation)
        assert [h.entry.id for h in why.hits] == [h.entry.id for h in hits[:2]]
        assert "rust" in why.terms and "query 'rust services'" in str(why)

        versions = c.history(e.id)
        assert [type(v) for v in versions] == [Version, Version]
        assert versions[0].entry.content == "Alice writes Go services" and versions[1].current
        back = c.undo(e.id)
        assert back.content == "Alice writes Go services"

        records = c.export()
        assert sorted(r["id"] for r in records) == sorted([e.id, *(m.id for m in many)])
        c.delete(many[0].id)
        with pytest.raises(NotFoundError):
            c.get(many[0].id)
        assert c.import_(records, on_conflict="skip") == [many[0].id]
        _same(c.get(many[0].id), many[0].replace(updated_at=c.get(many[0].id).updated_at))


def test_decisions_profile_remember_and_erase(live: Live) -> None:
    with Client(live.url, api_key=live.admin, user_id="carol") as c:
        d = c.add("Use PostgreSQL for the ledger", kind="project", status="proposed")
        assert d.status is DecisionStatus.PROPOSED
        assert c.decide(d.id, "adopted", reason="benchmarks").status is DecisionStatus.ADOPTED
        with pytest.raises(ValidationError, match="already adopted"):
            c.decide(d.id, DecisionStatus.ADOPTED)

        done = c.remember(
            [
                {"role": "user", "content": "I moved to Porto last month"},
                {"role": "assistant", "content": "Noted, Porto it is."},
            ],
            session_id="s1",
        )
        assert isinstance(done, Remembered) and done.session_id == "s1"
        assert done.received == 2 and len(done.archived) == done.kept
        assert done.extraction == "no_llm" and done.learned is None

        profile = c.profile()
        assert isinstance(profile, Profile) and profile.facts == []
        assert c.save_profile(profile) == profile

        stored = live.vault.count(user_id="carol")  # the decision and the two turns
        assert stored == 3 and c.erase_user(user_id="carol") == stored
        assert c.count() == 0


def test_the_v2_routes_use_deerflow_names(live: Live) -> None:
    with Client(live.url, api_key=live.bob) as c:
        first = c.add_memory_entry("user", "Bob prefers tea")
        assert isinstance(first, MemoryEntries) and first.entries == ["Bob prefers tea"]
        assert first.changed and isinstance(first.usage, FileUsage)
        c.add_memory_entry("memory", "The build runs on Fridays")
        again = c.replace_memory_entry(
            "user", 0, "Bob prefers green tea", expected="Bob prefers tea"
        )
        assert again.entries == ["Bob prefers green tea"]
        with pytest.raises(ConflictError):
            c.replace_memory_entry("user", 0, "coffee", expected="Bob prefers tea")

        overview = c.get_memory()
        assert isinstance(overview, MemoryOverview) and overview.user_id == "bob"
        assert overview.user_md == "Bob prefers green tea"
        assert "Fridays" in overview.memory_md
        assert isinstance(overview.external, ProviderStatus) and overview.external.provider

        gone = c.remove_memory_entry("memory", 0, expected="The build runs on Fridays")
        assert gone.entries == [] and gone.target == "memory"

        config = c.get_memory_config()
        assert isinstance(config, MemoryConfig) and config.user_id == "bob"
        assert isinstance(config.fields["injection.enabled"], ConfigField)
        updated = c.update_memory_config({"injection.enabled": False})
        assert updated.fields["injection.enabled"].value is False
        assert updated.fields["injection.enabled"].source == "user"

        entry = c.add("Bob deploys with Ansible")
        hits = c.search_memory("ansible deploys")
        assert hits and isinstance(hits[0], ExternalHit)
        assert hits[0].entry is not None and hits[0].entry.id == entry.id


def test_async_client_offers_the_same_methods(live: Live) -> None:
    sync_methods = {n for n in dir(Client) if not n.startswith("_")}
    async_methods = {n for n in dir(AsyncClient) if not n.startswith("_")} - {"aclose"}
    assert sync_methods - {"close"} == async_methods

    async def scenario() -> None:
        async with AsyncClient(live.url, api_key=live.admin, user_id="dave") as c:
            e = await c.add("Dave maintains the Kafka cluster", kind="project")
            assert isinstance(e, MemoryEntry)
            _same(await c.get(e.id), e)
            assert (await c.update(e.id, name="kafka")).name == "kafka"
            many = await c.add_many([{"content": "Dave is on call on Mondays"}])
            assert [m.id for m in await c.list()] == [many[0].id, e.id]
            assert await c.count() == 2
            hits = await c.search("kafka cluster")
            assert hits[0].entry.id == e.id
            assert "Kafka" in await c.context("who runs kafka?")
            assert (await c.explain("kafka cluster")).hits[0].entry.id == e.id
            assert len(await c.history(e.id)) == 2
            assert (await c.undo(e.id)).name == ""
            records = await c.export()
            await c.delete(e.id)
            with pytest.raises(NotFoundError):
                await c.get(e.id)
            assert await c.import_(records, on_conflict="skip") == [e.id]
            done = await c.remember([{"role": "user", "content": "hi"}], session_id="a1")
            assert done.received == 1
            d = await c.add("Ship on Tuesdays", status="proposed")
            assert (await c.decide(d.id, "exploring")).status is DecisionStatus.EXPLORING
            assert (await c.save_profile(await c.profile())).facts == []
            assert (await c.add_memory_entry("user", "Dave likes Kafka")).changed
            again = await c.replace_memory_entry("user", 0, "Dave likes Kafka a lot")
            assert again.entries == ["Dave likes Kafka a lot"]
            assert (await c.remove_memory_entry("user", 0)).entries == []
            assert (await c.get_memory()).user_md == ""
            assert (await c.get_memory_config()).fields
            assert (await c.update_memory_config({"injection.enabled": True})).fields
            assert (await c.search_memory("kafka"))[0].entry is not None
            assert (await c.health())["status"] == "ok"
            assert (await c.wait_until_ready())["status"] == "ok"
            stored = live.vault.count(user_id="dave")  # e, many[0], d and one archived turn
            assert stored == 4 and await c.erase_user(user_id="dave") == stored
            assert await c.count() == 0

    asyncio.run(scenario())


def test_http_errors_raise_the_library_classes(live: Live) -> None:
    with Client(live.url, api_key=live.alice) as c:
        with pytest.raises(NotFoundError) as missing:
            c.get("0" * 32)
        assert missing.value.context["status"] == 404
        with pytest.raises(NotFoundError, match="no user 'bob'"):
            c.list(user_id="bob")  # a user key naming another user: as if it did not exist
        with pytest.raises(ValidationError, match="kind") as bad:
            c.add("x", kind="nonsense")
        assert bad.value.context["status"] == 422
        with pytest.raises(PayloadTooLargeError, match="over the limit"):
            c.add("x" * 100_000)
    with Client(live.url, api_key="mv_not_a_key") as c, pytest.raises(AuthError, match="unknown"):
        c.count()
    with Client(live.url) as c, pytest.raises(AuthError, match="no API key"):
        c.count()
    before = live.snapshot()
    with Client(live.url, api_key=live.alice) as c:
        with pytest.raises(ValidationError, match="memory id"):
            c.delete("../../v1/keys")  # checked before anything is sent
        with pytest.raises(ValidationError, match="target"):
            c.add_memory_entry("notes", "x")  # type: ignore[arg-type]
    assert live.snapshot() == before


def test_an_admin_route_with_a_user_key_is_forbidden(live: Live) -> None:
    """No client method calls an admin route; a raw call through the same exchange shows
    the 403 comes back as ``ForbiddenError``."""
    from memvault import ForbiddenError
    from memvault.client.exchange import Call

    with Client(live.url, api_key=live.alice) as c, pytest.raises(ForbiddenError, match="admin"):
        c._run(Call("GET", "/v1/keys", lambda r, _: r.json(), user_in="none"))


def test_the_admin_must_name_a_user(live: Live) -> None:
    with Client(live.url, api_key=live.admin) as c, pytest.raises(ValidationError, match="user_id"):
        c.count()


def test_the_client_closes_its_connections(live: Live) -> None:
    with Client(live.url, api_key=live.alice) as c:
        c.count()
    with pytest.raises(RuntimeError):
        c.count()

    async def closed() -> None:
        async with AsyncClient(live.url, api_key=live.alice) as a:
            await a.count()
        with pytest.raises(RuntimeError):
            await a.count()

    asyncio.run(closed())


@pytest.mark.parametrize(
    "bad",
    [
        {"base_url": "127.0.0.1:8765"},
        {"api_key": ""},
        {"timeout": 0},
        {"user_id": "no spaces allowed"},
    ],
)
def test_the_constructor_checks_its_arguments(bad: dict[str, object]) -> None:
    args: dict[str, object] = {"base_url": "http://127.0.0.1:1", **bad}
    with pytest.raises(ValidationError):
        Client(**args)  # type: ignore[arg-type]


def test_an_explanation_survives_the_wire(live: Live) -> None:
    live.vault.add("Erin plays the cello", user_id="erin")
    live.vault.add("Erin's cello teacher is in Vienna", user_id="erin")
    why = live.vault.explain("cello lessons", user_id="erin")
    back = decode.explanation(
        {
            **why.to_dict(),
            "gate": None
            if why.gate is None
            else {**why.to_dict()["gate"], "settings": dataclasses.asdict(why.gate.settings)},
        }
    )
    assert back == why


@pytest.mark.parametrize(
    ("client_model", "server_schema"),
    [
        (MemoryOverview, schemas.Overview),
        (ProviderStatus, schemas.ExternalStatus),
        (FileUsage, schemas.Usage),
        (MemoryEntries, schemas.EntriesResponse),
        (ConfigField, schemas.ConfigField),
        (MemoryConfig, schemas.ConfigResponse),
    ],
)
def test_the_v2_models_match_the_server_schemas(client_model: type, server_schema: type) -> None:
    assert set(client_model.model_fields) == set(server_schema.model_fields)


def test_every_route_the_client_calls_exists(live: Live, tmp_path: Path) -> None:
    spec = httpx.get(
        f"{live.url}/openapi.json", headers={"Authorization": f"Bearer {live.alice}"}, timeout=30
    ).json()
    for path in (
        "/v1/memories/context",
        "/v1/memories/explain",
        "/v1/memories/batch",
        "/api/memory/v2/entries/{target}/{idx}",
    ):
        assert path in spec["paths"], path


def test_the_error_table_inverts_the_servers() -> None:
    """Each class the gateway maps to a status comes back as itself (by its code), and
    an answer without memvault's body is read as a class the gateway gives that status."""
    from memvault.client.exchange import BY_CODE, BY_STATUS
    from memvault.server.errors import STATUS, status_for

    for cls, _ in STATUS:
        assert BY_CODE[cls.code] is cls
    for status, cls in BY_STATUS.items():
        if status != 400:  # the gateway answers a malformed body with 422
            assert status_for(cls("x")) == status, cls


MIRRORED = [
    "add",
    "add_many",
    "get",
    "update",
    "delete",
    "list",
    "count",
    "search",
    "explain",
    "context",
    "export",
    "import_",
    "remember",
    "history",
    "undo",
    "decide",
    "profile",
    "save_profile",
    "erase_user",
]


@pytest.mark.parametrize("name", MIRRORED)
def test_the_client_methods_mirror_the_vaults(name: str) -> None:
    """Each argument a client method takes is the ``Vault`` method's, with its default
    (``user_id`` may be left to the client; ``agent_id`` of ``add_many`` and ``import_``
    picks the store, as the routes do). The HTTP API takes fewer fields than the library
    (no ``id``, ``source``, ``expires_at``), never others."""
    import inspect

    from memvault import Vault

    ours = inspect.signature(getattr(Client, name)).parameters
    theirs = inspect.signature(getattr(Vault, name)).parameters
    for param in list(ours.values())[1:]:
        if param.name in ("user_id",) or (
            param.name == "agent_id" and name in ("add_many", "import_")
        ):
            continue
        assert param.name in theirs, f"{name}({param.name}=) is not an argument of Vault.{name}"
        assert param.default == theirs[param.name].default, f"{name}({param.name}=)"


def test_a_batch_is_all_or_nothing(live: Live) -> None:
    with Client(live.url, api_key=live.admin, user_id="frank") as c:
        with pytest.raises(ValidationError, match=r"records\.1\.kind"):
            c.add_many([{"content": "fine"}, {"content": "bad", "kind": "nonsense"}])
        with pytest.raises(ValidationError, match="new memories only"):
            c.add_many([{"content": "new", "supersedes": "0" * 32}])
        with pytest.raises(ValidationError, match="one batch per agent"):
            c.add_many([{"content": "x", "agent_id": "helper"}])
        assert c.count() == 0
        stored = c.add_many([{"content": "mine", "agent_id": "helper"}], agent_id="helper")
        assert stored[0].agent_id == "helper" and c.count(agent_id="helper") == 1
