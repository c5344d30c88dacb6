"""``/v1/sensitive``: the reveal secret, authorised reveal of redacted originals, the audit log.

Thin routes over ``Vault`` (``memvault.engine.reveal``): a user key acts for its own
user; the actor written to the audit log is the API key's id (or "local").
Setting the first secret needs only the user's key; changing it needs
``current_secret``, or an admin key (a reset, audited as ``reset_secret``). Wrong
answers count per user; unlocking a locked user needs an admin key.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ..errors import AuthorizationError, RevealLockedError
from .auth import GatewayDep, Who, act_as, require_admin
from .errors import COMMON_ERRORS, NOT_FOUND
from .schemas import Entry, ErrorResponse

router = APIRouter(tags=["sensitive"], responses=COMMON_ERRORS)

_DENIED: dict[int | str, dict[str, Any]] = {
    **NOT_FOUND,
    403: {
        "model": ErrorResponse,
        "description": "wrong or missing secret, no grant, locked, or not an admin key",
    },
}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SecretRequest(_Body):
    secret: str = Field(min_length=6, max_length=1024)
    current_secret: str | None = Field(
        None,
        max_length=1024,
        description="the secret now set; required to change it, except with an admin key",
    )
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
    detail: str = ""


class AuditResponse(BaseModel):
    items: list[AuditItem]


def _actor(who: Any) -> str:
    return who.key_id or "local"


@router.put("/v1/sensitive/secret", status_code=204, responses=_DENIED)
def set_secret(body: SecretRequest, who: Who, gw: GatewayDep) -> None:
    """Set the reveal secret; changing it needs ``current_secret`` (an admin key may
    leave it out: a reset, which also lifts the user's lock)."""
    user_id = act_as(who, body.user_id)
    if who.admin and body.current_secret is None:
        gw.vault.reveal.reset_secret(user_id=user_id, secret=body.secret, actor=_actor(who))
        return
    try:
        gw.vault.reveal.set_secret(
            user_id=user_id, secret=body.secret, current=body.current_secret, actor=_actor(who)
        )
    except RevealLockedError:
        raise
    except AuthorizationError as exc:
        missing = body.current_secret is None
        raise AuthorizationError(
            "a reveal secret is already set: send it as current_secret to change it"
            if missing
            else str(exc).replace("wrong current secret", "current_secret is wrong", 1),
            field="current_secret",
        ) from None


@router.post("/v1/sensitive/{entry_id}/authorize", response_model=Grant, responses=_DENIED)
def authorize(entry_id: str, body: AuthorizeRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    until = gw.vault.reveal.authorize(
        entry_id, user_id=act_as(who, body.user_id), secret=body.secret, actor=_actor(who)
    )
    return {"entry_id": entry_id, "granted_until": until.isoformat()}


@router.post("/v1/sensitive/{entry_id}/reveal", response_model=Entry, responses=_DENIED)
def reveal(entry_id: str, body: UserOnly, who: Who, gw: GatewayDep) -> dict[str, Any]:
    entry = gw.vault.reveal.entry(entry_id, user_id=act_as(who, body.user_id), actor=_actor(who))
    return entry.to_dict()


@router.post("/v1/sensitive/unlock", status_code=204, responses=_DENIED)
def unlock_user(body: UserOnly, who: Who, gw: GatewayDep) -> None:
    """Lift a user's reveal lock (admin key)."""
    require_admin(who)
    gw.vault.reveal.unlock(user_id=act_as(who, body.user_id), actor=_actor(who))


@router.post("/v1/sensitive/{entry_id}/unlock", status_code=204, responses=_DENIED)
def unlock(entry_id: str, body: UserOnly, who: Who, gw: GatewayDep) -> None:
    """Lift the reveal lock of the user owning ``entry_id`` (admin key); the lock is per
    user, so this is ``POST /v1/sensitive/unlock`` with the entry named in the audit."""
    require_admin(who)
    gw.vault.reveal.unlock(entry_id, user_id=act_as(who, body.user_id), actor=_actor(who))


@router.get("/v1/sensitive/audit", response_model=AuditResponse)
def audit(
    who: Who,
    gw: GatewayDep,
    user_id: str | None = None,
    entry_id: str | None = None,
    limit: int = 100,
    after: int = 0,
) -> dict[str, Any]:
    records = gw.vault.reveal.audit_log(
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
                "detail": r.detail,
            }
            for r in records
        ]
    }
