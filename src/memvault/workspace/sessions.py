"""The sessions a user has on the workspace side: every session with a state card
or a task, with the workspace it is tied to — so a surface can offer them to pick from
instead of asking for an id from memory (the panel's Workspace screen, the CLI).

Read-only, over the store's cards, links and tasks of one user; another user's sessions
never appear.
"""

from __future__ import annotations

from datetime import datetime

from ..results.workspace import WorkspaceSession
from ..validation import check_ident, make_scope
from .links import require_store


def workspace_sessions(
    store: object, user_id: str, *, workspace_id: str | None = None
) -> list[WorkspaceSession]:
    """The user's sessions with a card or a task, by session id; ``workspace_id``: only
    those tied to that workspace."""
    backend = require_store(store)
    user_id = make_scope(user_id).user_id
    only = None if workspace_id is None else check_ident(workspace_id, "workspace_id")
    links = {link.session_id: link.workspace_id for link in backend.session_links(user_id)}
    cards = {card.session_id: card for card in backend.cards(user_id)}
    counts: dict[str, int] = {}
    latest: dict[str, datetime] = {}
    for task in backend.tasks(user_id):
        counts[task.session_id] = counts.get(task.session_id, 0) + 1
        seen = latest.get(task.session_id)
        latest[task.session_id] = task.updated_at if seen is None else max(seen, task.updated_at)
    out: list[WorkspaceSession] = []
    for session_id in sorted(set(links) | set(cards) | set(counts)):
        workspace = links.get(session_id)
        if only is not None and workspace != only:
            continue
        card = cards.get(session_id)
        times = [t for t in (latest.get(session_id),) if t is not None]
        if card is not None:
            times.append(card.updated_at)
        out.append(
            WorkspaceSession(
                session_id=session_id,
                workspace_id=workspace,
                card_revision=card.revision if card is not None else 0,
                tasks=counts.get(session_id, 0),
                updated_at=max(times) if times else None,
            )
        )
    return out


__all__ = ["workspace_sessions"]
