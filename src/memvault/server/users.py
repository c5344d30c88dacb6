"""``GET /v1/users``: who has memories on this server and how many, for admin keys.

The admin panel's list of users (to act as one, export or erase them) reads it; the
counts cover the default store and every agent's own store. A user key gets 403: the
list names other users, so it is never shown to one of them.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from .auth import Admin, GatewayDep
from .errors import COMMON_ERRORS, FORBIDDEN

MAX_PAGE = 1000

router = APIRouter(prefix="/v1/users", tags=["users"], responses={**COMMON_ERRORS, **FORBIDDEN})


class UserOut(BaseModel):
    user_id: str
    memories: int


class UserPage(BaseModel):
    items: list[UserOut]
    total: int
    limit: int
    offset: int


@router.get("", response_model=UserPage)
def list_users(
    _: Admin,
    gw: GatewayDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> dict[str, Any]:
    """Users with at least one memory, sorted by id, with their memory counts."""
    rows = gw.agents.users(limit=limit, offset=offset)
    return {
        "items": [{"user_id": r.user_id, "memories": r.memories} for r in rows],
        "total": gw.agents.user_total(),
        "limit": limit,
        "offset": offset,
    }


__all__ = ["router"]
