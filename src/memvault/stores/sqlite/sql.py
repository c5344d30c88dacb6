"""SQL fragments every part of the SQLite store shares: the entry columns, the
WHERE clauses that keep a query inside a view and its filters, and the FTS5 scope
tokens that do the same inside the full-text index.

Scope is enforced twice: the full-text index carries hashed scope tokens, so a
MATCH only ever walks the caller's rows, and every query also filters on
``user_id`` in SQL.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...model import MemoryEntry
from ..rows import ENTRY_COLUMNS
from ..sql.clauses import agents_clause, filter_clause, view_clause
from ..values import EntryFilter, View

SELECT = ", ".join(f"m.{c}" for c in ENTRY_COLUMNS)
PAGE = 500

# The scope token of a quarantined entry, so recall can leave held entries out inside FTS.
QUARANTINE_TOKEN = "qheld"


def _h(*parts: str) -> str:
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=10).hexdigest()


def user_token(user_id: str) -> str:
    return "u" + _h(user_id)


def shared_token(user_id: str) -> str:
    return "s" + _h(user_id)


def private_token(user_id: str, agent_id: str) -> str:
    return "p" + _h(user_id, agent_id)


def scope_tokens(entry: MemoryEntry) -> str:
    """Tokens of the FTS ``scope`` column: owner, agent space and classification."""
    tokens = [user_token(entry.user_id)]
    if entry.agent_id is None:
        tokens.append(shared_token(entry.user_id))
    else:
        tokens.append(private_token(entry.user_id, entry.agent_id))
    tokens += [
        f"k{entry.kind.value}",
        f"c{entry.mem_class.value}".replace("_", ""),
        f"t{entry.tier.value}",
    ]
    if entry.domain is not None:
        tokens.append(f"d{entry.domain.value}")
    if entry.quarantine is not None:
        tokens.append(QUARANTINE_TOKEN)
    return " ".join(tokens)


def view_sql(view: View, *, by_id: bool = False) -> tuple[str, list[Any]]:
    """The WHERE clause (table alias ``m``) that keeps a query inside ``view``.

    ``by_id``: the query also names entry ids. The agent test is then written
    ``+m.agent_id`` so SQLite looks rows up by the (user_id, id) key instead of
    walking the user's whole (user_id, agent_id) index range (measured: 7 ms
    against 0.3 ms for 50 ids among 10k entries).
    """
    return view_clause(view, "?", agent="+m.agent_id" if by_id else "m.agent_id")


def filter_sql(flt: EntryFilter) -> tuple[str, list[Any]]:
    return filter_clause(flt, "?")


def scope_terms(view: View) -> tuple[str, ...]:
    """The scope tokens whose entries together make up ``view``."""
    if view.all_agents:
        return (user_token(view.user_id),)
    if view.agent_id is None:
        return (shared_token(view.user_id),)
    return (shared_token(view.user_id), private_token(view.user_id, view.agent_id))


def scope_match(view: View, flt: EntryFilter) -> str:
    """The FTS5 expression that restricts a MATCH to the view (and classification filters)."""
    parts = ["scope : (" + " OR ".join(f'"{t}"' for t in scope_terms(view)) + ")"]
    if flt.kind is not None:
        parts.append(f'scope : "k{flt.kind.value}"')
    if flt.mem_class is not None:
        parts.append(f'scope : "c{flt.mem_class.value.replace("_", "")}"')
    if flt.tier is not None:
        parts.append(f'scope : "t{flt.tier.value}"')
    if flt.domain is not None:
        parts.append(f'scope : "d{flt.domain.value}"')
    match = " AND ".join(parts)
    # FTS5's NOT binds tighter than AND, so this reads "(all of the above) and not held".
    if flt.quarantined is True:
        match += f' AND scope : "{QUARANTINE_TOKEN}"'
    elif flt.quarantined is False:
        match += f' NOT scope : "{QUARANTINE_TOKEN}"'
    return match


def chunks(ids: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """``ids`` in pages that fit SQLite's parameter limit, each with its ``?, ?, ...`` list."""
    for start in range(0, len(ids), PAGE):
        chunk = list(ids[start : start + PAGE])
        yield chunk, ", ".join("?" for _ in chunk)


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Run several reads on one snapshot of the database (a read transaction)."""
    if conn.in_transaction:
        yield  # already inside one
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


def agents_sql(view: View, alias: str) -> tuple[str, list[Any]]:
    return agents_clause(view, alias, "?")


def quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'
