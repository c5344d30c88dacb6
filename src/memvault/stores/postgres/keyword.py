"""Keyword search: BM25 with the statistics of the caller's view alone.

The engine's pre-tokenized text (``SearchDoc``, the same strings SQLite's FTS5 index
holds) is kept as written, and an array of its distinct index-form tokens under a GIN
index finds the entries holding a term. Scores are ``bm25.bm25_part`` over the
caller's view only: entries and tokens from the trigger-kept ``keyword_stats``, each
term's document frequency counted inside the view, lengths and term frequencies from
the entry's own tokens. So CJK bigrams, stemming and phrases behave exactly as on
SQLite, and nothing another user stored moves a score.

A query costs two statements: one reads the view's statistics and every single
term's document frequency (counted only up to the planner's largest cutoff, which is
all the common-term rule asks), the other finds, scores and reads back the best
entries, the server adding each term's BM25 share from the entry's stored term
frequencies (``fts_tf_*``, parallel to ``fts_keys``) in SQLite's order of operations.
With the column weights powers of two (the defaults) every step is exact, so the
scores are SQLite's to the bit. A group of terms with a phrase (CJK runs), or other
weights, is ranked as before: the server narrows to the best few by the same formula,
and their stored tokens are scored here.
"""

from __future__ import annotations

import math
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

# Ends a subquery so the planner keeps it whole instead of pulling its columns up into
# the expressions above: pulled up, each term's position in ``fts_keys`` was searched
# six times a row and the whole score computed twice (for ``score > 0`` and the sort),
# 3-4x the time of the ranking statement at a 10k-entry user; same rows either way.
_ONCE = "OFFSET 0"


def _exact(weights: KeywordWeights) -> bool:
    """Whether every column weight is 0 or a power of two: then a weight times a count,
    and their sums, are exact in floating point, as SQLite's one-by-one additions are."""
    return all(
        w == 0 or math.frexp(w)[0] == 0.5 for w in (weights.head, weights.body, weights.extra)
    )


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
        singles = [t for t in terms if not is_phrase(t)]
        # The common-term rule only needs to know whether a term's count passes the
        # cutoff: counts stop one past the largest cutoff the planner can give.
        cap = planner.cutoff_for(2**62) + 1 if planner is not None else 0
        with self._snapshot("the keyword search") as conn:
            entries, tokens, dfs = self._view_counts(conn, view, singles, cap)
            if entries == 0:
                return []
            cutoff = planner.cutoff_for(entries) if planner is not None else 0
            where, params = view_sql(view)
            key = user_key(view.user_id)

            def is_common(term: str) -> bool:
                if cutoff <= 0:
                    return False
                if term in dfs and (cap <= 0 or cutoff < cap):
                    return dfs[term] > cutoff
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
            found: list[tuple[MemoryEntry, float]] = []
            for n, (joiner, group) in enumerate(groups):
                every = joiner == " AND "
                if self.term_frequencies and _exact(weights) and not any(map(is_phrase, group)):
                    capped = [t for t in group if cap > 0 and dfs.get(t, 0) >= cap]
                    if capped:  # a common term is ranked on: its exact count is needed
                        dfs.update(self._view_counts(conn, view, capped, 0)[2])
                    found = self._rank_rows(
                        conn,
                        view,
                        flt,
                        group,
                        every_term=every,
                        limit=limit,
                        weights=weights,
                        entries=entries,
                        avg=avg,
                        dfs=dfs,
                    )
                else:
                    ranked = self._rank(
                        conn,
                        view,
                        flt,
                        group,
                        every_term=every,
                        limit=limit,
                        weights=weights,
                        entries=entries,
                        avg=avg,
                        in_server=self.term_frequencies,
                    )
                    by_pk = self._entries_by_pk(conn, view, [pk for pk, _ in ranked])
                    found = [(by_pk[pk], score) for pk, score in ranked if pk in by_pk]
                if found or n == len(groups) - 1:
                    break
        return found

    @staticmethod
    def _view_counts(
        conn: psycopg.Connection[Any], view: View, singles: Sequence[str], cap: int
    ) -> tuple[int, int, dict[str, int]]:
        """(entries, tokens) inside ``view`` from the trigger-kept ``keyword_stats``, and
        how many of the view's entries hold each of ``singles`` (counting stops at
        ``cap`` when it is above 0), in one statement."""
        agents, aparams = agents_sql(view, "s")
        where, params = view_sql(view)
        key = user_key(view.user_id)
        counts = "".join(
            f", (SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {where} "
            "AND m.fts_keys @> %s LIMIT %s) t)"
            for _ in singles
        )
        args: list[Any] = []
        for term in singles:
            args += [*params, [key, term], cap if cap > 0 else None]
        args += aparams
        row = conn.execute(
            "SELECT coalesce(sum(s.entries), 0), coalesce(sum(s.tokens), 0)"
            f"{counts} FROM keyword_stats s WHERE {agents}",
            args,
        ).fetchone()
        if row is None:
            return 0, 0, {}
        return int(row[0]), int(row[1]), {t: int(n) for t, n in zip(singles, row[2:], strict=True)}

    @staticmethod
    def _rank_rows(
        conn: psycopg.Connection[Any],
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        *,
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        entries: int,
        avg: float,
        dfs: dict[str, int],
    ) -> list[tuple[MemoryEntry, float]]:
        """The best ``limit`` entries holding any (or every) single term of ``group``,
        with their scores, in one statement: the server adds the terms' BM25 shares
        from the stored term frequencies in the order ``bm25_part`` does, and with
        column weights that are powers of two every product and sum is exact, so the
        scores are SQLite's to the bit."""
        idfs = {t: bm25_idf(entries, dfs[t]) for t in group if dfs.get(t, 0)}
        if not idfs or (every_term and len(idfs) < len(group)):
            return []
        scored = list(idfs)
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        positions, freqs, parts, freq_args, part_args = _bm25_sql(scored, idfs, weights, avg)
        match = "@>" if every_term else "&&"
        rows = conn.execute(
            f"SELECT {SELECT}, s.pk, s.score FROM (SELECT q.pk, q.score FROM ("
            f"SELECT p.pk, {parts} AS score FROM ("
            f"SELECT m.pk, m.fts_len::float8 AS len, {freqs} FROM memories m, "
            f"LATERAL (SELECT {positions} {_ONCE}) x "
            f"WHERE {where}{fsql} AND m.fts_keys @> %s AND m.fts_keys {match} %s {_ONCE}) p "
            f"{_ONCE}) q "
            "WHERE q.score > 0 ORDER BY q.score DESC, q.pk LIMIT %s) s "
            "JOIN memories m ON m.user_id = %s AND m.pk = s.pk ORDER BY s.score DESC, s.pk",
            (
                *part_args,
                *freq_args,
                *scored,
                *params,
                *fparams,
                [user_key(view.user_id)],
                list(group) if every_term else scored,
                limit,
                view.user_id,
            ),
        ).fetchall()
        out: list[tuple[MemoryEntry, float]] = []
        for row in rows:
            found = row_to_entry(row)
            if view.sees(found):
                out.append((found, float(row[-1])))
        return out

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
        *,
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
                conn,
                view,
                flt,
                scored,
                idfs=idfs,
                every_term=every_term,
                limit=2 * limit + 20,
                weights=weights,
                avg=avg,
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
        *,
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
        positions, freqs, parts, freq_args, part_args = _bm25_sql(terms, idfs, weights, avg)
        match = "@>" if every_term else "&&"
        rows = conn.execute(
            f"SELECT pk FROM (SELECT p.pk, {parts} AS score FROM ("
            f"SELECT m.pk, m.fts_len::float8 AS len, {freqs} FROM memories m, "
            f"LATERAL (SELECT {positions} {_ONCE}) x "
            f"WHERE {where}{fsql} AND m.fts_keys @> %s AND m.fts_keys {match} %s {_ONCE}) p "
            f"{_ONCE}) s "
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


def _bm25_sql(
    terms: Sequence[str], idfs: dict[str, float], weights: KeywordWeights, avg: float
) -> tuple[str, str, str, list[Any], list[Any]]:
    """The SQL pieces that score ``terms`` by BM25 from the stored term frequencies:
    each term's position in ``fts_keys`` (``i<n>``, one ``%s`` per term), its weighted
    frequency (``f<n>``) and the sum of the terms' shares, added in ``bm25_part``'s order;
    with the arguments of the frequencies and of the shares."""
    n_terms = range(len(terms))
    positions = ", ".join(f"array_position(m.fts_keys, %s) AS i{n}" for n in n_terms)
    freqs = ", ".join(
        f"%s::float8 * m.fts_tf_head[i{n}] + %s::float8 * m.fts_tf_body[i{n}] "
        f"+ %s::float8 * m.fts_tf_extra[i{n}] AS f{n}"
        for n in n_terms
    )
    parts = " + ".join(
        f"coalesce(%s::float8 * f{n} * (%s::float8 + 1) "
        f"/ (f{n} + %s::float8 * (1 - %s::float8 + %s::float8 * p.len / %s::float8)), 0)"
        for n in n_terms
    )
    part_args: list[Any] = []
    for term in terms:
        part_args += [idfs[term], BM25_K1, BM25_K1, BM25_B, BM25_B, avg]
    freq_args: list[Any] = [weights.head, weights.body, weights.extra] * len(terms)
    return positions, freqs, parts, freq_args, part_args
