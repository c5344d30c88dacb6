"""Sensitive data (``protocols.RevealStore``) on every SQL backend, written once: sealed
originals, the reveal state and secret, the append-only audit log, and erasing a user.

A read-modify-write of one user's reveal state first makes sure the user's row exists
(so two first attempts queue on it rather than on the gap where it would go), then
reads it with the backend's row lock; PostgreSQL also holds an advisory lock of the
user (``_hold_user``). The audit log refuses deletes except of a user being erased,
which a backend marks in its own way (``_erasing_audit``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..rows import format_time, reveal_state
from ..values import AuditRecord, RevealChange, RevealState
from .clauses import audit_query, audit_record
from .graph import GRAPH_TABLES
from .runner import Runner, SQLBase
from .workspace import WORKSPACE_TABLES

_AUDIT = ("at", "user_id", "entry_id", "actor", "action", "outcome", "detail")
#: What erasing a user empties besides the entries (which take their vectors,
#: originals, grants, versions and links with them) and the audit log.
ERASED_TABLES = (
    "reveal_secrets",
    "reveal_users",
    "reveal_grants",
    "llm_usage",
    "profiles",
    *WORKSPACE_TABLES,
    *GRAPH_TABLES,
)


def _audit_values(record: AuditRecord) -> Sequence[Any]:
    return (
        format_time(record.at),
        record.user_id,
        record.entry_id,
        record.actor,
        record.action,
        record.outcome,
        record.detail,
    )


class SQLAudit(SQLBase):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    # -- what a backend may add -----------------------------------------------------

    def _hold_user(self, run: Runner, user_id: str) -> None:
        """Serialise read-modify-writes of one user's reveal state until commit (where
        row locks alone do not)."""

    def _erasing(self, run: Runner, user_id: str) -> None:
        """Before the user's entries are deleted (MySQL logs their vectors' going)."""

    def _erasing_audit(self, run: Runner, user_id: str) -> None:
        """Delete the user's audit records: the log refuses that except for a user listed
        in ``audit_erasing`` for the moment."""
        m = run.mark
        run.run(f"INSERT INTO audit_erasing (user_id) VALUES ({m})", (user_id,))
        run.run(f"DELETE FROM audit_log WHERE user_id = {m}", (user_id,))
        run.run(f"DELETE FROM audit_erasing WHERE user_id = {m}", (user_id,))

    # -- sensitive data -------------------------------------------------------------

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        where = self._original_sql(self.original_where)
        with self._reading("reading the original") as run:
            row = run.one(f"SELECT sealed FROM originals WHERE {where}", (user_id, entry_id))
        return None if row is None else bytes(row[0])

    def _append(self, run: Runner, record: AuditRecord) -> None:
        run.run(
            f"INSERT INTO audit_log ({', '.join(_AUDIT)}) VALUES ({run.dialect.marks(7)})",
            _audit_values(record),
        )

    def change_reveal(
        self, user_id: str, entry_id: str | None, change: RevealChange
    ) -> RevealState:
        d = self.dialect
        m = d.mark
        with self._writing("reveal bookkeeping") as run:
            self._hold_user(run, user_id)
            run.run(d.insert_skipping(f"INTO reveal_users (user_id) VALUES ({m})"), (user_id,))
            user = run.one(
                "SELECT failures, first_failure_at, locked_at FROM reveal_users "
                f"WHERE user_id = {m}{d.lock}",
                (user_id,),
            )
            grant = None
            if entry_id is not None:
                grant = run.one(
                    "SELECT granted_until, version FROM reveal_grants "
                    f"WHERE user_id = {m} AND entry_id = {m}{d.lock}",
                    (user_id, entry_id),
                )
            new, record = change(reveal_state(user, grant))
            run.run(
                f"UPDATE reveal_users SET failures = {m}, first_failure_at = {m}, "
                f"locked_at = {m} WHERE user_id = {m}",
                (
                    new.failures,
                    format_time(new.first_failure_at),
                    format_time(new.locked_at),
                    user_id,
                ),
            )
            if entry_id is not None:
                if new.granted_until is None or new.granted_version is None:
                    run.run(
                        f"DELETE FROM reveal_grants WHERE user_id = {m} AND entry_id = {m}",
                        (user_id, entry_id),
                    )
                else:
                    run.run(
                        d.upsert(
                            "reveal_grants",
                            ("user_id", "entry_id", "granted_until", "version"),
                            ("user_id", "entry_id"),
                        ),
                        (user_id, entry_id, format_time(new.granted_until), new.granted_version),
                    )
            self._append(run, record)
            return new

    def append_audit(self, record: AuditRecord) -> None:
        with self._writing("the audit write") as run:
            self._append(run, record)

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        with self._reading("reading the audit log") as run:
            rows = run.rows(*audit_query(user_id, entry_id, limit, after, run.mark))
        return [audit_record(r) for r in rows]

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        with self._reading("reading the reveal challenge") as run:
            row = run.one(
                f"SELECT salt, digest FROM reveal_secrets WHERE user_id = {run.mark}", (user_id,)
            )
        return None if row is None else (bytes(row[0]), bytes(row[1]))

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        d = self.dialect
        with self._writing("saving the reveal challenge") as run:
            self._hold_user(run, user_id)
            run.run(
                d.upsert("reveal_secrets", ("user_id", "salt", "digest"), ("user_id",)),
                (user_id, bytes(salt), bytes(digest)),
            )
            run.run(f"DELETE FROM reveal_grants WHERE user_id = {d.mark}", (user_id,))

    def erase_user(self, user_id: str) -> list[str]:
        # The vector log keeps its (user, entry id) rows: other processes read them to
        # drop the erased vectors from memory, and the log is pruned as it grows.
        m = self.dialect.mark
        with self._writing("erasing the user") as run:
            self._hold_user(run, user_id)
            ids = [
                r[0] for r in run.rows(f"SELECT id FROM memories WHERE user_id = {m}", (user_id,))
            ]
            self._erasing(run, user_id)
            run.run(f"DELETE FROM memories WHERE user_id = {m}", (user_id,))
            for table in ERASED_TABLES:
                run.run(f"DELETE FROM {table} WHERE user_id = {m}", (user_id,))
            self._erasing_audit(run, user_id)
        return sorted(ids)


__all__ = ["ERASED_TABLES", "SQLAudit"]
