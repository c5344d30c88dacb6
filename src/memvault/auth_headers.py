"""Whose memory an HTTP request names: the identity headers both HTTP surfaces read.

The MCP endpoint and the gateway in front of it (which authenticates ``/mcp`` and may
narrow it to a key's user) read the same ``X-Memvault-User`` / ``X-Memvault-Agent``
headers and ``user_id`` / ``agent_id`` query parameters, from a raw ASGI scope. One
module below both keeps them reading them alike. Plain mappings, no web framework:
the scope is a dict whatever serves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from .errors import ValidationError
from .validation import check_ident, check_optional_ident

USER_HEADER = "x-memvault-user"
AGENT_HEADER = "x-memvault-agent"


def scope_headers(scope: Mapping[str, Any]) -> dict[str, str]:
    """The request's headers by lower-case name (the last of repeated ones wins)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def scope_query(scope: Mapping[str, Any]) -> dict[str, list[str]]:
    """The request's query parameters, every value of each."""
    return parse_qs(scope.get("query_string", b"").decode("latin-1"))


def _first(query: Mapping[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def named_agent(headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
    """The agent a request names, unchecked: the header wins over ``?agent_id=``."""
    return headers.get(AGENT_HEADER) or _first(query, "agent_id")


def request_scope(scope: Mapping[str, Any]) -> tuple[str, str | None]:
    """The (user, agent) an HTTP request names, validated; the header wins over the query.

    What a request without a key (or with an admin key) reaches: the request itself
    says whose memory it is.
    """
    headers, query = scope_headers(scope), scope_query(scope)
    user = headers.get(USER_HEADER) or _first(query, "user_id")
    if not user:
        raise ValidationError(
            "no user: send the X-Memvault-User header (or ?user_id=) naming whose memory this is",
            field="user_id",
        )
    agent = named_agent(headers, query)
    return check_ident(user, "user_id"), check_optional_ident(agent or None, "agent_id")


__all__ = [
    "AGENT_HEADER",
    "USER_HEADER",
    "named_agent",
    "request_scope",
    "scope_headers",
    "scope_query",
]
