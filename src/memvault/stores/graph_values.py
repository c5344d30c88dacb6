"""The values of the entity graph a store keeps: what an entry mentions, and what a read
returns. Plain frozen dataclasses shared by every backend (``protocols.EntityGraph``)."""

from __future__ import annotations

from dataclasses import dataclass

#: The type of an entity the rules could not tell.
UNKNOWN = "unknown"

#: The types extraction assigns; explicit writes (the MCP graph tools) may use others.
ENTITY_TYPES = ("person", "project", "tool", "place", "organisation", UNKNOWN)

#: The relation type of two entities one entry names together, when nothing says more.
MENTIONED_WITH = "mentioned_with"


@dataclass(frozen=True, slots=True)
class Mention:
    """An entity an entry names: its key (``names.name_key``), the surface form to show
    when the entity is new, and its type. ``override``: name and type replace the
    stored ones (an explicit write); otherwise the type only fills in an unknown one."""

    key: str
    name: str
    type: str = UNKNOWN
    override: bool = False


@dataclass(frozen=True, slots=True)
class RelationMention:
    """A relation an entry states between two of its mentions (by key)."""

    source: str
    target: str
    type: str = MENTIONED_WITH


__all__ = [
    "ENTITY_TYPES",
    "MENTIONED_WITH",
    "UNKNOWN",
    "Mention",
    "RelationMention",
]
