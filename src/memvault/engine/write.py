"""The write path: typed fields in, one validation, protection, the threat screen, the index.

A write starts as a :class:`Draft` (``add``, a record of ``add_many`` or an import
line; nothing is checked yet) or a :class:`Patch` (``update``). :class:`Writer`
turns it into a stored entry in this order:

1. validate every field once, by the rule the field table (``memvault.fields``) gives it,
   stamping times from the clock; which fields a draft carries and a patch may change
   come from that table too (``Draft`` and ``Patch`` mirror it, typed; a test keeps them equal);
2. protect: redact sensitive data in every free-text field and metadata, sealing the
   originals apart (on update, merged with the originals of unchanged fields);
3. screen the kept text for threats: refuse (``SecurityError``), hold for review, or
   let it through, by ``security.quarantine.write_verdict``;
4. derive the index document (``retrieval.keyword.search_doc``), with the
   neighbouring turns of the entry's conversation as context
   (``retrieval.conversation``), and store atomically: the write and the refreshed
   documents of the turns around it are one transaction.

What this process derives from stored entries (the person names recall boosts, the
vectors) is kept current through :class:`Derived`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from functools import partial
from typing import Any, Literal

from ..config import VaultConfig
from ..embed.base import Embedder
from ..embed.bilingual import comparable
from ..errors import SecurityError, ValidationError
from ..fields import KEPT, PATCHABLE, PROTECTED, RECORD_NAMES, Check, FieldSpec, Made, OnUpdate
from ..graph.links import Linker
from ..lifecycle.decisions import check_move
from ..lifecycle.domains import DomainClassifier
from ..model import (
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
from ..retrieval.conversation import (
    Conversations,
    SessionKey,
    Window,
    changed,
    context_of,
    session_of,
    stamp_after,
)
from ..retrieval.keyword import search_doc
from ..security.protect import Protector, higher
from ..security.quarantine import reason, screened_text, write_verdict
from ..security.scan import SemanticScreen, Verdict, assess
from ..security.scan.semantic import THRESHOLDS as SEMANTIC_THRESHOLDS
from ..stores.protocols import Store, WorkspaceStore
from ..stores.values import SearchDoc, View
from ..stores.workspace_values import SessionLink
from ..text import index_text
from ..validation import check_entry_id, check_field, check_records, check_turn_fields
from .derived import Derived, embed_text
from .views import not_found


def _joined(tokens: Iterable[str]) -> str:
    """The space-joined tokens of several texts (``index_text`` of them joined by spaces:
    no token runs across the space between two texts)."""
    return " ".join(t for t in tokens if t)


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
    record's hold, which stays; no record can say it was approved. The typed mirror of
    ``fields.KEPT``: a field the table says a record keeps is a field here.
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
    source_subject: str | None = None
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
    valid_from: datetime | str | None = None
    valid_to: datetime | str | None = None
    superseded_by: str | None = None
    supersedes: str | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Draft:
        """A record's draft; its owner fields (``user_id``) and an approval are ignored.
        The caller has rejected unknown fields (see :data:`RECORD_FIELDS`)."""
        picked = {k: v for k, v in record.items() if k in _DRAFT_FIELDS}
        # A record without content is reported by validation, like any other bad field.
        return cls(**{"content": None, **picked})


_DRAFT_FIELDS = frozenset(spec.name for spec in KEPT)

#: Fields a record (of ``add_many`` or an import) may carry: every entry field
#: (``fields.RECORD_NAMES``); anything else is rejected so typos surface. Those the table
#: marks ``Imported.DROP`` (``user_id``, ``approved_at``) are accepted and ignored: a record
#: always becomes the caller's, and an approval is not carried over.
RECORD_FIELDS = RECORD_NAMES


@dataclass(frozen=True, slots=True, kw_only=True)
class Patch:
    """The fields ``update`` changes (None: keep; ``expires_at``: :data:`KEEP` keeps).

    The typed mirror of ``fields.PATCHABLE``; a field None clears there defaults to ``KEEP``.
    """

    content: str | None = None
    name: str | None = None
    description: str | None = None
    kind: Kind | str | None = None
    metadata: Mapping[str, Any] | None = None
    mem_class: MemClass | str | None = None
    domain: Domain | str | None = None
    source_subject: str | None = None
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
    stamped: bool = False  # created_at came from the clock, not from the caller


def semantic_screen(mode: str, embedder: Embedder | None) -> SemanticScreen | None:
    """The meaning check of the write path for ``security.semantic_screen``: ``auto``
    uses it only with an embedder whose threshold was measured on the scan corpora."""
    embedder = comparable(embedder)
    if mode == "off" or embedder is None:
        return None
    if mode == "auto" and embedder.name not in SEMANTIC_THRESHOLDS:
        return None
    return SemanticScreen(embedder)


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
        domains: DomainClassifier | None = None,
        linker: Linker | None = None,
    ) -> None:
        self.store = store
        self.linker = linker  # the entity graph's links, kept in each write's transaction
        self.config = config
        self.protector = protector
        self.derived = derived
        self.clock = clock
        self.semantic = semantic
        self.domains = domains or DomainClassifier()  # rules only, unless given the LLM
        talk = config.conversation
        self.conversations = Conversations(
            store, Window(talk.window, talk.neighbour_chars, talk.alone_chars)
        )
        # Sessions tied to a workspace (by a state card or a task) lend it to their entries.
        self.sessions = store if isinstance(store, WorkspaceStore) else None

    # -- the pieces ------------------------------------------------------------------

    def doc(
        self, entry: MemoryEntry, context: str | None = None, *, context_tokens: str | None = None
    ) -> SearchDoc:
        """The entry's index document (its full-text tokens); ``context`` is the text of
        its neighbouring turns, read from the store when neither it nor its tokens
        (``context_tokens``) are given."""
        kw = self.config.keyword
        if context is None and context_tokens is None:
            context = self.conversations.context(entry)
        return search_doc(
            entry,
            kw.indexed_metadata,
            kw.head_metadata,
            context or "",
            context_tokens=context_tokens,
        )

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

    def check(self, spec: FieldSpec, value: object) -> object:
        """One field's value checked by its rule in the field table."""
        cfg = self.config
        checked = check_field(
            spec,
            value,
            max_content_bytes=cfg.max_content_bytes,
            max_metadata_bytes=cfg.max_metadata_bytes,
        )
        if spec.name == "metadata" and isinstance(checked, dict):
            # The conversation keys (speaker, session_date, turn_index) have documented types.
            check_turn_fields(checked)
        return checked

    def validate(self, draft: Draft, *, user_id: str) -> MemoryEntry:
        """The draft as an entry owned by ``user_id``, every field checked by its rule in
        ``memvault.fields``. A field the draft leaves out (None; for an enum with a default
        also "") takes the table's default; times left out are the clock's."""
        values: dict[str, Any] = {"user_id": user_id}
        for spec in KEPT:
            raw = getattr(draft, spec.name)
            blank = raw == "" if isinstance(raw, str) else False
            blank = blank and spec.check is Check.ENUM and spec.default is not None
            if raw is None or blank:
                values[spec.name] = self._default(spec, values)
            else:
                values[spec.name] = self.check(spec, raw)
        return MemoryEntry(**values)

    def _default(self, spec: FieldSpec, values: Mapping[str, Any]) -> object:
        """The value of a field a draft leaves out (``values``: the fields before it)."""
        made = spec.default
        if made is Made.REQUIRED:
            return self.check(spec, None)  # refused with the field's own message
        if made is Made.NEW_ID:
            return new_id()
        if made is Made.CLOCK:
            return self.clock()
        if made is Made.CREATED:
            return values["created_at"]
        if made is Made.EMPTY:
            return {}
        return made

    def build(
        self,
        draft: Draft,
        *,
        user_id: str,
        batch: bool = False,
        links: dict[str, SessionLink | None] | None = None,
    ) -> Built:
        """Validate, then redact (sealing the originals apart), then screen what is kept.
        A draft that says it is held stays held; none can say it was approved. A draft of
        a session tied to a workspace, naming none itself, takes the session's.
        ``links``: the sessions' links a batch read already (its turns share sessions)."""
        with self.derived.writing():
            return self._build(draft, user_id=user_id, batch=batch, links=links)

    def _build(
        self,
        draft: Draft,
        *,
        user_id: str,
        batch: bool,
        links: dict[str, SessionLink | None] | None = None,
    ) -> Built:
        entry = self.validate(draft, user_id=user_id)
        if entry.workspace_id is None and entry.session_id is not None and self.sessions:
            # Seed 004: a session belongs to one workspace, and so do its memories, so a
            # workspace-scoped recall finds what was said in any of its sessions.
            known = links if links is not None else {}
            if entry.session_id not in known:
                known[entry.session_id] = self.sessions.session_link(
                    entry.user_id, entry.session_id
                )
            link = known[entry.session_id]
            if link is not None:
                entry = entry.replace(workspace_id=link.workspace_id)
        if entry.domain is None and self.config.domains.classify:
            named = self.domains(
                entry.name,
                entry.description,
                entry.content,
                user_id=entry.user_id,
                agent_id=entry.agent_id,
            )
            entry = entry.replace(domain=named)
        protected = self.protector.protect(**{f: getattr(entry, f) for f in PROTECTED})
        if protected.sealed is not None:
            entry = entry.replace(
                **protected.fields, sensitivity=higher(entry.sensitivity, protected.sensitivity)
            )
        held = entry.quarantine
        if held is not None:
            held = held or "imported"  # an imported hold stays, with or without its reason
        entry = entry.replace(quarantine=self.screen(entry, batch=batch) or held)
        return Built(entry, protected.sealed, stamped=draft.created_at is None)

    def insert(self, built: Sequence[Built]) -> list[MemoryEntry]:
        """Store built entries in one transaction, with the refreshed documents of the
        turns they join, then let the derived state follow."""
        if not built:
            return []
        with self.derived.writing(), self.store.atomic():
            items, neighbours = self._placed(built)
            entries = [e for e, _ in items]
            sealed = {b.entry.id: b.sealed for b in built if b.sealed is not None}
            self.store.insert(items, originals=sealed or None)
            self._refresh(neighbours)
            if self.linker is not None:
                self.linker.link(entries, new=True)
        self.derived.inserted(entries)
        return entries

    def _placed(
        self, built: Sequence[Built]
    ) -> tuple[list[tuple[MemoryEntry, SearchDoc]], dict[SessionKey, dict[str, str]]]:
        """The new entries with their documents, each turn placed in its session (a
        clock-stamped turn after the session's latest), and the new context of every
        stored turn whose neighbours they change."""
        window = self.conversations.window
        entries = [b.entry for b in built]
        sessions: dict[SessionKey, list[int]] = {}
        for i, entry in enumerate(entries):
            key = session_of(entry)
            if key is not None and window.turns > 0:
                sessions.setdefault(key, []).append(i)
        near: dict[str, list[str]] = {}  # each new turn's context, as the texts it joins
        neighbours: dict[SessionKey, dict[str, str]] = {}
        for key, positions in sessions.items():
            stored = self.conversations.turns(key)
            latest = max((t.created_at for t in stored), default=None)
            for i in positions:
                if built[i].stamped:
                    entries[i] = stamp_after(entries[i], latest)
                if latest is None or entries[i].created_at > latest:
                    latest = entries[i].created_at
            added = [entries[i] for i in positions]
            after = self.conversations.ordered([*stored, *added])
            near.update(self.conversations.neighbours(after, (e.id for e in added)))
            moved = changed(stored, after, [e.id for e in added], window)
            if moved:
                neighbours[key] = moved
        # A turn is the neighbour of up to twice ``window`` others: its text (a long
        # answer: thousands of tokens) is tokenised once per batch, not once per turn.
        tokens: dict[str, str] = {}

        def tokens_of(text: str) -> str:
            found = tokens.get(text)
            if found is None:
                found = tokens[text] = index_text(text)
            return found

        items = [
            (e, self.doc(e, context_tokens=_joined(map(tokens_of, near.get(e.id, ())))))
            for e in entries
        ]
        return items, neighbours

    def _refresh(self, neighbours: Mapping[SessionKey, Mapping[str, str]]) -> None:
        """Rewrite the index documents of stored turns whose context changed; the
        entries themselves (and so their vectors and versions) stay as they are."""
        for key, moved in neighbours.items():
            view = View(key.user_id, key.agent_id, all_agents=True)
            for entry_id, text in moved.items():
                self.store.update(view, entry_id, partial(self._same_entry, context=text))

    def _same_entry(self, current: MemoryEntry, *, context: str) -> tuple[MemoryEntry, SearchDoc]:
        return current, self.doc(current, context)

    # -- the writes --------------------------------------------------------------------

    def add(self, draft: Draft, *, user_id: str) -> MemoryEntry:
        return self.insert([self.build(draft, user_id=user_id)])[0]

    def add_many(self, records: Iterable[Mapping[str, Any]], *, user_id: str) -> list[MemoryEntry]:
        """All records stored in one transaction, or none if any is invalid."""
        check_records(records, "records")
        built: list[Built] = []
        links: dict[str, SessionLink | None] = {}  # one read per session of the batch
        # One mark for the whole batch: the embedder waits for its end, not each entry's.
        with self.derived.writing():
            for i, record in enumerate(records):
                if not isinstance(record, Mapping):
                    raise ValidationError(f"record {i} is not an object", index=i)
                unknown = set(record) - RECORD_FIELDS
                if unknown:
                    raise ValidationError(
                        f"record {i} has unknown fields {sorted(unknown)}: remove them", index=i
                    )
                try:
                    draft = Draft.from_record(record)
                    built.append(self.build(draft, user_id=user_id, batch=True, links=links))
                except ValidationError as exc:  # keep the class (e.g. SecurityError), context
                    raise type(exc)(f"record {i}: {exc}", **{**exc.context, "index": i}) from None
            return self.insert(built)

    def _delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        """Delete the entries inside ``view`` (returns the ids deleted), and refresh the
        documents of the turns around them, in one transaction."""
        if not entry_ids:
            return []
        with self.store.atomic():
            sessions: dict[SessionKey, list[MemoryEntry]] = {}
            if self.conversations.enabled:
                for entry in self.store.get_many(view, entry_ids):
                    key = session_of(entry)
                    if key is not None and key not in sessions:
                        sessions[key] = self.conversations.turns(key)
            if self.linker is not None:
                inside = [e.id for e in self.store.get_many(view, entry_ids)]
                self.linker.unlink(view.user_id, inside)
            deleted = self.store.delete(view, entry_ids)
            gone = set(deleted)
            moved = {
                key: changed(before, [t for t in before if t.id not in gone], gone, self.window)
                for key, before in sessions.items()
            }
            self._refresh(moved)
        return deleted

    @property
    def window(self) -> Window:
        return self.conversations.window

    def changes(self, patch: Patch) -> dict[str, Any]:
        """The patch's fields (``fields.PATCHABLE``), each checked by its rule; None keeps a
        field, except one that None clears (``OnUpdate.SET_OR_CLEAR``: ``KEEP`` keeps it).
        ``ValidationError`` when the patch changes nothing."""
        changes: dict[str, Any] = {}
        for spec in PATCHABLE:
            raw = getattr(patch, spec.name)
            if raw is KEEP or (raw is None and spec.on_update is not OnUpdate.SET_OR_CLEAR):
                continue
            changes[spec.name] = self.check(spec, raw)
        if not changes:
            raise ValidationError("nothing to update", remedy="update.fields")
        return changes

    def next_version(self, current: MemoryEntry) -> datetime:
        """The clock's time, but always after the entry's last update: ``updated_at`` is
        the entry's version (a reveal grant is for one version), so every update must
        move it, even under a clock that stands still or reads coarsely."""
        return max(self.clock(), current.updated_at + _TICK)

    def update(
        self,
        view: View,
        entry_id: str,
        patch: Patch,
        *,
        by_user: bool = True,
        status_moves: list[tuple[DecisionStatus | None, DecisionStatus]] | None = None,
        replaced: list[MemoryEntry] | None = None,
    ) -> MemoryEntry:
        """Change one entry's fields and return the new entry.

        Changed text is redacted again; originals sealed earlier for fields the patch
        leaves alone are carried over into the new seal. New text is screened again,
        and an earlier approval (given for the old text) ends. ``replaced`` gets the
        entry as it was before the change (to keep it as a version).
        """
        check_entry_id(entry_id)
        changes = self.changes(patch)
        text_changes = {k: changes[k] for k in PROTECTED if k in changes}
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
        moved: dict[SessionKey, dict[str, str]] = {}

        def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
            if replaced is not None:
                replaced.append(current)
            if "status" in changes:  # only along the decision lifecycle's legal moves
                check_move(current.status, changes["status"], by_user=by_user)
                if status_moves is not None:
                    status_moves.append((current.status, changes["status"]))
            old_text.append(self.embed_text(current))
            extra: dict[str, Any] = {}
            if original is not ...:
                # Text changed: the level is what the new text holds, plus what the
                # carried-over originals held.
                extra["sensitivity"] = higher(level, current.sensitivity) if carried else level
            new = current.replace(**changes, **extra, updated_at=self.next_version(current))
            if text_changes:
                # New text: assessed as a whole again; an earlier approval was for the old text.
                # With the scan off nothing is assessed, and only a person releases a hold.
                scanned = self.config.security.scan_writes
                held = self.screen(new) if scanned else current.quarantine
                new = new.replace(quarantine=held, approved_at=None)
            key = session_of(new)
            if key is None or not self.conversations.enabled:
                return new, self.doc(new, "")
            # The turn's own context, and its neighbours' (its text or place may change).
            before = self.conversations.turns(key)
            after = self.conversations.ordered([*(t for t in before if t.id != new.id), new])
            window = self.conversations.window
            moved[key] = changed(before, after, [new.id], window)
            return new, self.doc(new, context_of(after, new.id, window))

        with self.store.atomic():
            entry = self.store.update(view, entry_id, mutate, original=original)
            self._refresh(moved)
            if self.linker is not None and (text_changes or "metadata" in changes):
                self.linker.link([entry])
        self.derived.rewritten(entry, bool(old_text) and old_text[0] != self.embed_text(entry))
        return entry

    def delete(self, view: View, entry_id: str) -> None:
        """Delete one entry inside ``view``; ``NotFoundError`` if it is not there."""
        check_entry_id(entry_id)
        if not self._delete(view, [entry_id]):
            raise not_found(entry_id, view.user_id)
        self.derived.removed(view.user_id, [entry_id])

    def delete_many(self, view: View, entry_ids: Iterable[str]) -> list[str]:
        """Delete those of the entries inside ``view``; returns the ids deleted."""
        check_records(entry_ids, "entry_ids")
        deleted = self._delete(view, [check_entry_id(i) for i in entry_ids])
        self.derived.removed(view.user_id, deleted)
        return deleted


__all__ = [
    "KEEP",
    "RECORD_FIELDS",
    "Built",
    "Draft",
    "Patch",
    "Writer",
]
