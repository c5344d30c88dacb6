"""``/v1/entities``: the entity graph of a user's memories.

Thin routes over ``Vault.entities``, ``Vault.entity``, ``Vault.entity_memories`` and
``Vault.entity_graph``. A user key reads its own user's graph, an admin key names one.
An entity the caller's memories do not name — another user's, or one only another
agent's private memories name — is a 404 exactly like a name nobody has, so its
existence cannot be inferred.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from ..graph.view import MAX_DEPTH, MAX_NODES
from ..results.graph import entity_dict
from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, NOT_FOUND
from .schemas import MAX_PAGE, Entry

router = APIRouter(tags=["entities"], responses=COMMON_ERRORS)


class EntityOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    type: str
    entries: int
    aliases: list[str]


class RelationOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str
    type: str
    target: str
    source_id: str
    target_id: str
    entry_id: str


class EntityDetailOut(EntityOut):
    relations: list[RelationOut]
    neighbours: list[str]
    entry_ids: list[str]


class EntityWithMemoriesOut(EntityDetailOut):
    memories: list[Entry]


class NodeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    type: str
    mentions: int
    aliases: list[str]
    hops: int | None


class EdgeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source_id: str
    source: str
    target_id: str
    target: str
    relation: str
    weight: int


class GraphOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    nodes: list[NodeOut]
    edges: list[EdgeOut]
    center: str | None
    depth: int | None
    limit: int
    truncated: bool


#: How many of an entity's memories ``include=memories`` adds, newest first.
MEMORIES_SHOWN = 20


class EntityList(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[EntityOut]
    limit: int
    offset: int


@router.get("/v1/entities", response_model=EntityList)
def list_entities(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
    prefix: Annotated[str | None, Query(max_length=255)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> dict[str, Any]:
    """The entities the user's memories name, most named first."""
    user = act_as(who, user_id)
    found = gw.vault_for(agent_id).entities.list(
        user_id=user, agent_id=agent_id, prefix=prefix, limit=limit, offset=offset
    )
    return {"items": [entity_dict(e) for e in found], "limit": limit, "offset": offset}


# Declared before /v1/entities/{name}, which would otherwise take "graph" for a name (an
# entity called so is still reached in any other case: /v1/entities/Graph).
@router.get("/v1/entities/graph", response_model=GraphOut, responses=NOT_FOUND)
def entity_graph(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
    limit: Annotated[int, Query(ge=1, le=MAX_NODES)] = 200,
    center: Annotated[str | None, Query(max_length=255)] = None,
    depth: Annotated[int, Query(ge=1, le=MAX_DEPTH)] = 2,
) -> dict[str, Any]:
    """Nodes and weighted edges to draw: the most named entities, or those around
    ``center`` up to ``depth`` relations away (404 when the caller's memories name none)."""
    user = act_as(who, user_id)
    return (
        gw.vault_for(agent_id)
        .entities.graph(user_id=user, agent_id=agent_id, limit=limit, center=center, depth=depth)
        .to_dict()
    )


@router.get(
    "/v1/entities/{name}",
    response_model=EntityWithMemoriesOut | EntityDetailOut,
    responses=NOT_FOUND,
)
def get_entity(
    name: str,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
    include: Annotated[
        Literal["memories"] | None,
        Query(description="memories: add the newest memories naming it, in full"),
    ] = None,
) -> dict[str, Any]:
    """One entity by any of its names: relations both ways, neighbours, linked memory ids
    (and, with ``include=memories``, the newest of those memories themselves)."""
    user = act_as(who, user_id)
    vault = gw.vault_for(agent_id)
    detail = vault.entities.get(name, user_id=user, agent_id=agent_id).to_dict()
    if include == "memories":
        shown = vault.entities.memories(name, user_id=user, agent_id=agent_id, limit=MEMORIES_SHOWN)
        detail["memories"] = [e.to_dict() for e in shown]
    return detail
