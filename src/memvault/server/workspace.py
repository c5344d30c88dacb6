"""The workspace routes of seed 004: state cards (``/v1/cards``) and the task board under
the seed's v2 business API (``/v1/v2/tasks``).

``GET /v1/cards`` lists the user's sessions with a card or a task (and their
workspaces); ``POST /v1/cards/upsert`` changes the parts of a session's card it is given and keeps
the result as the next revision (``expected_revision``: refuse with 409 if the card
moved on); ``GET /v1/cards/{session_id}`` and ``.../revisions`` read it and its history.
Tasks: list (by workspace, session, status), create, read, change (``PATCH``: rename,
notes, status, reassign to another session of the same workspace), move, delete.

Thin over ``Vault``: the engine validates every value and raises; the handlers of
``server.errors`` turn that into the status and message. A user key acts for its own
user only, an admin key names one (``act_as``), so no route reaches another user's
cards or tasks. The actor of a revision is ``http`` and the key's id.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from ..results.workspace import WorkspaceSession
from ..workspace.board import MAX_NOTES_CHARS, MAX_TITLE_CHARS, Task, TaskStatus
from ..workspace.cards import MAX_FIELDS, MAX_LIST_ITEMS, Card, Change, Revision
from .auth import GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, CONFLICT, NOT_FOUND
from .keys import Principal

router = APIRouter(tags=["workspace"], responses={**COMMON_ERRORS, **CONFLICT})

Id = Annotated[str, Field(min_length=1, max_length=128)]
Texts = Annotated[list[str], Field(max_length=MAX_LIST_ITEMS)]


def actor_of(who: Principal) -> str:
    """Who saved a revision over HTTP: the key's id (an admin without keys: ``http``)."""
    return f"http:{who.key_id}" if who.key_id else "http"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CardUpsert(_Body):
    """What to change of a session's card; a part left out keeps its value."""

    user_id: str | None = None
    session_id: Id
    goal: str | None = None
    progress: str | None = None
    decisions: Texts | None = Field(default=None, description="the whole list, replaced")
    open_questions: Texts | None = Field(default=None, description="the whole list, replaced")
    next_step: str | None = None
    fields: dict[str, str | None] | None = Field(
        default=None,
        max_length=MAX_FIELDS,
        description="merged into the card's fields; a null value removes that field",
    )
    expected_revision: int | None = Field(
        default=None,
        ge=0,
        strict=True,
        description="the revision you read (0: none); 409 if the card moved on since",
    )
    workspace_id: Id | None = Field(
        default=None,
        description="ties the session to this workspace (422 if it belongs to another)",
    )
    replace: bool = Field(default=False, description="empty the parts not given")


class CardOut(BaseModel):
    user_id: str
    session_id: str
    workspace_id: str | None
    revision: int = Field(description="0: no card saved yet")
    goal: str
    progress: str
    decisions: list[str]
    open_questions: list[str]
    next_step: str
    fields: dict[str, str]
    actor: str | None
    updated_at: datetime | None


class ChangeOut(BaseModel):
    part: str = Field(
        description="goal, progress, decisions, open_questions, next_step or fields.<name>"
    )
    before: str | None = None
    after: str | None = None
    added: list[str] = []
    removed: list[str] = []


class RevisionOut(BaseModel):
    revision: int
    actor: str
    changed_at: datetime
    changes: list[ChangeOut]
    card: dict[str, Any] = Field(description="the card's content as saved at this revision")


class RevisionList(BaseModel):
    session_id: str
    count: int
    revisions: list[RevisionOut]


class SessionOut(BaseModel):
    session_id: str
    workspace_id: str | None = Field(description="null: a card not tied to a workspace")
    card_revision: int = Field(description="0: no state card")
    tasks: int
    updated_at: datetime | None


class SessionList(BaseModel):
    count: int
    sessions: list[SessionOut]


class TaskCreate(_Body):
    user_id: str | None = None
    workspace_id: Id
    session_id: Id = Field(description="the conversation the task belongs to")
    title: str = Field(description=f"at most {MAX_TITLE_CHARS} characters")
    notes: str = Field(default="", description=f"at most {MAX_NOTES_CHARS} characters")
    status: TaskStatus = TaskStatus.TODO


class TaskPatch(_Body):
    """What to change; ``session_id`` reassigns the task to another conversation of the
    same workspace (one of another workspace is refused with 422)."""

    user_id: str | None = None
    title: str | None = None
    notes: str | None = None
    status: TaskStatus | None = None
    session_id: Id | None = None
    expected_revision: int | None = Field(default=None, ge=1, strict=True)


class TaskMove(_Body):
    user_id: str | None = None
    status: TaskStatus
    expected_revision: int | None = Field(default=None, ge=1, strict=True)


class TaskOut(BaseModel):
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


class TaskList(BaseModel):
    count: int
    tasks: list[TaskOut]


class Deleted(BaseModel):
    deleted: bool


def card_out(card: Card) -> dict[str, Any]:
    return {
        "user_id": card.user_id,
        "session_id": card.session_id,
        "workspace_id": card.workspace_id,
        "revision": card.revision,
        **card.content.to_dict(),
        "actor": card.actor,
        "updated_at": card.updated_at,
    }


def _change(c: Change) -> dict[str, Any]:
    return {"before": None, "after": None, "added": [], "removed": [], **c.to_dict()}


def revision_out(r: Revision) -> dict[str, Any]:
    return {
        "revision": r.revision,
        "actor": r.actor,
        "changed_at": r.changed_at,
        "changes": [_change(c) for c in r.changes],
        "card": r.content.to_dict(),
    }


def session_out(c: WorkspaceSession) -> dict[str, Any]:
    return {
        "session_id": c.session_id,
        "workspace_id": c.workspace_id,
        "card_revision": c.card_revision,
        "tasks": c.tasks,
        "updated_at": c.updated_at,
    }


def task_out(t: Task) -> dict[str, Any]:
    return {
        "id": t.id,
        "user_id": t.user_id,
        "workspace_id": t.workspace_id,
        "session_id": t.session_id,
        "title": t.title,
        "notes": t.notes,
        "status": t.status,
        "revision": t.revision,
        "created_at": t.created_at,
        "updated_at": t.updated_at,
    }


# -- state cards ---------------------------------------------------------------------------


@router.post("/v1/cards/upsert", response_model=CardOut)
def upsert_card(body: CardUpsert, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Change the parts given and keep the card as its next revision (who, when, diff)."""
    card = gw.vault.workspace.upsert_card(
        user_id=act_as(who, body.user_id),
        session_id=body.session_id,
        goal=body.goal,
        progress=body.progress,
        decisions=body.decisions,
        open_questions=body.open_questions,
        next_step=body.next_step,
        fields=body.fields,
        expected_revision=body.expected_revision,
        actor=actor_of(who),
        workspace_id=body.workspace_id,
        replace=body.replace,
    )
    return card_out(card)


@router.get("/v1/cards", response_model=SessionList)
def list_sessions(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    workspace_id: Annotated[str | None, Query(description="one workspace's sessions")] = None,
) -> dict[str, Any]:
    """The user's sessions with a card or a task, and the workspace each is tied to."""
    found = gw.vault.workspace.sessions(user_id=act_as(who, user_id), workspace_id=workspace_id)
    return {"count": len(found), "sessions": [session_out(c) for c in found]}


@router.get("/v1/cards/{session_id}", response_model=CardOut)
def get_card(
    session_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None
) -> dict[str, Any]:
    """The session's card (revision 0 and empty parts when none was saved)."""
    return card_out(gw.vault.workspace.card(user_id=act_as(who, user_id), session_id=session_id))


@router.get("/v1/cards/{session_id}/revisions", response_model=RevisionList)
def card_revisions(
    session_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None
) -> dict[str, Any]:
    """Every revision of the card, oldest first."""
    found = gw.vault.workspace.card_revisions(user_id=act_as(who, user_id), session_id=session_id)
    return {
        "session_id": session_id,
        "count": len(found),
        "revisions": [revision_out(r) for r in found],
    }


@router.delete("/v1/cards/{session_id}", response_model=Deleted)
def delete_card(
    session_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None
) -> dict[str, Any]:
    """Drop the card and its revisions (the session is over for good)."""
    return {
        "deleted": gw.vault.workspace.delete_card(
            user_id=act_as(who, user_id), session_id=session_id
        )
    }


# -- the task board (v2 business API) --------------------------------------------------------

TASKS = "/v1/v2/tasks"


@router.get(TASKS, response_model=TaskList)
def list_tasks(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    workspace_id: Annotated[str | None, Query(description="one workspace's board")] = None,
    session_id: Annotated[str | None, Query(description="one conversation's tasks")] = None,
    status: TaskStatus | None = None,
) -> dict[str, Any]:
    """The user's tasks, oldest first."""
    found = gw.vault.workspace.tasks(
        user_id=act_as(who, user_id),
        workspace_id=workspace_id,
        session_id=session_id,
        status=status,
    )
    return {"count": len(found), "tasks": [task_out(t) for t in found]}


@router.post(TASKS, status_code=201, response_model=TaskOut)
def create_task(body: TaskCreate, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """A task on the workspace's board, linked to one conversation."""
    task = gw.vault.workspace.add_task(
        user_id=act_as(who, body.user_id),
        workspace_id=body.workspace_id,
        session_id=body.session_id,
        title=body.title,
        notes=body.notes,
        status=body.status,
    )
    return task_out(task)


@router.get(TASKS + "/{task_id}", response_model=TaskOut, responses=NOT_FOUND)
def get_task(task_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None) -> dict[str, Any]:
    return task_out(gw.vault.workspace.task(user_id=act_as(who, user_id), task_id=task_id))


@router.patch(TASKS + "/{task_id}", response_model=TaskOut, responses=NOT_FOUND)
def update_task(task_id: str, body: TaskPatch, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Rename, re-note, move, or reassign to another session of the same workspace."""
    task = gw.vault.workspace.update_task(
        user_id=act_as(who, body.user_id),
        task_id=task_id,
        title=body.title,
        notes=body.notes,
        status=body.status,
        session_id=body.session_id,
        expected_revision=body.expected_revision,
    )
    return task_out(task)


@router.post(TASKS + "/{task_id}/move", response_model=TaskOut, responses=NOT_FOUND)
def move_task(task_id: str, body: TaskMove, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Move the task to another column of its board."""
    task = gw.vault.workspace.move_task(
        user_id=act_as(who, body.user_id),
        task_id=task_id,
        status=body.status,
        expected_revision=body.expected_revision,
    )
    return task_out(task)


@router.delete(TASKS + "/{task_id}", status_code=204, response_class=Response, responses=NOT_FOUND)
def delete_task(task_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None) -> Response:
    """Drop the task; 404 when the user has none with that id."""
    user = act_as(who, user_id)
    if not gw.vault.workspace.delete_task(user_id=user, task_id=task_id):
        gw.vault.workspace.task(user_id=user, task_id=task_id)  # raises NotFoundError (or a 422)
    return Response(status_code=204)


__all__ = ["router"]
