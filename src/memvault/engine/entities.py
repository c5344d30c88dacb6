"""Reading and shaping a user's entity graph: list, one entity with its neighbours and
linked entries, aliases and merges. ``Vault`` delegates here.

Scope: the owner's view by default (every entry of the user), or one agent's (the
shared entries and that agent's own), as ``Vault.list`` has it. An entity is visible
when an entry of the view links to it; another user's entity, or one only another
agent's entries name, is reported exactly like a missing one.
"""

from __future__ import annotations

from ..errors import NotFoundError, ValidationError
from ..names import name_key
from ..results.graph import Entity, EntityDetail
from ..stores.protocols import EntityGraph
from ..stores.values import View
from ..validation import check_limit, check_offset, check_short_text
from .views import owner_view


def check_name(name: object, field: str = "name") -> str:
    """An entity name as its key, or ``ValidationError``."""
    text = check_short_text(name, field, 255)
    key = name_key(text)
    if not key:
        raise ValidationError(
            f"{field} has no letters or digits: send an entity's name", field=field
        )
    return key


class EntityService:
    """The graph API of ``Vault`` over a store that has the graph."""

    def __init__(self, store: EntityGraph) -> None:
        self.store = store

    @property
    def graph(self) -> EntityGraph:
        return self.store

    def _find(self, view: View, name: object) -> Entity:
        key = check_name(name)
        found = self.graph.find_entities(view.user_id, [key]).get(key)
        seen = self.graph.entities(view, ids=[found], limit=1) if found else []
        if not seen:
            raise NotFoundError(
                f"no entity named {name!r} for user {view.user_id!r}: list entities to find "
                "one (names are matched ignoring case and width)",
                user_id=view.user_id,
            )
        return seen[0]

    def entities(
        self,
        user_id: object,
        agent_id: object = None,
        *,
        prefix: object = None,
        limit: object = 100,
        offset: object = 0,
    ) -> list[Entity]:
        view = owner_view(user_id, agent_id)
        start = (
            None
            if prefix is None or prefix == ""
            else name_key(check_short_text(prefix, "prefix", 255))
        )
        return self.graph.entities(
            view,
            prefix=start or None,
            limit=check_limit(limit, maximum=1000),
            offset=check_offset(offset),
        )

    def entity(
        self, name: object, user_id: object, agent_id: object = None, *, limit: object = 100
    ) -> EntityDetail:
        view = owner_view(user_id, agent_id)
        entity = self._find(view, name)
        relations = tuple(self.graph.entity_relations(view, [entity.id]))
        linked = self.graph.linked_entries(
            view, {entity.id: 1.0}, limit=check_limit(limit, maximum=1000)
        )
        return EntityDetail(entity, relations, tuple(e.id for e, _ in linked))

    def add_alias(self, name: object, alias: object, user_id: object) -> Entity:
        view = owner_view(user_id)
        entity = self._find(view, name)
        self.graph.add_alias(view.user_id, entity.id, check_name(alias, "alias"))
        return self._find(view, name)

    def merge(self, keep: object, drop: object, user_id: object) -> Entity:
        view = owner_view(user_id)
        kept, dropped = self._find(view, keep), self._find(view, drop)
        self.graph.merge_entities(view.user_id, kept.id, dropped.id)
        return self._find(view, keep)


__all__ = [
    "EntityService",
    "check_name",
]
