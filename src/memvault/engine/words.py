"""The keyword words of ``Vault.add`` and ``Vault.update``, typed for their callers.

Each is the typed mirror of a row set of ``fields`` (``KEPT`` for a new memory,
``PATCHABLE`` for a change; ``tests/test_fields.py`` keeps them true through the
signatures ``results.filters.takes`` spells out), taken as ``**fields: Unpack[...]``.
The write path reads them into a ``Draft`` or a ``Patch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from ..model import DecisionStatus, Domain, Kind, MemClass, Source, Tier


class NewMemory(TypedDict, total=False):
    """What ``Vault.add`` takes besides the content and who writes it."""

    kind: Kind | str
    name: str | None
    description: str | None
    metadata: Mapping[str, Any] | None
    session_id: str | None
    workspace_id: str | None
    mem_class: MemClass | str
    domain: Domain | str | None
    category: str | None
    confidence: float | None
    importance: float
    status: DecisionStatus | str | None
    expires_at: Any
    source: Source | str
    id: str | None
    source_subject: str | None
    supersedes: str | None


#: ``Vault.add``'s defaults other than None.
NEW_DEFAULTS: dict[str, object] = {
    "kind": Kind.USER,
    "mem_class": MemClass.SEMANTIC,
    "importance": 0.5,
    "source": Source.API,
}


class Changes(TypedDict, total=False):
    """What ``Vault.update`` may change (None: keep; ``expires_at``: None clears it)."""

    content: str | None
    name: str | None
    description: str | None
    kind: Kind | str | None
    metadata: Mapping[str, Any] | None
    mem_class: MemClass | str | None
    domain: Domain | str | None
    category: str | None
    importance: float | None
    tier: Tier | str | None
    status: DecisionStatus | str | None
    expires_at: Any
    source_subject: str | None


__all__ = ["NEW_DEFAULTS", "Changes", "NewMemory"]
