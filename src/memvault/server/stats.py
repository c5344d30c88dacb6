"""``GET /v1/stats``: the overview of one user's memories (``Vault.stats``) — counts by
kind, class, tier and domain, the review queue's size, the vectors still to compute and
the entries written or changed per UTC day. A user key sees its own user's; an admin
key names the user to act for (``user_id``). LLM usage is ``GET /v1/usage``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS

router = APIRouter(tags=["stats"], responses=COMMON_ERRORS)


@router.get("/v1/stats")
def stats(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
    # Range checked by the library, so the error names the field and its bounds.
    days: Annotated[int, Query(description="UTC days of activity, today included (1-366)")] = 30,
) -> dict[str, Any]:
    """Counts of the caller's current memories, held ones, pending vectors, and activity."""
    user = act_as(who, user_id)
    vault = gw.vault_for(agent_id)
    return vault.stats(user_id=user, agent_id=agent_id, days=days).to_dict()


__all__ = ["router"]
