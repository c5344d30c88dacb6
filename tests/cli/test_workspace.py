"""`memvault card ...` and `memvault task ...`, run as the command line runs them
(``tests/cli_process.py``) against a real SQLite file: a card set part by part with its
revisions, the board's tasks added, moved, reassigned within their workspace only,
deleted; errors name the flag and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault import Vault, load_config
from tests.cli_process import run_cli


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def ok(home: Path, *args: str) -> str:
    done = run_cli(home, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refused(home: Path, *args: str) -> str:
    done = run_cli(home, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    return done.stderr


def test_a_card_set_shown_revised_and_deleted(home: Path) -> None:
    first = ok(
        home,
        *("card", "set", "--user", "alice", "--session", "chat-1"),
        *("--goal", "Ship the parser", "--decision", "PEG", "--decision", "no backtracking"),
        *("--field", "branch=p2", "--workspace", "compiler"),
    )
    assert first.strip() == "saved the card of chat-1 as revision 1"
    shown = ok(home, "card", "show", "--user", "alice", "--session", "chat-1")
    assert shown.startswith("card of chat-1 (workspace compiler): revision 1")
    assert "  goal: Ship the parser\n" in shown and "  decision: no backtracking\n" in shown
    assert "  field branch: p2\n" in shown and "by cli" in shown

    second = ok(
        home,
        *("card", "set", "-u", "alice", "-s", "chat-1", "--field", "branch="),
        *("--next-step", "write the lexer", "--expected-revision", "1", "--json"),
    )
    card = json.loads(second)
    assert (card["revision"], card["fields"], card["next_step"]) == (2, {}, "write the lexer")
    assert card["decisions"] == ["PEG", "no backtracking"] and card["actor"] == "cli"
    same = ok(home, "card", "set", "-u", "alice", "-s", "chat-1", "--goal", "Ship the parser")
    assert "nothing changed" in same and "revision 2" in same

    pinned = ("--goal", "x", "--expected-revision", "1")
    stale = refused(home, "card", "set", "-u", "alice", "-s", "chat-1", *pinned)
    assert "revision 2, not 1" in stale
    shapeless = refused(home, "card", "set", "-u", "alice", "-s", "c", "--field", "x")
    assert shapeless.startswith("error: --field 'x': write NAME=VALUE")

    history = ok(home, "card", "revisions", "--user", "alice", "--session", "chat-1")
    assert history.splitlines()[0].startswith("r1  ") and history.splitlines()[0].endswith("cli")
    assert "  decisions +'PEG' +'no backtracking'" in history
    assert (
        "  fields.branch 'p2' -> ''" in history and "  next_step '' -> 'write the lexer'" in history
    )
    revisions = json.loads(ok(home, "card", "revisions", "-u", "alice", "-s", "chat-1", "--json"))
    assert [r["revision"] for r in revisions] == [1, 2]

    # Another user's card of the same session id is another card: none.
    assert ok(home, "card", "show", "-u", "bob", "-s", "chat-1").strip() == (
        "no card for session chat-1"
    )
    assert "no conversations" in ok(home, "card", "list", "--user", "bob")

    listed = json.loads(ok(home, "card", "list", "--user", "alice", "--json"))
    assert [(s["session_id"], s["workspace_id"], s["card_revision"]) for s in listed] == [
        ("chat-1", "compiler", 2)
    ]
    assert ok(home, "card", "delete", "-u", "alice", "-s", "chat-1").strip() == (
        "deleted the card of chat-1"
    )
    again = refused(home, "card", "delete", "-u", "alice", "-s", "chat-1")
    assert "has no card" in again and "memvault card list --user alice" in again
    bad = refused(home, "card", "show", "-u", "alice", "-s", "no spaces")
    assert bad.startswith("error: --session 'no spaces' is not a valid id")


def test_the_task_board_from_the_command_line(home: Path) -> None:
    added = json.loads(
        ok(
            home,
            *("task", "add", "Write the lexer", "--user", "alice"),
            *("--workspace", "compiler", "--session", "chat-1", "--notes", "PEG", "--json"),
        )
    )
    assert (added["status"], added["session_id"], added["notes"]) == ("todo", "chat-1", "PEG")
    task_id = added["id"]
    other = ok(home, "task", "add", "Plant tulips", "-u", "alice", "-w", "garden", "-s", "chat-9")
    assert other.startswith("added t") and other.strip().endswith("[todo]  Plant tulips")

    moved = ok(home, "task", "move", task_id, "doing", "--user", "alice")
    assert moved.strip() == f"moved {task_id} to doing"
    assert refused(home, "task", "move", task_id, "someday", "-u", "alice").startswith(
        "error: STATUS 'someday' is not valid"
    )
    listed = ok(home, "task", "list", "--user", "alice", "--workspace", "compiler")
    assert listed.strip() == (
        f"{task_id}  [doing]  Write the lexer  (workspace compiler, session chat-1)"
    )
    doing = json.loads(ok(home, "task", "list", "-u", "alice", "--status", "doing", "--json"))
    assert [t["id"] for t in doing] == [task_id]

    assigned = ok(home, "task", "assign", task_id, "-u", "alice", "--session", "chat-2")
    assert assigned.strip() == f"{task_id} now belongs to session chat-2"
    across = refused(home, "task", "assign", task_id, "-u", "alice", "--session", "chat-9")
    assert across.startswith("error: --session: ")
    assert "belongs to workspace 'garden', not 'compiler'" in across
    stale = refused(
        home, "task", "assign", task_id, "-u", "alice", "-s", "chat-3", "--expected-revision", "1"
    )
    assert "is at revision 3, not 1" in stale

    assert refused(home, "task", "move", task_id, "done", "-u", "bob").startswith(
        f"error: no task '{task_id}' for user 'bob'"
    )
    assert ok(home, "task", "list", "-u", "bob").strip() == "no tasks"
    empty = refused(home, "task", "add", " ", "-u", "alice", "-w", "compiler", "-s", "chat-1")
    assert empty.startswith("error: TITLE is empty: say what the task is")

    assert ok(home, "task", "delete", task_id, "-u", "alice").strip() == f"deleted {task_id}"
    assert "memvault task list --user alice" in refused(
        home, "task", "delete", task_id, "-u", "alice"
    )
    with Vault(config=load_config(environ={}, home=home, embedding={"provider": "none"})) as v:
        assert [t.title for t in v.tasks(user_id="alice")] == ["Plant tulips"]
        assert v.workspace.session_workspace(user_id="alice", session_id="chat-2") is None
