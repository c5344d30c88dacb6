"""memvault's memory tools as OpenAI function tools (Chat Completions and Responses).

An agent built straight on the ``openai`` client (no framework) declares its tools
as JSON: ``openai_tool_schemas(manager)`` gives every tool the manager's providers
declare (the builtin ``memory`` tool, the vault's ``memory_save`` /
``memory_recall`` / ``memory_decision``, Hindsight's tools when that provider is
configured) in the shape ``chat.completions.create(tools=...)`` takes, or with
``api="responses"`` the shape ``responses.create(tools=...)`` takes. Run the calls
the model makes with ``manager.handle_tool_call(name, arguments)``; its JSON answer
is the tool message's content.

Without a manager, the builtin and vault tools are listed (the tools every memvault
agent can have). The MCP server's extra tools (``memory_list``, ``memory_delete``,
``memory_remember``, the knowledge-graph tools) are served by the MCP server
itself, which a function-calling loop does not run, so they are not listed here.

``strict`` is left off: memvault's tools have optional arguments, which OpenAI's
strict mode does not allow; arguments are checked when the call is handled and a
bad one gets an error the model can act on.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ..agent.manager import MemoryManager
from ..agent.tools.memory import MEMORY_TOOL_SCHEMA
from ..agent.tools.vault import TOOL_SCHEMAS as VAULT_TOOL_SCHEMAS
from ..errors import ValidationError

Api = Literal["chat", "responses"]
APIS: tuple[Api, ...] = ("chat", "responses")


def memory_tool_specs(manager: MemoryManager | None = None) -> list[dict[str, Any]]:
    """``{"name", "description", "parameters"}`` of every memory tool (see the module
    docstring), each name once, in provider order."""
    if manager is not None and not isinstance(manager, MemoryManager):
        raise ValidationError("manager must be a MemoryManager or None", field="manager")
    declared: Iterable[Mapping[str, Any]] = (
        manager.get_tool_schemas()
        if manager is not None
        else [MEMORY_TOOL_SCHEMA, *VAULT_TOOL_SCHEMAS]
    )
    specs: dict[str, dict[str, Any]] = {}
    for schema in declared:
        function = schema.get("function")
        spec = function if isinstance(function, Mapping) else schema
        name = spec.get("name")
        if not isinstance(name, str) or name in specs:
            continue
        parameters = spec.get("parameters") or {"type": "object", "properties": {}}
        specs[name] = {
            "name": name,
            "description": str(spec.get("description") or name),
            "parameters": copy.deepcopy(dict(parameters)),
        }
    return list(specs.values())


def openai_tool_schemas(
    manager: MemoryManager | None = None, *, api: Api = "chat"
) -> list[dict[str, Any]]:
    """Every memory tool as an OpenAI function tool for ``api`` (``"chat"`` for Chat
    Completions, ``"responses"`` for the Responses API)."""
    if api not in APIS:
        raise ValidationError(f"api must be one of {', '.join(APIS)}, got {api!r}", field="api")
    specs = memory_tool_specs(manager)
    if api == "chat":
        return [{"type": "function", "function": spec} for spec in specs]
    return [{"type": "function", **spec, "strict": False} for spec in specs]


__all__ = ["APIS", "memory_tool_specs", "openai_tool_schemas"]
