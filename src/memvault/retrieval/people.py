"""The person names recall knows about, for the person boost.

A query that names exactly one known person (a value of ``retrieval.person_key``
metadata, ``speaker`` by default) boosts that person's own entries; the name's own
tokens are then left out of the keyword query, since they match every entry of
that person. Reading the names scans the user's rows, so they are cached per user:
this process's writes keep the cache current, and other processes' writes are
picked up at most once per ``refresh_s``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable

from ..model import MemoryEntry
from ..stores.protocols import Store
from ..text import tokenize

#: Seconds between re-reads of a user's names after another process wrote.
REFRESH_S = 1.0


class People:
    """Per-user cache of lower-cased person name -> the name as stored."""

    def __init__(
        self,
        store: Store,
        key: str | None,
        *,
        refresh_s: float = REFRESH_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.key = key
        self.refresh_s = refresh_s
        self._monotonic = monotonic
        # user -> (store change counter, monotonic time read, lower-cased name -> name)
        self._cache: dict[str, tuple[int, float, dict[str, str]]] = {}

    def names(self, user_id: str) -> dict[str, str]:
        """The user's person names, lower-cased -> as stored ({} when no key is set)."""
        if not self.key:
            return {}
        now = self._monotonic()
        cached = self._cache.get(user_id)
        if cached is not None and now - cached[1] < self.refresh_s:
            return cached[2]  # read too recently to read again: no need to ask the store
        counter = self.store.change_counter()  # a round trip on a server store
        if cached is None or cached[0] != counter:
            values = self.store.metadata_values(user_id, self.key, limit=200)
            people = {n.lower(): n for n in values if isinstance(n, str) and n.strip()}
            cached = (counter, now, people)
            self._cache[user_id] = cached
        return cached[2]

    def named(self, user_id: str, text: str) -> tuple[str | None, frozenset[str]]:
        """The one known person ``text`` names (whole words), and all named people's tokens."""
        people = self.names(user_id)
        if not people:
            return None, frozenset()
        lowered = text.lower()
        named = [
            name
            for low, name in people.items()
            if re.search(r"(?<!\w)" + re.escape(low) + r"(?!\w)", lowered)
        ]
        tokens = frozenset(t for name in named for t in tokenize(name))
        return (named[0] if len(named) == 1 else None), tokens

    def note(self, entries: Iterable[MemoryEntry]) -> None:
        """Keep cached users current after this process's own inserts."""
        if not self.key:
            return
        for entry in entries:
            cached = self._cache.get(entry.user_id)
            name = entry.metadata.get(self.key)
            if cached is not None and isinstance(name, str) and name.strip():
                cached[2].setdefault(name.lower(), name)

    def forget(self, user_id: str) -> None:
        """Drop a user's names (an entry changed or went): read again on the next search."""
        self._cache.pop(user_id, None)


__all__ = ["REFRESH_S", "People"]
