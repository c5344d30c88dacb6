"""``/v1/profile``: the structured profile learnt from conversations (seed 001) — read it,
or replace it whole (a person correcting what was learnt). ``agent_id`` names the
profile of the user's work with that agent; without it, the user's own."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from ..results.profile import parse_profile
from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS

router = APIRouter(tags=["profile"], responses=COMMON_ERRORS)


@router.get("/v1/profile")
def get_profile(
    who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """The profile document (V1's shape: ``user``, ``history``, ``facts``); an empty one
    when nothing was learnt yet."""
    vault = gw.vault_for(agent_id)
    return vault.profile(user_id=act_as(who, user_id), agent_id=agent_id).to_dict()


@router.put("/v1/profile")
def put_profile(
    who: Who,
    gw: GatewayDep,
    document: Annotated[
        dict[str, Any],
        Body(description="the whole profile document, as GET /v1/profile returns it"),
    ],
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Replace the profile document whole (validated first: a bad one changes nothing)."""
    profile = parse_profile(document, origin="the request body")
    vault = gw.vault_for(agent_id)
    saved = vault.save_profile(profile, user_id=act_as(who, user_id), agent_id=agent_id)
    return saved.to_dict()


__all__ = ["router"]
