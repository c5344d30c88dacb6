"""The workspace's tables (state cards, their revisions, tasks, session links) on every
SQL backend: the statements and the whole ``WorkspaceStore`` logic, written once.

A backend adds only its runner and dialect (``sql.runner``): how it runs a statement,
how an insert meets a row that is already there (``ON CONFLICT DO NOTHING``, or a
duplicate-key error caught), and the locking clause a conflict's re-read needs (MySQL's
repeatable-read snapshot may be older than the row that won). Every key starts with
``user_id`` and every statement filters on it, like every other table of users' data.

Saves are compare-and-set in one statement, like the profile documents'
(``sql.profiles``): revision 0 inserts (an existing row makes it touch nothing),
any other revision updates only the row still at that revision, and a statement that
touched nothing is a conflict. A card's revision row is written in the same
transaction as the card, so the history never misses a saved revision.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from ..rows import format_time, parse_time
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
from .runner import SQLBase

#: Every table the workspace keeps, for erasing a user (children first).
WORKSPACE_TABLES = ("card_revisions", "cards", "tasks", "workspace_sessions")


def _time(value: Any) -> datetime:
    at = parse_time(value)
    assert at is not None
    return at


def _stamp(value: datetime) -> datetime:
    """A time as a read returns it (UTC, microseconds)."""
    return _time(format_time(value))


def _marks(mark: str, n: int) -> str:
    return ", ".join([mark] * n)


_CARD = "user_id, session_id, document, revision, actor, updated_at"
_REVISION = "user_id, session_id, revision, document, diff, actor, changed_at"
_TASK = (
    "user_id, task_id, workspace_id, session_id, title, notes, status, revision, "
    "created_at, updated_at"
)
_LINK = "user_id, session_id, workspace_id, linked_at"


def _card(row: Sequence[Any]) -> StoredCard:
    return StoredCard(row[0], row[1], row[2], int(row[3]), row[4], _time(row[5]))


def _revision(row: Sequence[Any]) -> CardRevision:
    return CardRevision(
        user_id=row[0],
        session_id=row[1],
        revision=int(row[2]),
        document=row[3],
        diff=row[4],
        actor=row[5],
        changed_at=_time(row[6]),
    )


def _task(row: Sequence[Any]) -> StoredTask:
    return StoredTask(
        user_id=row[0],
        task_id=row[1],
        workspace_id=row[2],
        session_id=row[3],
        title=row[4],
        notes=row[5],
        status=row[6],
        revision=int(row[7]),
        created_at=_time(row[8]),
        updated_at=_time(row[9]),
    )


def _link(row: Sequence[Any]) -> SessionLink:
    return SessionLink(row[0], row[1], row[2], _time(row[3]))


class SQLWorkspace(SQLBase):
    """``WorkspaceStore`` over a backend's ``Runner`` (see the module docstring)."""

    # -- sessions and their workspace ------------------------------------------------

    def link_session(
        self, user_id: str, session_id: str, workspace_id: str, *, now: datetime
    ) -> str:
        check_link(workspace_id, now)
        with self._writing("linking the session to its workspace") as r:
            m = r.mark
            r.insert_new(
                f"INSERT INTO workspace_sessions ({_LINK}) VALUES ({_marks(m, 4)})",
                (user_id, session_id, workspace_id, format_time(now)),
            )
            got = r.rows(
                f"SELECT workspace_id FROM workspace_sessions "
                f"WHERE user_id = {m} AND session_id = {m}{r.locking}",
                (user_id, session_id),
            )
        return str(got[0][0])

    def session_link(self, user_id: str, session_id: str) -> SessionLink | None:
        with self._reading("reading the session's workspace") as r:
            m = r.mark
            got = r.rows(
                f"SELECT {_LINK} FROM workspace_sessions WHERE user_id = {m} AND session_id = {m}",
                (user_id, session_id),
            )
        return _link(got[0]) if got else None

    def unlink_session(self, user_id: str, session_id: str) -> bool:
        with self._writing("unlinking the session") as r:
            m = r.mark
            touched = r.run(
                f"DELETE FROM workspace_sessions WHERE user_id = {m} AND session_id = {m}",
                (user_id, session_id),
            )
        return touched > 0

    def session_links(self, user_id: str) -> list[SessionLink]:
        with self._reading("reading the sessions' workspaces") as r:
            got = r.rows(
                f"SELECT {_LINK} FROM workspace_sessions WHERE user_id = {r.mark}", (user_id,)
            )
        # Sorted here: the servers' collations may order text differently.
        return sorted((_link(row) for row in got), key=lambda s: s.session_id)

    # -- state cards -----------------------------------------------------------------

    def get_card(self, user_id: str, session_id: str) -> StoredCard | None:
        with self._reading("reading the state card") as r:
            m = r.mark
            got = r.rows(
                f"SELECT {_CARD} FROM cards WHERE user_id = {m} AND session_id = {m}",
                (user_id, session_id),
            )
        return _card(got[0]) if got else None

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
        at = format_time(now)
        with self._writing("saving the state card") as r:
            m = r.mark
            if revision == 0:
                done = r.insert_new(
                    f"INSERT INTO cards ({_CARD}) VALUES ({_marks(m, 6)})",
                    (user_id, session_id, document, 1, actor, at),
                )
            else:
                done = (
                    r.run(
                        f"UPDATE cards SET document = {m}, revision = {m}, actor = {m}, "
                        f"updated_at = {m} WHERE user_id = {m} AND session_id = {m} "
                        f"AND revision = {m}",
                        (document, revision + 1, actor, at, user_id, session_id, revision),
                    )
                    == 1
                )
            if not done:
                got = r.rows(
                    f"SELECT revision FROM cards WHERE user_id = {m} AND session_id = {m}"
                    f"{r.locking}",
                    (user_id, session_id),
                )
                raise stale_card(int(got[0][0]) if got else 0, revision)
            r.run(
                f"INSERT INTO card_revisions ({_REVISION}) VALUES ({_marks(m, 7)})",
                (user_id, session_id, revision + 1, document, diff, actor, at),
            )
        return StoredCard(user_id, session_id, document, revision + 1, actor, _stamp(now))

    def card_revisions(self, user_id: str, session_id: str) -> list[CardRevision]:
        with self._reading("reading the card's revisions") as r:
            m = r.mark
            got = r.rows(
                f"SELECT {_REVISION} FROM card_revisions "
                f"WHERE user_id = {m} AND session_id = {m} ORDER BY revision",
                (user_id, session_id),
            )
        return [_revision(row) for row in got]

    def delete_card(self, user_id: str, session_id: str) -> bool:
        with self._writing("deleting the state card") as r:
            m = r.mark
            r.run(
                f"DELETE FROM card_revisions WHERE user_id = {m} AND session_id = {m}",
                (user_id, session_id),
            )
            touched = r.run(
                f"DELETE FROM cards WHERE user_id = {m} AND session_id = {m}",
                (user_id, session_id),
            )
        return touched > 0

    def cards(self, user_id: str) -> list[StoredCard]:
        with self._reading("reading the state cards") as r:
            got = r.rows(f"SELECT {_CARD} FROM cards WHERE user_id = {r.mark}", (user_id,))
        return sorted((_card(row) for row in got), key=lambda c: c.session_id)

    # -- tasks -----------------------------------------------------------------------

    def get_task(self, user_id: str, task_id: str) -> StoredTask | None:
        with self._reading("reading the task") as r:
            m = r.mark
            got = r.rows(
                f"SELECT {_TASK} FROM tasks WHERE user_id = {m} AND task_id = {m}",
                (user_id, task_id),
            )
        return _task(got[0]) if got else None

    def put_task(self, task: StoredTask, *, revision: int) -> StoredTask:
        check_task_put(task, revision)
        t = task
        with self._writing("saving the task") as r:
            m = r.mark
            if revision == 0:
                done = r.insert_new(
                    f"INSERT INTO tasks ({_TASK}) VALUES ({_marks(m, 10)})",
                    (
                        t.user_id,
                        t.task_id,
                        t.workspace_id,
                        t.session_id,
                        t.title,
                        t.notes,
                        t.status,
                        1,
                        format_time(t.created_at),
                        format_time(t.updated_at),
                    ),
                )
            else:
                done = (
                    r.run(
                        f"UPDATE tasks SET workspace_id = {m}, session_id = {m}, title = {m}, "
                        f"notes = {m}, status = {m}, revision = {m}, updated_at = {m} "
                        f"WHERE user_id = {m} AND task_id = {m} AND revision = {m}",
                        (
                            t.workspace_id,
                            t.session_id,
                            t.title,
                            t.notes,
                            t.status,
                            revision + 1,
                            format_time(t.updated_at),
                            t.user_id,
                            t.task_id,
                            revision,
                        ),
                    )
                    == 1
                )
            if not done:
                got = r.rows(
                    f"SELECT revision FROM tasks WHERE user_id = {m} AND task_id = {m}{r.locking}",
                    (t.user_id, t.task_id),
                )
                raise stale_task(t.task_id, int(got[0][0]) if got else 0, revision)
            if revision:
                # The creation time is the stored one, whatever the caller passed.
                got = r.rows(
                    f"SELECT created_at FROM tasks WHERE user_id = {m} AND task_id = {m}",
                    (t.user_id, t.task_id),
                )
                created = _time(got[0][0])
            else:
                created = _stamp(t.created_at)
        return StoredTask(
            user_id=t.user_id,
            task_id=t.task_id,
            workspace_id=t.workspace_id,
            session_id=t.session_id,
            title=t.title,
            notes=t.notes,
            status=t.status,
            revision=revision + 1,
            created_at=created,
            updated_at=_stamp(t.updated_at),
        )

    def delete_task(self, user_id: str, task_id: str) -> bool:
        with self._writing("deleting the task") as r:
            m = r.mark
            touched = r.run(
                f"DELETE FROM tasks WHERE user_id = {m} AND task_id = {m}", (user_id, task_id)
            )
        return touched > 0

    def tasks(
        self,
        user_id: str,
        *,
        workspace_id: str | None = None,
        session_id: str | None = None,
    ) -> list[StoredTask]:
        with self._reading("reading the tasks") as r:
            m = r.mark
            where, params = [f"user_id = {m}"], [user_id]
            if workspace_id is not None:
                where.append(f"workspace_id = {m}")
                params.append(workspace_id)
            if session_id is not None:
                where.append(f"session_id = {m}")
                params.append(session_id)
            got = r.rows(f"SELECT {_TASK} FROM tasks WHERE {' AND '.join(where)}", params)
        return in_board_order(_task(row) for row in got)


def in_board_order(tasks: Iterator[StoredTask] | Sequence[StoredTask]) -> list[StoredTask]:
    """Oldest first, then by id: the same order on every backend."""
    return sorted(tasks, key=lambda t: (t.created_at, t.task_id))


__all__ = ["WORKSPACE_TABLES", "SQLWorkspace", "in_board_order"]
