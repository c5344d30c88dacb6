"""The entity graph of the in-memory store (``protocols.EntityGraph``) in plain dicts.

Kept as the SQL backends keep it (``stores.sql.graph``): entities, the keys naming
them, links (with their co-mention places, ``stores.graph_values``) and relations per
entry; a view sees what its entries link to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import ConflictError, NotFoundError
from ...model import MemoryEntry, new_id
from ...names import name_key
from ...results.graph import Entity, Relation
from ..graph_values import (
    MENTIONED_WITH,
    UNKNOWN,
    EntryMentions,
    Mention,
    Place,
    RelationMention,
    fold,
    merged,
    unfold,
)
from ..values import NO_FILTER, EntryFilter, View

_Key = tuple[str, str]


class MemoryGraph:
    """The graph half of ``MemoryStore``; its lock and ``atomic()`` cover these dicts."""

    if TYPE_CHECKING:
        import threading

        _lock: threading.RLock
        _rows: dict[tuple[str, str], tuple[MemoryEntry, Any]]

        def _check_open(self) -> None: ...

    def _graph_init(self) -> None:
        self._g_entities: dict[_Key, tuple[str, str]] = {}  # (user, id) -> (name, type)
        self._g_names: dict[_Key, str] = {}  # (user, key) -> entity id
        self._g_links: dict[_Key, tuple[str, ...]] = {}  # (user, entry) -> entity ids
        self._g_rels: dict[_Key, tuple[tuple[str, str, str], ...]] = {}  # (s, t, type)
        self._g_places: dict[_Key, dict[str, Place]] = {}  # (user, entry) -> co-mentions

    def _graph_state(self) -> tuple[Any, ...]:
        return (
            dict(self._g_entities),
            dict(self._g_names),
            dict(self._g_links),
            dict(self._g_rels),
            dict(self._g_places),
        )

    def _graph_restore(self, saved: tuple[Any, ...]) -> None:
        self._g_entities, self._g_names, self._g_links, self._g_rels, self._g_places = saved

    # -- writes ---------------------------------------------------------------------------

    def _graph_drop_user(self, user_id: str) -> None:
        tables = (self._g_entities, self._g_names, self._g_links, self._g_rels, self._g_places)
        for table in tables:
            for key in [k for k in table if k[0] == user_id]:
                del table[key]

    def _graph_drop(self, user_id: str, entry_ids: Sequence[str]) -> None:
        before: set[str] = set()
        for entry_id in entry_ids:
            before.update(self._g_links.pop((user_id, entry_id), ()))
            self._g_places.pop((user_id, entry_id), None)
            for s, t, _ in self._g_rels.pop((user_id, entry_id), ()):
                before.update((s, t))
        self._prune(user_id, before)

    def _prune(self, user_id: str, entity_ids: set[str]) -> None:
        alive = {i for (u, _), ids in self._g_links.items() if u == user_id for i in ids}
        gone = entity_ids - alive
        if not gone:
            return
        for key in [k for k, v in self._g_names.items() if k[0] == user_id and v in gone]:
            del self._g_names[key]
        for i in gone:
            self._g_entities.pop((user_id, i), None)
        for key, rels in list(self._g_rels.items()):
            if key[0] == user_id:
                self._g_rels[key] = tuple(r for r in rels if r[0] not in gone and r[1] not in gone)

    def link_entities(
        self,
        user_id: str,
        entry_id: str,
        mentions: Sequence[Mention],
        relations: Sequence[RelationMention] = (),
        *,
        new: bool = False,
    ) -> None:
        with self._lock:
            self._check_open()
            if (user_id, entry_id) not in self._rows:
                raise NotFoundError(f"no memory {entry_id!r} for user {user_id!r} to link")
            before = set(self._g_links.pop((user_id, entry_id), ()))
            self._g_places.pop((user_id, entry_id), None)
            for s, t, _ in self._g_rels.pop((user_id, entry_id), ()):
                before.update((s, t))
            ids: dict[str, str] = {}
            for m in mentions:
                if not m.key:
                    continue
                found = self._g_names.get((user_id, m.key))
                if found is None:
                    found = new_id()
                    self._g_names[(user_id, m.key)] = found
                    self._g_entities[(user_id, found)] = (m.name[:255] or m.key, m.type[:64])
                elif m.override:  # an explicit write names and types the entity
                    self._g_entities[(user_id, found)] = (m.name[:255] or m.key, m.type[:64])
                elif m.type != UNKNOWN:
                    name, kind = self._g_entities[(user_id, found)]
                    if kind == UNKNOWN:
                        self._g_entities[(user_id, found)] = (name, m.type[:64])
                ids[m.key] = found
            order = tuple(dict.fromkeys(ids.values()))
            self._g_links[(user_id, entry_id)] = order
            rels = {
                (ids[r.source], ids[r.target], r.type[:64])
                for r in relations
                if r.source in ids and r.target in ids and ids[r.source] != ids[r.target]
            }
            said = {(s, t) for s, t, k in rels if k == MENTIONED_WITH}
            places, rest = fold(order, said)
            if places:
                self._g_places[(user_id, entry_id)] = places
            rels = {r for r in rels if r[2] != MENTIONED_WITH} | {
                (s, t, MENTIONED_WITH) for s, t in rest
            }
            self._g_rels[(user_id, entry_id)] = tuple(sorted(rels))
            self._prune(user_id, before - set(ids.values()))

    def unlink_entries(self, user_id: str, entry_ids: Sequence[str]) -> None:
        with self._lock:
            self._check_open()
            self._graph_drop(user_id, entry_ids)

    def add_alias(self, user_id: str, entity_id: str, key: str) -> None:
        with self._lock:
            self._check_open()
            if (user_id, entity_id) not in self._g_entities:
                raise NotFoundError(
                    f"no entity {entity_id!r} for user {user_id!r}: list entities to find it"
                )
            owner = self._g_names.get((user_id, key))
            if owner is not None and owner != entity_id:
                raise ConflictError(
                    f"the name {key!r} already names another entity: merge the two instead"
                )
            self._g_names[(user_id, key)] = entity_id

    def merge_entities(self, user_id: str, keep_id: str, drop_id: str) -> None:
        with self._lock:
            self._check_open()
            for i in (keep_id, drop_id):
                if (user_id, i) not in self._g_entities:
                    raise NotFoundError(
                        f"no entity {i!r} for user {user_id!r}: list entities to find it"
                    )
            if keep_id == drop_id:
                return

            def moved(i: str) -> str:
                return keep_id if i == drop_id else i

            for key, v in list(self._g_names.items()):
                if key[0] == user_id and v == drop_id:
                    self._g_names[key] = keep_id
            for key, ids in list(self._g_links.items()):
                if key[0] == user_id and drop_id in ids:
                    self._g_links[key] = tuple(dict.fromkeys(moved(i) for i in ids))
                    places = dict(self._g_places.get(key, {}))
                    if drop_id in places:
                        took = merged(places.get(keep_id), places.pop(drop_id))
                        self._g_places[key] = {**places, keep_id: took} if took else places
            for key, rels in list(self._g_rels.items()):
                if key[0] == user_id:
                    self._g_rels[key] = tuple(
                        sorted(
                            {(moved(s), moved(t), k) for s, t, k in rels if moved(s) != moved(t)}
                        )
                    )
            del self._g_entities[(user_id, drop_id)]

    # -- reads ----------------------------------------------------------------------------

    def _seen(self, view: View, flt: EntryFilter = NO_FILTER) -> dict[str, MemoryEntry]:
        return {
            e.id: e
            for (u, _), (e, _) in self._rows.items()
            if u == view.user_id and view.sees(e) and flt.matches(e)
        }

    def entry_links(
        self, user_id: str, entry_ids: Sequence[str]
    ) -> tuple[dict[str, list[str]], list[tuple[str, str, str, str]]]:
        with self._lock:
            self._check_open()
            links: dict[str, list[str]] = {}
            rels: list[tuple[str, str, str, str]] = []
            for entry_id in dict.fromkeys(entry_ids):
                linked = self._g_links.get((user_id, entry_id), ())
                if linked:
                    links[entry_id] = sorted(linked)
                rels += [
                    (entry_id, s, t, k) for s, t, k in self._g_rels.get((user_id, entry_id), ())
                ]
                places = self._g_places.get((user_id, entry_id), {})
                rels += [(entry_id, s, t, MENTIONED_WITH) for s, t in unfold(places)]
            return links, sorted(set(rels))

    def link_new_entries(self, user_id: str, entries: Sequence[EntryMentions]) -> None:
        # Dicts in memory: one entry after another costs no round trips.
        for e in entries:
            self.link_entities(user_id, e.entry_id, e.mentions, e.relations, new=True)

    def find_entities(self, user_id: str, keys: Sequence[str]) -> dict[str, str]:
        with self._lock:
            self._check_open()
            return {k: self._g_names[(user_id, k)] for k in keys if (user_id, k) in self._g_names}

    def entities(
        self,
        view: View,
        *,
        ids: Sequence[str] | None = None,
        prefix: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        with self._lock:
            self._check_open()
            seen = self._seen(view)
            counts: dict[str, int] = {}
            for (u, entry_id), linked in self._g_links.items():
                if u == view.user_id and entry_id in seen:
                    for i in linked:
                        counts[i] = counts.get(i, 0) + 1
            keys: dict[str, list[str]] = {}
            for (u, key), i in self._g_names.items():
                if u == view.user_id:
                    keys.setdefault(i, []).append(key)
            wanted = None if ids is None else set(ids)
            out = []
            for i, n in counts.items():
                if wanted is not None and i not in wanted:
                    continue
                if prefix and not any(k.startswith(prefix) for k in keys.get(i, [])):
                    continue
                name, kind = self._g_entities[(view.user_id, i)]
                own = name_key(name)
                aliases = tuple(sorted(keys.get(i, []), key=lambda k: (k != own, k)))
                out.append(Entity(i, name, kind, n, aliases))
        out.sort(key=lambda e: (-e.entries, e.name, e.id))
        return out[offset : offset + limit]

    def entity_relations(self, view: View, entity_ids: Sequence[str]) -> list[Relation]:
        with self._lock:
            self._check_open()
            seen = self._seen(view)
            wanted = set(entity_ids)
            rows = set()
            for (u, entry_id), rels in self._g_rels.items():
                if u != view.user_id or entry_id not in seen:
                    continue
                said = unfold(self._g_places.get((u, entry_id), {}))
                for s, t, k in (*rels, *((s, t, MENTIONED_WITH) for s, t in said)):
                    if s in wanted or t in wanted:
                        rows.add((s, t, k, entry_id))

            def name(i: str) -> str:
                return self._g_entities.get((view.user_id, i), (i, ""))[0]

            return [Relation(s, name(s), k, t, name(t), e) for s, t, k, e in sorted(rows)]

    def linked_entries(
        self,
        view: View,
        weights: Mapping[str, float],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
    ) -> list[tuple[MemoryEntry, float]]:
        with self._lock:
            self._check_open()
            seen = self._seen(view, flt)
            scores: dict[str, float] = {}
            for (u, entry_id), linked in self._g_links.items():
                if u != view.user_id or entry_id not in seen:
                    continue
                score = sum(weights.get(i, 0.0) for i in linked if i in weights)
                if any(i in weights for i in linked):
                    scores[entry_id] = score
            best = sorted(scores.items(), key=lambda kv: (-kv[1], [-ord(c) for c in kv[0]]))
            return [(seen[i].replace(metadata=dict(seen[i].metadata)), s) for i, s in best[:limit]]


__all__ = ["MemoryGraph"]
