"""The calls behind what a person browses: the overview (``stats``), the entity graph
(``entities``, ``entity``, ``entity_memories``, ``entity_graph``), the workspace's
sessions and, for admin keys, the users. Built as the calls of ``calls`` are (same
rules for ``user_id`` and ``agent_id``), bound by ``Client`` and ``AsyncClient`` under
the names ``Vault`` gives them, and decoded into the library's own dataclasses.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from ..model import MemoryEntry
from ..results.graph import Entity, EntityDetail, EntityGraphView
from ..results.stats import Stats, UserMemories
from ..results.workspace import WorkspaceSession
from ..validation import check_limit, check_optional_ident, check_short_text
from . import decode
from .calls import _agent, _fields, _user
from .exchange import Call

#: How many of an entity's memories ``GET /v1/entities/{name}?include=memories`` adds.
ENTITY_MEMORIES_SHOWN = 20


def stats(
    *, user_id: str | None = None, agent_id: str | None = None, days: int = 30
) -> Call[Stats]:
    """The caller's memories at a glance: counts by kind, class, tier and domain, how
    many are held for review or wait for a vector, and the writes of each of the last
    ``days`` UTC days (1-366, today included)."""

    def read(r: httpx.Response, _: str | None) -> Stats:
        return decode.stats(r.json())

    params = _fields(agent_id=_agent(agent_id), days=days)
    return Call("GET", "/v1/stats", read, params=params, user_id=_user(user_id))


def _name_path(name: str) -> str:
    """``/v1/entities/{name}`` for any name. Names match ignoring case, so the one name
    the graph route would take (``graph``) is sent capitalised and reaches the entity."""
    text = check_short_text(name, "name", 255)
    sent = "Graph" if text == "graph" else text
    return f"/v1/entities/{quote(sent, safe='')}"


def entities(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    prefix: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> Call[list[Entity]]:
    """The entities the caller's memories name, most named first (``prefix``: only
    names starting so, ignoring case and width; at most 100 a page)."""

    def items(r: httpx.Response, _: str | None) -> list[Entity]:
        return [decode.entity(e) for e in r.json()["items"]]

    params = _fields(agent_id=_agent(agent_id), prefix=prefix, limit=limit, offset=offset)
    return Call("GET", "/v1/entities", items, params=params, user_id=_user(user_id))


def entity(
    name: str, *, user_id: str | None = None, agent_id: str | None = None
) -> Call[EntityDetail]:
    """One entity by any of its names: its relations both ways and the ids of the
    memories naming it; ``NotFoundError`` when none of the caller's memories do."""

    def detail(r: httpx.Response, _: str | None) -> EntityDetail:
        return decode.entity_detail(r.json())

    params = _fields(agent_id=_agent(agent_id))
    return Call("GET", _name_path(name), detail, params=params, user_id=_user(user_id))


def entity_memories(
    name: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    limit: int = ENTITY_MEMORIES_SHOWN,
) -> Call[list[MemoryEntry]]:
    """The caller's memories naming the entity, newest first, in one request (at most
    20: what the server adds to the entity with ``include=memories``)."""
    most = check_limit(limit, maximum=ENTITY_MEMORIES_SHOWN)

    def memories(r: httpx.Response, _: str | None) -> list[MemoryEntry]:
        return [decode.entry(e) for e in r.json()["memories"][:most]]

    params = _fields(agent_id=_agent(agent_id), include="memories")
    return Call("GET", _name_path(name), memories, params=params, user_id=_user(user_id))


def entity_graph(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    limit: int = 200,
    center: str | None = None,
    depth: int = 2,
) -> Call[EntityGraphView]:
    """Nodes and weighted edges to draw: the ``limit`` most named entities (at most
    500), or those around ``center`` up to ``depth`` (1-3) relations away;
    ``NotFoundError`` when the caller's memories do not name ``center``."""

    def graph(r: httpx.Response, _: str | None) -> EntityGraphView:
        return decode.entity_graph(r.json())

    params = _fields(agent_id=_agent(agent_id), limit=limit, center=center, depth=depth)
    return Call("GET", "/v1/entities/graph", graph, params=params, user_id=_user(user_id))


def workspace_sessions(
    *, user_id: str | None = None, workspace_id: str | None = None
) -> Call[list[WorkspaceSession]]:
    """The caller's conversations with a state card or a task (of one workspace, when
    given), to pick one from instead of remembering its id."""

    def sessions(r: httpx.Response, _: str | None) -> list[WorkspaceSession]:
        return [decode.workspace_session(s) for s in r.json()["sessions"]]

    params = _fields(workspace_id=check_optional_ident(workspace_id, "workspace_id"))
    return Call("GET", "/v1/cards", sessions, params=params, user_id=_user(user_id))


def _user_page(limit: int, offset: int) -> dict[str, Any]:
    return _fields(limit=limit, offset=offset)


def users(*, limit: int = 100, offset: int = 0) -> Call[list[UserMemories]]:
    """Admin keys only: who has memories on the server and how many (every agent's
    store counted), sorted by user id, a page at a time (at most 1000)."""

    def rows(r: httpx.Response, _: str | None) -> list[UserMemories]:
        return [decode.user_memories(u) for u in r.json()["items"]]

    return Call("GET", "/v1/users", rows, params=_user_page(limit, offset), user_in="none")


def user_total() -> Call[int]:
    """Admin keys only: how many users have at least one memory (every page of
    ``users`` together)."""

    def total(r: httpx.Response, _: str | None) -> int:
        return int(r.json()["total"])

    return Call("GET", "/v1/users", total, params=_user_page(1, 0), user_in="none")


__all__ = [
    "ENTITY_MEMORIES_SHOWN",
    "entities",
    "entity",
    "entity_graph",
    "entity_memories",
    "stats",
    "user_total",
    "users",
    "workspace_sessions",
]
