"""``/v1/quarantine``: the review queue of memories held by the threat scan.

Thin routes over ``Vault`` (``memvault.engine.review``): list the held entries, approve one
(it becomes part of recall again) or reject it (deleted). A user key acts for its own
user, an admin key names one; another user's entry is a 404 like everywhere else.
Approving needs an admin key or a user key with the review scope (``memvault keys create
--user U --review``): agent hosts hold user keys, and what the scan held must not be
released by the agent it was written to steer. Rejecting (deleting) needs no scope.
The actor written to the audit log is the API key's id (or "local").
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict

from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, CONFLICT, NOT_FOUND, ForbiddenError
from .schemas import MAX_PAGE, Entry, ErrorResponse, ListResponse

router = APIRouter(tags=["quarantine"], responses=COMMON_ERRORS)


class ReviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = None
    # Only picks the store: an agent with its own store holds its memories there.
    agent_id: str | None = None


def _actor(who: Any) -> str:
    return who.key_id or "local"


@router.get("/v1/quarantine", response_model=ListResponse, responses=NOT_FOUND)
def list_quarantined(
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> dict[str, Any]:
    """Memories held for review, newest first; each carries its ``quarantine`` reason."""
    user = act_as(who, user_id)
    vault = gw.vault_for(agent_id)
    items = vault.review.quarantined(user_id=user, agent_id=agent_id, limit=limit, offset=offset)
    total = vault.count(user_id=user, agent_id=agent_id, quarantined=True)
    return {"items": [e.to_dict() for e in items], "total": total, "limit": limit, "offset": offset}


_NOT_A_REVIEWER: dict[int | str, dict[str, Any]] = {
    403: {
        "model": ErrorResponse,
        "description": "a plain user key: approving takes an admin or a review-scoped key",
    }
}


@router.post(
    "/v1/quarantine/{entry_id}/approve",
    response_model=Entry,
    responses={**NOT_FOUND, **_NOT_A_REVIEWER},
)
def approve(
    entry_id: str, who: Who, gw: GatewayDep, body: ReviewRequest | None = None
) -> dict[str, Any]:
    """Release a held memory: recall and prompts may show it from now on (an admin key or
    a review-scoped key; 403 for a plain user key)."""
    user = act_as(who, body.user_id if body else None)
    if not who.reviewer:
        raise ForbiddenError(
            "approving a held memory needs an admin key or a key with the review scope "
            "(memvault keys create --user USER_ID --review); a plain user key may only reject"
        )
    vault = gw.vault_for(body.agent_id if body else None)
    return vault.review.approve(entry_id, user_id=user, actor=_actor(who)).to_dict()


@router.post(
    "/v1/quarantine/{entry_id}/reject",
    status_code=204,
    response_class=Response,
    responses={**NOT_FOUND, **CONFLICT},
)
def reject(entry_id: str, who: Who, gw: GatewayDep, body: ReviewRequest | None = None) -> Response:
    """Delete a held memory (409 if the memory is not held)."""
    user = act_as(who, body.user_id if body else None)
    gw.vault_for(body.agent_id if body else None).review.reject(
        entry_id, user_id=user, actor=_actor(who)
    )
    return Response(status_code=204)
