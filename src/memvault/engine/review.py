"""Reviewing quarantined memories: list the held ones, approve or reject each (issue 11).

The write path holds an entry for review when the threat scan finds something in a
raw conversation archive or a batch record, or when the scan itself is unsure (see
``security.quarantine``). A held entry is stored and visible to its owner, but no
prompt block or tool result shows it to a model until a person approves it.
Approving clears the hold and marks the entry's current text as approved (so the
render-time rescan lets it through); rejecting deletes it. Both are written to the
audit log. ``Vault`` composes it and delegates to it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ..errors import ConflictError, NotFoundError
from ..model import MemoryEntry
from ..stores.protocols import Store
from ..stores.values import AuditRecord, EntryFilter, SearchDoc, View
from ..validation import check_entry_id, check_limit, check_offset, make_scope
from .views import owner_view, read_entry
from .write import Writer


class ReviewService:
    """The review queue of held entries, over one store; ``writer`` is the write path
    (its index document, and deletes that the derived state follows)."""

    def __init__(self, store: Store, clock: Callable[[], datetime], writer: Writer) -> None:
        self.store = store
        self._clock = clock
        self._writer = writer

    def quarantined(
        self, *, user_id: str, agent_id: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryEntry]:
        """The user's entries held for review, newest first (the review queue)."""
        return self.store.list_entries(
            owner_view(user_id, agent_id),
            EntryFilter(quarantined=True),
            limit=check_limit(limit, maximum=1000),
            offset=check_offset(offset),
        )

    def approve(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """Release an entry: it is no longer held and its current text counts as approved.

        Works on any of the user's entries (also one stored clear that a newer scan
        would flag); ``NotFoundError`` if it is not the user's. Audited as "approve".
        """
        scope = make_scope(user_id)
        check_entry_id(entry_id)
        now = self._clock()
        previous: list[str | None] = []

        def release(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            previous.append(current.quarantine)
            new = current.replace(quarantine=None, approved_at=now)
            return new, self._writer.doc(new)

        with self.store.atomic():
            entry = self.store.update(View(scope.user_id, all_agents=True), entry_id, release)
            if self._writer.linker is not None:  # held text named nothing: now it does
                self._writer.linker.link([entry])
        self._review_audit(scope.user_id, entry_id, actor, "approve", previous[0] or "")
        return entry

    def hold(self, entry: MemoryEntry, reason: str) -> MemoryEntry | None:
        """Hold ``entry`` for review with ``reason``, as the write path holds what a rule
        flags: the model screen's verdict, reached after the write (on its new vector).
        Only the version that was screened, and only while no person approved it and
        nothing holds it yet; None when it changed, went or was held meanwhile. Its
        version (``updated_at``) is kept, so the vector screened stays its vector."""
        held: list[MemoryEntry] = []

        def mark(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            same = current.updated_at == entry.updated_at
            if same and current.approved_at is None and current.quarantine is None:
                current = current.replace(quarantine=reason)
                held.append(current)
            return current, self._writer.doc(current)

        try:
            with self.store.atomic():
                stored = self.store.update(View(entry.user_id, all_agents=True), entry.id, mark)
                if held and self._writer.linker is not None:  # held text names nothing
                    self._writer.linker.link([stored])
        except NotFoundError:
            return None  # deleted meanwhile
        return stored if held else None

    def reject(self, entry_id: str, *, user_id: str, actor: str = "owner") -> None:
        """Delete a held entry. Audited as "reject".

        ``NotFoundError`` if it is not the user's; ``ConflictError`` if it is not held
        (delete an ordinary entry with ``delete``).
        """
        scope = make_scope(user_id)
        owner = View(scope.user_id, all_agents=True)
        entry = read_entry(self.store, owner, entry_id)
        if entry.quarantine is None:
            raise ConflictError(
                f"memory {entry_id!r} is not quarantined, so there is nothing to reject: "
                "delete it instead if it should go",
                entry_id=entry_id,
                user_id=scope.user_id,
            )
        self._writer.delete(owner, entry_id)
        self._review_audit(scope.user_id, entry_id, actor, "reject", entry.quarantine)

    def _review_audit(
        self, user_id: str, entry_id: str, actor: str, action: str, detail: str
    ) -> None:
        self.store.append_audit(
            AuditRecord(
                at=self._clock(),
                user_id=user_id,
                actor=actor,
                action=action,
                outcome="ok",
                entry_id=entry_id,
                detail=detail,
            )
        )


__all__ = ["ReviewService"]
