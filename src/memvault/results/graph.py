"""The entity graph as calls return it: entities, relations, the drawing of the graph
(``Vault.entities.graph``) and one entity with its neighbours (``Vault.entities.get``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity of a user as a view sees it: ``entries`` is how many of the view's
    entries link to it, ``aliases`` every key that names it (its own first)."""

    id: str
    name: str
    type: str
    entries: int = 0
    aliases: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation between two entities, and the entry it was written in."""

    source_id: str
    source: str
    type: str
    target_id: str
    target: str
    entry_id: str


@dataclass(frozen=True, slots=True)
class GraphNode:
    """An entity as a node: ``mentions`` is how many of the view's entries name it,
    ``hops`` its distance from the centre (None when the graph has none)."""

    id: str
    name: str
    type: str
    mentions: int
    aliases: tuple[str, ...]
    hops: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "mentions": self.mentions,
            "aliases": list(self.aliases),
            "hops": self.hops,
        }


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """A relation between two nodes; ``weight`` is how many entries state it.
    ``mentioned_with`` has no direction: its ends are in name order."""

    source_id: str
    source: str
    target_id: str
    target: str
    relation: str
    weight: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "source": self.source,
            "target_id": self.target_id,
            "target": self.target,
            "relation": self.relation,
            "weight": self.weight,
        }


@dataclass(frozen=True, slots=True)
class EntityGraphView:
    """Nodes (most named first, or nearest the centre first) and the edges among them.
    ``truncated``: more entities qualified than ``limit`` let in."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    center: str | None
    depth: int | None
    limit: int
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [n.to_dict() for n in self.nodes],
            "edges": [e.to_dict() for e in self.edges],
            "center": self.center,
            "depth": self.depth,
            "limit": self.limit,
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True)
class EntityDetail:
    """One entity as a view sees it: its relations both ways (``neighbours``) and the
    ids of the entries that name it, newest first."""

    entity: Entity
    relations: tuple[Relation, ...]
    entry_ids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            **entity_dict(self.entity),
            "relations": [relation_dict(r) for r in self.relations],
            "neighbours": sorted(
                {r.target if r.source_id == self.entity.id else r.source for r in self.relations}
            ),
            "entry_ids": list(self.entry_ids),
        }


def entity_dict(entity: Entity) -> dict[str, Any]:
    return {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "entries": entity.entries,
        "aliases": list(entity.aliases),
    }


def relation_dict(r: Relation) -> dict[str, Any]:
    return {
        "source": r.source,
        "type": r.type,
        "target": r.target,
        "source_id": r.source_id,
        "target_id": r.target_id,
        "entry_id": r.entry_id,
    }


__all__ = [
    "Entity",
    "EntityDetail",
    "EntityGraphView",
    "GraphEdge",
    "GraphNode",
    "Relation",
    "entity_dict",
    "relation_dict",
]
