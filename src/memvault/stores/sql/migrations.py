"""The schema migrations' registry, written once for every SQL backend.

A backend's ``schema`` module registers each migration, a plain function, with
``@registry.migration(version, name)``, in order; the version row a step writes to
``memvault_migrations`` and the errors an opener meets are the same everywhere. How a
step is made atomic is the backend's own: SQLite and PostgreSQL apply a step and its row
in one transaction (under a lock that other openers queue on), MySQL, whose DDL commits
by itself, under a named lock with steps that can run again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from ...errors import MigrationError

Apply = TypeVar("Apply", bound=Callable[..., None])

#: The table of applied steps (SQLite and PostgreSQL; MySQL spells its types its way).
TABLE_SQL = (
    "CREATE TABLE IF NOT EXISTS memvault_migrations ("
    " version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)"
)
#: The version a database is at: the last step recorded.
VERSION_SQL = "SELECT coalesce(max(version), 0) FROM memvault_migrations"


@dataclass(frozen=True, slots=True)
class Migration(Generic[Apply]):
    version: int
    name: str
    apply: Apply


class Registry(Generic[Apply]):
    """A backend's migrations, in order."""

    def __init__(self) -> None:
        self.steps: list[Migration[Apply]] = []

    def migration(self, version: int, name: str) -> Callable[[Apply], None]:
        def register(fn: Apply) -> None:
            if self.steps and self.steps[-1].version != version - 1:
                raise RuntimeError(f"migration {version} registered out of order")
            self.steps.append(Migration(version, name, fn))

        return register

    @property
    def latest(self) -> int:
        return self.steps[-1].version

    def up_to(self, target: int | None) -> list[Migration[Apply]]:
        """The steps to bring a database up to ``target`` (None: the latest)."""
        last = self.latest if target is None else target
        return [s for s in self.steps if s.version <= last]

    def check(self, version: int) -> None:
        """Refuse a database written by a newer memvault."""
        if version > self.latest:
            raise MigrationError(
                f"database schema is version {version} but this memvault knows only up to "
                f"{self.latest}: upgrade memvault to open it"
            )


def record_sql(mark: str) -> str:
    """The row that records an applied step (parameters: ``record_params``)."""
    return (
        "INSERT INTO memvault_migrations (version, name, applied_at) "
        f"VALUES ({mark}, {mark}, {mark})"
    )


def record_params(step: Migration[Any]) -> tuple[int, str, str]:
    return (step.version, step.name, datetime.now(UTC).isoformat())


def failed(step: Migration[Any], said: str, then: str) -> MigrationError:
    """The error of a step that failed: what the server ``said``, and what ``then``."""
    return MigrationError(f"could not apply migration {step.version} ({step.name}): {said}; {then}")


__all__ = [
    "TABLE_SQL",
    "VERSION_SQL",
    "Migration",
    "Registry",
    "failed",
    "record_params",
    "record_sql",
]
