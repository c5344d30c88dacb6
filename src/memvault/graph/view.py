"""The entity graph as a picture needs it: nodes and weighted edges, for one view.

Two shapes: the ``limit`` entities the view's entries name most, with the relations
among them; or the neighbourhood of one entity (``center``), ring by ring up to
``depth`` relations away, nearest and best connected first until ``limit`` is reached.
Everything is read through the view (``stores.protocols.EntityGraph``), so another
user's entities, or those only another agent's private entries name, never appear.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..errors import NotFoundError, ValidationError
from ..names import name_key
from ..results.graph import Entity, EntityGraphView, GraphEdge, GraphNode, Relation
from ..stores.graph_values import MENTIONED_WITH
from ..stores.protocols import EntityGraph
from ..stores.values import View
from ..validation import check_limit, check_short_text

#: The most nodes one drawing holds, and how far from a centre it reaches.
MAX_NODES = 500
MAX_DEPTH = 3


def check_depth(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DEPTH:
        raise ValidationError(
            f"depth must be an integer from 1 to {MAX_DEPTH} (relations away from center)",
            field="depth",
        )
    return value


def _visible(graph: EntityGraph, view: View, center: object) -> Entity:
    text = check_short_text(center, "center", 255)
    key = name_key(text)
    if not key:
        raise ValidationError(
            "center has no letters or digits: send an entity's name, or leave it out",
            field="center",
        )
    found = graph.find_entities(view.user_id, [key]).get(key)
    seen = graph.entities(view, ids=[found], limit=1) if found else []
    if not seen:
        raise NotFoundError(
            f"no entity named {text!r} for user {view.user_id!r}: list entities to find "
            "one (names are matched ignoring case and width)",
            user_id=view.user_id,
        )
    return seen[0]


def _edges(relations: Sequence[Relation], keep: set[str]) -> list[GraphEdge]:
    """One edge per (ends, relation) among ``keep``, weighted by the entries stating it."""
    entries: dict[tuple[str, str, str], set[str]] = {}
    names: dict[str, str] = {}
    for r in relations:
        if r.source_id not in keep or r.target_id not in keep or r.source_id == r.target_id:
            continue
        names[r.source_id], names[r.target_id] = r.source, r.target
        ends = (r.source_id, r.target_id)
        if r.type == MENTIONED_WITH and (r.target, r.target_id) < (r.source, r.source_id):
            ends = (r.target_id, r.source_id)
        entries.setdefault((*ends, r.type), set()).add(r.entry_id)
    edges = [
        GraphEdge(s, names[s], t, names[t], kind, len(ids)) for (s, t, kind), ids in entries.items()
    ]
    edges.sort(key=lambda e: (-e.weight, e.source, e.target, e.relation))
    return edges


def _ring(relations: Sequence[Relation], frontier: set[str], seen: set[str]) -> list[str]:
    """The entities one relation away from ``frontier`` not yet ``seen``, most strongly
    tied to it first (ties by id, so the order is stable)."""
    ties: Counter[str] = Counter()
    for r in relations:
        for here, there in ((r.source_id, r.target_id), (r.target_id, r.source_id)):
            if here in frontier and there not in seen:
                ties[there] += 1
    return sorted(ties, key=lambda i: (-ties[i], i))


def entity_graph(
    graph: EntityGraph,
    view: View,
    *,
    limit: object = 200,
    center: object = None,
    depth: object = 2,
) -> EntityGraphView:
    """The view's entity graph: the ``limit`` most named entities, or the neighbourhood
    of ``center`` up to ``depth`` relations away (``NotFoundError`` when the view's
    entries do not name it)."""
    most = check_limit(limit, maximum=MAX_NODES)
    if center is None:
        entities = graph.entities(view, limit=most + 1)
        truncated = len(entities) > most
        entities = entities[:most]
        ids = {e.id for e in entities}
        nodes = tuple(GraphNode(e.id, e.name, e.type, e.entries, e.aliases) for e in entities)
        edges = _edges(graph.entity_relations(view, sorted(ids)), ids)
        return EntityGraphView(nodes, tuple(edges), None, None, most, truncated)

    reach = check_depth(depth)
    middle = _visible(graph, view, center)
    hops = {middle.id: 0}
    frontier = {middle.id}
    truncated = False
    for ring in range(1, reach + 1):
        found = _ring(graph.entity_relations(view, sorted(frontier)), frontier, set(hops))
        room = most - len(hops)
        if len(found) > room:
            found, truncated = found[:room], True
        hops.update((i, ring) for i in found)
        frontier = set(found)
        if not frontier:
            break
    ids = set(hops)
    by_id = {e.id: e for e in graph.entities(view, ids=sorted(ids), limit=len(ids))}
    order = sorted(by_id.values(), key=lambda e: (hops[e.id], -e.entries, e.name, e.id))
    nodes = tuple(GraphNode(e.id, e.name, e.type, e.entries, e.aliases, hops[e.id]) for e in order)
    kept = set(by_id)
    edges = _edges(graph.entity_relations(view, sorted(kept)), kept)
    return EntityGraphView(nodes, tuple(edges), middle.name, reach, most, truncated)


__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "check_depth",
    "entity_graph",
]
