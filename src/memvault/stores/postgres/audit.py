"""Sensitive data: sealed originals, reveal state and secrets, the append-only audit
log, and erasing a user."""

from __future__ import annotations

from typing import Any

import psycopg

from ..rows import format_time, reveal_state
from ..sql.clauses import audit_query, audit_record
from ..sql.graph import GRAPH_TABLES
from ..sql.workspace import WORKSPACE_TABLES
from ..values import AuditRecord, RevealChange, RevealState
from .connection import PostgresConnection


def _lock_user(conn: psycopg.Connection[Any], user_id: str) -> None:
    """Serialise read-modify-writes of one user's reveal state until commit."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("memvault-reveal:" + user_id,)
    )


class PostgresAudit(PostgresConnection):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT sealed FROM originals WHERE user_id = %s AND entry_id = %s",
                (user_id, entry_id),
            ).fetchone()
        return None if row is None else bytes(row[0])

    @staticmethod
    def _append_audit(conn: psycopg.Connection[Any], record: AuditRecord) -> None:
        conn.execute(
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

    def change_reveal(
        self, user_id: str, entry_id: str | None, change: RevealChange
    ) -> RevealState:
        with self._write("reveal bookkeeping") as conn:
            _lock_user(conn, user_id)
            user = conn.execute(
                "SELECT failures, first_failure_at, locked_at FROM reveal_users WHERE user_id = %s",
                (user_id,),
            ).fetchone()
            grant = None
            if entry_id is not None:
                grant = conn.execute(
                    "SELECT granted_until, version FROM reveal_grants "
                    "WHERE user_id = %s AND entry_id = %s",
                    (user_id, entry_id),
                ).fetchone()
            current = reveal_state(user, grant)
            new, record = change(current)
            conn.execute(
                "INSERT INTO reveal_users (user_id, failures, first_failure_at, locked_at) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (user_id) DO UPDATE SET "
                "failures = excluded.failures, first_failure_at = excluded.first_failure_at, "
                "locked_at = excluded.locked_at",
                (
                    user_id,
                    new.failures,
                    format_time(new.first_failure_at),
                    format_time(new.locked_at),
                ),
            )
            if entry_id is not None:
                if new.granted_until is None or new.granted_version is None:
                    conn.execute(
                        "DELETE FROM reveal_grants WHERE user_id = %s AND entry_id = %s",
                        (user_id, entry_id),
                    )
                else:
                    conn.execute(
                        "INSERT INTO reveal_grants (user_id, entry_id, granted_until, version) "
                        "VALUES (%s, %s, %s, %s) ON CONFLICT (user_id, entry_id) DO UPDATE SET "
                        "granted_until = excluded.granted_until, version = excluded.version",
                        (user_id, entry_id, format_time(new.granted_until), new.granted_version),
                    )
            self._append_audit(conn, record)
            return new

    def append_audit(self, record: AuditRecord) -> None:
        with self._write("the audit write") as conn:
            self._append_audit(conn, record)

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        sql, params = audit_query(user_id, entry_id, limit, after, "%s")
        with self._read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [audit_record(r) for r in rows]

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT salt, digest FROM reveal_secrets WHERE user_id = %s", (user_id,)
            ).fetchone()
        return None if row is None else (bytes(row[0]), bytes(row[1]))

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        with self._write("saving the reveal challenge") as conn:
            _lock_user(conn, user_id)
            conn.execute(
                "INSERT INTO reveal_secrets (user_id, salt, digest) VALUES (%s, %s, %s) "
                "ON CONFLICT (user_id) DO UPDATE SET salt = excluded.salt, "
                "digest = excluded.digest",
                (user_id, salt, digest),
            )
            conn.execute("DELETE FROM reveal_grants WHERE user_id = %s", (user_id,))

    def erase_user(self, user_id: str) -> list[str]:
        # The rows are deleted in one transaction; PostgreSQL frees their space at the
        # next (auto)vacuum. The vector log keeps its (user, entry id) rows: other
        # processes read them to drop the erased vectors from memory.
        with self._write("erasing the user") as conn:
            _lock_user(conn, user_id)
            ids = [
                r[0]
                for r in conn.execute(
                    "DELETE FROM memories WHERE user_id = %s RETURNING id", (user_id,)
                ).fetchall()
            ]
            for table in (
                "reveal_secrets",
                "reveal_users",
                "reveal_grants",
                "llm_usage",
                "profiles",
                *WORKSPACE_TABLES,
                *GRAPH_TABLES,
            ):
                conn.execute(f"DELETE FROM {table} WHERE user_id = %s", (user_id,))
            # The audit log refuses deletes except for a user being erased.
            conn.execute("INSERT INTO audit_erasing (user_id) VALUES (%s)", (user_id,))
            conn.execute("DELETE FROM audit_log WHERE user_id = %s", (user_id,))
            conn.execute("DELETE FROM audit_erasing WHERE user_id = %s", (user_id,))
        return ids
