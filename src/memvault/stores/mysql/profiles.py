"""Profile documents on MySQL / MariaDB (``stores.profile_sql``).

A first save is a plain insert: a row already there (or a concurrent first save that
committed while this one waited on its lock) fails it on the duplicate key, which
InnoDB rolls back as that one statement only, and that is the conflict. A later save's
``UPDATE ... WHERE revision = ...`` reads the latest committed row (a locking read,
whatever the isolation level), so only one of two writers at the same revision wins.
"""

from __future__ import annotations

from datetime import datetime

import pymysql

from .. import profile_sql
from ..profile_checks import check_put, stale_revision
from ..values import StoredProfile
from .connection import MySQLConnection

_DUPLICATE_KEY = 1062


class MySQLProfiles(MySQLConnection):
    """One JSON document per user and agent, saved whole at the next revision."""

    def get_profile(self, user_id: str, agent_id: str | None) -> StoredProfile | None:
        with self._read("reading the profile") as cur:
            cur.execute(profile_sql.get_sql("%s"), profile_sql.key_params(user_id, agent_id))
            row = cur.fetchone()
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
        with self._write("saving the profile") as cur:
            if revision == 0:
                try:
                    touched = cur.execute(
                        profile_sql.insert_sql("%s"),
                        profile_sql.insert_params(user_id, agent_id, document, now),
                    )
                except pymysql.err.IntegrityError as exc:
                    if not exc.args or exc.args[0] != _DUPLICATE_KEY:
                        raise
                    touched = 0
            else:
                touched = cur.execute(
                    profile_sql.update_sql("%s"),
                    profile_sql.update_params(user_id, agent_id, document, revision, now),
                )
            if touched != 1:
                # A locking read: the snapshot of a repeatable-read transaction may be older.
                cur.execute(
                    profile_sql.revision_sql("%s", " FOR UPDATE"),
                    profile_sql.key_params(user_id, agent_id),
                )
                row = cur.fetchone()
                raise stale_revision(int(row[0]) if row else 0, revision)
        return profile_sql.saved(user_id, agent_id, document, revision, now)

    def delete_profile(self, user_id: str, agent_id: str | None) -> bool:
        with self._write("deleting the profile") as cur:
            touched = cur.execute(
                profile_sql.delete_sql("%s"), profile_sql.key_params(user_id, agent_id)
            )
        return int(touched) > 0

    def profiles(self, user_id: str) -> list[StoredProfile]:
        with self._read("reading the profiles") as cur:
            cur.execute(profile_sql.list_sql("%s"), (user_id,))
            rows = cur.fetchall()
        return profile_sql.in_order(rows)
