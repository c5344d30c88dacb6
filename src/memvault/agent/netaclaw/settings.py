"""NetaClaw's agent memory settings (seed 002, section 8.1) under memvault's names.

A NetaClaw agent's config holds ``memory: {enabled, backend: 'mysql' | 'sqlite',
sqlitePath?, prefetchLimit?}``. memvault keeps the same choices per agent as
``{enabled, store, prefetch_limit}`` (``agent.stores``), and takes the seed's keys too:

* ``prefetchLimit`` is ``prefetch_limit``; ``enabled`` is the same key;
* ``backend: 'sqlite'`` with ``sqlitePath`` is ``store: <that path>``; without a path it is
  the seed's default file, ``<home>/memory/memory.db`` (memvault's home stands for
  NetaClaw's ``dataDir``); a ``sqlitePath`` alone implies ``sqlite``;
* ``backend: 'mysql'`` is the default store (``store: null``): NetaClaw's MySQL backend
  is the application's own database connection, which in memvault is the default store
  (``MEMVAULT_STORE=mysql://…`` puts it on MySQL).

A record never mixes the two spellings of one setting: that is refused, naming both.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import ValidationError

#: The seed's keys this module translates.
SEED_KEYS = ("backend", "sqlitePath", "prefetchLimit")
BACKENDS = ("mysql", "sqlite")


def default_sqlite_path(home: Path) -> Path:
    """Where a ``backend: 'sqlite'`` agent without a ``sqlitePath`` keeps its memories."""
    return Path(home) / "memory" / "memory.db"


def from_seed(raw: Mapping[str, Any], *, home: Path) -> dict[str, Any]:
    """``raw`` with the seed's keys turned into memvault's (other keys kept as they are,
    for the settings model to check)."""
    if not any(key in raw for key in SEED_KEYS):
        return dict(raw)
    out = {k: v for k, v in raw.items() if k not in SEED_KEYS}
    if "prefetchLimit" in raw:
        _one_spelling(raw, "prefetchLimit", "prefetch_limit")
        out["prefetch_limit"] = raw["prefetchLimit"]
    backend = raw.get("backend")
    path = raw.get("sqlitePath")
    if backend is None and path is None:
        return out
    _one_spelling(raw, "backend" if "backend" in raw else "sqlitePath", "store")
    if backend is None:
        backend = "sqlite"
    if backend not in BACKENDS:
        raise ValidationError(
            f"backend: {backend!r} is not one of {', '.join(BACKENDS)}", field="backend"
        )
    if backend == "mysql":
        if path is not None:
            raise ValidationError(
                "sqlitePath is for backend 'sqlite'; backend 'mysql' keeps the agent's "
                "memories in the default store",
                field="sqlitePath",
            )
        out["store"] = None
        return out
    if path is not None and not isinstance(path, str):
        raise ValidationError("sqlitePath must be a file path", field="sqlitePath")
    out["store"] = path if path else str(default_sqlite_path(home))
    return out


def _one_spelling(raw: Mapping[str, Any], seed: str, own: str) -> None:
    if own in raw:
        raise ValidationError(
            f"{seed} and {own} name the same setting: give one of them", field=own
        )


__all__ = ["BACKENDS", "SEED_KEYS", "default_sqlite_path", "from_seed"]
