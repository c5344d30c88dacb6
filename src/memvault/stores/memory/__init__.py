"""An in-memory ``Store`` for tests and throwaway vaults (``memory://``): ``store`` (entries,
keyword search, vectors, sensitive data, profiles, the ledger, versions) with the
``graph``, ``workspace`` and ``stats`` halves, each in plain dicts under one lock."""

from __future__ import annotations

from .store import MemoryStore

__all__ = ["MemoryStore"]
