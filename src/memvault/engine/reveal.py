"""The authorised reveal of redacted originals, and the audit log (seed 004).

Seeing the original of a redacted memory takes the user's reveal secret. The rules:

* The first secret of a user is set with the user's key alone; changing it needs the
  current secret (``set_reveal_secret(current=...)``), or an administrator's
  ``reset_reveal_secret``. Any change ends every grant given under the old secret.
* A right answer grants a reveal of one entry *version* for ``sensitive.reveal_minutes``:
  updating the entry, or deleting it and importing it again, ends the grant.
* Wrong answers count per user, whichever entry, key or call they came through (a
  wrong current secret too): ``reveal_attempts`` of them within
  ``attempt_window_minutes`` lock every reveal of that user until an administrator
  calls ``unlock_reveal`` or ``lockout_minutes`` pass (0: only the administrator).

Every attempt, grant, reveal, unlock and secret change is appended to the audit log,
which the database refuses to change or delete (except when a user is erased).
``Vault`` composes it and delegates to it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from ..config import VaultConfig
from ..errors import AuthorizationError, RevealLockedError, ValidationError
from ..model import MemoryEntry
from ..security.protect import Protector, check_secret, grant_until, hash_secret
from ..stores.protocols import Store
from ..stores.rows import format_time
from ..stores.values import AuditRecord, RevealState
from ..validation import check_entry_id, check_limit, check_offset, make_scope
from .views import owner_view, read_entry


def _check_new_secret(secret: object) -> str:
    if not isinstance(secret, str) or len(secret) < 6:
        raise ValidationError(
            "the reveal secret must be a string of at least 6 characters", field="secret"
        )
    return secret


class RevealService:
    """Reveal secrets, grants, the per-user lock and the audit log, over one store."""

    def __init__(
        self,
        store: Store,
        config: VaultConfig,
        protector: Protector,
        clock: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.config = config
        self._protector = protector
        self._clock = clock

    # -- the secret -------------------------------------------------------------------

    def set_reveal_secret(
        self, *, user_id: str, secret: str, current: str | None = None, actor: str = "owner"
    ) -> None:
        """Set the answer that authorises revealing this user's originals (stored hashed).

        Once a secret is set, changing it needs ``current``: a missing one raises
        ``AuthorizationError``, a wrong one too and counts as a wrong answer towards
        the user's lock (``RevealLockedError`` when locked). Administrators who do not
        know it use ``reset_reveal_secret``.
        """
        uid = make_scope(user_id).user_id
        _check_new_secret(secret)
        stored = self.store.reveal_secret(uid)
        if stored is not None:
            if current is None:
                self.audit(uid, None, actor, "set_secret", "refused: no current secret")
                raise AuthorizationError(
                    "a reveal secret is already set for this user",
                    remedy="reveal.current_secret",
                    user_id=uid,
                    field="current",
                )
            ok = isinstance(current, str) and check_secret(current, *stored)
            self._answer(uid, None, actor, "set_secret", ok)
        salt, digest = hash_secret(secret)
        self.store.set_reveal_secret(uid, salt, digest)
        if stored is None:
            self.audit(uid, None, actor, "set_secret", "ok")

    def reset_reveal_secret(self, *, user_id: str, secret: str, actor: str) -> None:
        """Replace the user's secret without knowing it, and lift their lock: an
        administrator's act, audited as ``reset_secret`` by ``actor``."""
        uid = make_scope(user_id).user_id
        _check_new_secret(secret)
        now = self._clock()
        self.store.change_reveal(
            uid,
            None,
            lambda _state: (RevealState(), AuditRecord(now, uid, actor, "reset_secret", "ok")),
        )
        salt, digest = hash_secret(secret)
        self.store.set_reveal_secret(uid, salt, digest)

    # -- answers and the per-user lock ------------------------------------------------

    def _lock_over(self, state: RevealState, now: datetime) -> bool:
        minutes = self.config.sensitive.lockout_minutes
        return (
            state.locked_at is not None
            and minutes > 0
            and now >= state.locked_at + timedelta(minutes=minutes)
        )

    def _locked_error(self, user_id: str, state: RevealState, entry_id: str | None) -> Exception:
        cfg = self.config.sensitive
        wait = ""
        if cfg.lockout_minutes > 0 and state.locked_at is not None:
            until = state.locked_at + timedelta(minutes=cfg.lockout_minutes)
            wait = f", or wait until {until.isoformat(timespec='minutes')}"
        return RevealLockedError(
            f"reveal for user {user_id!r} is locked after {cfg.reveal_attempts} wrong "
            f"answers: an administrator must unlock it{wait}",
            user_id=user_id,
            entry_id=entry_id,
        )

    def _answer(
        self,
        user_id: str,
        entry_id: str | None,
        actor: str,
        action: str,
        ok: bool,
        version: str | None = None,
    ) -> RevealState:
        """Record one answer to the challenge against the user's lock; raises unless right.

        A right answer clears the wrong-answer count and, with ``version``, grants a
        reveal of that entry version.
        """
        cfg = self.config.sensitive
        now = self._clock()
        window = timedelta(minutes=cfg.attempt_window_minutes)

        def change(state: RevealState) -> tuple[RevealState, AuditRecord]:
            detail = ""
            if self._lock_over(state, now):
                state = RevealState(
                    granted_until=state.granted_until, granted_version=state.granted_version
                )
                detail = "lock expired"

            def record(outcome: str) -> AuditRecord:
                return AuditRecord(
                    at=now,
                    user_id=user_id,
                    actor=actor,
                    action=action,
                    outcome=outcome,
                    entry_id=entry_id,
                    detail=detail,
                )

            if state.locked_at is not None:
                return state, record("refused: locked")
            if ok:
                until, granted = state.granted_until, state.granted_version
                if version is not None:
                    until, granted = grant_until(now, cfg), version
                outcome = "granted" if version is not None else "ok"
                return RevealState(0, None, None, until, granted), record(outcome)
            if state.first_failure_at is None or now - state.first_failure_at >= window:
                failures, first = 1, now
            else:
                failures, first = state.failures + 1, state.first_failure_at
            locked = now if failures >= cfg.reveal_attempts else None
            new = RevealState(failures, first, locked, state.granted_until, state.granted_version)
            return new, record("denied: locked" if locked else "denied")

        state = self.store.change_reveal(user_id, entry_id, change)
        if state.locked_at is not None:
            raise self._locked_error(user_id, state, entry_id)
        if not ok:
            left = cfg.reveal_attempts - state.failures
            what = "current secret" if action == "set_secret" else "answer to the reveal challenge"
            raise AuthorizationError(
                f"wrong {what}: {left} tries left before reveal is locked for this user",
                user_id=user_id,
                entry_id=entry_id,
            )
        return state

    # -- reveal -------------------------------------------------------------------------

    def audit(
        self, user_id: str, entry_id: str | None, actor: str, action: str, outcome: str
    ) -> AuditRecord:
        """Append one audit record, stamped by the clock."""
        record = AuditRecord(self._clock(), user_id, actor, action, outcome, entry_id)
        self.store.append_audit(record)
        return record

    def _sealed_original(self, entry_id: str, user_id: str) -> tuple[MemoryEntry, bytes]:
        entry = read_entry(self.store, owner_view(user_id), entry_id)
        sealed = self.store.get_original(user_id, entry_id)
        if sealed is None:
            raise ValidationError(
                f"memory {entry_id!r} has no redacted original: its text is shown as stored",
                entry_id=entry_id,
            )
        return entry, sealed

    def authorize_reveal(
        self, entry_id: str, *, user_id: str, secret: str, actor: str = "owner"
    ) -> datetime:
        """Answer the reveal challenge for one entry; returns when the grant expires.

        The grant covers the entry as it is now. A wrong answer raises
        ``AuthorizationError`` (saying how many tries are left); the answer that
        reaches the limit, and every call while the user is locked, raise
        ``RevealLockedError``. Every attempt is audited.
        """
        uid = make_scope(user_id).user_id
        entry, _ = self._sealed_original(entry_id, uid)
        stored = self.store.reveal_secret(uid)
        if stored is None:
            raise ValidationError(
                "no reveal secret is set for this user", remedy="reveal.set_secret"
            )
        ok = isinstance(secret, str) and check_secret(secret, *stored)
        state = self._answer(uid, entry_id, actor, "authorize", ok, format_time(entry.updated_at))
        assert state.granted_until is not None
        return state.granted_until

    def reveal(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """The entry with its original (unredacted) fields, if a reveal of this version of
        it is granted now and the user is not locked."""
        uid = make_scope(user_id).user_id
        entry, sealed = self._sealed_original(entry_id, uid)
        version = format_time(entry.updated_at)
        now = self._clock()
        outcome: list[str] = []

        def check(state: RevealState) -> tuple[RevealState, AuditRecord]:
            if state.locked_at is not None and not self._lock_over(state, now):
                outcome.append("refused: locked")
            elif state.granted_until is None or state.granted_until <= now:
                outcome.append("refused: no valid grant")
            elif state.granted_version != version:
                outcome.append("refused: entry changed since the grant")
            else:
                outcome.append("revealed")
            return state, AuditRecord(now, uid, actor, "reveal", outcome[0], entry_id)

        state = self.store.change_reveal(uid, entry_id, check)
        if outcome[0] == "refused: locked":
            raise self._locked_error(uid, state, entry_id)
        if outcome[0] != "revealed":
            raise AuthorizationError(
                f"revealing {entry_id!r} needs a current authorisation for this version of "
                f"it (grants last {self.config.sensitive.reveal_minutes:g} minutes and end "
                "when the entry changes): call authorize_reveal",
                entry_id=entry_id,
            )
        return entry.replace(**self._protector.unseal(sealed))

    def unlock_reveal(self, entry_id: str | None = None, *, user_id: str, actor: str) -> None:
        """Lift the user's lock and clear their wrong-answer count (an administrator's
        act). ``entry_id``, if given, must be one of the user's redacted entries and is
        written to the audit record."""
        uid = make_scope(user_id).user_id
        if entry_id is not None:
            self._sealed_original(entry_id, uid)
        now = self._clock()
        self.store.change_reveal(
            uid,
            None,
            lambda _state: (RevealState(), AuditRecord(now, uid, actor, "unlock", "ok", entry_id)),
        )

    def audit_log(
        self, *, user_id: str, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        """The user's audit records (reveal attempts, grants, reveals, unlocks), oldest first."""
        scope = make_scope(user_id)
        if entry_id is not None:
            check_entry_id(entry_id)
        return self.store.audit_log(
            scope.user_id,
            entry_id=entry_id,
            limit=check_limit(limit, maximum=1000),
            after=check_offset(after, "after"),
        )


__all__ = ["RevealService"]
