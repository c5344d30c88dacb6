"""``RevealStore``: reveal state and grants, the reveal challenge, and the audit log."""

from __future__ import annotations

from datetime import timedelta

from memvault import Store
from memvault.stores.protocols import RevealStore
from memvault.stores.values import RevealState

from .support import OWNER, T0, audit_row, entry, put, put_state, read_state

# == reveal state, grants and erasing a user (issue 11 §1) ===================================
# Wrong answers and the lock belong to a user; a grant belongs to one entry and ends when the
# entry is deleted or the secret changes; erase_user leaves nothing of the user behind.


def test_every_backend_is_a_reveal_store(store: Store) -> None:
    assert isinstance(store, RevealStore)


def test_reveal_failures_and_lock_are_shared_by_all_entries_of_a_user(store: Store) -> None:
    put(store, entry("a", "x"), entry("b", "x"), entry("a", "x", user="bob"))
    later = T0 + timedelta(minutes=1)
    store.change_reveal("alice", "a", put_state(RevealState(2, T0, later)))
    assert read_state(store, "alice", "b") == RevealState(2, T0, later)
    assert read_state(store, "alice", None) == RevealState(2, T0, later)
    assert read_state(store, "bob", "a") == RevealState()


def test_a_grant_is_per_entry_and_ignored_without_one(store: Store) -> None:
    put(store, entry("a", "x"), entry("b", "x"))
    until = T0 + timedelta(minutes=30)
    store.change_reveal(
        "alice", "a", put_state(RevealState(granted_until=until, granted_version="v1"))
    )
    assert read_state(store, "alice", "a").granted_version == "v1"
    assert read_state(store, "alice", "b").granted_until is None
    # Without an entry the grant fields are neither shown nor written.
    assert read_state(store, "alice", None).granted_until is None
    store.change_reveal("alice", None, put_state(RevealState(1, T0, None, None, None)))
    assert read_state(store, "alice", "a").granted_version == "v1"


def test_deleting_an_entry_or_changing_the_secret_ends_its_grant(store: Store) -> None:
    put(store, entry("a", "x"), entry("b", "x"))
    grant = RevealState(granted_until=T0 + timedelta(minutes=30), granted_version="v1")
    store.change_reveal("alice", "a", put_state(grant))
    store.change_reveal("alice", "b", put_state(grant))
    store.delete(OWNER, ["a"])
    put(store, entry("a", "x"))
    assert read_state(store, "alice", "a").granted_until is None
    assert read_state(store, "alice", "b").granted_version == "v1"
    store.set_reveal_secret("alice", b"salt", b"digest")
    assert read_state(store, "alice", "b").granted_until is None


def test_audit_sequence_numbers_are_never_reused_after_an_erase(store: Store) -> None:
    store.append_audit(audit_row("alice", "one"))
    store.append_audit(audit_row("bob", "two"))
    before = store.audit_log("bob")[0].seq
    store.erase_user("bob")
    store.append_audit(audit_row("bob", "three"))
    (after,) = store.audit_log("bob")
    assert after.seq > before
