"""Validity and history of entries: what was current when (pure policy over stored rows).

An entry is *current* while its ``valid_to`` is unset. Replacing a fact never deletes
the old entry: ``Vault.add(..., supersedes=ID)`` ends the old one's validity
(``valid_to`` = the new entry's creation time, ``superseded_by`` = the new id), and the
new one names the old in ``supersedes``. Every change of an entry keeps the entry as it
was before the change in the store's versions table (``stores.values.StoredVersion``), with when,
who and which fields. From those rows this module answers two questions:

* what an entry looked like at a moment (:func:`state_at`) and whether it was current
  then (:func:`current_at`): point-in-time recall (``as_of``);
* the periods an entry chain went through (:func:`periods`): ``Vault.history``.

Recall leaves superseded entries out by default, inside each channel's query
(:func:`validity_filter` sets ``EntryFilter.current_at``), so they never take the
candidate slots of current ones. With ``as_of`` the store query keeps entries that
existed then and were not superseded before it (exact except for an entry that was
superseded and later reinstated by ``undo``, which :func:`current_at` settles from its
versions), and each is shown as it was then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from ..model import MemoryEntry
from ..results.history import Version
from ..stores.values import EntryFilter, StoredVersion

#: What a version row's ``action`` says ended the state it keeps.
UPDATED = "update"  # an in-place change through Vault.update (or decide)
SUPERSEDED = "superseded"  # a newer entry replaced it (add with supersedes=)
UNDONE = "undo"  # Vault.undo put an earlier state back (or withdrew a successor)
#: The action of an entry's first state: written, or written to replace another.
ADDED = "added"
SUPERSEDING = "supersede"


def validity_filter(
    flt: EntryFilter, *, now: datetime, as_of: datetime | None, include_superseded: bool
) -> EntryFilter:
    """``flt`` with the validity a read asks for: current at ``now`` (unless superseded
    entries are wanted), or, with ``as_of``, existing and not yet superseded then."""
    if as_of is not None:
        return dataclasses.replace(
            flt, current_at=None if include_superseded else as_of, existed_at=as_of
        )
    return dataclasses.replace(flt, current_at=None if include_superseded else now)


def state_at(entry: MemoryEntry, versions: Sequence[StoredVersion], at: datetime) -> MemoryEntry:
    """The entry as it was at ``at``: the state kept by the first change after it, or the
    entry as it is when nothing changed it since (``versions`` oldest first)."""
    for version in versions:
        if version.at > at:
            return version.entry
    return entry


def current_at(state: MemoryEntry, at: datetime) -> bool:
    """Whether ``state`` (an entry as it was at ``at``) was the current fact at ``at``."""
    began = state.valid_from or state.created_at
    return (
        state.created_at <= at
        and began <= at
        and (state.valid_to is None or state.valid_to > at)
        and (state.expires_at is None or state.expires_at > at)
    )


def states_at(
    entries: Iterable[MemoryEntry], versions: Iterable[StoredVersion], at: datetime
) -> dict[str, MemoryEntry]:
    """Of ``entries``, those current at ``at``, each as it was then, by id."""
    by_entry: dict[str, list[StoredVersion]] = {}
    for version in versions:
        by_entry.setdefault(version.entry_id, []).append(version)
    out: dict[str, MemoryEntry] = {}
    for entry in entries:
        kept = sorted(by_entry.get(entry.id, []), key=lambda v: v.seq)
        state = state_at(entry, kept, at)
        if current_at(state, at):
            out[entry.id] = state
    return out


def links(entry: MemoryEntry, versions: Iterable[StoredVersion]) -> set[str]:
    """The ids an entry is or was linked to by supersession (either way)."""
    found: set[str] = set()
    for state in (entry, *(v.entry for v in versions)):
        found.update(i for i in (state.supersedes, state.superseded_by) if i)
    found.discard(entry.id)
    return found


def _ended(state: MemoryEntry, start: datetime) -> bool:
    """Whether ``state`` was already not current when it began at ``start``."""
    return state.valid_to is not None and state.valid_to <= start


def periods(
    entries: Sequence[MemoryEntry], versions: Mapping[str, Sequence[StoredVersion]]
) -> list[Version]:
    """Every period in which one of ``entries`` was current, oldest first (``versions``:
    each entry's rows, oldest first). States that were not current (an entry between
    being superseded and being reinstated) are not periods."""
    out: list[Version] = []
    for entry in entries:
        kept = list(versions.get(entry.id, ()))
        states = [v.entry for v in kept] + [entry]
        start = entry.valid_from or entry.created_at
        actor = entry.source.value
        action = SUPERSEDING if entry.supersedes else ADDED
        changed: tuple[str, ...] = ()
        for i, state in enumerate(states):
            end = kept[i].at if i < len(kept) else state.valid_to
            if not _ended(state, start) and (end is None or end > start):
                out.append(Version(state, start, end, actor, action, changed))
            if i < len(kept):
                change = kept[i]
                start, actor, action, changed = (
                    change.at,
                    change.actor,
                    change.action,
                    change.changed,
                )
    out.sort(key=lambda v: (v.valid_from, v.entry.created_at, v.entry.id))
    return out


__all__ = [
    "ADDED",
    "SUPERSEDED",
    "SUPERSEDING",
    "UNDONE",
    "UPDATED",
    "current_at",
    "links",
    "periods",
    "state_at",
    "states_at",
    "validity_filter",
]
