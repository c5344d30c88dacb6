"""Profile documents on PostgreSQL (``stores.profile_sql``).

A first save inserts with ``ON CONFLICT DO NOTHING``: a concurrent first save waits for
the other's commit and then touches nothing, and no error aborts an enclosing
``atomic()`` block. A later save's ``UPDATE ... WHERE revision = ...`` re-checks the
row after waiting for a concurrent writer (read committed), so only one of two writers
at the same revision wins.
"""

from __future__ import annotations

from datetime import datetime

from .. import profile_sql
from ..profile_checks import check_put, stale_revision
from ..values import StoredProfile
from .connection import PostgresConnection


class PostgresProfiles(PostgresConnection):
    """One JSON document per user and agent, saved whole at the next revision."""

    def get_profile(self, user_id: str, agent_id: str | None) -> StoredProfile | None:
        with self._read("reading the profile") as conn:
            row = conn.execute(
                profile_sql.get_sql("%s"), profile_sql.key_params(user_id, agent_id)
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
        with self._write("saving the profile") as conn:
            if revision == 0:
                cur = conn.execute(
                    profile_sql.insert_sql("%s", " ON CONFLICT DO NOTHING"),
                    profile_sql.insert_params(user_id, agent_id, document, now),
                )
            else:
                cur = conn.execute(
                    profile_sql.update_sql("%s"),
                    profile_sql.update_params(user_id, agent_id, document, revision, now),
                )
            if cur.rowcount != 1:
                row = conn.execute(
                    profile_sql.revision_sql("%s"), profile_sql.key_params(user_id, agent_id)
                ).fetchone()
                raise stale_revision(int(row[0]) if row else 0, revision)
        return profile_sql.saved(user_id, agent_id, document, revision, now)

    def delete_profile(self, user_id: str, agent_id: str | None) -> bool:
        with self._write("deleting the profile") as conn:
            cur = conn.execute(
                profile_sql.delete_sql("%s"), profile_sql.key_params(user_id, agent_id)
            )
            return cur.rowcount > 0

    def profiles(self, user_id: str) -> list[StoredProfile]:
        with self._read("reading the profiles") as conn:
            rows = conn.execute(profile_sql.list_sql("%s"), (user_id,)).fetchall()
        return profile_sql.in_order(rows)
