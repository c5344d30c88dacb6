"""The MySQL / MariaDB backend (``mysql://`` and ``mariadb://`` URLs), on PyMySQL.

The same shape as ``stores/sqlite``, one concern per module, composed into
``MySQLStore``: ``connection`` (URL, a connection per thread, transactions,
timeouts, errors), ``entries``, ``keyword`` (FULLTEXT candidates, BM25 with the
view's own statistics), ``vectors`` (BLOBs searched in the application, and the
vector log), ``audit`` (originals, reveal, audit log, erase), ``schema`` (the
recorded migrations) and ``sql`` (the clauses they share).

PyMySQL is an optional dependency (``pip install 'memvault[mysql]'``); importing
this package without it raises ``ImportError``, which ``open_store`` turns into a
``ConfigError`` saying what to install.
"""

from __future__ import annotations

from .audit import MySQLAudit
from .connection import parse_url
from .entries import MySQLEntries
from .graph import MySQLGraph
from .keyword import MySQLKeywordIndex
from .profiles import MySQLProfiles
from .stats import MySQLStats
from .usage import MySQLUsage
from .vectors import MySQLVectors
from .versions import MySQLVersions
from .workspace import MySQLWorkspace


class MySQLStore(
    MySQLEntries,
    MySQLStats,
    MySQLKeywordIndex,
    MySQLVectors,
    MySQLVersions,
    MySQLAudit,
    MySQLUsage,
    MySQLProfiles,
    MySQLWorkspace,
    MySQLGraph,
):
    """A ``Store`` in one MySQL 8 or MariaDB 10.6+ database."""


__all__ = ["MySQLStore", "parse_url"]
