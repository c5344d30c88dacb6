"""``/healthz`` (the process answers) and ``/readyz`` (the store answers); no key needed."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from .._version import __version__
from ..errors import MemvaultError
from .auth import GatewayDep
from .schemas import Health, Ready

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
def healthz() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


@router.get(
    "/readyz",
    response_model=Ready,
    responses={503: {"model": Ready, "description": "the store does not answer"}},
)
def readyz(gw: GatewayDep) -> Any:
    try:
        health = gw.vault.health()
    except MemvaultError as exc:
        return JSONResponse({"status": "unavailable", "error": exc.message}, status_code=503)
    store = {k: v for k, v in health.items() if k in ("backend", "schema_version", "entries")}
    return {"status": "ready", "store": store}
