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
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import MemoryEntry
from .rows import ENTRY_COLUMNS, entry_to_row, row_to_entry


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


__all__ = ["StoredVersion", "snapshot_entry", "snapshot_text"]
