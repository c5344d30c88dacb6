"""Issue 11 §3: sensitive data in every field (category, metadata keys, the builtin memory
files) is redacted or refused, and the SQLite files are private (0600)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault import Sensitivity, ValidationError, Vault, load_config
from memvault.agent.providers.builtin import BuiltinFileProvider

CARD = "4111 1111 1111 1111"
CN_ID = "11010519491231002X"  # GB 11643 check digit X
API_KEY = "sk-proj-Abc123Def456Ghi789Jkl012Mno345"
PASSWORD = "密码是Hunter2-xyz!"
SECRET = "correct horse"


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    v = Vault(tmp_path / "f.db", config=config)
    yield v
    v.close()


def raw_bytes(tmp_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("f.db"))


@pytest.mark.parametrize(
    ("value", "kind"),
    [(CARD, "bank_card"), (CN_ID, "cn_id"), (API_KEY, "api_key"), (PASSWORD, "password")],
)
def test_category_is_redacted_sealed_and_revealable(
    vault: Vault, tmp_path: Path, value: str, kind: str
) -> None:
    entry = vault.add("a plain note", user_id="alice", category=value)
    assert entry.category is not None and f"[{kind}#1]" in entry.category
    assert entry.sensitivity is not Sensitivity.NORMAL
    stored = json.dumps(list(vault.export(user_id="alice")))
    secret_part = value.removeprefix("密码是")
    assert secret_part not in stored and secret_part.encode() not in raw_bytes(tmp_path)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(entry.id, user_id="alice", secret=SECRET)
    assert vault.reveal(entry.id, user_id="alice").category == value


def test_category_set_by_update_is_redacted_and_keeps_other_originals(vault: Vault) -> None:
    entry = vault.add(f"card {CARD}", user_id="alice")
    changed = vault.update(entry.id, user_id="alice", category=f"key {API_KEY}")
    assert API_KEY not in (changed.category or "")
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(entry.id, user_id="alice", secret=SECRET)
    shown = vault.reveal(entry.id, user_id="alice")
    assert shown.category == f"key {API_KEY}" and shown.content == f"card {CARD}"


def test_metadata_keys_are_redacted_sealed_and_revealable(vault: Vault, tmp_path: Path) -> None:
    metadata = {f"card {CARD}": "on file", "nested": {f"id {CN_ID}": 1}, "plain": "x"}
    entry = vault.add("billing details", user_id="alice", metadata=metadata)
    keys = json.dumps(entry.metadata)
    assert CARD not in keys and CN_ID not in keys
    assert entry.metadata["card [bank_card#1]"] == "on file"
    assert entry.metadata["nested"] == {"id [cn_id#1]": 1} and entry.metadata["plain"] == "x"
    assert CN_ID.encode() not in raw_bytes(tmp_path)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(entry.id, user_id="alice", secret=SECRET)
    assert vault.reveal(entry.id, user_id="alice").metadata == metadata


def test_metadata_keys_that_would_collide_are_refused(vault: Vault) -> None:
    metadata = {f"card {CARD}": 1, "card 5500 0000 0000 0004": 2}
    with pytest.raises(ValidationError, match="metadata key"):
        vault.add("two cards", user_id="alice", metadata=metadata)
    with pytest.raises(ValidationError, match="metadata key"):
        vault.add("a card", user_id="alice", metadata={f"card {CARD}": 1, "card [bank_card#1]": 2})
    assert vault.count(user_id="alice") == 0


def test_the_memory_tool_redacts_builtin_file_entries(tmp_path: Path) -> None:
    provider = BuiltinFileProvider()
    provider.initialize(user_id="alice", base_dir=str(tmp_path))
    reply = provider.handle_tool_call(
        "memory", {"action": "add", "target": "user", "content": f"Alice's card is {CARD}"}
    )
    assert json.loads(reply)["success"] is True
    provider.add("memory", f"deploy key {API_KEY}; id {CN_ID}")
    provider.replace("memory", "deploy key", f"the password is {PASSWORD}")
    on_disk = "".join(p.read_text() for p in provider.paths.values())
    for value in (CARD, CARD.replace(" ", ""), API_KEY, CN_ID, "Hunter2-xyz!"):
        assert value not in on_disk
        assert value not in reply
    assert "[bank_card#1]" in on_disk and "[password#1]" in on_disk
    snapshot = provider.reload()
    assert CARD not in snapshot and "[bank_card#1]" in snapshot


def test_a_hand_written_card_in_a_builtin_file_never_reaches_the_prompt(tmp_path: Path) -> None:
    provider = BuiltinFileProvider()
    provider.initialize(user_id="alice", base_dir=str(tmp_path))
    provider.paths["user"].parent.mkdir(parents=True, exist_ok=True)
    provider.paths["user"].write_text(f"Alice pays with {CARD}")
    snapshot = provider.reload()
    assert CARD not in snapshot and "[bank_card#1]" in snapshot


def test_sqlite_files_are_created_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
        with Vault(tmp_path / "f.db", config=config) as vault:
            vault.add("a note", user_id="alice")
            files = [tmp_path / n for n in ("f.db", "f.db-wal", "f.db-shm")]
            assert all(p.exists() for p in files)
            for path in files:
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    finally:
        os.umask(old)
