"""SQL fragments every part of the MySQL store shares: the entry columns, and the
WHERE clauses that keep a query inside a view and its filters (``%s`` placeholders,
as PyMySQL takes them). Every statement filters on ``user_id``."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any

from ..bm25 import term_frequencies
from ..rows import ENTRY_COLUMNS
from ..sql.clauses import agents_clause, filter_clause, view_clause
from ..values import EntryFilter, SearchDoc, View

SELECT = ", ".join(f"m.{c}" for c in ENTRY_COLUMNS)
PAGE = 500


def view_sql(view: View) -> tuple[str, list[Any]]:
    """The WHERE clause (table alias ``m``) that keeps a query inside ``view``."""
    return view_clause(view, "%s")


def filter_sql(flt: EntryFilter) -> tuple[str, list[Any]]:
    return filter_clause(flt, "%s")


def agents_sql(view: View, alias: str) -> tuple[str, list[Any]]:
    return agents_clause(view, alias, "%s")


#: The longest term ``keyword_terms`` holds as it is (its column is VARCHAR of this).
TERM_CHARS = 200
TERM_COLUMNS = ("user_id", "term", "entry_id", "agent", "tf_head", "tf_body", "tf_extra")
INSERT_TERMS = (
    f"INSERT INTO keyword_terms ({', '.join(TERM_COLUMNS)}) "
    f"VALUES ({', '.join('%s' for _ in TERM_COLUMNS)})"
)


def term_key(term: str) -> str:
    """How ``keyword_terms`` names a term: itself, or for a longer one than the column
    holds, its start and a digest (tokens are word characters, so no token is ever
    spelled like a digested key)."""
    if len(term) <= TERM_CHARS:
        return term
    digest = hashlib.blake2b(term.encode(), digest_size=16).hexdigest()
    return f"{term[: TERM_CHARS - 40]}#{digest}"


def term_rows(
    user_id: str, entry_id: str, agent_id: str | None, doc: SearchDoc
) -> list[tuple[Any, ...]]:
    """The ``keyword_terms`` rows of an entry with the tokens ``doc``: one per distinct
    index-form token, with its counts in the three columns (``TERM_COLUMNS``)."""
    agent = agent_id or ""
    return [
        (user_id, term_key(term), entry_id, agent, *counts)
        for term, counts in term_frequencies(doc).items()
    ]


def chunks(ids: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """``ids`` in pages, each with its ``%s, %s, ...`` list."""
    for start in range(0, len(ids), PAGE):
        chunk = list(ids[start : start + PAGE])
        yield chunk, ", ".join("%s" for _ in chunk)


def log_vectors(cur: Any, user_id: str, entry_ids: Sequence[str]) -> None:
    """Append "these entries' vectors changed" to the vector log, in commit order.

    The head row's lock is held until the transaction ends, so log positions are
    handed out in the order transactions commit, and a reader that saw position n
    has seen every change before it.
    """
    if not entry_ids:
        return
    cur.execute("SELECT seq FROM vector_log_head WHERE id = 1 FOR UPDATE")
    head = int(cur.fetchone()[0])
    rows = [(head + i + 1, user_id, entry_id) for i, entry_id in enumerate(entry_ids)]
    cur.execute("UPDATE vector_log_head SET seq = %s WHERE id = 1", (head + len(rows),))
    cur.executemany("INSERT INTO vector_log (seq, user_id, entry_id) VALUES (%s, %s, %s)", rows)


def with_vectors(cur: Any, user_id: str, entry_ids: Sequence[str]) -> list[str]:
    """Those of ``entry_ids`` that have a stored vector (of any model)."""
    found: list[str] = []
    for chunk, marks in chunks(entry_ids):
        cur.execute(
            f"SELECT entry_id FROM embeddings WHERE user_id = %s AND entry_id IN ({marks})",
            (user_id, *chunk),
        )
        found += [r[0] for r in cur.fetchall()]
    return found
