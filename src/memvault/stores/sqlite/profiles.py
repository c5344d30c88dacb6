"""Profile documents on SQLite (``stores.profile_sql``).

Every write holds SQLite's write lock (``BEGIN IMMEDIATE``), so the compare-and-set of
a save cannot interleave with another writer's, in this process or another.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ...errors import StoreError
from .. import profile_sql
from ..profile_checks import check_put, stale_revision
from ..values import StoredProfile
from .connection import SQLiteConnection


class SQLiteProfiles(SQLiteConnection):
    """One JSON document per user and agent, saved whole at the next revision."""

    def get_profile(self, user_id: str, agent_id: str | None) -> StoredProfile | None:
        with self._read() as conn:
            row = conn.execute(
                profile_sql.get_sql("?"), profile_sql.key_params(user_id, agent_id)
            ).fetchone()
        return profile_sql.profile_of(row) if row is not None else None

    def put_profile(
        self,
        user_id: str,
        agent_id: str | None,
        document: str,
        *,
        revision: int,
        now: datetime,
    ) -> StoredProfile:
        check_put(agent_id, document, revision, now)
        try:
            with self._write() as conn:
                if revision == 0:
                    cur = conn.execute(
                        profile_sql.insert_sql("?", " ON CONFLICT DO NOTHING"),
                        profile_sql.insert_params(user_id, agent_id, document, now),
                    )
                else:
                    cur = conn.execute(
                        profile_sql.update_sql("?"),
                        profile_sql.update_params(user_id, agent_id, document, revision, now),
                    )
                if cur.rowcount != 1:
                    row = conn.execute(
                        profile_sql.revision_sql("?"), profile_sql.key_params(user_id, agent_id)
                    ).fetchone()
                    raise stale_revision(int(row[0]) if row else 0, revision)
        except sqlite3.Error as exc:
            raise StoreError(f"saving the profile failed and was rolled back: {exc}") from exc
        return profile_sql.saved(user_id, agent_id, document, revision, now)

    def delete_profile(self, user_id: str, agent_id: str | None) -> bool:
        try:
            with self._write() as conn:
                cur = conn.execute(
                    profile_sql.delete_sql("?"), profile_sql.key_params(user_id, agent_id)
                )
        except sqlite3.Error as exc:
            raise StoreError(f"deleting the profile failed and was rolled back: {exc}") from exc
        return cur.rowcount > 0

    def profiles(self, user_id: str) -> list[StoredProfile]:
        with self._read() as conn:
            rows = conn.execute(profile_sql.list_sql("?"), (user_id,)).fetchall()
        return profile_sql.in_order(rows)
