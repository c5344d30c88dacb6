"""memvault as a Model Context Protocol server: the surface for MCP clients (the ``mcp`` extra).

``tools`` holds the tools and ``UserTools``, which runs them for one user; ``server``
the MCP server over them and the stdio transport; ``http`` the streamable-HTTP endpoint
the gateway mounts at ``/mcp``; ``graph`` is the reference MCP knowledge graph (entities
and relations kept as vault entries), which only the tools use; ``resources`` and
``prompts`` are the SDK-free halves of the MCP resources (with what a tool call changed)
and prompts. This package re-exports what the single ``memvault.mcp`` module did, so
``from memvault.mcp import build_server`` keeps working; the identity headers and
``request_scope`` live in ``memvault.auth_headers``, shared with the gateway.
"""

from __future__ import annotations

from ..auth_headers import AGENT_HEADER, USER_HEADER, request_scope
from .graph import KnowledgeGraph
from .http import HttpEndpoint
from .server import SERVER_INSTRUCTIONS, build_server, run_stdio, serve_stdio
from .tools import GRAPH_SCHEMAS, TOOL_NAMES, TOOLS, ToolOutcome, UserTools

__all__ = [
    "AGENT_HEADER",
    "GRAPH_SCHEMAS",
    "SERVER_INSTRUCTIONS",
    "TOOLS",
    "TOOL_NAMES",
    "USER_HEADER",
    "HttpEndpoint",
    "KnowledgeGraph",
    "ToolOutcome",
    "UserTools",
    "build_server",
    "request_scope",
    "run_stdio",
    "serve_stdio",
]
