"""The values of the entity graph a store keeps: what an entry mentions, and what a read
returns. Plain frozen dataclasses shared by every backend (``protocols.EntityGraph``), and
how co-mentions are kept as places on an entry's links (below)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
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


@dataclass(frozen=True, slots=True)
class EntryMentions:
    """What one just-inserted entry names, for linking a batch of them at once
    (``EntityGraph.link_new_entries``)."""

    entry_id: str
    mentions: tuple[Mention, ...]
    relations: tuple[RelationMention, ...] = ()


# -- co-mentions as places --------------------------------------------------------------
#
# Co-mentions kept as places on an entry's links instead of as relation rows.
#
# Extraction relates the first few entities of an entry pairwise (``mentioned_with``,
# from the earlier to the later): about twenty rows per entry, most of a vault's disk.
# Each is implied by two numbers on the entry's link to an entity, its first and last
# place among the related names: the entry states ``(a, b)`` exactly when ``a``'s first
# place comes before ``b``'s last (two places only when two names of one entity were
# related, or after a merge). A store keeps those places and, as rows, only the
# ``mentioned_with`` relations they do not imply (an LLM's, a stated one), and derives
# the rest when it reads, through the same links and views as before.

#: An entity's first and last place among the entry's related names.
Place = tuple[int, int]


def fold(
    order: Sequence[str], pairs: Iterable[tuple[str, str]]
) -> tuple[dict[str, Place], set[tuple[str, str]]]:
    """The places of the entities of ``order`` (an entry's, in text order) whose
    ``mentioned_with`` ``pairs`` (source, target) places imply, and the pairs left.

    Places go to the longest run of entities every earlier one of which is related to
    every later one; the run is found in the order the pairs themselves give (most
    related-to first, then most related-from, then ``order``), so an entry's pairs
    fold the same whatever order its entities come in (a copy, a migration)."""
    left = set(pairs)
    out = Counter(s for s, _ in left)
    into = Counter(t for _, t in left)
    ranked = sorted(dict.fromkeys(order), key=lambda i: (-out[i], -into[i]))
    run = 0
    while run < len(ranked) and all((ranked[j], ranked[run]) in left for j in range(run)):
        run += 1
    if run < 2:
        return {}, left
    places = {i: (n, n) for n, i in enumerate(ranked[:run])}
    return places, {p for p in left if not _implied(places, *p)}


def _implied(places: Mapping[str, Place], source: str, target: str) -> bool:
    return source in places and target in places and places[source][0] < places[target][1]


def pairs_of(a: str, pa: Place, b: str, pb: Place) -> list[tuple[str, str]]:
    """The pairs (source, target) the places of two entities of one entry imply."""
    if a == b:
        return []
    return [p for p, ok in (((a, b), pa[0] < pb[1]), ((b, a), pb[0] < pa[1])) if ok]


def unfold(places: Mapping[str, Place]) -> list[tuple[str, str]]:
    """Every pair the places of one entry's entities imply, in (source, target) order."""
    ids = sorted(places)
    return sorted(
        p
        for n, a in enumerate(ids)
        for b in ids[n + 1 :]
        for p in pairs_of(a, places[a], b, places[b])
    )


def merged(a: Place | None, b: Place | None) -> Place | None:
    """The places of an entity that took over another in one entry (a merge): every
    pair either implied, it implies."""
    if a is None or b is None:
        return a if b is None else b
    return (min(a[0], b[0]), max(a[1], b[1]))


__all__ = [
    "ENTITY_TYPES",
    "MENTIONED_WITH",
    "UNKNOWN",
    "Mention",
    "Place",
    "RelationMention",
    "fold",
    "merged",
    "pairs_of",
    "unfold",
]
