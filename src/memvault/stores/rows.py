"""Converting entries to and from flat database rows (shared by the SQL backends)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ..model import (
    DecisionStatus,
    Domain,
    Kind,
    MemClass,
    MemoryEntry,
    Sensitivity,
    Source,
    Tier,
)

# Column order used by every SELECT of an entry.
ENTRY_COLUMNS: tuple[str, ...] = (
    "id",
    "user_id",
    "agent_id",
    "session_id",
    "workspace_id",
    "name",
    "content",
    "description",
    "kind",
    "mem_class",
    "domain",
    "category",
    "confidence",
    "importance",
    "tier",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "expires_at",
    "status",
    "sensitivity",
    "metadata",
    "source",
    "quarantine",
    "approved_at",
)


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


def entry_to_row(entry: MemoryEntry) -> tuple[Any, ...]:
    return (
        entry.id,
        entry.user_id,
        entry.agent_id,
        entry.session_id,
        entry.workspace_id,
        entry.name,
        entry.content,
        entry.description,
        entry.kind.value,
        entry.mem_class.value,
        entry.domain.value if entry.domain else None,
        entry.category,
        entry.confidence,
        entry.importance,
        entry.tier.value,
        format_time(entry.created_at),
        format_time(entry.updated_at),
        format_time(entry.last_accessed_at),
        entry.access_count,
        format_time(entry.expires_at),
        entry.status.value if entry.status else None,
        entry.sensitivity.value,
        json.dumps(entry.metadata, ensure_ascii=False, sort_keys=True),
        entry.source.value,
        entry.quarantine,
        format_time(entry.approved_at),
    )


def row_to_entry(row: tuple[Any, ...] | Any) -> MemoryEntry:
    (
        id_,
        user_id,
        agent_id,
        session_id,
        workspace_id,
        name,
        content,
        description,
        kind,
        mem_class,
        domain,
        category,
        confidence,
        importance,
        tier,
        created_at,
        updated_at,
        last_accessed_at,
        access_count,
        expires_at,
        status,
        sensitivity,
        metadata,
        source,
        quarantine,
        approved_at,
    ) = tuple(row)[: len(ENTRY_COLUMNS)]
    return MemoryEntry(
        id=id_,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        workspace_id=workspace_id,
        name=name,
        content=content,
        description=description,
        kind=Kind(kind),
        mem_class=MemClass(mem_class),
        domain=Domain(domain) if domain else None,
        category=category,
        confidence=confidence,
        importance=importance,
        tier=Tier(tier),
        created_at=parse_time(created_at),  # type: ignore[arg-type]
        updated_at=parse_time(updated_at),  # type: ignore[arg-type]
        last_accessed_at=parse_time(last_accessed_at),
        access_count=access_count,
        expires_at=parse_time(expires_at),
        status=DecisionStatus(status) if status else None,
        sensitivity=Sensitivity(sensitivity),
        metadata=json.loads(metadata) if metadata else {},
        source=Source(source),
        quarantine=quarantine,
        approved_at=parse_time(approved_at),
    )
