"""Which workspace a session belongs to: fixed by the first card or task that links the
two, and freed again when neither a card nor a task refers to the session any more.

A task never crosses workspaces, so a session (a conversation) of one workspace cannot
take a task or a card of another; the refusal says which workspace the session is in.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol, runtime_checkable

from ..errors import UnsupportedOperationError, ValidationError
from ..stores.protocols import Transactional, WorkspaceStore


@runtime_checkable
class WorkspaceBackend(WorkspaceStore, Transactional, Protocol):
    """What the workspace needs of a store: its tables, and one transaction over several
    writes (a task and its session's link land together or not at all)."""


def require_store(store: object) -> WorkspaceBackend:
    if not isinstance(store, WorkspaceBackend):
        raise UnsupportedOperationError(
            "this store keeps no state cards or tasks: use a SQLite, PostgreSQL, MySQL or "
            "memory:// store"
        )
    return store


class Links:
    """The sessions' workspaces on one store."""

    def __init__(self, store: WorkspaceStore, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._clock = clock

    def link(self, user_id: str, session_id: str, workspace_id: str) -> None:
        """Tie the session to ``workspace_id``; refused when it belongs to another."""
        bound = self._store.link_session(user_id, session_id, workspace_id, now=self._clock())
        if bound != workspace_id:
            raise ValidationError(
                f"session {session_id!r} belongs to workspace {bound!r}, not "
                f"{workspace_id!r}: a conversation stays in one workspace, so link the task "
                f"or card to a session of workspace {workspace_id!r} (or a new session)",
                field="session_id",
                session_id=session_id,
                workspace_id=bound,
            )

    def workspace_of(self, user_id: str, session_id: str) -> str | None:
        link = self._store.session_link(user_id, session_id)
        return link.workspace_id if link is not None else None

    def release(self, user_id: str, session_id: str) -> None:
        """Free the session's workspace when no card and no task refers to it."""
        store = self._store
        if store.get_card(user_id, session_id) is None and not store.tasks(
            user_id, session_id=session_id
        ):
            store.unlink_session(user_id, session_id)
