"""The PostgreSQL backend (``postgresql://…``): psycopg 3 with a connection pool.

One concern per module, as in ``stores/sqlite``: ``connection`` (pool, transactions,
errors, the change listener), ``entries``, ``keyword`` (BM25 with the view's own
statistics over a GIN index), ``vectors``, ``audit`` (originals, reveal, audit log,
erase), ``schema`` (the recorded migrations) and ``sql`` (clauses they share).
The drivers come with the ``postgres`` extra (``pip install 'memvault[postgres]'``).
"""

from __future__ import annotations

from .audit import PostgresAudit
from .entries import PostgresEntries
from .graph import PostgresGraph
from .keyword import PostgresKeywordIndex
from .profiles import PostgresProfiles
from .stats import PostgresStats
from .usage import PostgresUsage
from .vectors import PostgresVectors
from .versions import PostgresVersions
from .workspace import PostgresWorkspace


class PostgresStore(
    PostgresEntries,
    PostgresStats,
    PostgresKeywordIndex,
    PostgresVectors,
    PostgresVersions,
    PostgresAudit,
    PostgresUsage,
    PostgresProfiles,
    PostgresWorkspace,
    PostgresGraph,
):
    """A ``Store`` on one PostgreSQL database."""


__all__ = ["PostgresStore"]
