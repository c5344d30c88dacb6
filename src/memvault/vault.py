"""``Vault``: the engine facade every surface (CLI, HTTP, MCP, agents) calls.

It wires the engine's parts and delegates to them: the write path (``write``), recall
and its inspectable twin (``retrieval.recall``, ``retrieval.explain``), transfer
(``transfer``), reveal (``reveal``) and review (``review``); storage is a ``Store``.
Every part reads time from the one clock passed in. Scope rules live here and in the
store:

* every call names a ``user_id``; nothing ever crosses to another user;
* management calls (get, update, delete, list, count, export) with
  ``agent_id=None`` act as the owner and see all of the user's entries; with an
  agent id they see the user's shared entries plus that agent's private ones;
* ``search`` is recall for an agent context: with ``agent_id=None`` it sees the
  user's shared entries, with an agent id the shared ones plus that agent's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .config import VaultConfig, load_config
from .embed.advice import EmbedderAdvice, advise
from .embed.base import Embedder
from .embed.factory import make_embedder
from .errors import NotFoundError, ValidationError
from .model import DecisionStatus, Domain, Hit, Kind, MemClass, MemoryEntry, Source, Tier, utcnow
from .render import pack
from .retrieval.channels import channels_for
from .retrieval.explain import Explanation, explanation
from .retrieval.people import People
from .retrieval.recall import Recall, check_query, relevant
from .reveal import RevealService
from .review import ReviewService
from .security.protect import Protector
from .stores import open_store
from .stores.base import AuditRecord, EntryFilter, Store, View
from .transfer import Transfer
from .validation import check_entry_id, check_limit, check_offset, check_records, make_scope
from .validation import check_optional_enum as _enum
from .validation import check_optional_ident as _ident
from .write import KEEP, Derived, Draft, Patch, Writer, semantic_screen

_UNSET: Any = object()


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
            self.embedder: Embedder | None = (
                make_embedder(cfg.embedding) if embedder is _UNSET else embedder
            )
        except BaseException:
            self.store.close()
            raise
        protector = Protector(cfg.sensitive, cfg.home)
        people = People(store, cfg.retrieval.person_key)
        self._derived = derived = Derived.start(store, people, self.embedder, cfg.embedding)
        semantic = semantic_screen(cfg.security.semantic_screen, self.embedder)
        self._writer = writer = Writer(store, cfg, protector, derived, self._clock, semantic)
        channels = channels_for(store, cfg, derived.index, self.embedder)
        self._recall = Recall(store, cfg, channels, people, self._clock)

        def owned(entry_id: str, user_id: str) -> MemoryEntry:
            return self.get(entry_id, user_id=user_id)

        def delete(entry_id: str, user_id: str) -> None:
            self.delete(entry_id, user_id=user_id)

        self._reveal = RevealService(store, cfg, protector, self._clock, owned)
        self._review = ReviewService(store, self._clock, get=owned, delete=delete, doc=writer.doc)
        self._transfer = Transfer(store, writer, derived, self._reveal.audit)

    # -- lifecycle ------------------------------------------------------------------

    def close(self) -> None:
        """Finish queued embeddings, then close the store."""
        self._derived.close()
        self.store.close()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every stored entry has its vector; False if ``timeout`` ran out."""
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

    # -- helpers --------------------------------------------------------------------

    def embed_text(self, entry: MemoryEntry) -> str:
        """What the embedder sees: 'speaker: title. description. content'."""
        return self._writer.embed_text(entry)

    @staticmethod
    def _owner_view(user_id: str, agent_id: str | None) -> View:
        scope = make_scope(user_id, agent_id)
        return View(scope.user_id, scope.agent_id, all_agents=scope.agent_id is None)

    @staticmethod
    def _filter(
        kind: Any = None,
        mem_class: Any = None,
        domain: Any = None,
        tier: Any = None,
        session_id: Any = None,
        quarantined: bool | None = None,
    ) -> EntryFilter:
        if quarantined is not None and not isinstance(quarantined, bool):
            raise ValidationError("quarantined must be true, false or omitted", field="quarantined")
        return EntryFilter(
            quarantined=quarantined,
            kind=_enum(Kind, kind, "kind"),
            mem_class=_enum(MemClass, mem_class, "mem_class"),
            domain=_enum(Domain, domain, "domain"),
            tier=_enum(Tier, tier, "tier"),
            session_id=_ident(session_id, "session_id"),
        )

    def _not_found(self, entry_id: str, user_id: str) -> NotFoundError:
        return NotFoundError(
            f"no memory {entry_id!r} for user {user_id!r}: list or search to find valid ids",
            entry_id=entry_id,
            user_id=user_id,
        )

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
    ) -> MemoryEntry:
        """Store one memory and return it as stored. Findable by keyword on return."""
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
        )
        return self._writer.add(draft, user_id=scope.user_id)

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
    ) -> MemoryEntry:
        """Change the given fields of one entry (None = keep) and return the new entry."""
        view = self._owner_view(user_id, agent_id)
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
        )
        return self._writer.update(view, entry_id, patch)

    def delete(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> None:
        """Delete one entry; ``NotFoundError`` if it is not the caller's."""
        view = self._owner_view(user_id, agent_id)
        check_entry_id(entry_id)
        if not self.store.delete(view, [entry_id]):
            raise self._not_found(entry_id, view.user_id)
        self._derived.removed(view.user_id, [entry_id])

    def delete_many(
        self, entry_ids: Iterable[str], *, user_id: str, agent_id: str | None = None
    ) -> list[str]:
        """Delete the given entries that are the caller's; returns the ids deleted."""
        view = self._owner_view(user_id, agent_id)
        check_records(entry_ids, "entry_ids")
        ids = [check_entry_id(i) for i in entry_ids]
        deleted = self.store.delete(view, ids)
        self._derived.removed(view.user_id, deleted)
        return deleted

    # -- reads ----------------------------------------------------------------------

    def get(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> MemoryEntry:
        view = self._owner_view(user_id, agent_id)
        check_entry_id(entry_id)
        entry = self.store.get(view, entry_id)
        if entry is None:
            raise self._not_found(entry_id, view.user_id)
        return entry

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
    ) -> int:
        view = self._owner_view(user_id, agent_id)
        flt = self._filter(kind, mem_class, domain, tier, session_id, quarantined)
        return self.store.count(view, flt)

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
    ) -> list[Hit]:
        """Entries relevant to ``query`` in the caller's recall scope, best first.

        Hybrid: BM25 over tokens and cosine over vectors (when an embedder is
        configured), merged by reciprocal rank fusion, then gently weighed by
        importance, recency and tier. Expired entries are left out. Entries held
        for review are included (marked by ``quarantine``) unless ``quarantined=False``;
        anything that shows hits to a model passes ``False``. ``explain`` shows why.
        """
        view, text, flt, limit = self._recall_args(
            query, user_id, agent_id, limit, kind, mem_class, domain, tier, quarantined
        )
        recalled = self._recall.run(view, text, flt, limit)
        return [c.hit() for c in recalled.candidates[:limit]]

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
    ) -> Explanation:
        """``search``'s own computation as data: for every candidate its rank and raw
        score in each channel, the fused score, each boost, the final score and order,
        and what ``context`` would do with it. Its ``hits`` are what ``search`` returns."""
        view, text, flt, limit = self._recall_args(
            query, user_id, agent_id, limit, kind, mem_class, domain, tier, quarantined
        )
        recalled = self._recall.run(view, text, flt, limit)
        min_sim = self.config.context.min_similarity
        return explanation(recalled, text=text, limit=limit, min_similarity=min_sim)

    def _recall_args(
        self, query: str, user_id: str, agent_id: str | None, limit: int, *filters: Any
    ) -> tuple[View, str, EntryFilter, int]:
        scope = make_scope(user_id, agent_id)
        text = check_query(query, self.config.max_query_bytes)
        limit = check_limit(limit, maximum=1000)
        kind, mem_class, domain, tier, quarantined = filters
        flt = self._filter(kind, mem_class, domain, tier, quarantined=quarantined)
        return View(scope.user_id, scope.agent_id), text, flt, limit

    def context(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        max_tokens: int | None = None,
        limit: int | None = None,
    ) -> str:
        """The recalled-memory block for a system prompt, or "" when nothing is relevant.

        A hit counts as relevant when the keyword channel matched it or its cosine
        similarity reaches ``context.min_similarity``; the best ones are packed
        into ``max_tokens`` inside ``<memory-context>``. Entries held for review are
        never part of it; the text of every memory is escaped as data.
        """
        cc = self.config.context
        budget = cc.max_tokens if max_tokens is None else max_tokens
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 16:
            raise ValidationError("max_tokens must be an integer >= 16", field="max_tokens")
        limit = limit or cc.limit
        hits = self.search(
            query, user_id=user_id, agent_id=agent_id, limit=limit, quarantined=False
        )
        return pack([h for h in hits if relevant(h.sources, cc.min_similarity)], budget)

    # -- transfer ---------------------------------------------------------------------

    def export(self, *, user_id: str, agent_id: str | None = None) -> Iterator[dict[str, Any]]:
        """Every entry of the caller's as a JSON-ready dict, oldest first (JSONL lines)."""
        yield from self._transfer.export(self._owner_view(user_id, agent_id))

    def import_(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
    ) -> list[MemoryEntry]:
        """Import exported records (dicts, or JSONL lines) into ``user_id``'s memory, all
        or nothing, keeping ids and times; see ``Transfer.import_``."""
        return self._transfer.import_(records, user_id=user_id, on_conflict=on_conflict)

    def erase_user(self, *, user_id: str, actor: str = "owner") -> int:
        """Erase every trace of a user (one audit record of it stays); returns the entry count."""
        return self._transfer.erase_user(user_id=user_id, actor=actor)

    def health(self) -> dict[str, Any]:
        return self.store.health()

    def embedding_advice(self, *, user_id: str | None = None, sample: int = 500) -> EmbedderAdvice:
        """Whether another local model suits the stored text better (``memvault doctor``):
        samples the newest ``sample`` entries of ``user_id``, or the first of the store."""
        sample = check_limit(sample, maximum=10_000)
        if user_id is not None:
            entries = self.store.list_entries(self._owner_view(user_id, None), limit=sample)
        else:
            # "Entries without a vector of a model no embedder is named": every entry.
            entries = self.store.missing_vectors("\x00", limit=sample)
        return advise(self.embedder, [e.content for e in entries])

    # -- reveal and audit (``RevealService``) -------------------------------------------

    def set_reveal_secret(
        self, *, user_id: str, secret: str, current: str | None = None, actor: str = "owner"
    ) -> None:
        """Set (or, with ``current``, change) the user's reveal secret."""
        self._reveal.set_reveal_secret(user_id=user_id, secret=secret, current=current, actor=actor)

    def reset_reveal_secret(self, *, user_id: str, secret: str, actor: str) -> None:
        """Replace the secret without knowing it and lift the lock (an administrator's act)."""
        self._reveal.reset_reveal_secret(user_id=user_id, secret=secret, actor=actor)

    def authorize_reveal(
        self, entry_id: str, *, user_id: str, secret: str, actor: str = "owner"
    ) -> datetime:
        """Answer the reveal challenge for one entry; returns when the grant expires."""
        return self._reveal.authorize_reveal(entry_id, user_id=user_id, secret=secret, actor=actor)

    def reveal(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """The entry with its original fields, under a current grant for this version."""
        return self._reveal.reveal(entry_id, user_id=user_id, actor=actor)

    def unlock_reveal(self, entry_id: str | None = None, *, user_id: str, actor: str) -> None:
        """Lift the user's reveal lock (an administrator's act)."""
        self._reveal.unlock_reveal(entry_id, user_id=user_id, actor=actor)

    def audit_log(
        self, *, user_id: str, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        """The user's audit records, oldest first."""
        return self._reveal.audit_log(user_id=user_id, entry_id=entry_id, limit=limit, after=after)

    # -- review (``ReviewService``) -------------------------------------------------------

    def quarantined(
        self, *, user_id: str, agent_id: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryEntry]:
        """The user's entries held for review, newest first (the review queue)."""
        return self._review.quarantined(
            user_id=user_id, agent_id=agent_id, limit=limit, offset=offset
        )

    def approve(self, entry_id: str, *, user_id: str, actor: str = "owner") -> MemoryEntry:
        """Release an entry: no longer held, its current text approved (audited)."""
        return self._review.approve(entry_id, user_id=user_id, actor=actor)

    def reject(self, entry_id: str, *, user_id: str, actor: str = "owner") -> None:
        """Delete a held entry (audited); ``ConflictError`` if it is not held."""
        self._review.reject(entry_id, user_id=user_id, actor=actor)

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
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryEntry]:
        """The caller's entries, newest first, filtered and paged.

        ``quarantined=True`` lists only entries held for review, ``False`` only clear ones.
        """
        view = self._owner_view(user_id, agent_id)
        flt = self._filter(kind, mem_class, domain, tier, session_id, quarantined)
        return self.store.list_entries(
            view, flt, limit=check_limit(limit, maximum=1000), offset=check_offset(offset)
        )


__all__ = ["Vault"]
