"""``open_store``: one string (a URL or a path) to an open backend.

Schemes:

- a plain path (``~/memvault.db``, ``./v.db``, a ``Path``), or ``:memory:``: SQLite;
- ``sqlite:///abs/path.db``: SQLite at that absolute path (as in ``file:`` URLs, the
  path starts after ``sqlite://``; ``%xx`` escapes are decoded; SQLAlchemy's
  ``sqlite:////abs/path.db`` names the same file), ``sqlite:///:memory:`` a private
  in-memory SQLite database. There is no relative form: use a plain path for that;
- ``memory://``: the pure-Python ``MemoryStore`` (tests, throwaway vaults);
- ``mysql://user:password@host:3306/database`` or ``mariadb://…`` (also ``+pymysql``):
  the MySQL / MariaDB store (``stores.mysql``; needs the ``mysql`` extra);
- ``postgresql://user:password@host:5432/database`` (``postgres://`` and
  ``postgresql+psycopg://`` too): the PostgreSQL store (the ``postgres`` extra);

Error messages name the scheme only, never the rest of the URL, which may hold a
password.

The schemes are the rows of ``SCHEMES``; a new backend is one row there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import ConfigError
from .protocols import Store
from .sqlite import SQLiteStore

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True, slots=True)
class _Settings:
    """The keyword settings of ``open_store``; each backend takes those it has."""

    busy_timeout_ms: int
    synchronous: str
    migrate_to: int | None


@dataclass(frozen=True, slots=True)
class Scheme:
    """How one URL scheme opens its store, and the example the error messages show
    (None for an alias such as ``mariadb``, listed under its main name)."""

    open: Callable[[str, _Settings], Store]
    example: str | None = None


def open_store(
    url_or_path: str | os.PathLike[str],
    *,
    busy_timeout_ms: int = 10_000,
    synchronous: str = "FULL",
    migrate_to: int | None = None,
) -> Store:
    """Open the backend ``url_or_path`` names (see the module docstring).

    The settings apply to backends that have them (SQLite) and are ignored by the
    rest. ``ConfigError`` for a scheme that is unknown or not available yet.
    """
    if isinstance(url_or_path, os.PathLike):
        return _sqlite(Path(url_or_path).expanduser(), busy_timeout_ms, synchronous, migrate_to)
    if not isinstance(url_or_path, str) or not url_or_path.strip():
        raise ConfigError("the store location is empty: pass a path or a URL such as sqlite:///…")
    match = _URL.match(url_or_path)
    if match is None:
        if url_or_path == ":memory:":
            return _sqlite(":memory:", busy_timeout_ms, synchronous, migrate_to)
        return _sqlite(Path(url_or_path).expanduser(), busy_timeout_ms, synchronous, migrate_to)
    scheme = match.group(1).lower()
    known = SCHEMES.get(scheme.split("+", 1)[0])
    if known is None:
        raise ConfigError(
            f"unknown store scheme {scheme!r}: use {_supported()}, or a plain file path"
        )
    return known.open(url_or_path, _Settings(busy_timeout_ms, synchronous, migrate_to))


def sqlite_file(url_or_path: str | os.PathLike[str]) -> Path | None:
    """The database file ``url_or_path`` opens, when it names an SQLite file (None for
    ``:memory:``, ``memory://`` and other backends): for callers that check or show
    the file's directory. ``ConfigError`` for a malformed ``sqlite://`` URL."""
    if isinstance(url_or_path, os.PathLike):
        return Path(url_or_path).expanduser()
    match = _URL.match(url_or_path)
    if match is None:
        return None if url_or_path in ("", ":memory:") else Path(url_or_path).expanduser()
    if match.group(1).lower().split("+", 1)[0] != "sqlite":
        return None
    path = _sqlite_path(url_or_path)
    return None if path == ":memory:" else Path(path)


def check_location(url_or_path: str) -> str:
    """``url_or_path`` if ``open_store`` would know what to open, without opening it:
    ``ConfigError`` for an empty value, an unknown scheme or a malformed ``sqlite://``
    URL. For settings that name a store to be opened later."""
    if not isinstance(url_or_path, str) or not url_or_path.strip():
        raise ConfigError("the store location is empty: pass a path or a URL such as sqlite:///…")
    match = _URL.match(url_or_path)
    if match is None:
        return url_or_path
    base = match.group(1).lower().split("+", 1)[0]
    if base == "sqlite":
        _sqlite_path(url_or_path)
    elif base not in SCHEMES:
        raise ConfigError(
            f"unknown store scheme {match.group(1)!r}: use {_supported()}, or a plain file path"
        )
    return url_or_path


def shown_location(url_or_path: str | os.PathLike[str]) -> str:
    """A store location as it may be shown: a URL's password (if any) replaced by ***."""
    text = os.fspath(url_or_path)
    if _URL.match(text) is None:
        return text
    parts = urlsplit(text)
    try:
        password = parts.password
    except ValueError:
        return text.split("://", 1)[0] + "://…"
    if password is None:
        return text
    host = parts.netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=f"{parts.username}:***@{host}").geturl()


def _supported() -> str:
    return ", ".join(known.example for known in SCHEMES.values() if known.example)


def _sqlite_path(url: str) -> str:
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        raise ConfigError("a sqlite:// URL takes no ?query or #fragment: pass settings apart")
    if parts.netloc == ":memory:" and not parts.path:
        return ":memory:"
    if parts.netloc:
        raise ConfigError(
            "a sqlite:// URL names no host: write sqlite:///absolute/path.db (three slashes)"
        )
    path = unquote(parts.path)
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if path == "/:memory:":
        return ":memory:"
    if path in ("", "/"):
        raise ConfigError("the sqlite:// URL names no file: write sqlite:///absolute/path.db")
    return path


def _sqlite(
    path: str | Path, busy_timeout_ms: int, synchronous: str, migrate_to: int | None
) -> SQLiteStore:
    return SQLiteStore(
        path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous, migrate_to=migrate_to
    )


def _sqlite_url(url: str, settings: _Settings) -> Store:
    return _sqlite(
        _sqlite_path(url), settings.busy_timeout_ms, settings.synchronous, settings.migrate_to
    )


def _memory(url: str, settings: _Settings) -> Store:
    if url.split("://", 1)[1].strip("/"):
        raise ConfigError("a memory:// store takes no path: write just memory://")
    from .memory import MemoryStore  # loaded for this scheme only, like the server drivers

    return MemoryStore()


def _mysql(url: str, settings: _Settings) -> Store:
    try:
        from .mysql import MySQLStore
    except ImportError:
        raise ConfigError(
            "the MySQL / MariaDB store needs PyMySQL: pip install 'memvault[mysql]'"
        ) from None
    return MySQLStore(url, migrate_to=settings.migrate_to)


def _postgres(url: str, settings: _Settings) -> Store:
    # Imported here: the drivers are an optional extra, needed only for this scheme.
    try:
        from .postgres import PostgresStore
    except ImportError:
        raise ConfigError(
            "the PostgreSQL store needs the psycopg driver: pip install 'memvault[postgres]'"
        ) from None
    return PostgresStore(url, migrate_to=settings.migrate_to)


SCHEMES: dict[str, Scheme] = {
    "sqlite": Scheme(_sqlite_url, "sqlite:///absolute/path.db"),
    "postgresql": Scheme(_postgres, "postgresql://user@host/database"),
    "postgres": Scheme(_postgres),
    "mysql": Scheme(_mysql, "mysql://user:password@host/database"),
    "mariadb": Scheme(_mysql),
    "memory": Scheme(_memory, "memory://"),
}
"""Every URL scheme ``open_store`` knows (``+driver`` suffixes ignored), in the order the
error messages list them: a new backend is one row here."""


__all__ = ["SCHEMES", "Scheme", "check_location", "open_store", "shown_location", "sqlite_file"]
