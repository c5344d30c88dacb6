"""``Vault``: the engine facade every surface (CLI, HTTP, MCP, agents) calls.

It wires the engine's parts and delegates to them: the write path (``engine.write``),
recall and its inspectable twin (``retrieval.recall``, ``retrieval.explain``), transfer
(``engine.transfer``) and history; storage is a ``Store``. What is not about one
memory lives in a namespace (``engine.namespaces``): ``vault.workspace``,
``vault.entities``, ``vault.reveal``, ``vault.review``, ``vault.decisions``,
``vault.learning`` and ``vault.admin``. A new capability gets a namespace, not methods here.
Every part reads time from the one clock passed in. Every call names a ``user_id``
and nothing crosses to another user; which of the user's entries a call sees is
written down in ``views`` (management calls: the owner's view; recall: the agent's).

Why this file is about 960 lines, over the facade's 450: the public calls keep their
whole keyword signatures here (``search``, ``explain``, ``context``, ``count`` and
``list`` each spell out the filter vocabulary, because the documentation, the HTTP
client's mirror and its tests read them from ``Vault``), each with its docstring, and
the 28 deprecated aliases of names the documentation promised stand here until they
are removed. The logic is in the modules named above; moving the signatures to one
generated ``Filters`` signature is what would bring the file under the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .config import VaultConfig, load_config
from .embed.base import Embedder
from .embed.factory import make_embedder
from .embed.guard import guarded
from .engine.deciding import DecisionService
from .engine.derived import Derived
from .engine.history import HistoryService
from .engine.namespaces.admin import Admin
from .engine.namespaces.decisions import Decisions
from .engine.namespaces.deprecated import Deprecated, Space
from .engine.namespaces.entities import Entities
from .engine.namespaces.learning import Learning
from .engine.namespaces.reveal import Reveal
from .engine.namespaces.workspace import Workspace
from .engine.reveal import RevealService
from .engine.review import ReviewService
from .engine.transfer import ImportReport, Transfer
from .engine.vector_space import chose_model, settle
from .engine.views import (
    Filters,
    RecallScope,
    Where,
    entry_filter,
    owner_view,
    read_entry,
    recall_search,
)
from .engine.write import KEEP, Draft, Patch, Writer, semantic_screen
from .errors import ValidationError
from .graph import Extractor
from .graph.links import Linker
from .lifecycle import AccessLog, Maintenance, MaintenanceReport
from .lifecycle.compress import Compaction, Compressor
from .lifecycle.domains import DomainClassifier
from .lifecycle.history import validity_filter
from .lifecycle.replacements import CANDIDATES, replacements_for
from .llm import MeteredCall
from .llm.pool import LLMPool
from .model import (
    DecisionStatus,
    Domain,
    EntryOrder,
    Hit,
    Kind,
    MemClass,
    MemoryEntry,
    Sensitivity,
    Source,
    Tier,
    utcnow,
)
from .profile.learn import Learner
from .profile.profiles import Profiles
from .profile.remember import Rememberer
from .results.history import Version
from .results.profile import Profile, Remembered
from .results.recall import Explanation
from .results.stats import Stats
from .retrieval.channels import channels_for
from .retrieval.explain import explain
from .retrieval.people import People
from .retrieval.recall import Recall
from .retrieval.relevance import Relevance
from .retrieval.rerank import load_model
from .security.protect import Protector
from .security.screen import TextScreen
from .stores import open_store
from .stores.protocols import EntityGraph, Store
from .stores.stats import make_stats, window_start
from .stores.values import NO_FILTER, EntryFilter
from .validation import (
    check_bool,
    check_datetime,
    check_entry_id,
    check_limit,
    check_offset,
    check_short_text,
    make_scope,
)
from .workspace.archive import WorkspaceImport, export_lines

_UNSET: Any = object()


def check_sort(value: object) -> EntryOrder:
    """The listing order a caller names, or a ``ValidationError`` naming the choices."""
    for order in EntryOrder:
        if value == order.value:
            return order
    choices = ", ".join(o.value for o in EntryOrder)
    raise ValidationError(f"sort must be one of {choices}", field="sort")


def created_range(flt: EntryFilter, after: object, before: object) -> EntryFilter:
    """``flt`` narrowed to the entries created in ``[after, before)``, both checked."""
    start = check_datetime(after, "created_after", optional=True)
    end = check_datetime(before, "created_before", optional=True)
    if start is not None and end is not None and start >= end:
        raise ValidationError(
            "created_after must be earlier than created_before: swap them or widen the range",
            field="created_after",
        )
    return replace(flt, created_after=start, created_before=end)


class Vault:
    """Long-term memory for agents, on one store (a SQLite file by default).

    ``Vault(path_or_url)`` opens (and creates or upgrades) a SQLite file, or the store a
    URL names (``sqlite:///abs/path.db``, ``memory://``; see ``stores.open_store``);
    ``Vault()`` uses ``config.store`` (``MEMVAULT_DB``, default
    ``<MEMVAULT_HOME>/memvault.db``); ``Vault(store=...)`` runs on any ``Store``.
    The embedder comes from ``config.embedding`` unless one is passed
    (``embedder=None`` means keyword search only). ``clock`` is the time every part
    of the engine reads (creation and update times, recency, expiry, reveal, review).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        store: Store | None = None,
        config: VaultConfig | None = None,
        embedder: Embedder | None = _UNSET,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.config = cfg = config if config is not None else load_config()
        if store is not None and path is not None:
            raise ValidationError("pass either a path or a store, not both")
        if store is None:
            store = open_store(
                path if path is not None else cfg.store,
                busy_timeout_ms=cfg.busy_timeout_ms,
                synchronous=cfg.synchronous,
            )
        self.store: Store = store
        self._clock = clock or utcnow
        try:
            # The vault's recorded model decides (engine.vector_space): a default
            # configuration takes it, another chosen model is refused by name.
            self.embedder: Embedder | None = settle(
                store,
                make_embedder(cfg.embedding) if embedder is _UNSET else embedder,
                chosen=embedder is not _UNSET or chose_model(cfg.embedding),
                config=cfg.embedding,
                keyword_only=embedder is None,
            )
            # A broken weights file fails here, before any thread starts.
            rc = cfg.retrieval
            reranker = load_model(rc.rerank_weights) if rc.rerank else None
        except BaseException:
            self.store.close()
            raise
        protector = Protector(cfg.sensitive, cfg.home)
        people = People(store, cfg.retrieval.person_key)
        # The engine's own calls go through the exit guard: a script that ends without
        # close() while a thread is embedding still exits cleanly (see embed.guard).
        native = guarded(self.embedder)
        self._derived = derived = Derived.start(store, people, native, cfg.embedding)
        semantic = semantic_screen(cfg.security.semantic_screen, native)
        # The one screen of the doors that are not entries (cards, tasks, profiles,
        # decision reasons): the same scan and redaction, refusing what it would hold.
        screen = TextScreen(
            scan=cfg.security.scan_writes, redact_pii=cfg.sensitive.enabled, semantic=semantic
        )
        # The LLM (made on first use, every call budgeted and on the ledger: llm_call),
        # for the features switched on to use it.
        self._llm = LLMPool(cfg.llm, store, self._clock)
        lc = cfg.lifecycle
        domains = DomainClassifier(self.llm_call if cfg.domains.llm else None)
        linker = self._linker(store, cfg)
        self._writer = writer = Writer(
            store, cfg, protector, derived, self._clock, semantic, domains=domains, linker=linker
        )
        channels = channels_for(store, cfg, derived.index, native, derived.settle)
        self._recall = Recall(store, cfg, channels, people, self._clock, reranker)
        reveals = RevealService(store, cfg, protector, self._clock)
        self._transfer = Transfer(store, writer, derived, reveals.audit)
        self._maintenance = Maintenance(store, cfg.lifecycle, self._clock)
        compressor = Compressor(lc, self.llm_call if lc.compress_llm else None)
        self._compaction = Compaction(store, lc, compressor, self._add_summary)
        self._history = HistoryService(store, writer, self._clock)
        self._decisions = DecisionService(
            store, writer, cfg.decisions, self._clock, self.llm_call, self._history, screen
        )
        self._replacements = replacements_for(cfg, self.llm_call)
        self._accesses = AccessLog(store, self._clock) if cfg.lifecycle.track_access else None
        if self._accesses is not None:
            self._recall.on_recall = self._accesses.record
        self._profiles = Profiles(store, self._clock, screen)
        self._learner = Learner(
            self._profiles,
            self._extraction_llm,
            cfg.extraction,
            self._clock,
            add=self.add,
            update=self.update,
        )
        self._rememberer = Rememberer(store, self._learner, self.add, cfg)
        shown = (*cfg.keyword.head_metadata, *cfg.keyword.indexed_metadata)
        self._relevance = Relevance(cfg.context, native, shown)
        # The namespaces (``engine.namespaces``): what is not about one memory.
        self.workspace = Workspace(store, self._clock, screen)
        self._entities = Entities(store)
        self._reveal = Reveal(reveals)
        self.review = ReviewService(store, self._clock, writer)
        self.decisions = Decisions(self._decisions)
        self.learning = Learning(self._learner)
        self.admin = Admin(store, cfg, self._clock, self.embedder)

    def _linker(self, store: Store, cfg: VaultConfig) -> Linker | None:
        """The entity graph's write side: the rules, and the LLM when one is configured."""
        if not cfg.graph.extract or not isinstance(store, EntityGraph):
            return None
        extractor = Extractor(self.llm_call if cfg.graph.llm else None)
        return Linker(store, extractor, cfg.retrieval.person_key)

    # -- lifecycle ------------------------------------------------------------------

    def close(self) -> None:
        """Learn from the queued conversations, finish queued embeddings, record pending
        recalls, then close the store."""
        self._learner.close()
        self._derived.close()
        if self._accesses is not None:
            self._accesses.flush()
        self._llm.close()
        self.store.close()

    def llm_call(
        self,
        operation: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        model: str | None = None,
    ) -> MeteredCall | None:
        """The configured LLM (``config.llm``; ``model`` overrides its model) for one
        operation of one user: every call budgeted and recorded on the token ledger
        (``llm.metered``). None when no LLM is configured: the engine's LLM features then
        use their rules."""
        return self._llm.call(operation, user_id=user_id, agent_id=agent_id, model=model)

    def _extraction_llm(
        self, operation: str, *, user_id: str, agent_id: str | None = None
    ) -> MeteredCall | None:
        model = self.config.extraction.model_name
        return self.llm_call(operation, user_id=user_id, agent_id=agent_id, model=model)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every stored entry has its vector; False if ``timeout`` ran out.

        For bulk loads and benchmarks: searches never need it, as each one waits
        (bounded by ``embedding.search_wait``) for its user's entries added before it."""
        return self._derived.flush(timeout)

    def reindex(
        self,
        *,
        user_id: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Embed now every entry (of ``user_id``, or of every user) that has no vector
        of the current embedder; returns how many were embedded (0 without an embedder).

        The back-fill does the same lazily after a model switch; this does it at once,
        on the caller's thread, calling ``progress(done, total)`` after each batch.
        """
        if user_id is not None:
            user_id = make_scope(user_id).user_id
        return self._derived.reindex(user_id, progress)

    def __enter__(self) -> Vault:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def embed_text(self, entry: MemoryEntry) -> str:
        """What the embedder sees: 'speaker: title. description. content'."""
        return self._writer.embed_text(entry)

    # -- writes ---------------------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        kind: Kind | str = Kind.USER,
        name: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        workspace_id: str | None = None,
        mem_class: MemClass | str = MemClass.SEMANTIC,
        domain: Domain | str | None = None,
        category: str | None = None,
        confidence: float | None = None,
        importance: float = 0.5,
        status: DecisionStatus | str | None = None,
        expires_at: Any = None,
        source: Source | str = Source.API,
        id: str | None = None,
        source_subject: str | None = None,
        supersedes: str | None = None,
    ) -> MemoryEntry:
        """Store one memory and return it as stored. Findable by keyword on return.

        ``supersedes``: the id of the memory this one replaces; in the same transaction
        that one stops being current (kept, with ``valid_to`` and ``superseded_by``, in
        ``history``), so recall returns the new fact only."""
        scope = make_scope(user_id, agent_id)
        draft = Draft(
            content=content,
            id=id,
            agent_id=scope.agent_id,
            session_id=session_id,
            workspace_id=workspace_id,
            name=name,
            description=description,
            kind=kind,
            mem_class=mem_class,
            domain=domain,
            category=category,
            confidence=confidence,
            importance=importance,
            expires_at=expires_at,
            status=status,
            metadata=metadata,
            source=source,
            source_subject=source_subject,
            supersedes=supersedes,
        )
        if supersedes is None and status is None and self._replacements is not None:
            supersedes = self._replaced(content, scope.user_id, scope.agent_id)
            draft = replace(draft, supersedes=supersedes)
        return self._decisions.route(draft, user_id=scope.user_id, agent_id=scope.agent_id)

    def _replaced(self, content: str, user_id: str, agent_id: str | None) -> str | None:
        """The current entry the configured LLM says ``content`` replaces, if any: asked
        about the few most similar ones (``lifecycle.replacements``)."""
        assert self._replacements is not None
        if not isinstance(content, str) or not content.strip():
            return None  # the write path refuses it with its own message
        asked = recall_search(
            self._recall,
            content,
            user_id,
            agent_id,
            CANDIDATES,
            where=Where(),
            filters={"quarantined": False},
        )
        similar = [c.entry for c in self._recall.run(asked).candidates[:CANDIDATES]]
        return self._replacements.replaced(content, similar, user_id=user_id, agent_id=agent_id)

    def add_many(self, records: Iterable[Mapping[str, Any]], *, user_id: str) -> list[MemoryEntry]:
        """Store many memories in one transaction: all of them, or none if any is invalid.

        Each record takes the keyword arguments of ``add`` (``content`` required).
        """
        return self._writer.add_many(records, user_id=make_scope(user_id).user_id)

    def update(
        self,
        entry_id: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        content: str | None = None,
        name: str | None = None,
        description: str | None = None,
        kind: Kind | str | None = None,
        metadata: Mapping[str, Any] | None = None,
        mem_class: MemClass | str | None = None,
        domain: Domain | str | None = None,
        category: str | None = None,
        importance: float | None = None,
        tier: Tier | str | None = None,
        status: DecisionStatus | str | None = None,
        expires_at: Any = KEEP,
        source_subject: str | None = None,
    ) -> MemoryEntry:
        """Change the given fields of one entry (None = keep) and return the new entry."""
        view = owner_view(user_id, agent_id)
        patch = Patch(
            content=content,
            name=name,
            description=description,
            kind=kind,
            metadata=metadata,
            mem_class=mem_class,
            domain=domain,
            category=category,
            importance=importance,
            tier=tier,
            status=status,
            expires_at=expires_at,
            source_subject=source_subject,
        )
        # A decision's move (if any) is audited with it.
        return self._decisions.move(view, entry_id, patch, by_user=True, actor="owner", reason="")

    def history(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> list[Version]:
        """Every period in which the fact was current, oldest first: the entry as it was,
        from and to when, who made the change that began it and what it changed;
        following supersession both ways (the entries that replaced it and that it
        replaced) as well as its own updates. ``NotFoundError`` if it is not the caller's."""
        return self._history.history(owner_view(user_id, agent_id), check_entry_id(entry_id))

    def undo(
        self, entry_id: str, *, user_id: str, agent_id: str | None = None, actor: str = "owner"
    ) -> MemoryEntry:
        """Put the previous state of the fact back and return the entry current after it:
        an update's earlier text and fields, or, for an entry that replaced another, the
        replaced one current again (the replacement withdrawn). The undo is itself
        recorded, so ``history`` grows and undoing an undo re-applies the change.
        ``ValidationError`` when there is nothing to undo; ``NotFoundError``."""
        view = owner_view(user_id, agent_id)
        who = check_short_text(actor, "actor", 200)
        return self._history.undo(view, check_entry_id(entry_id), actor=who)

    def delete(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> None:
        """Delete one entry; ``NotFoundError`` if it is not the caller's."""
        self._writer.delete(owner_view(user_id, agent_id), entry_id)

    def delete_many(
        self, entry_ids: Iterable[str], *, user_id: str, agent_id: str | None = None
    ) -> list[str]:
        """Delete the given entries that are the caller's; returns the ids deleted."""
        return self._writer.delete_many(owner_view(user_id, agent_id), entry_ids)

    # -- reads ----------------------------------------------------------------------

    def get(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> MemoryEntry:
        return read_entry(self.store, owner_view(user_id, agent_id), entry_id)

    def count(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        kind: Kind | str | None = None,
        mem_class: MemClass | str | None = None,
        domain: Domain | str | None = None,
        tier: Tier | str | None = None,
        session_id: str | None = None,
        quarantined: bool | None = None,
        sensitivity: Sensitivity | str | None = None,
        status: DecisionStatus | str | None = None,
        source_subject: str | None = None,
        as_of: datetime | str | None = None,
        include_superseded: bool = False,
        created_after: datetime | str | None = None,
        created_before: datetime | str | None = None,
        workspace_id: str | None = None,
    ) -> int:
        """How many entries ``list`` would give without a limit (current ones unless
        ``include_superseded``; with ``as_of``, those current then), so a pager can say
        how many pages the same filters and date range make."""
        view = owner_view(user_id, agent_id)
        flt = entry_filter(
            kind=kind,
            mem_class=mem_class,
            domain=domain,
            tier=tier,
            session_id=session_id,
            workspace_id=workspace_id,
            quarantined=quarantined,
            sensitivity=sensitivity,
            status=status,
            source_subject=source_subject,
        )
        flt = created_range(flt, created_after, created_before)
        when = check_datetime(as_of, "as_of", optional=True)
        flt = self._valid(flt, when, include_superseded)
        if when is None:
            return self.store.count(view, flt)
        return len(
            self._history.as_of(view.user_id, list(self.store.iter_entries(view, flt)), when)
        )

    def stats(self, *, user_id: str, agent_id: str | None = None, days: int = 30) -> Stats:
        """The caller's entries at a glance, for an overview: current ones counted by
        kind, class, tier and domain (every value, zeros too), how many are held for
        review, how many still wait for a vector of this vault's embedder, and what was
        written or changed on each of the last ``days`` UTC days (today included).

        Every number is one aggregate query in the store; the view is the owner's, as
        for ``count``."""
        view = owner_view(user_id, agent_id)
        span = check_limit(days, "days", maximum=366)
        now = self._clock()
        model = None if self.embedder is None else self.embedder.name
        current = validity_filter(NO_FILTER, now=now, as_of=None, include_superseded=False)
        tally = self.store.tally(view, current)
        activity = self.store.daily_activity(view, window_start(now, span))
        pending = 0 if model is None else self.store.count_unembedded(view, model)
        return make_stats(
            user_id=view.user_id,
            agent_id=view.agent_id,
            now=now,
            days=span,
            tally=tally,
            activity=activity,
            embedder=model,
            pending=pending,
        )

    def _valid(self, flt: Any, as_of: datetime | None, include_superseded: object) -> Any:
        return validity_filter(
            flt,
            now=self._clock(),
            as_of=as_of,
            include_superseded=check_bool(include_superseded, "include_superseded"),
        )

    def search(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 5,
        kind: Kind | str | None = None,
        mem_class: MemClass | str | None = None,
        domain: Domain | str | None = None,
        tier: Tier | str | None = None,
        quarantined: bool | None = None,
        sensitivity: Sensitivity | str | None = None,
        status: DecisionStatus | str | None = None,
        source_subject: str | None = None,
        as_of: datetime | str | None = None,
        include_superseded: bool = False,
        scope: RecallScope = "global",
        session_id: str | None = None,
        workspace_id: str | None = None,
    ) -> list[Hit]:
        """Entries relevant to ``query`` in the caller's recall scope, best first.

        Hybrid: BM25 over tokens and cosine over vectors (when an embedder is
        configured), merged by reciprocal rank fusion, then gently weighed by
        importance, recency and tier. It sees by meaning every entry this process
        added before it (read-your-writes: it waits up to ``embedding.search_wait``
        seconds for their vectors). Expired entries are left out. Entries held
        for review are included (marked by ``quarantine``) unless ``quarantined=False``;
        anything that shows hits to a model passes ``False``. ``explain`` shows why.

        Superseded entries (replaced by a newer one, see ``add(supersedes=)``) are left
        out inside each channel's query unless ``include_superseded``. ``as_of``: recall
        as it was then: entries current at that moment, each in the version it had
        (ranked by their text of today; recency counts from ``as_of``).

        ``scope`` narrows recall (seed 004): ``"global"`` (the default) is every entry the
        call may see, ``"session"`` only those of ``session_id``, ``"workspace"`` only
        those of ``workspace_id``; the id the scope needs must be given.
        """
        filters: Filters = {
            "kind": kind,
            "mem_class": mem_class,
            "domain": domain,
            "tier": tier,
            "quarantined": quarantined,
            "sensitivity": sensitivity,
            "status": status,
            "source_subject": source_subject,
        }
        where = Where(scope, session_id, workspace_id, as_of, include_superseded)
        asked = recall_search(
            self._recall, query, user_id, agent_id, limit, where=where, filters=filters
        )
        return self._recall.hits(asked)

    def explain(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 5,
        kind: Kind | str | None = None,
        mem_class: MemClass | str | None = None,
        domain: Domain | str | None = None,
        tier: Tier | str | None = None,
        quarantined: bool | None = None,
        sensitivity: Sensitivity | str | None = None,
        status: DecisionStatus | str | None = None,
        source_subject: str | None = None,
        as_of: datetime | str | None = None,
        include_superseded: bool = False,
        scope: RecallScope = "global",
        session_id: str | None = None,
        workspace_id: str | None = None,
    ) -> Explanation:
        """``search``'s own computation as data: for every candidate its rank and raw
        score in each channel, the fused score, each boost, the final score and order,
        and what ``context`` would do with it. Its ``hits`` are what ``search`` returns."""
        filters: Filters = {
            "kind": kind,
            "mem_class": mem_class,
            "domain": domain,
            "tier": tier,
            "quarantined": quarantined,
            "sensitivity": sensitivity,
            "status": status,
            "source_subject": source_subject,
        }
        where = Where(scope, session_id, workspace_id, as_of, include_superseded)
        asked = recall_search(
            self._recall, query, user_id, agent_id, limit, where=where, filters=filters
        )
        return explain(self._recall, asked, self._relevance)

    def context(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        max_tokens: int | None = None,
        limit: int | None = None,
        kind: Kind | str | None = None,
        mem_class: MemClass | str | None = None,
        domain: Domain | str | None = None,
        tier: Tier | str | None = None,
        sensitivity: Sensitivity | str | None = None,
        status: DecisionStatus | str | None = None,
        source_subject: str | None = None,
        as_of: datetime | str | None = None,
        include_superseded: bool = False,
        scope: RecallScope = "global",
        session_id: str | None = None,
        workspace_id: str | None = None,
    ) -> str:
        """The recalled-memory block for a system prompt, or "" when nothing is relevant.

        The best ``limit`` hits (``search`` with ``quarantined=False``) pass a relevance
        gate (``retrieval.relevance``): a hit goes in when the keyword channel found it
        through a word of its own text, or by meaning when the query is nearer to this
        vault than to everyday requests (``context.margin``, ``band``,
        ``min_similarity``); ``explain`` shows the gate's reading. The relevant ones are
        packed into ``max_tokens`` inside ``<memory-context>``; entries held for review
        are never part of it, and the text of every memory is escaped as data. The
        filters are ``search``'s, ``scope`` included (a work-scoped recall,
        ``domain="work"``, never brings back life memories).
        """
        filters: Filters = {
            "kind": kind,
            "mem_class": mem_class,
            "domain": domain,
            "tier": tier,
            "quarantined": False,
            "sensitivity": sensitivity,
            "status": status,
            "source_subject": source_subject,
        }
        where = Where(scope, session_id, workspace_id, as_of, include_superseded)
        asked = recall_search(
            self._recall,
            query,
            user_id,
            agent_id,
            self._context_limit(limit),
            where=where,
            filters=filters,
        )
        return self._recall.context(asked, max_tokens, self._relevance.select)

    def _context_limit(self, limit: int | None) -> object:
        """``context``'s limit: the caller's, or ``context.limit`` when it gave none."""
        return limit or self.config.context.limit

    def context_hits(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int | None = None,
        scope: RecallScope = "global",
        session_id: str | None = None,
        workspace_id: str | None = None,
        domain: Domain | str | None = None,
    ) -> list[Hit]:
        """The hits ``context`` would pack, best first, for a caller that packs them into
        a budget of its own (``render.pack``; the workspace's budget allocator does)."""
        where = Where(scope, session_id, workspace_id)
        asked = recall_search(
            self._recall,
            query,
            user_id,
            agent_id,
            self._context_limit(limit),
            where=where,
            filters={"domain": domain, "quarantined": False},
        )
        return self._recall.relevant(asked, self._relevance.select)

    # -- transfer ---------------------------------------------------------------------

    def export(
        self, *, user_id: str, agent_id: str | None = None, workspace: bool = False
    ) -> Iterator[dict[str, Any]]:
        """Every entry of the caller's as a JSON-ready dict, oldest first (JSONL lines).

        ``workspace=True`` (a whole backup; what ``memvault export`` and the HTTP export
        write) adds the user's state cards, each with all its revisions, then tasks, one
        line each (``transfer`` documents the format). Off by default so a caller that
        reads every line as a memory keeps working. The workspace is the user's, not an
        agent's: it needs ``agent_id`` left out."""
        if not isinstance(workspace, bool):
            raise ValidationError("workspace must be true or false", field="workspace")
        if workspace and agent_id is not None:
            raise ValidationError(
                "the workspace (state cards and tasks) is the user's, not one agent's: "
                "export it without agent_id",
                field="workspace",
            )
        yield from self._transfer.export(owner_view(user_id, agent_id))
        if workspace:
            yield from export_lines(self.store, make_scope(user_id).user_id)

    def import_(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
    ) -> list[MemoryEntry]:
        """Import exported records (dicts, or JSONL lines) into ``user_id``'s memory, all
        or nothing, keeping ids and times; see ``Transfer.import_``. Card and task lines
        are imported too; ``import_report`` also says how many."""
        return self.import_report(records, user_id=user_id, on_conflict=on_conflict).memories

    def import_report(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
        workspace: bool = True,
    ) -> ImportReport:
        """``import_`` that says what it wrote: the memories, and how many state cards
        (and their revisions) and tasks, so a surface can report all three. Memories,
        cards and tasks land in one store transaction, or none do. ``on_conflict``
        applies to cards (by session) and tasks (by id) too. ``workspace=False`` refuses
        card and task lines (an import into one agent's own store)."""
        if not isinstance(workspace, bool):
            raise ValidationError("workspace must be true or false", field="workspace")
        others = WorkspaceImport(
            self.store, self._clock, accept=workspace, screen=self.workspace.screen
        )
        memories = self._transfer.import_(
            records, user_id=user_id, on_conflict=on_conflict, others=others
        )
        done = others.imported
        return ImportReport(memories, done.cards, done.revisions, done.tasks)

    def erase_user(self, *, user_id: str, actor: str = "owner") -> int:
        """Erase every trace of a user (one audit record of it stays); returns the entry count.
        Conversations of the user still waiting to be learnt from are dropped first."""
        user = make_scope(user_id).user_id
        with self._learner.user_lock(user):
            self._learner.forget_user(user)
            return self._transfer.erase_user(user_id=user, actor=actor)

    # -- learning from raw conversation (seed 001) ----------------------------------

    def remember(
        self,
        messages: Sequence[Any],
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        thread_id: str | None = None,
        wait: bool = False,
    ) -> Remembered:
        """Hand over a conversation's messages and let the engine work out what to keep.

        The messages (OpenAI or LangChain dicts, or LangChain message objects) are
        filtered (``profile.messages``: the person's words and the assistant's answers;
        tool traffic and uploads left out), each kept message is archived once as a turn
        of ``session_id`` (recallable at once), and — when an LLM is configured — the
        conversation is queued for extraction after ``extraction.debounce_seconds`` of
        quiet (``wait=True``: extracted now, the result in ``learned``). Pass the whole
        conversation so far on every call: messages archived before are recognised.
        ``thread_id`` (default: the session id) groups the calls of one conversation.
        """
        return self._rememberer.remember(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            thread_id=thread_id,
            wait=wait,
        )

    # -- the structured profile (seed 001) -----------------------------------------

    def profile(self, *, user_id: str, agent_id: str | None = None) -> Profile:
        """The user's profile document (``agent_id``: their profile with that agent); an
        empty one when nothing was learnt yet."""
        return self._profiles.read(user_id, agent_id)[0]

    def save_profile(
        self, profile: Profile, *, user_id: str, agent_id: str | None = None
    ) -> Profile:
        """Replace the user's profile document with ``profile`` (saved atomically)."""
        if not isinstance(profile, Profile):
            raise ValidationError(
                "profile must be a Profile (memvault.profile.parse_profile reads one from JSON)",
                field="profile",
            )
        self._profiles.replace(user_id, agent_id, profile)
        return self.profile(user_id=user_id, agent_id=agent_id)

    def maintain(
        self,
        *,
        now: datetime | str | None = None,
        dry_run: bool = False,
        user_id: str | None = None,
    ) -> MaintenanceReport:
        """Move entries down the tiers their class windows give them at ``now`` (the
        clock's time by default): active to cold, cold to archive; never deleting, never
        promoting. Then compress each session's old raw turns into one summary
        (``lifecycle.compress``; the report's ``compressions``). Idempotent; ``dry_run``
        reports without writing. Of ``user_id`` only, or of every user."""
        when = check_datetime(now, "now")
        users = None if user_id is None else [make_scope(user_id).user_id]
        if not isinstance(dry_run, bool):
            raise ValidationError("dry_run must be true or false", field="dry_run")
        report = self._maintenance.run(now=when, dry_run=dry_run, user_ids=users)
        names = users if users is not None else self.store.user_ids()
        made = self._compaction.run(now=report.now, dry_run=dry_run, user_ids=names)
        for user in {c.user_id for c in made if c.summary_id is not None}:
            # Linking a source changed its metadata, which drops its vector: embed it
            # again now when this vault has an embedder (else the back-fill does).
            self._derived.reindex(user, None)
        return replace(report, compressions=tuple(made))

    def _add_summary(self, user_id: str, fields: dict[str, Any]) -> MemoryEntry:
        """A compression summary, through the whole write path (``lifecycle.compress``)."""
        return self.add(user_id=user_id, source=Source.EXTRACTION, **fields)

    def health(self) -> dict[str, Any]:
        return self.store.health()

    # -- namespaces whose names were methods, and the deprecated flat names -----------

    entities: Space[Entities] = Space(Entities.list)
    reveal: Space[Reveal] = Space(Reveal.entry)
    # The flat names the README, docs/ or the CHANGELOG promised (docs/quickstart.md
    # "Deprecated aliases"): each warns and runs its namespace's method.
    upsert_card = Deprecated("workspace", Workspace.upsert_card)
    card_revisions = Deprecated("workspace", Workspace.card_revisions)
    card_text = Deprecated("workspace", Workspace.card_text)
    tasks = Deprecated("workspace", Workspace.tasks)
    add_task = Deprecated("workspace", Workspace.add_task)
    update_task = Deprecated("workspace", Workspace.update_task)
    move_task = Deprecated("workspace", Workspace.move_task)
    workspace_sessions = Deprecated("workspace", Workspace.sessions)
    entity = Deprecated("entities", Entities.get)
    add_alias = Deprecated("entities", Entities.add_alias)
    merge_entities = Deprecated("entities", Entities.merge)
    entity_graph = Deprecated("entities", Entities.graph)
    entity_memories = Deprecated("entities", Entities.memories)
    set_reveal_secret = Deprecated("reveal", Reveal.set_secret)
    reset_reveal_secret = Deprecated("reveal", Reveal.reset_secret)
    authorize_reveal = Deprecated("reveal", Reveal.authorize)
    unlock_reveal = Deprecated("reveal", Reveal.unlock)
    audit_log = Deprecated("reveal", Reveal.audit_log)
    quarantined = Deprecated("review", ReviewService.quarantined)
    approve = Deprecated("review", ReviewService.approve)
    reject = Deprecated("review", ReviewService.reject)
    decide = Deprecated("decisions", Decisions.decide)
    decision_history = Deprecated("decisions", Decisions.history)
    conflicts = Deprecated("decisions", Decisions.conflicts)
    flush_learning = Deprecated("learning", Learning.flush)
    users = Deprecated("admin", Admin.users)
    user_total = Deprecated("admin", Admin.user_total)
    llm_usage = Deprecated("admin", Admin.llm_usage)

    # Last in the class: below this method the name ``list`` means it, not the builtin.

    def list(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        kind: Kind | str | None = None,
        mem_class: MemClass | str | None = None,
        domain: Domain | str | None = None,
        tier: Tier | str | None = None,
        session_id: str | None = None,
        quarantined: bool | None = None,
        sensitivity: Sensitivity | str | None = None,
        status: DecisionStatus | str | None = None,
        limit: int = 100,
        offset: int = 0,
        source_subject: str | None = None,
        as_of: datetime | str | None = None,
        include_superseded: bool = False,
        sort: EntryOrder | str = EntryOrder.NEWEST,
        created_after: datetime | str | None = None,
        created_before: datetime | str | None = None,
        workspace_id: str | None = None,
    ) -> list[MemoryEntry]:
        """The caller's entries, filtered and paged, newest first unless ``sort`` says
        ``"oldest"`` or ``"updated"`` (last changed first): what a person browsing asks.

        ``created_after`` / ``created_before`` (datetimes or ISO 8601; a bare date is
        midnight UTC) keep entries created at or after / strictly before that moment.
        ``session_id`` / ``workspace_id`` keep one conversation's or one workspace's.
        ``quarantined=True`` lists only entries held for review, ``False`` only clear ones.
        Superseded entries are left out unless ``include_superseded``; ``as_of`` lists
        the entries current at that moment, each in the version it had then (a page may
        then hold fewer than ``limit``: an entry reinstated by ``undo`` was not current
        in between).
        """
        view = owner_view(user_id, agent_id)
        flt = entry_filter(
            kind=kind,
            mem_class=mem_class,
            domain=domain,
            tier=tier,
            session_id=session_id,
            workspace_id=workspace_id,
            quarantined=quarantined,
            sensitivity=sensitivity,
            status=status,
            source_subject=source_subject,
        )
        flt = created_range(flt, created_after, created_before)
        order = check_sort(sort)
        when = check_datetime(as_of, "as_of", optional=True)
        flt = self._valid(flt, when, include_superseded)
        found = self.store.list_entries(
            view,
            flt,
            limit=check_limit(limit, maximum=1000),
            offset=check_offset(offset),
            order=order,
        )
        return found if when is None else self._history.as_of(view.user_id, found, when)


__all__ = ["Vault"]
