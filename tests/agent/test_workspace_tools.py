"""The ``state_card`` and ``task_board`` tools: through ``VaultProvider`` (opt-in, scoped
to the provider's user, thread and workspace) and through the MCP server (each call
names its session), on a real vault."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memvault import Vault, VaultConfig
from memvault.agent.providers.vault import VaultProvider
from memvault.agent.tools.workspace import STATE_CARD_SCHEMA, TASK_BOARD_SCHEMA, with_session
from memvault.validation import thread_session
from tests.mcp.test_server import in_process


@pytest.fixture
def vault(config: VaultConfig) -> Iterator[Vault]:
    with Vault("memory://", config=config, embedder=None) as v:
        yield v


def provider(vault: Vault, tmp_path: Path, *, thread: str = "t1", **extra: Any) -> VaultProvider:
    p = VaultProvider(vault, workspace_tools=True)
    p.initialize(user_id="alice", thread_id=thread, base_dir=str(tmp_path), **extra)
    return p


def call(p: VaultProvider, name: str, args: object) -> dict[str, Any]:
    return json.loads(p.handle_tool_call(name, args))  # type: ignore[arg-type]


def test_the_tools_are_opt_in(vault: Vault, tmp_path: Path) -> None:
    plain = VaultProvider(vault)
    plain.initialize(user_id="alice", thread_id="t1", base_dir=str(tmp_path))
    assert "state_card" not in [s["name"] for s in plain.get_tool_schemas()]
    names = [s["name"] for s in provider(vault, tmp_path).get_tool_schemas()]
    assert names[-2:] == ["state_card", "task_board"]


def test_the_model_updates_its_own_sessions_card(vault: Vault, tmp_path: Path) -> None:
    p = provider(vault, tmp_path, thread="t1")
    done = call(p, "state_card", {"action": "update", "goal": "ship", "decisions": ["PEG"]})
    assert done["success"] and done["card"]["revision"] == 1
    again = call(
        p, "state_card", '{"action": "update", "next_step": "tests", "expected_revision": 1}'
    )
    assert again["card"]["revision"] == 2 and again["card"]["goal"] == "ship"
    stale = call(p, "state_card", {"action": "update", "goal": "x", "expected_revision": 1})
    assert stale["success"] is False and "revision 2, not 1" in stale["error"]
    assert "action 'get'" in stale["error"]
    # It is the thread's card, saved by the model, and no other user's.
    session = thread_session("t1")
    assert session is not None
    revisions = vault.card_revisions(user_id="alice", session_id=session)
    assert [r.actor for r in revisions] == ["model", "model"]
    assert vault.workspace.card(user_id="bob", session_id=session).revision == 0
    got = call(p, "state_card", {"action": "get"})
    assert got["card"]["next_step"] == "tests" and got["card"]["decisions"] == ["PEG"]


def test_the_model_cannot_pick_another_session_or_send_bad_arguments(
    vault: Vault, tmp_path: Path
) -> None:
    p = provider(vault, tmp_path)
    other = call(p, "state_card", {"action": "update", "goal": "x", "session_id": "s2"})
    assert other["success"] is False and "this conversation" in other["error"]
    assert vault.workspace.card(user_id="alice", session_id="s2").revision == 0
    for args, words in [
        ({"action": "update"}, "at least one of"),
        ({"action": "update", "mood": "x"}, "unknown parameters"),
        ({"action": "update", "decisions": "one"}, "list of short texts"),
        ({"action": "update", "goal": "x" * 5000}, "over the limit"),
        ({"action": "drop"}, "get or update"),
        ("not json", "not valid JSON"),
    ]:
        result = call(p, "state_card", args)
        assert result["success"] is False and words in result["error"], (args, result)


def test_the_board_is_the_workspace_of_the_session(vault: Vault, tmp_path: Path) -> None:
    p = provider(vault, tmp_path, thread="t1", workspace_id="w1")
    made = call(p, "task_board", {"action": "create", "title": "write the lexer"})
    assert made["success"] and made["task"]["this_conversation"] is True
    vault.add_task(user_id="alice", workspace_id="w1", session_id="t2", title="parser")
    hidden = vault.add_task(user_id="alice", workspace_id="w2", session_id="t9", title="other")
    listed = call(p, "task_board", {"action": "list"})
    assert listed["workspace_id"] == "w1"
    assert [(t["title"], t["this_conversation"]) for t in listed["tasks"]] == [
        ("write the lexer", True),
        ("parser", False),
    ]
    moved = call(
        p, "task_board", {"action": "update", "task_id": made["task"]["id"], "status": "doing"}
    )
    assert moved["task"]["status"] == "doing"
    assert call(p, "task_board", {"action": "list", "status": "doing"})["count"] == 1
    elsewhere = call(p, "task_board", {"action": "update", "task_id": hidden.id, "title": "mine"})
    assert elsewhere["success"] is False and "no task" in elsewhere["error"]
    assert vault.workspace.task(user_id="alice", task_id=hidden.id).title == "other"
    bad = call(p, "task_board", {"action": "create", "title": "x", "status": "someday"})
    assert bad["success"] is False and "status" in bad["error"]


def test_a_session_without_a_workspace_has_no_board_until_one_links_it(
    vault: Vault, tmp_path: Path
) -> None:
    p = provider(vault, tmp_path, thread="t1")
    none = call(p, "task_board", {"action": "list"})
    assert none["success"] is False and "no workspace" in none["error"]
    vault.add_task(user_id="alice", workspace_id="w5", session_id="t1", title="from a person")
    listed = call(p, "task_board", {"action": "list"})
    assert listed["workspace_id"] == "w5" and listed["count"] == 1


def test_a_new_thread_is_another_card(vault: Vault, tmp_path: Path) -> None:
    p = provider(vault, tmp_path, thread="t1")
    call(p, "state_card", {"action": "update", "goal": "first"})
    p.on_session_switch("t2", reset=True)
    assert call(p, "state_card", {"action": "get"})["card"]["revision"] == 0
    p.on_session_switch("t2-branch", parent_thread_id="t2")
    call(p, "state_card", {"action": "update", "goal": "second"})
    assert vault.workspace.card(user_id="alice", session_id="t2").content.goal == "second"


def test_the_mcp_schemas_name_the_session() -> None:
    for schema in (STATE_CARD_SCHEMA, TASK_BOARD_SCHEMA):
        assert "session_id" not in schema["parameters"]["properties"]
        mcp = with_session(schema)["parameters"]
        assert "session_id" in mcp["required"] and mcp["additionalProperties"] is False


async def _mcp(vault: Vault, home: Path) -> None:
    async with in_process(vault, "alice", home) as session:

        async def call_tool(name: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
            result = await session.call_tool(name, args)
            return bool(result.is_error), json.loads(result.content[0].text)  # type: ignore[union-attr]

        err, card = await call_tool(
            "state_card", {"action": "update", "session_id": "s1", "goal": "ship it"}
        )
        assert not err and card["card"]["revision"] == 1
        err, missing = await call_tool("state_card", {"action": "get"})
        assert err and "session_id" in missing["error"]
        vault.add_task(user_id="alice", workspace_id="w1", session_id="s1", title="lexer")
        err, board = await call_tool("task_board", {"action": "list", "session_id": "s1"})
        assert not err and [t["title"] for t in board["tasks"]] == ["lexer"]
        err, made = await call_tool(
            "task_board", {"action": "create", "session_id": "s1", "title": "parser"}
        )
        assert not err and made["task"]["session_id"] == "s1"
    async with in_process(vault, "bob", home) as session:
        result = await session.call_tool("state_card", {"action": "get", "session_id": "s1"})
        assert json.loads(result.content[0].text)["card"]["revision"] == 0  # type: ignore[union-attr]


def test_the_mcp_server_has_both_tools(vault: Vault, config: VaultConfig) -> None:
    anyio.run(_mcp, vault, config.home)
    assert len(vault.tasks(user_id="alice", workspace_id="w1")) == 2


def test_the_card_sits_on_top_of_the_prefetched_block(vault: Vault, tmp_path: Path) -> None:
    vault.add("the billing export writes CSV files", user_id="alice")
    p = provider(vault, tmp_path, workspace_id="w1")
    before = p.prefetch("billing export")
    assert "CSV" in before and "State card" not in before  # no card yet: recall only
    saved = call(p, "state_card", {"action": "update", "goal": "Ship the billing export"})
    assert saved["success"] is True, saved
    block = p.prefetch("billing export")
    assert block.index("Ship the billing export") < block.index("CSV")  # the card first
    # another thread has its own (empty) card; bob never sees alice's
    assert "Ship the billing" not in p.prefetch("billing export", thread_id="t2")
    bob = VaultProvider(vault, workspace_tools=True)
    bob.initialize(user_id="bob", thread_id="t1", base_dir=str(tmp_path))
    assert "Ship the billing" not in bob.prefetch("billing export")
    # hosts that did not opt in, or turned the card off, get recall only
    plain = VaultProvider(vault)
    plain.initialize(user_id="alice", thread_id="t1", base_dir=str(tmp_path))
    assert "Ship the billing" not in plain.prefetch("billing export")
    off = VaultProvider(vault, workspace_tools=True, card_tokens=0)
    off.initialize(user_id="alice", thread_id="t1", base_dir=str(tmp_path))
    assert "Ship the billing" not in off.prefetch("billing export")
