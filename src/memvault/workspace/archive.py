"""A user's workspace as export lines, and those lines back (``Vault.export`` with
``workspace=True``, ``Vault.import_report``), so a backup keeps state cards and boards.

Each line is one JSON object, written after the memory lines. A state card::

    {"record": "card", "session_id": "s1", "workspace_id": "w1" | null,
     "revision": 3, "card": {...}, "actor": "api", "updated_at": "...",
     "revisions": [{"revision": 1, "card": {...}, "changes": [...],
                    "actor": "tool", "changed_at": "..."}, ...]}

``card`` is the content (goal, progress, decisions, open_questions, next_step,
fields); the top level repeats the last revision. The whole history travels, so an
import replays it revision by revision and the target's history is the source's. A
revision's ``changes`` must be what its card changed from the one before (they are
recomputed and compared, so a hand-edited card cannot carry a diff that lies). A task::

    {"record": "task", "id": "t...", "workspace_id": "w1", "session_id": "s1",
     "title": "...", "notes": "...", "status": "todo", "revision": 2,
     "created_at": "...", "updated_at": "..."}

A task keeps its id and times but starts again at revision 1 (as ``migrate-store``
does). Every line becomes the importer's, whatever ``user_id`` it names. Everything is
checked while the lines are read (line numbers in every refusal), then ``write`` checks
the store and writes, inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, TypeVar

from ..errors import ConflictError, ImportFormatError, ValidationError
from ..security.screen import Door, TextScreen
from ..stores.workspace_values import StoredTask
from ..validation import check_count, check_datetime, check_ident, check_short_text, shown
from .board import MAX_NOTES_CHARS, MAX_TASKS_PER_WORKSPACE, TaskStatus, check_task_id, check_title
from .cards import (
    PARTS,
    CardPatch,
    StateCard,
    card_of_json,
    check_actor,
    diff,
    screened_content,
)
from .links import WorkspaceBackend, require_store

#: The ``record`` values of the workspace's lines.
KINDS = ("card", "task")

_CARD_KEYS = frozenset(
    {"record", "user_id", "session_id", "workspace_id", "revision", "card", "actor"}
    | {"updated_at", "revisions"}
)
_REVISION_KEYS = frozenset({"revision", "card", "changes", "actor", "changed_at"})
_TASK_KEYS = frozenset(
    {"record", "user_id", "id", "workspace_id", "session_id", "title", "notes", "status"}
    | {"revision", "created_at", "updated_at"}
)
_NOTHING = "nothing was imported"

L = TypeVar("L")


# -- export -----------------------------------------------------------------------------


def export_lines(store: object, user_id: str) -> Iterator[dict[str, Any]]:
    """The user's state cards (each with its whole history), then tasks, as export lines;
    nothing on a store that keeps no workspace."""
    if not isinstance(store, WorkspaceBackend):
        return
    links = {link.session_id: link.workspace_id for link in store.session_links(user_id)}
    for card in store.cards(user_id):
        revisions = [
            {
                "revision": r.revision,
                "card": card_of_json(r.document).to_dict(),
                "changes": json.loads(r.diff),
                "actor": r.actor,
                "changed_at": r.changed_at.isoformat(),
            }
            for r in store.card_revisions(user_id, card.session_id)
        ]
        yield {
            "record": "card",
            "session_id": card.session_id,
            "workspace_id": links.get(card.session_id),
            "revision": card.revision,
            "card": card_of_json(card.document).to_dict(),
            "actor": card.actor,
            "updated_at": card.updated_at.isoformat(),
            "revisions": revisions,
        }
    for task in store.tasks(user_id):
        yield {
            "record": "task",
            "id": task.task_id,
            "workspace_id": task.workspace_id,
            "session_id": task.session_id,
            "title": task.title,
            "notes": task.notes,
            "status": task.status,
            "revision": task.revision,
            "created_at": task.created_at.isoformat(),
            "updated_at": task.updated_at.isoformat(),
        }


# -- reading lines ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Revision:
    revision: int
    card: StateCard
    changes: str  # the diff as the store keeps it
    actor: str
    changed_at: datetime


@dataclass(frozen=True, slots=True)
class _CardLine:
    line: int
    session_id: str
    workspace_id: str | None
    revisions: tuple[_Revision, ...]


@dataclass(frozen=True, slots=True)
class _TaskLine:
    line: int
    task: StoredTask  # user_id is filled in when written


def _refuse(line: int, problem: str) -> ImportFormatError:
    return ImportFormatError(f"line {line}: {problem}; {_NOTHING}", line=line)


def _keys(record: Mapping[str, Any], allowed: frozenset[str], line: int, what: str) -> None:
    unknown = set(record) - allowed
    if unknown:
        raise _refuse(line, f"{what} has unknown fields {sorted(map(str, unknown))}")


def _required(record: Mapping[str, Any], key: str, line: int, what: str) -> Any:
    if key not in record:
        raise _refuse(line, f"{what} lacks {key!r}")
    return record[key]


def _content(value: object, line: int, what: str) -> StateCard:
    """A card's content from its export form, checked as an upsert checks it."""
    if not isinstance(value, Mapping):
        raise _refuse(line, f"{what} must be an object of {', '.join(PARTS)}, got {shown(value)}")
    _keys(value, frozenset(PARTS), line, what)
    fields = value.get("fields", {})
    if not isinstance(fields, Mapping) or any(not v for v in fields.values()):
        raise _refuse(line, f"{what}'s fields must map names to non-empty texts")
    patch = CardPatch.of(
        goal=value.get("goal", ""),
        progress=value.get("progress", ""),
        decisions=value.get("decisions", []),
        open_questions=value.get("open_questions", []),
        next_step=value.get("next_step", ""),
        fields=fields,
    )
    return patch.apply(StateCard(), replace=True)


def _revision_of(value: object, before: StateCard, number: int, line: int) -> _Revision:
    what = f"revision {number}"
    if not isinstance(value, Mapping):
        raise _refuse(line, f"{what} must be an object, got {shown(value)}")
    _keys(value, _REVISION_KEYS, line, what)
    if _required(value, "revision", line, what) != number:
        raise _refuse(line, f"the card's revisions must be numbered 1, 2, 3...; {what} is not")
    card = _content(_required(value, "card", line, what), line, f"{what}'s card")
    changes = [c.to_dict() for c in diff(before, card)]
    if _required(value, "changes", line, what) != changes:
        raise _refuse(
            line,
            f"{what}'s changes are not what its card changed from the revision before: "
            "export the card again rather than edit its history",
        )
    actor = check_actor(_required(value, "actor", line, what))
    at = check_datetime(_required(value, "changed_at", line, what), "changed_at", optional=False)
    assert at is not None
    return _Revision(number, card, json.dumps(changes, ensure_ascii=False), actor, at)


def read_card(record: Mapping[str, Any], line: int) -> _CardLine:
    """One card line, checked: its session, workspace and every revision."""
    what = "the card line"
    _keys(record, _CARD_KEYS, line, what)
    session_id = check_ident(_required(record, "session_id", line, what), "session_id")
    raw_ws = record.get("workspace_id")
    workspace = None if raw_ws is None else check_ident(raw_ws, "workspace_id")
    history = _required(record, "revisions", line, what)
    if isinstance(history, str | bytes | Mapping) or not isinstance(history, Sequence):
        raise _refuse(line, "revisions must be a list of the card's revisions, oldest first")
    if not history:
        raise _refuse(line, "revisions is empty: a saved card has at least its first revision")
    revisions: list[_Revision] = []
    before = StateCard()
    for number, value in enumerate(history, start=1):
        revisions.append(_revision_of(value, before, number, line))
        before = revisions[-1].card
    last = revisions[-1]
    current = _content(_required(record, "card", line, what), line, "the card")
    at = check_datetime(_required(record, "updated_at", line, what), "updated_at", optional=False)
    top = (
        check_count(_required(record, "revision", line, what), "revision"),
        current,
        check_actor(_required(record, "actor", line, what)),
        at,
    )
    if top != (last.revision, last.card, last.actor, last.changed_at):
        raise _refuse(
            line,
            "the card's revision, card, actor and updated_at must repeat its last revision",
        )
    return _CardLine(line, session_id, workspace, tuple(revisions))


def read_task(record: Mapping[str, Any], line: int) -> _TaskLine:
    """One task line, checked as a new task on the board is."""
    what = "the task line"
    _keys(record, _TASK_KEYS, line, what)
    revision = record.get("revision", 1)
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise _refuse(line, f"revision must be a whole number of at least 1, got {shown(revision)}")
    created = check_datetime(
        _required(record, "created_at", line, what), "created_at", optional=False
    )
    updated = check_datetime(
        _required(record, "updated_at", line, what), "updated_at", optional=False
    )
    assert created is not None and updated is not None
    if updated < created:
        raise _refuse(line, "updated_at is before created_at")
    status = record.get("status", TaskStatus.TODO.value)
    if not isinstance(status, str) or status not in {s.value for s in TaskStatus}:
        raise _refuse(
            line, f"status {shown(status)} is not one of {', '.join(s.value for s in TaskStatus)}"
        )
    task = StoredTask(
        user_id="",
        task_id=check_task_id(_required(record, "id", line, what)),
        workspace_id=check_ident(_required(record, "workspace_id", line, what), "workspace_id"),
        session_id=check_ident(_required(record, "session_id", line, what), "session_id"),
        title=check_title(_required(record, "title", line, what)),
        notes=check_short_text(record.get("notes", ""), "notes", MAX_NOTES_CHARS),
        status=status,
        revision=0,
        created_at=created,
        updated_at=updated,
    )
    return _TaskLine(line, task)


def _fresh(
    lines: list[L],
    exists: Callable[[L], bool],
    name: Callable[[L], str],
    what: str,
    on_conflict: Literal["error", "skip"],
) -> list[L]:
    """The lines the user holds nothing under yet; with ``"error"``, none may clash."""
    there = [exists(line) for line in lines]
    clash = [line for line, held in zip(lines, there, strict=True) if held]
    if clash and on_conflict == "error":
        raise ConflictError(
            f"{len(clash)} imported {what.format(repr(name(clash[0])))} already exist for "
            f"this user and {_NOTHING}",
            remedy="import.skip_existing",
        )
    return [line for line, held in zip(lines, there, strict=True) if not held]


# -- the import -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WorkspaceImported:
    """What an import wrote of the workspace: cards, their revisions, tasks."""

    cards: int = 0
    revisions: int = 0
    tasks: int = 0


class WorkspaceImport:
    """The card and task lines of one import: ``read`` each as it comes, then ``write``
    them all inside the import's transaction. One object per import.

    ``accept=False`` refuses every such line (an import into one agent's own store,
    where the user's workspace does not live)."""

    kinds = KINDS

    def __init__(
        self,
        store: object,
        clock: Callable[[], datetime],
        *,
        accept: bool = True,
        screen: TextScreen | None = None,
    ) -> None:
        self._raw = store
        self._clock = clock
        self._accept = accept
        # Card and task text is shown to models: an import line is screened like any
        # other door (``security.screen``), every revision of a card included.
        self._screen = screen or TextScreen()
        self._cards: dict[str, _CardLine] = {}
        self._tasks: dict[str, _TaskLine] = {}
        # Which workspace the file ties each session to, and the line that first said so.
        self._ties: dict[str, tuple[str, int]] = {}
        self.imported = WorkspaceImported()

    def read(self, kind: str, record: Mapping[str, Any], line: int) -> None:
        """Check one line (``kind``: its ``record``) and keep it for ``write``."""
        if not self._accept:
            raise _refuse(
                line,
                f"it holds a {'state card' if kind == 'card' else kind}, and the workspace "
                "is the user's own: import it into the user's vault, not an agent's",
            )
        try:
            if kind == "card":
                card = self._screened_card(read_card(record, line))
                if card.session_id in self._cards:
                    first = self._cards[card.session_id].line
                    raise _refuse(
                        line, f"repeats the card of session {card.session_id!r} (line {first})"
                    )
                if card.workspace_id is not None:
                    self._tie(card.session_id, card.workspace_id, line)
                self._cards[card.session_id] = card
            elif kind == "task":
                task = self._screened_task(read_task(record, line))
                if task.task.task_id in self._tasks:
                    first = self._tasks[task.task.task_id].line
                    raise _refuse(line, f"repeats task id {task.task.task_id!r} (line {first})")
                self._tie(task.task.session_id, task.task.workspace_id, line)
                self._tasks[task.task.task_id] = task
            else:
                raise _refuse(line, f"record {kind!r} is not one of {', '.join(KINDS)}")
        except ImportFormatError:
            raise
        except ValidationError as exc:
            raise _refuse(line, str(exc)) from None

    def _screened_card(self, card: _CardLine) -> _CardLine:
        def text(value: str) -> str:
            return self._screen(value, Door.CARD)

        revisions = tuple(
            replace(r, card=screened_content(r.card, text), changes=text(r.changes))
            for r in card.revisions
        )
        return replace(card, revisions=revisions)

    def _screened_task(self, task: _TaskLine) -> _TaskLine:
        stored = task.task
        title = self._screen(stored.title, Door.TASK)
        notes = self._screen(stored.notes, Door.TASK)
        return replace(task, task=replace(stored, title=title, notes=notes))

    def _tie(self, session_id: str, workspace_id: str, line: int) -> None:
        tied = self._ties.setdefault(session_id, (workspace_id, line))
        if tied[0] != workspace_id:
            raise _refuse(
                line,
                f"it puts session {session_id!r} in workspace {workspace_id!r}, but line "
                f"{tied[1]} puts it in {tied[0]!r}: a session stays in one workspace",
            )

    def write(self, user_id: str, on_conflict: Literal["error", "skip"]) -> None:
        """Check the lines against what the user holds, then write them; inside the
        import's transaction, so a refusal here leaves nothing written."""
        if not self._cards and not self._tasks:
            return
        store = require_store(self._raw)
        cards = _fresh(
            list(self._cards.values()),
            lambda c: store.get_card(user_id, c.session_id) is not None,
            lambda c: c.session_id,
            "state cards (first: session {})",
            on_conflict,
        )
        tasks = _fresh(
            list(self._tasks.values()),
            lambda t: store.get_task(user_id, t.task.task_id) is not None,
            lambda t: t.task.task_id,
            "tasks (first: {})",
            on_conflict,
        )
        ties = self._needed_ties(cards, tasks)
        self._check_store(store, user_id, ties, tasks)
        now = self._clock()
        for session_id, (workspace_id, _) in ties.items():
            store.link_session(user_id, session_id, workspace_id, now=now)
        revisions = 0
        for card in cards:
            for r in card.revisions:
                store.put_card(
                    user_id,
                    card.session_id,
                    r.card.to_json(),
                    revision=r.revision - 1,
                    diff=r.changes,
                    actor=r.actor,
                    now=r.changed_at,
                )
            revisions += len(card.revisions)
        for task in tasks:
            stored = task.task
            store.put_task(
                StoredTask(
                    user_id=user_id,
                    task_id=stored.task_id,
                    workspace_id=stored.workspace_id,
                    session_id=stored.session_id,
                    title=stored.title,
                    notes=stored.notes,
                    status=stored.status,
                    revision=0,
                    created_at=stored.created_at,
                    updated_at=stored.updated_at,
                ),
                revision=0,
            )
        self.imported = WorkspaceImported(len(cards), revisions, len(tasks))

    def _needed_ties(
        self, cards: Sequence[_CardLine], tasks: Sequence[_TaskLine]
    ) -> dict[str, tuple[str, int]]:
        """The sessions the written lines tie to a workspace (the file agrees on each)."""
        sessions = {c.session_id for c in cards if c.workspace_id is not None}
        sessions |= {t.task.session_id for t in tasks}
        return {s: self._ties[s] for s in sorted(sessions)}

    def _check_store(
        self,
        store: WorkspaceBackend,
        user_id: str,
        ties: Mapping[str, tuple[str, int]],
        tasks: Sequence[_TaskLine],
    ) -> None:
        for session_id, (workspace_id, line) in ties.items():
            there = store.session_link(user_id, session_id)
            if there is not None and there.workspace_id != workspace_id:
                raise ConflictError(
                    f"line {line} puts session {session_id!r} in workspace {workspace_id!r}, "
                    f"but it is in workspace {there.workspace_id!r} already: a session stays "
                    f"in one workspace, so {_NOTHING}",
                    line=line,
                    session_id=session_id,
                )
        added: dict[str, int] = {}
        for task in tasks:
            added[task.task.workspace_id] = added.get(task.task.workspace_id, 0) + 1
        for workspace_id, count in sorted(added.items()):
            total = count + len(store.tasks(user_id, workspace_id=workspace_id))
            if total > MAX_TASKS_PER_WORKSPACE:
                raise ValidationError(
                    f"workspace {workspace_id!r} would hold {total} tasks, more than the "
                    f"{MAX_TASKS_PER_WORKSPACE} a board keeps: delete done ones first; "
                    f"{_NOTHING}",
                    field="workspace_id",
                )


__all__ = [
    "KINDS",
    "WorkspaceImport",
    "WorkspaceImported",
    "export_lines",
    "read_card",
    "read_task",
]
