"""Reading an existing NetaClaw memory database (seed 002, sections 3.2 and 3.3).

NetaClaw keeps one table of typed memories, in either of two places: the ``memory`` table
of an SQLite file (``{dataDir}/memory/memory.db`` by default, with its ``memory_fts``
index) or the ``netaclaw_memory`` table of the application's MySQL database. Both have
the same columns. This module reads either into :class:`NetaclawRow` values and does
nothing else: what becomes of them is :mod:`memvault.agent.netaclaw.importer`'s.

The ``memory_fts`` table is an external-content index of ``memory`` (it holds no text of
its own), so it is not read: memvault indexes the imported text itself. The source is
opened read-only and never changed.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ...errors import ImportFormatError, StoreUnavailableError, ValidationError

Backend = Literal["sqlite", "mysql"]

#: The columns both tables have, in this order.
COLUMNS = (
    "id",
    "agent_name",
    "user_id",
    "type",
    "name",
    "content",
    "description",
    "metadata",
    "created_at",
    "updated_at",
)
SQLITE_TABLE = "memory"
MYSQL_TABLE = "netaclaw_memory"


@dataclass(frozen=True, slots=True)
class NetaclawRow:
    """One row of a NetaClaw memory table, with its JSON metadata parsed and its times
    as UTC datetimes (NetaClaw writes UTC: ``datetime('now')`` and a UTC server)."""

    id: int
    agent_name: str
    user_id: str
    type: str
    name: str
    content: str
    description: str
    metadata: dict[str, Any] | None
    created_at: datetime | None
    updated_at: datetime | None


def source_backend(source: str) -> Backend:
    """Which kind of database ``source`` names: a ``mysql://`` (or ``mariadb://``) URL, or
    a path to an SQLite file."""
    scheme = source.split("://", 1)[0].lower() if "://" in source else ""
    if scheme.startswith(("mysql", "mariadb")):
        return "mysql"
    if scheme in ("", "sqlite"):
        return "sqlite"
    raise ValidationError(
        f"cannot read a NetaClaw database from a {scheme}:// URL: name the SQLite file "
        "(memory.db) or the MySQL database as mysql://user:password@host/database"
    )


def read_rows(source: str) -> tuple[Backend, list[NetaclawRow]]:
    """Every row of the NetaClaw memory table ``source`` names, in id order."""
    backend = source_backend(source)
    if backend == "mysql":
        return backend, read_mysql(source)
    path = source.split("://", 1)[1].removeprefix("/") if "://" in source else source
    if source.startswith("sqlite:///"):
        path = "/" + path
    return backend, read_sqlite(Path(path).expanduser())


def read_sqlite(path: Path) -> list[NetaclawRow]:
    """The ``memory`` table of a NetaClaw SQLite file, opened read-only."""
    if not path.is_file():
        raise ValidationError(f"there is no SQLite file {path}: check the path to memory.db")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ValidationError(f"cannot open {path} as SQLite ({exc})") from None
    try:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (SQLITE_TABLE,)
        ).fetchone()
        if found is None:
            raise ValidationError(
                f"{path} has no '{SQLITE_TABLE}' table: it is not a NetaClaw memory database"
            )
        cursor = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM {SQLITE_TABLE} ORDER BY id")
        return [_row(tuple(r), n) for n, r in enumerate(cursor, start=1)]
    except sqlite3.Error as exc:
        raise ValidationError(f"cannot read {path} ({exc}): is it a NetaClaw memory.db?") from None
    finally:
        conn.close()


def read_mysql(url: str) -> list[NetaclawRow]:
    """The ``netaclaw_memory`` table of a MySQL or MariaDB database, in one read."""
    import pymysql

    from ...stores.mysql.connection import parse_url

    address = parse_url(url)
    try:
        conn = pymysql.connect(**address.connect_args(), connect_timeout=10)
    except pymysql.Error as exc:
        raise StoreUnavailableError(
            f"cannot connect to the MySQL database {address.database!r} on {address.host} "
            f"({exc.args[-1] if exc.args else exc}): check the URL and that the server runs"
        ) from None
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"SELECT {', '.join(COLUMNS)} FROM {MYSQL_TABLE} ORDER BY id")
            return [_row(tuple(r), n) for n, r in enumerate(cursor.fetchall(), start=1)]
    except pymysql.Error as exc:
        raise ValidationError(
            f"cannot read table {MYSQL_TABLE} of database {address.database!r} "
            f"({exc.args[-1] if exc.args else exc}): is it NetaClaw's database?"
        ) from None
    finally:
        conn.close()


def _row(values: tuple[Any, ...], n: int) -> NetaclawRow:
    record = dict(zip(COLUMNS, values, strict=True))
    ident = record["id"]
    if isinstance(ident, bool) or not isinstance(ident, int) or ident < 0:
        raise ImportFormatError(f"row {n} has id {ident!r}, not a whole number", line=n)
    for key in ("agent_name", "user_id", "type", "name", "content", "description"):
        value = record[key]
        if value is None and key == "description":
            record[key] = ""
        elif isinstance(value, bytes):
            record[key] = value.decode("utf-8")
        elif not isinstance(value, str):
            raise ImportFormatError(f"row id {ident}: {key} is {value!r}, not text", line=n)
    return NetaclawRow(
        id=ident,
        agent_name=record["agent_name"],
        user_id=record["user_id"],
        type=record["type"],
        name=record["name"],
        content=record["content"],
        description=record["description"],
        metadata=_metadata(record["metadata"], ident, n),
        created_at=_time(record["created_at"], ident, n),
        updated_at=_time(record["updated_at"], ident, n),
    )


def _metadata(value: Any, ident: int, n: int) -> dict[str, Any] | None:
    if value is None or value == "":
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        raise ImportFormatError(f"row id {ident}: metadata is not JSON", line=n) from None
    if parsed is None:
        return None
    if not isinstance(parsed, dict):
        raise ImportFormatError(f"row id {ident}: metadata is not a JSON object", line=n)
    return parsed


def _time(value: Any, ident: int, n: int) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ImportFormatError(
                f"row id {ident}: time {value!r} is not a date", line=n
            ) from None
    if not isinstance(value, datetime):
        raise ImportFormatError(f"row id {ident}: time {value!r} is not a date", line=n)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


__all__ = [
    "COLUMNS",
    "MYSQL_TABLE",
    "SQLITE_TABLE",
    "Backend",
    "NetaclawRow",
    "read_mysql",
    "read_rows",
    "read_sqlite",
    "source_backend",
]
