"""The FastAPI application: wiring only.

Routers: ``health`` (``/healthz``, ``/readyz``), ``memories`` (``/v1/memories``,
``/v1/users/{user_id}``), ``recall`` (``/v1/memories/context``, ``/explain``, ``/batch``),
``v2`` (``/api/memory/v2``), ``admin`` (``/v1/keys``), ``users`` (``GET /v1/users``); the
MCP endpoint at ``/mcp``.
``errors.install_handlers`` maps the error tree to status codes. Authentication is on
when a ``KeyStore`` is given; without one the server acts as a local admin and
``check_bind`` keeps it on loopback.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from pathlib import Path
from typing import Any, cast

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._version import __version__
from ..agent.external import ExternalMemory
from ..auth_headers import USER_HEADER, named_agent, request_scope, scope_headers, scope_query
from ..config import VaultConfig, export_worker_settings, load_config, worker_settings
from ..errors import ConfigError, MemvaultError, NotFoundError
from ..stores.factory import shown_location
from ..validation import check_optional_ident
from ..vault import Vault
from . import (
    admin,
    agents,
    compat,
    entities,
    health,
    history,
    maintenance,
    memories,
    prefetch,
    profile,
    quarantine,
    recall,
    sensitive,
    session_config,
    stats,
    usage,
    users,
    v2,
    workspace,
)
from .auth import Who, authenticate
from .errors import (
    PayloadTooLargeError,
    error_response,
    install_handlers,
    memvault_error_response,
)
from .keys import KeyStore, Principal
from .state import Gateway, ServerSettings

PANEL_PATH = "/panel"
STATIC_DIR = Path(__file__).parent / "static"
# The panel loads nothing but its own files and talks to nothing but this server.
PANEL_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
_PRINCIPAL = "memvault.principal"


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, before a route reads them.

    A declared ``Content-Length`` is checked up front; a chunked body is counted as it
    is read, and once it passes the limit whatever the app makes of the cut-off body
    (FastAPI answers "error parsing the body") is replaced by the 413.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = PayloadTooLargeError(
            f"the request body is over the limit of {self.limit} bytes: send less "
            "(split imports into several requests)"
        )
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await self._refuse(too_large, scope, receive, send)
                return
        seen = 0
        over = False
        started = False

        async def counted() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    over = True
                    raise too_large
            return message

        async def watch(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the app's answer to a body it could not read: the 413 replaces it
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watch)
        except Exception:
            if not over or started:
                raise
        if over and not started:
            await self._refuse(too_large, scope, receive, send)

    @staticmethod
    async def _refuse(exc: MemvaultError, scope: Scope, receive: Receive, send: Send) -> None:
        await memvault_error_response(exc)(scope, receive, send)


def _mcp_endpoint(gw: Gateway) -> Any:
    """The ``/mcp`` endpoint taking its user from the request's key, or None without
    the ``mcp`` extra."""
    try:
        from ..mcp.http import HttpEndpoint
    except ImportError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        return None

    def resolve(scope: Scope) -> tuple[str, str | None]:
        who: Principal | None = scope.get(_PRINCIPAL)
        if who is None or who.admin:
            return request_scope(scope)  # an admin names the user, as without auth
        assert who.user_id is not None
        query = scope_query(scope)
        for named in query.get("user_id", []):  # as act_as: another user "does not exist"
            if named != who.user_id:
                raise NotFoundError(f"no user {named!r}", user_id=named)
        agent = named_agent(scope_headers(scope), query)
        return who.user_id, check_optional_ident(agent or None, "agent_id")

    return HttpEndpoint(
        gw.agents, base_dir=gw.home, resolve=resolve, cache_size=gw.settings.agent_cache_size
    )


# What the MCP SDK answers in plain text, as (code, message) of our JSON error shape.
_MCP_PLAIN_ERRORS = {
    400: ("invalid_input", "send Content-Type: application/json"),
    403: ("forbidden", "the Origin header names a site that may not call this server"),
    413: ("payload_too_large", "the request body is too large"),
    421: (
        "misdirected_request",
        "the Host header names another server: call it by its own address (127.0.0.1 or localhost)",
    ),
}


class _McpGuard:
    """Authenticate /mcp like every other route; a user key naming another user gets 404.

    The server is stateless, so only POST is served: anything else gets 405 (a GET would
    otherwise open an event stream that never sends anything). Plain-text refusals of
    the MCP SDK (Host, Origin, Content-Type checks) are rewritten in the JSON error
    shape. A class, not a function: Starlette treats a plain function as a request
    handler."""

    def __init__(self, gw: Gateway, endpoint: ASGIApp) -> None:
        self.gw = gw
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.endpoint(scope, receive, send)
            return
        headers = scope_headers(scope)
        try:
            who = authenticate(self.gw, headers.get("authorization"))
            named = headers.get(USER_HEADER)
            if not who.admin and named is not None and named != who.user_id:
                raise NotFoundError(f"no user {named!r}")
        except MemvaultError as exc:
            await memvault_error_response(exc, (str(self.gw.home),))(scope, receive, send)
            return
        if scope["method"] != "POST":
            response = error_response(
                405,
                "method_not_allowed",
                f"{scope['method']} is not served at /mcp: this MCP server is stateless, "
                "send each JSON-RPC message as a POST",
            )
            response.headers["Allow"] = "POST"
            await response(scope, receive, send)
            return
        await self.endpoint({**scope, _PRINCIPAL: who}, receive, _json_errors(send))


def _json_errors(send: Send) -> Send:
    """``send`` with the SDK's plain-text error answers rewritten as our JSON errors."""
    held: Message | None = None

    async def rewrite(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start":
            status = message["status"]
            content_type = dict(message.get("headers", [])).get(b"content-type", b"")
            if status in _MCP_PLAIN_ERRORS and not content_type.startswith(b"application/json"):
                held = message
                return
        elif held is not None and message["type"] == "http.response.body":
            if message.get("more_body", False):
                return  # the SDK's short text, thrown away until its last part
            code, hint = _MCP_PLAIN_ERRORS[held["status"]]
            sdk_text = message.get("body", b"").decode("utf-8", "replace")
            response = error_response(held["status"], code, f"{sdk_text or code}: {hint}")
            await send(
                {
                    "type": "http.response.start",
                    "status": held["status"],
                    "headers": response.raw_headers,
                }
            )
            await send({"type": "http.response.body", "body": response.body})
            return
        await send(message)

    return rewrite


def create_app(
    vault: Vault,
    *,
    keys: KeyStore | None = None,
    settings: ServerSettings | None = None,
    external: ExternalMemory | None = None,
) -> FastAPI:
    """An app serving ``vault``; the caller owns the vault and closes it.

    ``keys`` turns authentication on; ``None`` serves everyone as a local admin.
    ``external`` is the external memory behind ``/api/memory/v2`` search, reflect and
    bank clearing; ``None`` builds the one ``memory.provider`` names (the vault by default).
    """
    gw = Gateway(
        vault=vault,
        keys=keys,
        settings=settings or ServerSettings(),
        external_memory=external,
    )
    mcp_endpoint = _mcp_endpoint(gw)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        scheduler = maintenance.start_schedule(gw)
        try:
            async with mcp_endpoint.running() if mcp_endpoint else nullcontext():
                yield
        finally:
            if scheduler is not None:
                scheduler.stop()
            gw.close()

    app = FastAPI(
        title="memvault",
        version=__version__,
        description="Long-term memory for LLM agents. Send `Authorization: Bearer <key>` "
        "on every route but /healthz and /readyz.",
        lifespan=lifespan,
        # No Swagger UI or ReDoc (they load scripts from a CDN); the schema needs a key.
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    _add_openapi(app)
    app.state.gateway = gw
    install_handlers(app)
    for module in (
        health,
        memories,
        v2,
        admin,
        agents,
        maintenance,
        sensitive,
        quarantine,
        usage,
        stats,
        users,
        entities,
        profile,
        recall,
        workspace,
        compat,
        prefetch,
    ):
        app.include_router(module.router)
    app.include_router(history.router)
    app.include_router(session_config.router)
    _add_panel(app)
    if mcp_endpoint is not None:
        # Starlette serves a non-function endpoint as a raw ASGI app; its stub only
        # describes request handlers, hence the cast.
        guard = cast(Any, _McpGuard(gw, mcp_endpoint))
        app.router.add_route(mcp_endpoint.path, guard, include_in_schema=False)
    if gw.settings.cors_origins:  # closed unless origins are listed
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(gw.settings.cors_origins),
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(BodyLimit, limit=gw.settings.max_body_bytes)
    return app


def _add_openapi(app: FastAPI) -> None:
    """``GET /openapi.json``, for callers with a key (user or admin), like every data route."""

    def openapi(_: Who) -> dict[str, Any]:
        return app.openapi()

    app.add_api_route("/openapi.json", openapi, methods=["GET"], include_in_schema=False)


def _add_panel(app: FastAPI) -> None:
    """The web panel: a static page at ``/`` and ``/panel``; it holds no data, and every
    request it makes carries the key typed into it."""

    def panel() -> FileResponse:
        return FileResponse(
            STATIC_DIR / "index.html", headers={"Content-Security-Policy": PANEL_CSP}
        )

    for path in ("/", PANEL_PATH):
        app.add_api_route(path, panel, methods=["GET"], include_in_schema=False)
    app.mount(f"{PANEL_PATH}/static", StaticFiles(directory=STATIC_DIR), name="panel-static")


def check_bind(host: str, *, auth: bool = False) -> None:
    """Without authentication, only loopback addresses may be bound."""
    if auth or host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"refusing to bind {host} with authentication off: anyone who can reach it would "
            "read every user's memory; drop --no-auth, or use --host 127.0.0.1"
        )


def bind_listener(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound before anything a failed start would lose is
    made: the first admin key is printed only once, so it must never be created by a
    start that then dies on a busy port."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise ConfigError(f"--host {host}: not an address this machine has ({exc})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}): another server may be "
            "using the port; stop it or pass --port with a free one (nothing was created)"
        ) from None
    sock.set_inheritable(True)
    return sock


def run(
    config: VaultConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    auth: bool = True,
    settings: ServerSettings | None = None,
    workers: int = 1,
    listener: socket.socket | None = None,
) -> None:
    """Serve the API with uvicorn until interrupted (Ctrl-C or SIGTERM stops every worker).

    With ``workers > 1`` uvicorn starts that many processes, each opening its own
    ``Vault`` (and so its own connection pool) on the same store, so searches run on
    every core instead of queueing behind one process. On SQLite in WAL mode their
    writes take turns; a database server (``postgresql://``, ``mysql://``) takes them
    side by side. The workers get ``config`` itself, not a re-read of the environment,
    so settings given in code reach them too. The keys file is only read by workers
    (the first admin key is created before they start; writes take its file lock).

    ``listener`` is a socket from ``bind_listener`` (``memvault serve`` binds it before
    creating the first admin key); one process serves on it as it is, while uvicorn's
    workers bind the address again, so it is released just before they start.
    """
    import uvicorn

    check_bind(host, auth=auth)
    settings = settings or ServerSettings()
    if workers > 1:
        export_worker_settings(
            config,
            {
                "auth": auth,
                "max_body_bytes": settings.max_body_bytes,
                "cors_origins": list(settings.cors_origins),
                "yaml_path": str(settings.yaml_path) if settings.yaml_path else None,
                "run_maintenance": settings.run_maintenance,
                "config": config.model_dump(mode="json"),
            },
        )
        print(
            f"memvault {__version__} serving {_shown(config)} on http://{host}:{port} "
            f"({workers} workers; auth: {'API keys' if auth else 'off, loopback only'})"
        )
        if listener is not None:
            listener.close()
        uvicorn.run(
            "memvault.server.app:worker_app", factory=True, host=host, port=port, workers=workers
        )
        return
    keys = KeyStore.in_home(config.home) if auth else None
    with Vault(config=config) as vault:
        if vault.embedder is not None:
            vault.embedder.embed(["warm up"])  # load the model now, not on the first request
        embedder = vault.embedder.name if vault.embedder else "none (keyword only)"
        print(
            f"memvault {__version__} serving {_shown(config)} on http://{host}:{port} "
            f"(embedder: {embedder}; auth: {'API keys' if auth else 'off, loopback only'})"
        )
        app = create_app(vault, keys=keys, settings=settings)
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port))
        server.run(sockets=[listener] if listener is not None else None)


def _shown(config: VaultConfig) -> str:
    """The store as the start-up line may show it: a URL's password replaced by ***."""
    return str(config.database) if config.store_url is None else shown_location(config.store_url)


def worker_app() -> FastAPI:
    """App factory of one worker process (see ``run``): its own Vault, closed on shutdown."""
    exported = worker_settings()
    given = exported.get("config")
    config = VaultConfig.model_validate(given) if given is not None else load_config()
    settings = ServerSettings(
        max_body_bytes=int(exported.get("max_body_bytes", ServerSettings.max_body_bytes)),
        cors_origins=tuple(exported.get("cors_origins", ())),
        yaml_path=Path(exported["yaml_path"]) if exported.get("yaml_path") else None,
        # Every worker schedules it; the lock file lets one of them run each round.
        run_maintenance=bool(exported.get("run_maintenance", False)),
    )
    vault = Vault(config=config)
    keys = KeyStore.in_home(config.home) if exported.get("auth", True) else None
    app = create_app(vault, keys=keys, settings=settings)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: FastAPI) -> AsyncIterator[None]:
        try:
            async with inner(a):
                yield
        finally:
            vault.close()

    app.router.lifespan_context = lifespan
    return app


__all__ = ["PANEL_PATH", "BodyLimit", "check_bind", "create_app", "run", "worker_app"]
