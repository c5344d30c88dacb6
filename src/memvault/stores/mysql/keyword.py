"""Keyword search: BM25 with the statistics of the caller's view alone.

InnoDB's FULLTEXT index over the engine's pre-tokenized columns (the same
``SearchDoc`` strings SQLite indexes: stemmed words, CJK character bigrams) only
proposes candidates: the caller's entries holding any query term, as whole words
or phrases. Each candidate's stored tokens are then checked and counted here in
their index forms (``bm25.index_form``), and BM25 (``bm25.bm25_part``) is computed
from the view's own entry count, average length and document frequencies, exactly
as the in-memory store does. So a match means what it means on SQLite, CJK and
stemming included, and no score depends on another user's data; FULLTEXT's own
relevance numbers (table-wide statistics) are never used.

Why no ``WITH PARSER ngram``: the engine already writes CJK bigrams as words, so the
default parser is what is wanted on both servers (MariaDB has no ngram parser at
all). The server must index one-character words and keep no stop words
(``innodb_ft_min_token_size=1``, ``innodb_ft_enable_stopword=OFF``); the store
checks the first when it opens.

InnoDB's FULLTEXT index sees only committed rows, so a search inside this thread's
own write transaction reads the view's rows directly instead.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ...model import MemoryEntry
from ..bm25 import (
    BM25_B,
    BM25_K1,
    bm25_idf,
    bm25_part,
    index_form,
    is_phrase,
    phrase_counter,
    phrase_weight,
    query_forms,
)
from ..protocols import TermPlanner
from ..rows import row_to_entry
from ..values import DEFAULT_WEIGHTS, NO_FILTER, EntryFilter, KeywordWeights, View
from .connection import MySQLConnection
from .sql import SELECT, agents_sql, filter_sql, term_key, view_sql

_WORD = re.compile(r"\w")
_MATCH = " AND MATCH (m.fts_head, m.fts_body, m.fts_extra) AGAINST (%s IN BOOLEAN MODE)"


def against(terms: Sequence[str]) -> str:
    """A boolean-mode FULLTEXT expression matching any of ``terms`` (each a quoted
    word or phrase; the parser splits on the same non-word characters it indexed by)."""
    return " ".join('"' + t.replace('"', " ") + '"' for t in terms)


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
        if not self.term_table or any(map(is_phrase, terms)):
            return self._search_candidates(view, terms, flt, limit, weights, planner)
        with self._snapshot("keyword search") as cur:
            entries, tokens, dfs = _view_counts(cur, view, terms)
            if entries == 0:
                return []
            cutoff = planner.cutoff_for(entries) if planner is not None else 0

            def is_common(term: str) -> bool:
                return cutoff > 0 and dfs.get(term, 0) > cutoff

            groups = planner.plan(terms, is_common) if planner is not None else [(" OR ", terms)]
            avg = tokens / entries if tokens else 1.0
            found: list[tuple[MemoryEntry, float]] = []
            for n, (joiner, group) in enumerate(groups):
                found = _rank_rows(
                    cur, view, flt, group, joiner == " AND ", limit, weights, entries, avg, dfs
                )
                if found or n == len(groups) - 1:
                    break
        return found

    def _search_candidates(
        self,
        view: View,
        terms: list[str],
        flt: EntryFilter,
        limit: int,
        weights: KeywordWeights,
        planner: TermPlanner | None,
    ) -> list[tuple[MemoryEntry, float]]:
        """A query with phrases: FULLTEXT proposes the candidates, whose stored tokens
        are counted and scored here (a phrase's occurrences need the text)."""
        where, params = view_sql(view)
        # Each candidate says whether it passes the filter (it is ranked) and the filter
        # without expiry (it counts for the planner, as on the other backends); document
        # frequencies count every candidate, so a filter never changes a score.
        fsql, fparams = filter_sql(flt)
        psql, pparams = filter_sql(flt.timeless())
        sql = (
            "SELECT m.pk, m.kw_len, m.fts_head, m.fts_body, m.fts_extra, "
            f"(TRUE{fsql}) AS wanted, (TRUE{psql}) AS planned FROM memories m WHERE {where}"
        )
        args: list[Any] = [*fparams, *pparams, *params]
        if not (self.in_transaction() or any(not _WORD.search(t) for t in terms)):
            sql += _MATCH
            args.append(against(terms))
        with self._snapshot("keyword search") as cur:
            cur.execute(
                f"SELECT count(*), coalesce(sum(m.kw_len), 0) FROM memories m WHERE {where}",
                params,
            )
            entries, tokens = (int(v) for v in cur.fetchone())
            if entries == 0:
                return []
            cur.execute(sql + " ORDER BY m.pk", args)
            ranked = _rank(cur.fetchall(), terms, entries, tokens, limit, weights, planner)
            if not ranked:
                return []
            marks = ", ".join("%s" for _ in ranked)
            cur.execute(
                f"SELECT {SELECT}, m.pk FROM memories m WHERE {where} AND m.pk IN ({marks})",
                (*params, *(pk for pk, _ in ranked)),
            )
            found = {int(row[-1]): row_to_entry(row) for row in cur.fetchall()}
        return [(found[pk], score) for pk, score in ranked if pk in found]


def _view_counts(cur: Any, view: View, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
    """(entries, tokens) inside ``view`` and how many of its entries hold each of
    ``terms`` (single tokens), in one statement: the entries' lengths from the covering
    index by agent, the counts from one key range of ``keyword_terms`` per term."""
    where, params = view_sql(view)
    agents, aparams = agents_sql(view, "t")
    keys = {term_key(t): t for t in terms}
    marks = ", ".join("%s" for _ in keys)
    cur.execute(
        f"SELECT NULL, count(*), coalesce(sum(m.kw_len), 0) FROM memories m WHERE {where} "
        f"UNION ALL SELECT t.term, count(*), 0 FROM keyword_terms t WHERE {agents} "
        f"AND t.term IN ({marks}) GROUP BY t.term",
        (*params, *aparams, *keys),
    )
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
    every_term: bool,
    limit: int,
    weights: KeywordWeights,
    entries: int,
    avg: float,
    dfs: dict[str, int],
) -> list[tuple[MemoryEntry, float]]:
    """The best ``limit`` entries holding any (or every) term of ``group``, with their
    scores, in one statement: each matching entry's term counts come from
    ``keyword_terms``, and the server adds the terms' BM25 shares (``bm25.bm25_part``,
    in query order, in DOUBLE) with the view's statistics and the idfs computed here."""
    idfs = {t: bm25_idf(entries, dfs[t]) for t in group if dfs.get(t, 0)}
    if not idfs or (every_term and len(idfs) < len(group)):
        return []
    scored = list(idfs)
    where, params = view_sql(view)
    fsql, fparams = filter_sql(flt)
    agents, aparams = agents_sql(view, "t")
    freqs = ", ".join(
        f"SUM(CASE WHEN t.term = %s THEN %s * t.tf_head + %s * t.tf_body + %s * t.tf_extra "
        f"END) AS f{n}"
        for n in range(len(scored))
    )
    parts = " + ".join(
        f"COALESCE(%s * h.f{n} * (%s + 1) / (h.f{n} + %s * (1 - %s + %s * m.kw_len / %s)), 0)"
        for n in range(len(scored))
    )
    freq_args: list[Any] = []
    part_args: list[Any] = []
    for term in scored:
        freq_args += [term_key(term), weights.head, weights.body, weights.extra]
        part_args += [idfs[term], BM25_K1, BM25_K1, BM25_B, BM25_B, avg]
    marks = ", ".join("%s" for _ in scored)
    having = f" HAVING count(*) = {len(scored)}" if every_term else ""
    cur.execute(
        f"SELECT {SELECT}, s.pk, s.score FROM (SELECT q.entry_id, q.pk, q.score FROM ("
        f"SELECT h.entry_id, m.pk, {parts} AS score FROM ("
        f"SELECT t.entry_id, {freqs} FROM keyword_terms t WHERE {agents} "
        f"AND t.term IN ({marks}) GROUP BY t.entry_id{having}) h "
        f"JOIN memories m ON m.user_id = %s AND m.id = h.entry_id WHERE {where}{fsql}) q "
        "WHERE q.score > 0 ORDER BY q.score DESC, q.pk LIMIT %s) s "
        "JOIN memories m ON m.user_id = %s AND m.id = s.entry_id ORDER BY s.score DESC, s.pk",
        (
            *part_args,
            *freq_args,
            *aparams,
            *(term_key(t) for t in scored),
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


def _rank(
    rows: Sequence[Any],
    terms: list[str],
    entries: int,
    tokens: int,
    limit: int,
    weights: KeywordWeights,
    planner: TermPlanner | None,
) -> list[tuple[int, float]]:
    """(pk, score) of the best ``limit`` candidates; ``rows`` are (pk, length, head,
    body, extra, wanted, planned) in stored order, ``entries`` and ``tokens`` the
    view's. The same arithmetic, in the same order, as ``MemoryStore``."""
    wanted_terms = set(terms)
    phrases = [(t, phrase_counter(t)) for t in terms if is_phrase(t)]
    found: list[tuple[int, int, list[Counter[str]], bool, bool]] = []
    for pk, length, *texts, wanted, planned in rows:
        columns: list[Counter[str]] = []
        for text in texts:
            counter = Counter(f for f in map(index_form, text.split()) if f in wanted_terms)
            for term, count in phrases:
                n = count(text)
                if n:
                    counter[term] = n
            columns.append(counter)
        if any(columns):  # FULLTEXT proposes; only the engine's own tokens count
            found.append((int(pk), int(length), columns, bool(wanted), bool(planned)))
    avg = tokens / entries if tokens else 1.0
    col_weights = (weights.head, weights.body, weights.extra)

    def has(i: int, term: str) -> bool:
        return any(col.get(term) for col in found[i][2])

    cutoff = planner.cutoff_for(entries) if planner is not None else 0

    def is_common(term: str) -> bool:
        return cutoff > 0 and sum(1 for i, f in enumerate(found) if f[4] and has(i, term)) > cutoff

    groups = planner.plan(terms, is_common) if planner is not None else [(" OR ", terms)]
    ranked: list[tuple[int, float]] = []
    for g, (joiner, group) in enumerate(groups):
        idfs = {t: bm25_idf(entries, sum(1 for i in range(len(found)) if has(i, t))) for t in group}
        for t in filter(is_phrase, group):
            idfs[t] *= phrase_weight(t, weights)
        scored: list[tuple[int, float]] = []
        for i, (_, length, columns, wanted, _) in enumerate(found):
            if not wanted:
                continue
            present = [t for t in group if has(i, t)]
            if not present or (joiner == " AND " and len(present) < len(group)):
                continue
            score = 0.0
            for term in present:  # in query order, as the other backends add them up
                freq = sum(
                    w * col.get(term, 0) for w, col in zip(col_weights, columns, strict=True)
                )
                score += bm25_part(idfs[term], freq, length, avg)
            if score > 0:
                scored.append((i, score))
        ranked = sorted(scored, key=lambda p: (-p[1], p[0]))  # ties: stored first
        if ranked or g == len(groups) - 1:
            break
    return [(found[i][0], score) for i, score in ranked[:limit]]
