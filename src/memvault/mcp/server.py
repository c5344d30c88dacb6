"""memvault as a Model Context Protocol server: the SDK's low-level ``Server`` over
the tools of :mod:`.tools`, with resources, prompts and change notifications, and the
stdio transport (``run_stdio``; streamable HTTP is :mod:`.http`).

Resources and prompts, scoped to the same user (and agent) as the tools: the SDK-free
parts are :mod:`.resources` (the URIs — ``memvault://files/USER.md`` and ``MEMORY.md``,
``memvault://memories/{id}``, ``memvault://graph``, ``memvault://entities[/{name}]``,
``memvault://cards/{session_id}``, ``memvault://boards/{workspace_id}`` —,
listing them a page at a time, reading them, and which a tool call changed) and
:mod:`.prompts` (``summarize_me``, ``review_quarantine``, ``prepare_context``, memory text
fenced as data). A bad URI, cursor, prompt name or argument is an MCP error
(``INVALID_PARAMS``) whose message says what to send; another user's memory id gets the
same error as an id nobody has.

Change notifications: a server built by ``build_server`` (stdio, in-memory streams) holds
connections, so after each tool call it says what changed. Handshake-era clients
(``initialize``, e.g. ``ClientSession``) subscribe per connection with
``resources/subscribe``; each connection that has spoken gets
``notifications/resources/list_changed`` when the listing moved (count or newest id) and
``notifications/resources/updated`` for its subscribed URIs the call changed (the URIs the
tool's answer names, and watched memories whose stamp moved). 2026-07-28 clients (the
SDK's ``Client``) get the same events on ``subscriptions/listen`` streams. The stateless
HTTP endpoint registers neither: no request outlives its POST, so its capabilities offer
no ``subscribe`` / ``listChanged`` and ``resources/subscribe`` is "method not found".

The knowledge-graph mapping (``KnowledgeGraph``, SDK-free) is in :mod:`.graph`, next
to the only tools that use it.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from mcp import MCPError, types
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._version import __version__
from ..agent.providers.learned_files import FilesMirror
from ..errors import MemvaultError, ValidationError
from ..vault import Vault
from .prompts import PROMPTS
from .resources import Change, ResourceInfo, check_uri
from .tools import TOOLS, ToolOutcome, UserTools, _failure

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

SERVER_NAME = "memvault"
# How many vault hits search_nodes looks at before keeping the graph entries among them.

SERVER_INSTRUCTIONS = (
    "Long-term memory for this user. memory_recall searches what earlier conversations "
    "saved; memory_save stores, corrects or forgets one memory; memory edits the short "
    "USER.md profile and your MEMORY.md notes; memory_list and memory_delete manage "
    "memories by id. The knowledge-graph tools (create_entities, search_nodes, ...) keep "
    "entities, their observations and the relations between them in the same memory."
)


# -- the MCP server ------------------------------------------------------------------


def _invalid(exc: MemvaultError, uri: str | None = None) -> MCPError:
    """A memvault error as the MCP error a client gets (invalid params, saying what to do)."""
    return MCPError(types.INVALID_PARAMS, str(exc), {"uri": uri} if uri is not None else None)


def _resource(info: ResourceInfo) -> types.Resource:
    return types.Resource(
        uri=info.uri,
        name=info.name,
        title=info.title,
        description=info.description,
        mime_type=info.mime_type,
    )


def _template(info: ResourceInfo) -> types.ResourceTemplate:
    return types.ResourceTemplate(
        uri_template=info.uri,
        name=info.name,
        title=info.title,
        description=info.description,
        mime_type=info.mime_type,
    )


PROMPT_LIST: list[types.Prompt] = [
    types.Prompt(
        name=p.name,
        title=p.title,
        description=p.description,
        arguments=[
            types.PromptArgument(name=a.name, description=a.description, required=a.required)
            for a in p.arguments
        ]
        or None,
    )
    for p in PROMPTS
]


@dataclass(eq=False)
class _Peer:
    """One client connection of a live server: the URIs it subscribed to
    (``resources/subscribe``) and its latest session, to notify it by."""

    uris: set[str] = field(default_factory=set)
    session: ServerSession | None = None


class _Watchers:
    """Who hears of changes on one live server, in either protocol era.

    Handshake era (``initialize``; what ``ClientSession`` speaks): each connection is a
    ``_Peer`` (the server's per-connection lifespan state); after a tool call every peer
    that has spoken gets ``resources/list_changed`` and, for the URIs it subscribed to,
    ``resources/updated``. 2026-07-28 era (``Client``'s default): the events go to the
    SDK's ``subscriptions/listen`` streams through a bus, which deliver each stream the
    kinds and URIs it asked for.
    """

    def __init__(self) -> None:
        self._peers: set[_Peer] = set()
        self._listened: Counter[str] = Counter()
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)

    @asynccontextmanager
    async def connection(self, _server: Any) -> AsyncIterator[_Peer]:
        peer = _Peer()
        self._peers.add(peer)
        try:
            yield peer
        finally:
            self._peers.discard(peer)

    def watched(self) -> set[str]:
        """Every URI some client asked to hear about."""
        uris = {u for u, n in self._listened.items() if n > 0}
        for peer in self._peers:
            uris |= peer.uris
        return uris

    @staticmethod
    def seen(ctx: Any) -> None:
        """Remember how to notify a handshake-era connection."""
        peer = ctx.lifespan_context
        if isinstance(peer, _Peer) and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            peer.session = ctx.session

    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        try:
            uri = check_uri(params.uri)
        except ValidationError as exc:
            raise _invalid(exc, params.uri) from None
        self.seen(ctx)
        ctx.lifespan_context.uris.add(uri)
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: Any, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        ctx.lifespan_context.uris.discard(params.uri)
        return types.EmptyResult()

    async def listen(
        self, ctx: Any, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        uris = list(params.notifications.resource_subscriptions or ())
        self._listened.update(uris)
        try:
            return await self._listen(ctx, params)
        finally:
            self._listened.subtract(uris)

    async def tell(self, change: Change) -> None:
        if change.list_changed:
            await self.bus.publish(ResourcesListChanged())
        for uri in sorted(change.uris):
            await self.bus.publish(ResourceUpdated(uri))
        for peer in list(self._peers):
            session = peer.session
            if session is None:
                continue
            try:
                if change.list_changed:
                    await session.send_resource_list_changed()
                for uri in sorted(change.uris & peer.uris):
                    await session.send_resource_updated(uri)
            except Exception:  # a gone client must not fail the tool call that changed things
                logger.debug("could not notify an MCP client of a change", exc_info=True)
                peer.session = None


class _LiveServer(Server[Any]):
    """A server that announces ``resources.listChanged`` in the handshake (it sends it)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(resources_changed=True),
            experimental_capabilities,
            extensions,
        )


def _server(resolve: Callable[[], UserTools], *, live: bool = True) -> Server[Any]:
    """A low-level MCP server whose calls run on the tools ``resolve`` returns.

    ``live``: the server holds connections (stdio, in-memory streams), so it tracks
    subscriptions and notifies clients of changes; stateless HTTP serves without them.
    """
    watchers = _Watchers() if live else None

    async def list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            tools = resolve()
        except MemvaultError as exc:
            outcome = _failure(str(exc))
        else:
            args = dict(params.arguments or {})
            if watchers is None:
                # The vault and the files block: keep them off the event loop.
                outcome = await anyio.to_thread.run_sync(tools.call, params.name, args)
            else:
                watchers.seen(ctx)
                outcome, change = await anyio.to_thread.run_sync(
                    _observed, tools, params.name, args, watchers.watched()
                )
                if change:
                    await watchers.tell(change)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            is_error=outcome.is_error,
        )

    async def list_resources(
        _ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        page = await _blocking(lambda: resolve().resources.page(cursor))
        return types.ListResourcesResult(
            resources=[_resource(r) for r in page.resources], next_cursor=page.next_cursor
        )

    async def list_templates(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        found = await _blocking(lambda: resolve().resources.templates())
        return types.ListResourceTemplatesResult(resource_templates=[_template(t) for t in found])

    async def read_resource(
        _ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        found = await _blocking(lambda: resolve().resources.read(uri), uri)
        contents = types.TextResourceContents(uri=uri, mime_type=found.mime_type, text=found.text)
        return types.ReadResourceResult(contents=[contents])

    async def list_prompts(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=PROMPT_LIST)

    async def get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        rendered = await _blocking(lambda: resolve().prompts.render(params.name, params.arguments))
        message = types.PromptMessage(
            role="user", content=types.TextContent(type="text", text=rendered.text)
        )
        return types.GetPromptResult(description=rendered.description, messages=[message])

    handlers: dict[str, Any] = {
        "on_list_tools": list_tools,
        "on_call_tool": call_tool,
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
        "on_list_prompts": list_prompts,
        "on_get_prompt": get_prompt,
    }
    if watchers is None:
        return Server(
            SERVER_NAME, version=__version__, instructions=SERVER_INSTRUCTIONS, **handlers
        )
    return _LiveServer(
        SERVER_NAME,
        version=__version__,
        instructions=SERVER_INSTRUCTIONS,
        lifespan=watchers.connection,
        on_subscribe_resource=watchers.subscribe,
        on_unsubscribe_resource=watchers.unsubscribe,
        on_subscriptions_listen=watchers.listen,
        **handlers,
    )


async def _blocking(work: Callable[[], _T], uri: str | None = None) -> _T:
    """Run a vault read off the event loop; memvault errors become MCP errors."""
    try:
        return await anyio.to_thread.run_sync(work)
    except MemvaultError as exc:
        raise _invalid(exc, uri) from None


def _observed(
    tools: UserTools, name: str, args: dict[str, Any], watched: set[str]
) -> tuple[ToolOutcome, Change]:
    """Run one tool and tell what it changed (its answer, the listing, watched memories)."""
    try:
        snapshot = tools.resources.before(name, watched)
    except MemvaultError:
        return tools.call(name, args), Change()
    outcome = tools.call(name, args)
    try:
        change = tools.resources.after(snapshot, args, outcome.text, outcome.is_error)
    except MemvaultError:
        logger.exception("could not tell what MCP tool %s changed", name)
        change = Change()
    return outcome, change


def build_server(
    vault: Vault, *, user_id: str, agent_id: str | None = None, base_dir: str | Path
) -> Server[Any]:
    """An MCP server (the SDK's low-level ``Server``) for one user of ``vault``.

    ``base_dir`` holds the USER.md / MEMORY.md files of the ``memory`` tool.
    The caller owns the vault and closes it.
    """
    tools = UserTools(vault, user_id=user_id, agent_id=agent_id, base_dir=base_dir)
    mine = (tools.user_id, tools.agent_id)
    # Facts learnt from memory_remember also go into this user's USER.md / MEMORY.md.
    vault.learning.on_learned(FilesMirror(lambda u, a: tools.files if (u, a) == mine else None))
    return _server(lambda: tools)


def _unreadable(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC 2.0 answer to a line that is no message (its id unknown, so null):
    -32700 for text that is not JSON, -32600 for JSON that is not a JSON-RPC message."""
    errors = getattr(exc, "errors", None)
    kinds = {e.get("type") for e in errors()} if callable(errors) else set()
    if "json_invalid" in kinds:
        error = types.ErrorData(
            code=types.PARSE_ERROR,
            message="Parse error: the line is not JSON; send one JSON-RPC message per line",
        )
    else:
        error = types.ErrorData(
            code=types.INVALID_REQUEST,
            message="Invalid Request: the line is JSON but not a JSON-RPC 2.0 message",
        )
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)


class _Answering:
    """The stdio read stream, answering each line that is not a message.

    The SDK hands such a line to the server as an exception, which it only logs: the
    client waits for an answer that never comes. JSON-RPC 2.0 (§5.1, which MCP builds on)
    wants a parse error with a null id, and the session goes on with the next line."""

    def __init__(self, inner: Any, replies: Any) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from the stream
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            logger.warning("MCP stdio: answered a line that is no message (%s)", type(item))
            await self._replies.send(SessionMessage(_unreadable(item)))

    def __aiter__(self) -> _Answering:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def serve_stdio(
    vault: Vault, *, user_id: str, agent_id: str | None = None, base_dir: str | Path
) -> None:
    """Serve one user over stdin/stdout until the client closes the pipe. A line that is
    not a JSON-RPC message gets its JSON-RPC error (``_Answering``); serving goes on."""
    server = build_server(vault, user_id=user_id, agent_id=agent_id, base_dir=base_dir)
    async with stdio_server() as (read_stream, write_stream):
        answering = _Answering(read_stream, write_stream)
        await server.run(answering, write_stream, server.create_initialization_options())


def run_stdio(
    vault: Vault, *, user_id: str, agent_id: str | None = None, base_dir: str | Path
) -> None:
    """Blocking ``serve_stdio``: what ``memvault mcp --user ID`` runs."""
    anyio.run(lambda: serve_stdio(vault, user_id=user_id, agent_id=agent_id, base_dir=base_dir))


__all__ = [
    "SERVER_INSTRUCTIONS",
    "build_server",
    "run_stdio",
    "serve_stdio",
]
