"""The decision lifecycle (issue 16 item 5): every legal and illegal move, who may make
it, its history, and recall's demotion of dead decisions. Real SQLite files (and the
in-memory store), the real gateway and CLI."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from memvault import DecisionStatus, Vault, VaultConfig
from memvault.errors import NotFoundError, ValidationError
from memvault.lifecycle.decisions import MOVES, USER_ONLY, legal_moves
from tests.cli_process import run_cli
from tests.gateway_server import live_gateway

S = DecisionStatus
STARTS: list[S | None] = [None, *S]
_ids = itertools.count()


def _at(vault: Vault, status: S | None) -> str:
    """An entry of a fresh user whose decision status is ``status``, reached legally."""
    user = f"u{next(_ids)}"
    entry = vault.add("we use Postgres for the billing service", user_id=user)
    path: dict[S | None, list[S]] = {
        None: [],
        S.PROPOSED: [S.PROPOSED],
        S.EXPLORING: [S.EXPLORING],
        S.PENDING: [S.PENDING],
        S.ADOPTED: [S.ADOPTED],
        S.REJECTED: [S.REJECTED],
        S.SUPERSEDED: [S.ADOPTED, S.SUPERSEDED],
        S.INVALID: [S.PROPOSED, S.INVALID],
    }
    for step in path[status]:
        vault.decide(entry.id, step, user_id=user)
    assert vault.get(entry.id, user_id=user).status == status
    return f"{user}/{entry.id}"


@pytest.mark.parametrize("start", STARTS, ids=lambda s: s.value if s else "none")
@pytest.mark.parametrize("target", list(S), ids=lambda s: s.value)
def test_every_move(vault: Vault, start: S | None, target: S) -> None:
    user, entry_id = _at(vault, start).split("/")
    before = list(vault.export(user_id=user))
    legal_for_person = target in MOVES[start] and target != start
    legal_for_model = legal_for_person and target not in USER_ONLY
    # The model's tools first (by_user=False): refused moves write nothing.
    if legal_for_model:
        moved = vault.decide(entry_id, target, user_id=user, by_user=False, reason="model")
        assert moved.status == target
        return
    with pytest.raises(ValidationError) as err:
        vault.decide(entry_id, target, user_id=user, by_user=False)
    assert err.value.context["field"] == "status"
    assert list(vault.export(user_id=user)) == before
    if target in USER_ONLY and legal_for_person:
        assert "only a person" in err.value.message
    # A person may make every legal move, and no other.
    if legal_for_person:
        assert vault.decide(entry_id, target, user_id=user, reason="person").status == target
    else:
        with pytest.raises(ValidationError) as err:
            vault.decide(entry_id, target, user_id=user)
        legal = legal_moves(start, by_user=True)
        if target != start:
            assert ", ".join(m.value for m in legal) in err.value.message or not legal
        assert list(vault.export(user_id=user)) == before


def test_update_and_add_follow_the_lifecycle_too(vault: Vault) -> None:
    entry = vault.add("ship on Friday", user_id="alice", status="adopted")
    with pytest.raises(ValidationError) as err:
        vault.update(entry.id, user_id="alice", status="proposed")
    assert "superseded, invalid" in err.value.message
    with pytest.raises(ValidationError):
        vault.add("born superseded", user_id="alice", status="superseded")
    assert vault.update(entry.id, user_id="alice", status="superseded").status is S.SUPERSEDED
    # Importing an export keeps statuses as they were (it restores, it does not decide).
    records = list(vault.export(user_id="alice"))
    assert vault.import_(records, user_id="bob")[0].status is S.SUPERSEDED


def test_history_keeps_every_move_with_who_and_why(vault: Vault) -> None:
    entry = vault.add("use Kafka for events", user_id="alice")
    vault.decide(entry.id, "proposed", user_id="alice", actor="agent:coder", by_user=False)
    vault.decide(entry.id, "exploring", user_id="alice", reason="benchmarking: two options")
    vault.update(entry.id, user_id="alice", status="rejected")
    history = vault.decision_history(entry.id, user_id="alice")
    assert [(m.from_status, m.to_status, m.actor, m.reason) for m in history] == [
        (None, S.PROPOSED, "agent:coder", ""),
        (S.PROPOSED, S.EXPLORING, "owner", "benchmarking: two options"),
        (S.EXPLORING, S.REJECTED, "owner", ""),
    ]
    with pytest.raises(NotFoundError):
        vault.decision_history(entry.id, user_id="bob")


def test_rejected_superseded_and_invalid_decisions_are_demoted(vault: Vault) -> None:
    text = "the deploy target is the Frankfurt region"
    dead = [vault.add(text, user_id="alice") for _ in range(3)]
    live = vault.add(text, user_id="alice")
    vault.decide(dead[0].id, "rejected", user_id="alice")
    vault.decide(dead[1].id, "adopted", user_id="alice")
    vault.decide(dead[1].id, "superseded", user_id="alice")
    vault.decide(dead[2].id, "proposed", user_id="alice")
    vault.decide(dead[2].id, "invalid", user_id="alice")
    vault.decide(live.id, "adopted", user_id="alice")
    hits = vault.search("deploy target Frankfurt", user_id="alice", limit=4)
    assert hits[0].entry.id == live.id  # stored last, so last on an equal footing
    factors = {c.entry.id: c.tier for c in vault.explain("Frankfurt", user_id="alice").candidates}
    assert factors == {live.id: 1.0, **{d.id: pytest.approx(0.9) for d in dead}}


def test_http_and_cli(config: VaultConfig, tmp_path: Path) -> None:
    with live_gateway(config) as live:
        alice = live.client(live.alice)
        made = alice.post("/v1/memories", json={"content": "use gRPC between services"}).json()
        url = f"/v1/memories/{made['id']}/decision"
        assert alice.post(url, json={"status": "proposed"}).json()["status"] == "proposed"
        bad = alice.post(url, json={"status": "superseded"})
        assert bad.status_code == 422 and "legal moves" in bad.json()["error"]["message"]
        ok = alice.post(url, json={"status": "invalid", "reason": "we chose REST"})
        assert ok.status_code == 200 and ok.json()["status"] == "invalid"
        state = alice.get(url).json()
        assert state["status"] == "invalid" and state["legal_moves"] == []
        assert [h["to"] for h in state["history"]] == ["proposed", "invalid"]
        assert state["history"][1]["reason"] == "we chose REST"
        assert live.client(live.bob).get(url).status_code == 404
    home = tmp_path / "cli"
    added = json.loads(
        run_cli(home, "add", "deploy on Fridays", "--user", "alice", "--json").stdout
    )
    done = run_cli(home, "decide", added["id"], "adopted", "--user", "alice", "--reason", "agreed")
    assert done.returncode == 0 and "is adopted" in done.stdout
    wrong = run_cli(home, "decide", added["id"], "pending", "--user", "alice")
    assert wrong.returncode == 2 and "legal moves: superseded, invalid" in wrong.stderr
    history = json.loads(
        run_cli(home, "decision-history", added["id"], "--user", "alice", "--json").stdout
    )
    assert history == [
        {"at": history[0]["at"], "actor": "cli", "from": None, "to": "adopted", "reason": "agreed"}
    ]
