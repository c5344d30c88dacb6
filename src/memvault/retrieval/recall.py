"""The read path: channels -> fusion -> weighing, as one computation with two faces.

``Recall.ask`` checks what a caller asked for (a :class:`Search`); ``Recall.run``
ranks the view's entries for it and keeps, for every candidate, what each step made
of it (its rank and raw score in each channel, the fused score, each boost factor).
With ``retrieval.rerank`` (the default) the fused candidates are then re-ordered by
the learned second stage (``retrieval.rerank``), whose score and features each
candidate keeps too. ``Recall.hits`` turns that into ``Vault.search``'s hits;
``explain.explain`` returns it as data. Both call the same code, so what ``explain``
shows is what ``search`` did. ``Recall.context`` packs the relevant hits into a prompt block
(``memvault.render.pack``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from ..config import VaultConfig
from ..embed.base import Vectors
from ..errors import ValidationError
from ..lifecycle.history import states_at, validity_filter
from ..model import Hit, MemoryEntry
from ..render import pack
from ..results.recall import ChannelScore
from ..security.quarantine import screened_text
from ..security.scan.learned import ModelScreen
from ..stores.protocols import Store
from ..stores.values import EntryFilter, View
from ..text import QUESTION_WORDS, has_cjk, query_phrases, query_terms
from ..validation import check_encodable, check_limit
from .assembled import split_instructions
from .base import Channel, Pool, Query
from .channels import VectorChannel
from .fusion import Boosts, rrf
from .people import People
from .rerank import (
    FEATURES,
    Candidate,
    Model,
    OwnWords,
    calibration_for,
    features,
    reads,
    squash,
)

log = logging.getLogger(__name__)

_MODEL_FLAGGED = "the model screen reads it as an instruction to the assistant"


@dataclass(frozen=True, slots=True)
class Scored:
    """One candidate after weighing: ``score = fused * importance * recency * tier * person``,
    or, when the second stage ran, ``score = squash(logit(rerank) + log(importance *
    recency * tier))`` (``rerank``: its score in (0, 1)), with
    ``features`` what it read (named as ``rerank.FEATURES``) and ``fusion_rank`` the
    candidate's place (from 1) in the fused order before it."""

    entry: MemoryEntry
    channels: dict[str, ChannelScore]
    fused: float
    importance: float
    recency: float
    tier: float
    person: float
    score: float
    fusion_rank: int = 0
    rerank: float | None = None
    features: dict[str, float] | None = None

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
    vector: Vectors | None = None  # the query's embedding (None: the vector channel did not run)
    stage: str = "fusion"  # the order's last stage: "fusion" or "rerank"
    stage_note: str = ""  # why the second stage did not run, when it was configured


@dataclass(frozen=True, slots=True)
class Search:
    """One search as its caller asked for it, every argument checked."""

    view: View
    text: str
    flt: EntryFilter
    limit: int
    as_of: datetime | None = None  # recall as it was then (``lifecycle.history``)
    include_superseded: bool = False
    for_model: bool = False  # the hits go to a model: read as a prompt block (``screened``)


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


class Recall:
    """Runs the channels over a view, fuses their rankings and weighs the result."""

    def __init__(
        self,
        store: Store,
        config: VaultConfig,
        channels: Sequence[Channel],
        people: People,
        clock: Callable[[], datetime],
        reranker: Model | None = None,
        embedded: Callable[[MemoryEntry], str] = screened_text,
    ) -> None:
        self.store = store
        # What the embedder reads of an entry: the model screen scores a memory too
        # recent to have a vector on the text its vector will be made of, so its verdict
        # does not change when the vector arrives.
        self.embedded = embedded
        self.config = config
        self.channels = tuple(channels)
        self.people = people
        self.clock = clock
        rc = config.retrieval
        self.weights = {
            "keyword": rc.keyword_weight,
            "vector": rc.vector_weight,
            "graph": rc.graph_weight,
        }
        self.boosts = Boosts(
            importance=rc.importance_boost,
            recency=rc.recency_boost,
            half_life_days=rc.half_life_days,
            cold=rc.cold_factor,
            archive=rc.archive_factor,
            demoted_decision=rc.demoted_decision_factor,
            reinforce_after=config.lifecycle.reinforce_after,
            reinforce_share=config.lifecycle.reinforce_share,
        )
        # Told which entries each search and context showed (the vault's access log).
        self.on_recall: Callable[[str, list[str]], None] | None = None
        self.vector = next((c for c in self.channels if isinstance(c, VectorChannel)), None)
        self.reranker, self.stage_note = self._check_reranker(reranker)
        self.own_words = OwnWords()  # the second stage's coverage, kept between searches
        # The model screen reads the vectors this vault stores: only with its own model.
        self.screen = (
            ModelScreen.for_embedder(self.vector.queries.embedder)
            if self.vector is not None and config.security.model_screen == "auto"
            else None
        )

    def _check_reranker(self, model: Model | None) -> tuple[Model | None, str]:
        """The model when this vault's channels can feed it, else None and why. Its
        features name no embedder: cosines enter calibrated (``rerank.calibration_for``),
        everything else as ranks and shares, so one model serves every embedder."""
        if model is None:
            return None, ""
        if self.vector is None:  # keyword only: the model was trained on both channels
            return None, "keyword search only: the fused order is final"
        return model, ""

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

    def ask(
        self,
        query: object,
        view: View,
        limit: object,
        flt: EntryFilter,
        *,
        as_of: datetime | None = None,
        include_superseded: bool = False,
        for_model: bool = False,
    ) -> Search:
        """A search of ``query`` in ``view`` (the caller's recall view), narrowed by
        ``flt``: the view and the filter come checked (``engine.views``), the text and
        ``limit`` are checked here."""
        text = check_query(query, self.config.max_query_bytes)
        checked = check_limit(limit, maximum=1000)
        return Search(
            view,
            text,
            flt,
            checked,
            as_of=as_of,
            include_superseded=include_superseded,
            for_model=for_model,
        )

    def hits(self, search: Search) -> list[Hit]:
        """The best ``search.limit`` candidates as hits (what ``Vault.search`` returns);
        for a model (``search.for_model``), less what the block's screen withholds."""
        hits = [c.hit() for c in self.run(search).candidates[: search.limit]]
        if search.for_model:
            hits, _ = self.screened(search.view, hits)
        self._recalled(search, hits)
        return hits

    def _recalled(self, search: Search, hits: list[Hit]) -> None:
        if self.on_recall is not None and hits:
            self.on_recall(search.view.user_id, [h.entry.id for h in hits])

    def context(
        self, search: Search, max_tokens: object, select: Callable[[Recalled, int], list[Hit]]
    ) -> str:
        """The hits ``select`` finds relevant (``retrieval.relevance``'s gate) that are not
        held for review, packed into ``max_tokens`` (default ``context.max_tokens``) as a
        ``<memory-context>`` block."""
        cc = self.config.context
        budget = cc.max_tokens if max_tokens is None else max_tokens
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 16:
            raise ValidationError("max_tokens must be an integer >= 16", field="max_tokens")
        return pack(self.relevant(search, select), budget)

    def relevant(self, search: Search, select: Callable[[Recalled, int], list[Hit]]) -> list[Hit]:
        """The hits ``context`` packs, best first (recorded as recalled): a caller that
        packs them into a budget of its own calls this and ``render.pack``. The caller's
        search leaves held entries out (``engine.views.context_search``)."""
        chosen, _ = self.screened(search.view, select(self.run(search), search.limit))
        self._recalled(search, chosen)
        return chosen

    def screened(self, view: View, hits: list[Hit]) -> tuple[list[Hit], dict[str, str]]:
        """``hits`` as a prompt block may show them, and why each other one was left out:
        the model screen reads each memory (``unflagged``), then the block is read as a
        whole, in order, for instructions split across memories (``assembled``)."""
        kept = self.unflagged(view, hits)
        left = {h.entry.id for h in hits} - {h.entry.id for h in kept}
        why = dict.fromkeys(left, _MODEL_FLAGGED)
        split = split_instructions(kept)
        for out in split:
            log.info("left out of the prompt block: %s: %s", out.entry_id, out.reason)
            why[out.entry_id] = out.reason
        if split:
            kept = [h for h in kept if h.entry.id not in why]
        return kept, why

    def unflagged(self, view: View, hits: list[Hit]) -> list[Hit]:
        """``hits`` less the memories the model screen (``security.scan.learned``) reads as
        instructions to the assistant: scored by their stored vectors, or by embedding
        the text of one too recent to have a vector. Approved memories always stay."""
        if self.screen is None or self.vector is None or not hits:
            return hits
        screen = self.screen
        ids = [h.entry.id for h in hits if h.entry.approved_at is None]
        if not ids:
            return hits
        sims = self.vector.index.similarity(view, screen.probe, ids)
        scores = {i: s + screen.weights.bias for i, s in sims.items()}
        pending = [h.entry for h in hits if h.entry.id in set(ids) - scores.keys()]
        if pending:
            fresh = screen.scores([self.embedded(e) for e in pending])
            scores.update(zip((e.id for e in pending), fresh, strict=True))
        return [h for h in hits if not screen.flags(scores.get(h.entry.id, float("-inf")))]

    def run(self, search: Search) -> Recalled:
        """Every candidate for the search, best first (``hits`` keeps ``search.limit``)."""
        rc = self.config.retrieval
        view = search.view
        depth = max(search.limit, rc.candidates)
        query = self.query(view.user_id, search.text)
        now = search.as_of or self.clock()
        # Expiry and supersession are part of the view: each channel leaves expired and
        # superseded entries out in its own query, so they never take a candidate slot.
        flt = validity_filter(
            replace(search.flt, valid_at=now),
            now=now,
            as_of=search.as_of,
            include_superseded=search.include_superseded,
        )
        pool = Pool(self.store, view)
        found: dict[str, dict[str, ChannelScore]] = {}
        rankings: dict[str, list[str]] = {}
        for channel in self.channels:
            channel.prepare(view, query, pool)
        for channel in self.channels:
            ranked = channel.rank(view, query, depth, flt, pool)
            rankings[channel.name] = [entry_id for entry_id, _ in ranked]
            for rank, (entry_id, score) in enumerate(ranked, start=1):
                found.setdefault(entry_id, {})[channel.name] = ChannelScore(rank, score)
            pool.ranked.update(rankings[channel.name])
        fused = rrf(rankings, k=rc.rrf_k, weights=self.weights)
        if search.as_of is not None:
            # Each entry as it was then; one reinstated later by an undo was not current
            # in between, which only its versions tell.
            kept = self.store.versions(view.user_id, list(fused))
            then = states_at([pool.entries[i] for i in fused], kept, search.as_of)
            pool.entries.update(then)
            fused = {i: score for i, score in fused.items() if i in then}
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
        candidates = [replace(c, fusion_rank=i) for i, c in enumerate(candidates, start=1)]
        names = tuple(channel.name for channel in self.channels)
        stage, note = "fusion", self.stage_note
        if self.reranker is not None and candidates:
            if self.vector is not None and calibration_for(self.vector.index.model) is None:
                note = (
                    "no cosine calibration for this embedding model (retrieval.rerank knows "
                    "the local models): fused order"
                )
            elif self.vector is not None and not reads(self.vector.index.model, query.text):
                # An English-only model's cosines of CJK text are no evidence: ranked by
                # them, a Chinese query met its answer below unrelated entries.
                note = "the embedding model does not read this query's script: fused order"
            else:
                candidates = self._rerank(self.reranker, view, pool, query, candidates)
                stage = "rerank"
        return Recalled(
            query=query,
            depth=depth,
            now=now,
            channels=names,
            candidates=candidates,
            expired=expired,
            vector=pool.query_vector,
            stage=stage,
            stage_note=note,
        )

    def _rerank(
        self, model: Model, view: View, pool: Pool, query: Query, candidates: list[Scored]
    ) -> list[Scored]:
        """The candidates re-ordered by the second stage (ties keep the fused order)."""
        cosines: dict[str, float] = {}
        if self.vector is not None:
            missing = [c.entry.id for c in candidates if "vector" not in c.channels]
            cosines = self.vector.similarities(view, pool, missing)
        rows = []
        for c in candidates:
            kw, vec = c.channels.get("keyword"), c.channels.get("vector")
            rows.append(
                Candidate(
                    entry=c.entry,
                    keyword=None if kw is None else (kw.rank, kw.score),
                    vector=None if vec is None else (vec.rank, vec.score),
                    cosine=vec.score if vec is not None else cosines.get(c.entry.id),
                    fused=c.fused,
                    boost=c.importance * c.recency * c.tier,
                    person=c.person > 1.0,
                )
            )
        calibration = None if self.vector is None else calibration_for(self.vector.index.model)
        matrix = features(
            rows,
            query.terms,
            cjk=has_cjk(query.text),
            calibration=calibration or (1.0, 0.0),
            kept=self.own_words,
        )
        logits = model.logits(matrix)
        # The lifecycle weighs the model's score as it weighs the fused one: importance,
        # recency and tier reorder near-ties, whatever the weights learned from benchmarks
        # where every entry has the same importance, age and tier. In logit space, so a
        # score that saturates near 1 still orders by the model, not by the factors.
        boosts = np.array([c.importance * c.recency * c.tier for c in candidates])
        weighed = logits + np.log(boosts)
        order = np.lexsort((np.arange(len(candidates)), -weighed))
        scores, final = squash(logits), squash(weighed)
        out = []
        for i in order.tolist():
            named = dict(zip(FEATURES, matrix[i].tolist(), strict=True))
            out.append(
                replace(
                    candidates[i], rerank=float(scores[i]), features=named, score=float(final[i])
                )
            )
        return out

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
        return Scored(
            entry=entry,
            channels=channels,
            fused=fused,
            importance=importance,
            recency=recency,
            tier=tier,
            person=person,
            score=score,
        )


__all__ = ["Recall", "Recalled", "Scored", "Search", "check_query"]
