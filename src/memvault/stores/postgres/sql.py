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
from ..rows import ENTRY_COLUMNS
from ..sql.clauses import agents_clause, filter_clause, view_clause
from ..values import EntryFilter, SearchDoc, View

SELECT = ", ".join(f"m.{c}" for c in ENTRY_COLUMNS)
#: The keyword index's columns beside an entry's own: with the term frequencies of
#: migration 7 (True), or for a schema opened at an older version (False, tests of old data).
INDEX_COLUMNS = {
    full: ("fts_head", "fts_body", "fts_extra", "fts_keys", "fts_len")
    + (("fts_tf_head", "fts_tf_body", "fts_tf_extra") if full else ())
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


def index_values(entry: MemoryEntry, doc: SearchDoc, full: bool = True) -> tuple[Any, ...]:
    """The values of ``INDEX_COLUMNS[full]``."""
    keys = keyword_keys(entry, doc)
    return (
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
    return agents_clause(view, alias, "%s")


def chunks(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` in pages, so one statement never carries an unbounded array."""
    for start in range(0, len(ids), PAGE):
        yield list(ids[start : start + PAGE])
