"""One memory an external provider (the vault, Hindsight) recalled, as
``ExternalMemory.recall`` returns it and the HTTP client decodes it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model import MemoryEntry


@dataclass(frozen=True, slots=True)
class ExternalHit:
    """One recalled memory.

    ``score`` is the provider's relevance (higher is better), None where it gives none
    (Hindsight's reflect evidence); ``bank`` is the id of the bank it came from;
    ``metadata`` is what else the provider says about it, JSON-ready (Hindsight: fact
    type, context, dates, entities, tags; the vault: the entry's own metadata);
    ``sources`` the per-channel scores where the provider reports them; ``entry`` the
    vault's full record when the provider is the vault.
    """

    id: str
    text: str
    score: float | None
    bank: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, float] = field(default_factory=dict)
    entry: MemoryEntry | None = None


__all__ = ["ExternalHit"]
