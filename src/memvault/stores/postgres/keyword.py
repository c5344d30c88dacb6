"""Keyword search: BM25 with the statistics of the caller's view alone.

The engine's pre-tokenized text (``SearchDoc``, the same strings SQLite's FTS5 index
holds) is kept as written, and an array of its distinct index-form tokens under a GIN
index finds the entries holding a term. Scores are ``bm25.bm25_part`` over the
caller's view only: entries and tokens from the trigger-kept ``keyword_stats``, each
term's document frequency counted inside the view, lengths and term frequencies from
the entry's own tokens. So CJK bigrams, stemming and phrases behave exactly as on
SQLite, and nothing another user stored moves a score.

Without phrases the server ranks the matching entries in one statement from each
entry's stored term frequencies (``fts_tf_*``, parallel to ``fts_keys``), and only the
best few are read back and scored here in SQLite's order of operations, so the scores
are SQLite's to the bit without reading every match's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

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
from .connection import PostgresConnection
from .sql import SELECT, agents_sql, filter_sql, user_key, view_sql


def _tokens_of(term: str) -> list[str]:
    """The keys an entry holding ``term`` has (a phrase: every one of its tokens)."""
    return term.split()


class PostgresKeywordIndex(PostgresConnection):
    """BM25 over the keyword keys, scored with the view's own statistics."""

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
        with self._snapshot("the keyword search") as conn:
            entries, tokens = self._view_stats(conn, view)
            if entries == 0:
                return []
            cutoff = planner.cutoff_for(entries) if planner is not None else 0
            where, params = view_sql(view)
            key = user_key(view.user_id)

            def is_common(term: str) -> bool:
                if cutoff <= 0:
                    return False
                row = conn.execute(
                    f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {where} "
                    "AND m.fts_keys @> %s LIMIT %s) t",
                    (*params, [key, *_tokens_of(term)], cutoff + 1),
                ).fetchone()
                return row is not None and int(row[0]) > cutoff

            groups = planner.plan(terms, is_common) if planner is not None else [(" OR ", terms)]
            if not groups:
                return []
            avg = tokens / entries if tokens else 1.0
            ranked: list[tuple[int, float]] = []
            for n, (joiner, group) in enumerate(groups):
                ranked = self._rank(
                    conn,
                    view,
                    flt,
                    group,
                    joiner == " AND ",
                    limit,
                    weights,
                    entries,
                    avg,
                    self.term_frequencies,
                )
                if ranked or n == len(groups) - 1:
                    break
            found = self._entries_by_pk(conn, view, [pk for pk, _ in ranked])
        return [(found[pk], score) for pk, score in ranked if pk in found]

    @staticmethod
    def _view_stats(conn: psycopg.Connection[Any], view: View) -> tuple[int, int]:
        """(entries, tokens) inside ``view``, from the trigger-kept ``keyword_stats``."""
        agents, params = agents_sql(view, "s")
        row = conn.execute(
            "SELECT coalesce(sum(entries), 0), coalesce(sum(tokens), 0) "
            f"FROM keyword_stats s WHERE {agents}",
            params,
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    @staticmethod
    def _rank(
        conn: psycopg.Connection[Any],
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        entries: int,
        avg: float,
        in_server: bool = True,
    ) -> list[tuple[int, float]]:
        """(pk, score) of the best ``limit`` entries holding any (or every) term of ``group``.

        Each term's document frequency is counted inside the view (unfiltered, so a
        filter never changes a score); the candidates are the filtered view's entries
        holding the terms' keys (narrowed first to the best few by ``_rank_in_server``
        when the group has no phrase), scored from their stored tokens in Python,
        adding the numbers in the order SQLite's ranking does (so both give the same
        scores).
        """
        where, params = view_sql(view)
        key = user_key(view.user_id)
        idfs: dict[str, float] = {}
        phrase_counts: dict[str, dict[int, list[int]]] = {}  # phrase -> pk -> per column
        singles = [t for t in group if not is_phrase(t)]
        dfs: dict[str, int] = {}
        if singles:  # every single term's document frequency in one pass over the view
            counts = ", ".join("count(*) FILTER (WHERE m.fts_keys @> %s)" for _ in singles)
            row = conn.execute(
                f"SELECT {counts} FROM memories m WHERE {where} "
                "AND m.fts_keys @> %s AND m.fts_keys && %s",
                (*[[t] for t in singles], *params, [key], singles),
            ).fetchone()
            dfs = {t: int(n) for t, n in zip(singles, row or (), strict=False)}
        for term in group:
            if is_phrase(term):
                count = phrase_counter(term)
                rows = conn.execute(
                    f"SELECT m.pk, m.fts_head, m.fts_body, m.fts_extra FROM memories m "
                    f"WHERE {where} AND m.fts_keys @> %s",
                    (*params, [key, *_tokens_of(term)]),
                ).fetchall()
                per_doc: dict[int, list[int]] = {}
                for pk, *columns in rows:
                    occurrences = [count(text) for text in columns]
                    if any(occurrences):
                        per_doc[int(pk)] = occurrences
                phrase_counts[term] = per_doc
                df = len(per_doc)
            else:
                df = dfs.get(term, 0)
            if df:
                weight = phrase_weight(term, weights) if is_phrase(term) else 1.0
                idfs[term] = bm25_idf(entries, df) * weight
        if not idfs:
            return []
        scored = list(idfs)
        wanted = list(dict.fromkeys(t for term in group for t in _tokens_of(term)))
        fsql, fparams = filter_sql(flt)
        match = "@>" if every_term else "&&"
        narrow, nparams = "", []
        if in_server and not phrase_counts:
            # The server ranks the matching entries from their stored term frequencies;
            # only the best few are read back and scored below, operation for operation
            # as SQLite does (so both give the same numbers). The margin keeps entries
            # whose scores differ in the last bit from falling off the end.
            top = PostgresKeywordIndex._rank_in_server(
                conn, view, flt, scored, idfs, every_term, 2 * limit + 20, weights, avg
            )
            if not top:
                return []
            narrow, nparams = " AND m.pk = ANY(%s)", [top]
        rows = conn.execute(
            f"SELECT m.pk, m.fts_len, m.fts_head, m.fts_body, m.fts_extra FROM memories m "
            f"WHERE {where}{fsql} AND m.fts_keys @> %s AND m.fts_keys {match} %s{narrow}",
            (*params, *fparams, [key], wanted, *nparams),
        ).fetchall()
        slot = {t: i for i, t in enumerate(scored)}
        col_weights = (weights.head, weights.body, weights.extra)
        phrase_slots = [(slot[p], phrase_counts[p]) for p in scored if is_phrase(p)]
        ranked: list[tuple[int, float]] = []
        for pk, length, *columns in rows:
            freqs = [0.0] * len(scored)
            seen = [False] * len(scored)
            for weight, text in zip(col_weights, columns, strict=True):
                for token in text.split():
                    i = slot.get(index_form(token))
                    if i is not None:
                        freqs[i] += weight
                        seen[i] = True
            for i, per_doc in phrase_slots:
                found = per_doc.get(int(pk))
                if found:
                    for weight, n in zip(col_weights, found, strict=True):
                        if n:
                            freqs[i] += weight * n
                    seen[i] = True
            if every_term and sum(seen) < len(group):
                continue
            score = 0.0
            for i, freq in enumerate(freqs):
                if seen[i]:
                    score += bm25_part(idfs[scored[i]], freq, int(length), avg)
            if score > 0:
                ranked.append((int(pk), score))
        ranked.sort(key=lambda p: (-p[1], p[0]))
        return ranked[:limit]

    @staticmethod
    def _rank_in_server(
        conn: psycopg.Connection[Any],
        view: View,
        flt: EntryFilter,
        terms: Sequence[str],
        idfs: dict[str, float],
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        avg: float,
    ) -> list[int]:
        """The pks of the ``limit`` best entries by BM25 over single ``terms``, computed
        in one statement from the stored term frequencies (``fts_tf_*``)."""
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        positions = ", ".join(f"array_position(m.fts_keys, %s) AS i{n}" for n in range(len(terms)))
        parts = " + ".join(
            f"coalesce(%s::float8 * f{n} * (%s::float8 + 1) "
            f"/ (f{n} + %s::float8 * (1 - %s::float8 + %s::float8 * p.len / %s::float8)), 0)"
            for n in range(len(terms))
        )
        freqs = ", ".join(
            f"%s::float8 * m.fts_tf_head[i{n}] + %s::float8 * m.fts_tf_body[i{n}] "
            f"+ %s::float8 * m.fts_tf_extra[i{n}] "
            f"AS f{n}"
            for n in range(len(terms))
        )
        part_args: list[Any] = []
        for term in terms:
            part_args += [idfs[term], BM25_K1, BM25_K1, BM25_B, BM25_B, avg]
        freq_args = [weights.head, weights.body, weights.extra] * len(terms)
        match = "@>" if every_term else "&&"
        rows = conn.execute(
            f"SELECT pk FROM (SELECT p.pk, {parts} AS score FROM ("
            f"SELECT m.pk, m.fts_len::float8 AS len, {freqs} FROM memories m, "
            f"LATERAL (SELECT {positions}) x "
            f"WHERE {where}{fsql} AND m.fts_keys @> %s AND m.fts_keys {match} %s) p) s "
            "WHERE score > 0 ORDER BY score DESC, pk LIMIT %s",
            (
                *part_args,
                *freq_args,
                *terms,
                *params,
                *fparams,
                [user_key(view.user_id)],
                list(terms),
                limit,
            ),
        ).fetchall()
        return [int(r[0]) for r in rows]

    @staticmethod
    def _entries_by_pk(
        conn: psycopg.Connection[Any], view: View, pks: Sequence[int]
    ) -> dict[int, MemoryEntry]:
        """The entries with these row numbers inside ``view``."""
        if not pks:
            return {}
        rows = conn.execute(
            f"SELECT {SELECT}, m.pk FROM memories m WHERE m.user_id = %s AND m.pk = ANY(%s)",
            (view.user_id, list(pks)),
        ).fetchall()
        out: dict[int, MemoryEntry] = {}
        for row in rows:
            found = row_to_entry(row)
            if view.sees(found):
                out[int(row[-1])] = found
        return out
