"""``vault.entities``: the entity graph of a user's memories — the people, places and
things the entries name, their names and aliases, and how they relate.

Thin over ``engine.entities`` (the checks and the graph reads) and ``graph.view`` (the
drawable graph); alias and merge writes run in one store transaction.
"""

from __future__ import annotations

from typing import Any

from ...graph.view import entity_graph
from ...model import MemoryEntry
from ...results.graph import Entity, EntityDetail, EntityGraphView
from ...security.screen import Door, TextScreen
from ...stores.protocols import Store
from ..entities import EntityService
from ..views import owner_view
from .deprecated import warn


class Entities:
    """The entity graph of one store (``UnsupportedOperationError`` on a store without one)."""

    def __init__(self, store: Store, screen: TextScreen | None = None) -> None:
        self._store = store
        self._service = EntityService(store)
        self._screen = screen or TextScreen()

    def __call__(self, **kwargs: Any) -> list[Entity]:
        """``vault.entities(...)``, the flat call before this namespace: ``list``."""
        warn("Vault.entities(...)", "vault.entities.list(...)")
        return self.list(**kwargs)

    def get(
        self, name: str, *, user_id: str, agent_id: str | None = None, limit: int = 100
    ) -> EntityDetail:
        """One entity by any of its names: its relations both ways and the ids of the
        entries naming it. ``NotFoundError`` when the caller's entries name none."""
        return self._service.entity(name, user_id, agent_id, limit=limit)

    def add_alias(self, name: str, alias: str, *, user_id: str) -> Entity:
        """Let ``alias`` name the entity ``name`` names too (recall and extraction meet it).

        An alias is shown wherever the entity is (the MCP entities resource, the graph),
        so it passes the one screen first: refused when the scan flags it, redacted."""
        if isinstance(alias, str):
            alias = self._screen(alias, Door.ENTITY_NAME)
        with self._store.atomic():
            return self._service.add_alias(name, alias, user_id)

    def merge(self, keep: str, drop: str, *, user_id: str) -> Entity:
        """Make the entity ``drop`` names part of the one ``keep`` names (names, links and
        relations move over)."""
        with self._store.atomic():
            return self._service.merge(keep, drop, user_id)

    def graph(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 200,
        center: str | None = None,
        depth: int = 2,
    ) -> EntityGraphView:
        """The caller's entities as nodes and their relations as weighted edges, for
        drawing the graph: the ``limit`` most named, or the neighbourhood of ``center``
        up to ``depth`` relations away (``NotFoundError`` when no entry of the caller
        names it)."""
        view = owner_view(user_id, agent_id)
        return entity_graph(self._service.graph, view, limit=limit, center=center, depth=depth)

    def memories(
        self, name: str, *, user_id: str, agent_id: str | None = None, limit: int = 20
    ) -> list[MemoryEntry]:
        """The caller's entries naming the entity, newest first: what the panel shows
        beside a node, in one read instead of one per entry."""
        detail = self.get(name, user_id=user_id, agent_id=agent_id, limit=limit)
        view = owner_view(user_id, agent_id)
        found = {e.id: e for e in self._store.get_many(view, detail.entry_ids)}
        return [found[i] for i in detail.entry_ids if i in found]

    # Last in the class: below this method the name ``list`` means it, not the builtin.

    def list(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        prefix: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        """The entities the caller's entries name, most named first (``prefix``: only
        those with a name starting so, matched ignoring case and width)."""
        return self._service.entities(user_id, agent_id, prefix=prefix, limit=limit, offset=offset)


__all__ = ["Entities"]
