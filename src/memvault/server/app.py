"""The FastAPI application: routes over one ``Vault``.

Authentication arrives with the gateway; until then the server refuses to bind
anything but a loopback address, and every route is scoped by an explicit
``user_id``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .. import __version__
from ..config import VaultConfig
from ..errors import (
    ConfigError,
    ConflictError,
    MemvaultError,
    NotFoundError,
    StoreError,
    ValidationError,
)
from ..vault import Vault
from .schemas import (
    AddRequest,
    Entry,
    ErrorResponse,
    ListResponse,
    SearchRequest,
    SearchResponse,
    UpdateRequest,
)

_STATUS: list[tuple[type[MemvaultError], int]] = [
    (ValidationError, 422),
    (NotFoundError, 404),
    (ConflictError, 409),
    (StoreError, 503),
]

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "no such memory for this user"},
    422: {"model": ErrorResponse, "description": "invalid input; nothing was changed"},
}


def status_for(exc: MemvaultError) -> int:
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _mcp_endpoint(vault: Vault) -> Any:
    """The ``/mcp`` endpoint (``memvault.mcp.HttpEndpoint``), or None without the extra."""
    try:
        from ..mcp import HttpEndpoint
    except ImportError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        return None
    return HttpEndpoint(vault, base_dir=vault.config.home)


def create_app(vault: Vault) -> FastAPI:
    """An app serving ``vault``; the caller owns the vault and closes it."""
    mcp_endpoint = _mcp_endpoint(vault)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp_endpoint.running() if mcp_endpoint else nullcontext():
            yield

    app = FastAPI(
        title="memvault",
        version=__version__,
        description="Long-term memory for LLM agents.",
        lifespan=lifespan,
    )

    @app.exception_handler(MemvaultError)
    async def _memvault_error(_: Request, exc: MemvaultError) -> JSONResponse:
        return _error(status_for(exc), exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _request_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg')}"
            for err in exc.errors()
        )
        return _error(422, "invalid_input", f"request is malformed: {problems}")

    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.post("/v1/memories", status_code=201, response_model=Entry, responses=_ERRORS)
    def add_memory(body: AddRequest) -> dict[str, Any]:
        entry = vault.add(
            body.content,
            user_id=body.user_id,
            agent_id=body.agent_id,
            kind=body.kind,
            name=body.name,
            description=body.description,
            metadata=body.metadata,
            session_id=body.session_id,
            importance=body.importance,
            source="api",
        )
        return entry.to_dict()

    @app.post("/v1/memories/search", response_model=SearchResponse, responses=_ERRORS)
    def search_memories(body: SearchRequest) -> dict[str, Any]:
        hits = vault.search(
            body.query,
            user_id=body.user_id,
            agent_id=body.agent_id,
            limit=body.limit,
            kind=body.kind,
        )
        return {"results": [h.to_dict() for h in hits]}

    @app.get("/v1/memories", response_model=ListResponse, responses=_ERRORS)
    def list_memories(
        user_id: str,
        agent_id: str | None = None,
        kind: str | None = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        items = vault.list(
            user_id=user_id, agent_id=agent_id, kind=kind, limit=limit, offset=offset
        )
        total = vault.count(user_id=user_id, agent_id=agent_id, kind=kind)
        return {
            "items": [e.to_dict() for e in items],
            "total": total,
            "limit": limit,
            "offset": offset,
        }

    @app.get("/v1/memories/{entry_id}", response_model=Entry, responses=_ERRORS)
    def get_memory(entry_id: str, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        return vault.get(entry_id, user_id=user_id, agent_id=agent_id).to_dict()

    @app.patch("/v1/memories/{entry_id}", response_model=Entry, responses=_ERRORS)
    def update_memory(entry_id: str, body: UpdateRequest) -> dict[str, Any]:
        entry = vault.update(
            entry_id,
            user_id=body.user_id,
            agent_id=body.agent_id,
            content=body.content,
            name=body.name,
            description=body.description,
            kind=body.kind,
            metadata=body.metadata,
            importance=body.importance,
        )
        return entry.to_dict()

    @app.delete(
        "/v1/memories/{entry_id}", status_code=204, response_class=Response, responses=_ERRORS
    )
    def delete_memory(entry_id: str, user_id: str, agent_id: str | None = None) -> Response:
        vault.delete(entry_id, user_id=user_id, agent_id=agent_id)
        return Response(status_code=204)

    if mcp_endpoint is not None:
        mcp_endpoint.mount(app)
    return app


def check_bind(host: str) -> None:
    """Until API keys exist, only loopback addresses may be bound."""
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"refusing to bind {host}: the API has no authentication yet, so it only "
            "listens on loopback; use --host 127.0.0.1"
        )


def run(config: VaultConfig, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve the API with uvicorn until interrupted."""
    import uvicorn

    check_bind(host)
    with Vault(config=config) as vault:
        if vault.embedder is not None:
            vault.embedder.embed(["warm up"])  # load the model now, not on the first request
        embedder = vault.embedder.name if vault.embedder else "none (keyword only)"
        print(
            f"memvault {__version__} serving {config.database} on http://{host}:{port} "
            f"(embedder: {embedder})"
        )
        uvicorn.run(create_app(vault), host=host, port=port, log_level="info")


__all__ = ["check_bind", "create_app", "run"]
