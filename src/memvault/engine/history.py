"""Supersession, versions, history and undo of entries (the policy is ``lifecycle.history``).

``HistoryService`` is what ``Vault`` calls for:

* ``add`` with ``supersedes``: the new entry is written and the old one stops being
  current in the same transaction (kept, with ``valid_to`` and ``superseded_by``);
* ``record``: the entry as it was before a change, kept as a version inside the
  transaction of the change (``Vault.update`` and ``decide`` call it), so a failed
  change leaves no version and no version exists without its change;
* ``history``: every period of a fact, following supersession both ways;
* ``undo``: the previous state back, itself recorded, so undoing an undo re-applies.

Restored text is the stored (redacted) text of the version: a sealed original is kept
for the current text only, so an entry whose text an undo brings back has no original
to reveal.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ..errors import ConflictError, ValidationError
from ..lifecycle.decisions import check_move, move_record
from ..lifecycle.history import SUPERSEDED, UNDONE, links, periods, states_at
from ..model import MemoryEntry
from ..results.history import Version
from ..stores.protocols import Store
from ..stores.values import SearchDoc, StoredVersion, View
from ..validation import ENTRY_ID_RE
from .views import read_entry
from .write import Draft, Writer

# Fields that are bookkeeping of use, not of the fact: a change of only these is no version.
_NOT_CHANGES = frozenset({"updated_at", "last_accessed_at", "access_count"})
# Fields an undo keeps as they are now: identity, and the record of use.
_KEPT_ON_UNDO = ("id", "user_id", "created_at", "last_accessed_at", "access_count")
# The longest supersession chain ``history`` follows (a guard, not a limit seen in use).
MAX_CHAIN = 1000


def changed_fields(before: MemoryEntry, after: MemoryEntry) -> tuple[str, ...]:
    """The fields of the fact that differ between two states of an entry."""
    return tuple(
        name
        for name in type(before).__dataclass_fields__
        if name not in _NOT_CHANGES and getattr(before, name) != getattr(after, name)
    )


class HistoryService:
    """Supersession, versions, history and undo, over one store and the write path."""

    def __init__(self, store: Store, writer: Writer, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.writer = writer
        self.clock = clock

    # -- versions ------------------------------------------------------------------

    def record(
        self, before: MemoryEntry, after: MemoryEntry, *, actor: str, action: str, at: datetime
    ) -> None:
        """Keep ``before`` as a version of the entry, ended at ``at`` by ``actor``'s
        ``action`` (nothing when only the bookkeeping of use changed). Call it inside
        the transaction of the change."""
        changed = changed_fields(before, after)
        if changed:
            self.store.add_version(
                StoredVersion(
                    user_id=before.user_id,
                    entry_id=before.id,
                    at=at,
                    actor=actor,
                    action=action,
                    changed=changed,
                    entry=before,
                )
            )

    # -- supersession --------------------------------------------------------------

    def add(self, draft: Draft, *, view: View) -> MemoryEntry:
        """Write ``draft`` as the entry that replaces ``draft.supersedes``, and end the old
        one's validity, in one transaction; ``NotFoundError`` if the old one is not the
        caller's, ``ConflictError`` if it was already replaced."""
        old_id = check_supersedes(draft.supersedes)
        # The worker hears of the new entry once both writes are committed (``after_commit``).
        with self.store.atomic():
            old = self.check_supersedable(view, old_id)
            if old.agent_id != draft.agent_id:
                # Else the agents that saw the old fact would lose it without seeing the new.
                where = f"agent {old.agent_id!r}'s" if old.agent_id else "the user's shared"
                raise ValidationError(
                    f"memory {old.id!r} is in {where} memory: write its replacement there "
                    "too (the same agent_id)",
                    field="supersedes",
                )
            new = self.writer.add(draft, user_id=view.user_id)
            self.supersede(view, old_id, new, actor=new.source.value)
        return new

    def supersede(self, view: View, old_id: str, new: MemoryEntry, *, actor: str) -> MemoryEntry:
        """End ``old_id``'s validity at ``new``'s creation, linked to ``new`` (inside the
        caller's transaction); ``ConflictError`` if it is no longer current."""
        at = new.created_at
        return self._rewrite(
            view,
            old_id,
            lambda cur: _check_current(cur).replace(valid_to=at, superseded_by=new.id),
            actor=actor,
            action=SUPERSEDED,
            at=at,
        )

    def check_supersedable(self, view: View, old_id: str) -> MemoryEntry:
        """The entry a new one is to replace: the caller's, and current."""
        return _check_current(read_entry(self.store, view, old_id))

    def _rewrite(
        self,
        view: View,
        entry_id: str,
        change: Callable[[MemoryEntry], MemoryEntry],
        *,
        actor: str,
        action: str,
        at: datetime,
    ) -> MemoryEntry:
        """Change the entry's validity fields (its text stays, so its index document and
        vector stay) and keep the state before as a version, in one transaction."""
        before: list[MemoryEntry] = []

        def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            before.append(current)
            new = change(current)
            return new, stored.get(entry_id) or self.writer.doc(new)

        with self.store.atomic():
            stored = self.store.search_docs(view.user_id, [entry_id])
            after = self.store.update(view, entry_id, mutate)
            self.record(before[-1], after, actor=actor, action=action, at=at)
        return after

    # -- reading -------------------------------------------------------------------

    def chain(self, view: View, entry_id: str) -> list[MemoryEntry]:
        """The entry and every entry linked to it by supersession, either way, that the
        caller sees (an entry deleted since is left out)."""
        first = read_entry(self.store, view, entry_id)
        found: dict[str, MemoryEntry] = {first.id: first}
        todo = [first]
        while todo and len(found) < MAX_CHAIN:
            entry = todo.pop()
            kept = self.store.versions(view.user_id, [entry.id])
            new = [i for i in links(entry, kept) if i not in found]
            for linked in self.store.get_many(view, new):
                found[linked.id] = linked
                todo.append(linked)
        return sorted(found.values(), key=lambda e: (e.created_at, e.id))

    def history(self, view: View, entry_id: str) -> list[Version]:
        """Every period in which the fact was current, oldest first: the entry's own
        versions and those of the entries that replaced it or that it replaced."""
        entries = self.chain(view, entry_id)
        kept: dict[str, list[StoredVersion]] = {}
        for version in self.store.versions(view.user_id, [e.id for e in entries]):
            kept.setdefault(version.entry_id, []).append(version)
        return periods(entries, kept)

    def as_of(self, user_id: str, entries: list[MemoryEntry], at: datetime) -> list[MemoryEntry]:
        """Of ``entries`` (in order), those current at ``at``, each as it was then."""
        if not entries:
            return []
        kept = self.store.versions(user_id, [e.id for e in entries])
        states = states_at(entries, kept, at)
        return [states[e.id] for e in entries if e.id in states]

    # -- undo ----------------------------------------------------------------------

    def undo(self, view: View, entry_id: str, *, actor: str) -> MemoryEntry:
        """Put the entry's previous state back, recorded as a new version; returns the
        entry that is current afterwards. An entry written to replace another, and not
        changed since, is withdrawn and the one it replaced is current again.
        ``ValidationError`` when there is nothing to undo."""
        with self.store.atomic():
            entry = read_entry(self.store, view, entry_id)
            kept = self.store.versions(view.user_id, [entry.id])
            now = self.clock()
            text_changed = False
            if kept:
                restored, text_changed = self._restore(
                    view, entry, kept[-1].entry, actor=actor, now=now
                )
            elif entry.supersedes and entry.valid_to is None:
                restored = self._rewrite(
                    view,
                    entry.id,
                    lambda cur: cur.replace(valid_to=now, superseded_by=None),
                    actor=actor,
                    action=UNDONE,
                    at=now,
                )
            else:
                raise ValidationError(
                    f"nothing to undo for memory {entry.id!r}: it has not been changed "
                    "or replaced since it was written (see its history)",
                    field="id",
                    entry_id=entry.id,
                )
            self._settle(view, entry, restored, actor=actor, now=now)
        self.writer.derived.rewritten(restored, text_changed)  # after the commit
        current = restored
        if restored.valid_to is not None:
            # Withdrawn or superseded again: the fact now lives in the entry it links to.
            other = restored.superseded_by or restored.supersedes
            found = self.store.get(view, other) if other else None
            if found is not None and found.valid_to is None:
                current = found
        return current

    def _restore(
        self, view: View, entry: MemoryEntry, target: MemoryEntry, *, actor: str, now: datetime
    ) -> tuple[MemoryEntry, bool]:
        """``entry`` rewritten as ``target`` (an earlier state of it), with a new version
        time, and whether the text the embedder reads changed (the store then dropped the
        vector; the caller has it embedded again once committed)."""
        text_before = self.writer.embed_text(entry)
        before: list[MemoryEntry] = []

        def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            before.append(current)
            _check_decision(current, target)
            kept = {name: getattr(current, name) for name in _KEPT_ON_UNDO}
            new = target.replace(**kept, updated_at=self.writer.next_version(current))
            return new, self.writer.doc(new)

        text_changed = self.writer.embed_text(target) != text_before
        original = None if text_changed else ...
        after = self.store.update(view, entry.id, mutate, original=original)
        self.record(before[-1], after, actor=actor, action=UNDONE, at=now)
        if after.status is not None and after.status != before[-1].status:
            self.store.append_audit(  # a decision's move, audited like any other
                move_record(
                    at=now,
                    user_id=view.user_id,
                    actor=actor,
                    entry_id=after.id,
                    before=before[-1].status,
                    after=after.status,
                    reason="undo",
                )
            )
        return after, text_changed

    def _settle(
        self, view: View, before: MemoryEntry, after: MemoryEntry, *, actor: str, now: datetime
    ) -> None:
        """Make the entries an undo's entry links to agree with its new state: what it
        replaces is superseded while it is current, current again when it is withdrawn;
        what replaced it is withdrawn when it is current again, current when it is
        superseded again."""
        linked = {i for i in (after.supersedes, after.superseded_by, before.superseded_by) if i}
        for other in self.store.get_many(view, sorted(linked)):
            change = _settled(after, other, now)
            if change is not None:
                self._rewrite(view, other.id, change, actor=actor, action=UNDONE, at=now)


def check_supersedes(value: object) -> str:
    """The id of the entry a write replaces, or ``ValidationError`` naming the field."""
    if not isinstance(value, str) or not ENTRY_ID_RE.fullmatch(value):
        raise ValidationError(
            "supersedes must be the id of the memory this one replaces, as returned by "
            "add/list/search",
            field="supersedes",
        )
    return value


def _check_decision(current: MemoryEntry, target: MemoryEntry) -> None:
    """An undo moves a decision only along the lifecycle (``lifecycle.decisions``)."""
    if target.status == current.status:
        return
    if target.status is None:
        raise ValidationError(
            f"memory {current.id!r} became a decision with its last change, and a decision "
            "cannot stop being one: move it with decide (for example to rejected)",
            field="status",
            entry_id=current.id,
        )
    check_move(current.status, target.status, by_user=True)


def _check_current(entry: MemoryEntry) -> MemoryEntry:
    if entry.valid_to is not None:
        successor = f" by {entry.superseded_by!r}" if entry.superseded_by else ""
        raise ConflictError(
            f"memory {entry.id!r} was already replaced{successor}: supersede the current "
            "entry instead (see its history)",
            entry_id=entry.id,
        )
    return entry


def _settled(
    entry: MemoryEntry, other: MemoryEntry, now: datetime
) -> Callable[[MemoryEntry], MemoryEntry] | None:
    """The change that makes ``other`` agree with ``entry``'s new state, or None."""
    current = entry.valid_to is None
    if other.id == entry.supersedes:  # the entry it replaces
        if current and other.valid_to is None:
            return lambda cur: cur.replace(valid_to=now, superseded_by=entry.id)
        if not current and entry.superseded_by is None and other.superseded_by == entry.id:
            return lambda cur: cur.replace(valid_to=None, superseded_by=None)
        return None
    if entry.superseded_by == other.id:  # superseded again: its successor is current
        if other.valid_to is not None and other.supersedes == entry.id:
            return lambda cur: cur.replace(valid_to=None, superseded_by=None)
        return None
    if current and other.supersedes == entry.id and other.valid_to is None:
        return lambda cur: cur.replace(valid_to=now, superseded_by=None)  # withdrawn
    return None


__all__ = ["MAX_CHAIN", "HistoryService", "changed_fields", "check_supersedes"]
