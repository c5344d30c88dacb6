"""Profile documents (``protocols.ProfileStore``) on every SQL backend, written once;
a backend differs only in its parameter mark and how an insert meets an existing row
(``Runner.insert_new``).

One row per user and agent, keyed ``(user_id, agent_key)``: ``agent_key`` is the agent
id, or ``''`` for the user's own profile (``agent_id`` None), which no real agent id can
be (ids start with a letter or a digit) and which, unlike NULL, a primary key holds.
A save is a compare-and-set in one statement, so it is race-free without locks of its
own: revision 0 inserts, and an existing row makes that insert do nothing (or fail on
the duplicate key); any other revision updates only the row still at that revision.
Either way a statement that touched no row is a conflict.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..rows import format_time, parse_time
from ..values import StoredProfile, check_put, stale_revision
from .runner import SQLBase

OWN = ""  # the agent key of the user's own profile


def agent_key(agent_id: str | None) -> str:
    return OWN if agent_id is None else agent_id


def insert_sql(mark: str) -> str:
    """The first save (revision 0 -> 1), for ``Runner.insert_new``."""
    marks = ", ".join([mark] * 5)
    return (
        "INSERT INTO profiles (user_id, agent_key, document, revision, updated_at) "
        f"VALUES ({marks})"
    )


def insert_params(
    user_id: str, agent_id: str | None, document: str, now: datetime
) -> tuple[Any, ...]:
    return (user_id, agent_key(agent_id), document, 1, format_time(now))


def update_sql(mark: str) -> str:
    """A later save: touches the row only while it is still at the expected revision."""
    return (
        f"UPDATE profiles SET document = {mark}, revision = {mark}, updated_at = {mark} "
        f"WHERE user_id = {mark} AND agent_key = {mark} AND revision = {mark}"
    )


def update_params(
    user_id: str, agent_id: str | None, document: str, revision: int, now: datetime
) -> tuple[Any, ...]:
    return (document, revision + 1, format_time(now), user_id, agent_key(agent_id), revision)


def revision_sql(mark: str, suffix: str = "") -> str:
    """The stored revision (for the conflict's message); ``suffix`` a locking clause."""
    return f"SELECT revision FROM profiles WHERE user_id = {mark} AND agent_key = {mark}{suffix}"


_COLUMNS = "user_id, agent_key, document, revision, updated_at"


def get_sql(mark: str) -> str:
    return f"SELECT {_COLUMNS} FROM profiles WHERE user_id = {mark} AND agent_key = {mark}"


def list_sql(mark: str) -> str:
    return f"SELECT {_COLUMNS} FROM profiles WHERE user_id = {mark} ORDER BY agent_key"


def delete_sql(mark: str) -> str:
    return f"DELETE FROM profiles WHERE user_id = {mark} AND agent_key = {mark}"


def key_params(user_id: str, agent_id: str | None) -> tuple[str, str]:
    return (user_id, agent_key(agent_id))


def saved(
    user_id: str, agent_id: str | None, document: str, revision: int, now: datetime
) -> StoredProfile:
    """What a successful save stored, as a read would return it (UTC time)."""
    at = parse_time(format_time(now))
    assert at is not None
    return StoredProfile(user_id, agent_id, document, revision + 1, at)


def profile_of(row: Sequence[Any]) -> StoredProfile:
    at = parse_time(row[4])
    assert at is not None
    return StoredProfile(
        user_id=row[0],
        agent_id=None if row[1] == OWN else row[1],
        document=row[2],
        revision=int(row[3]),
        updated_at=at,
    )


def in_order(rows: Sequence[Sequence[Any]]) -> list[StoredProfile]:
    """The user's own profile first, then by agent id (sorted here too: the servers'
    collations may order text differently)."""
    out = [profile_of(r) for r in rows]
    return sorted(out, key=lambda p: (p.agent_id is not None, p.agent_id or ""))


class SQLProfiles(SQLBase):
    """One JSON document per user and agent, saved whole at the next revision."""

    def get_profile(self, user_id: str, agent_id: str | None) -> StoredProfile | None:
        with self._reading("reading the profile") as run:
            row = run.one(get_sql(run.mark), key_params(user_id, agent_id))
        return profile_of(row) if row is not None else None

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
        with self._writing("saving the profile") as run:
            if revision == 0:
                params = insert_params(user_id, agent_id, document, now)
                saved_now = run.insert_new(insert_sql(run.mark), params)
            else:
                params = update_params(user_id, agent_id, document, revision, now)
                saved_now = run.run(update_sql(run.mark), params) == 1
            if not saved_now:
                row = run.one(revision_sql(run.mark, run.locking), key_params(user_id, agent_id))
                raise stale_revision(int(row[0]) if row else 0, revision)
        return saved(user_id, agent_id, document, revision, now)

    def delete_profile(self, user_id: str, agent_id: str | None) -> bool:
        with self._writing("deleting the profile") as run:
            return run.run(delete_sql(run.mark), key_params(user_id, agent_id)) > 0

    def profiles(self, user_id: str) -> list[StoredProfile]:
        with self._reading("reading the profiles") as run:
            return in_order(run.rows(list_sql(run.mark), (user_id,)))


__all__ = ["OWN", "SQLProfiles", "agent_key"]
