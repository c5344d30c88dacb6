"""The `memvault` command against real SQLite files, run in this process as a process
would run it (``tests/cli_process.py``; ``tests/cli/test_console_script.py`` starts the
real one)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memvault import cli
from tests.cli_process import invoke


def run(
    home: Path, *args: str, stdin: str | None = None, embedder: str = "none"
) -> subprocess.CompletedProcess[str]:
    # Most tests exercise the command layer, keyword-only; one uses the real local model.
    env = {"MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": embedder}
    return invoke(args, env=env, input=stdin)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_add_then_search_is_scoped_by_user(home: Path) -> None:
    added = run(home, "add", "--user", "alice", "Alice writes Go services")
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("added ")

    found = run(home, "search", "--user", "alice", "go services", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert [h["entry"]["content"] for h in hits] == ["Alice writes Go services"]

    other = run(home, "search", "--user", "bob", "go services", "--json")
    assert other.returncode == 0
    assert json.loads(other.stdout) == []


def test_search_by_meaning_with_the_local_model(home: Path) -> None:
    for text in ("Alice writes her backend services in Go", "Alice's cat is called Miso"):
        assert run(home, "add", "--user", "alice", text, embedder="local").returncode == 0
    found = run(
        home,
        "search",
        "--user",
        "alice",
        "which language does she use",
        "--json",
        embedder="local",
    )
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits[0]["entry"]["content"] == "Alice writes her backend services in Go"
    assert "vector" in hits[0]["sources"]


def test_chinese_entry_found_by_word(home: Path) -> None:
    assert run(home, "add", "--user", "alice", "我们的后端服务都部署在杭州").returncode == 0
    hits = json.loads(run(home, "search", "--user", "alice", "服务", "--json").stdout)
    assert len(hits) == 1 and "服务" in hits[0]["entry"]["content"]


def test_global_db_option_before_command(tmp_path: Path, home: Path) -> None:
    db = tmp_path / "other.db"
    assert run(home, "--db", str(db), "add", "--user", "u1", "kept elsewhere").returncode == 0
    assert db.exists()
    listed = json.loads(run(home, "--db", str(db), "list", "--user", "u1", "--json").stdout)
    assert [e["content"] for e in listed] == ["kept elsewhere"]
    # The default database under MEMVAULT_HOME was not used.
    assert json.loads(run(home, "list", "--user", "u1", "--json").stdout) == []


def test_get_update_delete_round_trip(home: Path) -> None:
    entry = json.loads(run(home, "add", "--user", "al", "first text", "--json").stdout)
    updated = run(home, "update", entry["id"], "--user", "al", "--content", "second text")
    assert updated.returncode == 0, updated.stderr
    got = json.loads(run(home, "get", entry["id"], "--user", "al", "--json").stdout)
    assert got["content"] == "second text"
    assert run(home, "delete", entry["id"], "--user", "al").returncode == 0
    missing = run(home, "get", entry["id"], "--user", "al")
    assert missing.returncode == 2
    assert "no memory" in missing.stderr and len(missing.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["add", "--user", "alice", ""],
        ["add", "--user", "alice", "   "],
        ["add", "--user", "../x", "hello"],
        ["add", "--user", "alice", "hi", "--kind", "nonsense"],
        ["add", "--user", "alice", "hi", "--metadata", "{not json"],
        ["get", "0123456789abcdef", "--user", "alice"],
        ["update", "0123456789abcdef", "--user", "alice", "--content", "x"],
        ["delete", "0123456789abcdef", "--user", "alice"],
        ["search", "--user", "alice", "   "],
        ["search", "--user", "alice"],
    ],
)
def test_bad_input_exits_2_and_changes_nothing(home: Path, args: list[str]) -> None:
    run(home, "add", "--user", "alice", "the one memory")
    before = run(home, "export", "--user", "alice").stdout
    result = run(home, *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip()
    assert run(home, "export", "--user", "alice").stdout == before


def test_oversized_content_rejected(home: Path) -> None:
    big = "x" * (1024 * 1024)
    # 1 MiB does not fit in argv on every system: main() takes it in-process.
    result = invoke(["add", "--user", "alice", big], env={"MEMVAULT_HOME": str(home)})
    assert result.returncode == 2
    assert "over the limit" in result.stderr
    assert json.loads(run(home, "list", "--user", "alice", "--json").stdout) == []


def test_export_import_round_trip_and_malformed_import(home: Path, tmp_path: Path) -> None:
    run(home, "add", "--user", "alice", "one")
    run(home, "add", "--user", "alice", "two", "--kind", "project")
    out = tmp_path / "alice.jsonl"
    assert run(home, "export", "--user", "alice", "-o", str(out)).returncode == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 2

    imported = run(home, "import", str(out), "--user", "carol")
    assert imported.returncode == 0, imported.stderr
    carol = json.loads(run(home, "list", "--user", "carol", "--json").stdout)
    assert sorted(e["content"] for e in carol) == ["one", "two"]
    assert all(e["user_id"] == "carol" for e in carol)

    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n{broken\n")
    result = run(home, "import", str(bad), "--user", "dave")
    assert result.returncode == 2
    assert "line 2" in result.stderr
    assert json.loads(run(home, "list", "--user", "dave", "--json").stdout) == []

    # Importing the same ids again conflicts (nothing changes) unless told to skip.
    again = run(home, "import", str(out), "--user", "carol")
    assert again.returncode == 2
    assert len(json.loads(run(home, "list", "--user", "carol", "--json").stdout)) == 2
    skip = run(home, "import", str(out), "--user", "carol", "--skip-existing")
    assert skip.returncode == 0 and "imported 0" in skip.stdout


def test_import_from_stdin(home: Path) -> None:
    record = json.dumps({"content": "from a pipe", "kind": "reference"})
    result = run(home, "import", "-", "--user", "erin", stdin=record + "\n")
    assert result.returncode == 0, result.stderr
    listed = json.loads(run(home, "list", "--user", "erin", "--json").stdout)
    assert listed[0]["content"] == "from a pipe" and listed[0]["kind"] == "reference"


def test_doctor_reports_store(home: Path) -> None:
    result = run(home, "doctor")
    assert result.returncode == 0, result.stderr
    assert "store integrity: ok" in result.stdout
    assert str(home) in result.stdout


def test_serve_refuses_public_bind_without_auth(home: Path) -> None:
    result = run(home, "serve", "--host", "0.0.0.0", "--port", "1", "--no-auth")
    assert result.returncode == 1
    assert "refusing to bind" in result.stderr


def test_every_command_is_documented_in_readme() -> None:
    root = Path(__file__).parents[2]  # the README and the docs/ pages it links to
    readme = "\n".join(p.read_text() for p in [root / "README.md", *root.glob("docs/*.md")])
    names = [
        c.name or (c.callback.__name__ if c.callback else "") for c in cli.app.registered_commands
    ]
    assert names, "no commands registered"
    for name in names:
        assert f"memvault {name}" in readme or f"`{name}`" in readme, f"README lacks {name}"


def test_reveal_and_audit_from_the_cli(home: Path) -> None:
    added = json.loads(
        run(home, "add", "--user", "alice", "card 4111 1111 1111 1111", "--json").stdout
    )
    assert "[bank_card#1]" in added["content"]
    assert run(home, "set-secret", "--user", "alice", stdin="open sesame\n").returncode == 0
    wrong = run(home, "reveal", added["id"], "--user", "alice", stdin="nope!!\n")
    assert wrong.returncode == 2 and "tries left" in wrong.stderr
    shown = run(home, "reveal", added["id"], "--user", "alice", stdin="open sesame\n")
    assert shown.returncode == 0 and shown.stdout.strip() == "card 4111 1111 1111 1111"
    records = json.loads(run(home, "audit", "--user", "alice", "--json").stdout)
    assert [(r["action"], r["outcome"]) for r in records] == [
        ("set_secret", "ok"),
        ("authorize", "denied"),
        ("authorize", "granted"),
        ("reveal", "revealed"),
    ]


def test_changing_the_reveal_secret_from_the_cli_needs_the_current_one(home: Path) -> None:
    added = json.loads(
        run(home, "add", "--user", "alice", "card 4111 1111 1111 1111", "--json").stdout
    )
    assert run(home, "set-secret", "--user", "alice", stdin="open sesame\n").returncode == 0
    again = run(home, "set-secret", "--user", "alice", stdin="my own pick\n")
    assert again.returncode == 2 and "--current" in again.stderr
    wrong = run(home, "set-secret", "--user", "alice", "--current", stdin="nope!!\nmy pick\n")
    assert wrong.returncode == 2 and "tries left" in wrong.stderr
    ok = run(home, "set-secret", "--user", "alice", "--current", stdin="open sesame\nnew one\n")
    assert ok.returncode == 0
    assert (
        run(home, "set-secret", "--user", "alice", "--reset", stdin="reset one\n").returncode == 0
    )
    for _ in range(3):
        run(home, "reveal", added["id"], "--user", "alice", stdin="wrong!!\n")
    locked = run(home, "reveal", added["id"], "--user", "alice", stdin="reset one\n")
    assert locked.returncode == 2 and "locked" in locked.stderr
    assert run(home, "unlock", "--user", "alice").returncode == 0
    shown = run(home, "reveal", added["id"], "--user", "alice", stdin="reset one\n")
    assert shown.returncode == 0 and "4111" in shown.stdout
    actions = [
        r["action"] for r in json.loads(run(home, "audit", "--user", "alice", "--json").stdout)
    ]
    assert "reset_secret" in actions and "unlock" in actions


def test_erase_from_the_cli(home: Path) -> None:
    run(home, "add", "--user", "alice", "card 4111 1111 1111 1111")
    run(home, "add", "--user", "bob", "bob's note")
    run(home, "set-secret", "--user", "alice", stdin="open sesame\n")
    refused = run(home, "erase", "--user", "alice")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    done = run(home, "erase", "--user", "alice", "--yes")
    assert done.returncode == 0 and "1 memories" in done.stdout
    assert json.loads(run(home, "list", "--user", "alice", "--json").stdout) == []
    assert len(json.loads(run(home, "list", "--user", "bob", "--json").stdout)) == 1
    assert run(home, "set-secret", "--user", "alice", stdin="a new start\n").returncode == 0


# -- hostile input: exit 2, one line of error, no traceback (issue 11 §4) ------------------


def one_line_error(result: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_an_offset_beyond_sqlite_is_a_usage_error(home: Path) -> None:
    line = one_line_error(run(home, "list", "--user", "alice", "--offset", str(10**30)))
    assert "--offset" in line


@pytest.mark.parametrize(
    "metadata",
    [
        pytest.param('{"a":' * 300 + "1" + "}" * 300, id="300-levels"),
        pytest.param("[" * 100_000, id="too-deep-to-parse"),
        pytest.param('{"n": 1' + "0" * 5000 + "}", id="5000-digit-number"),
        pytest.param('{"n": NaN}', id="nan"),
    ],
)
def test_unusable_metadata_is_a_usage_error(home: Path, metadata: str) -> None:
    line = one_line_error(run(home, "add", "--user", "alice", "hello", "--metadata", metadata))
    assert "--metadata" in line
    assert json.loads(run(home, "list", "--user", "alice", "--json").stdout) == []


def test_export_into_a_missing_directory_is_a_usage_error(home: Path, tmp_path: Path) -> None:
    run(home, "add", "--user", "alice", "hello")
    target = tmp_path / "missing" / "dir" / "file.jsonl"
    line = one_line_error(run(home, "export", "--user", "alice", "-o", str(target)))
    assert "--output" in line and not target.parent.exists()


def test_an_uncreatable_home_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    line = one_line_error(run(blocker / "home", "list", "--user", "alice"))
    assert "--home" in line
    line = one_line_error(run(tmp_path / "h", "--home", str(blocker / "x"), "doctor"))
    assert "--home" in line


def test_a_usage_error_is_one_line(home: Path) -> None:
    assert "--limit" in one_line_error(run(home, "list", "--user", "alice", "--limit", "abc"))
    assert "--lim" in one_line_error(run(home, "list", "--user", "alice", "--lim", "3"))
    assert "--user" in one_line_error(run(home, "list"))


def test_doctor_refuses_an_emptied_database(home: Path) -> None:
    home.mkdir(parents=True)
    database = home / "memvault.db"
    database.write_bytes(b"")
    line = one_line_error(run(home, "doctor"), code=1)
    assert "empty" in line and "integrity: ok" not in line
    assert database.stat().st_size == 0


def test_serve_reads_the_admin_config_yaml(home: Path, tmp_path: Path) -> None:
    missing = run(home, "serve", "--port", "1", "--config", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "--config" in missing.stderr
    bad = tmp_path / "config.yaml"
    bad.write_text("memory:\n  provider: nope\n", encoding="utf-8")
    refused = run(home, "serve", "--port", "1", "--config", str(bad))
    assert refused.returncode == 1
    assert str(bad) in refused.stderr and "provider" in refused.stderr
