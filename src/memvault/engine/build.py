"""The engine's wiring: every part a ``Vault`` delegates to, made once, in order.

``build`` opens (or takes) the store, settles the embedder against the vault's recorded
model, and makes the services over them: the write path, recall, transfer, history,
decisions, the lifecycle jobs, the profile and the namespaces. It lives apart from
``vault.py`` so that the facade holds the public calls and nothing else; the order here
is the one dependency order of the parts (a part is made after those it uses).

The vault's own ``add`` and ``update`` are handed to the parts that write through the
whole public path (learning from conversations, compression summaries).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from ..config import VaultConfig, load_config
from ..embed.base import Embedder
from ..embed.factory import make_embedder
from ..embed.guard import guarded
from ..errors import ValidationError
from ..graph import Extractor
from ..graph.links import Linker
from ..lifecycle import AccessLog, Maintenance
from ..lifecycle.compress import Compaction, Compressor
from ..lifecycle.domains import DomainClassifier
from ..lifecycle.replacements import replacements_for
from ..llm.client import LLMFor
from ..llm.pool import LLMPool
from ..model import MemoryEntry, Source, utcnow
from ..profile.learn import Learner
from ..profile.profiles import Profiles
from ..profile.remember import Rememberer
from ..retrieval.channels import channels_for
from ..retrieval.people import People
from ..retrieval.recall import Recall, Search
from ..retrieval.relevance import Relevance
from ..retrieval.rerank import load_model
from ..security.protect import Protector
from ..security.scan.learned import ModelHold
from ..security.screen import TextScreen
from ..stores import open_store
from ..stores.protocols import EntityGraph, Store
from .backup import Backup
from .deciding import DecisionService, ReplacementCheck
from .derived import Derived, embed_text
from .history import HistoryService
from .listing import Listing
from .namespaces.admin import Admin
from .namespaces.decisions import Decisions
from .namespaces.entities import Entities
from .namespaces.learning import Learning
from .namespaces.model_view import ModelView
from .namespaces.reveal import Reveal
from .namespaces.workspace import Workspace
from .reveal import RevealService
from .review import ReviewService
from .transfer import Transfer
from .upkeep import Upkeep
from .vector_space import chose_model, settle
from .views import recall_search, recall_view
from .write import Writer, semantic_screen

Words = Mapping[str, object]

#: ``embedder`` not given: the one ``config.embedding`` names (``None`` means none).
UNSET: Any = object()


class Writes(Protocol):
    """The vault's own write calls, which learning and compression write through."""

    @property
    def add(self) -> Callable[..., MemoryEntry]: ...

    @property
    def update(self) -> Callable[..., MemoryEntry]: ...


@dataclass(eq=False)
class Engine:
    """The parts of one vault, made by :func:`build`."""

    config: VaultConfig
    store: Store
    clock: Callable[[], datetime]
    embedder: Embedder | None
    llm: LLMPool
    derived: Derived
    writer: Writer
    recall: Recall
    relevance: Relevance
    transfer: Transfer
    history: HistoryService
    listing: Listing
    decisions: DecisionService
    upkeep: Upkeep
    backup: Backup
    accesses: AccessLog | None
    profiles: Profiles
    learner: Learner
    rememberer: Rememberer
    workspace: Workspace
    entities: Entities
    reveal: Reveal
    review: ReviewService
    decision_space: Decisions
    learning: Learning
    model_view: ModelView
    admin: Admin
    extraction_llm: LLMFor

    def close(self) -> None:
        """Learn from the queued conversations, finish queued embeddings, record pending
        recalls, then close the LLM clients and the store."""
        self.learner.close()
        self.derived.close()
        if self.accesses is not None:
            self.accesses.flush()
        self.llm.close()
        self.store.close()

    def ask(
        self, query: object, user_id: str, agent_id: str | None, limit: object, words: Words
    ) -> Search:
        """A recall's checked search, in the caller's recall view (``views``)."""
        return recall_search(self.recall, query, recall_view(user_id, agent_id), limit, words)


def build(
    path: str | Path | None,
    *,
    store: Store | None,
    config: VaultConfig | None,
    embedder: Embedder | None,
    clock: Callable[[], datetime] | None,
    vault: Writes,
) -> Engine:
    """The parts of ``vault`` on ``path`` or ``store`` (see ``Vault``); the store is
    closed again when a part fails to start."""
    cfg = config if config is not None else load_config()
    if store is not None and path is not None:
        raise ValidationError("pass either a path or a store, not both")
    if store is None:
        store = open_store(
            path if path is not None else cfg.store,
            busy_timeout_ms=cfg.busy_timeout_ms,
            synchronous=cfg.synchronous,
        )
    try:
        # The vault's recorded model decides (engine.vector_space): a default
        # configuration takes it, another chosen model is refused by name.
        settled = settle(
            store,
            make_embedder(cfg.embedding) if embedder is UNSET else embedder,
            chosen=embedder is not UNSET or chose_model(cfg.embedding),
            config=cfg.embedding,
            keyword_only=embedder is None,
        )
        # A broken weights file fails here, before any thread starts.
        rc = cfg.retrieval
        reranker = load_model(rc.rerank_weights) if rc.rerank else None
    except BaseException:
        store.close()
        raise
    return _parts(store, cfg, settled, reranker, clock or utcnow, vault)


def _parts(
    store: Store,
    cfg: VaultConfig,
    embedder: Embedder | None,
    reranker: Any,
    clock: Callable[[], datetime],
    vault: Writes,
) -> Engine:
    add, update = vault.add, vault.update
    protector = Protector(cfg.sensitive, cfg.home)
    people = People(store, cfg.retrieval.person_key)
    # The engine's own calls go through the exit guard: a script that ends without
    # close() while a thread is embedding still exits cleanly (see embed.guard).
    native = guarded(embedder)
    derived = Derived.start(store, people, native, cfg.embedding)
    semantic = semantic_screen(cfg.security.semantic_screen, native)
    # The one screen of the doors that are not entries (cards, tasks, profiles,
    # decision reasons): the same scan and redaction, refusing what it would hold.
    screen = TextScreen(
        scan=cfg.security.scan_writes, redact_pii=cfg.sensitive.enabled, semantic=semantic
    )
    # The LLM (made on first use, every call budgeted and on the ledger: llm_call),
    # for the features switched on to use it.
    llm = LLMPool(cfg.llm, store, clock)
    lc = cfg.lifecycle
    domains = DomainClassifier(llm.call if cfg.domains.llm else None)
    linker = _linker(store, cfg, llm)
    writer = Writer(store, cfg, protector, derived, clock, semantic, domains=domains, linker=linker)
    channels = channels_for(store, cfg, derived.index, native, derived.settle)
    recall = Recall(
        store,
        cfg,
        channels,
        people,
        clock,
        reranker,
        embedded=partial(embed_text, metadata_prefix=cfg.embedding.metadata_prefix),
    )
    reveals = RevealService(store, cfg, protector, clock)
    history = HistoryService(store, writer, clock)
    detector = replacements_for(cfg, llm.call)
    decisions = DecisionService(
        store,
        writer,
        cfg.decisions,
        clock,
        llm.call,
        history,
        screen=screen,
        replaced=None if detector is None else ReplacementCheck(recall, detector),
    )
    # Written on a thread of their own: a batch's commit never lands in a search.
    accesses = AccessLog(store, clock, background=True) if lc.track_access else None
    if accesses is not None:
        recall.on_recall = accesses.record

    def add_summary(user_id: str, fields: dict[str, Any]) -> MemoryEntry:
        """A compression summary, through the whole write path (``lifecycle.compress``)."""
        return add(user_id=user_id, source=Source.EXTRACTION, **fields)

    compressor = Compressor(lc, llm.call if lc.compress_llm else None)
    profiles = Profiles(store, clock, screen)
    compaction = Compaction(store, lc, compressor, add_summary)
    transfer = Transfer(store, writer, derived, reveals.audit)
    extraction = llm.on_model(cfg.extraction.model_name)
    learner = Learner(profiles, extraction, cfg.extraction, clock, add=add, update=update)
    shown = (*cfg.keyword.head_metadata, *cfg.keyword.indexed_metadata)
    review = ReviewService(store, clock, writer)
    # The model screen on the write path: the worker has each new vector. The worker
    # starts only now, its screen in place, so its first back-fill batch is read too.
    hold = None
    if recall.screen is not None and cfg.security.scan_writes:
        hold = ModelHold(recall.screen, review.hold)
    derived.begin(hold)
    listing = Listing(store, history, clock, None if embedder is None else embedder.name)
    return Engine(
        config=cfg,
        store=store,
        clock=clock,
        embedder=embedder,
        llm=llm,
        derived=derived,
        writer=writer,
        recall=recall,
        relevance=Relevance(cfg.context, native, shown),
        transfer=transfer,
        history=history,
        listing=listing,
        decisions=decisions,
        upkeep=Upkeep(store, Maintenance(store, lc, clock), compaction, derived),
        backup=Backup(transfer, learner, store, clock, screen),
        accesses=accesses,
        profiles=profiles,
        learner=learner,
        rememberer=Rememberer(store, learner, add, cfg),
        workspace=Workspace(store, clock, screen),
        entities=Entities(store, screen),
        reveal=Reveal(reveals),
        review=review,
        decision_space=Decisions(decisions),
        learning=Learning(learner),
        model_view=ModelView(recall, listing),
        admin=Admin(store, cfg, clock, embedder),
        extraction_llm=extraction,
    )


def _linker(store: Store, cfg: VaultConfig, llm: LLMPool) -> Linker | None:
    """The entity graph's write side: the rules, and the LLM when one is configured."""
    if not cfg.graph.extract or not isinstance(store, EntityGraph):
        return None
    extractor = Extractor(llm.call if cfg.graph.llm else None)
    return Linker(store, extractor, cfg.retrieval.person_key)


__all__ = ["UNSET", "Engine", "build"]
