"""Per-agent memory settings (seed 002 §8.1): each agent's store, switch and prefetch size.

Real SQLite files for the default and the agents' stores, a real PostgreSQL server for
an agent that lives on one, the real gateway on 127.0.0.1 and the real CLI process.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from memvault import Vault, VaultConfig
from memvault.agent.providers.vault import VaultProvider
from memvault.agent.stores import AgentRegistry, AgentVaults
from memvault.errors import (
    ConfigError,
    NotFoundError,
    StoreUnavailableError,
    ValidationError,
)
from memvault.stores.factory import shown_location
from tests.cli_process import run_cli
from tests.gateway_server import live_gateway


@pytest.fixture
def default(config: VaultConfig):
    with Vault(config=config) as vault:
        yield vault


@pytest.fixture
def agents(default: Vault):
    with AgentVaults(default) as routed:
        yield routed


def _ids(vault: Vault, user: str, agent: str | None = None) -> set[str]:
    return {r["id"] for r in vault.export(user_id=user, agent_id=agent)}


# -- the registry ----------------------------------------------------------------------


def test_an_agent_without_a_record_gets_the_defaults(tmp_path: Path) -> None:
    registry = AgentRegistry(tmp_path / "agents.json")
    settings = registry.get("writer")
    assert (settings.enabled, settings.store, settings.prefetch_limit) == (True, None, 5)
    assert registry.all() == {} and not registry.has("writer")


def test_set_changes_only_the_named_fields_and_persists(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    AgentRegistry(path).set("writer", prefetch_limit=3)
    AgentRegistry(path).set("writer", store=str(tmp_path / "w.db"))
    again = AgentRegistry(path).get("writer")  # a fresh reader: what is on disk
    assert again.prefetch_limit == 3 and again.store == str(tmp_path / "w.db")
    assert again.enabled is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # URLs may hold passwords


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"store": "relative.db"}, "store", "absolute"),
        ({"store": "memory://"}, "store", "outlive"),
        ({"store": ":memory:"}, "store", "outlive"),
        ({"store": "ftp://host/x"}, "store", "unknown store scheme"),
        ({"store": "sqlite://host/x.db"}, "store", "three slashes"),
        ({"prefetch_limit": 0}, "prefetch_limit", "greater than or equal to 1"),
        ({"prefetch_limit": 101}, "prefetch_limit", "less than or equal to 100"),
        ({"enabled": "maybe"}, "enabled", "boolean"),
        ({"colour": "red"}, "colour", "unknown agent setting"),
    ],
)
def test_bad_settings_are_refused_and_nothing_is_written(
    tmp_path: Path, changes: dict[str, object], field: str, words: str
) -> None:
    registry = AgentRegistry(tmp_path / "agents.json")
    registry.set("writer", prefetch_limit=7)
    before = registry.path.read_bytes()
    with pytest.raises(ValidationError) as err:
        registry.set("writer", **changes)
    assert err.value.context["field"] == field
    assert words in err.value.message
    assert registry.path.read_bytes() == before


def test_a_bad_agent_id_is_refused(tmp_path: Path) -> None:
    registry = AgentRegistry(tmp_path / "agents.json")
    for bad in ("../etc", "", "a b"):
        with pytest.raises(ValidationError):
            registry.set(bad, prefetch_limit=2)
    assert not registry.path.exists()


def test_remove_falls_back_to_defaults_and_unknown_is_not_found(tmp_path: Path) -> None:
    registry = AgentRegistry(tmp_path / "agents.json")
    registry.set("writer", enabled=False)
    registry.remove("writer")
    assert registry.get("writer").enabled is True
    with pytest.raises(NotFoundError):
        registry.remove("writer")


def test_a_malformed_file_names_itself_and_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    for text in ("{not json", '{"agents": []}', '{"agents": {"w": {"prefetch_limit": -1}}}'):
        path.write_text(text)
        registry = AgentRegistry(path)
        with pytest.raises(ConfigError) as err:
            registry.get("w")
        assert str(path) in err.value.message and "delete it" in err.value.message


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"

    def write(prefix: str) -> None:
        registry = AgentRegistry(path)  # each writer its own reader, as processes have
        for i in range(15):
            registry.set(f"{prefix}{i}", prefetch_limit=1 + i)

    threads = [threading.Thread(target=write, args=(p,)) for p in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = AgentRegistry(path).all()
    assert len(records) == 45
    assert records["b14"].prefetch_limit == 15


def test_public_settings_never_show_a_password(tmp_path: Path) -> None:
    registry = AgentRegistry(tmp_path / "agents.json")
    url = "postgresql://memvault:s3cret-pw@127.0.0.1:5432/mem"
    settings = registry.set("writer", store=url)
    assert "s3cret-pw" not in json.dumps(settings.public())
    assert settings.public()["store"] == "postgresql://memvault:***@127.0.0.1:5432/mem"
    assert shown_location("mysql://root@127.0.0.1/x") == "mysql://root@127.0.0.1/x"


# -- routing ----------------------------------------------------------------------------


def test_an_agent_with_its_own_store_writes_and_reads_only_there(
    agents: AgentVaults, default: Vault, tmp_path: Path
) -> None:
    own = tmp_path / "writer.db"
    agents.configure("writer", store=str(own))
    writer = agents.vault_for("writer")
    assert writer is not default
    entry = writer.add("The draft is due on Friday", user_id="alice", agent_id="writer")
    shared = default.add("Alice prefers tea", user_id="alice")

    # The entry is in the agent's file and nowhere in the default store.
    with Vault(own, config=default.config, embedder=None) as direct:
        assert _ids(direct, "alice") == {entry.id}
    assert entry.id not in _ids(default, "alice")
    # The agent is an island: the default store's user-wide memories are not in its recall.
    assert [
        h.entry.id for h in writer.search("draft Friday tea", user_id="alice", agent_id="writer")
    ] == [entry.id]
    # Another agent (default store) sees the user-wide memory, not the writer's.
    other = agents.vault_for("reviewer")
    assert other is default
    found = {
        h.entry.id for h in other.search("draft Friday tea", user_id="alice", agent_id="reviewer")
    }
    assert found == {shared.id}


def test_agents_naming_one_store_share_one_vault_and_the_default_is_recognised(
    agents: AgentVaults, default: Vault, tmp_path: Path
) -> None:
    own = tmp_path / "team.db"
    agents.configure("a", store=str(own))
    agents.configure("b", store=f"sqlite://{own}")
    assert agents.vault_for("a") is agents.vault_for("b")
    agents.configure("c", store=f"sqlite://{default.config.database}")
    assert agents.vault_for("c") is default
    assert len(list(agents.vaults())) == 2  # the default and team.db, each once


def test_erase_user_reaches_every_agent_store(
    agents: AgentVaults, default: Vault, tmp_path: Path
) -> None:
    agents.configure("writer", store=str(tmp_path / "writer.db"))
    agents.vault_for("writer").add("writer note", user_id="alice", agent_id="writer")
    default.add("shared note", user_id="alice")
    kept = default.add("bob's note", user_id="bob")
    assert agents.erase_user(user_id="alice") == 2
    assert _ids(agents.vault_for("writer"), "alice", "writer") == set()
    assert _ids(default, "alice") == set()
    assert _ids(default, "bob") == {kept.id}


def test_an_unreachable_store_is_refused_and_the_old_settings_stay(
    agents: AgentVaults, tmp_path: Path
) -> None:
    agents.configure("writer", store=str(tmp_path / "w.db"), prefetch_limit=2)
    with pytest.raises(StoreUnavailableError):
        # Port 9 (discard) on loopback: nothing listens there.
        agents.configure("writer", store="postgresql://u:pw@127.0.0.1:9/none")
    assert agents.settings("writer").store == str(tmp_path / "w.db")


def test_the_registry_is_followed_while_running(agents: AgentVaults, tmp_path: Path) -> None:
    """Another process (the CLI) changes the file; the running router follows."""
    assert agents.vault_for("writer") is agents.default
    other = AgentRegistry(agents.registry.path)
    other.set("writer", store=str(tmp_path / "w.db"))
    os.utime(agents.registry.path, ns=(1, 1))  # a different stamp even on a coarse clock
    assert agents.vault_for("writer") is not agents.default


def test_an_agent_on_postgresql_beside_a_default_sqlite_store(
    agents: AgentVaults, default: Vault
) -> None:
    from tests.servers import postgres

    url = postgres.fresh_database()
    agents.configure("analyst", store=url)
    analyst = agents.vault_for("analyst")
    entry = analyst.add(
        "Quarterly numbers live in the finance sheet", user_id="alice", agent_id="analyst"
    )
    hits = analyst.search("finance sheet", user_id="alice", agent_id="analyst")
    assert [h.entry.id for h in hits] == [entry.id]
    assert _ids(default, "alice") == set()
    assert agents.erase_user(user_id="alice") == 1


# -- the agent layer ----------------------------------------------------------------------


def _provider(agents: AgentVaults, agent: str, tmp_path: Path) -> VaultProvider:
    provider = VaultProvider(agents)
    provider.initialize(user_id="alice", agent_id=agent, base_dir=str(tmp_path))
    return provider


def test_the_provider_uses_the_agents_store_and_prefetch_limit(
    agents: AgentVaults, tmp_path: Path
) -> None:
    agents.configure("writer", store=str(tmp_path / "w.db"), prefetch_limit=2)
    writer = agents.vault_for("writer")
    for i in range(6):
        writer.add(f"chapter {i} of the novel is drafted", user_id="alice", agent_id="writer")
    provider = _provider(agents, "writer", tmp_path)
    assert provider.vault is writer and provider.prefetch_limit == 2
    block = provider.prefetch("novel chapter drafted")
    assert block.count("chapter") == 2
    # An agent without a record: the default store and the default limit.
    plain = _provider(agents, "helper", tmp_path)
    assert plain.vault is agents.default and plain.prefetch_limit == 5
    assert plain.prefetch("novel chapter drafted") == ""


def test_an_explicit_prefetch_limit_wins_over_the_agents(
    agents: AgentVaults, tmp_path: Path
) -> None:
    agents.configure("writer", prefetch_limit=2)
    provider = VaultProvider(agents, prefetch_limit=4)
    provider.initialize(user_id="alice", agent_id="writer", base_dir=str(tmp_path))
    assert provider.prefetch_limit == 4


def test_memory_off_for_an_agent_injects_archives_and_saves_nothing(
    agents: AgentVaults, default: Vault, tmp_path: Path
) -> None:
    default.add("Alice prefers tea", user_id="alice", agent_id="quiet")
    agents.configure("quiet", enabled=False)
    provider = _provider(agents, "quiet", tmp_path)
    assert provider.system_prompt_block() == ""
    assert provider.prefetch("what does Alice prefer, tea?") == ""
    provider.sync_turn("hello", "hi there", thread_id="t1", turn_index=0)
    answer = json.loads(
        provider.handle_tool_call(
            "memory_save", {"action": "create", "content": "x", "type": "user"}
        )
    )
    assert answer["success"] is False and "memory is off" in answer["error"]
    assert default.count(user_id="alice") == 1  # nothing archived, nothing saved


def test_memory_off_for_an_agent_holds_for_its_mcp_tools(
    config: VaultConfig, tmp_path: Path
) -> None:
    pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "memory_recall", "arguments": {"query": "tea"}},
    }
    accept = {"accept": "application/json, text/event-stream"}
    with live_gateway(config) as live:
        admin, alice = live.client(live.admin), live.client(live.alice)
        alice.post("/v1/memories", json={"content": "Alice prefers tea", "agent_id": "quiet"})

        def recall() -> dict[str, object]:
            r = alice.post("/mcp", json=body, headers={**accept, "X-Memvault-Agent": "quiet"})
            assert r.status_code == 200, r.text
            result: dict[str, object] = r.json()["result"]
            return result

        assert "tea" in json.dumps(recall())  # on: the tools answer
        assert admin.put("/v1/agents/quiet", json={"enabled": False}).status_code == 200
        off = recall()
        assert off["isError"] is True and "memory is off" in json.dumps(off)
        assert "tea" not in json.dumps(off)
    home = tmp_path / "cli"
    assert run_cli(home, "agents", "set", "quiet", "--disable").returncode == 0
    refused = run_cli(home, "mcp", "--user", "alice", "--agent", "quiet")
    assert refused.returncode == 1 and "memory is off for agent quiet" in refused.stderr


# -- the HTTP API ---------------------------------------------------------------------------


def test_http_agents_routes_and_routing(config: VaultConfig, tmp_path: Path) -> None:
    own = tmp_path / "writer.db"
    with live_gateway(config) as live:
        admin, alice = live.client(live.admin), live.client(live.alice)
        assert alice.get("/v1/agents").status_code == 403
        assert alice.put("/v1/agents/writer", json={"prefetch_limit": 2}).status_code == 403

        got = admin.put("/v1/agents/writer", json={"store": str(own), "prefetch_limit": 2})
        assert got.status_code == 200, got.text
        assert got.json() == {
            "agent_id": "writer",
            "enabled": True,
            "store": str(own),
            "prefetch_limit": 2,
            "own_settings": True,
        }
        bad = admin.put("/v1/agents/writer", json={"store": "relative.db"})
        assert bad.status_code == 422, bad.text
        assert "store" in bad.json()["error"]["message"]
        down = admin.put("/v1/agents/writer", json={"store": "postgresql://u:pw@127.0.0.1:9/x"})
        assert down.status_code == 503 and "pw" not in down.text
        assert admin.get("/v1/agents/writer").json()["store"] == str(own)

        made = alice.post("/v1/memories", json={"content": "the plot twist", "agent_id": "writer"})
        assert made.status_code == 201
        entry_id = made.json()["id"]
        with Vault(own, config=config, embedder=None) as direct:
            assert _ids(direct, "alice") == {entry_id}
        assert entry_id not in _ids(live.vault, "alice")
        found = alice.post(
            "/v1/memories/search", json={"query": "plot twist", "agent_id": "writer"}
        )
        assert [r["entry"]["id"] for r in found.json()["results"]] == [entry_id]
        elsewhere = alice.post(
            "/v1/memories/search", json={"query": "plot twist", "agent_id": "reviewer"}
        )
        assert elsewhere.json()["results"] == []
        assert (
            alice.get(f"/v1/memories/{entry_id}", params={"agent_id": "writer"}).status_code == 200
        )
        assert alice.get(f"/v1/memories/{entry_id}").status_code == 404

        # v2 recall without a limit takes the agent's prefetch size (2 here, 5 by default).
        for i in range(4):
            alice.post(
                "/v1/memories", json={"content": f"twist {i} of the plot", "agent_id": "writer"}
            )
        v2 = alice.post(
            "/api/memory/v2/search", params={"agent_id": "writer"}, json={"query": "plot twist"}
        )
        assert v2.status_code == 200, v2.text
        assert len(v2.json()["results"]) == 2

        listed = admin.get("/v1/agents").json()
        assert [a["agent_id"] for a in listed["agents"]] == ["writer"]
        assert listed["defaults"]["prefetch_limit"] == 5

        erased = admin.delete("/v1/users/alice")
        assert erased.status_code == 200 and erased.json()["deleted"] == 5
        with Vault(own, config=config, embedder=None) as direct:
            assert _ids(direct, "alice") == set()

        assert admin.delete("/v1/agents/writer").status_code == 204
        assert admin.get("/v1/agents/writer").json()["own_settings"] is False
        assert admin.delete("/v1/agents/writer").status_code == 404


# -- the CLI ---------------------------------------------------------------------------------


def test_cli_agents_set_list_and_routing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    done = run_cli(
        home, "agents", "set", "writer", "--store", "writer.db", "--prefetch-limit", "3", cwd=work
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(run_cli(home, "agents", "show", "writer", "--json").stdout)
    assert Path(shown["store"]).is_absolute() and shown["prefetch_limit"] == 3
    store = Path(shown["store"])
    assert store == work / "writer.db"  # resolved where the command ran

    added = run_cli(home, "add", "the plot twist", "--user", "alice", "--agent", "writer", "--json")
    assert added.returncode == 0, added.stderr
    entry_id = json.loads(added.stdout)["id"]
    assert store.exists()
    listed = run_cli(home, "list", "--user", "alice", "--agent", "writer", "--json")
    assert entry_id in listed.stdout
    assert entry_id not in run_cli(home, "list", "--user", "alice", "--json").stdout

    bad = run_cli(home, "agents", "set", "writer", "--store", "memory://")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: --store: ") and "outlive" in bad.stderr
    nothing = run_cli(home, "agents", "set", "writer")
    assert nothing.returncode == 2 and "nothing to change" in nothing.stderr

    erased = run_cli(home, "erase", "--user", "alice", "--yes")
    assert erased.returncode == 0 and "1 memories" in erased.stdout
    assert run_cli(home, "agents", "reset", "writer").returncode == 0
    assert "no agent has settings" in run_cli(home, "agents", "list").stdout
