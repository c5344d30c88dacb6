"""The MySQL / MariaDB backend (``mysql://`` and ``mariadb://`` URLs), on PyMySQL.

What MySQL alone does, one concern per module, composed with the SQL written once
(``stores.sql``) into ``MySQLStore``: ``connection`` (URL, a connection per thread,
transactions, timeouts, errors), ``dialect`` (how the shared SQL is spelled and run
here), ``entries`` (what triggers do on the other servers: stale vectors, the vector
log, the keyword terms), ``keyword`` (BM25 in SQL with the view's own statistics),
``vectors`` (BLOBs searched in the application, and the vector log), ``audit``,
``schema`` (the recorded migrations) and ``sql`` (the clauses they share).

PyMySQL is an optional dependency (``pip install 'memvault[mysql]'``); importing
this package without it raises ``ImportError``, which ``open_store`` turns into a
``ConfigError`` saying what to install.
"""

from __future__ import annotations

from ..sql import SQLShared
from .audit import MySQLAudit
from .connection import parse_url
from .dialect import MySQLBase
from .entries import MySQLEntries
from .keyword import MySQLKeywordIndex
from .vectors import MySQLVectors


class MySQLStore(
    MySQLEntries,
    MySQLKeywordIndex,
    MySQLVectors,
    MySQLAudit,
    MySQLBase,
    SQLShared,
):
    """A ``Store`` in one MySQL 8 or MariaDB 10.6+ database."""


__all__ = ["MySQLStore", "parse_url"]
