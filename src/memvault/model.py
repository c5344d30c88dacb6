"""The core data model: one record type, ``MemoryEntry``, serves every seed.

Entries are immutable values; changes go through ``Vault.update`` which returns a
new entry. Enum values are the strings stored in the database and on the wire.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """What a memory is about (seed 002's four types)."""

    USER = "user"  # who the user is: preferences, role, habits
    PROJECT = "project"  # project knowledge: progress, decisions, constraints
    FEEDBACK = "feedback"  # corrections or confirmations of the agent's behaviour
    REFERENCE = "reference"  # pointers to outside resources


class MemClass(StrEnum):
    """How long-lived the memory is and where it came from (seed 004)."""

    SEMANTIC = "semantic"  # stable facts
    SHORT_TERM = "short_term"  # recent day-to-day context
    PROCESS = "process"  # task progress details
    SOURCE_ARCHIVE = "source_archive"  # raw conversation slices
    COMPRESSED_ARCHIVE = "compressed_archive"  # consolidated summaries


class Domain(StrEnum):
    """Work and life memories are kept apart on write and on query (seed 004)."""

    WORK = "work"
    LIFE = "life"


class Tier(StrEnum):
    """Storage tier; recall prefers active, then cold, then archive (seed 004)."""

    ACTIVE = "active"
    COLD = "cold"
    ARCHIVE = "archive"


class Sensitivity(StrEnum):
    """Protection level assigned from what the sensitive-data detectors found."""

    NORMAL = "normal"
    SENSITIVE = "sensitive"
    PROTECTED = "protected"
    SECRET = "secret"


class DecisionStatus(StrEnum):
    """Lifecycle of an entry that records a decision (seed 004)."""

    PROPOSED = "proposed"
    EXPLORING = "exploring"
    PENDING = "pending"
    ADOPTED = "adopted"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"
    INVALID = "invalid"


class Source(StrEnum):
    """Which door a memory came in through: the library (``api``), the CLI, the HTTP API,
    the panel, the MCP server, a model's tool call, extraction from a conversation, an
    archived turn, or a migration (``ui`` is what early versions wrote for the panel)."""

    TOOL = "tool"
    EXTRACTION = "extraction"
    TURN = "turn"
    UI = "ui"
    API = "api"
    MIGRATION = "migration"
    CLI = "cli"
    HTTP = "http"
    PANEL = "panel"
    MCP = "mcp"


#: The metadata key of a decision that lists the adopted decisions it conflicts with
#: (written by the engine, ``memvault.conflicts``; shown by recall while the decision is open).
CONFLICTS_KEY = "conflicts_with"


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (the only clock the engine reads)."""
    return datetime.now(UTC)


def new_id() -> str:
    """A 32-hex-digit id that sorts by creation time (48-bit ms clock + 80 random bits)."""
    ms = time.time_ns() // 1_000_000
    return f"{ms:012x}{os.urandom(10).hex()}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """Who is asking: a user, and optionally one of that user's agents.

    ``agent_id=None`` is the user's shared space. Validation lives in
    ``memvault.validation.make_scope``; build scopes through it.
    """

    user_id: str
    agent_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryEntry:
    """One memory. ``agent_id=None`` means it belongs to the user across agents."""

    id: str
    user_id: str
    content: str
    agent_id: str | None = None
    session_id: str | None = None
    workspace_id: str | None = None
    name: str = ""
    description: str = ""
    kind: Kind = Kind.USER
    mem_class: MemClass = MemClass.SEMANTIC
    domain: Domain | None = None
    # Who the memory is about or from (seed 004's 来源主体): "user", "assistant", or a
    # third party's name; None when nobody said (``memvault.subject``).
    source_subject: str | None = None
    category: str | None = None
    confidence: float | None = None
    importance: float = 0.5
    tier: Tier = Tier.ACTIVE
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    last_accessed_at: datetime | None = None
    access_count: int = 0
    expires_at: datetime | None = None
    status: DecisionStatus | None = None
    sensitivity: Sensitivity = Sensitivity.NORMAL
    metadata: dict[str, Any] = field(default_factory=dict)
    source: Source = Source.API
    # Held for review: None = clear, otherwise why (the scan's pattern ids). A held entry
    # is stored and searchable by its owner but never rendered into a model's prompt.
    quarantine: str | None = None
    # When a person approved the entry's current text (cleared when the text changes).
    approved_at: datetime | None = None
    # Validity (``lifecycle.history``): when this fact became current (None: when it was
    # created), when it stopped being current (None: it still is), the entry that replaced
    # it, and the entry it replaced. Superseded entries are kept, never deleted.
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: str | None = None
    supersedes: str | None = None

    def replace(self, **changes: Any) -> MemoryEntry:
        """A copy with some fields changed (entries are immutable)."""
        return dataclasses.replace(self, **changes)

    @property
    def last_activity(self) -> datetime:
        """When the entry was last written, changed or recalled: what ageing counts from."""
        times = [self.created_at, self.updated_at]
        if self.last_accessed_at is not None:
            times.append(self.last_accessed_at)
        return max(times)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: enums as strings, times as ISO 8601 UTC."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, datetime):
                value = value.isoformat()
            elif isinstance(value, StrEnum):
                value = value.value
            elif isinstance(value, dict):
                value = dict(value)
            out[f.name] = value
        return out


ENTRY_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(MemoryEntry))


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result: the entry and its relevance score (higher is better).

    ``sources`` tells what each channel saw: ``keyword`` (BM25) and ``vector``
    (cosine similarity), for the channels that found the entry.
    """

    entry: MemoryEntry
    score: float
    sources: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry.to_dict(), "score": self.score, "sources": dict(self.sources)}


class EntryOrder(StrEnum):
    """The order a listing pages through: a person browsing looks for the latest
    writes, the first ones, or what changed last. Ties are broken by id."""

    NEWEST = "newest"  # created_at, latest first (the default)
    OLDEST = "oldest"  # created_at, earliest first
    UPDATED = "updated"  # updated_at, latest first

    def sort_key(self, entry: MemoryEntry) -> tuple[datetime, str]:
        """What the order compares (reverse it unless ``OLDEST``)."""
        at = entry.updated_at if self is EntryOrder.UPDATED else entry.created_at
        return at, entry.id


__all__ = [
    "CONFLICTS_KEY",
    "ENTRY_FIELDS",
    "DecisionStatus",
    "Domain",
    "EntryOrder",
    "Hit",
    "Kind",
    "MemClass",
    "MemoryEntry",
    "Scope",
    "Sensitivity",
    "Source",
    "Tier",
    "new_id",
    "utcnow",
]
