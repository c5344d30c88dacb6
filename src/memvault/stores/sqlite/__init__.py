"""The embedded default backend: one SQLite file in WAL mode.

One concern per module, composed into ``SQLiteStore``: ``connection`` (opening,
WAL, per-thread readers, write transactions), ``entries``, ``keyword`` (BM25 with
the view's own statistics), ``vectors``, ``audit`` (originals, reveal, audit log,
erase), ``schema`` (the recorded migrations) and ``sql`` (view and filter clauses
they share). A new SQL backend copies this shape.
"""

from __future__ import annotations

from .audit import SQLiteAudit
from .connection import create_private
from .entries import SQLiteEntries
from .graph import SQLiteGraph
from .keyword import SQLiteKeywordIndex
from .profiles import SQLiteProfiles
from .sql import scope_tokens
from .stats import SQLiteStats
from .usage import SQLiteUsage
from .vectors import SQLiteVectors
from .versions import SQLiteVersions
from .workspace import SQLiteWorkspace


class SQLiteStore(
    SQLiteEntries,
    SQLiteStats,
    SQLiteKeywordIndex,
    SQLiteVectors,
    SQLiteVersions,
    SQLiteAudit,
    SQLiteUsage,
    SQLiteProfiles,
    SQLiteWorkspace,
    SQLiteGraph,
):
    """A ``Store`` on one SQLite file (or ``":memory:"``)."""


__all__ = ["SQLiteStore", "create_private", "scope_tokens"]
