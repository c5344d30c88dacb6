"""``vault.reveal``: a sensitive entry's original, under the owner's secret (seed 004).

Thin over ``engine.reveal``: the secret (set, changed, reset by an administrator), the
challenge that grants one entry for a while, the reveal itself, the lock after failed
answers, and the audit log every one of these writes to.
"""

from __future__ import annotations

from datetime import datetime

from ...model import MemoryEntry
from ...stores.values import AuditRecord
from ..reveal import RevealService
from .deprecated import warn


class Reveal:
    """The reveal calls of one vault, over its ``RevealService``."""

    def __init__(self, service: RevealService) -> None:
        self._service = service

    def __call__(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """``vault.reveal(...)``, the flat call before this namespace: ``entry``."""
        warn("Vault.reveal(...)", "vault.reveal.entry(...)")
        return self.entry(entry_id, user_id=user_id, actor=actor)

    def set_secret(
        self, *, user_id: str, secret: str, current: str | None = None, actor: str = "owner"
    ) -> None:
        """Set (or, with ``current``, change) the user's reveal secret."""
        self._service.set_reveal_secret(
            user_id=user_id, secret=secret, current=current, actor=actor
        )

    def reset_secret(self, *, user_id: str, secret: str, actor: str) -> None:
        """Replace the secret without knowing it and lift the lock (an administrator's act)."""
        self._service.reset_reveal_secret(user_id=user_id, secret=secret, actor=actor)

    def authorize(
        self, entry_id: str, *, user_id: str, secret: str, actor: str = "owner"
    ) -> datetime:
        """Answer the reveal challenge for one entry; returns when the grant expires."""
        return self._service.authorize_reveal(entry_id, user_id=user_id, secret=secret, actor=actor)

    def entry(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """The entry with its original fields, under a current grant for this version."""
        return self._service.reveal(entry_id, user_id=user_id, actor=actor)

    def unlock(self, entry_id: str | None = None, *, user_id: str, actor: str) -> None:
        """Lift the user's reveal lock (an administrator's act)."""
        self._service.unlock_reveal(entry_id, user_id=user_id, actor=actor)

    def audit_log(
        self, *, user_id: str, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        """The user's audit records, oldest first."""
        return self._service.audit_log(user_id=user_id, entry_id=entry_id, limit=limit, after=after)


__all__ = ["Reveal"]
