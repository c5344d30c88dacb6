"""``/healthz`` (the process answers) and ``/readyz`` (the store answers); no key needed.

Without a key ``/readyz`` says only ready or not. A user key adds the backend and
schema version; the entry count, which spans every user, is for admin keys only.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from .._version import __version__
from ..errors import MemvaultError
from .auth import GatewayDep, authenticate
from .errors import logger, public_message
from .keys import Principal
from .schemas import Health, Ready
from .state import Gateway

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
def healthz() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


def _caller(gw: Gateway, request: Request) -> Principal | None:
    """Who sent a valid key, or None: a missing or wrong key is no error on a public route."""
    try:
        return authenticate(gw, request.headers.get("authorization"))
    except MemvaultError:
        return None


@router.get(
    "/readyz",
    response_model=Ready,
    response_model_exclude_none=True,
    responses={503: {"model": Ready, "description": "the store does not answer"}},
)
def readyz(gw: GatewayDep, request: Request) -> Any:
    try:
        health = gw.vault.health()
    except MemvaultError as exc:
        logger.warning("not ready: %s", exc.message)
        reason = exc.context.get("reason") or public_message(exc.message, (str(gw.home),))
        return JSONResponse({"status": "unavailable", "error": reason}, status_code=503)
    who = _caller(gw, request)
    if who is None:
        return {"status": "ready"}
    shown = ("backend", "schema_version", "entries") if who.admin else ("backend", "schema_version")
    store = {k: v for k, v in health.items() if k in shown}
    return {"status": "ready", "store": store}
