"""The admin's list of users: ``Vault.users``, ``AgentVaults.users`` (every agent's
store) and ``GET /v1/users``, which a user key may never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault import Vault, VaultConfig
from memvault.agent.stores import AgentVaults
from memvault.errors import ValidationError
from memvault.results.stats import UserMemories
from tests.gateway_server import live_gateway


def _fill(vault: Vault, counts: dict[str, int]) -> None:
    for user, count in counts.items():
        for n in range(count):
            vault.add(f"note {n} of {user}", user_id=user)


def test_vault_users_pages_users_by_id_with_counts(config: VaultConfig) -> None:
    with Vault(config=config) as vault:
        assert vault.users() == [] and vault.user_total() == 0
        _fill(vault, {"carol": 1, "alice": 3, "bob": 2})
        vault.add("alice's agent note", user_id="alice", agent_id="helper")
        assert vault.users() == [
            UserMemories("alice", 4),
            UserMemories("bob", 2),
            UserMemories("carol", 1),
        ]
        assert vault.users(limit=1, offset=1) == [UserMemories("bob", 2)]
        assert vault.user_total() == 3
        vault.erase_user(user_id="bob")
        assert [u.user_id for u in vault.users()] == ["alice", "carol"]


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (1001, 0), (True, 0), (10, -1), ("5", 0)])
def test_vault_users_refuses_bad_pages(config: VaultConfig, limit: object, offset: object) -> None:
    with Vault(config=config) as vault, pytest.raises(ValidationError):
        vault.users(limit=limit, offset=offset)  # type: ignore[arg-type]


def test_agent_vaults_sum_a_user_over_every_store(config: VaultConfig, tmp_path: Path) -> None:
    with Vault(config=config) as default, AgentVaults(default) as agents:
        agents.configure("writer", store=str(tmp_path / "writer.db"))
        _fill(default, {"alice": 2, "dora": 1})
        own = agents.vault_for("writer")
        own.add("written by the writer", user_id="alice", agent_id="writer")
        own.add("bea's only memory", user_id="bea", agent_id="writer")
        assert agents.users() == [
            UserMemories("alice", 3),
            UserMemories("bea", 1),
            UserMemories("dora", 1),
        ]
        assert agents.users(limit=1, offset=1) == [UserMemories("bea", 1)]
        assert agents.users(limit=2, offset=2) == [UserMemories("dora", 1)]
        assert agents.user_total() == 3


def test_http_users_is_for_admin_keys_only(config: VaultConfig) -> None:
    with live_gateway(config) as live:
        admin, alice, bob = (live.client(k) for k in (live.admin, live.alice, live.bob))
        for n in range(3):
            assert alice.post("/v1/memories", json={"content": f"alice {n}"}).status_code == 201
        assert bob.post("/v1/memories", json={"content": "bob's"}).status_code == 201

        for client, other in ((alice, "bob"), (bob, "alice")):
            refused = client.get("/v1/users")
            assert refused.status_code == 403
            assert other not in refused.text and "items" not in refused.json()
        assert live.client(None).get("/v1/users").status_code == 401

        page = admin.get("/v1/users")
        assert page.status_code == 200, page.text
        assert page.json() == {
            "items": [{"user_id": "alice", "memories": 3}, {"user_id": "bob", "memories": 1}],
            "total": 2,
            "limit": 100,
            "offset": 0,
        }
        second = admin.get("/v1/users", params={"limit": 1, "offset": 1}).json()
        assert second["items"] == [{"user_id": "bob", "memories": 1}]
        assert second["total"] == 2
        for bad in ({"limit": 0}, {"limit": 1001}, {"offset": -1}, {"limit": "x"}):
            r = admin.get("/v1/users", params=bad)
            assert r.status_code == 422, (bad, r.text)

        assert admin.delete("/v1/users/bob").status_code == 200
        after = admin.get("/v1/users").json()
        assert after["items"] == [{"user_id": "alice", "memories": 3}] and after["total"] == 1
