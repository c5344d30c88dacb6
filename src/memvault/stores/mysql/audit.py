"""Sensitive data: sealed originals, reveal state and secrets, the append-only audit
log, and erasing a user."""

from __future__ import annotations

from typing import Any

from ..rows import format_time, reveal_state
from ..sql.clauses import audit_query, audit_record
from ..sql.graph import GRAPH_TABLES
from ..sql.workspace import WORKSPACE_TABLES
from ..values import AuditRecord, RevealChange, RevealState
from .connection import MySQLConnection
from .sql import log_vectors


def _append(cur: Any, record: AuditRecord) -> None:
    cur.execute(
        "INSERT INTO audit_log (at, user_id, entry_id, actor, action, outcome, detail) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (
            format_time(record.at),
            record.user_id,
            record.entry_id,
            record.actor,
            record.action,
            record.outcome,
            record.detail,
        ),
    )


class MySQLAudit(MySQLConnection):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        with self._read() as cur:
            cur.execute(
                "SELECT sealed FROM originals WHERE user_id = %s AND entry_id = %s",
                (user_id, entry_id),
            )
            row = cur.fetchone()
        return None if row is None else bytes(row[0])

    def change_reveal(
        self, user_id: str, entry_id: str | None, change: RevealChange
    ) -> RevealState:
        with self._write("reveal bookkeeping") as cur:
            # The user's row exists before it is locked, so two first attempts queue on
            # it instead of deadlocking on the gap where it would go.
            cur.execute("INSERT IGNORE INTO reveal_users (user_id) VALUES (%s)", (user_id,))
            cur.execute(
                "SELECT failures, first_failure_at, locked_at FROM reveal_users "
                "WHERE user_id = %s FOR UPDATE",
                (user_id,),
            )
            user = cur.fetchone()
            grant = None
            if entry_id is not None:
                cur.execute(
                    "SELECT granted_until, version FROM reveal_grants "
                    "WHERE user_id = %s AND entry_id = %s FOR UPDATE",
                    (user_id, entry_id),
                )
                grant = cur.fetchone()
            current = reveal_state(user, grant)
            new, record = change(current)
            cur.execute(
                "UPDATE reveal_users SET failures = %s, first_failure_at = %s, locked_at = %s "
                "WHERE user_id = %s",
                (
                    new.failures,
                    format_time(new.first_failure_at),
                    format_time(new.locked_at),
                    user_id,
                ),
            )
            if entry_id is not None:
                if new.granted_until is None or new.granted_version is None:
                    cur.execute(
                        "DELETE FROM reveal_grants WHERE user_id = %s AND entry_id = %s",
                        (user_id, entry_id),
                    )
                else:
                    cur.execute(
                        "REPLACE INTO reveal_grants (user_id, entry_id, granted_until, version) "
                        "VALUES (%s, %s, %s, %s)",
                        (user_id, entry_id, format_time(new.granted_until), new.granted_version),
                    )
            _append(cur, record)
            return new

    def append_audit(self, record: AuditRecord) -> None:
        with self._write("the audit write") as cur:
            _append(cur, record)

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        sql, params = audit_query(user_id, entry_id, limit, after, "%s")
        with self._read() as cur:
            cur.execute(sql, params)
            rows = cur.fetchall()
        return [audit_record(r) for r in rows]

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        with self._read() as cur:
            cur.execute("SELECT salt, digest FROM reveal_secrets WHERE user_id = %s", (user_id,))
            row = cur.fetchone()
        return None if row is None else (bytes(row[0]), bytes(row[1]))

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        with self._write("saving the reveal challenge") as cur:
            cur.execute(
                "REPLACE INTO reveal_secrets (user_id, salt, digest) VALUES (%s, %s, %s)",
                (user_id, bytes(salt), bytes(digest)),
            )
            cur.execute("DELETE FROM reveal_grants WHERE user_id = %s", (user_id,))

    def erase_user(self, user_id: str) -> list[str]:
        # The vector log keeps its (user, entry id) rows: other processes read them to
        # drop the erased vectors from memory, and the log is pruned as it grows.
        # InnoDB keeps a deleted row's words in the FULLTEXT index's own tables (where
        # no query can match them) until ``OPTIMIZE TABLE memories`` runs with
        # innodb_optimize_fulltext_only=ON: see README, Running on MySQL / MariaDB.
        with self._write("erasing the user") as cur:
            cur.execute("SELECT id FROM memories WHERE user_id = %s ORDER BY id", (user_id,))
            ids = [r[0] for r in cur.fetchall()]
            cur.execute("SELECT entry_id FROM embeddings WHERE user_id = %s", (user_id,))
            vectors = [r[0] for r in cur.fetchall()]
            log_vectors(cur, user_id, vectors)
            cur.execute("DELETE FROM memories WHERE user_id = %s", (user_id,))
            for table in (
                "reveal_secrets",
                "reveal_users",
                "reveal_grants",
                "llm_usage",
                "profiles",
                *WORKSPACE_TABLES,
                *GRAPH_TABLES,
            ):
                cur.execute(f"DELETE FROM {table} WHERE user_id = %s", (user_id,))
            # The audit log refuses deletes except of the user this session erases.
            cur.execute("SET @memvault_erasing = %s", (user_id,))
            try:
                cur.execute("DELETE FROM audit_log WHERE user_id = %s", (user_id,))
            finally:
                cur.execute("SET @memvault_erasing = NULL")
        return ids
