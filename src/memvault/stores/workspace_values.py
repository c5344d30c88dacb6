"""What the stores keep of the workspace (``memvault.workspace``): state cards with their
revisions, tasks, and which workspace each session belongs to — and the checks every
backend makes before writing them, so each refuses the same rows with the same words.

The stores keep a card as opaque JSON text and a revision's diff the same way; the
schema of both lives in ``memvault.workspace``. A store checks only what it could not
keep identically everywhere (types, NUL characters, sizes, aware times).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..errors import ConflictError, ValidationError

#: The largest card document or revision diff a store keeps, in bytes of UTF-8. The
#: service's own limits on a card are far below; this bounds a runaway writer.
MAX_CARD_DOCUMENT_BYTES = 256 * 1024

#: The largest task text (title and notes together) a store keeps, in bytes of UTF-8.
MAX_TASK_TEXT_BYTES = 64 * 1024

#: A task's status as the stores keep it (``workspace.board.TaskStatus`` names them).
TASK_STATUSES = ("todo", "doing", "blocked", "done")


@dataclass(frozen=True, slots=True)
class StoredCard:
    """The current state card of one session: its JSON text, its revision (1 for the
    first save), who saved it last and when."""

    user_id: str
    session_id: str
    document: str
    revision: int
    actor: str
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class CardRevision:
    """One saved revision of a card, kept for good: the document as saved, the diff
    from the revision before (JSON text), who saved it and when."""

    user_id: str
    session_id: str
    revision: int
    document: str
    diff: str
    actor: str
    changed_at: datetime


@dataclass(frozen=True, slots=True)
class StoredTask:
    """One task of a workspace's board, linked to exactly one session."""

    user_id: str
    task_id: str
    workspace_id: str
    session_id: str
    title: str
    notes: str
    status: str
    revision: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SessionLink:
    """A session's workspace, fixed once a card or a task links the two."""

    user_id: str
    session_id: str
    workspace_id: str
    linked_at: datetime


def _check_text(value: object, field: str, limit: int) -> None:
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be text (a str)", field=field)
    if "\x00" in value:
        raise ValidationError(
            f"{field} holds a NUL character, which no SQL backend stores: remove it",
            field=field,
        )
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ValidationError(
            f"{field} is not valid Unicode ({exc.reason}): fix its text", field=field
        ) from None
    if size > limit:
        raise ValidationError(
            f"{field} is {size} bytes, over the store's limit of {limit}: shorten it",
            field=field,
            size=size,
            limit=limit,
        )


def _check_revision(revision: object) -> None:
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
        raise ValidationError(
            "revision must be a whole number of at least 0 (0: nothing saved yet)",
            field="revision",
        )


def _check_now(now: object, field: str = "now") -> None:
    if not isinstance(now, datetime) or now.tzinfo is None:
        raise ValidationError(f"{field} must be a timezone-aware datetime", field=field)


def check_card_put(document: str, diff: str, actor: str, revision: int, now: datetime) -> None:
    """Refuse a card save no backend could keep the same way, before anything is written."""
    _check_text(document, "the card document", MAX_CARD_DOCUMENT_BYTES)
    _check_text(diff, "the card diff", MAX_CARD_DOCUMENT_BYTES)
    _check_text(actor, "actor", 1024)
    _check_revision(revision)
    _check_now(now)


def check_task_put(task: StoredTask, revision: int) -> None:
    """Refuse a task save no backend could keep the same way."""
    _check_text(task.title, "title", MAX_TASK_TEXT_BYTES)
    _check_text(task.notes, "notes", MAX_TASK_TEXT_BYTES)
    if len(task.title.encode("utf-8")) + len(task.notes.encode("utf-8")) > MAX_TASK_TEXT_BYTES:
        raise ValidationError(
            f"the task's title and notes are over the store's limit of {MAX_TASK_TEXT_BYTES} "
            "bytes together: shorten the notes",
            field="notes",
        )
    if task.status not in TASK_STATUSES:
        raise ValidationError(
            f"status {task.status!r} is not one of {', '.join(TASK_STATUSES)}", field="status"
        )
    _check_revision(revision)
    _check_now(task.created_at, "created_at")
    _check_now(task.updated_at, "updated_at")


def check_link(workspace_id: str, now: datetime) -> None:
    _check_text(workspace_id, "workspace_id", 512)
    _check_now(now)


def stale_card(stored: int, revision: int) -> ConflictError:
    """The error of a card save whose expected revision is no longer the stored one."""
    return ConflictError(
        f"the state card changed meanwhile (revision {stored}, not {revision}): "
        "read it again and re-apply the change",
        revision=stored,
    )


def stale_task(task_id: str, stored: int, revision: int) -> ConflictError:
    """The error of a task save whose expected revision is no longer the stored one."""
    if stored == 0:
        return ConflictError(
            f"task {task_id!r} no longer exists: list the board again", task_id=task_id
        )
    if revision == 0:
        return ConflictError(f"a task with id {task_id!r} exists already", task_id=task_id)
    return ConflictError(
        f"task {task_id!r} changed meanwhile (revision {stored}, not {revision}): "
        "read it again and re-apply the change",
        task_id=task_id,
        revision=stored,
    )


__all__ = [
    "MAX_CARD_DOCUMENT_BYTES",
    "MAX_TASK_TEXT_BYTES",
    "TASK_STATUSES",
    "CardRevision",
    "SessionLink",
    "StoredCard",
    "StoredTask",
    "check_card_put",
    "check_link",
    "check_task_put",
    "stale_card",
    "stale_task",
]
