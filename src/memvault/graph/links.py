"""Keeping an entry's links in the graph current, inside the write's own transaction.

The write path calls :class:`Linker` after it stores, updates or before it deletes
entries, inside the same ``atomic()`` block, so an entry and its links are never seen
apart. What is extracted is the entry's text as stored (after redaction: a redacted
name never becomes an entity); the entry's speaker is a person.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from ..model import MemoryEntry
from ..names import candidate_keys, display_name, name_key
from ..stores.graph_values import UNKNOWN, EntryMentions, Mention, RelationMention
from ..stores.protocols import EntityGraph
from .extract import Extractor
from .extraction import Extraction


def entry_text(entry: MemoryEntry) -> str:
    """The text of an entry extraction reads: its title, description and content."""
    return "\n".join(p for p in (entry.name, entry.description, entry.content) if p)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def with_stated(entry: MemoryEntry, found: Extraction) -> Extraction:
    """``found`` with what the entry states about the graph itself, first: the
    knowledge-graph entries of ``mcp.graph`` (metadata ``graph``) name their entity
    (``entity``: the entry's name, typed ``entity_type``) or their relation
    (``relation``: ``from``, ``to``, ``relation_type``)."""
    meta = entry.metadata
    stated: list[Mention] = []
    relations: list[RelationMention] = []
    if meta.get("graph") == "entity" and _text(entry.name):
        kind = _text(meta.get("entity_type")) or UNKNOWN
        stated.append(Mention(name_key(entry.name), display_name(entry.name), kind, True))
    elif meta.get("graph") == "relation":
        source, target = _text(meta.get("from")), _text(meta.get("to"))
        said = _text(meta.get("relation_type"))
        if source and target and said:
            stated += [
                Mention(name_key(source), display_name(source)),
                Mention(name_key(target), display_name(target)),
            ]
            relations.append(RelationMention(name_key(source), name_key(target), said))
    stated = [m for m in stated if m.key]
    if not stated:
        return found
    keys = {m.key for m in stated}
    mentions = (*stated, *(m for m in found.mentions if m.key not in keys))
    # A relation entry states its relation: co-occurrence would only repeat it vaguely.
    rest = () if relations else found.relations
    return Extraction(tuple(mentions), (*relations, *rest), found.by)


class Linker:
    """Extracts and links entries of a store that has the graph (``EntityGraph``)."""

    def __init__(self, store: EntityGraph, extractor: Extractor, person_key: str | None) -> None:
        self.store = store
        self.extractor = extractor
        self.person_key = person_key

    def extraction(self, entry: MemoryEntry) -> Extraction:
        candidates = candidate_keys(entry_text(entry), max_words=3)
        have = set(self.store.find_entities(entry.user_id, candidates)) if candidates else set()
        return self._extraction(entry, candidates, have)

    def _extraction(
        self, entry: MemoryEntry, candidates: Sequence[str], have: Set[str]
    ) -> Extraction:
        """What ``entry`` names, given its candidate keys and those of them (or more)
        that already name an entity of its user (``have``)."""
        people: list[str] = []
        if self.person_key:
            speaker = entry.metadata.get(self.person_key)
            if isinstance(speaker, str) and speaker.strip():
                people.append(speaker)

        def known(keys: Sequence[str]) -> dict[str, str]:
            return {k: k for k in keys if k in have}

        found = self.extractor.extract(
            entry_text(entry),
            user_id=entry.user_id,
            agent_id=entry.agent_id,
            known=known,
            people=people,
            candidates=candidates,
        )
        return with_stated(entry, found)

    def link(self, entries: Sequence[MemoryEntry], *, new: bool = False) -> None:
        """Link new (``new``) or changed entries; call inside the write's transaction.

        An entry held for review names nothing until a person approves it (then the
        review links it): the names in held text would otherwise reach models through
        the entity graph (``memvault://entities``, the graph tools).

        New entries ask the store once per batch which of their candidate keys name an
        entity already (a long answer has thousands of them, and a batch shares most),
        and the keys each entry adds are remembered for the entries after it: each sees
        the names it would see linked alone, one after another; the links are written
        at once (``link_new_entries``). Changed entries may drop names (an entity left
        unlinked goes), so each asks for itself."""
        if not new:
            for entry in entries:
                if entry.quarantine is not None:
                    self.store.link_entities(entry.user_id, entry.id, (), (), new=False)
                    continue
                found = self.extraction(entry)
                self.store.link_entities(
                    entry.user_id, entry.id, found.mentions, found.relations, new=False
                )
            return
        linked = [e for e in entries if e.quarantine is None]
        candidates = {e.id: candidate_keys(entry_text(e), max_words=3) for e in linked}
        asked: dict[str, dict[str, None]] = {}
        for entry in linked:
            asked.setdefault(entry.user_id, {}).update(dict.fromkeys(candidates[entry.id]))
        names = {
            user_id: set(self.store.find_entities(user_id, list(keys))) if keys else set()
            for user_id, keys in asked.items()
        }
        linking: dict[str, list[EntryMentions]] = {}
        for entry in linked:
            have = names[entry.user_id]
            found = self._extraction(entry, candidates[entry.id], have)
            if found.mentions:
                mentions = EntryMentions(entry.id, found.mentions, found.relations)
                linking.setdefault(entry.user_id, []).append(mentions)
                have.update(m.key for m in found.mentions if m.key)
        for user_id, mentioned in linking.items():
            self.store.link_new_entries(user_id, mentioned)

    def unlink(self, user_id: str, entry_ids: Sequence[str]) -> None:
        """Drop the links of entries about to be deleted (ids inside the caller's view)."""
        self.store.unlink_entries(user_id, entry_ids)


__all__ = ["Linker", "entry_text"]
