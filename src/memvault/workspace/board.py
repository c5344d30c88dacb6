"""The task board (seed 004): tasks per (user, workspace), each linked to exactly one
conversation (``session_id``), with a status of todo / doing / blocked / done.

A task lives in one workspace for good: ``update`` may rename it, change its notes,
move it to another status or reassign it to another session — of the same workspace
only. The first task or card that names a session ties the session to its workspace
(``workspace.links``), so a conversation never holds tasks of two workspaces. Every
save is a compare-and-set on the task's revision; a caller may pin the revision it read
(``expected_revision``) and gets ``ConflictError`` when someone saved since.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from ..errors import ConflictError, NotFoundError, ValidationError
from ..model import new_id
from ..stores.workspace_values import StoredTask
from ..validation import check_enum, check_ident, check_short_text, make_scope, shown
from .links import Links, require_store

MAX_TITLE_CHARS = 300
MAX_NOTES_CHARS = 8000
MAX_TASKS_PER_WORKSPACE = 1000  # a board, not a backlog tracker
UPDATE_ATTEMPTS = 8


class TaskStatus(StrEnum):
    """The board's columns, in order."""

    TODO = "todo"
    DOING = "doing"
    BLOCKED = "blocked"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Task:
    """One task of a board."""

    id: str
    user_id: str
    workspace_id: str
    session_id: str
    title: str
    notes: str
    status: TaskStatus
    revision: int
    created_at: datetime
    updated_at: datetime


def _task(stored: StoredTask) -> Task:
    return Task(
        id=stored.task_id,
        user_id=stored.user_id,
        workspace_id=stored.workspace_id,
        session_id=stored.session_id,
        title=stored.title,
        notes=stored.notes,
        status=TaskStatus(stored.status),
        revision=stored.revision,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
    )


def check_title(value: object) -> str:
    title = check_short_text(value, "title", MAX_TITLE_CHARS)
    if not title:
        raise ValidationError("title is empty: say what the task is", field="title")
    return title


def check_task_id(value: object) -> str:
    return check_ident(value, "task_id")


def _status(value: object) -> TaskStatus:
    return check_enum(TaskStatus, value, "status")


def _revision(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(
            f"expected_revision must be a whole number of at least 1, got {shown(value)}",
            field="expected_revision",
        )
    return value


class Board:
    """The task boards of a store (see the module docstring)."""

    def __init__(self, store: object, clock: Callable[[], datetime]) -> None:
        self._raw = store
        self._clock = clock

    def add(
        self,
        user_id: str,
        workspace_id: str,
        session_id: str,
        title: str,
        *,
        notes: str = "",
        status: TaskStatus | str = TaskStatus.TODO,
    ) -> Task:
        """A new task on the workspace's board, linked to ``session_id`` (which then
        belongs to the workspace; one of another workspace is refused)."""
        store = require_store(self._raw)
        user_id = make_scope(user_id).user_id
        workspace_id = check_ident(workspace_id, "workspace_id")
        session_id = check_ident(session_id, "session_id")
        title = check_title(title)
        text = check_short_text(notes, "notes", MAX_NOTES_CHARS)
        state = _status(status)
        now = self._clock()
        with store.atomic():
            if len(store.tasks(user_id, workspace_id=workspace_id)) >= MAX_TASKS_PER_WORKSPACE:
                raise ValidationError(
                    f"workspace {workspace_id!r} holds {MAX_TASKS_PER_WORKSPACE} tasks, the "
                    "most a board keeps: delete the done ones first",
                    field="workspace_id",
                )
            Links(store, self._clock).link(user_id, session_id, workspace_id)
            stored = StoredTask(
                user_id=user_id,
                task_id="t" + new_id(),
                workspace_id=workspace_id,
                session_id=session_id,
                title=title,
                notes=text,
                status=state.value,
                revision=0,
                created_at=now,
                updated_at=now,
            )
            return _task(store.put_task(stored, revision=0))

    def get(self, user_id: str, task_id: str) -> Task:
        """One task of the user's; ``NotFoundError`` when there is none with that id."""
        store = require_store(self._raw)
        user_id = make_scope(user_id).user_id
        task_id = check_task_id(task_id)
        stored = store.get_task(user_id, task_id)
        if stored is None:
            raise NotFoundError(
                f"no task {task_id!r} for user {user_id!r}: list the board for the ids",
                task_id=task_id,
                user_id=user_id,
            )
        return _task(stored)

    def update(
        self,
        user_id: str,
        task_id: str,
        *,
        title: str | None = None,
        notes: str | None = None,
        status: TaskStatus | str | None = None,
        session_id: str | None = None,
        expected_revision: int | None = None,
    ) -> Task:
        """Change what is given: rename, new notes, move to ``status``, reassign to
        ``session_id`` (a session of the task's own workspace, or one in none yet)."""
        store = require_store(self._raw)
        user_id = make_scope(user_id).user_id
        task_id = check_task_id(task_id)
        new_title = None if title is None else check_title(title)
        new_notes = None if notes is None else check_short_text(notes, "notes", MAX_NOTES_CHARS)
        new_status = None if status is None else _status(status)
        new_session = None if session_id is None else check_ident(session_id, "session_id")
        pinned = _revision(expected_revision)
        links = Links(store, self._clock)
        for _ in range(UPDATE_ATTEMPTS):
            current = self.get(user_id, task_id)
            if pinned is not None and pinned != current.revision:
                raise ConflictError(
                    f"task {task_id!r} is at revision {current.revision}, not {pinned}: "
                    "read it again and re-apply the change",
                    task_id=task_id,
                    revision=current.revision,
                )
            changed = StoredTask(
                user_id=user_id,
                task_id=task_id,
                workspace_id=current.workspace_id,
                session_id=current.session_id if new_session is None else new_session,
                title=current.title if new_title is None else new_title,
                notes=current.notes if new_notes is None else new_notes,
                status=(current.status if new_status is None else new_status).value,
                revision=current.revision,
                created_at=current.created_at,
                updated_at=self._clock(),
            )
            if _same(current, changed):
                return current
            try:
                with store.atomic():
                    if changed.session_id != current.session_id:
                        links.link(user_id, changed.session_id, current.workspace_id)
                    saved = store.put_task(changed, revision=current.revision)
                    if changed.session_id != current.session_id:
                        links.release(user_id, current.session_id)
            except ConflictError:
                if pinned is not None:
                    raise
                continue
            return _task(saved)
        raise ConflictError(
            f"task {task_id!r} kept changing while this change was applied "
            f"({UPDATE_ATTEMPTS} tries): try again",
            task_id=task_id,
        )

    def move(
        self,
        user_id: str,
        task_id: str,
        status: TaskStatus | str,
        *,
        expected_revision: int | None = None,
    ) -> Task:
        """Move the task to another column of its board."""
        return self.update(user_id, task_id, status=status, expected_revision=expected_revision)

    def tasks(
        self,
        user_id: str,
        *,
        workspace_id: str | None = None,
        session_id: str | None = None,
        status: TaskStatus | str | None = None,
    ) -> list[Task]:
        """The user's tasks, oldest first: of one workspace, one session, one status."""
        store = require_store(self._raw)
        user_id = make_scope(user_id).user_id
        ws = None if workspace_id is None else check_ident(workspace_id, "workspace_id")
        session = None if session_id is None else check_ident(session_id, "session_id")
        state = None if status is None else _status(status)
        found = store.tasks(user_id, workspace_id=ws, session_id=session)
        return [_task(t) for t in found if state is None or t.status == state.value]

    def workspace_of(self, user_id: str, session_id: str) -> str | None:
        """The workspace the session is tied to (None: no card or task tied it yet)."""
        store = require_store(self._raw)
        user_id = make_scope(user_id).user_id
        session_id = check_ident(session_id, "session_id")
        return Links(store, self._clock).workspace_of(user_id, session_id)

    def delete(self, user_id: str, task_id: str) -> bool:
        """Drop the task; False when there was none. Its session leaves the workspace
        when no other task and no card refers to it."""
        store = require_store(self._raw)
        user_id = make_scope(user_id).user_id
        task_id = check_task_id(task_id)
        with store.atomic():
            stored = store.get_task(user_id, task_id)
            if stored is None:
                return False
            gone = store.delete_task(user_id, task_id)
            Links(store, self._clock).release(user_id, stored.session_id)
        return gone


def _same(task: Task, stored: StoredTask) -> bool:
    return (task.session_id, task.title, task.notes, task.status.value) == (
        stored.session_id,
        stored.title,
        stored.notes,
        stored.status,
    )


__all__ = [
    "MAX_NOTES_CHARS",
    "MAX_TASKS_PER_WORKSPACE",
    "MAX_TITLE_CHARS",
    "Board",
    "Task",
    "TaskStatus",
    "check_task_id",
    "check_title",
]
