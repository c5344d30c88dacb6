"""The MCP tools, SDK types and all, bound to one user: their schemas and
descriptions (``TOOLS``) and ``UserTools``, which runs them.

The ``mcp`` SDK (the ``mcp`` extra) is imported only here, in :mod:`.server` and in
:mod:`.http`. A thin adapter: every tool runs one call on a ``Vault`` or on the builtin
USER.md / MEMORY.md provider and renders the outcome as text for the model. Eighteen
tools, all bound to one user (and optionally one agent) chosen by whoever starts the
server, never by the model's arguments:

* ``memory_save`` / ``memory_recall`` / ``memory_decision`` — the vault tools of
  ``memvault.agent.tools.vault``;
* ``memory`` — the Hermes-style USER.md / MEMORY.md tool of ``BuiltinFileProvider``;
* ``memory_list`` / ``memory_delete`` — page through the user's memories, forget one;
* ``state_card`` / ``task_board`` — a conversation's state card and its workspace's
  tasks (``memvault.agent.tools.workspace``; here each call names its ``session_id``);
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
* ``read_graph`` / ``open_nodes`` read those entries back (less what
  ``vault.model_view`` withholds from a model, as ``memory_list`` does); ``search_nodes`` runs
  ``Vault.search`` and keeps the graph entries among the hits (a relation hit brings
  its two entities), plus entities whose name or type contains the query, then adds
  the relations between the entities found. Deleting an entity deletes its relations.

Results: graph reads return the reference server's JSON shape (``{"entities":
[{"name", "entityType", "observations"}], "relations": [{"from", "to",
"relationType"}]}``); every other result is the JSON the tool adapters write for
models. A failure — arguments that do not match the tool's schema, a ``success:
false`` from an adapter, a memvault error, even an unexpected exception — comes
back as a tool result with ``isError`` set; the server keeps running.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
from mcp import types

from ..agent.providers.builtin import BuiltinFileProvider
from ..agent.tools.vault import (
    KIND_ALIAS,
    KINDS,
    MEMORY_DECISION_SCHEMA,
    MEMORY_RECALL_SCHEMA,
    MEMORY_SAVE_SCHEMA,
    VaultTools,
    brief,
    kind_of,
)
from ..agent.tools.workspace import (
    STATE_CARD_SCHEMA,
    TASK_BOARD_SCHEMA,
    WorkspaceTools,
    with_session,
)
from ..errors import MemvaultError
from ..model import MemoryEntry, Source
from ..security.quarantine import withheld
from ..validation import check_ident, check_optional_ident
from ..vault import Vault
from .graph import KnowledgeGraph
from .prompts import UserPrompts
from .resources import UserResources

logger = logging.getLogger(__name__)

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
        "kind": KIND_ALIAS,
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


def _withheld(entry: MemoryEntry, reason: str) -> dict[str, Any]:
    """What ``memory_list`` shows of a memory ``vault.model_view`` withholds: its id (so
    it can still be deleted), none of its text, and why."""
    shown = brief(entry)
    if shown.get("quarantined"):
        return shown  # held or flagged: brief shows it as its placeholder already
    return {**shown, "name": "", "description": "", "content": withheld(entry), "withheld": reason}


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
        if name == "memory_save" and "type" not in args and "kind" in args:
            # memvault's word for the seed's required ``type``: one field, either name.
            args["type"] = args["kind"]
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
        kind, limit, offset = kind_of(args), args.get("limit", 20), args.get("offset", 0)
        scope: dict[str, Any] = {"user_id": self.user_id, "agent_id": self.agent_id, "kind": kind}
        entries = self.vault.list(**scope, limit=limit, offset=offset)
        total = self.vault.count(**scope)
        why = self.vault.model_view.withheld(entries, user_id=self.user_id, agent_id=self.agent_id)
        payload = {
            "success": True,
            "total": total,
            "count": len(entries),
            "offset": offset,
            "memories": [brief(e) if e.id not in why else _withheld(e, why[e.id]) for e in entries],
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


__all__ = [
    "GRAPH_SCHEMAS",
    "TOOLS",
    "TOOL_NAMES",
    "ToolOutcome",
    "UserTools",
]
