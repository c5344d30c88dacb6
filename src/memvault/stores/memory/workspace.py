"""The workspace of the in-memory store (``protocols.WorkspaceStore``) in plain dicts.

Kept as the SQL backends keep it (``stores.sql.workspace``): one card per session with
its revisions, tasks by id, and each session's workspace; the same checks, the same
conflicts, the same order of lists.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..rows import format_time, parse_time
from ..sql.workspace import in_board_order
from ..workspace_values import (
    CardRevision,
    SessionLink,
    StoredCard,
    StoredTask,
    check_card_put,
    check_link,
    check_task_put,
    stale_card,
    stale_task,
)

_Key = tuple[str, str]


def _stamp(value: datetime) -> datetime:
    """A time as the SQL stores return it (UTC, microseconds)."""
    at = parse_time(format_time(value))
    assert at is not None
    return at


class MemoryWorkspace:
    """The workspace half of ``MemoryStore``; its lock and ``atomic()`` cover these dicts."""

    if TYPE_CHECKING:
        import threading

        _lock: threading.RLock

        def _check_open(self) -> None: ...

    def _workspace_init(self) -> None:
        self._w_links: dict[_Key, SessionLink] = {}  # (user, session)
        self._w_cards: dict[_Key, StoredCard] = {}  # (user, session)
        self._w_revisions: dict[_Key, tuple[CardRevision, ...]] = {}  # (user, session)
        self._w_tasks: dict[_Key, StoredTask] = {}  # (user, task id)

    def _workspace_state(self) -> tuple[Any, ...]:
        return (
            dict(self._w_links),
            dict(self._w_cards),
            dict(self._w_revisions),
            dict(self._w_tasks),
        )

    def _workspace_restore(self, saved: tuple[Any, ...]) -> None:
        self._w_links, self._w_cards, self._w_revisions, self._w_tasks = saved

    def _workspace_drop_user(self, user_id: str) -> None:
        self._w_links = {k: v for k, v in self._w_links.items() if k[0] != user_id}
        self._w_cards = {k: v for k, v in self._w_cards.items() if k[0] != user_id}
        self._w_revisions = {k: v for k, v in self._w_revisions.items() if k[0] != user_id}
        self._w_tasks = {k: v for k, v in self._w_tasks.items() if k[0] != user_id}

    def link_session(
        self, user_id: str, session_id: str, workspace_id: str, *, now: datetime
    ) -> str:
        check_link(workspace_id, now)
        with self._lock:
            self._check_open()
            link = self._w_links.setdefault(
                (user_id, session_id), SessionLink(user_id, session_id, workspace_id, _stamp(now))
            )
            return link.workspace_id

    def session_link(self, user_id: str, session_id: str) -> SessionLink | None:
        with self._lock:
            self._check_open()
            return self._w_links.get((user_id, session_id))

    def unlink_session(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            self._check_open()
            return self._w_links.pop((user_id, session_id), None) is not None

    def session_links(self, user_id: str) -> list[SessionLink]:
        with self._lock:
            self._check_open()
            mine = [s for (u, _), s in self._w_links.items() if u == user_id]
        return sorted(mine, key=lambda s: s.session_id)

    def get_card(self, user_id: str, session_id: str) -> StoredCard | None:
        with self._lock:
            self._check_open()
            return self._w_cards.get((user_id, session_id))

    def put_card(
        self,
        user_id: str,
        session_id: str,
        document: str,
        *,
        revision: int,
        diff: str,
        actor: str,
        now: datetime,
    ) -> StoredCard:
        check_card_put(document, diff, actor, revision, now)
        key = (user_id, session_id)
        at = _stamp(now)
        with self._lock:
            self._check_open()
            current = self._w_cards.get(key)
            stored = current.revision if current is not None else 0
            if stored != revision:
                raise stale_card(stored, revision)
            card = StoredCard(user_id, session_id, document, revision + 1, actor, at)
            step = CardRevision(
                user_id=user_id,
                session_id=session_id,
                revision=revision + 1,
                document=document,
                diff=diff,
                actor=actor,
                changed_at=at,
            )
            self._w_cards[key] = card
            self._w_revisions[key] = (*self._w_revisions.get(key, ()), step)
            return card

    def card_revisions(self, user_id: str, session_id: str) -> list[CardRevision]:
        with self._lock:
            self._check_open()
            return list(self._w_revisions.get((user_id, session_id), ()))

    def delete_card(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            self._check_open()
            self._w_revisions.pop((user_id, session_id), None)
            return self._w_cards.pop((user_id, session_id), None) is not None

    def cards(self, user_id: str) -> list[StoredCard]:
        with self._lock:
            self._check_open()
            mine = [c for (u, _), c in self._w_cards.items() if u == user_id]
        return sorted(mine, key=lambda c: c.session_id)

    def get_task(self, user_id: str, task_id: str) -> StoredTask | None:
        with self._lock:
            self._check_open()
            return self._w_tasks.get((user_id, task_id))

    def put_task(self, task: StoredTask, *, revision: int) -> StoredTask:
        check_task_put(task, revision)
        key = (task.user_id, task.task_id)
        with self._lock:
            self._check_open()
            current = self._w_tasks.get(key)
            stored = current.revision if current is not None else 0
            if stored != revision:
                raise stale_task(task.task_id, stored, revision)
            created = current.created_at if current is not None else _stamp(task.created_at)
            saved = replace(
                task, revision=revision + 1, created_at=created, updated_at=_stamp(task.updated_at)
            )
            self._w_tasks[key] = saved
            return saved

    def delete_task(self, user_id: str, task_id: str) -> bool:
        with self._lock:
            self._check_open()
            return self._w_tasks.pop((user_id, task_id), None) is not None

    def tasks(
        self,
        user_id: str,
        *,
        workspace_id: str | None = None,
        session_id: str | None = None,
    ) -> list[StoredTask]:
        with self._lock:
            self._check_open()
            mine = [
                t
                for (u, _), t in self._w_tasks.items()
                if u == user_id
                and (workspace_id is None or t.workspace_id == workspace_id)
                and (session_id is None or t.session_id == session_id)
            ]
        return in_board_order(mine)
