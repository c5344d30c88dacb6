"""``vault.workspace``: the state cards and task board of a user's sessions (seed 004).

Thin: each call delegates to ``workspace.cards`` (a card per session, every revision
kept) or ``workspace.board`` (tasks linked to sessions), which check what they are given
and stand on the store alone. What it adds is the screen (``security.screen``): card and
task text is shown to the model on every later turn, so it passes the threat scan and
has its personal data and secrets redacted before anything is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ...results.workspace import WorkspaceSession
from ...security.screen import Door, TextScreen
from ...stores.protocols import Store
from ...workspace.board import Board, Task, TaskStatus
from ...workspace.cards import Card, CardPatch, Cards, Revision
from ...workspace.render import render_card
from ...workspace.sessions import workspace_sessions


class Workspace:
    """State cards and the task board over one store, reading time from ``clock``."""

    def __init__(
        self, store: Store, clock: Callable[[], datetime], screen: TextScreen | None = None
    ) -> None:
        self._store = store
        self._cards = Cards(store, clock)
        self._board = Board(store, clock)
        self.screen = screen or TextScreen()

    # -- state cards --------------------------------------------------------------

    def card(self, *, user_id: str, session_id: str) -> Card:
        """The session's state card (an empty one at revision 0 when none was saved)."""
        return self._cards.get(user_id, session_id)

    def upsert_card(
        self,
        *,
        user_id: str,
        session_id: str,
        goal: str | None = None,
        progress: str | None = None,
        decisions: Sequence[str] | None = None,
        open_questions: Sequence[str] | None = None,
        next_step: str | None = None,
        fields: Mapping[str, str | None] | None = None,
        expected_revision: int | None = None,
        actor: str = "api",
        workspace_id: str | None = None,
        replace: bool = False,
    ) -> Card:
        """Change the parts given (``fields`` merges; a None value removes that field)
        and keep the result as the card's next revision, with ``actor``, the time and
        the diff. ``expected_revision``: refuse (``ConflictError``) if the card moved
        on since that revision. ``workspace_id`` ties the session to that workspace."""

        def text(value: Any) -> Any:  # what is not text, CardPatch answers
            return self.screen(value, Door.CARD) if isinstance(value, str) else value

        def each(values: Any) -> Any:
            if isinstance(values, str) or not isinstance(values, Sequence):
                return text(values)
            return [text(v) for v in values]

        if isinstance(fields, Mapping):
            fields = {text(k): text(v) for k, v in fields.items()}
        patch = CardPatch.of(
            goal=text(goal),
            progress=text(progress),
            decisions=each(decisions),
            open_questions=each(open_questions),
            next_step=text(next_step),
            fields=fields,
        )
        return self._cards.upsert(
            user_id,
            session_id,
            patch,
            actor=actor,
            expected_revision=expected_revision,
            workspace_id=workspace_id,
            replace=replace,
        )

    def card_revisions(self, *, user_id: str, session_id: str) -> list[Revision]:
        """Every revision of the session's card, oldest first (who, when, what changed)."""
        return self._cards.revisions(user_id, session_id)

    def delete_card(self, *, user_id: str, session_id: str) -> bool:
        """Drop the session's card and its revisions (when the session ends for good)."""
        return self._cards.delete(user_id, session_id)

    def card_text(self, *, user_id: str, session_id: str, max_tokens: int = 300) -> str:
        """The session's card as prompt lines within ``max_tokens`` ('' when empty)."""
        return render_card(self.card(user_id=user_id, session_id=session_id), max_tokens)

    # -- the task board -----------------------------------------------------------

    def tasks(
        self,
        *,
        user_id: str,
        workspace_id: str | None = None,
        session_id: str | None = None,
        status: TaskStatus | str | None = None,
    ) -> list[Task]:
        """The user's tasks, oldest first, of one workspace / session / status."""
        return self._board.tasks(
            user_id, workspace_id=workspace_id, session_id=session_id, status=status
        )

    def task(self, *, user_id: str, task_id: str) -> Task:
        """One of the user's tasks; ``NotFoundError`` for an id the user has none of."""
        return self._board.get(user_id, task_id)

    def add_task(
        self,
        *,
        user_id: str,
        workspace_id: str,
        session_id: str,
        title: str,
        notes: str = "",
        status: TaskStatus | str = TaskStatus.TODO,
    ) -> Task:
        """A task on the workspace's board, linked to the conversation ``session_id``."""
        title, notes = self.screen(title, Door.TASK), self.screen(notes, Door.TASK)
        return self._board.add(user_id, workspace_id, session_id, title, notes=notes, status=status)

    def update_task(
        self,
        *,
        user_id: str,
        task_id: str,
        title: str | None = None,
        notes: str | None = None,
        status: TaskStatus | str | None = None,
        session_id: str | None = None,
        expected_revision: int | None = None,
    ) -> Task:
        """Rename, re-note, move, or reassign to another session of the same workspace."""
        return self._board.update(
            user_id,
            task_id,
            title=None if title is None else self.screen(title, Door.TASK),
            notes=None if notes is None else self.screen(notes, Door.TASK),
            status=status,
            session_id=session_id,
            expected_revision=expected_revision,
        )

    def move_task(
        self,
        *,
        user_id: str,
        task_id: str,
        status: TaskStatus | str,
        expected_revision: int | None = None,
    ) -> Task:
        """Move the task to another column (todo, doing, blocked, done) of its board."""
        return self._board.move(user_id, task_id, status, expected_revision=expected_revision)

    def delete_task(self, *, user_id: str, task_id: str) -> bool:
        """Drop the task; False when the user had none with that id."""
        return self._board.delete(user_id, task_id)

    # -- sessions -----------------------------------------------------------------

    def session_workspace(self, *, user_id: str, session_id: str) -> str | None:
        """The workspace a card or task tied the session to (None: not tied yet)."""
        return self._board.workspace_of(user_id, session_id)

    def sessions(self, *, user_id: str, workspace_id: str | None = None) -> list[WorkspaceSession]:
        """The user's sessions with a state card or a task (of one workspace, when
        given), so a surface can list them to pick from rather than ask for an id."""
        return workspace_sessions(self._store, user_id, workspace_id=workspace_id)


__all__ = ["Workspace"]
