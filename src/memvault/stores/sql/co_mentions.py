"""The co-mentions of the SQL graph, read from the places on ``graph_links``, and the
schema step that turns the rows older vaults stored into places.

``stores.graph_values`` says why they are places, not rows. These reads give what the
rows gave: an entry's pairs (``entry_links``), and the pairs touching some entities
in the entries a view sees (``entity_relations``, through ``clauses.view_clause``
like the rows it stands in for).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ..graph_values import MENTIONED_WITH, Place, fold, pairs_of, unfold
from .runner import Dialect, Runner

Row = tuple[str, str, str]  # (source id, target id, relation type)


def split(order: Sequence[str], rows: set[Row]) -> tuple[dict[str, Place], set[Row]]:
    """The places of an entry's entities (``order``: in text order) and the relation
    rows still to store: every type but ``mentioned_with``, and the co-mentions the
    places do not imply."""
    said = {(s, t) for s, t, k in rows if k == MENTIONED_WITH}
    places, rest = fold(order, said)
    kept = {r for r in rows if r[2] != MENTIONED_WITH}
    return places, kept | {(s, t, MENTIONED_WITH) for s, t in rest}


def entry_pairs(places: dict[str, dict[str, Place]]) -> list[tuple[str, str, str, str]]:
    """(entry, source, target, ``mentioned_with``) of each entry's places."""
    return [(e, s, t, MENTIONED_WITH) for e, mine in places.items() for s, t in unfold(mine)]


def touching(
    conn: Runner, d: Dialect, user_id: str, ids: Sequence[str], where: str, params: list[Any]
) -> set[tuple[str, str, str, str]]:
    """(source, target, ``mentioned_with``, entry) of the co-mentions with an end in
    ``ids`` (one page) in the entries ``where`` (a view clause over ``m``) lets in."""
    m = d.mark
    links = d.using("graph_links", "a", "graph_links_by_entity")
    rows = conn.rows(
        "SELECT a.entity_id, a.co_first, a.co_last, b.entity_id, b.co_first, b.co_last, "
        f"a.entry_id FROM {links} JOIN memories m ON m.user_id = a.user_id AND m.id = a.entry_id "
        "JOIN graph_links b ON b.user_id = a.user_id AND b.entry_id = a.entry_id "
        f"WHERE a.user_id = {m} AND a.entity_id IN ({d.marks(len(ids))}) "
        "AND a.co_first IS NOT NULL AND b.co_first IS NOT NULL "
        f"AND b.entity_id <> a.entity_id AND {where}",
        [user_id, *ids, *params],
    )
    out: set[tuple[str, str, str, str]] = set()
    for a, af, al, b, bf, bl, entry in rows:
        if af == al and bf == bl:  # one place each (nearly always): one direction
            out.add((a, b, MENTIONED_WITH, entry) if af < bf else (b, a, MENTIONED_WITH, entry))
            continue
        for s, t in pairs_of(a, (af, al), b, (bf, bl)):
            out.add((s, t, MENTIONED_WITH, entry))
    return out


def touching_counts(
    conn: Runner, d: Dialect, user_id: str, ids: Sequence[str], where: str, params: list[Any]
) -> list[tuple[str, str, int]]:
    """(end in ``ids``, other end, co-mentions between them) in the entries ``where``
    lets in: ``touching``'s tuples counted by their ends in the server, for a reader
    that wants no more (the graph channel's neighbours). A common name's co-mentions
    are thousands of rows; returned one by one they cost more than the search they
    serve. Each link pair counts the pairs its places imply (``pairs_of``: one when
    each has one place, as ``touching`` reads them; none for an entity and itself)."""
    m = d.mark
    links = d.using("graph_links", "a", "graph_links_by_entity")
    one = "a.co_first = a.co_last AND b.co_first = b.co_last"
    rows = conn.rows(
        "SELECT a.entity_id, b.entity_id, sum(CASE WHEN "
        f"{one} THEN 1 ELSE (CASE WHEN a.co_first < b.co_last THEN 1 ELSE 0 END) "
        "+ (CASE WHEN b.co_first < a.co_last THEN 1 ELSE 0 END) END) "
        f"FROM {links} JOIN memories m ON m.user_id = a.user_id AND m.id = a.entry_id "
        "JOIN graph_links b ON b.user_id = a.user_id AND b.entry_id = a.entry_id "
        f"WHERE a.user_id = {m} AND a.entity_id IN ({d.marks(len(ids))}) "
        "AND a.co_first IS NOT NULL AND b.co_first IS NOT NULL "
        f"AND b.entity_id <> a.entity_id AND {where} GROUP BY a.entity_id, b.entity_id",
        [user_id, *ids, *params],
    )
    return [(str(a), str(b), int(n)) for a, b, n in rows if n]


def fold_stored(
    rows: Callable[[str, Sequence[Any]], list[Any]],
    many: Callable[[str, list[tuple[Any, ...]]], object],
    mark: str,
    *,
    page: Callable[[], AbstractContextManager[object]] = nullcontext,
) -> None:
    """Turn the ``mentioned_with`` rows a vault stored before places existed into places
    (the schema step that added them): page by page of entries, each page inside
    ``page()`` (MySQL's transaction; the other backends run the whole step in one).
    An entry whose links have places already is done, so a re-run finishes the job."""
    m = mark
    users = [
        str(r[0])
        for r in rows(
            f"SELECT DISTINCT user_id FROM graph_relations WHERE rel_type = {m}", [MENTIONED_WITH]
        )
    ]
    for user_id in sorted(users):
        last = ""  # each user's entries by their key's range, a page at a time
        while True:
            entries = [
                str(r[0])
                for r in rows(
                    "SELECT DISTINCT entry_id FROM graph_relations WHERE user_id = "
                    f"{m} AND rel_type = {m} AND entry_id > {m} ORDER BY entry_id "
                    f"LIMIT {_FOLD_PAGE}",
                    [user_id, MENTIONED_WITH, last],
                )
            ]
            if not entries:
                break
            last = entries[-1]
            with page():
                _fold_entries(rows, many, m, user_id, entries)


_FOLD_PAGE = 400


def _fold_entries(
    rows: Callable[[str, Sequence[Any]], list[Any]],
    many: Callable[[str, list[tuple[Any, ...]]], object],
    m: str,
    user_id: str,
    entries: list[str],
) -> None:
    marks = ", ".join([m] * len(entries))
    pairs: dict[str, set[tuple[str, str]]] = {}
    for entry_id, s, t in rows(
        "SELECT entry_id, source_id, target_id FROM graph_relations WHERE user_id = "
        f"{m} AND rel_type = {m} AND entry_id IN ({marks})",
        [user_id, MENTIONED_WITH, *entries],
    ):
        pairs.setdefault(str(entry_id), set()).add((str(s), str(t)))
    linked: dict[str, list[str]] = {}
    done: set[str] = set()
    for entry_id, entity_id, first in rows(
        "SELECT entry_id, entity_id, co_first FROM graph_links WHERE user_id = "
        f"{m} AND entry_id IN ({marks})",
        [user_id, *entries],
    ):
        linked.setdefault(str(entry_id), []).append(str(entity_id))
        if first is not None:
            done.add(str(entry_id))
    places: list[tuple[Any, ...]] = []
    whole: list[tuple[Any, ...]] = []
    some: list[tuple[Any, ...]] = []
    for entry_id, said in pairs.items():
        if entry_id in done:
            continue
        mine, rest = fold(sorted(linked.get(entry_id, [])), said)
        if not mine:
            continue
        places += [(f, la, user_id, entry_id, i) for i, (f, la) in mine.items()]
        if rest:
            some += [(user_id, entry_id, s, t, MENTIONED_WITH) for s, t in said - rest]
        else:
            whole.append((user_id, entry_id, MENTIONED_WITH))
    if places:
        many(
            f"UPDATE graph_links SET co_first = {m}, co_last = {m} "
            f"WHERE user_id = {m} AND entry_id = {m} AND entity_id = {m}",
            places,
        )
    if whole:
        many(
            f"DELETE FROM graph_relations WHERE user_id = {m} AND entry_id = {m} "
            f"AND rel_type = {m}",
            whole,
        )
    if some:
        many(
            f"DELETE FROM graph_relations WHERE user_id = {m} AND entry_id = {m} "
            f"AND source_id = {m} AND target_id = {m} AND rel_type = {m}",
            some,
        )


__all__ = ["entry_pairs", "fold_stored", "split", "touching", "touching_counts"]
