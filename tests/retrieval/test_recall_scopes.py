"""Recall scoped to a session, a workspace or everything (seed 004), on every backend."""

from __future__ import annotations

from typing import Any

import pytest

from memvault import ValidationError, Vault

SERVER_BACKENDS = True  # run on PostgreSQL and MariaDB too (tests/conftest.py)


def _seed(vault: Vault) -> dict[str, str]:
    """Four notes about the deploy: two sessions of workspace w1, one of w2, one of none."""
    ids = {}
    for label, session, workspace in (
        ("s1", "s1", "w1"),
        ("s2", "s2", "w1"),
        ("s3", "s3", "w2"),
        ("none", None, None),
    ):
        entry = vault.add(
            f"the deploy pipeline note {label}",
            user_id="alice",
            session_id=session,
            workspace_id=workspace,
        )
        ids[label] = entry.id
    vault.add("the deploy pipeline of bob", user_id="bob", session_id="s1", workspace_id="w1")
    return ids


def _found(vault: Vault, **scope: Any) -> set[str]:
    return {h.entry.id for h in vault.search("deploy pipeline", user_id="alice", limit=20, **scope)}


def test_each_scope_filters_recall(vault: Vault) -> None:
    ids = _seed(vault)
    here = {"session_id": "s1", "workspace_id": "w1"}
    assert _found(vault) == set(ids.values())  # global, the default
    assert _found(vault, scope="global", **here) == set(ids.values())
    assert _found(vault, scope="session", **here) == {ids["s1"]}
    assert _found(vault, scope="workspace", **here) == {ids["s1"], ids["s2"]}
    assert _found(vault, scope="workspace", workspace_id="w2") == {ids["s3"]}
    assert _found(vault, scope="session", session_id="nothing-here") == set()
    explained = vault.explain(
        "deploy pipeline", user_id="alice", limit=20, scope="workspace", workspace_id="w1"
    )
    assert {h.entry.id for h in explained.hits} == {ids["s1"], ids["s2"]}


def test_context_is_scoped_too(vault: Vault) -> None:
    ids = _seed(vault)
    block = vault.context("deploy pipeline", user_id="alice", scope="session", session_id="s2")
    assert "note s2" in block and "note s1" not in block and "note none" not in block
    hits = vault.context_hits(
        "deploy pipeline", user_id="alice", scope="workspace", workspace_id="w1"
    )
    assert {h.entry.id for h in hits} == {ids["s1"], ids["s2"]}


def test_a_scope_never_reaches_another_user_or_agent(vault: Vault) -> None:
    _seed(vault)
    private = vault.add(
        "the deploy pipeline secret", user_id="alice", agent_id="coder", session_id="s1"
    )
    shared = _found(vault, scope="session", session_id="s1")
    assert private.id not in shared and len(shared) == 1  # bob's s1 note is not alice's
    mine = vault.search(
        "deploy pipeline", user_id="alice", agent_id="coder", scope="session", session_id="s1"
    )
    assert private.id in {h.entry.id for h in mine}


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        ({"scope": "team"}, "scope must be one of session, workspace, global"),
        ({"scope": None}, "scope must be one of"),
        ({"scope": "session"}, "pass session_id"),
        ({"scope": "workspace", "session_id": "s1"}, "pass workspace_id"),
        ({"scope": "session", "session_id": "../etc"}, "session_id"),
        ({"scope": "global", "workspace_id": ""}, "workspace_id"),
    ],
)
def test_bad_scopes_are_refused(vault: Vault, scope: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        vault.search("deploy", user_id="alice", **scope)
    with pytest.raises(ValidationError, match=message):
        vault.context("deploy", user_id="alice", **scope)
