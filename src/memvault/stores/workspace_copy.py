"""Copying one user's workspace between stores (``memvault migrate-store``): the
sessions' workspaces, every state card with its whole revision history, and the tasks.

Through the ``WorkspaceStore`` protocol only, so any backend is source or target. A card
is copied by replaying its revisions in order (each with its own diff, actor and time),
so the target's history is the source's, revision numbers included; a run cut short
leaves a prefix of that history, which the next run finishes. A task lands at its first
revision on the target (like a profile document), with its creation and update times.
``refuse`` runs before anything is written and names what the target holds otherwise;
``same`` compares both sides after the copy.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConflictError
from .protocols import WorkspaceStore
from .workspace_values import CardRevision, StoredTask


@dataclass(frozen=True, slots=True)
class WorkspaceCopy:
    """What one user's workspace holds on the source (and, after the check, the target)."""

    cards: int = 0
    revisions: int = 0
    tasks: int = 0


def _history(store: WorkspaceStore, uid: str, session_id: str) -> list[tuple[object, ...]]:
    return [_revision_key(r) for r in store.card_revisions(uid, session_id)]


def _revision_key(r: CardRevision) -> tuple[object, ...]:
    return (r.revision, r.document, r.diff, r.actor, r.changed_at)


def _task_key(t: StoredTask) -> tuple[object, ...]:
    # Not the revision: it starts again at 1 on the target.
    return (t.workspace_id, t.session_id, t.title, t.notes, t.status, t.created_at, t.updated_at)


def refuse(source: WorkspaceStore, target: WorkspaceStore, uid: str) -> None:
    """``ConflictError`` when the target holds a link, card or task of ``uid`` that the
    copy could not keep (another workspace, another history, another task)."""
    nothing = "migrate into an empty store (or erase that user there first); nothing was written"
    for link in source.session_links(uid):
        there = target.session_link(uid, link.session_id)
        if there is not None and there.workspace_id != link.workspace_id:
            raise ConflictError(
                f"the target puts session {link.session_id!r} of user {uid!r} in workspace "
                f"{there.workspace_id!r}, the source in {link.workspace_id!r}: {nothing}",
                user_id=uid,
                session_id=link.session_id,
            )
    for card in source.cards(uid):
        theirs = _history(target, uid, card.session_id)
        if theirs and theirs != _history(source, uid, card.session_id)[: len(theirs)]:
            raise ConflictError(
                f"the target holds another state card history for session "
                f"{card.session_id!r} of user {uid!r}: {nothing}",
                user_id=uid,
                session_id=card.session_id,
            )
    for task in source.tasks(uid):
        there_task = target.get_task(uid, task.task_id)
        if there_task is not None and _task_key(there_task) != _task_key(task):
            raise ConflictError(
                f"the target holds another task {task.task_id!r} of user {uid!r}: {nothing}",
                user_id=uid,
                task_id=task.task_id,
            )


def copy(source: WorkspaceStore, target: WorkspaceStore, uid: str) -> WorkspaceCopy:
    """Copy what the target lacks (after ``refuse``); the source's counts."""
    for link in source.session_links(uid):
        target.link_session(uid, link.session_id, link.workspace_id, now=link.linked_at)
    cards = source.cards(uid)
    revisions = 0
    for card in cards:
        history = source.card_revisions(uid, card.session_id)
        revisions += len(history)
        done = len(target.card_revisions(uid, card.session_id))
        for r in history[done:]:
            target.put_card(
                uid,
                card.session_id,
                r.document,
                revision=r.revision - 1,
                diff=r.diff,
                actor=r.actor,
                now=r.changed_at,
            )
    tasks = source.tasks(uid)
    for task in tasks:
        if target.get_task(uid, task.task_id) is None:
            target.put_task(task, revision=0)
    return WorkspaceCopy(cards=len(cards), revisions=revisions, tasks=len(tasks))


def same(source: WorkspaceStore, target: WorkspaceStore, uid: str) -> bool:
    """Both stores hold the same workspace of ``uid`` (links, card histories, tasks)."""

    def state(store: WorkspaceStore) -> tuple[object, ...]:
        links = [(s.session_id, s.workspace_id) for s in store.session_links(uid)]
        cards = [(c.session_id, _history(store, uid, c.session_id)) for c in store.cards(uid)]
        tasks = sorted((t.task_id, _task_key(t)) for t in store.tasks(uid))
        return (links, cards, tasks)

    return state(source) == state(target)


__all__ = ["WorkspaceCopy", "copy", "refuse", "same"]
