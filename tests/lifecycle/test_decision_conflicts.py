"""Conflicts with adopted decisions (issue 16 item 5): recorded on both sides, shown by
recall, adopted over the older decision only by a person, decided by the LLM when one is
configured; and the model's ``memory_decision`` tool. Real SQLite files and the in-memory
store, the real gateway, a loopback chat-completions server for the LLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault import DecisionStatus, Vault, VaultConfig, load_config
from memvault.agent.tools.vault import VaultTools
from memvault.errors import ValidationError
from tests.cli_process import run_cli
from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.gateway_server import live_gateway

S = DecisionStatus
PG = "Use PostgreSQL for the main database"
MYSQL = "Use MySQL for the main database"


def _adopted(vault: Vault, text: str = PG, user: str = "alice", **kw: object) -> str:
    return vault.add(text, user_id=user, kind="project", status="adopted", **kw).id  # type: ignore[arg-type]


def test_a_decision_on_the_same_question_is_recorded_as_a_conflict(vault: Vault) -> None:
    old = _adopted(vault)
    new = vault.add(MYSQL, user_id="alice", kind="project", status="proposed")
    assert new.metadata["conflicts_with"] == [old]
    for side in (new.id, old):  # filed under both decisions
        [conflict] = vault.conflicts(side, user_id="alice")
        assert (conflict.decision_id, conflict.adopted_id, conflict.method) == (
            new.id,
            old,
            "words",
        )
    block = vault.context("which main database do we use", user_id="alice")
    assert f"(decision: proposed; conflicts with adopted decision {old})" in block
    assert "(decision: adopted)" in block
    assert vault.get(old, user_id="alice").status == S.ADOPTED  # nothing overturned


def test_decisions_on_other_questions_do_not_conflict(vault: Vault) -> None:
    _adopted(vault)
    other = vault.add("Release every second Tuesday", user_id="alice", status="proposed")
    assert "conflicts_with" not in other.metadata
    assert vault.conflicts(other.id, user_id="alice") == []
    plain = vault.add("Use MySQL for the analytics side project", user_id="alice")
    assert "conflicts_with" not in plain.metadata  # not a decision: never compared


def test_a_person_adopting_it_supersedes_the_older_decision(vault: Vault) -> None:
    old = _adopted(vault)
    new = vault.add(MYSQL, user_id="alice", kind="project", status="pending")
    adopted = vault.decide(new.id, "adopted", user_id="alice", reason="the team moved")
    assert adopted.status == S.ADOPTED
    assert vault.get(old, user_id="alice").status == S.SUPERSEDED
    [created, moved] = vault.decision_history(old, user_id="alice")
    assert (created.from_status, created.to_status) == (None, S.ADOPTED)
    assert (moved.from_status, moved.to_status) == (S.ADOPTED, S.SUPERSEDED)
    assert new.id in moved.reason
    assert [m.to_status for m in vault.decision_history(new.id, user_id="alice")] == [
        S.PENDING,
        S.ADOPTED,
    ]
    # Recall no longer says it conflicts: it is what was decided now.
    assert "conflicts with" not in vault.context("main database", user_id="alice")


def test_writing_it_as_adopted_by_a_person_supersedes_too(vault: Vault) -> None:
    old = _adopted(vault)
    new = vault.add(MYSQL, user_id="alice", kind="project", status="adopted")
    assert new.metadata["conflicts_with"] == [old]
    assert vault.get(old, user_id="alice").status == S.SUPERSEDED


def test_the_model_cannot_adopt_over_an_adopted_decision(vault: Vault) -> None:
    old = _adopted(vault)
    new = vault.add(MYSQL, user_id="alice", kind="project", status="proposed", source="tool")
    before = list(vault.export(user_id="alice"))
    with pytest.raises(ValidationError) as err:
        vault.decide(new.id, "adopted", user_id="alice", by_user=False, actor="model")
    assert old in str(err.value) and "ask the user" in str(err.value)
    assert list(vault.export(user_id="alice")) == before
    # Written as adopted by the model: refused, nothing stored.
    with pytest.raises(ValidationError):
        vault.add(MYSQL, user_id="alice", status="adopted", source="tool")
    assert vault.count(user_id="alice") == 2


def test_a_decision_adopted_later_is_found_when_the_other_is_adopted(vault: Vault) -> None:
    early = vault.add(MYSQL, user_id="alice", kind="project", status="proposed")
    assert "conflicts_with" not in early.metadata  # nothing adopted yet
    old = _adopted(vault)
    with pytest.raises(ValidationError):
        vault.decide(early.id, "adopted", user_id="alice", by_user=False)
    vault.decide(early.id, "adopted", user_id="alice")
    assert vault.get(old, user_id="alice").status == S.SUPERSEDED
    assert vault.get(early.id, user_id="alice").metadata["conflicts_with"] == [old]
    assert [c.adopted_id for c in vault.conflicts(early.id, user_id="alice")] == [old]


def test_update_to_adopted_follows_the_same_rule(vault: Vault) -> None:
    old = _adopted(vault)
    new = vault.add(MYSQL, user_id="alice", kind="project", status="exploring")
    vault.update(new.id, user_id="alice", status="adopted")
    assert vault.get(old, user_id="alice").status == S.SUPERSEDED


def test_other_users_and_other_agents_decisions_never_conflict(vault: Vault) -> None:
    _adopted(vault, user="bob")
    mine = vault.add(MYSQL, user_id="alice", status="proposed")
    assert "conflicts_with" not in mine.metadata
    _adopted(vault, user="carol", agent_id="planner")  # private to the planner agent
    other_agent = vault.add(MYSQL, user_id="carol", agent_id="coder", status="proposed")
    assert "conflicts_with" not in other_agent.metadata
    same_agent = vault.add(MYSQL, user_id="carol", agent_id="planner", status="proposed")
    assert len(same_agent.metadata["conflicts_with"]) == 1


def test_detection_can_be_turned_off(config: VaultConfig) -> None:
    cfg = config.model_copy(
        update={"decisions": config.decisions.model_copy(update={"detect_conflicts": False})}
    )
    with Vault(":memory:", config=cfg, embedder=None) as vault:
        old = _adopted(vault)
        new = vault.add(MYSQL, user_id="alice", status="adopted")
        assert "conflicts_with" not in new.metadata
        assert vault.get(old, user_id="alice").status == S.ADOPTED


def _llm_vault(config: VaultConfig, base_url: str) -> Vault:
    cfg = config.model_copy(
        update={"llm": load_config(llm={"base_url": base_url, "model": "m", "api_key": "test"}).llm}
    )
    return Vault(":memory:", config=cfg, embedder=None)


def test_the_llm_decides_which_close_decisions_really_conflict(config: VaultConfig) -> None:
    with FakeChatServer() as chat, _llm_vault(config, chat.base_url) as vault:
        old = _adopted(vault)
        chat.replies = [Reply.text('```json\n{"conflicts": []}\n```')]
        added = vault.add(
            "Use PostgreSQL replicas for the main database", user_id="alice", status="proposed"
        )
        assert "conflicts_with" not in added.metadata  # same words, but the model says no
        prompt = chat.requests[-1]["messages"][1]["content"]
        assert PG in prompt and "PostgreSQL replicas" in prompt and old in prompt
        chat.replies = [Reply.text(f'The conflict: {{"conflicts": ["{old}",]}}')]
        other = vault.add("Move the main store off Postgres", user_id="alice", status="proposed")
        assert other.metadata["conflicts_with"] == [old]
        assert vault.conflicts(other.id, user_id="alice")[0].method == "llm"


def test_without_a_usable_llm_answer_the_word_rule_decides(config: VaultConfig) -> None:
    with FakeChatServer() as chat, _llm_vault(config, chat.base_url) as vault:
        old = _adopted(vault)
        chat.replies = [Reply.text("I think they might conflict."), Reply.text("Maybe.")]
        new = vault.add(MYSQL, user_id="alice", status="proposed")
        assert new.metadata["conflicts_with"] == [old]
        assert vault.conflicts(new.id, user_id="alice")[0].method == "words"
    with _llm_vault(config, "http://127.0.0.1:9/v1") as vault:  # nothing listens there
        old = _adopted(vault)
        new = vault.add(MYSQL, user_id="alice", status="proposed")
        assert new.metadata["conflicts_with"] == [old]


def test_the_memory_decision_tool(vault: Vault) -> None:
    tools = VaultTools(vault, user_id="alice")

    def call(args: dict[str, object]) -> dict[str, object]:
        return json.loads(tools.call("memory_decision", args))

    old = call({"action": "propose", "name": "database", "content": PG, "status": "adopted"})
    assert old["success"] and old["decision"]["status"] == "adopted"  # type: ignore[index]
    old_id = old["decision"]["id"]  # type: ignore[index]
    new = call({"action": "propose", "content": MYSQL})
    decision = new["decision"]
    assert decision["status"] == "proposed" and decision["conflicts_with"] == [old_id]  # type: ignore[index]
    assert "invalid" not in decision["next"]  # type: ignore[index]
    refused = call({"action": "move", "id": decision["id"], "status": "adopted"})  # type: ignore[index]
    assert refused["success"] is False and old_id in refused["error"]  # type: ignore[operator]
    assert call({"action": "move", "id": decision["id"], "status": "invalid"})["success"] is False  # type: ignore[index]
    moved = call(
        {"action": "move", "id": decision["id"], "status": "rejected", "reason": "too late"}
    )  # type: ignore[index]
    assert moved["decision"]["status"] == "rejected"  # type: ignore[index]
    history = call({"action": "history", "id": decision["id"]})  # type: ignore[index]
    assert [m["to"] for m in history["moves"]] == ["proposed", "rejected"]  # type: ignore[index]
    assert history["moves"][1]["actor"] == "model" and history["moves"][1]["reason"] == "too late"  # type: ignore[index]
    assert [c["adopted_id"] for c in history["conflicts"]] == [old_id]  # type: ignore[index]
    assert call({"action": "vote"})["success"] is False
    assert call({"action": "propose"})["success"] is False
    assert call({"action": "move", "id": "f" * 32, "status": "pending"})["success"] is False
    assert call({"action": "propose", "content": "x", "colour": "red"})["success"] is False
    # Another user's decision is not there for this user's tools.
    bob = VaultTools(vault, user_id="bob")
    gone = json.loads(bob.call("memory_decision", {"action": "history", "id": old_id}))
    assert gone["success"] is False and "no memory" in gone["error"]


def test_http_and_cli_show_the_conflicts(config: VaultConfig, tmp_path: Path) -> None:
    with live_gateway(config) as live:
        alice = live.client(live.alice)
        old = alice.post("/v1/memories", json={"content": PG, "status": "adopted"}).json()
        new = alice.post("/v1/memories", json={"content": MYSQL, "status": "proposed"}).json()
        state = alice.get(f"/v1/memories/{new['id']}/decision").json()
        assert [c["adopted_id"] for c in state["conflicts"]] == [old["id"]]
        assert live.client(live.bob).get(f"/v1/memories/{new['id']}/decision").status_code == 404
    home = tmp_path / "cli"
    old = json.loads(run_cli(home, "add", PG, "--user", "alice", "--json").stdout)
    run_cli(home, "decide", old["id"], "adopted", "--user", "alice")
    new = json.loads(run_cli(home, "add", MYSQL, "--user", "alice", "--json").stdout)
    run_cli(home, "decide", new["id"], "proposed", "--user", "alice")
    adopted = run_cli(home, "decide", new["id"], "adopted", "--user", "alice")
    assert adopted.returncode == 0
    shown = run_cli(home, "decision-history", old["id"], "--user", "alice").stdout
    assert "adopted -> superseded" in shown and f"{new['id']} conflicts with adopted" in shown
