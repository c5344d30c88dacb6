"""Storage backends behind one small protocol (``Store``)."""

from .base import NO_FILTER, EntryFilter, KeywordWeights, SearchDoc, Store, View
from .memory import MemoryStore
from .sqlite import SQLiteStore

__all__ = [
    "NO_FILTER",
    "EntryFilter",
    "KeywordWeights",
    "MemoryStore",
    "SQLiteStore",
    "SearchDoc",
    "Store",
    "View",
]
