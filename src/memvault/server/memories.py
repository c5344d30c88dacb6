"""``/v1/memories``: the vault's entries (add, search, list, get, update, delete,
export and import as JSONL), and ``/v1/users/{user_id}``: erase a subject."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from ..errors import ValidationError
from ..lifecycle.decisions import legal_moves
from ..model import (
    DecisionStatus,
    Domain,
    EntryOrder,
    Kind,
    MemClass,
    MemoryEntry,
    Sensitivity,
    Tier,
)
from ..security.notes import write_notes
from .auth import AgentQuery, GatewayDep, SurfaceDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, CONFLICT, NOT_FOUND
from .schemas import (
    AddRequest,
    Entry,
    EraseResponse,
    ImportResponse,
    ListQuery,
    ListResponse,
    RememberRequest,
    RememberResponse,
    SearchRequest,
    SearchResponse,
    UpdateRequest,
)

router = APIRouter(tags=["memories"], responses=COMMON_ERRORS)

NDJSON = "application/x-ndjson"
MAX_BULK_DELETE = 1000  # ids in one POST /v1/memories/delete


@router.post("/v1/memories", status_code=201, response_model=Entry)
def add_memory(body: AddRequest, who: Who, gw: GatewayDep, source: SurfaceDep) -> dict[str, Any]:
    words = body.words()
    words["mem_class"] = body.mem_class or MemClass.SEMANTIC
    entry = gw.vault_for(body.agent_id).add(
        body.content,
        user_id=act_as(who, body.user_id),
        agent_id=body.agent_id,
        source=source,
        **words,
    )
    return _written(entry)


def _written(entry: MemoryEntry) -> dict[str, Any]:
    """A write's answer: the entry, and ``notes`` saying what the write did beyond storing
    the text (held for review, redacted; ``security.notes``), empty when nothing."""
    return {**entry.to_dict(), "notes": write_notes(entry)}


@router.post("/v1/memories/remember", response_model=RememberResponse, responses=NOT_FOUND)
def remember(body: RememberRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Hand over a conversation: its messages are filtered, each kept one archived once
    as a turn of ``session_id``, and — with an LLM configured — facts are extracted
    after a quiet period (``wait: true``: now) into the profile and the memories."""
    done = gw.vault_for(body.agent_id).remember(
        body.messages,
        user_id=act_as(who, body.user_id),
        agent_id=body.agent_id,
        session_id=body.session_id,
        thread_id=body.thread_id,
        wait=body.wait,
    )
    return done.to_dict()


@router.post("/v1/memories/search", response_model=SearchResponse, responses=NOT_FOUND)
def search_memories(body: SearchRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """``scope: workspace`` with a ``session_id`` and no ``workspace_id`` recalls the
    workspace that session belongs to (seed 004: recall scoped from inside a session)."""
    user = act_as(who, body.user_id)
    vault = gw.vault_for(body.agent_id)
    filters = body.filters()
    if body.scope == "workspace" and body.workspace_id is None and body.session_id is not None:
        filters["workspace_id"] = vault.workspace.session_workspace(
            user_id=user, session_id=body.session_id
        )
    hits = vault.search(body.query, user_id=user, limit=body.limit, **filters)
    return {"results": [h.to_dict() for h in hits]}


@router.get("/v1/memories", response_model=ListResponse, responses=NOT_FOUND)
def list_memories(who: Who, gw: GatewayDep, query: Annotated[ListQuery, Query()]) -> dict[str, Any]:
    filters = {
        "user_id": act_as(who, query.user_id),
        "agent_id": query.agent_id,
        **query.filters(),
    }
    vault = gw.vault_for(query.agent_id)
    items = vault.list(**filters, sort=query.sort, limit=query.limit, offset=query.offset)
    return {
        "items": [e.to_dict() for e in items],
        "total": vault.count(**filters),
        "limit": query.limit,
        "offset": query.offset,
    }


@router.get(
    "/v1/memories/export",
    response_class=StreamingResponse,
    responses={
        **NOT_FOUND,
        200: {
            "description": "one exported memory per line, then one line per state card "
            "and per task (without agent_id)",
            "content": {NDJSON: {"schema": {"type": "string"}}},
        },
    },
)
def export_memories(
    who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> StreamingResponse:
    # Read it all here, in one thread: errors surface before the 200, and the store's
    # cursor never moves between threadpool workers.
    # A user's whole export carries the workspace (state cards, tasks) after the
    # memories; an agent's holds that agent's memories only.
    vault = gw.vault_for(agent_id)
    target = act_as(who, user_id)
    records = list(vault.export(user_id=target, agent_id=agent_id, workspace=agent_id is None))

    def lines() -> Iterator[str]:
        for record in records:
            yield json.dumps(record, ensure_ascii=False) + "\n"

    return StreamingResponse(lines(), media_type=NDJSON)


class ImportReportResponse(ImportResponse):
    """What an import wrote: the memories (their count and ids), and how many state
    cards and tasks came with them."""

    cards: int = Field(description="state cards imported, each with its whole history")
    tasks: int = Field(description="tasks imported")


@router.post(
    "/v1/memories/import",
    status_code=201,
    response_model=ImportReportResponse,
    responses={**NOT_FOUND, **CONFLICT},
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "JSON lines as written by export; all or nothing",
            "content": {NDJSON: {"schema": {"type": "string"}}},
        }
    },
)
async def import_memories(
    request: Request,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
    on_conflict: Literal["error", "skip"] = "error",
) -> dict[str, Any]:
    """All or nothing, memories, state cards and tasks together. ``agent_id`` picks the
    store: name the agent to import an agent's export into that agent's own store (the
    records keep their own ``agent_id``); card and task lines need it left out."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError("the body is not UTF-8 text: send JSON lines") from None
    target = act_as(who, user_id)
    report = await run_in_threadpool(
        gw.vault_for(agent_id).import_report,
        text.splitlines(),
        user_id=target,
        on_conflict=on_conflict,
        workspace=agent_id is None,
    )
    return {
        "imported": len(report.memories),
        "ids": [e.id for e in report.memories],
        "cards": report.cards,
        "tasks": report.tasks,
    }


class DeleteManyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(min_length=1, max_length=MAX_BULK_DELETE)
    user_id: str | None = None
    agent_id: str | None = None  # picks the store of an agent that has its own


class DeleteManyResponse(BaseModel):
    deleted: list[str]
    not_found: list[str]


@router.post("/v1/memories/delete", response_model=DeleteManyResponse, responses=NOT_FOUND)
def delete_memories(body: DeleteManyRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Delete several of the caller's memories at once (the panel's "Delete selected").
    An id that is not the caller's is reported as not found, like one that never was."""
    wanted = list(dict.fromkeys(body.ids))
    deleted = gw.vault_for(body.agent_id).delete_many(
        wanted, user_id=act_as(who, body.user_id), agent_id=body.agent_id
    )
    gone = set(deleted)
    return {
        "deleted": [i for i in wanted if i in gone],
        "not_found": [i for i in wanted if i not in gone],
    }


@router.get("/v1/meta/enums")
def enums(_: Who) -> dict[str, list[str]]:
    """The values each choice field of a memory takes, and the orders a listing has:
    what a form offers as choices instead of free text."""
    return {
        name: [member.value for member in choices]
        for name, choices in (
            ("kind", Kind),
            ("mem_class", MemClass),
            ("domain", Domain),
            ("tier", Tier),
            ("sensitivity", Sensitivity),
            ("status", DecisionStatus),
            ("sort", EntryOrder),
        )
    }


class DecisionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: DecisionStatus
    reason: str = ""
    user_id: str | None = None
    agent_id: str | None = None  # picks the store of an agent that has its own


@router.post("/v1/memories/{entry_id}/decision", response_model=Entry, responses=NOT_FOUND)
def decide(entry_id: str, body: DecisionRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Move a decision along its lifecycle: 422 names the legal moves when this is not
    one. A person's call, so it may also mark a decision invalid."""
    entry = gw.vault_for(body.agent_id).decisions.decide(
        entry_id,
        body.status,
        user_id=act_as(who, body.user_id),
        agent_id=body.agent_id,
        reason=body.reason,
        actor=who.key_id or "local",
    )
    return entry.to_dict()


@router.get("/v1/memories/{entry_id}/decision", responses=NOT_FOUND)
def decision(
    entry_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """The decision's status, the moves open to it, every move so far, and the conflicts
    recorded between it and adopted decisions (either side)."""
    user = act_as(who, user_id)
    vault = gw.vault_for(agent_id)
    entry = vault.get(entry_id, user_id=user, agent_id=agent_id)
    return {
        "entry_id": entry.id,
        "status": entry.status.value if entry.status else None,
        "legal_moves": [m.value for m in legal_moves(entry.status, by_user=True)],
        "history": [m.to_dict() for m in vault.decisions.history(entry.id, user_id=user)],
        "conflicts": [c.to_dict() for c in vault.decisions.conflicts(entry.id, user_id=user)],
    }


#: The actions under ``/v1/memories/`` that take POST: a GET of one would otherwise read
#: its name as a memory id and answer "no memory 'search'".
POST_ONLY = ("search", "context", "explain", "remember", "batch", "delete", "import")


def _post_only(action: str) -> Any:
    def refuse() -> None:
        raise HTTPException(
            405,
            f"{action} takes POST: send POST /v1/memories/{action} with a JSON body; "
            "GET /v1/memories/{id} reads one memory by its id",
            headers={"Allow": "POST"},
        )

    return refuse


for _action in POST_ONLY:
    router.add_api_route(
        f"/v1/memories/{_action}", _post_only(_action), methods=["GET"], include_in_schema=False
    )


@router.get("/v1/memories/{entry_id}", response_model=Entry, responses=NOT_FOUND)
def get_memory(
    entry_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    vault = gw.vault_for(agent_id)
    return vault.get(entry_id, user_id=act_as(who, user_id), agent_id=agent_id).to_dict()


@router.patch("/v1/memories/{entry_id}", response_model=Entry, responses=NOT_FOUND)
def update_memory(entry_id: str, body: UpdateRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    entry = gw.vault_for(body.agent_id).update(
        entry_id, user_id=act_as(who, body.user_id), agent_id=body.agent_id, **body.changes()
    )
    return _written(entry)


@router.delete(
    "/v1/memories/{entry_id}", status_code=204, response_class=Response, responses=NOT_FOUND
)
def delete_memory(
    entry_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> Response:
    gw.vault_for(agent_id).delete(entry_id, user_id=act_as(who, user_id), agent_id=agent_id)
    return Response(status_code=204)


@router.delete("/v1/users/{user_id}", response_model=EraseResponse, responses=NOT_FOUND)
def erase_user(user_id: str, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Erase a subject: every memory of the user (in every agent's store too), their
    reveal secret, reveal state and audit records, their memory files and settings."""
    target = act_as(who, user_id)
    return {"user_id": target, "deleted": gw.erase_user(target, actor=who.key_id or "local")}
