"""`memvault stats`, `memvault users`, `memvault entities graph`, `memvault list --sort
--created-after --created-before` and `memvault delete ID ID...` against real SQLite
files. They run the CLI's own entry point (``cli.main``: parsing, the command, exit code
and the one-line error) in this process, as a subprocess costs seconds here (the installed
command is started in ``tests/cli/test_console_script.py``). Errors name the flag to fix
and exit 2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault import Vault, cli, load_config
from tests.cli_process import run_cli

STORY = (
    "Caroline joined Project Helios in Berlin.",
    "Melanie visited Caroline in Berlin.",
    "Project Helios uses ClickHouse.",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "home"
    monkeypatch.setenv("MEMVAULT_HOME", str(where))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "none")
    monkeypatch.delenv("MEMVAULT_DB", raising=False)
    return where


@pytest.fixture
def vault(home: Path) -> Iterator[Vault]:
    """The vault the commands open (same home, same SQLite file), for setting up and
    for the answers to compare with."""
    with Vault(config=load_config(environ={}, home=home, embedding={"provider": "none"})) as v:
        yield v


def cli_run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = cli_run(capsys, *args)
    assert code == 0, err
    return out


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = cli_run(capsys, *args)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and "Traceback" not in err and err.count("\n") == 1
    return err


def test_stats_counts_one_users_memories(
    vault: Vault, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault.add("Alice writes Go services", user_id="alice", kind="project")
    vault.add("Alice lives in Lisbon", user_id="alice")
    vault.add("Bob plays chess", user_id="bob")

    data = json.loads(ok(capsys, "stats", "--user", "alice", "--days", "7", "--json"))
    expected = vault.stats(user_id="alice", days=7).to_dict()
    assert {**data, "at": None} == {**expected, "at": None}
    assert data["total"] == 2 and len(data["activity"]) == 7

    text = ok(capsys, "stats", "-u", "alice", "--days", "3")
    lines = text.splitlines()
    assert lines[0] == "user alice: 2 memories"
    assert "  by kind: user 1, project 1, feedback 0, reference 0" in lines
    assert "  vectors: none (keyword search only)" in lines
    assert "last 3 days: 2 written, 0 changed" in lines
    assert ok(capsys, "stats", "-u", "bob").splitlines()[0] == "user bob: 1 memory"
    assert ok(capsys, "stats", "-u", "nobody").splitlines()[0] == "user nobody: 0 memories"
    assert "last 1 day: 1 written, 0 changed" in ok(capsys, "stats", "-u", "bob", "--days", "1")

    # The configured embedder is named, not loaded: its missing vectors are counted.
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "local")
    local = json.loads(ok(capsys, "stats", "-u", "alice", "--json"))["embedding"]
    assert local["model"].startswith("bilingual-minilm-e5") and local["pending"] == 2
    assert "  vectors: 2 still to compute for bilingual-minilm-e5" in ok(
        capsys, "stats", "-u", "alice"
    )
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "none")

    assert refused(capsys, "stats", "-u", "alice", "--days", "0").startswith(
        "error: --days must be an integer from 1 to 366"
    )
    assert refused(capsys, "stats", "-u", "../x").startswith("error: --user ")


def test_users_lists_every_store_with_counts(
    vault: Vault, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ok(capsys, "users").strip() == "no users"
    vault.add_many([{"content": "one"}, {"content": "two"}], user_id="alice")
    vault.add("bob's", user_id="bob")
    # An agent with a store of its own: its memories count for their user too.
    ok(capsys, "agents", "set", "helper", "--store", str(tmp_path / "helper.db"))
    ok(capsys, "add", "--user", "carol", "--agent", "helper", "kept in the helper's store")
    ok(capsys, "add", "--user", "bob", "--agent", "helper", "bob's other")
    assert vault.count(user_id="carol") == 0  # not in the default store

    assert ok(capsys, "users").splitlines() == [
        "alice  2 memories",
        "bob    2 memories",
        "carol  1 memory",
        "3 users",
    ]
    page = json.loads(ok(capsys, "users", "--limit", "1", "--offset", "1", "--json"))
    assert page == {
        "items": [{"user_id": "bob", "memories": 2}],
        "total": 3,
        "limit": 1,
        "offset": 1,
    }
    assert ok(capsys, "users", "--limit", "2").splitlines()[-1] == "1-2 of 3 users"
    assert ok(capsys, "users", "--offset", "5").strip() == "no users past --offset 5"
    assert refused(capsys, "users", "--limit", "0").startswith("error: --limit ")


def test_entities_graph_draws_nodes_and_edges(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in STORY:
        vault.add(text, user_id="alice")
    vault.add("Bob met Zebulon in Kyoto.", user_id="bob")

    data = json.loads(ok(capsys, "entities", "graph", "--user", "alice", "--json"))
    assert data == vault.entity_graph(user_id="alice").to_dict()
    assert {n["name"] for n in data["nodes"]} == {
        "Caroline",
        "Berlin",
        "Project Helios",
        "Melanie",
        "ClickHouse",
    }

    text = ok(capsys, "entities", "graph", "-u", "alice", "--center", "melanie", "--depth", "1")
    lines = text.splitlines()
    assert lines[0] == "3 entities, 3 relations around Melanie, up to 1 away"
    assert "   2  unknown       Berlin  (1 away)" in lines
    assert "  Berlin --mentioned_with-- Caroline  (x2)" in lines
    small = ok(capsys, "entities", "graph", "-u", "alice", "--limit", "2").splitlines()
    assert small[0].startswith("2 entities") and small[-1] == (
        "more entities qualify than --limit 2 lets in"
    )

    # Another user's entity reads like one nobody has.
    assert "Zebulon" not in ok(capsys, "entities", "graph", "-u", "alice")
    missing = refused(capsys, "entities", "graph", "-u", "alice", "--center", "Zebulon")
    assert "no entity named 'Zebulon'" in missing and "Kyoto" not in missing
    bad = refused(capsys, "entities", "graph", "-u", "alice", "--center", "Berlin", "--depth", "9")
    assert bad.startswith("error: --depth must be an integer from 1 to 3")
    assert refused(capsys, "entities", "graph", "-u", "alice", "--center", "!!").startswith(
        "error: --center has no letters or digits"
    )


def test_list_sorts_and_keeps_a_created_range(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    days = ("2026-01-10", "2026-02-10", "2026-03-10")
    ids = [
        e.id
        for e in vault.import_(
            [{"content": f"written {d}", "created_at": f"{d}T12:00:00+00:00"} for d in days],
            user_id="alice",
        )
    ]

    def listed(*args: str) -> list[str]:
        return [e["id"] for e in json.loads(ok(capsys, "list", "-u", "alice", "--json", *args))]

    assert listed() == ids[::-1]
    assert listed("--sort", "oldest") == ids
    assert listed("--sort", "updated", "--limit", "1") == [ids[-1]]
    assert listed("--created-after", "2026-02-01", "--created-before", "2026-03-10") == [ids[1]]
    assert listed("--created-after", "2026-02-10T12:00:00+00:00", "--sort", "oldest") == ids[1:]
    assert ok(capsys, "list", "-u", "alice", "--created-before", "2026-01-01").strip() == (
        "no memories"
    )

    assert refused(capsys, "list", "-u", "alice", "--sort", "random").strip() == (
        "error: --sort must be one of newest, oldest, updated"
    )
    swapped = refused(
        capsys,
        "list",
        "-u",
        "alice",
        "--created-after",
        "2026-03-01",
        "--created-before",
        "2026-01-01",
    )
    assert swapped.startswith("error: --created-after must be earlier than --created-before")
    assert refused(capsys, "list", "-u", "alice", "--created-before", "soon").startswith(
        "error: --created-before"
    )


def test_delete_takes_several_ids_and_only_the_users(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = (vault.add(t, user_id="alice").id for t in ("one", "two", "three"))
    theirs = vault.add("bob's", user_id="bob").id

    assert ok(capsys, "delete", a, b, a, "--user", "alice").splitlines() == [
        f"deleted {a}",
        f"deleted {b}",
    ]
    code, out, err = cli_run(capsys, "delete", c, theirs, "--user", "alice")
    assert code == 2 and out.splitlines() == [f"deleted {c}"]
    assert err.strip() == (
        f"error: ID: not memories of user 'alice', so not deleted: {theirs} (the others "
        "were); list them with `memvault list`"
    )
    assert vault.get(theirs, user_id="bob").content == "bob's"
    assert vault.count(user_id="alice") == 0

    nothing = refused(capsys, "delete", a, b, "--user", "alice")
    assert "so not deleted: " in nothing and "the others were" not in nothing
    assert refused(capsys, "delete", a, "--user", "alice").startswith(f"error: no memory '{a}'")
    malformed = refused(capsys, "delete", theirs, "not an id", "--user", "bob")
    assert malformed.startswith("error: ID: memory id 'not an id' is malformed")
    assert vault.count(user_id="bob") == 1  # a bad id in the list: nothing deleted


def test_the_command_line_runs_them(home: Path, vault: Vault) -> None:
    first = vault.add("Caroline joined Project Helios in Berlin.", user_id="alice").id
    second = vault.add("Melanie visited Caroline in Berlin.", user_id="alice").id
    done = run_cli(home, "delete", first, second, "--user", "alice")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"deleted {first}", f"deleted {second}"]
    shown = run_cli(home, "stats", "--user", "alice", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["total"] == 0
