"""Erasing a user on MySQL / MariaDB: the vector log told, and the audit log opened for
this session only; the rest of sensitive data is the shared SQL (``stores.sql.audit``).
An entry's keyword terms are rows of ``keyword_terms`` that go with it (cascade); there
is no FULLTEXT index keeping deleted words in tables of its own (migration 10).
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
