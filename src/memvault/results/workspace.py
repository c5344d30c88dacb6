"""The workspace as calls list it: one row per session of a user (its card, its tasks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class WorkspaceSession:
    """One session of the user's: its workspace (None: a card not tied to one), its
    card's revision (0: no card) and how many tasks it holds."""

    session_id: str
    workspace_id: str | None
    card_revision: int
    tasks: int
    updated_at: datetime | None


__all__ = ["WorkspaceSession"]
