"""Earlier versions of entries (``stores.versions``), in the ``memory_versions`` table."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import NotFoundError
from ..versions import (
    StoredVersion,
    insert_version_sql,
    select_versions_sql,
    version_of,
    version_values,
)
from .connection import PostgresConnection
from .sql import PAGE


class PostgresVersions(PostgresConnection):
    """The versions half of ``EntryHistory``."""

    def add_version(self, version: StoredVersion) -> None:
        owner = (version.user_id, version.entry_id)
        with self._write("keeping a version") as conn:
            found = conn.execute(
                "SELECT 1 FROM memories WHERE user_id = %s AND id = %s", owner
            ).fetchone()
            if found is None:
                raise NotFoundError(
                    f"no memory {version.entry_id!r} for user {version.user_id!r} to "
                    "keep a version of",
                    entry_id=version.entry_id,
                    user_id=version.user_id,
                )
            conn.execute(insert_version_sql("%s"), (*owner, *version_values(version), *owner))

    def versions(self, user_id: str, entry_ids: Sequence[str]) -> list[StoredVersion]:
        ids = sorted(set(entry_ids))
        out: list[StoredVersion] = []
        with self._read() as conn:
            for start in range(0, len(ids), PAGE):
                chunk = ids[start : start + PAGE]
                rows = conn.execute(
                    select_versions_sql("%s", len(chunk)), (user_id, *chunk)
                ).fetchall()
                out.extend(version_of(r) for r in rows)
        return out
