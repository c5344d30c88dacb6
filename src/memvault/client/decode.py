"""From the server's JSON back to the library's own objects.

The server renders every answer with the objects' ``to_dict``; these functions are
their inverses, so a caller of the HTTP client holds the same ``MemoryEntry``, ``Hit``,
``Explanation``, ``Version``, ``Remembered``, ``Stats``, ``EntityDetail``,
``EntityGraphView``, ``UserMemories`` and ``WorkspaceSession`` a caller of ``Vault``
does (times as ``datetime``, enums as enums). Anything that is not the expected shape
raises ``KeyError``, ``TypeError`` or ``ValueError``; the exchange turns those into one
``UpstreamError`` naming the route.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from typing import Any

from ..model import Hit, MemoryEntry
from ..results.external import ExternalHit
from ..results.graph import Entity, EntityDetail, EntityGraphView, GraphEdge, GraphNode, Relation
from ..results.history import Version
from ..results.profile import Fact, Learned, LearnedFact, Remembered
from ..results.recall import (
    DEFAULT_CALIBRATION,
    Calibration,
    CandidateTrace,
    ChannelScore,
    Explanation,
    Gate,
)
from ..results.stats import DayCount, Stats, UserMemories
from ..results.workspace import WorkspaceSession


def _object(data: object, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise TypeError(f"{what} is {type(data).__name__}, not an object")
    return data


def _time(value: object) -> datetime:
    if not isinstance(value, str):
        raise TypeError(f"a time is {type(value).__name__}, not ISO 8601 text")
    return datetime.fromisoformat(value)


def _optional_time(value: object) -> datetime | None:
    return None if value is None else _time(value)


def _converter(hint: Any) -> Callable[[Any], Any]:
    """How one field of ``MemoryEntry`` is read back from its JSON value."""
    members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    optional = type(None) in members
    (base,) = [m for m in members if m is not type(None)]
    if base is datetime:
        return _optional_time if optional else _time
    if isinstance(base, type) and issubclass(base, Enum):
        enum: type[Enum] = base
        return (lambda v: None if v is None else enum(v)) if optional else enum
    if typing.get_origin(base) is dict:
        return lambda v: None if v is None and optional else dict(_object(v, "metadata"))
    return lambda v: v


_ENTRY_FIELDS: dict[str, Callable[[Any], Any]] = {
    f.name: _converter(hint)
    for f in dataclasses.fields(MemoryEntry)
    for hint in [typing.get_type_hints(MemoryEntry)[f.name]]
}


def entry(data: object) -> MemoryEntry:
    """A ``MemoryEntry`` from ``MemoryEntry.to_dict``'s output; fields a newer server
    adds are ignored, fields an older one lacks take their defaults."""
    values = _object(data, "an entry")
    return MemoryEntry(
        **{name: read(values[name]) for name, read in _ENTRY_FIELDS.items() if name in values}
    )


def hit(data: object) -> Hit:
    values = _object(data, "a search hit")
    return Hit(entry(values["entry"]), float(values["score"]), _scores(values.get("sources")))


def _scores(data: object) -> dict[str, float]:
    return {str(k): float(v) for k, v in _object(data or {}, "sources").items()}


def version(data: object) -> Version:
    values = _object(data, "a version")
    return Version(
        entry=entry(values["entry"]),
        valid_from=_time(values["valid_from"]),
        valid_to=_optional_time(values.get("valid_to")),
        actor=str(values["actor"]),
        action=str(values["action"]),
        changed=tuple(values.get("changed", ())),
    )


def _candidate(data: object) -> CandidateTrace:
    values = _object(data, "a candidate")
    boosts = _object(values["boosts"], "boosts")
    features = values.get("features")
    return CandidateTrace(
        rank=int(values["rank"]),
        entry=entry(values["entry"]),
        channels={
            str(name): ChannelScore(int(found["rank"]), float(found["score"]))
            for name, found in _object(values["channels"], "channels").items()
        },
        fused=float(values["fused"]),
        importance=float(boosts["importance"]),
        recency=float(boosts["recency"]),
        tier=float(boosts["tier"]),
        person=float(boosts["person"]),
        score=float(values["score"]),
        returned=bool(values["returned"]),
        relevant=bool(values["relevant"]),
        injectable=bool(values["injectable"]),
        context=values["context"],
        evidence=values.get("evidence"),
        word_match=bool(values.get("word_match", False)),
        fusion_rank=int(values.get("fusion_rank", 0)),
        rerank=None if values.get("rerank") is None else float(values["rerank"]),
        features=None if features is None else _scores(features),
        withheld=None if values.get("withheld") is None else str(values["withheld"]),
    )


def _gate(data: object) -> Gate | None:
    if data is None:
        return None
    values = _object(data, "the gate")
    settings = values.get("settings")
    calibration = (
        DEFAULT_CALIBRATION
        if settings is None
        else Calibration(
            margin=float(settings["margin"]),
            band=float(settings["band"]),
            min_similarity=float(settings["min_similarity"]),
        )
    )

    def number(name: str) -> float | None:
        value = values.get(name)
        return None if value is None else float(value)

    return Gate(number("best"), number("background"), number("margin"), calibration)


def explanation(data: object) -> Explanation:
    """An ``Explanation`` from ``POST /v1/memories/explain`` (``to_dict`` plus the gate's
    settings); ``print()`` and ``format()`` work on it as on the library's own."""
    values = _object(data, "an explanation")
    return Explanation(
        query=str(values["query"]),
        terms=tuple(values["terms"]),
        person=values.get("person"),
        channels=tuple(values["channels"]),
        depth=int(values["depth"]),
        limit=int(values["limit"]),
        now=_time(values["now"]),
        candidates=tuple(_candidate(c) for c in values["candidates"]),
        expired=tuple(values.get("expired", ())),
        gate=_gate(values.get("gate")),
        phrases=tuple(values.get("phrases", ())),
        stage=str(values.get("stage", "fusion")),
        stage_note=str(values.get("stage_note", "")),
    )


def _learned(data: object, user_id: str, agent_id: str | None) -> Learned:
    """What an extraction did. The wire carries neither the user (``user_id``: the one
    the call named, "" when a user key acted for its own) nor the replaced and removed
    texts (left empty)."""
    values = _object(data, "learned")
    added = [
        LearnedFact(
            fact=Fact(
                id=a["id"],
                content=a["content"],
                category=a["category"],
                confidence=a["confidence"],
                replaces=a.get("replaces"),
            ),
            agent_id=a.get("agent_id"),
            entry_id=a.get("entry_id"),
        )
        for a in values.get("added", ())
    ]
    return Learned(
        user_id=user_id,
        agent_id=agent_id,
        thread_id=str(values["thread_id"]),
        status=values["status"],
        added=added,
        reinforced=list(values.get("reinforced", ())),
        corrected=dict(values.get("corrected", {})),
        removed=list(values.get("removed", ())),
        sections=list(values.get("sections", ())),
        dropped_low_confidence=int(values.get("dropped_low_confidence", 0)),
        dropped_over_limit=int(values.get("dropped_over_limit", 0)),
        merged=int(values.get("merged", 0)),
        refused=list(values.get("refused", ())),
        error=values.get("error"),
    )


def remembered(data: object, user_id: str | None, agent_id: str | None) -> Remembered:
    values = _object(data, "the remember answer")
    learned = values.get("learned")
    return Remembered(
        session_id=str(values["session_id"]),
        thread_id=str(values["thread_id"]),
        received=int(values["received"]),
        kept=int(values["kept"]),
        archived=list(values.get("archived", ())),
        already_archived=int(values.get("already_archived", 0)),
        refused=int(values.get("refused", 0)),
        extraction=values["extraction"],
        note=str(values.get("note", "")),
        learned=None if learned is None else _learned(learned, user_id or "", agent_id),
    )


def external_hit(data: object) -> ExternalHit:
    """One memory recalled through ``/api/memory/v2/search`` (``entry`` and ``sources``
    filled when the server's external provider is the vault)."""
    values = _object(data, "a recalled memory")
    found = values.get("entry")
    return ExternalHit(
        id=str(values["id"]),
        text=str(values["text"]),
        score=None if values.get("score") is None else float(values["score"]),
        bank=str(values["bank"]),
        metadata=dict(_object(values.get("metadata") or {}, "metadata")),
        sources=_scores(values.get("sources")),
        entry=None if found is None else entry(found),
    )


def _counts(data: object, what: str) -> dict[str, int]:
    return {str(k): int(v) for k, v in _object(data, what).items()}


def stats(data: object) -> Stats:
    """``Stats`` from ``GET /v1/stats`` (``Stats.to_dict``: the embedder and its pending
    vectors travel together under ``embedding``)."""
    values = _object(data, "the stats")
    embedding = _object(values["embedding"], "embedding")
    activity = []
    for day in values["activity"]:
        row = _object(day, "a day of activity")
        activity.append(DayCount(str(row["day"]), int(row["created"]), int(row["updated"])))
    model = embedding.get("model")
    return Stats(
        user_id=str(values["user_id"]),
        agent_id=values.get("agent_id"),
        at=_time(values["at"]),
        total=int(values["total"]),
        by_kind=_counts(values["by_kind"], "by_kind"),
        by_class=_counts(values["by_class"], "by_class"),
        by_tier=_counts(values["by_tier"], "by_tier"),
        by_domain=_counts(values["by_domain"], "by_domain"),
        quarantined=int(values["quarantined"]),
        embedder=None if model is None else str(model),
        pending_vectors=int(embedding["pending"]),
        days=int(values["days"]),
        activity=tuple(activity),
    )


def entity(data: object) -> Entity:
    """An ``Entity`` from ``entity_dict``'s output (a listing's item, or the head of a
    detail)."""
    values = _object(data, "an entity")
    return Entity(
        id=str(values["id"]),
        name=str(values["name"]),
        type=str(values["type"]),
        entries=int(values["entries"]),
        aliases=tuple(str(a) for a in values["aliases"]),
    )


def _relation(data: object) -> Relation:
    values = _object(data, "a relation")
    return Relation(
        source_id=str(values["source_id"]),
        source=str(values["source"]),
        type=str(values["type"]),
        target_id=str(values["target_id"]),
        target=str(values["target"]),
        entry_id=str(values["entry_id"]),
    )


def entity_detail(data: object) -> EntityDetail:
    """An ``EntityDetail`` from ``GET /v1/entities/{name}`` (``neighbours`` is derived
    from the relations again, so it is not read)."""
    values = _object(data, "an entity")
    return EntityDetail(
        entity=entity(values),
        relations=tuple(_relation(r) for r in values["relations"]),
        entry_ids=tuple(str(i) for i in values["entry_ids"]),
    )


def _node(data: object) -> GraphNode:
    values = _object(data, "a node")
    hops = values.get("hops")
    return GraphNode(
        id=str(values["id"]),
        name=str(values["name"]),
        type=str(values["type"]),
        mentions=int(values["mentions"]),
        aliases=tuple(str(a) for a in values["aliases"]),
        hops=None if hops is None else int(hops),
    )


def _edge(data: object) -> GraphEdge:
    values = _object(data, "an edge")
    return GraphEdge(
        source_id=str(values["source_id"]),
        source=str(values["source"]),
        target_id=str(values["target_id"]),
        target=str(values["target"]),
        relation=str(values["relation"]),
        weight=int(values["weight"]),
    )


def entity_graph(data: object) -> EntityGraphView:
    """An ``EntityGraphView`` from ``GET /v1/entities/graph``."""
    values = _object(data, "the graph")
    depth = values.get("depth")
    return EntityGraphView(
        nodes=tuple(_node(n) for n in values["nodes"]),
        edges=tuple(_edge(e) for e in values["edges"]),
        center=values.get("center"),
        depth=None if depth is None else int(depth),
        limit=int(values["limit"]),
        truncated=bool(values["truncated"]),
    )


def user_memories(data: object) -> UserMemories:
    values = _object(data, "a user")
    return UserMemories(str(values["user_id"]), int(values["memories"]))


def workspace_session(data: object) -> WorkspaceSession:
    values = _object(data, "a session")
    workspace = values.get("workspace_id")
    return WorkspaceSession(
        session_id=str(values["session_id"]),
        workspace_id=None if workspace is None else str(workspace),
        card_revision=int(values["card_revision"]),
        tasks=int(values["tasks"]),
        updated_at=_optional_time(values.get("updated_at")),
    )


__all__ = [
    "entity",
    "entity_detail",
    "entity_graph",
    "entry",
    "explanation",
    "external_hit",
    "hit",
    "remembered",
    "stats",
    "user_memories",
    "version",
    "workspace_session",
]
