"""The advisory lock that serialises one user's reveal bookkeeping on PostgreSQL; the
rest of sensitive data is the shared SQL (``stores.sql.audit``). An erased user's rows
are deleted in one transaction, and PostgreSQL frees their space at the next
(auto)vacuum."""

from __future__ import annotations

from ..sql.audit import SQLAudit
from ..sql.runner import Runner
from .dialect import PostgresBase


class PostgresAudit(PostgresBase, SQLAudit):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    def _hold_user(self, run: Runner, user_id: str) -> None:
        run.rows(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            ("memvault-reveal:" + user_id,),
        )
