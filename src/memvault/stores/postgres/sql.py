"""SQL fragments the parts of the PostgreSQL store share: the entry columns, the
WHERE clauses that keep a query inside a view and its filters, and the keyword keys.

Scope is enforced in every statement by ``user_id`` (the first column of every key);
the keyword keys carry the owner's scope key as well, so a GIN lookup of a term
intersects it with the caller's rows instead of walking every user's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any

from ...model import MemoryEntry
from ..bm25 import doc_length, index_form
from ..rows import ENTRY_COLUMNS, entry_to_row
from ..sql.clauses import filter_clause, view_clause
from ..values import EntryFilter, SearchDoc, View

SELECT = ", ".join(f"m.{c}" for c in ENTRY_COLUMNS)
_WRITE_COLUMNS = (
    *ENTRY_COLUMNS,
    "fts_head",
    "fts_body",
    "fts_extra",
    "fts_keys",
    "fts_len",
    "fts_tf_head",
    "fts_tf_body",
    "fts_tf_extra",
)
# The statements that write an entry, for a schema with the term frequencies of
# migration 7 (True) and for one opened at an older version (False, tests of old data).
_TF = 3
COPY_SQL = {
    full: f"COPY memories ({', '.join(_WRITE_COLUMNS[: None if full else -_TF])}) FROM STDIN"
    for full in (True, False)
}
UPDATE_SQL = {
    full: "UPDATE memories SET "
    + ", ".join(f"{c} = %s" for c in _WRITE_COLUMNS[: None if full else -_TF])
    + " WHERE user_id = %s AND id = %s"
    for full in (True, False)
}
PAGE = 500


def user_key(user_id: str) -> str:
    """The owner's key among an entry's keyword keys. Tokens never hold a space, so a
    key that starts with one can never equal a token."""
    return " u" + hashlib.blake2b(user_id.encode(), digest_size=10).hexdigest()


def keyword_keys(entry: MemoryEntry, doc: SearchDoc) -> list[str]:
    """What the GIN index holds for an entry: its owner's key, then its distinct tokens
    in index form (as ``bm25.index_form`` compares them)."""
    tokens = f"{doc.head} {doc.body} {doc.extra}".split()
    return [user_key(entry.user_id), *dict.fromkeys(index_form(t) for t in tokens)]


def term_counts(keys: Sequence[str], doc: SearchDoc) -> tuple[list[int], ...]:
    """How often each of ``keys`` occurs in the head, body and extra text (index forms
    compared), as three lists parallel to ``keys``: BM25's term frequencies, so the
    server can score an entry without its text."""
    slot = {k: i for i, k in enumerate(keys)}
    counts = ([0] * len(keys), [0] * len(keys), [0] * len(keys))
    for column, text in zip(counts, (doc.head, doc.body, doc.extra), strict=True):
        for token in text.split():
            i = slot.get(index_form(token))
            if i is not None:
                column[i] += 1
    return counts


def write_row(entry: MemoryEntry, doc: SearchDoc, full: bool = True) -> tuple[Any, ...]:
    """The values of a ``COPY_SQL[full]`` row / the first part of ``UPDATE_SQL[full]``."""
    keys = keyword_keys(entry, doc)
    return (
        *entry_to_row(entry),
        doc.head,
        doc.body,
        doc.extra,
        keys,
        doc_length(doc),
        *(term_counts(keys, doc) if full else ()),
    )


def view_sql(view: View) -> tuple[str, list[Any]]:
    """The WHERE clause (table alias ``m``) that keeps a query inside ``view``."""
    return view_clause(view, "%s")


def filter_sql(flt: EntryFilter) -> tuple[str, list[Any]]:
    return filter_clause(flt, "%s")


def agents_sql(view: View, alias: str) -> tuple[str, list[Any]]:
    """The WHERE clause on ``keyword_stats`` (user_id, agent) that keeps to ``view``."""
    if view.all_agents:
        return f"{alias}.user_id = %s", [view.user_id]
    if view.agent_id is None:
        return f"{alias}.user_id = %s AND {alias}.agent = ''", [view.user_id]
    return f"{alias}.user_id = %s AND {alias}.agent IN ('', %s)", [view.user_id, view.agent_id]


def chunks(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` in pages, so one statement never carries an unbounded array."""
    for start in range(0, len(ids), PAGE):
        yield list(ids[start : start + PAGE])
