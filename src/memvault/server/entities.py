"""``/v1/entities``: the entity graph of a user's memories.

Thin routes over ``Vault.entities`` and ``Vault.entity``. A user key reads its own
user's graph, an admin key names one. An entity the caller's memories do not name —
another user's, or one only another agent's private memories name — is a 404 exactly
like a name nobody has, so its existence cannot be inferred.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from ..entities import entity_dict
from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, NOT_FOUND
from .schemas import MAX_PAGE

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
    found = gw.vault_for(agent_id).entities(
        user_id=user, agent_id=agent_id, prefix=prefix, limit=limit, offset=offset
    )
    return {"items": [entity_dict(e) for e in found], "limit": limit, "offset": offset}


@router.get("/v1/entities/{name}", response_model=EntityDetailOut, responses=NOT_FOUND)
def get_entity(
    name: str,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """One entity by any of its names: relations both ways, neighbours, linked memory ids."""
    user = act_as(who, user_id)
    return gw.vault_for(agent_id).entity(name, user_id=user, agent_id=agent_id).to_dict()
