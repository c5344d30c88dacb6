"""``LRUCache``: a thread-safe mapping that keeps only its ``maxsize`` most recently used items.

The servers keep one small object per (user, agent) a request names (the builtin
memory files, the MCP tools); agent ids are free-form, so without a bound a caller
could grow the process without limit. An evicted object is rebuilt from disk the next
time its key comes back, so eviction loses nothing but the time to rebuild it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from .errors import ValidationError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_MAXSIZE = 256


class LRUCache(Generic[K, V]):
    """At most ``maxsize`` items; using one (get, put) makes it the last to be evicted."""

    def __init__(self, maxsize: int = DEFAULT_MAXSIZE) -> None:
        if maxsize < 1:
            raise ValidationError(f"an LRU cache holds at least 1 item, not {maxsize}")
        self.maxsize = maxsize
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def setdefault(self, key: K, value: V) -> V:
        """The item already under ``key`` if there is one (another thread was first), else
        ``value``, now stored; the least recently used item goes if the cache is full."""
        with self._lock:
            current = self._items.get(key)
            if current is not None:
                self._items.move_to_end(key)
                return current
            self._items[key] = value
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)
            return value

    def get_or_create(self, key: K, create: Callable[[], V]) -> V:
        """The item under ``key``, made by ``create()`` (outside the lock) when missing."""
        found = self.get(key)
        return found if found is not None else self.setdefault(key, create())

    def discard_where(self, doomed: Callable[[K], bool]) -> None:
        with self._lock:
            for key in [k for k in self._items if doomed(k)]:
                del self._items[key]

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


__all__ = ["DEFAULT_MAXSIZE", "LRUCache"]
