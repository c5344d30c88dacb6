"""A knowledge graph of entities, observations and relations, in the vault's entity graph.

It gives the reference MCP "memory" server's model (entities with a type and a
list of observations, directed relations between them) a home in the vault: the
entities and relations are the vault's own entity graph (``Vault.entities``,
``Vault.entity``; the graph channel of recall uses them), and each is written
through an entry, so graph facts are searchable by ``memory_recall`` like any
other memory and follow the entries' scope and deletion:

* an entity is one entry (name = entity name, unique per user; content = the name,
  type and one line per observation; metadata ``{"graph": "entity", ...}``), which
  the write path links to the graph's entity of that name with its type;
* a relation is one entry (``"<from> <type> <to>"``; metadata ``{"graph": "relation",
  ...}``), which states the graph's relation between the two;
* deleting an entity deletes its relations (the entries, so their links too).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import NotFoundError, UnsupportedOperationError, ValidationError
from ..model import MemoryEntry
from ..stores.graph_values import UNKNOWN
from ..vault import Vault

GRAPH_CATEGORY = "knowledge-graph"
SEARCH_DEPTH = 50
_PAGE = 1000


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    entity_type: str
    observations: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "entityType": self.entity_type,
            "observations": list(self.observations),
        }


@dataclass(frozen=True, slots=True)
class Relation:
    source: str
    target: str
    relation_type: str

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "relationType": self.relation_type}


@dataclass(frozen=True, slots=True)
class Graph:
    entities: list[Entity]
    relations: list[Relation]

    def to_json(self) -> dict[str, Any]:
        return {
            "entities": [e.to_json() for e in self.entities],
            "relations": [r.to_json() for r in self.relations],
        }


def _entity_of(entry: MemoryEntry) -> Entity | None:
    meta = entry.metadata
    if meta.get("graph") != "entity" or not entry.name:
        return None
    observations = meta.get("observations")
    return Entity(
        entry.name,
        str(meta.get("entity_type", "")),
        tuple(o for o in observations if isinstance(o, str))
        if isinstance(observations, list)
        else (),
    )


def _relation_of(entry: MemoryEntry) -> Relation | None:
    meta = entry.metadata
    if meta.get("graph") != "relation":
        return None
    parts = (meta.get("from"), meta.get("to"), meta.get("relation_type"))
    if not all(isinstance(p, str) for p in parts):
        return None
    return Relation(*parts)  # type: ignore[arg-type]


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))


class KnowledgeGraph:
    """The reference memory server's entity/relation graph, stored as vault entries.

    Raises memvault errors; the MCP adapter renders them for the model.
    """

    def __init__(self, vault: Vault, *, user_id: str, agent_id: str | None = None) -> None:
        self.vault = vault
        self.user_id = user_id
        self.agent_id = agent_id

    # -- reading ------------------------------------------------------------------

    def _entries(self) -> Iterator[MemoryEntry]:
        offset = 0
        while True:
            # Entries held for review are not part of the graph a model reads.
            page = self.vault.list(
                user_id=self.user_id,
                agent_id=self.agent_id,
                quarantined=False,
                limit=_PAGE,
                offset=offset,
            )
            yield from (e for e in page if e.metadata.get("graph") in ("entity", "relation"))
            if len(page) < _PAGE:
                return
            offset += _PAGE

    def _load(
        self, *, for_model: bool = False
    ) -> tuple[dict[str, tuple[MemoryEntry, Entity]], list[tuple[str, Relation]]]:
        """Entities by name (the newest entry wins a duplicate) and (entry id, relation)
        pairs. Types and relations are read from the vault's entity graph, where the
        write path linked these entries; observations are the entity entries' own.
        ``for_model``: less every entry ``vault.model_view`` withholds from a model, so
        no entity, observation or relation of theirs is shown (the writers see all)."""
        entities: dict[str, tuple[MemoryEntry, Entity]] = {}
        stated: dict[str, Relation] = {}
        found = list(self._entries())
        if for_model:
            view = self.vault.model_view
            why = view.withheld(found, user_id=self.user_id, agent_id=self.agent_id)
            found = [e for e in found if e.id not in why]
        for entry in found:
            entity = _entity_of(entry)
            if entity is not None:
                entities.setdefault(entity.name, (entry, entity))
                continue
            relation = _relation_of(entry)
            if relation is not None:
                stated[entry.id] = relation
        relations: dict[str, Relation] = {}
        for name, (entry, entity) in list(entities.items()):
            try:
                detail = self.vault.entities.get(name, user_id=self.user_id, agent_id=self.agent_id)
            except (NotFoundError, UnsupportedOperationError):
                continue  # a store without the graph: the entries' own account
            kind = detail.entity.type if detail.entity.type != UNKNOWN else entity.entity_type
            entities[name] = (entry, Entity(entity.name, kind, entity.observations))
            for r in detail.relations:
                said = stated.get(r.entry_id)  # None for a withheld relation's entry too
                if said is not None and r.type == said.relation_type[:64]:
                    relations[r.entry_id] = Relation(r.source, r.target, r.type)
        # A relation neither end of which is an entity here: as its entry states it.
        for entry_id, relation in stated.items():
            relations.setdefault(entry_id, relation)
        return entities, list(relations.items())

    def _subgraph(
        self,
        names: Sequence[str],
        entities: dict[str, tuple[MemoryEntry, Entity]],
        relations: list[tuple[str, Relation]],
    ) -> Graph:
        chosen = [entities[n][1] for n in _unique(names) if n in entities]
        keep = {e.name for e in chosen}
        links = [r for _, r in relations if r.source in keep and r.target in keep]
        return Graph(chosen, _unique_relations(links))

    def read_graph(self) -> Graph:
        entities, relations = self._load(for_model=True)
        ordered = sorted(entities.values(), key=lambda pair: pair[0].created_at)
        return Graph([e for _, e in ordered], _unique_relations([r for _, r in relations]))

    def open_nodes(self, names: Sequence[str]) -> Graph:
        entities, relations = self._load(for_model=True)
        return self._subgraph(names, entities, relations)

    def search_nodes(self, query: str) -> Graph:
        hits = self.vault.search(
            query,
            user_id=self.user_id,
            agent_id=self.agent_id,
            limit=SEARCH_DEPTH,
            quarantined=False,
            for_model=True,
        )
        entities, relations = self._load(for_model=True)
        names: list[str] = []
        for hit in hits:
            entity = _entity_of(hit.entry)
            if entity is not None:
                names.append(entity.name)
                continue
            relation = _relation_of(hit.entry)
            if relation is not None:
                names.extend((relation.source, relation.target))
        needle = query.strip().lower()
        names.extend(
            name
            for name, (_, entity) in entities.items()
            if needle in name.lower() or needle in entity.entity_type.lower()
        )
        return self._subgraph(names, entities, relations)

    # -- writing ------------------------------------------------------------------

    def _entity_fields(self, entity: Entity) -> dict[str, Any]:
        lines = [f"{entity.name} ({entity.entity_type})"]
        lines += [f"- {o}" for o in entity.observations]
        return {
            "content": "\n".join(lines),
            "metadata": {
                "graph": "entity",
                "entity_type": entity.entity_type,
                "observations": list(entity.observations),
            },
        }

    def _record(self, name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        return {
            **fields,
            "name": name,
            "kind": "user",
            "category": GRAPH_CATEGORY,
            "agent_id": self.agent_id,
            "source": "mcp",
        }

    def create_entities(self, items: Sequence[Mapping[str, Any]]) -> list[Entity]:
        """Store the entities whose names are new; returns those (all in one transaction)."""
        existing, _ = self._load()
        new: dict[str, Entity] = {}
        for item in items:
            name = item["name"]
            if not name.strip():
                raise ValidationError("an entity name is empty: give every entity a name")
            if name in existing or name in new:
                continue
            new[name] = Entity(name, item["entityType"], tuple(_unique(item["observations"])))
        records = [self._record(e.name, self._entity_fields(e)) for e in new.values()]
        self.vault.add_many(records, user_id=self.user_id)
        return list(new.values())

    def create_relations(self, items: Sequence[Mapping[str, Any]]) -> list[Relation]:
        """Store the relations not yet present; returns those (all in one transaction)."""
        _, stored = self._load()
        seen = {r for _, r in stored}
        new: list[Relation] = []
        for item in items:
            relation = Relation(item["from"], item["to"], item["relationType"])
            if not all(p.strip() for p in (relation.source, relation.target)):
                raise ValidationError("a relation has an empty 'from' or 'to': name both ends")
            if not relation.relation_type.strip():
                raise ValidationError("a relation has an empty relationType: say what links them")
            if relation in seen:
                continue
            seen.add(relation)
            new.append(relation)
        records = []
        for r in new:
            sentence = f"{r.source} {r.relation_type} {r.target}"
            meta = {"graph": "relation", "from": r.source, "to": r.target}
            fields = {"content": sentence, "metadata": {**meta, "relation_type": r.relation_type}}
            records.append(self._record(sentence, fields))
        self.vault.add_many(records, user_id=self.user_id)
        return new

    def _rewrite(self, entry: MemoryEntry, entity: Entity) -> None:
        fields = self._entity_fields(entity)
        self.vault.update(
            entry.id,
            user_id=self.user_id,
            agent_id=self.agent_id,
            content=fields["content"],
            metadata={**entry.metadata, **fields["metadata"]},
        )

    def add_observations(self, items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Append new observations to existing entities; every entity must exist."""
        entities, _ = self._load()
        missing = [i["entityName"] for i in items if i["entityName"] not in entities]
        if missing:
            known = ", ".join(sorted(entities)[:20]) or "none yet"
            raise NotFoundError(
                f"no entity named {missing[0]!r}: create it with create_entities first "
                f"(known entities: {known}); nothing was added",
                user_id=self.user_id,
            )
        results = []
        for item in items:
            entry, entity = entities[item["entityName"]]
            added = [c for c in _unique(item["contents"]) if c not in entity.observations]
            if added:
                entity = Entity(entity.name, entity.entity_type, (*entity.observations, *added))
                self._rewrite(entry, entity)
                entities[entity.name] = (entry, entity)
            results.append({"entityName": entity.name, "addedObservations": added})
        return results

    def delete_entities(self, names: Sequence[str]) -> tuple[list[str], int]:
        """Delete the named entities and their relations; returns (names deleted, relations)."""
        entities, relations = self._load()
        doomed = {n for n in names if n in entities}
        links = [i for i, r in relations if r.source in names or r.target in names]
        ids = [entities[n][0].id for n in doomed] + links
        if ids:
            self.vault.delete_many(ids, user_id=self.user_id, agent_id=self.agent_id)
        return sorted(doomed), len(links)

    def delete_observations(self, items: Sequence[Mapping[str, Any]]) -> int:
        """Remove observations from entities (unknown entities are ignored); returns the count."""
        entities, _ = self._load()
        removed = 0
        for item in items:
            pair = entities.get(item["entityName"])
            if pair is None:
                continue
            entry, entity = pair
            drop = set(item["observations"])
            kept = tuple(o for o in entity.observations if o not in drop)
            if len(kept) != len(entity.observations):
                removed += len(entity.observations) - len(kept)
                entity = Entity(entity.name, entity.entity_type, kept)
                self._rewrite(entry, entity)
                entities[entity.name] = (entry, entity)
        return removed

    def delete_relations(self, items: Sequence[Mapping[str, Any]]) -> int:
        """Remove the given relations (unknown ones are ignored); returns how many went."""
        _, relations = self._load()
        doomed = {Relation(i["from"], i["to"], i["relationType"]) for i in items}
        ids = [entry_id for entry_id, r in relations if r in doomed]
        if ids:
            self.vault.delete_many(ids, user_id=self.user_id, agent_id=self.agent_id)
        return len(ids)


def _unique_relations(relations: Sequence[Relation]) -> list[Relation]:
    return list(dict.fromkeys(relations))


# -- the tools of one user -----------------------------------------------------------
