"""Sensitive data: sealed originals, reveal state and secrets, the append-only audit
log, and erasing a user."""

from __future__ import annotations

import sqlite3

from ...errors import StoreError
from ..rows import format_time, reveal_state
from ..sql.clauses import audit_query, audit_record
from ..sql.graph import GRAPH_TABLES
from ..sql.workspace import WORKSPACE_TABLES
from ..values import AuditRecord, RevealChange, RevealState
from .connection import SQLiteConnection


class SQLiteAudit(SQLiteConnection):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    # -- sensitive data -------------------------------------------------------------

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT o.sealed FROM originals o JOIN memories m ON m.pk = o.memory_pk "
                "WHERE m.user_id = ? AND m.id = ?",
                (user_id, entry_id),
            ).fetchone()
        return None if row is None else bytes(row[0])

    @staticmethod
    def _append_audit(conn: sqlite3.Connection, record: AuditRecord) -> None:
        conn.execute(
            "INSERT INTO audit_log (at, user_id, entry_id, actor, action, outcome, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
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
        try:
            with self._write() as conn:
                user = conn.execute(
                    "SELECT failures, first_failure_at, locked_at FROM reveal_users "
                    "WHERE user_id = ?",
                    (user_id,),
                ).fetchone()
                grant = None
                if entry_id is not None:
                    grant = conn.execute(
                        "SELECT granted_until, version FROM reveal_grants "
                        "WHERE user_id = ? AND entry_id = ?",
                        (user_id, entry_id),
                    ).fetchone()
                current = reveal_state(user, grant)
                new, record = change(current)
                conn.execute(
                    "INSERT OR REPLACE INTO reveal_users "
                    "(user_id, failures, first_failure_at, locked_at) VALUES (?, ?, ?, ?)",
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
                            "DELETE FROM reveal_grants WHERE user_id = ? AND entry_id = ?",
                            (user_id, entry_id),
                        )
                    else:
                        conn.execute(
                            "INSERT OR REPLACE INTO reveal_grants "
                            "(user_id, entry_id, granted_until, version) VALUES (?, ?, ?, ?)",
                            (
                                user_id,
                                entry_id,
                                format_time(new.granted_until),
                                new.granted_version,
                            ),
                        )
                self._append_audit(conn, record)
                return new
        except sqlite3.Error as exc:
            raise StoreError(f"reveal bookkeeping failed and was rolled back: {exc}") from exc

    def append_audit(self, record: AuditRecord) -> None:
        try:
            with self._write() as conn:
                self._append_audit(conn, record)
        except sqlite3.Error as exc:
            raise StoreError(f"audit write failed: {exc}") from exc

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        sql, params = audit_query(user_id, entry_id, limit, after, "?")
        with self._read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [audit_record(r) for r in rows]

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT salt, digest FROM reveal_secrets WHERE user_id = ?", (user_id,)
            ).fetchone()
        return None if row is None else (bytes(row[0]), bytes(row[1]))

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        try:
            with self._write() as conn:
                conn.execute(
                    "INSERT OR REPLACE INTO reveal_secrets (user_id, salt, digest) "
                    "VALUES (?, ?, ?)",
                    (user_id, salt, digest),
                )
                conn.execute("DELETE FROM reveal_grants WHERE user_id = ?", (user_id,))
        except sqlite3.Error as exc:
            raise StoreError(f"saving the reveal challenge failed: {exc}") from exc

    def erase_user(self, user_id: str) -> list[str]:
        # secure_delete zeroes freed pages, so deleted text does not linger in the file;
        # 'optimize' merges the index into one segment without the deleted rows' tokens;
        # the checkpoint empties the WAL, which still holds the old pages. The vector
        # log keeps its (user, entry id) rows: other processes read them to drop the
        # erased vectors from memory, and the log is pruned as it grows.
        with self._lock:
            self._check_open()
            self._conn.execute("PRAGMA secure_delete = ON")
            try:
                with self._write() as conn:
                    ids = [
                        r[0]
                        for r in conn.execute(
                            "SELECT id FROM memories WHERE user_id = ?", (user_id,)
                        ).fetchall()
                    ]
                    conn.execute("DELETE FROM memories WHERE user_id = ?", (user_id,))
                    for table in (
                        "reveal_secrets",
                        "reveal_users",
                        "reveal_grants",
                        "llm_usage",
                        "profiles",
                        *WORKSPACE_TABLES,
                        *GRAPH_TABLES,
                    ):
                        conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
                    # The audit log refuses deletes except for a user being erased.
                    conn.execute("INSERT INTO audit_erasing (user_id) VALUES (?)", (user_id,))
                    conn.execute("DELETE FROM audit_log WHERE user_id = ?", (user_id,))
                    conn.execute("DELETE FROM audit_erasing WHERE user_id = ?", (user_id,))
                    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
                if self.path != ":memory:" and self._depth == 0:
                    # Inside an enclosing atomic() nothing is committed yet to checkpoint.
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StoreError(f"erasing the user failed and was rolled back: {exc}") from exc
            finally:
                self._conn.execute("PRAGMA secure_delete = OFF")
        return ids
