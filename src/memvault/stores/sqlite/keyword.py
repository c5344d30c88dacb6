"""Keyword search: BM25 with the statistics of the caller's view alone.

It does not use FTS5's ``bm25()``, whose statistics span the whole table (a user's
scores would move when another user stores a word): it computes BM25
(``bm25.bm25_part``) from the index's instance table, with the entries, lengths and
document frequencies of the caller's view only (``keyword_docs`` and
``keyword_stats``, kept by triggers; migration 10).
"""

from __future__ import annotations

import dataclasses
import heapq
import json
import sqlite3
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
from .connection import SQLiteConnection
from .sql import PAGE, SELECT, agents_sql, filter_sql, quote, scope_match, snapshot, view_sql

# Keyword ranking reads a term's occurrences in the instance table (all users') unless
# reading the view's matching entries' tokens is cheaper; one occurrence there costs
# about as much as this many tokens read in Python (measured on LoCoMo and store_bench).
_INSTANCE_SHARE = 6
# From this many scored terms on, the instance rows are summed in Python: the SQL
# evaluates one CASE per term for every row, so its cost grows with rows x terms (a
# 50-term Chinese query took 100 ms there, 15 ms here); with fewer, the SQL is cheaper.
_PYTHON_TERMS = 6


class SQLiteKeywordIndex(SQLiteConnection):
    """BM25 over the full-text index, scored with the view's own statistics."""

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
        scope = scope_match(view, flt)
        with self._read() as conn, snapshot(conn):
            entries, tokens = self._view_stats(conn, view)
            if entries == 0:
                return []
            cutoff = planner.cutoff_for(entries) if planner is not None else 0
            global_df: dict[str, int] | None = None

            def is_common(term: str) -> bool:
                nonlocal global_df
                if cutoff <= 0:
                    return False
                if global_df is None:
                    marks = ", ".join("?" for _ in terms)
                    global_df = dict(
                        conn.execute(
                            f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})", terms
                        ).fetchall()
                    )
                # Rare across the whole table means rare for the caller; only globally
                # common terms are counted within the caller's scope (capped). A phrase
                # is no row of the vocabulary: it is always counted.
                if not is_phrase(term) and global_df.get(term, 0) <= cutoff:
                    return False
                row = conn.execute(
                    "SELECT count(*) FROM (SELECT rowid FROM memories_fts "
                    "WHERE memories_fts MATCH ? LIMIT ?)",
                    (f"{scope} AND {{head body extra}} : {quote(term)}", cutoff + 1),
                ).fetchone()
                return int(row[0]) > cutoff

            groups = planner.plan(terms, is_common) if planner is not None else [(" OR ", terms)]
            if not groups:
                return []
            avg = tokens / entries if tokens else 1.0
            for n, (joiner, group) in enumerate(groups):
                ranked = self._rank(
                    conn,
                    view,
                    flt,
                    group,
                    every_term=joiner == " AND ",
                    limit=limit,
                    weights=weights,
                    entries=entries,
                    avg=avg,
                )
                if ranked or n == len(groups) - 1:
                    break
            found = self._entries_by_pk(conn, view, [pk for pk, _ in ranked])
        return [(found[pk], score) for pk, score in ranked if pk in found]

    @staticmethod
    def _view_stats(conn: sqlite3.Connection, view: View) -> tuple[int, int]:
        """(entries, tokens) inside ``view``, from the trigger-kept ``keyword_stats``."""
        agents, params = agents_sql(view, "s")
        row = conn.execute(
            "SELECT coalesce(sum(entries), 0), coalesce(sum(tokens), 0) "
            f"FROM keyword_stats s WHERE {agents}",
            params,
        ).fetchone()
        return int(row[0]), int(row[1])

    @staticmethod
    def _rank(
        conn: sqlite3.Connection,
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        *,
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        entries: int,
        avg: float,
    ) -> list[tuple[int, float]]:
        """(pk, score) of the best ``limit`` entries holding any (or every) term of ``group``.

        Term frequencies come from the index's instance table (where each term occurs),
        each term's document frequency from a count inside the view (unfiltered),
        entries and average length from ``keyword_stats``, lengths from
        ``keyword_docs``: nothing of another user enters a score. The score is
        ``bm25.bm25_part`` summed over the terms.
        """
        scope = scope_match(view, NO_FILTER)
        idf: list[Any] = []
        view_docs = 0
        phrases: list[tuple[int, str, str, int]] = []  # (pk, phrase, column, occurrences)
        phrase_df: dict[str, int] = {}
        for term in group:
            if is_phrase(term):
                found = _phrase_rows(conn, view, scope, term)
                phrases += found
                phrase_df[term] = len({pk for pk, *_ in found})
        if len(group) >= _PYTHON_TERMS and _rows_count(flt):
            many = SQLiteKeywordIndex._rank_many(
                conn,
                view,
                flt,
                group,
                every_term=every_term,
                limit=limit,
                weights=weights,
                entries=entries,
                avg=avg,
                phrases=(phrases, phrase_df),
            )
            if many is not None:
                return many
        for term in group:
            if is_phrase(term):
                df = phrase_df[term]
            else:
                df = conn.execute(
                    "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                    (f"{scope} AND {{head body extra}} : {quote(term)}",),
                ).fetchone()[0]
            if df:
                weight = phrase_weight(term, weights) if is_phrase(term) else 1.0
                idf += [term, bm25_idf(entries, int(df)) * weight]
                view_docs += int(df)
        if not idf:
            return []
        scored = idf[::2]
        # Two ways to the same numbers. The instance table lists a term's occurrences in
        # every user's entries; when the view holds few of them, reading the tokens of the
        # view's matching entries is cheaper (the choice depends on others' data, the
        # scores do not: both add the same numbers in the same order).
        marks = ", ".join("?" for _ in scored)
        occurrences = conn.execute(
            f"SELECT coalesce(sum(cnt), 0) FROM memories_vocab WHERE term IN ({marks})", scored
        ).fetchone()[0]
        if occurrences * _INSTANCE_SHARE > view_docs * avg:
            return SQLiteKeywordIndex._rank_from_tokens(
                conn,
                view,
                flt,
                group,
                every_term=every_term,
                limit=limit,
                weights=weights,
                scored=scored,
                idfs=idf[1::2],
                avg=avg,
                phrases=phrases,
            )
        if len(scored) >= _PYTHON_TERMS:
            return SQLiteKeywordIndex._rank_instances(
                conn,
                view,
                flt,
                group,
                every_term=every_term,
                limit=limit,
                weights=weights,
                scored=scored,
                idfs=idf[1::2],
                avg=avg,
                phrases=phrases,
            )
        agents, aparams = agents_sql(view, "k")
        fsql, _ = filter_sql(flt)
        phrase_sql, phrase_args = "", []
        if phrases:  # the phrases' counts, found in the tokens, join the instance rows
            phrase_sql = """
                    UNION ALL
                    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),
                        CASE json_extract(value, '$[2]') WHEN 'head' THEN ? WHEN 'body' THEN ?
                        ELSE ? END * json_extract(value, '$[3]')
                    FROM json_each(?)"""
            phrase_args = [weights.head, weights.body, weights.extra, json.dumps(phrases)]
        # One row per document: each term's column-weighted count, then the sum of the
        # terms' shares in query order (bm25_part, operation for operation).
        freqs = ", ".join(
            f"total(CASE WHEN term = ? THEN w END) AS f{i}" for i in range(len(scored))
        )
        parts = " + ".join(
            f"? * h.f{i} * (? + 1) / (h.f{i} + ? * (1 - ? + ? * k.len / ?))"
            for i in range(len(scored))
        )
        having = ""
        if every_term:  # every term of the group is in the entry (whatever its weight)
            freqs += ", " + " + ".join("max(term = ?)" for _ in scored) + " AS present"
            having = f" AND h.present = {len(group)}"
        part_args: list[Any] = []
        for i in range(len(scored)):
            part_args += [idf[2 * i + 1], BM25_K1, BM25_K1, BM25_B, BM25_B, avg]

        def best(joined: bool, rows: int) -> list[tuple[int, float]]:
            """The best ``rows`` of the view, the filter checked on each entry (joined)
            or not at all."""
            filtered, fparams = "", []
            if joined:  # filters the instance table cannot see, checked on the entry
                where, wparams = view_sql(view)
                fsql, fargs = filter_sql(flt)
                filtered = f"CROSS JOIN memories m ON m.pk = h.doc AND {where}{fsql}"
                fparams = [*wparams, *fargs]
            sql = f"""
            SELECT h.doc, {parts} AS score
            FROM (
                SELECT doc, {freqs}
                FROM (
                    SELECT doc, term, CASE col WHEN 'head' THEN ? WHEN 'body' THEN ? ELSE ? END AS w
                    FROM memories_inst
                    WHERE term IN ({marks}) AND col IN ('head', 'body', 'extra'){phrase_sql}
                )
                GROUP BY doc
            ) h CROSS JOIN keyword_docs k ON k.pk = h.doc {filtered}
            WHERE {agents} AND score > 0{having}
            ORDER BY score DESC, h.doc
            LIMIT ?
            """
            args = (
                *part_args,
                *scored,
                *(scored if every_term else ()),
                weights.head,
                weights.body,
                weights.extra,
                *scored,
                *phrase_args,
                *fparams,
                *aparams,
                rows,
            )
            return [(int(pk), float(s)) for pk, s in conn.execute(sql, args).fetchall()]

        if not fsql or not _rows_count(flt):
            return best(bool(fsql), limit)
        # Moments only: the best page unfiltered, the filter read for those entries; a
        # filter that leaves out more than the page is joined after all.
        page = min(max(2 * limit, 64), PAGE)
        first = best(False, page)
        kept = _passing(conn, flt, first, limit)
        if len(kept) == limit or len(first) < page:
            return kept
        return best(True, limit)

    @staticmethod
    def _rank_many(
        conn: sqlite3.Connection,
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        *,
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        entries: int,
        avg: float,
        phrases: tuple[list[tuple[int, str, str, int]], dict[str, int]],
    ) -> list[tuple[int, float]] | None:
        """``_rank`` for a group of many terms, without a count per term: the instance
        rows of the view's entries say how many of them hold each term, so the
        document frequencies come with the rows (a long Chinese query has dozens of
        terms, and their counts were a fifth of its search). None when the stored
        tokens are the cheaper way, or when the view holds less than half the table
        (the caller then counts, as for few terms, and chooses by the view's counts).

        The choice reads the whole table's document counts (``memories_vocab``), each
        capped at the view's size, in place of the view's own: it depends on other
        users' data, the scores never do."""
        found, phrase_df = phrases  # the phrases' rows and counts (``_rank`` read them)
        table = conn.execute("SELECT coalesce(sum(entries), 0) FROM keyword_stats").fetchone()
        if entries * 2 < int(table[0]):
            # The view is a small part of the table: its own counts tell the two ways'
            # costs apart (the stored tokens are often cheaper), which the table's
            # counts cannot.
            return None
        plain = [t for t in group if not is_phrase(t)]
        occurrences, docs = 0, sum(phrase_df.values())
        if plain:
            marks = ", ".join("?" for _ in plain)
            row = conn.execute(
                "SELECT coalesce(sum(cnt), 0), coalesce(sum(min(doc, ?)), 0) "
                f"FROM memories_vocab WHERE term IN ({marks})",
                (entries, *plain),
            ).fetchone()
            occurrences, docs = int(row[0]), docs + int(row[1])
        if occurrences * _INSTANCE_SHARE > docs * avg:
            return None
        return SQLiteKeywordIndex._rank_instances(
            conn,
            view,
            flt,
            group,
            every_term=every_term,
            limit=limit,
            weights=weights,
            scored=group,
            idfs=None,
            avg=avg,
            phrases=found,
            entries=entries,
            phrase_df=phrase_df,
        )

    @staticmethod
    def _rank_instances(
        conn: sqlite3.Connection,
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        *,
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        scored: Sequence[str],
        idfs: Sequence[float] | None,
        avg: float,
        phrases: Sequence[tuple[int, str, str, int]] = (),
        entries: int = 0,
        phrase_df: dict[str, int] | None = None,
    ) -> list[tuple[int, float]]:
        """``_rank``'s SQL, its sums done here: the same instance rows (the view's, as
        its join keeps them) and phrase counts, each term's count added in the same
        order (a column's weights, then the phrases') and the terms' shares summed in
        query order, so the scores are identical to the last bit.

        ``idfs`` None: ``scored`` is the whole group, and each term's document frequency
        is the number of the view's entries its rows name (``phrase_df`` for phrases),
        as ``_rank`` counts it; terms in none drop out, as there. A filter of moments
        only (expiry, supersession: :func:`_rows_count`) is checked after scoring, on
        the best entries, not joined to every row (it reads the entry's row, long
        content and all)."""
        agents, aparams = agents_sql(view, "k")
        fsql, fparams = filter_sql(flt)
        later = bool(fsql) and _rows_count(flt)
        filtered = ""
        if fsql and not later:  # as in ``_rank``: what the instance table cannot see
            where, wparams = view_sql(view)
            filtered = f" CROSS JOIN memories m ON m.pk = k.pk AND {where}{fsql}"
            fparams = [*wparams, *fparams]
        elif later:
            fparams = []
        plain = [t for t in scored if not is_phrase(t)]
        marks = ", ".join("?" for _ in plain)
        rows = (
            conn.execute(
                "SELECT i.doc, i.term, i.col, k.len FROM memories_inst i "
                f"CROSS JOIN keyword_docs k ON k.pk = i.doc{filtered} "
                f"WHERE i.term IN ({marks}) AND i.col IN ('head', 'body', 'extra') AND {agents}",
                (*fparams, *plain, *aparams),
            ).fetchall()
            if plain
            else []
        )
        if idfs is None:
            scored, idfs = _frequencies(scored, rows, phrase_df or {}, entries, weights)
            if not scored:
                return []
        slot = {t: i for i, t in enumerate(scored)}
        weight_of = {"head": weights.head, "body": weights.body, "extra": weights.extra}
        n = len(scored)
        # Per entry, each term's count (None: the term is not in it) and its length.
        counts: dict[int, list[float | None]] = {}
        lengths: dict[int, int] = {}
        for doc, term, col, length in rows:
            i = slot.get(term)
            if i is None:
                continue  # in no entry of the view
            found = counts.get(doc)
            if found is None:
                found = counts[doc] = [None] * n
                lengths[doc] = length
            count = found[i]
            found[i] = weight_of[col] if count is None else count + weight_of[col]
        if phrases:
            alone = sorted({pk for pk, *_ in phrases} - lengths.keys())
            for start in range(0, len(alone), PAGE):  # the entries only a phrase found
                chunk = alone[start : start + PAGE]
                pks = ", ".join("?" for _ in chunk)
                lengths.update(
                    conn.execute(
                        f"SELECT k.pk, k.len FROM keyword_docs k{filtered} "
                        f"WHERE k.pk IN ({pks}) AND {agents}",
                        (*fparams, *chunk, *aparams),
                    ).fetchall()
                )
            for doc, phrase, col, occurrences in phrases:
                if doc not in lengths or phrase not in slot:
                    continue  # outside the view (another agent's) or the filter
                found = counts.get(doc)
                if found is None:
                    found = counts[doc] = [None] * n
                i = slot[phrase]
                count = found[i]
                added = weight_of[col] * occurrences
                found[i] = added if count is None else count + added
        ranked: list[tuple[int, float]] = []
        for doc, found in counts.items():
            if every_term and sum(c is not None for c in found) < len(group):
                continue
            score = 0.0
            length = lengths[doc]
            for i, freq in enumerate(found):
                if freq is not None:
                    score += bm25_part(idfs[i], freq, length, avg)
            if score > 0:
                ranked.append((doc, score))
        if later:
            return _passing(conn, flt, ranked, limit)
        return heapq.nsmallest(limit, ranked, key=lambda p: (-p[1], p[0]))

    @staticmethod
    def _rank_from_tokens(
        conn: sqlite3.Connection,
        view: View,
        flt: EntryFilter,
        group: Sequence[str],
        *,
        every_term: bool,
        limit: int,
        weights: KeywordWeights,
        scored: Sequence[str],
        idfs: Sequence[float],
        avg: float,
        phrases: Sequence[tuple[int, str, str, int]] = (),
    ) -> list[tuple[int, float]]:
        """``_rank`` from the stored tokens of the view's matching entries, adding the
        same numbers in the same order as its SQL (so both give identical scores);
        ``phrases`` are the phrase terms' occurrences (``_phrase_rows``)."""
        joiner = " AND " if every_term else " OR "
        wanted = joiner.join(quote(t) for t in group)
        match = f"{scope_match(view, flt)} AND {{head body extra}} : ({wanted})"
        where, params = view_sql(view)
        fsql, fparams = filter_sql(flt)
        rows = conn.execute(
            "SELECT r.pk, k.len, m.fts_head, m.fts_body, m.fts_extra FROM ("
            "  SELECT rowid AS pk FROM memories_fts WHERE memories_fts MATCH ?"
            ") r CROSS JOIN memories m ON m.pk = r.pk CROSS JOIN keyword_docs k ON k.pk = r.pk "
            f"WHERE {where}{fsql}",
            (match, *params, *fparams),
        ).fetchall()
        slot = {t: i for i, t in enumerate(scored)}
        col_weights = (weights.head, weights.body, weights.extra)
        weight_of = dict(zip(("head", "body", "extra"), col_weights, strict=True))
        in_phrases: dict[int, list[tuple[int, float]]] = {}
        for doc, phrase, col, count in phrases:
            in_phrases.setdefault(doc, []).append((slot[phrase], weight_of[col] * count))
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
            for i, counted in in_phrases.get(pk, ()):
                freqs[i] += counted
                seen[i] = True
            if every_term and sum(seen) < len(group):
                continue
            score = 0.0
            for i, freq in enumerate(freqs):
                if seen[i]:
                    score += bm25_part(idfs[i], freq, length, avg)
            if score > 0:
                ranked.append((int(pk), score))
        ranked.sort(key=lambda p: (-p[1], p[0]))
        return ranked[:limit]

    @staticmethod
    def _entries_by_pk(
        conn: sqlite3.Connection, view: View, pks: Sequence[int]
    ) -> dict[int, MemoryEntry]:
        """The entries with these row ids inside ``view``.

        ``+m.user_id``: look rows up by pk, not by walking the user's index range."""
        out: dict[int, MemoryEntry] = {}
        for start in range(0, len(pks), PAGE):
            chunk = pks[start : start + PAGE]
            marks = ", ".join("?" for _ in chunk)
            rows = conn.execute(
                f"SELECT {SELECT}, m.pk FROM memories m WHERE m.pk IN ({marks}) AND +m.user_id = ?",
                (*chunk, view.user_id),
            ).fetchall()
            for row in rows:
                found = row_to_entry(row)
                if view.sees(found):
                    out[int(row[-1])] = found
        return out


def _rows_count(flt: EntryFilter) -> bool:
    """Whether the instance rows of the view, unfiltered, are what ``flt`` leaves to
    score: it holds only moments (expiry, supersession, existence) and at most "not
    held", which nearly every entry passes, so the few it leaves out are found among
    the best after scoring (``_passing``) instead of on every row. Scores never depend
    on the filter (a term's document frequency is the view's), so the order is the
    same either way."""
    return dataclasses.replace(flt.timeless(), quarantined=None) == NO_FILTER


def _passing(
    conn: sqlite3.Connection, flt: EntryFilter, ranked: list[tuple[int, float]], limit: int
) -> list[tuple[int, float]]:
    """The best ``limit`` of ``ranked`` that pass ``flt``, best first (ties by pk), the
    filter read for a page of the best at a time."""
    fsql, fparams = filter_sql(flt)

    def key(p: tuple[int, float]) -> tuple[float, int]:
        return (-p[1], p[0])

    page = min(max(2 * limit, 64), PAGE)
    order = heapq.nsmallest(page, ranked, key=key)  # the first page of the whole order
    whole = len(order) == len(ranked)
    out: list[tuple[int, float]] = []
    start = 0
    while len(out) < limit:
        if start >= len(order):
            if whole:
                break
            order, whole = sorted(ranked, key=key), True  # the filter left out a page
            continue
        chunk = order[start : start + page]
        marks = ", ".join("?" for _ in chunk)
        kept = {
            int(pk)
            for (pk,) in conn.execute(
                f"SELECT m.pk FROM memories m WHERE m.pk IN ({marks}){fsql}",
                (*(pk for pk, _ in chunk), *fparams),
            )
        }
        out += [p for p in chunk if p[0] in kept]
        start += len(chunk)
    return out[:limit]


def _frequencies(
    group: Sequence[str],
    rows: Sequence[tuple[int, str, str, int]],
    phrase_df: dict[str, int],
    entries: int,
    weights: KeywordWeights,
) -> tuple[list[str], list[float]]:
    """The terms of ``group`` found in the view, in query order, and their weighted
    idfs, as ``_rank`` computes them: each plain term's document frequency is the
    number of distinct entries its instance rows (the view's, unfiltered) name."""
    docs: dict[str, set[int]] = {}
    for doc, term, _col, _len in rows:
        docs.setdefault(term, set()).add(doc)
    scored: list[str] = []
    idfs: list[float] = []
    for term in group:
        df = phrase_df.get(term, 0) if is_phrase(term) else len(docs.get(term, ()))
        if df:
            weight = phrase_weight(term, weights) if is_phrase(term) else 1.0
            scored.append(term)
            idfs.append(bm25_idf(entries, df) * weight)
    return scored, idfs


def _phrase_rows(
    conn: sqlite3.Connection, view: View, scope: str, phrase: str
) -> list[tuple[int, str, str, int]]:
    """(pk, phrase, column, occurrences) for each column of the view's entries that
    holds ``phrase``: FTS5 finds the entries, their stored tokens give the counts (the
    instance table has no rows for a phrase)."""
    rows = conn.execute(
        "SELECT m.pk, m.fts_head, m.fts_body, m.fts_extra FROM ("
        "  SELECT rowid AS pk FROM memories_fts WHERE memories_fts MATCH ?"
        ") r CROSS JOIN memories m ON m.pk = r.pk WHERE +m.user_id = ?",
        (f"{scope} AND {{head body extra}} : {quote(phrase)}", view.user_id),
    ).fetchall()
    count = phrase_counter(phrase)
    found: list[tuple[int, str, str, int]] = []
    for pk, *columns in rows:
        for col, text in zip(("head", "body", "extra"), columns, strict=True):
            n = count(text)
            if n:
                found.append((int(pk), phrase, col, n))
    return found
