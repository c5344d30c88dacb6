"""The entity graph on the three SQL backends, written once.

Four tables, every key starting with ``user_id`` (the sharding rule):
``graph_entities`` (id, shown name, type), ``graph_names`` (each key that names an
entity), ``graph_links`` (entry -> entity, with the entity's places among the entry's
co-mentions: ``stores.graph_values``) and ``graph_relations`` (source, target, type, and
the entry that said it; co-mentions only when the places do not imply them). Links
and relations reference their entry with ``ON DELETE CASCADE``, so a deleted entry
never leaves a link behind; what a view sees is decided by joining the entry
(``clauses.view_clause``), so the graph has the scope rules of entries without a copy
of them.

The backends differ in parameter marks, in how a statement runs on their connection
and in how an insert ignores a duplicate key: their runner and dialect
(``sql.runner``) say so, and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import ConflictError, NotFoundError
from ...model import MemoryEntry, new_id
from ...names import name_key
from ...results.graph import Entity, Relation
from ..graph_values import UNKNOWN, EntryMentions, Mention, Place, RelationMention, merged
from ..values import NO_FILTER, EntryFilter, View
from .clauses import filter_clause, view_clause
from .co_mentions import entry_pairs, split, touching, touching_counts
from .runner import PAGE, Runner, SQLBase

_PAGE = 400  # ids per IN list (SQLite's parameter limit is 999 on old builds)
_WHOLE = 4 * _PAGE  # more keys than this: maybe cheaper to read all of a user's names


def _pages(ids: Sequence[str]) -> Iterator[list[str]]:
    for start in range(0, len(ids), _PAGE):
        yield list(ids[start : start + _PAGE])


class SQLGraph(SQLBase):
    """``protocols.EntityGraph`` over SQL; mixed into each SQL store."""

    if TYPE_CHECKING:  # the store's own

        def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]: ...

    # -- helpers ------------------------------------------------------------------------

    def _resolve(self, conn: Runner, user_id: str, mentions: Sequence[Mention]) -> dict[str, str]:
        """The entity id of each mention's key, creating entities for new keys; types
        fill in (or, with ``override``, replace) the stored one."""
        m = self.dialect.mark
        wanted = {x.key: x for x in mentions if x.key}
        found = self._names(conn, user_id, list(wanted))
        new = {k: new_id() for k in wanted if k not in found}
        if new:
            conn.many(
                self.dialect.insert_skipping(
                    f"INTO graph_names (user_id, name_key, entity_id) VALUES ({m}, {m}, {m})"
                ),
                [(user_id, k, i) for k, i in new.items()],
            )
            # Another writer may have named a key first: its entity wins.
            won = self._names(conn, user_id, list(new))
            mine = [(k, i) for k, i in new.items() if won.get(k) == i]
            conn.many(
                f"INSERT INTO graph_entities (user_id, entity_id, name, type) "
                f"VALUES ({m}, {m}, {m}, {m})",
                [(user_id, i, wanted[k].name[:255] or k, wanted[k].type[:64]) for k, i in mine],
            )
            found.update(won)
        typed = [k for k, x in wanted.items() if k not in new and (x.override or x.type != UNKNOWN)]
        stored = self._types(conn, user_id, [found[k] for k in typed])
        for key in typed:
            mention = wanted[key]
            if not mention.override and stored.get(found[key]) != UNKNOWN:
                continue  # typed already: a later guess never changes it
            if mention.override:  # an explicit write names and types the entity
                conn.run(
                    f"UPDATE graph_entities SET name = {m}, type = {m} "
                    f"WHERE user_id = {m} AND entity_id = {m}",
                    [mention.name[:255] or key, mention.type[:64], user_id, found[key]],
                )
                continue
            conn.run(
                f"UPDATE graph_entities SET type = {m} WHERE user_id = {m} AND entity_id = {m} "
                f"AND type = {m}",
                [mention.type[:64], user_id, found[key], UNKNOWN],
            )
        return found

    def _types(self, conn: Runner, user_id: str, entity_ids: Sequence[str]) -> dict[str, str]:
        m = self.dialect.mark
        out: dict[str, str] = {}
        for page in _pages(list(dict.fromkeys(entity_ids))):
            rows = conn.rows(
                f"SELECT entity_id, type FROM graph_entities WHERE user_id = {m} "
                f"AND entity_id IN ({self.dialect.marks(len(page))})",
                [user_id, *page],
            )
            out.update((r[0], r[1]) for r in rows)
        return out

    def _names(self, conn: Runner, user_id: str, keys: Sequence[str]) -> dict[str, str]:
        m = self.dialect.mark
        out: dict[str, str] = {}
        for page in _pages(list(dict.fromkeys(keys))):
            rows = conn.rows(
                f"SELECT name_key, entity_id FROM graph_names WHERE user_id = {m} "
                f"AND name_key IN ({self.dialect.marks(len(page))})",
                [user_id, *page],
            )
            out.update((r[0], r[1]) for r in rows)
        return out

    def _linked_ids(self, conn: Runner, user_id: str, entry_ids: Sequence[str]) -> set[str]:
        m = self.dialect.mark
        out: set[str] = set()
        for page in _pages(entry_ids):
            marks = self.dialect.marks(len(page))
            for table, cols in (
                ("graph_links", ("entity_id",)),
                ("graph_relations", ("source_id", "target_id")),
            ):
                rows = conn.rows(
                    f"SELECT {', '.join(cols)} FROM {table} WHERE user_id = {m} "
                    f"AND entry_id IN ({marks})",
                    [user_id, *page],
                )
                out.update(v for r in rows for v in r)
        return out

    def _prune(self, conn: Runner, user_id: str, entity_ids: set[str]) -> None:
        """Remove those of ``entity_ids`` no entry links to any more, with their keys."""
        m = self.dialect.mark
        for page in _pages(sorted(entity_ids)):
            marks = self.dialect.marks(len(page))
            rows = conn.rows(
                f"SELECT DISTINCT entity_id FROM graph_links WHERE user_id = {m} "
                f"AND entity_id IN ({marks})",
                [user_id, *page],
            )
            alive = {r[0] for r in rows}
            gone = [i for i in page if i not in alive]
            if not gone:
                continue
            marks = self.dialect.marks(len(gone))
            for table in ("graph_relations",):
                conn.run(
                    f"DELETE FROM {table} WHERE user_id = {m} AND (source_id IN ({marks}) "
                    f"OR target_id IN ({marks}))",
                    [user_id, *gone, *gone],
                )
            for table in ("graph_names", "graph_entities"):
                conn.run(
                    f"DELETE FROM {table} WHERE user_id = {m} AND entity_id IN ({marks})",
                    [user_id, *gone],
                )

    def _entity_exists(self, conn: Runner, user_id: str, entity_id: str) -> bool:
        m = self.dialect.mark
        rows = conn.rows(
            f"SELECT 1 FROM graph_entities WHERE user_id = {m} AND entity_id = {m}",
            [user_id, entity_id],
        )
        return bool(rows)

    # -- writes ---------------------------------------------------------------------------

    def link_entities(
        self,
        user_id: str,
        entry_id: str,
        mentions: Sequence[Mention],
        relations: Sequence[RelationMention] = (),
        *,
        new: bool = False,
    ) -> None:
        m = self.dialect.mark
        with self._writing("changing the entity graph") as conn:
            before: set[str] = set()
            if not new:  # an entry just inserted has no links to replace
                before = self._linked_ids(conn, user_id, [entry_id])
                for table in ("graph_links", "graph_relations"):
                    conn.run(
                        f"DELETE FROM {table} WHERE user_id = {m} AND entry_id = {m}",
                        [user_id, entry_id],
                    )
            ids = self._resolve(conn, user_id, mentions) if mentions else {}
            self._insert_links(conn, user_id, [(entry_id, mentions, relations, ids)])
            self._prune(conn, user_id, before - set(ids.values()))

    def link_new_entries(self, user_id: str, entries: Sequence[EntryMentions]) -> None:
        m = self.dialect.mark
        with self._writing("changing the entity graph") as conn:
            wanted = [{x.key: x for x in e.mentions if x.key} for e in entries]
            ids = self._names(conn, user_id, list({k: None for w in wanted for k in w}))
            # What the entities the batch touches are (type, shown name), as the entries
            # one after another leave them: those stored, then those the batch makes.
            types = self._types(conn, user_id, list(ids.values()))
            shown: dict[str, str] = {}
            made: dict[str, str] = {}  # key -> the new entity it names
            overridden: set[str] = set()
            filled: set[str] = set()
            for mine in wanted:
                fresh = [k for k in mine if k not in ids]
                for key in fresh:
                    x = mine[key]
                    ids[key] = made[key] = new_id()
                    types[ids[key]], shown[ids[key]] = x.type[:64], x.name[:255] or key
                # link_entities reads the stored types once per entry, before it types.
                typed = [
                    k
                    for k, x in mine.items()
                    if k not in fresh and (x.override or x.type != UNKNOWN)
                ]
                before = {ids[k]: types.get(ids[k]) for k in typed}
                for key in typed:
                    x, i = mine[key], ids[key]
                    if not x.override and before[i] != UNKNOWN:
                        continue  # typed already: a later guess never changes it
                    if x.override:
                        types[i], shown[i] = x.type[:64], x.name[:255] or key
                        overridden.add(i)
                    elif types.get(i) == UNKNOWN:
                        types[i] = x.type[:64]
                        filled.add(i)
            self._store_made(conn, user_id, made, ids, types, shown)
            for i in overridden - set(made.values()):
                conn.run(
                    f"UPDATE graph_entities SET name = {m}, type = {m} "
                    f"WHERE user_id = {m} AND entity_id = {m}",
                    [shown[i], types[i], user_id, i],
                )
            for i in filled - overridden - set(made.values()):
                conn.run(
                    f"UPDATE graph_entities SET type = {m} WHERE user_id = {m} "
                    f"AND entity_id = {m} AND type = {m}",
                    [types[i], user_id, i, UNKNOWN],
                )
            self._insert_links(
                conn,
                user_id,
                [
                    (e.entry_id, e.mentions, e.relations, {k: ids[k] for k in mine})
                    for e, mine in zip(entries, wanted, strict=True)
                ],
            )

    def _insert_links(
        self,
        conn: Runner,
        user_id: str,
        linked: Sequence[
            tuple[str, Sequence[Mention], Sequence[RelationMention], Mapping[str, str]]
        ],
    ) -> None:
        """Store each entry's links (its entities in order of mention, with their
        co-mention places) and its relations between them: ``(entry id, mentions,
        relations, key -> entity id of the keys it links)`` per entry."""
        m = self.dialect.mark
        links: list[tuple[Any, ...]] = []
        said: list[tuple[str, ...]] = []
        for entry_id, mentions, relations, ids in linked:
            order = list(dict.fromkeys(ids[x.key] for x in mentions if x.key in ids))
            places, rows = split(
                order,
                {
                    (ids[r.source], ids[r.target], r.type[:64])
                    for r in relations
                    if r.source in ids and r.target in ids and ids[r.source] != ids[r.target]
                },
            )
            links += [(user_id, entry_id, i, *places.get(i, (None, None))) for i in order]
            said += [(user_id, entry_id, s, t, k) for s, t, k in sorted(rows)]
        conn.many(
            self.dialect.insert_skipping(
                "INTO graph_links (user_id, entry_id, entity_id, co_first, co_last) "
                f"VALUES ({m}, {m}, {m}, {m}, {m})"
            ),
            links,
        )
        conn.many(
            self.dialect.insert_skipping(
                "INTO graph_relations (user_id, entry_id, source_id, target_id, rel_type) "
                f"VALUES ({m}, {m}, {m}, {m}, {m})"
            ),
            said,
        )

    def _store_made(
        self,
        conn: Runner,
        user_id: str,
        made: dict[str, str],
        ids: dict[str, str],
        types: Mapping[str, str],
        shown: Mapping[str, str],
    ) -> None:
        """Name and store the entities a batch makes (``made``: key -> id), as the
        batch leaves them; a key another writer named first names its entity instead
        (``ids`` follows)."""
        if not made:
            return
        m = self.dialect.mark
        conn.many(
            self.dialect.insert_skipping(
                f"INTO graph_names (user_id, name_key, entity_id) VALUES ({m}, {m}, {m})"
            ),
            [(user_id, k, i) for k, i in made.items()],
        )
        won = self._names(conn, user_id, list(made))
        conn.many(
            f"INSERT INTO graph_entities (user_id, entity_id, name, type) "
            f"VALUES ({m}, {m}, {m}, {m})",
            [(user_id, i, shown[i], types[i]) for k, i in made.items() if won.get(k) == i],
        )
        ids.update(won)

    def unlink_entries(self, user_id: str, entry_ids: Sequence[str]) -> None:
        if not entry_ids:
            return
        m = self.dialect.mark
        with self._writing("changing the entity graph") as conn:
            before = self._linked_ids(conn, user_id, entry_ids)
            for page in _pages(list(entry_ids)):
                for table in ("graph_links", "graph_relations"):
                    conn.run(
                        f"DELETE FROM {table} WHERE user_id = {m} "
                        f"AND entry_id IN ({self.dialect.marks(len(page))})",
                        [user_id, *page],
                    )
            self._prune(conn, user_id, before)

    def add_alias(self, user_id: str, entity_id: str, key: str) -> None:
        m = self.dialect.mark
        with self._writing("changing the entity graph") as conn:
            if not self._entity_exists(conn, user_id, entity_id):
                raise NotFoundError(
                    f"no entity {entity_id!r} for user {user_id!r}: list entities to find it",
                    user_id=user_id,
                )
            owner = self._names(conn, user_id, [key]).get(key)
            if owner == entity_id:
                return
            if owner is not None:
                raise ConflictError(
                    f"the name {key!r} already names another entity: merge the two instead",
                    user_id=user_id,
                )
            conn.run(
                f"INSERT INTO graph_names (user_id, name_key, entity_id) VALUES ({m}, {m}, {m})",
                [user_id, key, entity_id],
            )

    def merge_entities(self, user_id: str, keep_id: str, drop_id: str) -> None:
        m = self.dialect.mark
        with self._writing("changing the entity graph") as conn:
            for i in (keep_id, drop_id):
                if not self._entity_exists(conn, user_id, i):
                    raise NotFoundError(
                        f"no entity {i!r} for user {user_id!r}: list entities to find it",
                        user_id=user_id,
                    )
            if keep_id == drop_id:
                return
            conn.run(
                f"UPDATE graph_names SET entity_id = {m} WHERE user_id = {m} AND entity_id = {m}",
                [keep_id, user_id, drop_id],
            )
            links = conn.rows(
                "SELECT entry_id, co_first, co_last FROM graph_links "
                f"WHERE user_id = {m} AND entity_id = {m}",
                [user_id, drop_id],
            )
            kept = self._places(conn, user_id, keep_id, [r[0] for r in links])
            rels = conn.rows(
                "SELECT entry_id, source_id, target_id, rel_type FROM graph_relations "
                f"WHERE user_id = {m} AND (source_id = {m} OR target_id = {m})",
                [user_id, drop_id, drop_id],
            )
            for table, column in (("graph_links", "entity_id"),):
                conn.run(
                    f"DELETE FROM {table} WHERE user_id = {m} AND {column} = {m}",
                    [user_id, drop_id],
                )
            conn.run(
                f"DELETE FROM graph_relations WHERE user_id = {m} "
                f"AND (source_id = {m} OR target_id = {m})",
                [user_id, drop_id, drop_id],
            )
            # An entry naming both: the kept link's places take in the dropped one's.
            conn.many(
                f"UPDATE graph_links SET co_first = {m}, co_last = {m} "
                f"WHERE user_id = {m} AND entry_id = {m} AND entity_id = {m}",
                [
                    (
                        *(merged(kept[r[0]], _place(r[1], r[2])) or (None, None)),
                        user_id,
                        r[0],
                        keep_id,
                    )
                    for r in links
                    if r[0] in kept
                ],
            )
            conn.many(
                "INSERT INTO graph_links (user_id, entry_id, entity_id, co_first, co_last) "
                f"VALUES ({m}, {m}, {m}, {m}, {m})",
                [(user_id, r[0], keep_id, r[1], r[2]) for r in links if r[0] not in kept],
            )

            def moved(i: str) -> str:
                return keep_id if i == drop_id else i

            conn.many(
                self.dialect.insert_skipping(
                    "INTO graph_relations (user_id, entry_id, source_id, target_id, rel_type) "
                    f"VALUES ({m}, {m}, {m}, {m}, {m})"
                ),
                [
                    (user_id, r[0], moved(r[1]), moved(r[2]), r[3])
                    for r in rels
                    if moved(r[1]) != moved(r[2])
                ],
            )
            conn.run(
                f"DELETE FROM graph_entities WHERE user_id = {m} AND entity_id = {m}",
                [user_id, drop_id],
            )

    def _places(
        self, conn: Runner, user_id: str, entity_id: str, entry_ids: Sequence[str]
    ) -> dict[str, Place | None]:
        """The places of ``entity_id``'s links from those of ``entry_ids`` that have one."""
        m = self.dialect.mark
        out: dict[str, Place | None] = {}
        for page in _pages(entry_ids):
            for entry_id, first, last in conn.rows(
                f"SELECT entry_id, co_first, co_last FROM graph_links WHERE user_id = {m} "
                f"AND entity_id = {m} AND entry_id IN ({self.dialect.marks(len(page))})",
                [user_id, entity_id, *page],
            ):
                out[entry_id] = _place(first, last)
        return out

    # -- reads ----------------------------------------------------------------------------

    def entry_links(
        self, user_id: str, entry_ids: Sequence[str]
    ) -> tuple[dict[str, list[str]], list[tuple[str, str, str, str]]]:
        m = self.dialect.mark
        links: dict[str, list[str]] = {}
        rels: list[tuple[str, str, str, str]] = []
        places: dict[str, dict[str, Place]] = {}
        with self._reading("reading the entity graph") as conn:
            for page in _pages(list(dict.fromkeys(entry_ids))):
                marks = self.dialect.marks(len(page))
                for entry_id, entity_id, first, last in conn.rows(
                    f"SELECT entry_id, entity_id, co_first, co_last FROM graph_links "
                    f"WHERE user_id = {m} AND entry_id IN ({marks}) ORDER BY entry_id, entity_id",
                    [user_id, *page],
                ):
                    links.setdefault(entry_id, []).append(entity_id)
                    if (place := _place(first, last)) is not None:
                        places.setdefault(entry_id, {})[entity_id] = place
                rels += [
                    (r[0], r[1], r[2], r[3])
                    for r in conn.rows(
                        "SELECT entry_id, source_id, target_id, rel_type FROM graph_relations "
                        f"WHERE user_id = {m} AND entry_id IN ({marks})",
                        [user_id, *page],
                    )
                ]
        return links, sorted({*rels, *entry_pairs(places)})

    def find_entities(self, user_id: str, keys: Sequence[str]) -> dict[str, str]:
        if not keys:
            return {}
        with self._reading("reading the entity graph") as conn:
            if len(keys) > _WHOLE:
                # A batch of new entries asks about tens of thousands of candidate keys
                # (every run of words): a user with no more names than that is read
                # whole and matched here, the same answer in a few round trips.
                m = self.dialect.mark
                sql = f"FROM graph_names WHERE user_id = {m}"
                count = conn.rows(f"SELECT count(*) {sql}", [user_id])[0][0]
                if count <= len(keys):
                    wanted = set(keys)
                    rows = conn.rows(f"SELECT name_key, entity_id {sql}", [user_id])
                    return {r[0]: r[1] for r in rows if r[0] in wanted}
            return self._names(conn, user_id, keys)

    def entities(
        self,
        view: View,
        *,
        ids: Sequence[str] | None = None,
        prefix: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        m = self.dialect.mark
        where, params = view_clause(view, m)
        links = "graph_links l"
        if ids is not None:
            links = self.dialect.using("graph_links", "l", "graph_links_by_entity")
        sql = (
            "SELECT e.entity_id, e.name, e.type, count(DISTINCT l.entry_id) AS n "
            f"FROM graph_entities e JOIN {links} "
            "ON l.user_id = e.user_id AND l.entity_id = e.entity_id "
            "JOIN memories m ON m.user_id = l.user_id AND m.id = l.entry_id "
            f"WHERE e.user_id = {m} AND {where}"
        )
        args: list[Any] = [view.user_id, *params]
        if ids is not None:
            if not ids:
                return []
            sql += f" AND l.entity_id IN ({self.dialect.marks(len(ids))})"
            args.extend(ids)
        if prefix:
            sql += (
                " AND EXISTS (SELECT 1 FROM graph_names k WHERE k.user_id = e.user_id "
                f"AND k.entity_id = e.entity_id AND substr(k.name_key, 1, {m}) = {m})"
            )
            args.extend([len(prefix), prefix])
        sql += (
            " GROUP BY e.entity_id, e.name, e.type ORDER BY n DESC, e.name, e.entity_id "
            f"LIMIT {m} OFFSET {m}"
        )
        args.extend([int(limit), int(offset)])
        with self._reading("reading the entity graph") as conn:
            rows = conn.rows(sql, args)
            aliases: dict[str, list[str]] = {}
            found = [r[0] for r in rows]
            for page in _pages(found):
                for key, entity_id in conn.rows(
                    f"SELECT name_key, entity_id FROM graph_names WHERE user_id = {m} "
                    f"AND entity_id IN ({self.dialect.marks(len(page))})",
                    [view.user_id, *page],
                ):
                    aliases.setdefault(entity_id, []).append(key)
        return [
            Entity(r[0], r[1], r[2], int(r[3]), _keys(r[1], aliases.get(r[0], []))) for r in rows
        ]

    def entity_counts(self, view: View, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """The type and the number of ``view``'s entries linked to each of ``ids`` linked
        to at least one: the counts ``entities(view, ids=ids)`` gives, in no order.

        Why not that statement: joining every link to its entry to check the view cost
        the search's graph channel 50-100 ms for a query naming a common entity (tens of
        thousands of links). Links cascade with their entry, so every link names an
        existing entry of its user: the view's count is the user's links (read from the
        entity index alone) less the links to the user's entries outside the view,
        which are read only when there are few such entries (else the join runs)."""
        if not ids:
            return {}
        m = self.dialect.mark
        totals: dict[str, int] = {}
        with self._reading("reading the entity graph") as conn:
            links = self.dialect.using("graph_links", "l", "graph_links_by_entity")
            for page in _pages(list(ids)):
                totals.update(
                    (r[0], int(r[1]))
                    for r in conn.rows(
                        f"SELECT l.entity_id, count(*) FROM {links} WHERE l.user_id = {m} "
                        f"AND l.entity_id IN ({self.dialect.marks(len(page))}) "
                        "GROUP BY l.entity_id",
                        [view.user_id, *page],
                    )
                )
            if totals and not view.all_agents:
                totals = self._in_view(conn, view, totals)
            found = [i for i, n in totals.items() if n > 0]
            types = self._types(conn, view.user_id, found)
        return {i: (types[i], totals[i]) for i in found if i in types}

    def _in_view(self, conn: Runner, view: View, totals: dict[str, int]) -> dict[str, int]:
        """``totals`` (links per entity, the user's entries all counted) less the links
        to entries outside ``view`` (another agent's)."""
        m = self.dialect.mark
        # The entries ``clauses.view_clause`` leaves out: another agent's.
        outside, params = "m.agent_id IS NOT NULL", [view.user_id]
        if view.agent_id is not None:
            outside, params = f"{outside} AND m.agent_id <> {m}", [view.user_id, view.agent_id]
        most = sum(totals.values()) // 8 + 1  # more than this: reading them costs more
        others = [
            r[0]
            for r in conn.rows(
                f"SELECT m.id FROM memories m WHERE m.user_id = {m} AND {outside} LIMIT {m}",
                [*params, most],
            )
        ]
        ids = sorted(totals)
        out = dict(totals)
        if len(others) >= most:  # many: count the view's links by joining their entries
            where, wparams = view_clause(view, m)
            out = {}
            links = self.dialect.using("graph_links", "l", "graph_links_by_entity")
            for page in _pages(ids):
                out.update(
                    (r[0], int(r[1]))
                    for r in conn.rows(
                        f"SELECT l.entity_id, count(*) FROM {links} JOIN memories m "
                        "ON m.user_id = l.user_id AND m.id = l.entry_id "
                        f"WHERE l.user_id = {m} AND l.entity_id IN "
                        f"({self.dialect.marks(len(page))}) AND {where} GROUP BY l.entity_id",
                        [view.user_id, *page, *wparams],
                    )
                )
            return out
        for entries in _pages(others):
            for page in _pages(ids):
                for entity_id, n in conn.rows(
                    f"SELECT l.entity_id, count(*) FROM graph_links l WHERE l.user_id = {m} "
                    f"AND l.entry_id IN ({self.dialect.marks(len(entries))}) "
                    f"AND l.entity_id IN ({self.dialect.marks(len(page))}) "
                    "GROUP BY l.entity_id",
                    [view.user_id, *entries, *page],
                ):
                    out[entity_id] -= int(n)
        return out

    def entity_relations(self, view: View, entity_ids: Sequence[str]) -> list[Relation]:
        if not entity_ids:
            return []
        m = self.dialect.mark
        where, params = view_clause(view, m)
        out: list[Relation] = []
        with self._reading("reading the entity graph") as conn:
            rows: list[tuple[Any, ...]] = []
            for page in _pages(list(entity_ids)):
                marks = self.dialect.marks(len(page))
                # One statement per end, each read by its index (an OR of the two
                # reads every relation of the user on SQLite); ``set`` below merges.
                for end in ("source", "target"):
                    relations = self.dialect.using(
                        "graph_relations", "r", f"graph_relations_by_{end}"
                    )
                    found = conn.rows(
                        "SELECT r.source_id, r.target_id, r.rel_type, r.entry_id "
                        f"FROM {relations} JOIN memories m "
                        "ON m.user_id = r.user_id AND m.id = r.entry_id "
                        f"WHERE r.user_id = {m} AND r.{end}_id IN ({marks}) AND {where}",
                        [view.user_id, *page, *params],
                    )
                    rows += [tuple(r) for r in found]
                rows += touching(conn, self.dialect, view.user_id, page, where, params)
            ends = sorted({v for r in rows for v in (r[0], r[1])})
            names: dict[str, str] = {}
            for page in _pages(ends):
                names.update(
                    (r[0], r[1])
                    for r in conn.rows(
                        f"SELECT entity_id, name FROM graph_entities WHERE user_id = {m} "
                        f"AND entity_id IN ({self.dialect.marks(len(page))})",
                        [view.user_id, *page],
                    )
                )
        for s, t, k, e in sorted(set(rows)):
            out.append(Relation(s, names.get(s, s), k, t, names.get(t, t), e))
        return out

    def relation_counts(self, view: View, entity_ids: Sequence[str]) -> dict[tuple[str, str], int]:
        """How many relations ``entity_relations(view, entity_ids)`` gives between each of
        ``entity_ids`` and each other entity, by (that one, the other): counted in the
        server, no names read (the graph channel's neighbours; ``retrieval.graph``).

        A stored relation that repeats one the places imply (none is stored so) would
        count twice here and once there."""
        if not entity_ids:
            return {}
        m = self.dialect.mark
        where, params = view_clause(view, m)
        out: dict[tuple[str, str], int] = {}
        with self._reading("reading the entity graph") as conn:
            for page in _pages(list(entity_ids)):
                marks = self.dialect.marks(len(page))
                found: list[Any] = []
                for end, other in (("source", "target"), ("target", "source")):
                    relations = self.dialect.using(
                        "graph_relations", "r", f"graph_relations_by_{end}"
                    )
                    found += conn.rows(
                        f"SELECT r.{end}_id, r.{other}_id, count(*) "
                        f"FROM {relations} JOIN memories m "
                        "ON m.user_id = r.user_id AND m.id = r.entry_id "
                        f"WHERE r.user_id = {m} AND r.{end}_id IN ({marks}) "
                        f"AND r.source_id <> r.target_id AND {where} "
                        f"GROUP BY r.{end}_id, r.{other}_id",
                        [view.user_id, *page, *params],
                    )
                found += touching_counts(conn, self.dialect, view.user_id, page, where, params)
                for a, b, n in found:
                    pair = (str(a), str(b))
                    out[pair] = out.get(pair, 0) + int(n)
        return out

    def linked_entries(
        self,
        view: View,
        weights: Mapping[str, float],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
    ) -> list[tuple[MemoryEntry, float]]:
        if not weights or limit <= 0:
            return []
        d = self.dialect
        m = d.mark
        where, params = view_clause(view, m, agent=d.agent_by_id)
        fsql, fparams = filter_clause(flt, m)
        scores: dict[str, float] = {}
        best: list[tuple[str, float]] = []
        with self._reading("reading the entity graph") as conn:
            # The links from the entity index alone (every link names an existing entry
            # of its user: they cascade); joining each to its entry to test the view and
            # the filter cost a common name tens of milliseconds. Only the best entries
            # are tested, in order, until ``limit`` pass.
            for page in _pages(list(weights)):
                links = d.using("graph_links", "l", "graph_links_by_entity")
                for entry_id, entity_id in conn.rows(
                    f"SELECT l.entry_id, l.entity_id FROM {links} "
                    f"WHERE l.user_id = {m} AND l.entity_id IN ({d.marks(len(page))})",
                    [view.user_id, *page],
                ):
                    scores[entry_id] = scores.get(entry_id, 0.0) + weights[entity_id]
            # Highest score first, the newest first among equals (ids begin with their
            # creation time, and are unique, so the order is total).
            ranked = sorted(((s, i) for i, s in scores.items()), reverse=True)
            step = min(PAGE, max(2 * limit, 50))
            for start in range(0, len(ranked), step):
                page_ranked = [(i, s) for s, i in ranked[start : start + step]]
                among, ids = d.among("m.id", [i for i, _ in page_ranked])
                passed = {
                    r[0]
                    for r in conn.rows(
                        f"SELECT m.id FROM memories m WHERE {where} AND {among}{fsql}",
                        [*params, *ids, *fparams],
                    )
                }
                best += [(i, s) for i, s in page_ranked if i in passed]
                if len(best) >= limit:
                    break
        best = best[:limit]
        entries = {e.id: e for e in self.get_many(view, [i for i, _ in best])}
        return [(entries[i], s) for i, s in best if i in entries]


def _place(first: Any, last: Any) -> Place | None:
    return None if first is None else (int(first), int(last))


def _keys(name: str, keys: list[str]) -> tuple[str, ...]:
    """The keys of an entity, the one of its shown name first, the rest sorted."""
    own = name_key(name)
    return tuple(sorted(keys, key=lambda k: (k != own, k)))


__all__ = ["GRAPH_TABLES", "SQLGraph"]

#: The graph's tables, children first: what erasing a user empties (the links and
#: relations also go with the user's entries).
GRAPH_TABLES = ("graph_relations", "graph_links", "graph_names", "graph_entities")
