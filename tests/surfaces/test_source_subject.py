"""The source subject (issue 16 item 7): who a memory is about or from, set on every
write surface, normalised, kept through export and import, and a filter of every read
(search, explain, list, count, context; HTTP; CLI). Real SQLite files, the real
gateway, the real CLI process."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from memvault import SQLiteStore, Vault, VaultConfig
from memvault.agent.providers.vault import VaultProvider
from memvault.errors import ValidationError
from memvault.stores.sqlite.schema import apply_migrations
from memvault.validation import check_subject
from tests.cli_process import run_cli
from tests.gateway_server import live_gateway


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("user", "user"),
        (" User ", "user"),
        ("ASSISTANT", "assistant"),
        ("Caroline", "Caroline"),
        ("  Mel   Smith ", "Mel Smith"),
        ("Ｍｅｌ", "Mel"),  # full-width letters are the plain ones
        ("王小明", "王小明"),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
def test_subjects_are_normalised(given: str | None, stored: str | None) -> None:
    assert check_subject(given) == stored


@pytest.mark.parametrize("bad", [3, ["user"], "x" * 65, "Mel\x07", "a\x00b"])
def test_bad_subjects_are_refused_saying_why(bad: object) -> None:
    with pytest.raises(ValidationError) as caught:
        check_subject(bad)
    assert caught.value.context.get("field") == "source_subject"


def _filled(vault: Vault) -> dict[str, str]:
    made = {
        "user": vault.add(
            "I drink green tea every morning", user_id="alice", source_subject="User"
        ),
        "assistant": vault.add(
            "I suggested oolong tea to Alice", user_id="alice", source_subject="assistant"
        ),
        "Caroline": vault.add(
            "Caroline brought jasmine tea from Fuzhou", user_id="alice", source_subject="Caroline"
        ),
        "none": vault.add("tea plantations need rain", user_id="alice"),
    }
    return {k: e.id for k, e in made.items()}


def test_every_read_filters_by_subject(vault: Vault) -> None:
    ids = _filled(vault)
    assert vault.get(ids["user"], user_id="alice").source_subject == "user"
    assert vault.get(ids["none"], user_id="alice").source_subject is None
    for subject in ("user", "assistant", "Caroline"):
        want = [ids[subject]]
        found = vault.search("tea", user_id="alice", limit=10, source_subject=subject)
        assert [h.entry.id for h in found] == want, subject
        why = vault.explain("tea", user_id="alice", limit=10, source_subject=subject)
        assert [c.entry.id for c in why.candidates] == want, subject
        assert [e.id for e in vault.list(user_id="alice", source_subject=subject)] == want
        assert vault.count(user_id="alice", source_subject=subject) == 1
    # The filter is normalised like the write: " USER " is the user.
    assert vault.count(user_id="alice", source_subject=" USER ") == 1
    assert vault.count(user_id="alice") == 4
    block = vault.context("Caroline jasmine tea", user_id="alice", source_subject="Caroline")
    assert "jasmine" in block and "green tea" not in block
    assert "every morning" in vault.context("green tea every morning", user_id="alice")
    assert "every morning" not in vault.context(
        "green tea every morning", user_id="alice", source_subject="assistant"
    )
    with pytest.raises(ValidationError):
        vault.search("tea", user_id="alice", source_subject="x" * 100)


def test_update_sets_and_keeps_the_subject(vault: Vault) -> None:
    e = vault.add("Mel ran a charity race", user_id="alice", source_subject="Mel")
    kept = vault.update(e.id, user_id="alice", content="Mel ran a charity half marathon")
    assert kept.source_subject == "Mel"
    moved = vault.update(e.id, user_id="alice", source_subject="Melanie")
    assert moved.source_subject == "Melanie"
    assert vault.list(user_id="alice", source_subject="Mel") == []


def test_export_and_import_carry_the_subject(vault: Vault, tmp_path: Path) -> None:
    ids = _filled(vault)
    records = list(vault.export(user_id="alice"))
    assert {r["id"]: r["source_subject"] for r in records}[ids["Caroline"]] == "Caroline"
    with Vault(tmp_path / "copy.db", config=vault.config, embedder=None) as copy:
        copy.import_(records, user_id="bob")
        assert copy.get(ids["Caroline"], user_id="bob").source_subject == "Caroline"
        old = {k: v for k, v in records[0].items() if k != "source_subject"}
        old["id"] = "from-an-older-export"
        (imported,) = copy.import_([old], user_id="carol")
        assert imported.source_subject is None


def test_an_older_database_gains_the_column_empty(tmp_path: Path, config: VaultConfig) -> None:
    path = tmp_path / "old.db"
    with closing(sqlite3.connect(path)) as conn:
        apply_migrations(conn, target=12)
        conn.commit()
    with Vault(path, config=config, embedder=None) as v:
        e = v.add("written after the upgrade", user_id="alice", source_subject="user")
        assert v.get(e.id, user_id="alice").source_subject == "user"
        assert isinstance(v.store, SQLiteStore)


def test_the_provider_and_the_tools_name_the_subject(vault: Vault, tmp_path: Path) -> None:
    p = VaultProvider(vault)
    p.initialize(user_id="alice", agent_id="helper", thread_id="t1", base_dir=str(tmp_path))
    p.sync_turn("what tea do I like?", "green tea, you said", thread_id="t1")
    p.sync_turn("", "a note the assistant left", thread_id="t1")
    turns = vault.list(user_id="alice", mem_class="source_archive")
    assert sorted(e.source_subject or "" for e in turns) == ["assistant", "user"]
    saved = json.loads(
        p.handle_tool_call(
            "memory_save", {"action": "create", "name": "tea", "type": "user", "content": "tea"}
        )
    )
    assert vault.get(saved["memory"]["id"], user_id="alice").source_subject == "user"
    told = json.loads(
        p.handle_tool_call(
            "memory_save",
            {
                "action": "create",
                "name": "Mel",
                "type": "user",
                "content": "Mel paints",
                "subject": "Mel",
            },
        )
    )
    assert vault.get(told["memory"]["id"], user_id="alice").source_subject == "Mel"
    bad = json.loads(
        p.handle_tool_call(
            "memory_save",
            {"action": "create", "name": "x", "type": "user", "content": "x", "subject": 7},
        )
    )
    assert bad["success"] is False and "source_subject" in bad["error"]


def test_http_and_cli(config: VaultConfig, tmp_path: Path) -> None:
    with live_gateway(config) as live:
        alice = live.client(live.alice)
        made = alice.post(
            "/v1/memories",
            json={"content": "Caroline likes jasmine tea", "source_subject": "Caroline"},
        ).json()
        assert made["source_subject"] == "Caroline"
        alice.post("/v1/memories", json={"content": "I like green tea", "source_subject": "user"})
        body = {"query": "tea", "source_subject": "Caroline"}
        found = alice.post("/v1/memories/search", json=body).json()["results"]
        assert [h["entry"]["id"] for h in found] == [made["id"]]
        listed = alice.get("/v1/memories", params={"source_subject": "user"}).json()
        assert listed["total"] == 1 and listed["items"][0]["content"] == "I like green tea"
        patched = alice.patch(f"/v1/memories/{made['id']}", json={"source_subject": "Mel"}).json()
        assert patched["source_subject"] == "Mel"
        bad = alice.post("/v1/memories", json={"content": "x", "source_subject": "a\x07b"})
        assert bad.status_code == 422 and "source_subject" in bad.json()["error"]["message"]
    home = tmp_path / "cli"
    added = run_cli(home, "add", "Mel ran a race", "--user", "alice", "--subject", "Mel", "--json")
    assert json.loads(added.stdout)["source_subject"] == "Mel"
    run_cli(home, "add", "I ran a race too", "--user", "alice", "--subject", "user")
    found = json.loads(
        run_cli(home, "search", "race", "--user", "alice", "--subject", "Mel", "--json").stdout
    )
    assert [h["entry"]["content"] for h in found] == ["Mel ran a race"]
    listed = json.loads(
        run_cli(home, "list", "--user", "alice", "--subject", "user", "--json").stdout
    )
    assert [e["content"] for e in listed] == ["I ran a race too"]
    wrong = run_cli(home, "list", "--user", "alice", "--subject", "x" * 80)
    assert wrong.returncode == 2 and "source_subject" in wrong.stderr
