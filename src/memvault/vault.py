"""``Vault``: the engine facade every surface (CLI, HTTP, MCP, agents) calls.

It validates input, builds typed entries, derives their search tokens and
delegates storage to a ``Store``. Scope rules live here and in the store:

* every call names a ``user_id``; nothing ever crosses to another user;
* management calls (get, update, delete, list, count, export) with
  ``agent_id=None`` act as the owner and see all of the user's entries; with an
  agent id they see the user's shared entries plus that agent's private ones;
* ``search`` is recall for an agent context: with ``agent_id=None`` it sees the
  user's shared entries, with an agent id the shared ones plus that agent's.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .config import VaultConfig, load_config
from .embed.base import Embedder
from .embed.batching import QueryBatcher
from .embed.factory import make_embedder
from .embed.worker import EmbeddingWorker
from .errors import (
    ConflictError,
    ImportFormatError,
    NotFoundError,
    SecurityError,
    ValidationError,
)
from .model import (
    DecisionStatus,
    Domain,
    Hit,
    Kind,
    MemClass,
    MemoryEntry,
    Sensitivity,
    Source,
    Tier,
    new_id,
    utcnow,
)
from .render import pack
from .retrieval.fusion import Boosts, rrf
from .retrieval.keyword import search_doc
from .retrieval.vector import VectorIndex
from .reveal import RevealMixin
from .review import ReviewMixin
from .security.protect import Protector, higher
from .security.quarantine import reason, screened_text, write_verdict
from .security.scan import Verdict, assess
from .stores.base import (
    NO_FILTER,
    EntryFilter,
    KeywordWeights,
    SearchDoc,
    Store,
    View,
)
from .stores.sqlite import SQLiteStore
from .text import QUESTION_WORDS, query_terms, tokenize
from .validation import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    check_content,
    check_count,
    check_datetime,
    check_encodable,
    check_entry_id,
    check_enum,
    check_limit,
    check_metadata,
    check_offset,
    check_optional_enum,
    check_optional_ident,
    check_records,
    check_short_text,
    check_unit_float,
    make_scope,
    parse_json,
)

_UNSET: Any = object()
# Seconds between re-reads of person names after another process wrote.
_PEOPLE_REFRESH_S = 1.0

# Fields an import record may carry; anything else is rejected so typos surface.
_IMPORT_FIELDS = frozenset(
    {
        "id",
        "user_id",
        "agent_id",
        "session_id",
        "workspace_id",
        "name",
        "content",
        "description",
        "kind",
        "mem_class",
        "domain",
        "category",
        "confidence",
        "importance",
        "tier",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "access_count",
        "expires_at",
        "status",
        "sensitivity",
        "metadata",
        "source",
        # Exported review state: a held record stays held; an approval is not imported.
        "quarantine",
        "approved_at",
    }
)


class Vault(RevealMixin, ReviewMixin):
    """Long-term memory for agents, on one store (a SQLite file by default).

    ``Vault(path)`` opens (and creates or upgrades) a SQLite file; ``Vault()`` uses
    ``<MEMVAULT_HOME>/memvault.db``; ``Vault(store=...)`` runs on any ``Store``.
    The embedder comes from ``config.embedding`` unless one is passed
    (``embedder=None`` means keyword search only).
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
        self.config = config if config is not None else load_config()
        if store is not None and path is not None:
            raise ValidationError("pass either a path or a store, not both")
        if store is None:
            db = Path(path).expanduser() if path is not None else self.config.database
            store = SQLiteStore(
                db,
                busy_timeout_ms=self.config.busy_timeout_ms,
                synchronous=self.config.synchronous,
            )
        self.store: Store = store
        self._clock = clock or utcnow
        self._protector = Protector(self.config.sensitive, self.config.home)
        kw = self.config.keyword
        self._weights = KeywordWeights(
            kw.head_weight,
            kw.body_weight,
            kw.extra_weight,
            kw.common_term_cutoff,
            kw.common_term_share,
            kw.common_term_floor,
        )
        rc = self.config.retrieval
        self._boosts = Boosts(
            importance=rc.importance_boost,
            recency=rc.recency_boost,
            half_life_days=rc.half_life_days,
            cold=rc.cold_factor,
            archive=rc.archive_factor,
        )
        try:
            self.embedder: Embedder | None = (
                make_embedder(self.config.embedding) if embedder is _UNSET else embedder
            )
        except BaseException:
            self.store.close()
            raise
        # user -> (store change counter, monotonic time read, lower-cased name -> name)
        self._people_cache: dict[str, tuple[int, float, dict[str, str]]] = {}
        self._index: VectorIndex | None = None
        self._worker: EmbeddingWorker | None = None
        self._queries: QueryBatcher | None = None
        if self.embedder is not None:
            self._index = VectorIndex(self.store, self.embedder.name)
            self._queries = QueryBatcher(self.embedder)
            self._worker = EmbeddingWorker(
                self.store,
                self.embedder,
                self._index,
                self.embed_text,
                batch_size=self.config.embedding.batch_size,
                backfill=self.config.embedding.background,
            )

    # -- lifecycle ------------------------------------------------------------------

    def close(self) -> None:
        """Finish queued embeddings, then close the store."""
        if self._worker is not None:
            self._worker.close(drain=True)
        self.store.close()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every stored entry has its vector; False if ``timeout`` ran out."""
        return True if self._worker is None else self._worker.flush(timeout)

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

    def _doc(self, entry: MemoryEntry) -> SearchDoc:
        kw = self.config.keyword
        return search_doc(entry, kw.indexed_metadata, kw.head_metadata)

    def embed_text(self, entry: MemoryEntry) -> str:
        """What the embedder sees: 'speaker: title. description. content'."""
        prefix = [
            str(entry.metadata[key])
            for key in self.config.embedding.metadata_prefix
            if isinstance(entry.metadata.get(key), str | int | float)
        ]
        body = ". ".join(p for p in (entry.name, entry.description, entry.content) if p)
        return f"{' '.join(prefix)}: {body}" if prefix else body

    def _people(self, user_id: str) -> dict[str, str]:
        """Lower-cased person names (values of ``retrieval.person_key``) -> the stored name."""
        key = self.config.retrieval.person_key
        if not key:
            return {}
        counter = self.store.change_counter()
        now = time.monotonic()
        cached = self._people_cache.get(user_id)
        # This process's own writes keep the cache current; other processes' writes
        # are read at most once a second, as reading the names scans the user's rows.
        if cached is None or (cached[0] != counter and now - cached[1] >= _PEOPLE_REFRESH_S):
            names = self.store.metadata_values(user_id, key, limit=200)
            people = {n.lower(): n for n in names if isinstance(n, str) and n.strip()}
            cached = (counter, now, people)
            self._people_cache[user_id] = cached
        return cached[2]

    def _note_people(self, entries: list[MemoryEntry]) -> None:
        """Keep the person cache current after this process's own inserts."""
        key = self.config.retrieval.person_key
        if not key:
            return
        for entry in entries:
            cached = self._people_cache.get(entry.user_id)
            name = entry.metadata.get(key)
            if cached is not None and isinstance(name, str) and name.strip():
                cached[2].setdefault(name.lower(), name)

    def _named_person(self, user_id: str, text: str) -> tuple[str | None, frozenset[str]]:
        """The one known person the query names (whole words), and all named people's tokens."""
        people = self._people(user_id)
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

    def _embed_later(self, entries: list[MemoryEntry]) -> None:
        if self._worker is None or not entries:
            return
        if self.config.embedding.background:
            self._worker.submit(entries)
        else:
            self._worker.embed_now(entries)

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
            kind=check_optional_enum(Kind, kind, "kind"),
            mem_class=check_optional_enum(MemClass, mem_class, "mem_class"),
            domain=check_optional_enum(Domain, domain, "domain"),
            tier=check_optional_enum(Tier, tier, "tier"),
            session_id=check_optional_ident(session_id, "session_id"),
        )

    def _not_found(self, entry_id: str, user_id: str) -> NotFoundError:
        return NotFoundError(
            f"no memory {entry_id!r} for user {user_id!r}: list or search to find valid ids",
            entry_id=entry_id,
            user_id=user_id,
        )

    def _screen(self, entry: MemoryEntry, *, batch: bool = False) -> str | None:
        """The threat scan of the write path: None (clear), the reason the entry is held
        for review, or ``SecurityError`` (refused, never stored); see ``write_verdict``."""
        if not self.config.security.scan_writes:
            return None
        found = assess(screened_text(entry))
        verdict = write_verdict(found, mem_class=entry.mem_class, source=entry.source, batch=batch)
        if verdict is Verdict.ALLOW:
            return None
        if verdict is Verdict.QUARANTINE:
            return reason(found)
        threat = found.threat
        pattern = threat.pattern_id if threat else "unknown"
        raise SecurityError(
            f"content blocked by the security scan ({pattern}: "
            f"{threat.description if threat else 'flagged'}): memories may not carry "
            "instructions to the assistant, secrets to send out or hidden characters; "
            "store the fact plainly",
            pattern_id=pattern,
            category=threat.category if threat else "unknown",
        )

    def _build(
        self, fields: Mapping[str, Any], *, user_id: str, batch: bool = False
    ) -> tuple[MemoryEntry, bytes | None]:
        """Validate one record into an entry owned by ``user_id``: sensitive data is
        redacted (the original sealed apart), then the threat scan runs on what is kept.
        A record that says it is held stays held; none can say it was approved."""
        entry = self._build_unscreened(fields, user_id=user_id)
        protected = self._protector.protect(
            name=entry.name,
            description=entry.description,
            content=entry.content,
            category=entry.category,
            metadata=entry.metadata,
        )
        if protected.sealed is not None:
            entry = entry.replace(
                **protected.fields, sensitivity=higher(entry.sensitivity, protected.sensitivity)
            )
        held = fields.get("quarantine")
        if held is not None:
            held = check_short_text(held, "quarantine", MAX_NAME_CHARS) or "imported"
        entry = entry.replace(quarantine=self._screen(entry, batch=batch) or held)
        return entry, protected.sealed

    def _build_unscreened(self, fields: Mapping[str, Any], *, user_id: str) -> MemoryEntry:
        cfg = self.config
        now = utcnow()
        created = check_datetime(fields.get("created_at"), "created_at") or now
        entry_id = fields.get("id")
        return MemoryEntry(
            id=check_entry_id(entry_id) if entry_id is not None else new_id(),
            user_id=user_id,
            agent_id=check_optional_ident(fields.get("agent_id"), "agent_id"),
            session_id=check_optional_ident(fields.get("session_id"), "session_id"),
            workspace_id=check_optional_ident(fields.get("workspace_id"), "workspace_id"),
            name=check_short_text(fields.get("name"), "name", MAX_NAME_CHARS),
            content=check_content(fields.get("content"), cfg.max_content_bytes),
            description=check_short_text(
                fields.get("description"), "description", MAX_DESCRIPTION_CHARS
            ),
            kind=check_enum(Kind, fields.get("kind") or Kind.USER, "kind"),
            mem_class=check_enum(
                MemClass, fields.get("mem_class") or MemClass.SEMANTIC, "mem_class"
            ),
            domain=check_optional_enum(Domain, fields.get("domain"), "domain"),
            category=check_short_text(fields.get("category"), "category", MAX_NAME_CHARS) or None,
            confidence=check_unit_float(fields.get("confidence"), "confidence", optional=True),
            importance=check_unit_float(
                0.5 if fields.get("importance") is None else fields["importance"], "importance"
            )
            or 0.0,
            tier=check_enum(Tier, fields.get("tier") or Tier.ACTIVE, "tier"),
            created_at=created,
            updated_at=check_datetime(fields.get("updated_at"), "updated_at") or created,
            last_accessed_at=check_datetime(fields.get("last_accessed_at"), "last_accessed_at"),
            access_count=check_count(fields.get("access_count") or 0, "access_count"),
            expires_at=check_datetime(fields.get("expires_at"), "expires_at"),
            status=check_optional_enum(DecisionStatus, fields.get("status"), "status"),
            sensitivity=check_enum(
                Sensitivity, fields.get("sensitivity") or Sensitivity.NORMAL, "sensitivity"
            ),
            metadata=check_metadata(fields.get("metadata"), cfg.max_metadata_bytes),
            source=check_enum(Source, fields.get("source") or Source.API, "source"),
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
        entry, sealed = self._build(
            {
                "id": id,
                "agent_id": scope.agent_id,
                "content": content,
                "kind": kind,
                "name": name,
                "description": description,
                "metadata": metadata,
                "session_id": session_id,
                "workspace_id": workspace_id,
                "mem_class": mem_class,
                "domain": domain,
                "category": category,
                "confidence": confidence,
                "importance": importance,
                "status": status,
                "expires_at": expires_at,
                "source": source,
            },
            user_id=scope.user_id,
        )
        self.store.insert(
            [(entry, self._doc(entry))], originals={entry.id: sealed} if sealed else None
        )
        self._note_people([entry])
        self._embed_later([entry])
        return entry

    def add_many(self, records: Iterable[Mapping[str, Any]], *, user_id: str) -> list[MemoryEntry]:
        """Store many memories in one transaction: all of them, or none if any is invalid.

        Each record takes the keyword arguments of ``add`` (``content`` required).
        """
        scope = make_scope(user_id)
        check_records(records, "records")
        entries: list[MemoryEntry] = []
        sealed: dict[str, bytes] = {}
        for i, record in enumerate(records):
            if not isinstance(record, Mapping):
                raise ValidationError(f"record {i} is not an object", index=i)
            unknown = set(record) - _IMPORT_FIELDS
            if unknown:
                raise ValidationError(
                    f"record {i} has unknown fields {sorted(unknown)}: remove them", index=i
                )
            try:
                entry, original = self._build(record, user_id=scope.user_id, batch=True)
                entries.append(entry)
                if original is not None:
                    sealed[entry.id] = original
            except ValidationError as exc:  # keep the class (e.g. SecurityError) and context
                raise type(exc)(f"record {i}: {exc}", **{**exc.context, "index": i}) from None
        if entries:
            self.store.insert([(e, self._doc(e)) for e in entries], originals=sealed or None)
            self._note_people(entries)
            self._embed_later(entries)
        return entries

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
        expires_at: Any = _UNSET,
    ) -> MemoryEntry:
        """Change the given fields of one entry (None = keep) and return the new entry."""
        view = self._owner_view(user_id, agent_id)
        check_entry_id(entry_id)
        cfg = self.config
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = check_content(content, cfg.max_content_bytes)
        if name is not None:
            changes["name"] = check_short_text(name, "name", MAX_NAME_CHARS)
        if description is not None:
            changes["description"] = check_short_text(
                description, "description", MAX_DESCRIPTION_CHARS
            )
        if kind is not None:
            changes["kind"] = check_enum(Kind, kind, "kind")
        if metadata is not None:
            changes["metadata"] = check_metadata(metadata, cfg.max_metadata_bytes)
        if mem_class is not None:
            changes["mem_class"] = check_enum(MemClass, mem_class, "mem_class")
        if domain is not None:
            changes["domain"] = check_enum(Domain, domain, "domain")
        if category is not None:
            changes["category"] = check_short_text(category, "category", MAX_NAME_CHARS) or None
        if importance is not None:
            changes["importance"] = check_unit_float(importance, "importance")
        if tier is not None:
            changes["tier"] = check_enum(Tier, tier, "tier")
        if status is not None:
            changes["status"] = check_enum(DecisionStatus, status, "status")
        if expires_at is not _UNSET:
            changes["expires_at"] = check_datetime(expires_at, "expires_at")
        if not changes:
            raise ValidationError(
                "nothing to update: pass at least one field such as content or name"
            )
        text_changes = {
            k: changes[k]
            for k in ("name", "description", "content", "category", "metadata")
            if k in changes
        }
        original: Any = ...
        level = Sensitivity.NORMAL
        carried: dict[str, Any] = {}
        if text_changes:
            protected = self._protector.protect(**text_changes)
            changes.update(protected.fields)
            level = protected.sensitivity
            # Originals of unchanged fields that were redacted before are carried over.
            previous = self.store.get_original(view.user_id, entry_id)
            if previous is not None:
                carried = {
                    k: v for k, v in self._protector.unseal(previous).items() if k not in changes
                }
            merged = {**carried}
            if protected.sealed is not None:
                merged.update(self._protector.unseal(protected.sealed))
            original = self._protector.seal_fields(merged) if merged else None

        old_text: list[str] = []

        def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            old_text.append(self.embed_text(current))
            extra: dict[str, Any] = {}
            if original is not ...:
                # Text changed: the level is what the new text holds, plus what the
                # carried-over originals held.
                extra["sensitivity"] = higher(level, current.sensitivity) if carried else level
            new = current.replace(**changes, **extra, updated_at=utcnow())
            if text_changes or "category" in changes:
                # New text: assessed as a whole again; an earlier approval was for the old text.
                # With the scan off nothing is assessed, and only a person releases a hold.
                scanned = self.config.security.scan_writes
                held = self._screen(new) if scanned else current.quarantine
                new = new.replace(quarantine=held, approved_at=None)
            return new, self._doc(new)

        entry = self.store.update(view, entry_id, mutate, original=original)
        self._people_cache.pop(entry.user_id, None)
        if self._index is not None and old_text and old_text[0] != self.embed_text(entry):
            # The store dropped the old vector with the text change; embed the new text.
            self._index.remove(entry.user_id, [entry.id])
            self._embed_later([entry])
        return entry

    def delete(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> None:
        """Delete one entry; ``NotFoundError`` if it is not the caller's."""
        view = self._owner_view(user_id, agent_id)
        check_entry_id(entry_id)
        if not self.store.delete(view, [entry_id]):
            raise self._not_found(entry_id, view.user_id)
        self._people_cache.pop(view.user_id, None)
        if self._index is not None:
            self._index.remove(view.user_id, [entry_id])

    def delete_many(
        self, entry_ids: Iterable[str], *, user_id: str, agent_id: str | None = None
    ) -> list[str]:
        """Delete the given entries that are the caller's; returns the ids deleted."""
        view = self._owner_view(user_id, agent_id)
        check_records(entry_ids, "entry_ids")
        ids = [check_entry_id(i) for i in entry_ids]
        deleted = self.store.delete(view, ids)
        self._people_cache.pop(view.user_id, None)
        if self._index is not None:
            self._index.remove(view.user_id, deleted)
        return deleted

    # -- reads ----------------------------------------------------------------------

    def get(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> MemoryEntry:
        view = self._owner_view(user_id, agent_id)
        check_entry_id(entry_id)
        entry = self.store.get(view, entry_id)
        if entry is None:
            raise self._not_found(entry_id, view.user_id)
        return entry

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
        return self.store.list(
            view, flt, limit=check_limit(limit, maximum=1000), offset=check_offset(offset)
        )

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

    def _check_query(self, query: object) -> str:
        if not isinstance(query, str):
            raise ValidationError("query must be a string", field="query")
        if not query.strip():
            raise ValidationError("query is empty: send the text to search for", field="query")
        size = len(check_encodable(query, "query").encode("utf-8"))
        if size > self.config.max_query_bytes:
            raise ValidationError(
                f"query is {size} bytes, over the limit of {self.config.max_query_bytes}: "
                "send a shorter query",
                field="query",
            )
        return query

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
        anything that shows hits to a model passes ``False``.
        """
        scope = make_scope(user_id, agent_id)
        view = View(scope.user_id, scope.agent_id)
        text = self._check_query(query)
        limit = check_limit(limit, maximum=1000)
        flt = self._filter(kind, mem_class, domain, tier, quarantined=quarantined)
        return self._hybrid(text, view, flt, limit)

    def _hybrid(self, text: str, view: View, flt: EntryFilter, limit: int) -> list[Hit]:
        rc = self.config.retrieval
        depth = max(limit, rc.candidates)
        kw = self.config.keyword
        skip = QUESTION_WORDS if kw.drop_question_words else frozenset()
        person, person_tokens = self._named_person(view.user_id, text)
        terms = query_terms(text, kw.max_query_terms, skip=skip)
        if person_tokens and len(set(terms) - person_tokens) > 0:
            # The name itself matches every entry of that person: let the boost do that job.
            terms = [t for t in terms if t not in person_tokens]
        keyword = self.store.keyword_search(
            view, terms, flt=flt, limit=depth, weights=self._weights
        )
        entries = {e.id: e for e, _ in keyword}
        sources: dict[str, dict[str, float]] = {e.id: {"keyword": s} for e, s in keyword}
        rankings: dict[str, list[str]] = {"keyword": [e.id for e, _ in keyword]}

        if self._queries is not None and self._index is not None and rc.vector_weight > 0:
            qvec = self._queries.embed(text)
            fetch = depth if flt == NO_FILTER else depth * 4
            similar = self._index.search(view, qvec, fetch)
            unknown = [i for i, _ in similar if i not in entries]
            for entry in self.store.get_many(view, unknown):
                entries[entry.id] = entry
            ranked: list[str] = []
            for entry_id, sim in similar:
                entry = entries.get(entry_id)
                if entry is None or not flt.matches(entry):
                    continue
                if sim < rc.min_similarity and entry_id not in sources:
                    break  # sorted by similarity: the rest are weaker still
                ranked.append(entry_id)
                sources.setdefault(entry_id, {})["vector"] = sim
                if len(ranked) >= depth:
                    break
            rankings["vector"] = ranked

        fused = rrf(
            rankings,
            k=rc.rrf_k,
            weights={"keyword": rc.keyword_weight, "vector": rc.vector_weight},
        )
        now = utcnow()
        hits = [
            Hit(entries[i], score * self._boosts.factor(entries[i], now), sources.get(i, {}))
            for i, score in fused.items()
            if entries[i].expires_at is None or entries[i].expires_at > now
        ]
        if person is not None and rc.person_key:
            key, boost = rc.person_key, 1.0 + rc.person_boost
            hits = [
                Hit(h.entry, h.score * boost, h.sources)
                if h.entry.metadata.get(key) == person
                else h
                for h in hits
            ]
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:limit]

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
        hits = self.search(
            query,
            user_id=user_id,
            agent_id=agent_id,
            limit=limit or cc.limit,
            quarantined=False,
        )
        relevant = [
            h
            for h in hits
            if "keyword" in h.sources or h.sources.get("vector", -1.0) >= cc.min_similarity
        ]
        return pack(relevant, budget)

    # -- export / import ------------------------------------------------------------

    def export(self, *, user_id: str, agent_id: str | None = None) -> Iterator[dict[str, Any]]:
        """Every entry of the caller's as a JSON-ready dict, oldest first (JSONL lines)."""
        view = self._owner_view(user_id, agent_id)
        for entry in self.store.iter_entries(view):
            yield entry.to_dict()

    def import_(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
    ) -> list[MemoryEntry]:
        """Import exported records (dicts, or JSONL lines) into ``user_id``'s memory.

        All or nothing: a malformed record rejects the whole import. Records keep
        their ids and times but always become ``user_id``'s, whatever they say.
        With ``on_conflict="skip"`` ids the user already has are left alone.
        """
        scope = make_scope(user_id)
        check_records(records, "records")
        if on_conflict not in ("error", "skip"):
            raise ValidationError("on_conflict must be 'error' or 'skip'", field="on_conflict")
        entries: list[MemoryEntry] = []
        sealed: dict[str, bytes] = {}
        seen: set[str] = set()
        for lineno, raw in enumerate(records, start=1):
            record: Any = raw
            if isinstance(raw, str):
                if not raw.strip():
                    continue
                try:
                    record = parse_json(raw, f"line {lineno}")
                except ValidationError as exc:
                    raise ImportFormatError(
                        f"{exc}: fix or remove it; nothing was imported", line=lineno
                    ) from None
            if not isinstance(record, Mapping):
                raise ImportFormatError(
                    f"line {lineno} is not a JSON object: each line must be one exported "
                    "memory; nothing was imported",
                    line=lineno,
                )
            unknown = set(record) - _IMPORT_FIELDS
            if unknown:
                raise ImportFormatError(
                    f"line {lineno} has unknown fields {sorted(unknown)}: nothing was imported",
                    line=lineno,
                )
            try:
                entry, original = self._build(record, user_id=scope.user_id, batch=True)
                if original is not None:
                    sealed[entry.id] = original
            except ValidationError as exc:
                raise ImportFormatError(
                    f"line {lineno}: {exc}; nothing was imported", line=lineno
                ) from None
            if entry.id in seen:
                raise ImportFormatError(
                    f"line {lineno} repeats id {entry.id!r}: nothing was imported", line=lineno
                )
            seen.add(entry.id)
            entries.append(entry)
        owner = View(scope.user_id, all_agents=True)
        if on_conflict == "skip":
            entries = [e for e in entries if self.store.get(owner, e.id) is None]
        else:
            clash = [e.id for e in entries if self.store.get(owner, e.id) is not None]
            if clash:
                raise ConflictError(
                    f"{len(clash)} imported ids already exist for {scope.user_id!r} "
                    f"(first: {clash[0]!r}): use on_conflict='skip'; nothing was imported"
                )
        if entries:
            kept = {e.id for e in entries}
            self.store.insert(
                [(e, self._doc(e)) for e in entries],
                originals={i: b for i, b in sealed.items() if i in kept} or None,
            )
            self._note_people(entries)
            self._embed_later(entries)
        return entries

    # -- admin ----------------------------------------------------------------------

    def erase_user(self, *, user_id: str, actor: str = "owner") -> int:
        """Erase every trace of a user from the store (entries, sealed originals, vectors,
        reveal secret and state, audit records, index tokens); returns the entry count.

        One audit record of the erasure itself (who, how many) is then written under
        the user id, so the erasure can be shown to have happened.
        """
        uid = make_scope(user_id).user_id
        ids = self.store.erase_user(uid)
        self._people_cache.pop(uid, None)
        if self._index is not None:
            self._index.remove(uid, ids)
        self._audit(uid, None, actor, "erase_user", f"ok: {len(ids)} entries")
        return len(ids)

    def health(self) -> dict[str, Any]:
        return self.store.health()


__all__ = ["Vault"]
