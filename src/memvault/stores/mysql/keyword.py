"""Keyword search: BM25 with the statistics of the caller's view alone, in SQL.

``keyword_terms`` (migration 9) holds a row per entry and distinct index-form token
(``bm25.index_form``: stemmed words, CJK bigrams, diacritics folded) with its counts
in the three columns, keyed by (user, term). A query is two statements: one reads
the view's entry count and length from the entries' covering index and each term's
document frequency (one key range each); the other groups the terms' rows by entry,
joins the entries for the view and the filter, and has the server add each term's
BM25 share (``bm25.bm25_part``, in query order, with the idfs computed here) and
return the best entries with their scores. A phrase (a CJK run) is one more term:
the entries holding all its tokens are read and its occurrences counted here
(``bm25.phrase_counter``), and the counts join the same statement as JSON. So a
match means what it means on SQLite, and no score depends on another user's data.

There is no FULLTEXT index (migration 10 dropped the one schemas before it had), so
the server's full-text settings do not matter, and a search inside this thread's own
write transaction sees its uncommitted rows like any other read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...errors import MigrationError
from ...model import MemoryEntry
from ..bm25 import (
    BM25_B,
    BM25_K1,
    bm25_idf,
    is_phrase,
    phrase_counter,
    phrase_weight,
    query_forms,
)
from ..protocols import TermPlanner
from ..rows import row_to_entry
from ..values import DEFAULT_WEIGHTS, NO_FILTER, EntryFilter, KeywordWeights, View
from .connection import MySQLConnection
from .schema import exact_collation
from .sql import SELECT, agents_sql, filter_sql, term_key, view_sql


class MySQLKeywordIndex(MySQLConnection):
    """BM25 in SQL over ``keyword_terms``, with the view's own statistics."""

    def keyword_search(
        self,
        view: View,
        terms: Sequence[str],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
        weights: KeywordWeights = DEFAULT_WEIGHTS,
        planner: TermPlanner | None = None,
    ) -> list[tuple[MemoryEntry, float]]:
        terms = query_forms(terms)
        if not terms:
            return []
        if not self.term_table:
            raise MigrationError(
                "this MySQL store was opened at a schema version before keyword_terms (9), "
                "which keyword search reads: open it without migrate_to to search"
            )
        singles = [t for t in terms if not is_phrase(t)]
        exact = exact_collation(self.flavor)
        with self._snapshot("keyword search") as cur:
            entries, tokens, dfs = _view_counts(cur, view, singles)
            if entries == 0:
                return []
            cutoff = planner.cutoff_for(entries) if planner is not None else 0
            phrases: dict[str, dict[str, float]] = {}  # phrase -> entry id -> its count

            def count(term: str) -> int:
                if is_phrase(term) and term not in phrases:
                    phrases[term] = _phrase_counts(cur, view, term, weights)
                    dfs[term] = len(phrases[term])
                return dfs.get(term, 0)

            def is_common(term: str) -> bool:
                return cutoff > 0 and count(term) > cutoff

            groups = planner.plan(terms, is_common) if planner is not None else [(" OR ", terms)]
            avg = tokens / entries if tokens else 1.0
            found: list[tuple[MemoryEntry, float]] = []
            for n, (joiner, group) in enumerate(groups):
                for term in group:
                    count(term)
                found = _rank_rows(
                    cur,
                    view,
                    flt,
                    group,
                    every_term=joiner == " AND ",
                    limit=limit,
                    weights=weights,
                    stats=(entries, avg),
                    dfs=dfs,
                    phrase_counts=(phrases, exact),
                )
                if found or n == len(groups) - 1:
                    break
        return found


def _phrase_counts(cur: Any, view: View, phrase: str, weights: KeywordWeights) -> dict[str, float]:
    """The view's entries holding ``phrase`` (its tokens one after another in a
    column), each with its column-weighted count of occurrences: ``keyword_terms``
    finds the entries holding all its tokens, their stored text is counted here (as
    the other backends count it)."""
    where, params = view_sql(view)
    agents, aparams = agents_sql(view, "t")
    tokens = list(dict.fromkeys(term_key(t) for t in phrase.split()))
    marks = ", ".join("%s" for _ in tokens)
    cur.execute(
        "SELECT m.id, m.fts_head, m.fts_body, m.fts_extra FROM ("
        f"SELECT t.entry_id FROM keyword_terms t WHERE {agents} AND t.term IN ({marks}) "
        f"GROUP BY t.entry_id HAVING count(*) = {len(tokens)}) c "
        f"JOIN memories m ON m.user_id = %s AND m.id = c.entry_id WHERE {where}",
        (*aparams, *tokens, view.user_id, *params),
    )
    count = phrase_counter(phrase)
    col_weights = (weights.head, weights.body, weights.extra)
    out: dict[str, float] = {}
    for entry_id, *columns in cur.fetchall():
        found = [count(text) for text in columns]
        if any(found):
            freq = 0.0
            for weight, n in zip(col_weights, found, strict=True):
                if n:
                    freq += weight * n
            out[str(entry_id)] = freq
    return out


def _view_counts(cur: Any, view: View, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
    """(entries, tokens) inside ``view`` and how many of its entries hold each of
    ``terms`` (single tokens), in one statement: the entries' lengths from the covering
    index by agent, the counts from one key range of ``keyword_terms`` per term."""
    where, params = view_sql(view)
    agents, aparams = agents_sql(view, "t")
    keys = {term_key(t): t for t in terms}
    sql = f"SELECT NULL, count(*), coalesce(sum(m.kw_len), 0) FROM memories m WHERE {where}"
    if keys:
        sql += (
            f" UNION ALL SELECT t.term, count(*), 0 FROM keyword_terms t WHERE {agents} "
            f"AND t.term IN ({', '.join('%s' for _ in keys)}) GROUP BY t.term"
        )
    cur.execute(sql, (*params, *aparams, *keys) if keys else params)
    entries = tokens = 0
    dfs: dict[str, int] = {}
    for term, count, length in cur.fetchall():
        if term is None:
            entries, tokens = int(count), int(length)
        elif term in keys:
            dfs[keys[term]] = int(count)
    return entries, tokens, dfs


def _rank_rows(
    cur: Any,
    view: View,
    flt: EntryFilter,
    group: Sequence[str],
    *,
    every_term: bool,
    limit: int,
    weights: KeywordWeights,
    stats: tuple[int, float],
    dfs: dict[str, int],
    phrase_counts: tuple[dict[str, dict[str, float]], str],
) -> list[tuple[MemoryEntry, float]]:
    """The best ``limit`` entries holding any (or every) term of ``group``, with their
    scores, in one statement: each matching entry's term counts come from
    ``keyword_terms`` (a phrase's, counted by ``_phrase_counts``, come in as JSON), and
    the server adds the terms' BM25 shares (``bm25.bm25_part``, in query order, in
    DOUBLE) with the view's statistics ``stats`` (entries, average length) and the
    idfs computed here. ``phrase_counts``: the phrases' counts, and the exact
    collation the entry ids are compared in."""
    entries, avg = stats
    phrases, exact = phrase_counts
    idfs = {t: bm25_idf(entries, dfs[t]) for t in group if dfs.get(t, 0)}
    for term in idfs:
        if is_phrase(term):
            idfs[term] *= phrase_weight(term, weights)
    if not idfs or (every_term and len(idfs) < len(group)):
        return []
    scored = list(idfs)
    singles = [t for t in scored if not is_phrase(t)]
    where, params = view_sql(view)
    fsql, fparams = filter_sql(flt)
    agents, aparams = agents_sql(view, "t")
    # One row per (entry, term slot) with its column-weighted count: the singles' from
    # keyword_terms, the phrases' from JSON.
    slot = {t: n for n, t in enumerate(scored)}
    union: list[str] = []
    union_args: list[Any] = []
    if singles:
        cases = " ".join("WHEN %s THEN %s" for _ in singles)
        marks = ", ".join("%s" for _ in singles)
        union.append(
            f"SELECT t.entry_id, CASE t.term {cases} END AS slot, "
            "%s * t.tf_head + %s * t.tf_body + %s * t.tf_extra AS f "
            f"FROM keyword_terms t WHERE {agents} AND t.term IN ({marks})"
        )
        for term in singles:
            union_args += [term_key(term), slot[term]]
        keys = [term_key(t) for t in singles]
        union_args += [weights.head, weights.body, weights.extra, *aparams, *keys]
    held = [[i, slot[t], f] for t in scored if is_phrase(t) for i, f in phrases[t].items()]
    if held:
        union.append(
            f"SELECT CONVERT(j.entry_id USING utf8mb4) COLLATE {exact} AS entry_id, j.slot, j.f "
            "FROM JSON_TABLE(%s, '$[*]' COLUMNS (entry_id VARCHAR(255) PATH '$[0]', "
            "slot INT PATH '$[1]', f DOUBLE PATH '$[2]')) j"
        )
        union_args.append(json.dumps(held))
    freqs = ", ".join(f"SUM(CASE WHEN u.slot = {n} THEN u.f END) AS f{n}" for n in slot.values())
    parts = " + ".join(
        f"COALESCE(%s * h.f{n} * (%s + 1) / (h.f{n} + %s * (1 - %s + %s * m.kw_len / %s)), 0)"
        for n in slot.values()
    )
    part_args: list[Any] = []
    for term in scored:
        part_args += [idfs[term], BM25_K1, BM25_K1, BM25_B, BM25_B, avg]
    having = f" HAVING count(*) = {len(scored)}" if every_term else ""
    cur.execute(
        f"SELECT {SELECT}, s.pk, s.score FROM (SELECT q.entry_id, q.pk, q.score FROM ("
        f"SELECT h.entry_id, m.pk, {parts} AS score FROM ("
        f"SELECT u.entry_id, {freqs} FROM ({' UNION ALL '.join(union)}) u "
        f"GROUP BY u.entry_id{having}) h "
        f"JOIN memories m ON m.user_id = %s AND m.id = h.entry_id WHERE {where}{fsql}) q "
        "WHERE q.score > 0 ORDER BY q.score DESC, q.pk LIMIT %s) s "
        "JOIN memories m ON m.user_id = %s AND m.id = s.entry_id ORDER BY s.score DESC, s.pk",
        (
            *part_args,
            *union_args,
            view.user_id,
            *params,
            *fparams,
            limit,
            view.user_id,
        ),
    )
    out: list[tuple[MemoryEntry, float]] = []
    for row in cur.fetchall():
        found = row_to_entry(row)
        if view.sees(found):
            out.append((found, float(row[-1])))
    return out
