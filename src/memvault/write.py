"""The write path: typed fields in, one validation, protection, the threat screen, the index.

A write starts as a :class:`Draft` (``add``, a record of ``add_many`` or an import
line; nothing is checked yet) or a :class:`Patch` (``update``). :class:`Writer`
turns it into a stored entry in this order:

1. validate every field once (``memvault.validation``), stamping times from the clock;
2. protect: redact sensitive data in every free-text field and metadata, sealing the
   originals apart (on update, merged with the originals of unchanged fields);
3. screen the kept text for threats: refuse (``SecurityError``), hold for review, or
   let it through, by ``security.quarantine.write_verdict``;
4. derive the index document (``retrieval.keyword.search_doc``) and store atomically.

What this process derives from stored entries (the person names recall boosts, the
vectors) is kept current through :class:`Derived`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from functools import partial
from typing import Any, Literal

from .config import EmbeddingConfig, VaultConfig
from .embed.base import Embedder
from .embed.worker import EmbeddingWorker
from .errors import SecurityError, ValidationError
from .model import (
    DecisionStatus,
    Domain,
    Kind,
    MemClass,
    MemoryEntry,
    Sensitivity,
    Source,
    Tier,
    new_id,
)
from .retrieval.keyword import search_doc
from .retrieval.people import People
from .retrieval.vector import VectorIndex
from .security.protect import Protector, higher
from .security.quarantine import reason, screened_text, write_verdict
from .security.scan import SemanticScreen, Verdict, assess
from .security.scan.semantic import THRESHOLDS as SEMANTIC_THRESHOLDS
from .stores.base import SearchDoc, Store, View
from .validation import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    check_content,
    check_count,
    check_datetime,
    check_entry_id,
    check_enum,
    check_metadata,
    check_optional_enum,
    check_optional_ident,
    check_records,
    check_short_text,
    check_unit_float,
)

# The smallest step of a stored time (``stores.rows.format_time`` keeps microseconds).
_TICK = timedelta(microseconds=1)


class _Keep(Enum):
    KEEP = "keep"


#: ``Patch.expires_at``'s default: leave the expiry as it is (None clears it).
KEEP: Literal[_Keep.KEEP] = _Keep.KEEP


@dataclass(frozen=True, slots=True, kw_only=True)
class Draft:
    """The fields of one new memory as the caller gave them (None: the default).

    Unchecked: the writer validates each field once. ``quarantine`` is an imported
    record's hold, which stays; no record can say it was approved.
    """

    content: str
    id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    workspace_id: str | None = None
    name: str | None = None
    description: str | None = None
    kind: Kind | str | None = None
    mem_class: MemClass | str | None = None
    domain: Domain | str | None = None
    category: str | None = None
    confidence: float | None = None
    importance: float | None = None
    tier: Tier | str | None = None
    created_at: datetime | str | None = None
    updated_at: datetime | str | None = None
    last_accessed_at: datetime | str | None = None
    access_count: int | None = None
    expires_at: datetime | str | None = None
    status: DecisionStatus | str | None = None
    sensitivity: Sensitivity | str | None = None
    metadata: Mapping[str, Any] | None = None
    source: Source | str | None = None
    quarantine: str | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Draft:
        """A record's draft; its owner fields (``user_id``) and an approval are ignored.
        The caller has rejected unknown fields (see :data:`RECORD_FIELDS`)."""
        picked = {k: v for k, v in record.items() if k in _DRAFT_FIELDS}
        # A record without content is reported by validation, like any other bad field.
        return cls(**{"content": None, **picked})


_DRAFT_FIELDS = frozenset(f.name for f in dataclasses.fields(Draft))

#: Fields a record (of ``add_many`` or an import) may carry; anything else is rejected so
#: typos surface. ``user_id`` and ``approved_at`` are accepted and ignored: a record
#: always becomes the caller's, and an approval is not carried over.
RECORD_FIELDS = _DRAFT_FIELDS | {"user_id", "approved_at"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Patch:
    """The fields ``update`` changes (None: keep; ``expires_at``: :data:`KEEP` keeps)."""

    content: str | None = None
    name: str | None = None
    description: str | None = None
    kind: Kind | str | None = None
    metadata: Mapping[str, Any] | None = None
    mem_class: MemClass | str | None = None
    domain: Domain | str | None = None
    category: str | None = None
    importance: float | None = None
    tier: Tier | str | None = None
    status: DecisionStatus | str | None = None
    expires_at: datetime | str | Literal[_Keep.KEEP] | None = KEEP


@dataclass(frozen=True, slots=True)
class Built:
    """A validated, protected and screened entry, and its sealed originals (if redacted)."""

    entry: MemoryEntry
    sealed: bytes | None


def semantic_screen(mode: str, embedder: Embedder | None) -> SemanticScreen | None:
    """The meaning check of the write path for ``security.semantic_screen``: ``auto``
    uses it only with an embedder whose threshold was measured on the scan corpora."""
    if mode == "off" or embedder is None:
        return None
    if mode == "auto" and embedder.name not in SEMANTIC_THRESHOLDS:
        return None
    return SemanticScreen(embedder)


def embed_text(entry: MemoryEntry, metadata_prefix: Sequence[str]) -> str:
    """What the embedder sees: 'speaker: title. description. content'."""
    prefix = [
        str(entry.metadata[key])
        for key in metadata_prefix
        if isinstance(entry.metadata.get(key), str | int | float)
    ]
    body = ". ".join(p for p in (entry.name, entry.description, entry.content) if p)
    return f"{' '.join(prefix)}: {body}" if prefix else body


class Derived:
    """What this process keeps next to the store and must follow its writes: the
    person names of recall, and the vectors (embedded in the background or at once)."""

    def __init__(
        self,
        people: People,
        index: VectorIndex | None = None,
        worker: EmbeddingWorker | None = None,
        *,
        background: bool = True,
    ) -> None:
        self.people = people
        self.index = index
        self.worker = worker
        self.background = background

    @classmethod
    def start(
        cls, store: Store, people: People, embedder: Embedder | None, config: EmbeddingConfig
    ) -> Derived:
        """With an embedder: a vector index and the worker that fills it."""
        if embedder is None:
            return cls(people, background=config.background)
        index = VectorIndex(store, embedder.name)
        worker = EmbeddingWorker(
            store,
            embedder,
            index,
            partial(embed_text, metadata_prefix=config.metadata_prefix),
            batch_size=config.batch_size,
            backfill=config.background,
        )
        return cls(people, index, worker, background=config.background)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every stored entry has its vector; False if ``timeout`` ran out."""
        return True if self.worker is None else self.worker.flush(timeout)

    def reindex(
        self, user_id: str | None, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed now every entry (of ``user_id``, or all) lacking a current vector."""
        return 0 if self.worker is None else self.worker.reindex(user_id, progress)

    def close(self) -> None:
        """Finish queued embeddings."""
        if self.worker is not None:
            self.worker.close(drain=True)

    def inserted(self, entries: list[MemoryEntry]) -> None:
        self.people.note(entries)
        if self.worker is None or not entries:
            return
        if self.background:
            self.worker.submit(entries)
        else:
            self.worker.embed_now(entries)

    def rewritten(self, entry: MemoryEntry, text_changed: bool) -> None:
        self.people.forget(entry.user_id)
        if self.index is not None and text_changed:
            # The store dropped the old vector with the text change; embed the new text.
            self.index.remove(entry.user_id, [entry.id])
            self.inserted([entry])

    def removed(self, user_id: str, entry_ids: Sequence[str]) -> None:
        self.people.forget(user_id)
        if self.index is not None:
            self.index.remove(user_id, entry_ids)


class Writer:
    """Validates, protects, screens and stores entries for ``Vault``."""

    def __init__(
        self,
        store: Store,
        config: VaultConfig,
        protector: Protector,
        derived: Derived,
        clock: Callable[[], datetime],
        semantic: SemanticScreen | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.protector = protector
        self.derived = derived
        self.clock = clock
        self.semantic = semantic

    # -- the pieces ------------------------------------------------------------------

    def doc(self, entry: MemoryEntry) -> SearchDoc:
        """The entry's index document (its full-text tokens)."""
        kw = self.config.keyword
        return search_doc(entry, kw.indexed_metadata, kw.head_metadata)

    def embed_text(self, entry: MemoryEntry) -> str:
        return embed_text(entry, self.config.embedding.metadata_prefix)

    def screen(self, entry: MemoryEntry, *, batch: bool = False) -> str | None:
        """The threat scan: None (clear), the reason the entry is held for review, or
        ``SecurityError`` (refused, never stored); see ``write_verdict``."""
        if not self.config.security.scan_writes:
            return None
        found = assess(screened_text(entry))
        if found.verdict is Verdict.ALLOW and self.semantic is not None:
            # By meaning too, over what the entry itself says; metadata (neighbouring
            # turns, addressing) is left to the rules, as it would multiply the cost.
            own = "\n".join(p for p in (entry.name, entry.description, entry.content) if p)
            found = assess(own, semantic=self.semantic) if own else found
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

    def validate(self, draft: Draft, *, user_id: str) -> MemoryEntry:
        """The draft as an entry owned by ``user_id``, every field checked; times the
        draft leaves out are the clock's."""
        cfg = self.config
        created = check_datetime(draft.created_at, "created_at") or self.clock()
        return MemoryEntry(
            id=check_entry_id(draft.id) if draft.id is not None else new_id(),
            user_id=user_id,
            agent_id=check_optional_ident(draft.agent_id, "agent_id"),
            session_id=check_optional_ident(draft.session_id, "session_id"),
            workspace_id=check_optional_ident(draft.workspace_id, "workspace_id"),
            name=check_short_text(draft.name, "name", MAX_NAME_CHARS),
            content=check_content(draft.content, cfg.max_content_bytes),
            description=check_short_text(draft.description, "description", MAX_DESCRIPTION_CHARS),
            kind=check_enum(Kind, draft.kind or Kind.USER, "kind"),
            mem_class=check_enum(MemClass, draft.mem_class or MemClass.SEMANTIC, "mem_class"),
            domain=check_optional_enum(Domain, draft.domain, "domain"),
            category=check_short_text(draft.category, "category", MAX_NAME_CHARS) or None,
            confidence=check_unit_float(draft.confidence, "confidence", optional=True),
            importance=check_unit_float(
                0.5 if draft.importance is None else draft.importance, "importance"
            )
            or 0.0,
            tier=check_enum(Tier, draft.tier or Tier.ACTIVE, "tier"),
            created_at=created,
            updated_at=check_datetime(draft.updated_at, "updated_at") or created,
            last_accessed_at=check_datetime(draft.last_accessed_at, "last_accessed_at"),
            access_count=check_count(draft.access_count or 0, "access_count"),
            expires_at=check_datetime(draft.expires_at, "expires_at"),
            status=check_optional_enum(DecisionStatus, draft.status, "status"),
            sensitivity=check_enum(
                Sensitivity, draft.sensitivity or Sensitivity.NORMAL, "sensitivity"
            ),
            metadata=check_metadata(draft.metadata, cfg.max_metadata_bytes),
            source=check_enum(Source, draft.source or Source.API, "source"),
        )

    def build(self, draft: Draft, *, user_id: str, batch: bool = False) -> Built:
        """Validate, then redact (sealing the originals apart), then screen what is kept.
        A draft that says it is held stays held; none can say it was approved."""
        entry = self.validate(draft, user_id=user_id)
        protected = self.protector.protect(
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
        held = draft.quarantine
        if held is not None:
            held = check_short_text(held, "quarantine", MAX_NAME_CHARS) or "imported"
        entry = entry.replace(quarantine=self.screen(entry, batch=batch) or held)
        return Built(entry, protected.sealed)

    def insert(self, built: Sequence[Built]) -> list[MemoryEntry]:
        """Store built entries in one transaction, then let the derived state follow."""
        entries = [b.entry for b in built]
        if entries:
            sealed = {b.entry.id: b.sealed for b in built if b.sealed is not None}
            self.store.insert([(e, self.doc(e)) for e in entries], originals=sealed or None)
            self.derived.inserted(entries)
        return entries

    # -- the writes --------------------------------------------------------------------

    def add(self, draft: Draft, *, user_id: str) -> MemoryEntry:
        return self.insert([self.build(draft, user_id=user_id)])[0]

    def add_many(self, records: Iterable[Mapping[str, Any]], *, user_id: str) -> list[MemoryEntry]:
        """All records stored in one transaction, or none if any is invalid."""
        check_records(records, "records")
        built: list[Built] = []
        for i, record in enumerate(records):
            if not isinstance(record, Mapping):
                raise ValidationError(f"record {i} is not an object", index=i)
            unknown = set(record) - RECORD_FIELDS
            if unknown:
                raise ValidationError(
                    f"record {i} has unknown fields {sorted(unknown)}: remove them", index=i
                )
            try:
                built.append(self.build(Draft.from_record(record), user_id=user_id, batch=True))
            except ValidationError as exc:  # keep the class (e.g. SecurityError) and context
                raise type(exc)(f"record {i}: {exc}", **{**exc.context, "index": i}) from None
        return self.insert(built)

    def changes(self, patch: Patch) -> dict[str, Any]:
        """The patch's fields, each checked; ``ValidationError`` when it changes nothing."""
        cfg = self.config
        changes: dict[str, Any] = {}
        if patch.content is not None:
            changes["content"] = check_content(patch.content, cfg.max_content_bytes)
        if patch.name is not None:
            changes["name"] = check_short_text(patch.name, "name", MAX_NAME_CHARS)
        if patch.description is not None:
            changes["description"] = check_short_text(
                patch.description, "description", MAX_DESCRIPTION_CHARS
            )
        if patch.kind is not None:
            changes["kind"] = check_enum(Kind, patch.kind, "kind")
        if patch.metadata is not None:
            changes["metadata"] = check_metadata(patch.metadata, cfg.max_metadata_bytes)
        if patch.mem_class is not None:
            changes["mem_class"] = check_enum(MemClass, patch.mem_class, "mem_class")
        if patch.domain is not None:
            changes["domain"] = check_enum(Domain, patch.domain, "domain")
        if patch.category is not None:
            changes["category"] = (
                check_short_text(patch.category, "category", MAX_NAME_CHARS) or None
            )
        if patch.importance is not None:
            changes["importance"] = check_unit_float(patch.importance, "importance")
        if patch.tier is not None:
            changes["tier"] = check_enum(Tier, patch.tier, "tier")
        if patch.status is not None:
            changes["status"] = check_enum(DecisionStatus, patch.status, "status")
        if patch.expires_at is not KEEP:
            changes["expires_at"] = check_datetime(patch.expires_at, "expires_at")
        if not changes:
            raise ValidationError(
                "nothing to update: pass at least one field such as content or name"
            )
        return changes

    def _next_version(self, current: MemoryEntry) -> datetime:
        """The clock's time, but always after the entry's last update: ``updated_at`` is
        the entry's version (a reveal grant is for one version), so every update must
        move it, even under a clock that stands still or reads coarsely."""
        return max(self.clock(), current.updated_at + _TICK)

    def update(self, view: View, entry_id: str, patch: Patch) -> MemoryEntry:
        """Change one entry's fields and return the new entry.

        Changed text is redacted again; originals sealed earlier for fields the patch
        leaves alone are carried over into the new seal. New text is screened again,
        and an earlier approval (given for the old text) ends.
        """
        check_entry_id(entry_id)
        changes = self.changes(patch)
        text_changes = {
            k: changes[k]
            for k in ("name", "description", "content", "category", "metadata")
            if k in changes
        }
        original: Any = ...  # the store's "keep what is sealed"
        level = Sensitivity.NORMAL
        carried: dict[str, Any] = {}
        if text_changes:
            protected = self.protector.protect(**text_changes)
            changes.update(protected.fields)
            level = protected.sensitivity
            previous = self.store.get_original(view.user_id, entry_id)
            if previous is not None:
                carried = {
                    k: v for k, v in self.protector.unseal(previous).items() if k not in changes
                }
            merged = {**carried}
            if protected.sealed is not None:
                merged.update(self.protector.unseal(protected.sealed))
            original = self.protector.seal_fields(merged) if merged else None

        old_text: list[str] = []

        def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            old_text.append(self.embed_text(current))
            extra: dict[str, Any] = {}
            if original is not ...:
                # Text changed: the level is what the new text holds, plus what the
                # carried-over originals held.
                extra["sensitivity"] = higher(level, current.sensitivity) if carried else level
            new = current.replace(**changes, **extra, updated_at=self._next_version(current))
            if text_changes or "category" in changes:
                # New text: assessed as a whole again; an earlier approval was for the old text.
                # With the scan off nothing is assessed, and only a person releases a hold.
                scanned = self.config.security.scan_writes
                held = self.screen(new) if scanned else current.quarantine
                new = new.replace(quarantine=held, approved_at=None)
            return new, self.doc(new)

        entry = self.store.update(view, entry_id, mutate, original=original)
        self.derived.rewritten(entry, bool(old_text) and old_text[0] != self.embed_text(entry))
        return entry


__all__ = [
    "KEEP",
    "RECORD_FIELDS",
    "Built",
    "Derived",
    "Draft",
    "Patch",
    "Writer",
    "embed_text",
]
