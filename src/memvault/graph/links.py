"""Keeping an entry's links in the graph current, inside the write's own transaction.

The write path calls :class:`Linker` after it stores, updates or before it deletes
entries, inside the same ``atomic()`` block, so an entry and its links are never seen
apart. What is extracted is the entry's text as stored (after redaction: a redacted
name never becomes an entity); the entry's speaker is a person.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import MemoryEntry
from ..stores.protocols import EntityGraph
from .extract import Extraction, Extractor


def entry_text(entry: MemoryEntry) -> str:
    """The text of an entry extraction reads: its title, description and content."""
    return "\n".join(p for p in (entry.name, entry.description, entry.content) if p)


class Linker:
    """Extracts and links entries of a store that has the graph (``EntityGraph``)."""

    def __init__(self, store: EntityGraph, extractor: Extractor, person_key: str | None) -> None:
        self.store = store
        self.extractor = extractor
        self.person_key = person_key

    def extraction(self, entry: MemoryEntry) -> Extraction:
        people: list[str] = []
        if self.person_key:
            speaker = entry.metadata.get(self.person_key)
            if isinstance(speaker, str) and speaker.strip():
                people.append(speaker)

        def known(keys: Sequence[str]) -> dict[str, str]:
            return self.store.find_entities(entry.user_id, keys)

        return self.extractor.extract(entry_text(entry), known=known, people=people)

    def link(self, entries: Sequence[MemoryEntry]) -> None:
        """Link new (or changed) entries; call inside the write's transaction."""
        for entry in entries:
            found = self.extraction(entry)
            self.store.link_entities(entry.user_id, entry.id, found.mentions, found.relations)

    def unlink(self, user_id: str, entry_ids: Sequence[str]) -> None:
        """Drop the links of entries about to be deleted (ids inside the caller's view)."""
        self.store.unlink_entries(user_id, entry_ids)


__all__ = ["Linker", "entry_text"]
