"""``GET /v1/usage``: the token ledger — LLM calls and tokens by operation and model, and
what is left of today's budget. A user key sees its own user's; an admin key any user's
(``user_id``) or everyone's (no ``user_id``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from .auth import GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS

router = APIRouter(tags=["usage"], responses=COMMON_ERRORS)


@router.get("/v1/usage")
def usage(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    days: Annotated[int, Query(ge=1, le=366, description="UTC days back, today included")] = 1,
) -> dict[str, Any]:
    """LLM calls and tokens of the last ``days`` days, and today's budget left."""
    user = None if who.admin and user_id is None else act_as(who, user_id)
    return gw.vault.admin.llm_usage(user_id=user, days=days).to_dict()


__all__ = ["router"]
