"""The authorised reveal of redacted originals, and the audit log (seed 004).

Seeing the original of a redacted memory takes the user's reveal secret: a right
answer grants a reveal for ``sensitive.reveal_minutes``; ``reveal_attempts`` wrong
answers lock the entry until an administrator unlocks it. Every attempt, grant,
reveal and unlock is appended to the audit log, which the database refuses to
change or delete. ``Vault`` mixes this in; it lives apart to keep the facade small.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from .errors import AuthorizationError, NotFoundError, RevealLockedError, ValidationError
from .model import MemoryEntry
from .security.protect import Protector, check_secret, grant_until, hash_secret
from .stores.base import AuditRecord, RevealState, Store, View
from .validation import check_entry_id, check_limit, check_offset, make_scope

if TYPE_CHECKING:
    from .config import VaultConfig


class RevealMixin:
    """Reveal and audit methods of ``Vault``."""

    store: Store
    config: VaultConfig
    _clock: Callable[[], datetime]
    _protector: Protector

    def get(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> MemoryEntry:
        raise NotImplementedError

    def _not_found(self, entry_id: str, user_id: str) -> NotFoundError:
        raise NotImplementedError

    # -- sensitive data: authorised reveal --------------------------------------------

    def set_reveal_secret(self, *, user_id: str, secret: str, actor: str = "owner") -> None:
        """Set the answer that authorises revealing this user's originals (stored hashed)."""
        scope = make_scope(user_id)
        if not isinstance(secret, str) or len(secret) < 6:
            raise ValidationError("the reveal secret must be a string of at least 6 characters")
        salt, digest = hash_secret(secret)
        self.store.set_reveal_secret(scope.user_id, salt, digest)
        self._audit(scope.user_id, None, actor, "set_secret", "ok")

    def _audit(
        self, user_id: str, entry_id: str | None, actor: str, action: str, outcome: str
    ) -> AuditRecord:
        record = AuditRecord(self._clock(), user_id, actor, action, outcome, entry_id)
        self.store.append_audit(record)
        return record

    def _sealed_original(self, entry_id: str, user_id: str) -> bytes:
        view = View(user_id, all_agents=True)
        check_entry_id(entry_id)
        if self.store.get(view, entry_id) is None:
            raise self._not_found(entry_id, user_id)
        sealed = self.store.get_original(user_id, entry_id)
        if sealed is None:
            raise ValidationError(
                f"memory {entry_id!r} has no redacted original: its text is shown as stored",
                entry_id=entry_id,
            )
        return sealed

    def authorize_reveal(
        self, entry_id: str, *, user_id: str, secret: str, actor: str = "owner"
    ) -> datetime:
        """Answer the reveal challenge for one entry; returns when the grant expires.

        A wrong answer raises ``AuthorizationError`` (saying how many tries are left);
        the last allowed wrong answer locks reveal for the entry (``RevealLockedError``
        from then on, until ``unlock_reveal``). Every attempt is audited.
        """
        scope = make_scope(user_id)
        self._sealed_original(entry_id, scope.user_id)
        stored = self.store.reveal_secret(scope.user_id)
        if stored is None:
            raise ValidationError(
                "no reveal secret is set for this user: call set_reveal_secret first"
            )
        ok = isinstance(secret, str) and check_secret(secret, *stored)
        cfg = self.config.sensitive
        now = self._clock()

        def change(state: RevealState) -> tuple[RevealState, AuditRecord]:
            def record(outcome: str) -> AuditRecord:
                return AuditRecord(now, scope.user_id, actor, "authorize", outcome, entry_id)

            if state.locked:
                return state, record("refused: locked")
            if ok:
                return RevealState(0, False, grant_until(now, cfg)), record("granted")
            failures = state.failures + 1
            locked = failures >= cfg.reveal_attempts
            return (
                RevealState(failures, locked, None),
                record("denied: locked" if locked else "denied"),
            )

        state = self.store.change_reveal(scope.user_id, entry_id, change)
        if state.locked:
            raise RevealLockedError(
                f"reveal of {entry_id!r} is locked after {cfg.reveal_attempts} wrong answers: "
                "an administrator must unlock it",
                entry_id=entry_id,
            )
        if not ok:
            left = cfg.reveal_attempts - state.failures
            raise AuthorizationError(
                f"wrong answer to the reveal challenge: {left} tries left before "
                f"{entry_id!r} is locked",
                entry_id=entry_id,
            )
        assert state.granted_until is not None
        return state.granted_until

    def reveal(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """The entry with its original (unredacted) fields, if a reveal is granted now."""
        scope = make_scope(user_id)
        sealed = self._sealed_original(entry_id, scope.user_id)
        now = self._clock()
        outcome: list[str] = []

        def check(state: RevealState) -> tuple[RevealState, AuditRecord]:
            if state.locked:
                outcome.append("refused: locked")
            elif state.granted_until is None or state.granted_until <= now:
                outcome.append("refused: no valid grant")
            else:
                outcome.append("revealed")
            record = AuditRecord(now, scope.user_id, actor, "reveal", outcome[0], entry_id)
            return state, record

        state = self.store.change_reveal(scope.user_id, entry_id, check)
        if state.locked:
            raise RevealLockedError(f"reveal of {entry_id!r} is locked", entry_id=entry_id)
        if outcome[0] != "revealed":
            raise AuthorizationError(
                f"revealing {entry_id!r} needs a current authorisation (grants last "
                f"{self.config.sensitive.reveal_minutes:g} minutes): call authorize_reveal",
                entry_id=entry_id,
            )
        entry = self.get(entry_id, user_id=scope.user_id)
        return entry.replace(**self._protector.unseal(sealed))

    def unlock_reveal(self, entry_id: str, *, user_id: str, actor: str) -> None:
        """Clear the lock and wrong-answer count of one entry (an administrator's act)."""
        scope = make_scope(user_id)
        self._sealed_original(entry_id, scope.user_id)
        now = self._clock()
        self.store.change_reveal(
            scope.user_id,
            entry_id,
            lambda _state: (
                RevealState(),
                AuditRecord(now, scope.user_id, actor, "unlock", "ok", entry_id),
            ),
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
