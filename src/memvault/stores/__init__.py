"""Storage backends behind small protocols, joined in ``Store``; ``open_store`` picks one.

``MemoryStore`` is loaded when first named: a process on SQLite never needs it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .factory import open_store, sqlite_file
from .protocols import (
    Admin,
    EntryStore,
    KeywordIndex,
    RevealStore,
    Store,
    TermPlanner,
    Transactional,
    VectorStore,
)
from .sqlite import SQLiteStore
from .values import NO_FILTER, EntryFilter, KeywordWeights, SearchDoc, View

if TYPE_CHECKING:
    from .memory import MemoryStore


def __getattr__(name: str) -> object:
    if name == "MemoryStore":
        from .memory import MemoryStore

        return MemoryStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "NO_FILTER",
    "Admin",
    "EntryFilter",
    "EntryStore",
    "KeywordIndex",
    "KeywordWeights",
    "MemoryStore",
    "RevealStore",
    "SQLiteStore",
    "SearchDoc",
    "Store",
    "TermPlanner",
    "Transactional",
    "VectorStore",
    "View",
    "open_store",
    "sqlite_file",
]
