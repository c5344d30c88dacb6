"""Issue 11 §1: who may change the reveal secret, the per-user lock, grants bound to one
entry version, and erasing a user without leaving anything searchable behind."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import AuthorizationError, RevealLockedError, Vault, load_config

CARD = "4111 1111 1111 1111"
SECRET = "correct horse"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_vault(tmp_path: Path, clock: Clock, **sensitive: object) -> Vault:
    config = load_config(
        environ={}, home=tmp_path, embedding={"provider": "none"}, sensitive=sensitive or None
    )
    return Vault(tmp_path / "r.db", config=config, clock=clock)


@pytest.fixture
def vault(tmp_path: Path, clock: Clock) -> Iterator[Vault]:
    v = make_vault(tmp_path, clock)
    yield v
    v.close()


def redacted(vault: Vault, user: str = "alice", text: str = f"card {CARD}") -> str:
    return vault.add(text, user_id=user).id


def audit(vault: Vault, user: str = "alice") -> list[tuple[str, str]]:
    return [(r.action, r.outcome) for r in vault.audit_log(user_id=user)]


# -- changing the secret -------------------------------------------------------------


def test_the_first_secret_needs_nothing_but_changing_it_needs_the_current(vault: Vault) -> None:
    eid = redacted(vault)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    with pytest.raises(AuthorizationError, match="current"):
        vault.set_reveal_secret(user_id="alice", secret="attacker's choice")
    with pytest.raises(AuthorizationError, match="current"):
        vault.set_reveal_secret(user_id="alice", secret="attacker's choice", current="guess!")
    with pytest.raises(AuthorizationError):
        vault.authorize_reveal(eid, user_id="alice", secret="attacker's choice")
    vault.set_reveal_secret(user_id="alice", secret="battery staple", current=SECRET)
    vault.authorize_reveal(eid, user_id="alice", secret="battery staple")
    assert ("set_secret", "denied") in audit(vault)


def test_wrong_current_secrets_count_against_the_user_lock(vault: Vault) -> None:
    eid = redacted(vault)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    for guess in ("guess 1", "guess 2"):
        with pytest.raises(AuthorizationError):
            vault.set_reveal_secret(user_id="alice", secret="mine now", current=guess)
    with pytest.raises(AuthorizationError):
        vault.authorize_reveal(eid, user_id="alice", secret="guess 3")
    with pytest.raises(RevealLockedError):
        vault.set_reveal_secret(user_id="alice", secret="mine now", current=SECRET)
    with pytest.raises(RevealLockedError):
        vault.authorize_reveal(eid, user_id="alice", secret=SECRET)


def test_an_admin_resets_the_secret_audited_as_such(vault: Vault) -> None:
    eid = redacted(vault)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(eid, user_id="alice", secret=SECRET)
    vault.reset_reveal_secret(user_id="alice", secret="a fresh start", actor="admin-key")
    # A change of secret ends the grants given under the old one.
    with pytest.raises(AuthorizationError):
        vault.reveal(eid, user_id="alice")
    vault.authorize_reveal(eid, user_id="alice", secret="a fresh start")
    records = vault.audit_log(user_id="alice")
    reset = [r for r in records if r.action == "reset_secret"]
    assert len(reset) == 1 and reset[0].actor == "admin-key" and reset[0].outcome == "ok"


# -- the per-user lock -----------------------------------------------------------------


def test_guesses_across_throwaway_entries_are_stopped_after_three(vault: Vault) -> None:
    ids = [redacted(vault, text=f"card {CARD} note {n}") for n in range(5)]
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    wrong = 0
    locked = 0
    guesses = [f"guess {n:02d}" for n in range(14)] + [SECRET]  # the 15th is right
    for n, guess in enumerate(guesses):
        try:
            vault.authorize_reveal(ids[n % 5], user_id="alice", secret=guess)
        except RevealLockedError:
            locked += 1
        except AuthorizationError:
            wrong += 1
        else:
            pytest.fail(f"guess {n + 1} was granted")
    assert wrong == 2 and locked == 13
    assert ("authorize", "denied: locked") in audit(vault)


def test_the_lock_is_per_user(vault: Vault) -> None:
    alice = redacted(vault, "alice")
    bob = redacted(vault, "bob")
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.set_reveal_secret(user_id="bob", secret="bob's phrase")
    for _ in range(3):
        with pytest.raises(AuthorizationError):
            vault.authorize_reveal(alice, user_id="alice", secret="nope!!")
    vault.authorize_reveal(bob, user_id="bob", secret="bob's phrase")
    assert vault.reveal(bob, user_id="bob").content == f"card {CARD}"


def test_an_admin_unlocks_the_user(vault: Vault) -> None:
    ids = [redacted(vault), redacted(vault, text=f"other {CARD}")]
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    for _ in range(3):
        with pytest.raises(AuthorizationError):
            vault.authorize_reveal(ids[0], user_id="alice", secret="nope!!")
    vault.unlock_reveal(user_id="alice", actor="admin-key")
    vault.authorize_reveal(ids[1], user_id="alice", secret=SECRET)
    assert ("unlock", "ok") in audit(vault)


def test_the_lock_lifts_after_the_cool_down(tmp_path: Path, clock: Clock) -> None:
    with make_vault(tmp_path, clock, lockout_minutes=10) as vault:
        eid = redacted(vault)
        vault.set_reveal_secret(user_id="alice", secret=SECRET)
        for _ in range(3):
            with pytest.raises(AuthorizationError):
                vault.authorize_reveal(eid, user_id="alice", secret="nope!!")
        clock.now += timedelta(minutes=9)
        with pytest.raises(RevealLockedError, match="unlock"):
            vault.authorize_reveal(eid, user_id="alice", secret=SECRET)
        clock.now += timedelta(minutes=2)
        vault.authorize_reveal(eid, user_id="alice", secret=SECRET)
        granted = vault.audit_log(user_id="alice")[-1]
        assert granted.outcome == "granted" and "lock expired" in granted.detail


def test_a_lock_without_cool_down_waits_for_an_admin(tmp_path: Path, clock: Clock) -> None:
    with make_vault(tmp_path, clock, lockout_minutes=0) as vault:
        eid = redacted(vault)
        vault.set_reveal_secret(user_id="alice", secret=SECRET)
        for _ in range(3):
            with pytest.raises(AuthorizationError):
                vault.authorize_reveal(eid, user_id="alice", secret="nope!!")
        clock.now += timedelta(days=30)
        with pytest.raises(RevealLockedError):
            vault.authorize_reveal(eid, user_id="alice", secret=SECRET)


def test_old_wrong_answers_fall_out_of_the_window(tmp_path: Path, clock: Clock) -> None:
    with make_vault(tmp_path, clock, attempt_window_minutes=5) as vault:
        eid = redacted(vault)
        vault.set_reveal_secret(user_id="alice", secret=SECRET)
        for _ in range(2):
            with pytest.raises(AuthorizationError):
                vault.authorize_reveal(eid, user_id="alice", secret="nope!!")
        clock.now += timedelta(minutes=6)
        with pytest.raises(AuthorizationError, match="2 tries left"):
            vault.authorize_reveal(eid, user_id="alice", secret="nope!!")


# -- grants are for one entry version ----------------------------------------------------


def test_a_grant_does_not_survive_delete_and_reimport(vault: Vault) -> None:
    eid = redacted(vault)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(eid, user_id="alice", secret=SECRET)
    (exported,) = vault.export(user_id="alice")
    vault.delete(eid, user_id="alice")
    # The same id and times, new sensitive text: another entry, which the grant is not for.
    vault.import_([{**exported, "content": "card 5500 0000 0000 0004"}], user_id="alice")
    with pytest.raises(AuthorizationError, match="authorisation"):
        vault.reveal(eid, user_id="alice")


def test_a_grant_does_not_survive_an_update(vault: Vault) -> None:
    eid = redacted(vault)
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(eid, user_id="alice", secret=SECRET)
    vault.update(eid, user_id="alice", content="card 5500 0000 0000 0004 instead")
    with pytest.raises(AuthorizationError, match="authorisation"):
        vault.reveal(eid, user_id="alice")
    vault.authorize_reveal(eid, user_id="alice", secret=SECRET)
    assert "5500" in vault.reveal(eid, user_id="alice").content


# -- erasing a user ------------------------------------------------------------------------


def test_erase_removes_secret_reveal_state_audit_and_index_tokens(
    vault: Vault, tmp_path: Path
) -> None:
    token = "zqxvunique"
    eid = redacted(vault, text=f"{token} card {CARD}")
    for n in range(30):
        vault.add(f"{token} filler note number {n}", user_id="alice")
    vault.add("bob keeps his own notes", user_id="bob")
    vault.set_reveal_secret(user_id="alice", secret=SECRET)
    vault.authorize_reveal(eid, user_id="alice", secret=SECRET)

    assert vault.erase_user(user_id="alice", actor="admin-key") == 31
    assert vault.count(user_id="alice") == 0 and vault.count(user_id="bob") == 1
    assert vault.search(token, user_id="alice") == []
    # The secret is gone: a new first secret needs no current one.
    vault.set_reveal_secret(user_id="alice", secret="a new life")
    records = vault.audit_log(user_id="alice")
    assert [r.action for r in records] == ["erase_user", "set_secret"]

    conn = sqlite3.connect(tmp_path / "r.db")
    try:
        vocab = {t for (t,) in conn.execute("SELECT term FROM memories_vocab")}
        assert token not in vocab and "bob" in vocab
        for table in ("reveal_grants", "reveal_users"):
            rows = conn.execute(f"SELECT count(*) FROM {table} WHERE user_id = 'alice'")
            assert rows.fetchone()[0] == 0
    finally:
        conn.close()
    vault.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("r.db"))
    assert token.encode() not in raw


def test_migration_8_turns_a_locked_entry_into_a_locked_user(tmp_path: Path, clock: Clock) -> None:
    from memvault.stores.sqlite import SQLiteStore

    old = SQLiteStore(tmp_path / "r.db", migrate_to=7)
    old.close()
    conn = sqlite3.connect(tmp_path / "r.db")
    with conn:
        conn.execute(
            "INSERT INTO reveal_state (user_id, entry_id, failures, locked) "
            "VALUES ('alice', 'e1', 3, 1), ('bob', 'e2', 1, 0)"
        )
    conn.close()
    clock.now = datetime.now(UTC)
    with make_vault(tmp_path, clock) as vault:
        alice = redacted(vault)
        bob = redacted(vault, "bob")
        vault.set_reveal_secret(user_id="alice", secret=SECRET)
        vault.set_reveal_secret(user_id="bob", secret=SECRET)
        with pytest.raises(RevealLockedError):
            vault.authorize_reveal(alice, user_id="alice", secret=SECRET)
        vault.authorize_reveal(bob, user_id="bob", secret=SECRET)
