"""Converting entries to and from flat database rows (shared by the SQL backends).

The columns and their encoding come from the field table (``memvault.fields``): one
column per stored field, in table order; an enum is stored as its value, a time as
fixed-width UTC text, metadata as JSON with sorted keys.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import numpy as np

from ..fields import STORED, Column, FieldSpec
from ..model import MemoryEntry
from .values import RevealState, StoredVectors

# Column order used by every SELECT of an entry.
ENTRY_COLUMNS: tuple[str, ...] = tuple(f.name for f in STORED)


def format_time(value: datetime | None) -> str | None:
    """Fixed-width UTC text (four-digit year, microseconds), so lexical order is time order."""
    if value is None:
        return None
    v = value.astimezone(UTC)
    return (
        f"{v.year:04d}-{v.month:02d}-{v.day:02d}T"
        f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}Z"
    )


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value).astimezone(UTC)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _json_object(text: str | None) -> Any:
    return json.loads(text) if text else {}


def _enum_value(value: StrEnum | None) -> str | None:
    return None if value is None else value.value


def _encoder(spec: FieldSpec) -> Callable[[Any], Any] | None:
    """How a field's value becomes its column value (None: as it is)."""
    if spec.column is Column.ENUM:
        return _enum_value
    if spec.column is Column.TIME:
        return format_time
    if spec.column is Column.JSON:
        return _json_text
    return None


def _decoder(spec: FieldSpec) -> Callable[[Any], Any] | None:
    """How a column value becomes the field's value (None: as it is)."""
    if spec.column is Column.ENUM:
        cls = spec.enum
        if cls is None:
            raise TypeError(f"field {spec.name} is stored as an enum but its type is not one")
        return (lambda raw: cls(raw) if raw else None) if spec.optional else cls
    if spec.column is Column.TIME:
        return parse_time
    if spec.column is Column.JSON:
        return _json_object
    return None


# Per column: its field name and converters, made once from the table.
_CODECS: tuple[tuple[str, Callable[[Any], Any] | None, Callable[[Any], Any] | None], ...] = tuple(
    (f.name, _encoder(f), _decoder(f)) for f in STORED
)


def entry_to_row(entry: MemoryEntry) -> tuple[Any, ...]:
    """The entry's column values, in ``ENTRY_COLUMNS`` order."""
    return tuple(
        getattr(entry, name) if encode is None else encode(getattr(entry, name))
        for name, encode, _ in _CODECS
    )


def row_to_entry(row: tuple[Any, ...] | Any) -> MemoryEntry:
    """The entry of a row whose first columns are ``ENTRY_COLUMNS`` (more may follow)."""
    values = {
        name: raw if decode is None else decode(raw)
        for (name, _, decode), raw in zip(_CODECS, tuple(row), strict=False)
    }
    return MemoryEntry(**values)


def reveal_state(user: Sequence[Any] | None, grant: Sequence[Any] | None) -> RevealState:
    """The reveal state from a ``reveal_users`` row (failures, first_failure_at, locked_at)
    and a ``reveal_grants`` row (granted_until, version); None where there is no row."""
    return RevealState(
        int(user[0]) if user else 0,
        parse_time(user[1]) if user else None,
        parse_time(user[2]) if user else None,
        parse_time(grant[0]) if grant else None,
        grant[1] if grant else None,
    )


def stored_vectors(rows: Sequence[Any], mark: int) -> StoredVectors:
    """(id, agent_id, dim, float32 bytes) rows as one matrix, for every SQL backend; rows of
    another size than the first are left out (a model's vectors share one size)."""
    if not rows:
        return StoredVectors([], [], np.zeros((0, 0), dtype=np.float32), mark)
    dim = rows[0][2]
    rows = [r for r in rows if r[2] == dim]
    matrix = np.frombuffer(b"".join(bytes(r[3]) for r in rows), dtype=np.float32)
    return StoredVectors(
        [r[0] for r in rows], [r[1] for r in rows], matrix.reshape(len(rows), dim).copy(), mark
    )


# -- an entry as one JSON text: what a version row keeps (``values.StoredVersion``) --


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
