"""``Vault.workspace_sessions`` and ``GET /v1/cards``: the sessions a user has a state card or a
task in, with their workspaces, on every backend of the ``vault`` fixture and over a real
gateway; another user's sessions never show."""

from __future__ import annotations

import pytest

from memvault import Vault
from memvault.errors import ValidationError
from tests.gateway_server import Live


def test_sessions_of_cards_and_tasks_with_their_workspaces(vault: Vault) -> None:
    vault.upsert_card(user_id="alice", session_id="c-loose", goal="no workspace yet")
    vault.upsert_card(user_id="alice", session_id="c-tied", goal="parser", workspace_id="w1")
    vault.upsert_card(user_id="alice", session_id="c-tied", next_step="lexer")
    vault.add_task(user_id="alice", workspace_id="w1", session_id="t-only", title="one")
    vault.add_task(user_id="alice", workspace_id="w1", session_id="t-only", title="two")
    vault.add_task(user_id="alice", workspace_id="w2", session_id="other", title="three")
    vault.add_task(user_id="bob", workspace_id="w1", session_id="bobs", title="hidden")

    found = vault.workspace_sessions(user_id="alice")
    assert [(c.session_id, c.workspace_id, c.card_revision, c.tasks) for c in found] == [
        ("c-loose", None, 1, 0),
        ("c-tied", "w1", 2, 0),
        ("other", "w2", 0, 1),
        ("t-only", "w1", 0, 2),
    ]
    assert all(c.updated_at is not None for c in found)
    w1 = vault.workspace_sessions(user_id="alice", workspace_id="w1")
    assert [c.session_id for c in w1] == ["c-tied", "t-only"]
    assert [c.session_id for c in vault.workspace_sessions(user_id="bob")] == ["bobs"]
    assert vault.workspace_sessions(user_id="carol") == []


def test_a_session_leaves_the_list_with_its_last_card_and_task(vault: Vault) -> None:
    task = vault.add_task(user_id="alice", workspace_id="w1", session_id="s1", title="x")
    vault.upsert_card(user_id="alice", session_id="s1", goal="g")
    vault.workspace.delete_task(user_id="alice", task_id=task.id)
    left = vault.workspace_sessions(user_id="alice")
    assert [(c.session_id, c.tasks) for c in left] == [("s1", 0)]
    vault.workspace.delete_card(user_id="alice", session_id="s1")
    assert vault.workspace_sessions(user_id="alice") == []


def test_a_bad_workspace_id_is_refused(vault: Vault) -> None:
    with pytest.raises(ValidationError) as caught:
        vault.workspace_sessions(user_id="alice", workspace_id="")
    assert caught.value.context.get("field") == "workspace_id"


def test_the_route_lists_the_callers_sessions_only(live: Live) -> None:
    live.vault.upsert_card(user_id="alice", session_id="a1", goal="g", workspace_id="w1")
    live.vault.add_task(user_id="alice", workspace_id="w2", session_id="a2", title="t")
    live.vault.add_task(user_id="bob", workspace_id="w1", session_id="b1", title="t")
    with live.client(live.alice) as alice:
        listed = alice.get("/v1/cards")
        assert listed.status_code == 200, listed.text
        body = listed.json()
        assert body["count"] == 2
        assert [(s["session_id"], s["workspace_id"]) for s in body["sessions"]] == [
            ("a1", "w1"),
            ("a2", "w2"),
        ]
        assert body["sessions"][0]["card_revision"] == 1 and body["sessions"][1]["tasks"] == 1
        one = alice.get("/v1/cards", params={"workspace_id": "w1"}).json()
        assert [s["session_id"] for s in one["sessions"]] == ["a1"]
        # a user key names no other user: bob reads like no user at all
        refused = alice.get("/v1/cards", params={"user_id": "bob"})
        assert refused.status_code == 404 and "b1" not in refused.text
    with live.client(live.admin) as admin:
        bobs = admin.get("/v1/cards", params={"user_id": "bob"}).json()
        assert [s["session_id"] for s in bobs["sessions"]] == ["b1"]
