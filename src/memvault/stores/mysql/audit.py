"""Erasing a user on MySQL / MariaDB: the vector log told, and the audit log opened for
this session only; the rest of sensitive data is the shared SQL (``stores.sql.audit``).

InnoDB keeps a deleted row's words in the FULLTEXT index's own tables (where no query
can match them) until ``OPTIMIZE TABLE memories`` runs with
innodb_optimize_fulltext_only=ON: see README, Running on MySQL / MariaDB.
"""

from __future__ import annotations

from ..sql.audit import SQLAudit
from ..sql.runner import Runner
from .dialect import MySQLBase
from .sql import log_vectors


class MySQLAudit(MySQLBase, SQLAudit):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    def _erasing(self, run: Runner, user_id: str) -> None:
        vectors = run.rows("SELECT entry_id FROM embeddings WHERE user_id = %s", (user_id,))
        log_vectors(run.raw, user_id, [r[0] for r in vectors])

    def _erasing_audit(self, run: Runner, user_id: str) -> None:
        # The audit log refuses deletes except of the user this session erases.
        run.run("SET @memvault_erasing = %s", (user_id,))
        try:
            run.run("DELETE FROM audit_log WHERE user_id = %s", (user_id,))
        finally:
            run.run("SET @memvault_erasing = NULL")
