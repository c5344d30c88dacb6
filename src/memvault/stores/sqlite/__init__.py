"""The embedded default backend: one SQLite file in WAL mode.

What SQLite alone does, one concern per module, composed with the SQL written once
(``stores.sql``) into ``SQLiteStore``: ``connection`` (opening, WAL, per-thread readers,
write transactions), ``dialect`` (how the shared SQL is spelled and run here),
``entries``, ``keyword`` (BM25 over FTS5 with the view's own statistics), ``vectors``,
``audit`` (erasing a user without leaving the text in the file), ``schema`` (the
recorded migrations) and ``sql`` (the FTS5 scope tokens and clauses they share).
"""

from __future__ import annotations

from ..sql import SQLShared
from .audit import SQLiteAudit
from .connection import create_private
from .dialect import SQLiteBase
from .entries import SQLiteEntries
from .keyword import SQLiteKeywordIndex
from .sql import scope_tokens
from .vectors import SQLiteVectors


class SQLiteStore(
    SQLiteEntries,
    SQLiteKeywordIndex,
    SQLiteVectors,
    SQLiteAudit,
    SQLiteBase,
    SQLShared,
):
    """A ``Store`` on one SQLite file (or ``":memory:"``)."""


__all__ = ["SQLiteStore", "create_private", "scope_tokens"]
