"""``/v1/memories/{id}/history`` and ``/undo``: the versions of a fact, and taking the
last change back (``Vault.history`` and ``Vault.undo``). Another user's id is a 404,
like a missing one."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, NOT_FOUND
from .schemas import Entry

router = APIRouter(tags=["memories"], responses={**COMMON_ERRORS, **NOT_FOUND})


class UndoRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = None
    agent_id: str | None = None  # picks the store of an agent that has its own


@router.get("/v1/memories/{entry_id}/history")
def history(
    entry_id: str, who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """Every period in which the fact was current, oldest first, following the entries
    that replaced it and that it replaced: the entry as it was, from and to when, who
    made the change and which fields it changed."""
    vault = gw.vault_for(agent_id)
    versions = vault.history(entry_id, user_id=act_as(who, user_id), agent_id=agent_id)
    return {"entry_id": entry_id, "versions": [v.to_dict() for v in versions]}


@router.post("/v1/memories/{entry_id}/undo", response_model=Entry)
def undo(
    entry_id: str, who: Who, gw: GatewayDep, body: UndoRequest | None = None
) -> dict[str, Any]:
    """Put the previous state back (itself recorded: undoing an undo re-applies); returns
    the entry that is current afterwards. 422 when there is nothing to undo."""
    asked = body or UndoRequest()
    vault = gw.vault_for(asked.agent_id)
    entry = vault.undo(
        entry_id,
        user_id=act_as(who, asked.user_id),
        agent_id=asked.agent_id,
        actor=who.key_id or "local",
    )
    return entry.to_dict()
