"""The storage contract, split by concern.

A store keeps entries, their full-text tokens and their vectors, and enforces the
scope of every read and write itself, so that no caller bug can reach another
user's rows. Each concern is a small protocol, so a caller (or a new backend) can
depend on just the part it uses; ``Store`` is their union, what a backend
implements and what the engine holds. Validation, tokenization, ranking policy
and fusion live in the engine, above.

An engine service takes the protocol it uses (a ``VectorStore``, a ``ProfileStore``,
an ``EntityGraph``...), not the whole ``Store``; every backend implements them all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from ..model import EntryOrder, MemoryEntry
from ..results.graph import Entity, Relation
from ..results.stats import DayCount, UserMemories
from .graph_values import EntryMentions, Mention, RelationMention
from .stats import TallyRow
from .values import (
    DEFAULT_WEIGHTS,
    NO_FILTER,
    AuditRecord,
    EntryFilter,
    KeywordWeights,
    Mutation,
    RevealChange,
    RevealState,
    SearchDoc,
    StoredProfile,
    StoredVectors,
    StoredVersion,
    TermGroup,
    UsageRecord,
    UsageRow,
    VectorChanges,
    VectorItem,
    View,
)
from .workspace_values import CardRevision, SessionLink, StoredCard, StoredTask


@runtime_checkable
class Transactional(Protocol):
    """One write transaction that nests.

    ``with store.atomic():`` makes every write inside it one unit: all of it is
    committed when the outermost block ends, none of it if an exception leaves that
    block, and nothing of it is visible to another connection (or thread) before.
    An inner ``atomic()`` is a savepoint: an exception that leaves it undoes only
    what was written inside it, and the outer block may go on. Each store method
    that writes is itself atomic, and joins an enclosing block.
    """

    def atomic(self) -> AbstractContextManager[None]: ...

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` once what this thread wrote is committed: at the end of its
        outermost ``atomic()`` block, or at once outside any. Dropped if the block (or
        the savepoint it was registered in) is rolled back. For what lives beside the
        store and must only follow committed writes (the embedding worker reads on a
        connection of its own)."""
        ...


class CommitHooks:
    """The one implementation of ``Transactional.after_commit`` every backend uses:
    a stack of pending hooks per thread, one level per open ``atomic()`` block."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _levels(self) -> list[list[Callable[[], None]]]:
        levels: list[list[Callable[[], None]]] | None = getattr(self._local, "levels", None)
        if levels is None:
            levels = self._local.levels = []
        return levels

    @contextmanager
    def around(self, block: AbstractContextManager[Any]) -> Iterator[None]:
        """``block`` (a backend's nested transaction) as an ``atomic()`` block: hooks
        registered inside run after the outermost one commits, and go with a rollback."""
        levels = self._levels()
        levels.append([])
        try:
            with block:
                yield
        except BaseException:
            levels.pop()
            raise
        done = levels.pop()
        if levels:
            levels[-1].extend(done)  # a savepoint released: its hooks wait for the commit
            return
        for hook in done:
            hook()

    def after_commit(self, hook: Callable[[], None]) -> None:
        levels = self._levels()
        if levels:
            levels[-1].append(hook)
        else:
            hook()


@runtime_checkable
class EntryStore(Protocol):
    """Entries: write, read, filter and erase them, always inside a ``View``."""

    def insert(
        self,
        items: Sequence[tuple[MemoryEntry, SearchDoc]],
        *,
        originals: Mapping[str, bytes] | None = None,
    ) -> None:
        """Insert all items in one transaction; ``ConflictError`` if an id exists for the user.

        ``originals`` maps entry ids to their sealed (encrypted) original text.
        """

    def get(self, view: View, entry_id: str) -> MemoryEntry | None:
        """The entry if it exists inside ``view``, else None."""

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        """The entries among ``entry_ids`` inside ``view`` (any order, missing ones left out)."""

    def update(
        self, view: View, entry_id: str, mutate: Mutation, *, original: Any = ...
    ) -> MemoryEntry:
        """Read, change and write one entry in a single write transaction.

        ``mutate`` receives the current entry and returns the new one with its
        tokens; if it raises, nothing is written. ``NotFoundError`` if the entry
        is not inside ``view``. ``original``: new sealed original bytes, None to
        drop it, or ``...`` to keep what is stored.
        """

    def delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        """Delete the entries inside ``view``; returns the ids actually deleted."""

    def list_entries(
        self,
        view: View,
        flt: EntryFilter = NO_FILTER,
        *,
        limit: int = 100,
        offset: int = 0,
        order: EntryOrder = EntryOrder.NEWEST,
    ) -> list[MemoryEntry]:
        """Entries in ``order``: newest first by default (``created_at``, then id)."""

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        """Every entry inside ``view``, oldest first, fetched in pages."""

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int: ...

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        """Distinct values of one top-level metadata key among the user's entries."""

    def touch(self, user_id: str, entry_ids: Sequence[str], at: datetime) -> None:
        """Record that the user's entries among ``entry_ids`` were recalled at ``at``:
        ``last_accessed_at`` moves forward to it (never back), ``access_count`` grows by
        one. Not an edit: the version (``updated_at``), index and vectors stay."""

    def user_ids(self) -> list[str]:
        """Every user that has at least one entry, sorted: what copying a whole store walks."""

    def user_counts(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        """One page of ``user_ids()`` with each user's entry count (every agent's), in
        the same order: what an admin's list of users shows."""

    def erase_user(self, user_id: str) -> list[str]:
        """Delete every trace of a user in one transaction: entries (with their vectors,
        originals and grants), reveal secret and state, and audit records; the full-text
        index is compacted so no token of theirs stays readable. Returns the entry ids."""


@runtime_checkable
class EntryStats(Protocol):
    """Aggregates of a view's entries (``stores.stats``): what the overview shows, each
    counted inside the store in one query, never by reading the entries out."""

    def tally(self, view: View, flt: EntryFilter = NO_FILTER) -> list[TallyRow]:
        """The entries of ``view`` matching ``flt`` counted by (kind, mem_class, tier,
        domain, held in quarantine): one row per combination present, in no set order."""

    def daily_activity(self, view: View, since: datetime) -> list[DayCount]:
        """Per UTC day from ``since`` on, oldest first, days with nothing left out: the
        entries of ``view`` created that day, and those whose ``updated_at`` (when later
        than their creation) falls on it. Every stored entry counts, superseded or not."""

    def count_unembedded(self, view: View, model: str) -> int:
        """How many entries of ``view`` have no vector of ``model``: what a reindex of
        them would embed."""


class TermPlanner(Protocol):
    """Which of a query's terms a keyword search runs: ranking policy, which the engine
    decides (``memvault.retrieval.terms``) and the store carries out.

    ``cutoff_for(entries)``: the document count above which a term is common in a
    view of ``entries`` (0: no term is). ``plan(terms, is_common)``: the groups of
    terms to try in order, as (``" OR "`` or ``" AND "``, terms); the store runs the
    next only when the one before found nothing. ``is_common`` answers from the
    caller's view alone, and is never true while the cutoff is 0.
    """

    def cutoff_for(self, entries: int) -> int: ...

    def plan(self, terms: Sequence[str], is_common: Callable[[str], bool]) -> list[TermGroup]: ...


@runtime_checkable
class KeywordIndex(Protocol):
    """Full-text search over the tokens the engine stored with each entry."""

    def keyword_search(
        self,
        view: View,
        terms: Sequence[str],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
        weights: KeywordWeights = DEFAULT_WEIGHTS,
        planner: TermPlanner | None = None,
    ) -> list[tuple[MemoryEntry, float]]:
        """BM25 over the tokens, any term matching; best first, score higher = better.

        Scores use the statistics of ``view`` alone (``bm25.bm25_part``), whatever the
        filter, so a filtered search scores an entry as the unfiltered one does; ties go
        to the entry stored first. The filter runs inside the query, so entries it
        leaves out never take one of the ``limit`` places. Which terms run is the
        ``planner``'s choice; without one, every term runs (one ``" OR "`` group).
        """

    def search_docs(self, user_id: str, entry_ids: Sequence[str]) -> dict[str, SearchDoc]:
        """The tokens stored with each of the user's entries among ``entry_ids`` (missing
        ones left out): a copy of the vault indexes exactly what the original did, even
        where the engine's context went into them."""


@runtime_checkable
class VectorStore(Protocol):
    """One vector per entry and model.

    A vector is dropped whenever the entry's text changes, and vectors of another
    model are ignored, so dimensions never mix.
    """

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        """Store vectors of entries unchanged since ``updated_at``; returns the ids written."""

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        """Every vector of ``model`` for the user's entries (all agents)."""

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        """Entries (any user) with no vector of ``model``, by (user_id, id) after ``after``."""

    def vector_models(self, user_id: str) -> list[str]:
        """The models the user has vectors of, sorted: what a copy of the vault must move."""

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        """What happened to the user's vectors after log position ``since``.

        Lets a process that cached vectors catch up with other processes' writes
        without reloading them all. None when the backend cannot tell (it keeps no
        log, or has pruned the part after ``since``): reload with ``load_vectors``.
        """

    def change_counter(self) -> int:
        """A number that changes when another process or connection commits a write."""


@runtime_checkable
class NearestVectors(Protocol):
    """Optional: a store that searches a large user's vectors itself (PostgreSQL with
    pgvector's HNSW index), so the engine need not hold them all in memory. Stores
    without it (SQLite, MySQL) keep every user's vectors in the engine's cache."""

    def searches_in_store(self, user_id: str, model: str) -> bool:
        """Whether this user's ``model`` vectors are better searched by the store."""

    def nearest(self, view: View, model: str, query: Any, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` entries of ``view`` most similar to ``query``, as (id, cosine)."""

    def vector_similarity(
        self, user_id: str, model: str, query: Any, entry_ids: Sequence[str]
    ) -> dict[str, float]:
        """The cosine of ``query`` to each of ``entry_ids`` that has a ``model`` vector."""


@runtime_checkable
class EntryHistory(Protocol):
    """Earlier versions of entries (``values.StoredVersion``): what ``Vault.history`` reads and
    ``Vault.undo`` restores. Versions go with their entry: deleting or erasing it deletes
    them. A version is written inside the transaction of the change it records."""

    def add_version(self, version: StoredVersion) -> None:
        """Append ``version`` as the entry's next (its ``seq`` is drawn by the store);
        ``NotFoundError`` if the user has no such entry."""

    def versions(self, user_id: str, entry_ids: Sequence[str]) -> list[StoredVersion]:
        """The versions of the user's entries among ``entry_ids``, by entry id, then
        oldest first."""


@runtime_checkable
class EntityGraph(Protocol):
    """Entities (people, projects, tools, places, organisations) and relations a user's
    entries name. Names are keys (``names.name_key``); an entity may have several. What
    a view sees of the graph is what its entries link to: links and relations follow
    their entry's scope, and go with it when it is deleted (in the same transaction).
    Every key starts with ``user_id``; nothing crosses users."""

    def link_entities(
        self,
        user_id: str,
        entry_id: str,
        mentions: Sequence[Mention],
        relations: Sequence[RelationMention] = (),
        *,
        new: bool = False,
    ) -> None:
        """Replace the entry's links and relations with these (creating entities for new
        keys); entities left with no link are removed. ``new``: the entry was just
        inserted and has no links yet (nothing to replace). Joins an enclosing ``atomic()``."""

    def link_new_entries(self, user_id: str, entries: Sequence[EntryMentions]) -> None:
        """What ``link_entities(user_id, e.entry_id, e.mentions, e.relations, new=True)``
        of each of ``entries`` in turn leaves, written at once (a batch's names,
        entities, types and links in a few statements). Joins an enclosing ``atomic()``."""

    def unlink_entries(self, user_id: str, entry_ids: Sequence[str]) -> None:
        """Drop the entries' links and relations (before they are deleted), and the
        entities left with no link."""

    def find_entities(self, user_id: str, keys: Sequence[str]) -> dict[str, str]:
        """The entity id each of ``keys`` names (unknown keys left out), any scope: the
        caller restricts by links (``entities``, ``linked_entries``)."""

    def entities(
        self,
        view: View,
        *,
        ids: Sequence[str] | None = None,
        prefix: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        """Entities linked to at least one entry of ``view`` (of ``ids``, or with a key
        starting with ``prefix``), most linked first, with their link counts and keys."""

    def entity_relations(self, view: View, entity_ids: Sequence[str]) -> list[Relation]:
        """Relations from or to any of ``entity_ids`` written in entries of ``view``."""

    def linked_entries(
        self,
        view: View,
        weights: Mapping[str, float],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
    ) -> list[tuple[MemoryEntry, float]]:
        """Entries of ``view`` matching ``flt`` (inside the query) linked to entities of
        ``weights``, scored by the sum of their linked entities' weights; best first,
        ties newest first."""

    def entry_links(
        self, user_id: str, entry_ids: Sequence[str]
    ) -> tuple[dict[str, list[str]], list[tuple[str, str, str, str]]]:
        """The links of the user's entries among ``entry_ids`` (entry id -> entity ids)
        and their relations as (entry id, source id, target id, type): what copying a
        vault to another store moves."""

    def add_alias(self, user_id: str, entity_id: str, key: str) -> None:
        """Let ``key`` name the entity too; ``ConflictError`` if it names another one,
        ``NotFoundError`` if the entity does not exist."""

    def merge_entities(self, user_id: str, keep_id: str, drop_id: str) -> None:
        """Make ``drop_id`` part of ``keep_id``: its keys, links and relations move over,
        then it is removed. ``NotFoundError`` if either does not exist."""


@runtime_checkable
class RevealStore(Protocol):
    """Sensitive data: sealed originals, the reveal challenge and state, the audit log."""

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        """The sealed original of a redacted entry, if it has one."""

    def change_reveal(
        self, user_id: str, entry_id: str | None, change: RevealChange
    ) -> RevealState:
        """Read-modify-write the user's reveal state (and, with ``entry_id``, that entry's
        grant) and append the audit record ``change`` returns, atomically. Without an
        entry id the grant fields are passed as None and what ``change`` puts there is
        ignored. Deleting an entry deletes its grant."""

    def append_audit(self, record: AuditRecord) -> None:
        """Append one record to the audit log (it can never be changed or deleted)."""

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        """The user's audit records, oldest first, with ``seq`` greater than ``after``."""

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        """The user's reveal challenge as (salt, digest), if set."""

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        """Store the user's reveal challenge; every grant of the user ends with it."""


@runtime_checkable
class Admin(Protocol):
    """What operators and health checks ask of a backend."""

    def health(self) -> dict[str, Any]:
        """Backend facts for `memvault doctor` and `/readyz`; raises StoreError if broken."""

    def close(self) -> None: ...


@runtime_checkable
class VaultSettings(Protocol):
    """What the whole vault records about itself, by name (``engine.vector_space``
    keeps the vault's embedding model here): the same for every process and user.

    ``put_setting`` with ``replace=False`` stores ``value`` only when the name has none
    yet and returns what is stored then (two processes racing to record agree on the
    first); with ``replace=True`` it overwrites. ``stored_vector_models`` names the
    models the stored vectors are of, the most vectors first (a vault made before its
    model was recorded is read from them)."""

    def get_setting(self, name: str) -> str | None: ...

    def put_setting(self, name: str, value: str, *, replace: bool) -> str: ...

    def stored_vector_models(self) -> list[str]: ...


@runtime_checkable
class UsageLedger(Protocol):
    """The token ledger: one row per LLM call, kept per user (``llm.ledger``).

    ``usage`` sums the calls made in ``[since, until)`` by operation and model, for one
    user, or for every user with ``user_id=None`` (the global daily budget: the one
    statement of this protocol that reads across users). ``usage_records`` lists one
    user's latest calls, newest first. Erasing a user erases their rows.
    """

    def record_usage(self, record: UsageRecord) -> None: ...

    def usage(
        self, user_id: str | None, since: datetime, until: datetime | None = None
    ) -> list[UsageRow]: ...

    def usage_records(self, user_id: str, *, limit: int = 100) -> list[UsageRecord]: ...


@runtime_checkable
class ProfileStore(Protocol):
    """Profile documents (``memvault.profile``): one per user and agent (``agent_id``
    None: the user's own), each saved whole, with optimistic concurrency.

    ``put_profile`` saves ``document`` if the stored revision is still ``revision``
    (0: there is none yet) and returns the saved profile at ``revision + 1``; when
    another writer saved first it raises ``ConflictError`` and changes nothing, so the
    caller re-reads and re-applies. ``profiles`` lists a user's documents, the user's
    own first, then by agent id. Erasing a user erases their profiles.
    """

    def get_profile(self, user_id: str, agent_id: str | None) -> StoredProfile | None: ...

    def put_profile(
        self,
        user_id: str,
        agent_id: str | None,
        document: str,
        *,
        revision: int,
        now: datetime,
    ) -> StoredProfile: ...

    def delete_profile(self, user_id: str, agent_id: str | None) -> bool: ...

    def profiles(self, user_id: str) -> list[StoredProfile]: ...


@runtime_checkable
class WorkspaceStore(Protocol):
    """State cards, the task board and the sessions' workspaces (``memvault.workspace``).

    ``link_session`` ties a session to a workspace the first time, and returns the
    workspace the session is tied to — which may be another one: the caller refuses
    then. ``put_card`` saves a session's card if its stored revision is still
    ``revision`` (0: none yet) and appends the revision ``revision + 1`` (document,
    diff, actor, time) to its history in the same transaction; a writer that lost the
    race gets ``ConflictError`` and nothing changes. ``put_task`` is the same
    compare-and-set for one task (revision 0: a new task; an existing id conflicts).
    Lists come oldest first. Erasing a user erases all of it.
    """

    def link_session(
        self, user_id: str, session_id: str, workspace_id: str, *, now: datetime
    ) -> str: ...

    def session_link(self, user_id: str, session_id: str) -> SessionLink | None: ...

    def unlink_session(self, user_id: str, session_id: str) -> bool: ...

    def session_links(self, user_id: str) -> list[SessionLink]: ...

    def get_card(self, user_id: str, session_id: str) -> StoredCard | None: ...

    def put_card(
        self,
        user_id: str,
        session_id: str,
        document: str,
        *,
        revision: int,
        diff: str,
        actor: str,
        now: datetime,
    ) -> StoredCard: ...

    def card_revisions(self, user_id: str, session_id: str) -> list[CardRevision]: ...

    def delete_card(self, user_id: str, session_id: str) -> bool: ...

    def cards(self, user_id: str) -> list[StoredCard]: ...

    def get_task(self, user_id: str, task_id: str) -> StoredTask | None: ...

    def put_task(self, task: StoredTask, *, revision: int) -> StoredTask: ...

    def delete_task(self, user_id: str, task_id: str) -> bool: ...

    def tasks(
        self,
        user_id: str,
        *,
        workspace_id: str | None = None,
        session_id: str | None = None,
    ) -> list[StoredTask]: ...


class Store(
    EntryStore,
    EntryStats,
    KeywordIndex,
    VectorStore,
    RevealStore,
    UsageLedger,
    EntryHistory,
    ProfileStore,
    WorkspaceStore,
    EntityGraph,
    VaultSettings,
    Transactional,
    Admin,
    Protocol,
):
    """A backend: every concern above. Each write is atomic: it fully happens or leaves
    no trace."""


__all__ = [
    "Admin",
    "CommitHooks",
    "EntityGraph",
    "EntryHistory",
    "EntryStats",
    "EntryStore",
    "KeywordIndex",
    "NearestVectors",
    "ProfileStore",
    "RevealStore",
    "Store",
    "TermPlanner",
    "Transactional",
    "UsageLedger",
    "VaultSettings",
    "VectorStore",
    "WorkspaceStore",
]
