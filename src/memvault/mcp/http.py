"""The MCP endpoint over streamable HTTP, mounted at ``/mcp`` of the gateway.

Transports: ``run_stdio`` serves one user over stdin/stdout (``memvault mcp --user
ID``). ``HttpEndpoint`` serves streamable HTTP at ``/mcp`` of the FastAPI app
(stateless: every POST stands alone). Whose memory a request reaches is decided by the
``resolve`` callable the endpoint is given. The gateway's takes the user from the
request's API key (``server.keys``; a user key that names another user gets 404) and
lets an admin key name the user, as the default (``auth_headers.request_scope``) does: the
``X-Memvault-User`` header or the ``user_id`` query parameter (the agent from
``X-Memvault-Agent`` / ``agent_id``). With authentication off the server binds only
loopback addresses (``server.app.check_bind``), and the endpoint always refuses
non-local Host and Origin headers (DNS-rebinding protection).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from ..agent.stores import AgentVaults, memory_off
from ..auth_headers import request_scope
from ..errors import ConfigError, NotFoundError, ValidationError
from ..lru import DEFAULT_MAXSIZE, LRUCache
from ..vault import Vault
from .server import _server
from .tools import UserTools

# -- streamable HTTP -----------------------------------------------------------------

_REQUEST_SCOPE: ContextVar[tuple[str, str | None] | None] = ContextVar(
    "memvault_mcp_scope", default=None
)

_LOOPBACK_ONLY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


class HttpEndpoint:
    """The MCP streamable-HTTP endpoint for ``vault``, serving the user each request names.

    An ASGI app: mount it with ``mount(app)`` and run ``running()`` in the app's
    lifespan. Stateless: each POST is served on its own, scoped by its own headers.
    """

    def __init__(
        self,
        vault: Vault | AgentVaults,
        *,
        base_dir: str | Path,
        path: str = "/mcp",
        resolve: Callable[[Scope], tuple[str, str | None]] = request_scope,
        cache_size: int = DEFAULT_MAXSIZE,
    ) -> None:
        # With AgentVaults, an agent that has its own store is served from it.
        self.agents = vault if isinstance(vault, AgentVaults) else None
        self.vault = vault.default if isinstance(vault, AgentVaults) else vault
        self.base_dir = Path(base_dir)
        self.path = path
        self._resolve = resolve  # (user, agent) of a request; the gateway passes its own
        # Stateless: no connection outlives a POST, so none can hold a subscription.
        self.server = _server(self._current_tools, live=False)
        self._manager: StreamableHTTPSessionManager | None = None
        # One UserTools per (user, agent), the least recently used dropped past cache_size.
        self._tools: LRUCache[tuple[str, str | None], UserTools] = LRUCache(cache_size)

    def _current_tools(self) -> UserTools:
        scope = _REQUEST_SCOPE.get()
        if scope is None:
            raise ValidationError("this request names no user: send X-Memvault-User")
        user_id, agent_id = scope
        agents = self.agents
        if agents is not None and agent_id is not None and not agents.settings(agent_id).enabled:
            raise ConfigError(memory_off(agent_id))

        def create() -> UserTools:
            vault = self.vault if self.agents is None else self.agents.vault_for(agent_id)
            return UserTools(vault, user_id=user_id, agent_id=agent_id, base_dir=self.base_dir)

        return self._tools.get_or_create(scope, create)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve requests while inside (a fresh session manager per app start)."""
        manager = StreamableHTTPSessionManager(
            app=self.server,
            stateless=True,
            json_response=True,
            security_settings=_LOOPBACK_ONLY,
        )
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        manager = self._manager
        if manager is None:
            response = JSONResponse(
                {"error": {"code": "unavailable", "message": "the MCP endpoint is not running"}},
                status_code=503,
            )
            await response(scope, receive, send)
            return
        try:
            who = self._resolve(scope)
        except (ValidationError, NotFoundError) as exc:
            status = 404 if isinstance(exc, NotFoundError) else 400
            response = JSONResponse({"error": {"code": exc.code, "message": str(exc)}}, status)
            await response(scope, receive, send)
            return
        token = _REQUEST_SCOPE.set(who)
        try:
            await manager.handle_request(scope, receive, send)
        finally:
            _REQUEST_SCOPE.reset(token)

    def mount(self, app: Any) -> None:
        """Route ``self.path`` of a Starlette/FastAPI ``app`` to this endpoint."""
        app.router.add_route(self.path, self, include_in_schema=False)


__all__ = [
    "HttpEndpoint",
]
