"""The PostgreSQL backend (``postgresql://…``): psycopg 3 with a connection pool.

What PostgreSQL alone does, one concern per module, composed with the SQL written once
(``stores.sql``) into ``PostgresStore``: ``connection`` (pool, transactions, errors, the
change listener), ``dialect`` (how the shared SQL is spelled and run here), ``entries``
(keyword keys and term frequencies, written by ``COPY``), ``keyword`` (BM25 with the
view's own statistics over a GIN index), ``vectors`` (pgvector), ``audit`` (the user's
advisory lock), ``schema`` (the recorded migrations) and ``sql`` (clauses they share).
The drivers come with the ``postgres`` extra (``pip install 'memvault[postgres]'``).
"""

from __future__ import annotations

from ..sql import SQLShared
from .audit import PostgresAudit
from .dialect import PostgresBase
from .entries import PostgresEntries
from .keyword import PostgresKeywordIndex
from .vectors import PostgresVectors


class PostgresStore(
    PostgresEntries,
    PostgresKeywordIndex,
    PostgresVectors,
    PostgresAudit,
    PostgresBase,
    SQLShared,
):
    """A ``Store`` on one PostgreSQL database."""


__all__ = ["PostgresStore"]
