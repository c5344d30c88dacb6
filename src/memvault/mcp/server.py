"""memvault as a Model Context Protocol server (stdio and streamable HTTP).

This is the only module that imports the ``mcp`` SDK (the ``mcp`` extra). It is a thin
adapter: every tool runs one call on a ``Vault`` or on the builtin USER.md / MEMORY.md
provider and renders the outcome as text for the model. Eighteen tools, all bound to
one user (and optionally one agent) chosen by whoever starts the server, never by
the model's arguments:

* ``memory_save`` / ``memory_recall`` / ``memory_decision`` — the vault tools of
  ``memvault.agent.vault_tools``;
* ``memory`` — the Hermes-style USER.md / MEMORY.md tool of ``BuiltinFileProvider``;
* ``memory_list`` / ``memory_delete`` — page through the user's memories, forget one;
* ``state_card`` / ``task_board`` — a conversation's state card and its workspace's
  tasks (``memvault.agent.workspace_tools``; here each call names its ``session_id``);
* the nine tools of the reference MCP "memory" server (``create_entities``,
  ``create_relations``, ``add_observations``, ``delete_entities``,
  ``delete_observations``, ``delete_relations``, ``read_graph``, ``search_nodes``,
  ``open_nodes``), with the same input schemas, so a client configured for that server
  can switch to memvault without changing its prompts.

The knowledge graph lives in the vault itself, as ordinary entries of kind ``user``
and category ``knowledge-graph`` (so ``memory_recall`` finds graph facts too):

* an **entity** is one entry: ``name`` = the entity name (unique per user, matched
  exactly), ``content`` = ``"<name> (<type>)"`` followed by one ``- <observation>``
  line each, ``metadata`` = ``{"graph": "entity", "entity_type": ..., "observations":
  [...]}``; adding or deleting observations rewrites that entry;
* a **relation** is one entry: ``name`` and ``content`` = ``"<from> <relationType>
  <to>"``, ``metadata`` = ``{"graph": "relation", "from": ..., "to": ...,
  "relation_type": ...}``; as in the reference server, its ends need not exist yet;
* ``read_graph`` / ``open_nodes`` read those entries back; ``search_nodes`` runs
  ``Vault.search`` and keeps the graph entries among the hits (a relation hit brings
  its two entities), plus entities whose name or type contains the query, then adds
  the relations between the entities found. Deleting an entity deletes its relations.

Results: graph reads return the reference server's JSON shape (``{"entities":
[{"name", "entityType", "observations"}], "relations": [{"from", "to",
"relationType"}]}``); every other result is the JSON the tool adapters write for
models. A failure — arguments that do not match the tool's schema, a ``success:
false`` from an adapter, a memvault error, even an unexpected exception — comes
back as a tool result with ``isError`` set; the server keeps running.

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

import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import jsonschema
from mcp import MCPError, types
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from .._version import __version__
from ..agent.builtin import BuiltinFileProvider
from ..agent.learned_files import FilesMirror
from ..agent.stores import AgentVaults, memory_off
from ..agent.vault_tools import (
    KINDS,
    MEMORY_DECISION_SCHEMA,
    MEMORY_RECALL_SCHEMA,
    MEMORY_SAVE_SCHEMA,
    VaultTools,
    brief,
)
from ..agent.workspace_tools import (
    STATE_CARD_SCHEMA,
    TASK_BOARD_SCHEMA,
    WorkspaceTools,
    with_session,
)
from ..auth_headers import request_scope
from ..errors import ConfigError, MemvaultError, NotFoundError, ValidationError
from ..lru import DEFAULT_MAXSIZE, LRUCache
from ..model import Source
from ..validation import check_ident, check_optional_ident
from ..vault import Vault
from .graph import KnowledgeGraph
from .prompts import PROMPTS, UserPrompts
from .resources import Change, ResourceInfo, UserResources, check_uri

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

# -- tool descriptions and schemas ---------------------------------------------------

_STRING_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

_RELATION_ITEM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "from": {"type": "string", "description": "name of the entity the relation starts at"},
        "to": {"type": "string", "description": "name of the entity the relation points to"},
        "relationType": {
            "type": "string",
            "description": "what links them, in active voice (e.g. works_at)",
        },
    },
    "required": ["from", "to", "relationType"],
}

MEMORY_LIST_DESCRIPTION = (
    "List this user's saved memories, newest first, with their ids. Use it to review "
    "what is stored or to find the id to update or delete."
)
MEMORY_DELETE_DESCRIPTION = (
    "Forget one memory by its id (from memory_list or memory_recall). This cannot be undone."
)

MEMORY_REMEMBER_DESCRIPTION = (
    "Hand over a conversation so it is kept: each message is archived once as a turn of "
    "the session (recallable at once), and facts about the user are learnt from it in the "
    "background when the server has a model configured. Send the conversation so far; "
    "messages sent before are recognised. Tool messages are left out."
)

MEMORY_REMEMBER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "minItems": 1,
            "maxItems": 1000,
            "items": {
                "type": "object",
                "properties": {
                    "role": {
                        "type": "string",
                        "enum": ["user", "assistant", "tool", "system"],
                        "description": "who sent it",
                    },
                    "content": {"type": "string", "description": "what was said"},
                    "id": {"type": "string", "description": "the message's own id, if any"},
                },
                "required": ["role", "content"],
            },
            "description": "the conversation, oldest first",
        },
        "session_id": {
            "type": "string",
            "minLength": 1,
            "description": "the conversation these messages belong to",
        },
    },
    "required": ["messages", "session_id"],
    "additionalProperties": False,
}

GRAPH_DESCRIPTIONS: dict[str, str] = {
    "create_entities": (
        "Add entities (people, places, projects, things) to the knowledge graph, each with "
        "a type and a list of observations. A name that already exists is left as it is."
    ),
    "create_relations": (
        "Link entities of the knowledge graph with named relations, written in active voice "
        "(from 'works_at' to). A relation that already exists is skipped."
    ),
    "add_observations": (
        "Attach more observations (short facts) to entities that already exist; "
        "observations an entity already has are skipped."
    ),
    "delete_entities": (
        "Remove entities from the knowledge graph, with every relation that starts or ends at them."
    ),
    "delete_observations": "Remove particular observations from entities of the knowledge graph.",
    "delete_relations": "Remove particular relations from the knowledge graph.",
    "read_graph": "Return the whole knowledge graph: every entity and relation.",
    "search_nodes": (
        "Find the entities relevant to a query (by meaning and words in names, types and "
        "observations), with the relations between them."
    ),
    "open_nodes": "Return the named entities and the relations between them.",
}

GRAPH_SCHEMAS: dict[str, dict[str, Any]] = {
    "create_entities": {
        "type": "object",
        "properties": {
            "entities": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "the entity's name"},
                        "entityType": {"type": "string", "description": "the entity's type"},
                        "observations": {
                            **_STRING_LIST,
                            "description": "facts about the entity, one string each",
                        },
                    },
                    "required": ["name", "entityType", "observations"],
                },
            }
        },
        "required": ["entities"],
    },
    "create_relations": {
        "type": "object",
        "properties": {"relations": {"type": "array", "items": _RELATION_ITEM}},
        "required": ["relations"],
    },
    "add_observations": {
        "type": "object",
        "properties": {
            "observations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "entityName": {
                            "type": "string",
                            "description": "the entity that gets the observations",
                        },
                        "contents": {**_STRING_LIST, "description": "the observations to add"},
                    },
                    "required": ["entityName", "contents"],
                },
            }
        },
        "required": ["observations"],
    },
    "delete_entities": {
        "type": "object",
        "properties": {
            "entityNames": {**_STRING_LIST, "description": "names of the entities to remove"}
        },
        "required": ["entityNames"],
    },
    "delete_observations": {
        "type": "object",
        "properties": {
            "deletions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "entityName": {
                            "type": "string",
                            "description": "the entity holding the observations",
                        },
                        "observations": {
                            **_STRING_LIST,
                            "description": "the observations to remove",
                        },
                    },
                    "required": ["entityName", "observations"],
                },
            }
        },
        "required": ["deletions"],
    },
    "delete_relations": {
        "type": "object",
        "properties": {
            "relations": {
                "type": "array",
                "items": _RELATION_ITEM,
                "description": "the relations to remove",
            }
        },
        "required": ["relations"],
    },
    "read_graph": {"type": "object", "properties": {}},
    "search_nodes": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "what to look for in entity names, types and observations",
            }
        },
        "required": ["query"],
    },
    "open_nodes": {
        "type": "object",
        "properties": {"names": {**_STRING_LIST, "description": "the entity names to return"}},
        "required": ["names"],
    },
}

MEMORY_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": KINDS, "description": "only memories of this kind"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        "offset": {"type": "integer", "minimum": 0, "default": 0},
    },
    "additionalProperties": False,
}

MEMORY_DELETE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string", "minLength": 1, "description": "the memory id"}},
    "required": ["id"],
    "additionalProperties": False,
}

_READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
_DESTRUCTIVE = types.ToolAnnotations(destructive_hint=True, open_world_hint=False)
_WRITE = types.ToolAnnotations(destructive_hint=False, open_world_hint=False)


def _tool(
    name: str, description: str, schema: dict[str, Any], hints: types.ToolAnnotations
) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema, annotations=hints)


def _memory_tool_schema() -> dict[str, Any]:
    return BuiltinFileProvider().get_tool_schemas()[0]


def _tools() -> list[types.Tool]:
    memory = _memory_tool_schema()
    graph_hints = {
        "create_entities": _WRITE,
        "create_relations": _WRITE,
        "add_observations": _WRITE,
        "delete_entities": _DESTRUCTIVE,
        "delete_observations": _DESTRUCTIVE,
        "delete_relations": _DESTRUCTIVE,
        "read_graph": _READ_ONLY,
        "search_nodes": _READ_ONLY,
        "open_nodes": _READ_ONLY,
    }
    return [
        _tool(
            "memory_save",
            MEMORY_SAVE_SCHEMA["description"],
            MEMORY_SAVE_SCHEMA["parameters"],
            _DESTRUCTIVE,
        ),
        _tool(
            "memory_recall",
            MEMORY_RECALL_SCHEMA["description"],
            MEMORY_RECALL_SCHEMA["parameters"],
            _READ_ONLY,
        ),
        _tool(
            "memory_decision",
            MEMORY_DECISION_SCHEMA["description"],
            MEMORY_DECISION_SCHEMA["parameters"],
            _WRITE,
        ),
        _tool(memory["name"], memory["description"], memory["parameters"], _DESTRUCTIVE),
        _tool("memory_list", MEMORY_LIST_DESCRIPTION, MEMORY_LIST_SCHEMA, _READ_ONLY),
        _tool("memory_delete", MEMORY_DELETE_DESCRIPTION, MEMORY_DELETE_SCHEMA, _DESTRUCTIVE),
        _tool("memory_remember", MEMORY_REMEMBER_DESCRIPTION, MEMORY_REMEMBER_SCHEMA, _WRITE),
        *(
            _tool(s["name"], s["description"], with_session(s)["parameters"], _WRITE)
            for s in (STATE_CARD_SCHEMA, TASK_BOARD_SCHEMA)
        ),
        *(
            _tool(name, GRAPH_DESCRIPTIONS[name], GRAPH_SCHEMAS[name], graph_hints[name])
            for name in GRAPH_SCHEMAS
        ),
    ]


TOOLS: list[types.Tool] = _tools()
TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in TOOLS)
_VALIDATORS: dict[str, Any] = {
    t.name: jsonschema.Draft202012Validator(t.input_schema) for t in TOOLS
}

# -- the knowledge graph over the vault ----------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a tool call returns to the client: text, and whether it is an error."""

    text: str
    is_error: bool = False


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _failure(message: str) -> ToolOutcome:
    return ToolOutcome(json.dumps({"success": False, "error": message}, ensure_ascii=False), True)


def _from_adapter(text: str) -> ToolOutcome:
    """An adapter's JSON answer; ``"success": false`` marks it as an error."""
    try:
        failed = json.loads(text).get("success") is False
    except (ValueError, AttributeError):
        failed = False
    return ToolOutcome(text, failed)


def _schema_problem(name: str, arguments: Mapping[str, Any]) -> str | None:
    error = jsonschema.exceptions.best_match(_VALIDATORS[name].iter_errors(arguments))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "the arguments"
    return f"invalid arguments for {name} at {where}: {error.message}; check the tool's schema"


class UserTools:
    """Every MCP tool, bound to one user (and agent) of a vault. Synchronous."""

    def __init__(
        self,
        vault: Vault,
        *,
        user_id: str,
        agent_id: str | None = None,
        base_dir: str | Path,
    ) -> None:
        self.user_id = check_ident(user_id, "user_id")
        self.agent_id = check_optional_ident(agent_id, "agent_id")
        self.vault = vault
        self.vault_tools = VaultTools(
            vault, user_id=self.user_id, agent_id=self.agent_id, source=Source.MCP
        )
        self.workspace_tools = WorkspaceTools(vault, user_id=self.user_id, session_id=None)
        self.graph = KnowledgeGraph(vault, user_id=self.user_id, agent_id=self.agent_id)
        self.files = BuiltinFileProvider()
        self.files.initialize(user_id=self.user_id, agent_id=self.agent_id, base_dir=str(base_dir))
        scope: dict[str, Any] = {"user_id": self.user_id, "agent_id": self.agent_id}
        self.resources = UserResources(vault, **scope, files=self.files, graph=self.graph)
        self.prompts = UserPrompts(vault, **scope, files=self.files)
        self._handlers: dict[str, Callable[[dict[str, Any]], ToolOutcome]] = {
            "memory_save": lambda a: _from_adapter(self.vault_tools.call("memory_save", a)),
            "memory_recall": lambda a: _from_adapter(self.vault_tools.call("memory_recall", a)),
            "memory_decision": lambda a: _from_adapter(self.vault_tools.call("memory_decision", a)),
            "memory": self._memory,
            "memory_list": self._list,
            "memory_delete": self._delete,
            "memory_remember": self._remember,
            "state_card": lambda a: self._workspace("state_card", a),
            "task_board": lambda a: self._workspace("task_board", a),
            "create_entities": lambda a: ToolOutcome(
                _dump([e.to_json() for e in self.graph.create_entities(a["entities"])])
            ),
            "create_relations": lambda a: ToolOutcome(
                _dump([r.to_json() for r in self.graph.create_relations(a["relations"])])
            ),
            "add_observations": lambda a: ToolOutcome(
                _dump(self.graph.add_observations(a["observations"]))
            ),
            "delete_entities": self._delete_entities,
            "delete_observations": lambda a: ToolOutcome(
                f"Removed {self.graph.delete_observations(a['deletions'])} observation(s)."
            ),
            "delete_relations": lambda a: ToolOutcome(
                f"Removed {self.graph.delete_relations(a['relations'])} relation(s)."
            ),
            "read_graph": lambda a: ToolOutcome(_dump(self.graph.read_graph().to_json())),
            "search_nodes": lambda a: ToolOutcome(
                _dump(self.graph.search_nodes(a["query"]).to_json())
            ),
            "open_nodes": lambda a: ToolOutcome(_dump(self.graph.open_nodes(a["names"]).to_json())),
        }

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome:
        """Run one tool; every failure becomes an error outcome, never an exception."""
        handler = self._handlers.get(name)
        if handler is None:
            return _failure(f"unknown tool {name!r}: the tools are {', '.join(TOOL_NAMES)}")
        args = dict(arguments or {})
        problem = _schema_problem(name, args)
        if problem is not None:
            return _failure(problem)
        try:
            return handler(args)
        except MemvaultError as exc:
            return _failure(str(exc))
        except Exception:
            logger.exception("MCP tool %s failed for user %s", name, self.user_id)
            return _failure(f"{name} failed inside memvault (see the server log); nothing to fix")

    def _memory(self, args: dict[str, Any]) -> ToolOutcome:
        try:
            return _from_adapter(self.files.handle_tool_call("memory", args))
        finally:
            # MCP has no turns: each call is one, so the provider's per-turn retry guard
            # never locks the tool for the rest of the server's life.
            self.files.sync_turn("", "")

    def _list(self, args: dict[str, Any]) -> ToolOutcome:
        kind, limit, offset = args.get("type"), args.get("limit", 20), args.get("offset", 0)
        scope: dict[str, Any] = {"user_id": self.user_id, "agent_id": self.agent_id, "kind": kind}
        entries = self.vault.list(**scope, limit=limit, offset=offset)
        total = self.vault.count(**scope)
        payload = {
            "success": True,
            "total": total,
            "count": len(entries),
            "offset": offset,
            "memories": [brief(e) for e in entries],
        }
        return ToolOutcome(json.dumps(payload, ensure_ascii=False))

    def _delete(self, args: dict[str, Any]) -> ToolOutcome:
        return _from_adapter(
            self.vault_tools.call("memory_save", {"action": "delete", "id": args["id"]})
        )

    def _remember(self, args: dict[str, Any]) -> ToolOutcome:
        done = self.vault.remember(
            args["messages"],
            user_id=self.user_id,
            agent_id=self.agent_id,
            session_id=args["session_id"],
        )
        payload = {"success": True, **done.to_dict()}
        return ToolOutcome(json.dumps(payload, ensure_ascii=False))

    def _workspace(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        session = args.pop("session_id")
        return _from_adapter(self.workspace_tools.call(name, args, session_id=session))

    def _delete_entities(self, args: dict[str, Any]) -> ToolOutcome:
        names, links = self.graph.delete_entities(args["entityNames"])
        return ToolOutcome(f"Deleted {len(names)} entity(ies) and {links} relation(s).")


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


async def serve_stdio(
    vault: Vault, *, user_id: str, agent_id: str | None = None, base_dir: str | Path
) -> None:
    """Serve one user over stdin/stdout until the client closes the pipe."""
    server = build_server(vault, user_id=user_id, agent_id=agent_id, base_dir=base_dir)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(
    vault: Vault, *, user_id: str, agent_id: str | None = None, base_dir: str | Path
) -> None:
    """Blocking ``serve_stdio``: what ``memvault mcp --user ID`` runs."""
    anyio.run(lambda: serve_stdio(vault, user_id=user_id, agent_id=agent_id, base_dir=base_dir))


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
    "GRAPH_SCHEMAS",
    "SERVER_INSTRUCTIONS",
    "TOOLS",
    "TOOL_NAMES",
    "HttpEndpoint",
    "KnowledgeGraph",
    "ToolOutcome",
    "UserTools",
    "build_server",
    "run_stdio",
    "serve_stdio",
]
