"""Who a request acts as, and for which user.

Every route but the health checks depends on ``principal``: with authentication on,
``Authorization: Bearer <key>`` must name a live key (401 otherwise). ``act_as``
then picks the user: a user key always acts for its own user, and naming another
user gets 404 — the same answer as for a user that does not exist, so user ids
cannot be probed. An admin key names the user with ``user_id``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..errors import NotFoundError, ValidationError
from ..model import Source
from ..validation import check_ident
from .errors import AuthError, ForbiddenError
from .keys import LOCAL_ADMIN, Principal
from .schemas import AGENT_DOC, USER_DOC
from .state import Gateway

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="an API key from `memvault keys create` (shown once, at creation)",
)


def gateway(request: Request) -> Gateway:
    gw: Gateway = request.app.state.gateway
    return gw


def authenticate(gw: Gateway, authorization: str | None) -> Principal:
    """The principal of an ``Authorization`` header value (``AuthError`` if none)."""
    if gw.keys is None:
        return LOCAL_ADMIN
    if not authorization:
        raise AuthError("no API key: send 'Authorization: Bearer <key>'")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("malformed Authorization header: send 'Authorization: Bearer <key>'")
    found = gw.keys.authenticate(token.strip())
    if found is None:
        raise AuthError("the API key is unknown or revoked")
    return found


def principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    # HTTPBearer hides a wrong scheme as None; read the raw header for a precise message.
    return authenticate(gateway(request), request.headers.get("authorization"))


def require_admin(who: Annotated[Principal, Depends(principal)]) -> Principal:
    if not who.admin:
        raise ForbiddenError("this route needs an admin key")
    return who


def act_as(who: Principal, requested: str | None) -> str:
    """The user a request acts for (see the module docstring)."""
    if who.admin:
        if requested is None:
            raise ValidationError(
                "user_id is required with an admin key: name the user to act for",
                field="user_id",
            )
        return check_ident(requested, "user_id")
    assert who.user_id is not None
    if requested is not None and requested != who.user_id:
        raise NotFoundError(f"no user {requested!r}", user_id=requested)
    return who.user_id


CLIENT_HEADER = "X-Memvault-Client"
"""Names the client of a request; the panel sends ``panel``, so its writes say so."""


def surface(request: Request) -> Source:
    """The ``source`` a write through this request records: ``panel`` for the panel,
    ``http`` for everything else that calls the API."""
    return Source.PANEL if request.headers.get(CLIENT_HEADER) == "panel" else Source.HTTP


Who = Annotated[Principal, Depends(principal)]
SurfaceDep = Annotated[Source, Depends(surface)]
Admin = Annotated[Principal, Depends(require_admin)]
GatewayDep = Annotated[Gateway, Depends(gateway)]
UserQuery = Annotated[str | None, Query(description=USER_DOC)]
AgentQuery = Annotated[str | None, Query(description=AGENT_DOC)]


__all__ = [
    "CLIENT_HEADER",
    "Admin",
    "AgentQuery",
    "GatewayDep",
    "SurfaceDep",
    "UserQuery",
    "Who",
    "act_as",
    "authenticate",
    "bearer",
    "gateway",
    "principal",
    "require_admin",
    "surface",
]
