"""``/v1/sensitive``: the reveal secret, authorised reveal of redacted originals, the audit log.

Thin routes over ``Vault`` (``memvault.reveal``): a user key acts for its own
user; the actor written to the audit log is the API key's id (or "local").
Unlocking a locked entry needs an admin key.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from .auth import GatewayDep, Who, act_as, require_admin
from .errors import COMMON_ERRORS, NOT_FOUND, ErrorResponse
from .schemas import Entry

router = APIRouter(tags=["sensitive"], responses=COMMON_ERRORS)

_DENIED: dict[int | str, dict[str, Any]] = {
    **NOT_FOUND,
    403: {"model": ErrorResponse, "description": "wrong answer, no grant, or locked"},
}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SecretRequest(_Body):
    secret: str = Field(min_length=6, max_length=1024)
    user_id: str | None = None


class AuthorizeRequest(_Body):
    secret: str = Field(max_length=1024)
    user_id: str | None = None


class UserOnly(_Body):
    user_id: str | None = None


class Grant(BaseModel):
    entry_id: str
    granted_until: str


class AuditItem(BaseModel):
    seq: int
    at: str
    user_id: str
    entry_id: str | None
    actor: str
    action: str
    outcome: str


class AuditResponse(BaseModel):
    items: list[AuditItem]


def _actor(who: Any) -> str:
    return who.key_id or "local"


@router.put("/v1/sensitive/secret", status_code=204)
def set_secret(body: SecretRequest, who: Who, gw: GatewayDep) -> None:
    gw.vault.set_reveal_secret(
        user_id=act_as(who, body.user_id), secret=body.secret, actor=_actor(who)
    )


@router.post("/v1/sensitive/{entry_id}/authorize", response_model=Grant, responses=_DENIED)
def authorize(entry_id: str, body: AuthorizeRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    until = gw.vault.authorize_reveal(
        entry_id, user_id=act_as(who, body.user_id), secret=body.secret, actor=_actor(who)
    )
    return {"entry_id": entry_id, "granted_until": until.isoformat()}


@router.post("/v1/sensitive/{entry_id}/reveal", response_model=Entry, responses=_DENIED)
def reveal(entry_id: str, body: UserOnly, who: Who, gw: GatewayDep) -> dict[str, Any]:
    entry = gw.vault.reveal(entry_id, user_id=act_as(who, body.user_id), actor=_actor(who))
    return entry.to_dict()


@router.post("/v1/sensitive/{entry_id}/unlock", status_code=204, responses=_DENIED)
def unlock(entry_id: str, body: UserOnly, who: Who, gw: GatewayDep) -> None:
    require_admin(who)
    gw.vault.unlock_reveal(entry_id, user_id=act_as(who, body.user_id), actor=_actor(who))


@router.get("/v1/sensitive/audit", response_model=AuditResponse)
def audit(
    who: Who,
    gw: GatewayDep,
    user_id: str | None = None,
    entry_id: str | None = None,
    limit: int = 100,
    after: int = 0,
) -> dict[str, Any]:
    records = gw.vault.audit_log(
        user_id=act_as(who, user_id), entry_id=entry_id, limit=limit, after=after
    )
    return {
        "items": [
            {
                "seq": r.seq,
                "at": r.at.isoformat(),
                "user_id": r.user_id,
                "entry_id": r.entry_id,
                "actor": r.actor,
                "action": r.action,
                "outcome": r.outcome,
            }
            for r in records
        ]
    }
