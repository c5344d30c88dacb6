"""Storage backends behind small protocols, joined in ``Store``; ``open_store`` picks one."""

from .factory import open_store, sqlite_file
from .memory import MemoryStore
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
