"""An entry's earlier versions, as every backend stores them.

A version is the entry exactly as it was just before one change (an update, being
superseded, an undo), with when the change happened, who made it and which fields it
changed. Rows are keyed ``(user_id, entry_id, seq)``, ``seq`` counting from 1 per
entry, and go with their entry: deleting or erasing the entry deletes them.

The entry is kept as one JSON object of its stored column values (``stores.rows``), so
the versions table needs no change when a field is added; a field an old version lacks
takes its default when read back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import MemoryEntry
from .rows import ENTRY_COLUMNS, entry_to_row, format_time, parse_time, row_to_entry


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One earlier version of an entry: ``entry`` as it was until ``at``."""

    user_id: str
    entry_id: str
    at: datetime  # when the change that ended this version happened
    actor: str  # who made that change ("owner", "model", "api", ...)
    action: str  # what the change was ("update", "superseded", "undo", ...)
    changed: tuple[str, ...]  # the fields the change changed
    entry: MemoryEntry
    seq: int = 0  # 1, 2, ... per entry; assigned by the store


def snapshot_text(entry: MemoryEntry) -> str:
    """The entry as the JSON text a version row keeps."""
    return json.dumps(
        dict(zip(ENTRY_COLUMNS, entry_to_row(entry), strict=True)),
        ensure_ascii=False,
        sort_keys=True,
    )


def snapshot_entry(text: str) -> MemoryEntry:
    """The entry of a version row's JSON text (fields it lacks take their defaults)."""
    stored: dict[str, Any] = json.loads(text)
    base = MemoryEntry(id=stored["id"], user_id=stored["user_id"], content=stored["content"])
    defaults = dict(zip(ENTRY_COLUMNS, entry_to_row(base), strict=True))
    return row_to_entry(tuple(stored.get(c, defaults[c]) for c in ENTRY_COLUMNS))


#: The columns of a version row, in the order every backend writes and reads them.
VERSION_COLUMNS = ("user_id", "entry_id", "seq", "at", "actor", "action", "changed", "snapshot")


def version_values(version: StoredVersion) -> tuple[Any, ...]:
    """A version's values for the columns after ``seq`` (which the store draws)."""
    return (
        format_time(version.at),
        version.actor,
        version.action,
        ",".join(version.changed),
        snapshot_text(version.entry),
    )


def insert_version_sql(mark: str) -> str:
    """One version row, its ``seq`` one more than the entry's last (parameters: user id,
    entry id, the :func:`version_values`, user id, entry id). The entry's row is locked
    by the change the version belongs to, so two changes of one entry never draw the
    same ``seq``."""
    return (
        f"INSERT INTO memory_versions ({', '.join(VERSION_COLUMNS)}) "
        f"SELECT {mark}, {mark}, coalesce(max(v.seq), 0) + 1, {mark}, {mark}, {mark}, {mark}, "
        f"{mark} FROM memory_versions v WHERE v.user_id = {mark} AND v.entry_id = {mark}"
    )


def select_versions_sql(mark: str, count: int) -> str:
    """The versions of ``count`` entries of one user, by entry then ``seq``."""
    marks = ", ".join(mark for _ in range(count))
    return (
        f"SELECT {', '.join(VERSION_COLUMNS)} FROM memory_versions "
        f"WHERE user_id = {mark} AND entry_id IN ({marks}) ORDER BY entry_id, seq"
    )


def version_of(row: Sequence[Any]) -> StoredVersion:
    """A row of :func:`select_versions_sql` as a version."""
    at = parse_time(row[3])
    assert at is not None
    return StoredVersion(
        user_id=row[0],
        entry_id=row[1],
        seq=int(row[2]),
        at=at,
        actor=row[4],
        action=row[5],
        changed=tuple(c for c in str(row[6]).split(",") if c),
        entry=snapshot_entry(row[7]),
    )


__all__ = [
    "VERSION_COLUMNS",
    "StoredVersion",
    "insert_version_sql",
    "select_versions_sql",
    "snapshot_entry",
    "snapshot_text",
    "version_of",
    "version_values",
]
