"""What every recall channel shares: the query as channels see it, the pool of entries
one search has read, and the ``Channel`` interface.

A channel returns ``(entry id, raw score)`` pairs, best first; fusion only looks at
the order, and ``explain`` shows the scores. Every channel is handed the caller's
filter so it can apply it inside its own query (the keyword channel does, in the
store; the vector channel checks it on the entries it finds). The entries a channel
reads go into the search's :class:`Pool`, so no entry is read twice and later
channels know what earlier ones found. The channels themselves live in
``retrieval.channels`` (keyword, vector) and ``retrieval.graph``; both stand on this
module, so neither needs the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..embed.base import Vectors
from ..model import MemoryEntry
from ..stores.protocols import Store
from ..stores.values import EntryFilter, View


@dataclass(frozen=True, slots=True)
class Query:
    """A search text as the channels see it.

    ``terms`` are the keyword terms (stop and question words dropped, and the tokens
    of a named person when other terms remain); ``phrases`` are the text's CJK runs as
    phrases of bigram tokens, which the keyword channel searches beside the terms so
    that an entry holding a run contiguously outranks one with its bigrams scattered;
    ``person`` is the one known person the text names, if any.
    """

    text: str
    terms: tuple[str, ...]
    person: str | None = None
    phrases: tuple[str, ...] = ()


class Pool:
    """The entries one search has read so far, which ids earlier channels ranked, and
    what the channels prepared for it (``Channel.prepare``), by channel name."""

    def __init__(self, store: Store, view: View) -> None:
        self._store = store
        self._view = view
        self.entries: dict[str, MemoryEntry] = {}
        self.ranked: set[str] = set()
        self.query_vector: Vectors | None = None  # the query's embedding, once embedded
        self.prepared: dict[str, Any] = {}

    def add(self, entries: Iterable[MemoryEntry]) -> None:
        for entry in entries:
            self.entries[entry.id] = entry

    def fetch(self, entry_ids: Sequence[str]) -> None:
        """Read the entries among ``entry_ids`` not read yet (those outside the view stay out)."""
        unknown = [i for i in entry_ids if i not in self.entries]
        self.add(self._store.get_many(self._view, unknown))


class Channel(Protocol):
    """One way of finding entries for a query."""

    name: str

    def prepare(self, view: View, query: Query, pool: Pool) -> None:
        """Start, before any channel ranks, what does not depend on the others (kept in
        ``pool.prepared``), so it overlaps their work; may do nothing."""
        ...

    def rank(
        self, view: View, query: Query, depth: int, flt: EntryFilter, pool: Pool
    ) -> list[tuple[str, float]]:
        """Up to ``depth`` ids of entries in ``view`` matching ``flt``, best first, with
        the channel's raw score; every returned entry is in ``pool`` afterwards."""
        ...


__all__ = ["Channel", "Pool", "Query"]
