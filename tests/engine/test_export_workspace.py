"""A whole export carries the workspace: state cards with every revision and the tasks of
every board, after the memory lines; an import takes all three back in one store
transaction, or nothing. On each backend of ``STORE_BACKENDS`` (the round trip goes
through the store protocol only), then through the HTTP gateway and the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memvault import Vault, load_config
from memvault.errors import ConflictError, ImportFormatError, StoreError, ValidationError
from memvault.server.state import ServerSettings
from tests.cli_process import run_cli
from tests.gateway_server import Live


def seed(v: Vault, user: str = "alice") -> None:
    """Two memories, a card revised three times in workspace w1, a card tied to no
    workspace, and three tasks on two boards."""
    v.add(f"{user} writes Go services", user_id=user)
    v.add(f"{user} lives in Lisbon", user_id=user, session_id="s1")
    v.upsert_card(user_id=user, session_id="s1", goal="Ship the parser", workspace_id="w1")
    v.upsert_card(user_id=user, session_id="s1", decisions=["PEG"], fields={"branch": "p2"})
    v.upsert_card(
        user_id=user, session_id="s1", progress="lexer done", fields={"branch": None}, actor="ui"
    )
    v.upsert_card(user_id=user, session_id="loose", next_step="read the paper")
    first = v.add_task(user_id=user, workspace_id="w1", session_id="s1", title="Write tests")
    v.move_task(user_id=user, task_id=first.id, status="doing")
    v.add_task(user_id=user, workspace_id="w1", session_id="s2", title="Docs", notes="README")
    v.add_task(user_id=user, workspace_id="w2", session_id="s3", title="Plant tulips")


def lines_of(v: Vault, user: str = "alice", **kw: Any) -> list[str]:
    return [json.dumps(r) for r in v.export(user_id=user, workspace=True, **kw)]


def workspace(v: Vault, user: str) -> dict[str, Any]:
    """Everything of the user's workspace that must survive a round trip."""
    sessions = v.workspace_sessions(user_id=user)
    cards = {
        s.session_id: (
            v.workspace.card(user_id=user, session_id=s.session_id).workspace_id,
            [
                (r.revision, r.content, r.actor, r.changed_at, r.changes)
                for r in v.card_revisions(user_id=user, session_id=s.session_id)
            ],
        )
        for s in sessions
        if s.card_revision
    }
    tasks = sorted(
        (t.id, t.workspace_id, t.session_id, t.title, t.notes, t.status, t.created_at, t.updated_at)
        for t in v.tasks(user_id=user)
    )
    return {"cards": cards, "tasks": tasks}


def nothing_of(v: Vault, user: str) -> bool:
    return (
        v.count(user_id=user, include_superseded=True) == 0
        and not v.workspace_sessions(user_id=user)
        and not v.tasks(user_id=user)
    )


# -- the round trip ---------------------------------------------------------------------


def test_export_then_erase_then_import_keeps_cards_with_revisions_and_tasks(vault: Vault) -> None:
    seed(vault)
    before = workspace(vault, "alice")
    memories = sorted(e.id for e in vault.list(user_id="alice"))
    lines = lines_of(vault)
    kinds = [json.loads(line).get("record", "memory") for line in lines]
    assert kinds == ["memory"] * 2 + ["card"] * 2 + ["task"] * 3
    assert len(before["cards"]["s1"][1]) == 3

    vault.erase_user(user_id="alice")
    assert nothing_of(vault, "alice")
    report = vault.import_report(lines, user_id="alice")

    assert (report.cards, report.card_revisions, report.tasks) == (2, 4, 3)
    assert sorted(e.id for e in report.memories) == memories
    assert workspace(vault, "alice") == before
    assert vault.workspace.card(user_id="alice", session_id="s1").workspace_id == "w1"
    assert vault.workspace.card(user_id="alice", session_id="loose").workspace_id is None
    # Exported again, the workspace is the same lines (a task's revision restarts at 1).
    assert _without_task_revisions(lines_of(vault)) == _without_task_revisions(lines)
    # A task goes on from revision 1, the card from its last revision.
    doing = next(t for t in vault.tasks(user_id="alice") if t.title == "Write tests")
    assert doing.revision == 1 and doing.status == "doing"
    assert vault.move_task(user_id="alice", task_id=doing.id, status="done").revision == 2
    assert vault.upsert_card(user_id="alice", session_id="s1", goal="v2").revision == 4


def _without_task_revisions(lines: list[str]) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in lines]
    return [
        {k: v for k, v in r.items() if not (r.get("record") == "task" and k == "revision")}
        for r in records
        if "record" in r
    ]


def test_import_returns_the_memories_as_before_and_takes_the_workspace_too(vault: Vault) -> None:
    seed(vault)
    lines = lines_of(vault)
    imported = vault.import_(lines, user_id="carol")
    assert [e.content for e in imported] == ["alice writes Go services", "alice lives in Lisbon"]
    assert len(vault.tasks(user_id="carol")) == 3


def test_an_old_export_of_memories_only_still_imports(vault: Vault) -> None:
    seed(vault)
    old = [json.dumps(r) for r in vault.export(user_id="alice")]  # no workspace: as before
    assert all("record" not in json.loads(line) for line in old) and len(old) == 2
    report = vault.import_report(old, user_id="carol")
    assert (len(report.memories), report.cards, report.tasks) == (2, 0, 0)
    # "record": "memory" says the same as no record key.
    marked = {**json.loads(old[0]), "record": "memory", "id": "0123456789abcdef"}
    (entry,) = vault.import_([marked], user_id="dave")
    assert entry.id == "0123456789abcdef" and entry.content == "alice writes Go services"


def test_the_workspace_is_exported_only_by_the_user_without_an_agent(vault: Vault) -> None:
    seed(vault)
    with pytest.raises(ValidationError, match="without agent_id"):
        list(vault.export(user_id="alice", agent_id="bot", workspace=True))
    card = next(line for line in lines_of(vault) if '"card"' in line)
    with pytest.raises(ImportFormatError, match="not an agent's") as refused:
        vault.import_report([card], user_id="carol", workspace=False)
    assert refused.value.context["line"] == 1 and nothing_of(vault, "carol")


# -- all or nothing ---------------------------------------------------------------------


def _card_at(lines: list[str]) -> int:
    """Where the card of session s1 (three revisions, in workspace w1) is."""
    records = [json.loads(line) for line in lines]
    return next(
        i for i, r in enumerate(records) if r.get("record") == "card" and r["session_id"] == "s1"
    )


def _card_line(lines: list[str]) -> dict[str, Any]:
    return dict(json.loads(lines[_card_at(lines)]))


def _task_line(lines: list[str]) -> dict[str, Any]:
    return next(json.loads(line) for line in lines if '"task"' in line)


def _tampered_changes(c: dict[str, Any]) -> None:
    c["revisions"][1]["changes"] = []


def _renumbered(c: dict[str, Any]) -> None:
    c["revisions"][1]["revision"] = 3


def _stale_top(c: dict[str, Any]) -> None:
    c["card"]["goal"] = "another goal"


def _unknown_part(c: dict[str, Any]) -> None:
    c["revisions"][0]["card"]["mood"] = "fine"


def _no_history(c: dict[str, Any]) -> None:
    c["revisions"] = []


def _bad_session(c: dict[str, Any]) -> None:
    c["session_id"] = "../etc"


def _bad_actor(c: dict[str, Any]) -> None:
    c["revisions"][0]["actor"] = ""


BROKEN_CARDS: dict[str, Callable[[dict[str, Any]], None]] = {
    "changes-edited": _tampered_changes,
    "revisions-renumbered": _renumbered,
    "top-disagrees": _stale_top,
    "unknown-part": _unknown_part,
    "no-revisions": _no_history,
    "bad-session-id": _bad_session,
    "empty-actor": _bad_actor,
}


@pytest.mark.parametrize("breaking", BROKEN_CARDS.values(), ids=BROKEN_CARDS.keys())
def test_a_broken_card_line_imports_nothing_memories_included(
    vault: Vault, breaking: Callable[[dict[str, Any]], None]
) -> None:
    seed(vault)
    lines = lines_of(vault)
    at = _card_at(lines)
    card = json.loads(lines[at])
    breaking(card)
    lines[at] = json.dumps(card)
    with pytest.raises(ImportFormatError) as refused:
        vault.import_report(lines, user_id="carol")
    assert refused.value.context["line"] == at + 1
    assert f"line {at + 1}" in str(refused.value) and "nothing was imported" in str(refused.value)
    assert nothing_of(vault, "carol")


BROKEN_TASKS: dict[str, tuple[dict[str, Any], str]] = {
    "status": ({"status": "someday"}, "status"),
    "title": ({"title": "  "}, "title"),
    "times": ({"updated_at": "2001-01-01T00:00:00+00:00"}, "before created_at"),
    "unknown-field": ({"priority": 1}, "unknown fields"),
    "revision": ({"revision": 0}, "revision"),
    "no-workspace": ({"workspace_id": None}, "workspace_id"),
    "no-time": ({"created_at": None}, "created_at is required"),
    "no-title": ({"title": None}, "title is empty"),
}


@pytest.mark.parametrize(("change", "said"), BROKEN_TASKS.values(), ids=BROKEN_TASKS.keys())
def test_a_broken_task_line_imports_nothing(
    vault: Vault, change: dict[str, Any], said: str
) -> None:
    seed(vault)
    lines = lines_of(vault)
    lines.append(json.dumps({**_task_line(lines), "id": "tnew", **change}))
    with pytest.raises(ImportFormatError, match=said) as refused:
        vault.import_report(lines, user_id="carol")
    assert refused.value.context["line"] == len(lines)
    assert nothing_of(vault, "carol")


def test_a_task_whose_session_is_in_another_workspace_than_its_card_is_refused(
    vault: Vault,
) -> None:
    seed(vault)
    lines = lines_of(vault)
    card = _card_line(lines)
    task = {**_task_line(lines), "id": "tother", "session_id": card["session_id"]}
    task["workspace_id"] = "elsewhere"
    lines.append(json.dumps(task))
    card_at = _card_at(lines) + 1
    with pytest.raises(ImportFormatError) as refused:
        vault.import_report(lines, user_id="carol")
    message = str(refused.value)
    assert refused.value.context["line"] == len(lines)
    assert f"line {len(lines)}" in message and f"line {card_at} puts it in 'w1'" in message
    assert nothing_of(vault, "carol")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"record": "note", "text": "hi"}, "record 'note', not one of memory, card, task"),
        ({"record": 7}, "record 7"),
    ],
)
def test_an_unknown_record_is_refused(vault: Vault, line: dict[str, Any], said: str) -> None:
    seed(vault)
    lines = [*lines_of(vault), json.dumps(line)]
    with pytest.raises(ImportFormatError, match=said):
        vault.import_report(lines, user_id="carol")
    assert nothing_of(vault, "carol")


def test_repeated_cards_and_tasks_are_refused(vault: Vault) -> None:
    seed(vault)
    lines = lines_of(vault)
    for repeated in (_card_line(lines), _task_line(lines)):
        with pytest.raises(ImportFormatError, match="repeats"):
            vault.import_report([*lines, json.dumps(repeated)], user_id="carol")
    assert nothing_of(vault, "carol")


def test_conflicts_refuse_everything_unless_skipped(vault: Vault) -> None:
    seed(vault)
    lines = lines_of(vault)
    # Only the workspace clashes: the memories alone would import.
    cards_and_tasks = [line for line in lines if '"record"' in line]
    vault.import_report(cards_and_tasks[:1], user_id="carol")  # one card carol has already
    memories = [line for line in lines if '"record"' not in line]
    with pytest.raises(ConflictError, match="state cards") as clash:
        vault.import_report([*memories, *cards_and_tasks], user_id="carol")
    assert clash.value.remedy == "import.skip_existing"
    assert vault.count(user_id="carol") == 0 and not vault.tasks(user_id="carol")

    skipped = vault.import_report(lines, user_id="carol", on_conflict="skip")
    assert (len(skipped.memories), skipped.cards, skipped.tasks) == (2, 1, 3)
    assert workspace(vault, "carol") == workspace(vault, "alice")
    again = vault.import_report(lines, user_id="carol", on_conflict="skip")
    assert (len(again.memories), again.cards, again.tasks) == (0, 0, 0)
    with pytest.raises(ConflictError, match="tasks"):
        vault.import_report([line for line in lines if '"task"' in line], user_id="carol")


def test_a_session_the_importer_has_in_another_workspace_refuses_everything(
    vault: Vault,
) -> None:
    seed(vault)
    vault.add_task(user_id="carol", workspace_id="mine", session_id="s3", title="Mine")
    with pytest.raises(ConflictError, match="in workspace 'mine' already") as clash:
        vault.import_report(lines_of(vault), user_id="carol", on_conflict="skip")
    assert clash.value.context["session_id"] == "s3"
    assert vault.count(user_id="carol") == 0
    assert [t.title for t in vault.tasks(user_id="carol")] == ["Mine"]


def test_a_store_failure_on_the_memories_undoes_the_cards_and_tasks_written_before(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workspace is written first, then the memories, in one transaction: the disk
    failing on the memories' insert leaves no card and no task behind."""
    seed(vault)
    lines = lines_of(vault)
    reached: list[int] = []

    def failing_disk(*args: Any, **kwargs: Any) -> None:
        reached.append(len(vault.tasks(user_id="carol")))  # written, not yet committed
        raise StoreError("disk I/O error")

    monkeypatch.setattr(vault.store, "insert", failing_disk)
    with pytest.raises(StoreError):
        vault.import_report(lines, user_id="carol")
    monkeypatch.undo()
    assert reached == [3] and nothing_of(vault, "carol")


def test_the_import_joins_a_callers_transaction(vault: Vault) -> None:
    """Inside a transaction of the caller's that is then undone, nothing of it stays."""
    seed(vault)
    lines = lines_of(vault)

    class Undo(Exception):
        pass

    with pytest.raises(Undo), vault.store.atomic():
        report = vault.import_report(lines, user_id="carol")
        assert report.tasks == 3 and len(vault.tasks(user_id="carol")) == 3
        raise Undo
    assert nothing_of(vault, "carol")


# -- isolation --------------------------------------------------------------------------


def test_an_export_holds_the_users_own_workspace_only(vault: Vault) -> None:
    seed(vault, "alice")
    seed(vault, "bob")
    vault.upsert_card(user_id="bob", session_id="bob-only", goal="bob's secret plan")
    lines = lines_of(vault, "alice")
    assert "bob" not in "\n".join(lines)
    assert all(json.loads(line).get("user_id", "alice") == "alice" for line in lines)

    # A line naming another user is the importer's all the same.
    forged = [json.dumps({**json.loads(line), "user_id": "bob"}) for line in lines]
    bob_before = workspace(vault, "bob")
    vault.import_report(forged, user_id="carol")
    assert workspace(vault, "carol") == workspace(vault, "alice")
    assert workspace(vault, "bob") == bob_before
    assert all(t.user_id == "carol" for t in vault.tasks(user_id="carol"))


# -- the surfaces -----------------------------------------------------------------------


@pytest.fixture
def gateway_settings() -> ServerSettings:
    return ServerSettings(max_body_bytes=256 * 1024)


def test_http_export_carries_the_workspace_and_import_reports_its_counts(live: Live) -> None:
    seed(live.vault, "alice")
    seed(live.vault, "bob")
    with live.client(live.alice) as alice, live.client(live.bob) as bob:
        exported = alice.get("/v1/memories/export")
        assert exported.status_code == 200
        records = [json.loads(line) for line in exported.text.splitlines()]
        assert [r.get("record", "memory") for r in records].count("card") == 2
        assert "bob" not in exported.text

        live.vault.erase_user(user_id="alice")
        done = alice.post("/v1/memories/import", content=exported.content)
        assert done.status_code == 201, done.text
        body = done.json()
        assert (body["imported"], body["cards"], body["tasks"]) == (2, 2, 3)
        assert len(live.vault.card_revisions(user_id="alice", session_id="s1")) == 3

        skip = alice.post(
            "/v1/memories/import", params={"on_conflict": "skip"}, content=exported.content
        )
        assert skip.json() == {"imported": 0, "ids": [], "cards": 0, "tasks": 0}
        clash = bob.post("/v1/memories/import", content=exported.content)
        assert clash.status_code == 409 and "on_conflict=skip" in clash.text

        # An agent's import takes memories only: a card line there says why.
        refused = alice.post(
            "/v1/memories/import",
            params={"agent_id": "bot"},
            content=json.dumps(records[2]).encode(),
        )
        assert refused.status_code in (400, 422) and "not an agent's" in refused.text
        agents = alice.get("/v1/memories/export", params={"agent_id": "bot"}).text
        assert agents.count("\n") == 2 and '"record"' not in agents

    with live.client(live.admin) as admin:
        acting = admin.get("/v1/memories/export", params={"user_id": "bob"})
        assert '"bob-only"' not in acting.text and acting.text.count('"record": "task"') == 3


def test_cli_export_and_import_report_cards_and_tasks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Vault(config=load_config(environ={}, home=home, embedding={"provider": "none"})) as v:
        seed(v)
    out = tmp_path / "alice.jsonl"
    exported = run_cli(home, "export", "--user", "alice", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    assert f"exported 2 memories, 2 state cards and 3 tasks to {out}" in exported.stderr
    imported = run_cli(home, "import", str(out), "--user", "carol")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == (
        "imported 2 memories, 2 state cards (4 revisions) and 3 tasks"
    )
    # Through --agent, the workspace's lines are refused and nothing is written.
    agent = run_cli(home, "import", str(out), "--user", "dave", "--agent", "bot")
    assert agent.returncode == 2 and "not an agent's" in agent.stderr
    with Vault(config=load_config(environ={}, home=home, embedding={"provider": "none"})) as v:
        assert workspace(v, "carol") == workspace(v, "alice")
        assert nothing_of(v, "dave")
