"""Erasing a user on SQLite so that nothing of theirs stays readable in the file; the
rest of sensitive data is the shared SQL (``stores.sql.audit``)."""

from __future__ import annotations

import sqlite3

from ...errors import StoreError
from ..sql.audit import SQLAudit
from .dialect import SQLiteBase


class SQLiteAudit(SQLiteBase, SQLAudit):
    """Originals, reveal bookkeeping, the audit log and erasure."""

    def erase_user(self, user_id: str) -> list[str]:
        # secure_delete zeroes freed pages, so deleted text does not linger in the file;
        # 'optimize' merges the index into one segment without the deleted rows' tokens;
        # the checkpoint empties the WAL, which still holds the old pages.
        with self._lock:
            self._check_open()
            self._conn.execute("PRAGMA secure_delete = ON")
            try:
                with self._write() as conn:
                    ids = super().erase_user(user_id)
                    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
                if self.path != ":memory:" and self._depth == 0:
                    # Inside an enclosing atomic() nothing is committed yet to checkpoint.
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StoreError(f"erasing the user failed and was rolled back: {exc}") from exc
            finally:
                self._conn.execute("PRAGMA secure_delete = OFF")
        return ids
