"""``KeyStore``: hashed keys in ``<home>/keys.json``, atomic and safe across processes."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from memvault.errors import ConfigError, NotFoundError, ValidationError
from memvault.server.keys import KeyStore


def test_create_authenticate_revoke(tmp_path: Path) -> None:
    keys = KeyStore.in_home(tmp_path)
    record, secret = keys.create(user_id="alice", label="laptop")
    who = keys.authenticate(secret)
    assert who is not None and who.user_id == "alice" and not who.admin
    assert keys.authenticate(secret + "x") is None
    assert keys.authenticate(secret.replace(record.id, "000000000000")) is None
    assert keys.authenticate("garbage") is None and keys.authenticate("mv_") is None
    keys.revoke(record.id)
    assert keys.authenticate(secret) is None
    assert [r.revoked for r in keys.list()] == [True]
    with pytest.raises(NotFoundError):
        keys.revoke("nope")


def test_file_holds_no_secret_and_is_private(tmp_path: Path) -> None:
    keys = KeyStore.in_home(tmp_path)
    _, secret = keys.create(user_id=None)
    text = (tmp_path / "keys.json").read_text()
    assert secret not in text and secret.split("_", 2)[2] not in text
    stored = json.loads(text)["keys"][0]
    assert set(stored) == {
        "id",
        "user_id",
        "label",
        "created_at",
        "salt",
        "hash",
        "revoked",
        "review",
    }
    assert (tmp_path / "keys.json").stat().st_mode & 0o077 == 0


def test_same_secret_hashes_differently_per_key(tmp_path: Path) -> None:
    keys = KeyStore.in_home(tmp_path)
    keys.create(user_id="a")
    keys.create(user_id="b")
    salts = {r.salt for r in keys.list()}
    assert len(salts) == 2


def test_ensure_admin_only_on_a_fresh_home(tmp_path: Path) -> None:
    keys = KeyStore.in_home(tmp_path)
    secret = keys.ensure_admin()
    assert secret is not None
    who = keys.authenticate(secret)
    assert who is not None and who.admin
    assert keys.ensure_admin() is None
    assert KeyStore.in_home(tmp_path).ensure_admin() is None


def test_a_second_store_sees_revocation(tmp_path: Path) -> None:
    server, cli = KeyStore.in_home(tmp_path), KeyStore.in_home(tmp_path)
    record, secret = server.create(user_id="alice")
    assert server.authenticate(secret) is not None
    cli.revoke(record.id)
    assert server.authenticate(secret) is None


def test_concurrent_creates_all_survive(tmp_path: Path) -> None:
    stores = [KeyStore.in_home(tmp_path) for _ in range(8)]
    secrets: list[str] = []

    def make(store: KeyStore) -> None:
        for _ in range(5):
            secrets.append(store.create(user_id="u")[1])

    threads = [threading.Thread(target=make, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fresh = KeyStore.in_home(tmp_path)
    assert len(fresh.list()) == 40
    assert all(fresh.authenticate(s) is not None for s in secrets)


def test_bad_input_and_bad_file(tmp_path: Path) -> None:
    keys = KeyStore.in_home(tmp_path)
    with pytest.raises(ValidationError):
        keys.create(user_id="../etc")
    with pytest.raises(ValidationError):
        keys.create(user_id="a", label="x" * 201)
    assert not (tmp_path / "keys.json").exists()
    (tmp_path / "keys.json").write_text("{broken")
    with pytest.raises(ConfigError, match=r"keys\.json"):
        keys.list()


def test_only_admin_and_review_scoped_keys_may_approve(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "keys.json")
    admin = keys.ensure_admin()
    assert admin is not None
    plain = keys.create(user_id="alice")[1]
    record, scoped = keys.create(user_id="alice", review=True)
    assert record.public()["review"] is True
    who = {k: keys.authenticate(k) for k in (admin, plain, scoped)}
    assert [p.reviewer if p else None for p in who.values()] == [True, False, True]
    # A file written before the scope existed reads as plain user keys.
    document = json.loads((tmp_path / "keys.json").read_text())
    for item in document["keys"]:
        del item["review"]
    (tmp_path / "keys.json").write_text(json.dumps(document))
    assert not KeyStore(tmp_path / "keys.json").authenticate(scoped).reviewer  # type: ignore[union-attr]
    with pytest.raises(ValidationError):
        keys.create(user_id="alice", review="yes")  # type: ignore[arg-type]
