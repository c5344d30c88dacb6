"""The read path: channels -> fusion -> weighing, as one computation with two faces.

``Recall.run`` ranks a view's entries for a query and keeps, for every candidate,
what each step made of it (its rank and raw score in each channel, the fused score,
each boost factor). ``Vault.search`` turns that into hits; ``Vault.explain`` returns
it as data. Both call the same code, so what ``explain`` shows is what ``search``
did. Packing the hits into a prompt block is ``memvault.render.pack``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from ..config import VaultConfig
from ..errors import ValidationError
from ..model import Hit, MemoryEntry
from ..stores.base import EntryFilter, Store, View
from ..text import QUESTION_WORDS, query_phrases, query_terms
from ..validation import check_encodable
from .channels import Channel, Pool, Query
from .fusion import Boosts, rrf
from .people import People


@dataclass(frozen=True, slots=True)
class ChannelScore:
    """Where one channel put a candidate: its rank (from 1) and the channel's raw score
    (BM25 for ``keyword``, cosine similarity for ``vector``)."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Scored:
    """One candidate after weighing: ``score = fused * importance * recency * tier * person``."""

    entry: MemoryEntry
    channels: dict[str, ChannelScore]
    fused: float
    importance: float
    recency: float
    tier: float
    person: float
    score: float

    @property
    def sources(self) -> dict[str, float]:
        """Each channel's raw score, as ``Hit.sources`` carries it."""
        return {name: found.score for name, found in self.channels.items()}

    def hit(self) -> Hit:
        return Hit(self.entry, self.score, self.sources)


@dataclass(frozen=True, slots=True)
class Recalled:
    """Every candidate of one search, best first, and what the search worked with."""

    query: Query
    depth: int
    now: datetime
    channels: tuple[str, ...]  # the channels that ran, in order
    candidates: list[Scored]
    expired: list[str]  # fused candidates left out because they had expired at ``now``


def check_query(query: object, max_bytes: int) -> str:
    """A search text, or ``ValidationError`` (not a string, empty, over ``max_bytes``)."""
    if not isinstance(query, str):
        raise ValidationError("query must be a string", field="query")
    if not query.strip():
        raise ValidationError("query is empty: send the text to search for", field="query")
    size = len(check_encodable(query, "query").encode("utf-8"))
    if size > max_bytes:
        raise ValidationError(
            f"query is {size} bytes, over the limit of {max_bytes}: send a shorter query",
            field="query",
        )
    return query


def relevant(sources: Mapping[str, float], min_similarity: float) -> bool:
    """Whether a hit is worth putting in a prompt: the keyword channel matched it, or
    its cosine similarity reaches ``min_similarity`` (``context.min_similarity``)."""
    return "keyword" in sources or sources.get("vector", -1.0) >= min_similarity


class Recall:
    """Runs the channels over a view, fuses their rankings and weighs the result."""

    def __init__(
        self,
        store: Store,
        config: VaultConfig,
        channels: Sequence[Channel],
        people: People,
        clock: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.config = config
        self.channels = tuple(channels)
        self.people = people
        self.clock = clock
        rc = config.retrieval
        self.weights = {"keyword": rc.keyword_weight, "vector": rc.vector_weight}
        self.boosts = Boosts(
            importance=rc.importance_boost,
            recency=rc.recency_boost,
            half_life_days=rc.half_life_days,
            cold=rc.cold_factor,
            archive=rc.archive_factor,
        )

    def query(self, user_id: str, text: str) -> Query:
        """The keyword terms and phrases, and the named person, of a search text."""
        kw = self.config.keyword
        skip = QUESTION_WORDS if kw.drop_question_words else frozenset()
        person, person_tokens = self.people.named(user_id, text)
        terms = query_terms(text, kw.max_query_terms, skip=skip)
        if person_tokens and len(set(terms) - person_tokens) > 0:
            # The name itself matches every entry of that person: let the boost do that job.
            terms = [t for t in terms if t not in person_tokens]
        phrases = tuple(query_phrases(text)) if kw.phrase_weight > 0 else ()
        return Query(text, tuple(terms), person, phrases)

    def run(self, view: View, text: str, flt: EntryFilter, limit: int) -> Recalled:
        """Every candidate for ``text`` in ``view``, best first (``search`` keeps ``limit``)."""
        rc = self.config.retrieval
        depth = max(limit, rc.candidates)
        query = self.query(view.user_id, text)
        now = self.clock()
        # Expiry is part of the view: each channel leaves expired entries out in its own
        # query, so they never take a candidate slot.
        flt = replace(flt, valid_at=now)
        pool = Pool(self.store, view)
        found: dict[str, dict[str, ChannelScore]] = {}
        rankings: dict[str, list[str]] = {}
        for channel in self.channels:
            ranked = channel.rank(view, query, depth, flt, pool)
            rankings[channel.name] = [entry_id for entry_id, _ in ranked]
            for rank, (entry_id, score) in enumerate(ranked, start=1):
                found.setdefault(entry_id, {})[channel.name] = ChannelScore(rank, score)
            pool.ranked.update(rankings[channel.name])
        fused = rrf(rankings, k=rc.rrf_k, weights=self.weights)
        candidates: list[Scored] = []
        expired: list[str] = []
        for entry_id, fused_score in fused.items():
            entry = pool.entries[entry_id]
            # A safety net: a channel that cannot filter by expiry still never recalls one.
            if entry.expires_at is not None and entry.expires_at <= now:
                expired.append(entry_id)
                continue
            candidates.append(self._weigh(entry, found[entry_id], fused_score, query, now))
        candidates.sort(key=lambda c: c.score, reverse=True)
        names = tuple(channel.name for channel in self.channels)
        return Recalled(query, depth, now, names, candidates, expired)

    def _weigh(
        self,
        entry: MemoryEntry,
        channels: dict[str, ChannelScore],
        fused: float,
        query: Query,
        now: datetime,
    ) -> Scored:
        importance, recency, tier = self.boosts.factors(entry, now)
        score = fused * (importance * recency * tier)
        person = 1.0
        key = self.config.retrieval.person_key
        if query.person is not None and key and entry.metadata.get(key) == query.person:
            person = 1.0 + self.config.retrieval.person_boost
            score = score * person
        return Scored(entry, channels, fused, importance, recency, tier, person, score)


__all__ = ["ChannelScore", "Recall", "Recalled", "Scored", "check_query", "relevant"]
