"""Earlier versions of entries (``protocols.EntryHistory``) on every SQL backend, written
once, in the ``memory_versions`` table (``values.StoredVersion`` says what a version is)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import NotFoundError
from ..rows import format_time, parse_time, snapshot_entry, snapshot_text
from ..values import StoredVersion
from .runner import SQLBase, pages

#: The columns of a version row, in the order every backend writes and reads them.
VERSION_COLUMNS = ("user_id", "entry_id", "seq", "at", "actor", "action", "changed", "snapshot")


def version_values(version: StoredVersion) -> tuple[Any, ...]:
    """A version's values for the columns after ``seq`` (which the store draws)."""
    return (
        format_time(version.at),
        version.actor,
        version.action,
        ",".join(version.changed),
        snapshot_text(version.entry),
    )


def insert_version_sql(mark: str) -> str:
    """One version row, its ``seq`` one more than the entry's last (parameters: user id,
    entry id, the :func:`version_values`, user id, entry id). The entry's row is locked
    by the change the version belongs to, so two changes of one entry never draw the
    same ``seq``."""
    return (
        f"INSERT INTO memory_versions ({', '.join(VERSION_COLUMNS)}) "
        f"SELECT {mark}, {mark}, coalesce(max(v.seq), 0) + 1, {mark}, {mark}, {mark}, {mark}, "
        f"{mark} FROM memory_versions v WHERE v.user_id = {mark} AND v.entry_id = {mark}"
    )


def select_versions_sql(mark: str, count: int) -> str:
    """The versions of ``count`` entries of one user, by entry then ``seq``."""
    marks = ", ".join(mark for _ in range(count))
    return (
        f"SELECT {', '.join(VERSION_COLUMNS)} FROM memory_versions "
        f"WHERE user_id = {mark} AND entry_id IN ({marks}) ORDER BY entry_id, seq"
    )


def version_of(row: Sequence[Any]) -> StoredVersion:
    """A row of :func:`select_versions_sql` as a version."""
    at = parse_time(row[3])
    assert at is not None
    return StoredVersion(
        user_id=row[0],
        entry_id=row[1],
        seq=int(row[2]),
        at=at,
        actor=row[4],
        action=row[5],
        changed=tuple(c for c in str(row[6]).split(",") if c),
        entry=snapshot_entry(row[7]),
    )


class SQLVersions(SQLBase):
    """The versions half of ``EntryHistory``."""

    def add_version(self, version: StoredVersion) -> None:
        d = self.dialect
        owner = (version.user_id, version.entry_id)
        with self._writing("keeping a version") as run:
            # The entry's row lock orders two changes of one entry, so they never draw
            # the same seq (SQLite's write transaction holds the whole database).
            found = run.one(
                f"SELECT 1 FROM memories WHERE user_id = {d.mark} AND id = {d.mark}{d.lock}",
                owner,
            )
            if found is None:
                raise NotFoundError(
                    f"no memory {version.entry_id!r} for user {version.user_id!r} to "
                    "keep a version of",
                    entry_id=version.entry_id,
                    user_id=version.user_id,
                )
            run.run(insert_version_sql(d.mark), (*owner, *version_values(version), *owner))

    def versions(self, user_id: str, entry_ids: Sequence[str]) -> list[StoredVersion]:
        out: list[StoredVersion] = []
        with self._reading("reading versions") as run:
            for page in pages(sorted(set(entry_ids))):
                rows = run.rows(select_versions_sql(run.mark, len(page)), (user_id, *page))
                out.extend(version_of(r) for r in rows)
        return out


__all__ = ["SQLVersions"]
