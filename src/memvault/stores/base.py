"""The storage contract every backend implements.

A store keeps entries, their full-text tokens and (later) their vectors, and
enforces the scope of every read and write itself, so that no caller bug can
reach another user's rows. It is deliberately small: validation, tokenization,
ranking policy and fusion live in the engine, above it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..model import Domain, Kind, MemClass, MemoryEntry, Tier


@dataclass(frozen=True, slots=True)
class View:
    """Which of a user's entries a call may see.

    ``all_agents=True`` is the owner's view (every entry of the user). Otherwise
    the view holds the user's shared entries plus, when ``agent_id`` is set, that
    agent's private ones.
    """

    user_id: str
    agent_id: str | None = None
    all_agents: bool = False

    def sees(self, entry: MemoryEntry) -> bool:
        if entry.user_id != self.user_id:
            return False
        return self.all_agents or entry.agent_id is None or entry.agent_id == self.agent_id


@dataclass(frozen=True, slots=True)
class EntryFilter:
    """Optional equality filters on classification fields (None = any)."""

    kind: Kind | None = None
    mem_class: MemClass | None = None
    domain: Domain | None = None
    tier: Tier | None = None
    agent_id: str | None = None  # narrow an owner's view to one agent's private entries
    session_id: str | None = None
    quarantined: bool | None = None  # True: only held entries; False: only clear ones

    def matches(self, entry: MemoryEntry) -> bool:
        return (
            (self.kind is None or entry.kind == self.kind)
            and (self.mem_class is None or entry.mem_class == self.mem_class)
            and (self.domain is None or entry.domain == self.domain)
            and (self.tier is None or entry.tier == self.tier)
            and (self.agent_id is None or entry.agent_id == self.agent_id)
            and (self.session_id is None or entry.session_id == self.session_id)
            and (self.quarantined is None or (entry.quarantine is not None) == self.quarantined)
        )


NO_FILTER = EntryFilter()


@dataclass(frozen=True, slots=True)
class SearchDoc:
    """Pre-tokenized full-text fields (space-joined tokens from ``memvault.text``).

    ``head`` is the title and description, ``body`` the content, ``extra`` optional
    context that helps finding the entry (weighted lower) but is not shown.
    """

    head: str
    body: str
    extra: str = ""


@dataclass(frozen=True, slots=True)
class KeywordWeights:
    """BM25 column weights, and when a term counts as "common".

    A backend may leave common terms out of a query that has rarer ones (their
    BM25 weight is small, their cost large). A term is common when it is found in
    more of the caller's entries than ``cutoff_for(entries)``: at most
    ``common_term_cutoff`` (0 disables the rule), and less when the term is in more
    than ``common_term_share`` of the caller's entries, as with Lucene's
    fractional ``maxTermFrequency``; ``common_term_floor`` keeps small vaults,
    where scoring every term is cheap, out of that second rule.
    """

    head: float = 2.0
    body: float = 1.0
    extra: float = 0.5
    common_term_cutoff: int = 0
    common_term_share: float = 0.0
    common_term_floor: int = 0

    def cutoff_for(self, entries: int) -> int:
        """The document count above which a term is common, in a view of ``entries``."""
        cutoff = self.common_term_cutoff
        if cutoff > 0 and self.common_term_share > 0:
            share = int(self.common_term_share * entries)
            cutoff = max(1, min(cutoff, max(self.common_term_floor, share)))
        return cutoff


DEFAULT_WEIGHTS = KeywordWeights()


@dataclass(frozen=True, slots=True)
class VectorItem:
    """A vector computed from an entry as it was at ``updated_at``."""

    entry_id: str
    updated_at: datetime
    vector: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class StoredVectors:
    """Vectors of one user and model; ``mark`` is the store's vector-log position they
    reflect (0 when the backend keeps no log), to ask ``vector_changes`` from later."""

    ids: list[str]
    agent_ids: list[str | None]
    matrix: npt.NDArray[np.float32]  # shape (len(ids), dim)
    mark: int = 0


@dataclass(frozen=True, slots=True)
class VectorChanges:
    """How one user's vectors of one model changed after a mark, up to ``mark``."""

    mark: int
    vectors: StoredVectors  # entries whose vector is now this one
    removed: list[str]  # entries that no longer have a vector of the model


Mutation = Callable[[MemoryEntry], tuple[MemoryEntry, SearchDoc]]


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One line of the append-only audit log (who did what to which entry, and how it went)."""

    at: datetime
    user_id: str
    actor: str
    action: str
    outcome: str
    entry_id: str | None = None
    detail: str = ""
    seq: int = 0  # assigned by the store


@dataclass(frozen=True, slots=True)
class RevealState:
    """Reveal bookkeeping of one user, and the grant of one entry (None fields: no grant).

    Wrong answers and the lock belong to the user, whichever entry or key they came
    from. A grant is for one entry version: ``granted_version`` is the entry's
    ``updated_at`` (as ``format_time`` writes it) when the grant was given.
    """

    failures: int = 0  # wrong answers since ``first_failure_at``
    first_failure_at: datetime | None = None
    locked_at: datetime | None = None
    granted_until: datetime | None = None
    granted_version: str | None = None


RevealChange = Callable[[RevealState], tuple[RevealState, AuditRecord]]


# -- ranking: BM25 with the caller's own statistics ------------------------------------
# Every backend scores with these, over the caller's view only: how many entries the
# view holds, their average length and each term's document frequency in it. So no
# score depends on anything another user stored (FTS5's bm25() would use table-wide
# counts, and a score would move when someone else stores a word).

BM25_K1 = 1.2
BM25_B = 0.75
_IDF_FLOOR = 1e-6  # as FTS5: a term in over half the entries still counts, barely


def token_count(tokens: str) -> int:
    """Tokens in one full-text column (space-joined, as ``memvault.text.index_text`` writes)."""
    return tokens.count(" ") + 1 if tokens else 0


def doc_length(doc: SearchDoc) -> int:
    """An entry's length for BM25: its tokens in all three columns."""
    return token_count(doc.head) + token_count(doc.body) + token_count(doc.extra)


@lru_cache(maxsize=65536)
def index_form(token: str) -> str:
    """A token as the full-text index compares it: without diacritics ("café" -> "cafe"),
    like FTS5's ``unicode61 remove_diacritics 2``, so every backend matches alike."""
    if token.isascii():
        return token
    bare = "".join(c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare)


def query_forms(terms: Sequence[str]) -> list[str]:
    """The distinct index forms of query terms, first occurrence first."""
    return list(dict.fromkeys(index_form(t) for t in terms))


def bm25_idf(entries: int, df: int) -> float:
    """Inverse document frequency of a term in ``df`` of a view's ``entries``."""
    return max(math.log((entries - df + 0.5) / (df + 0.5)), _IDF_FLOOR)


def bm25_part(idf: float, freq: float, length: int, avg_length: float) -> float:
    """One term's share of an entry's score; ``freq`` is its column-weighted count.

    The SQLite backend runs this same formula in SQL, in this order of operations."""
    norm = BM25_K1 * (1 - BM25_B + BM25_B * length / avg_length)
    return idf * freq * (BM25_K1 + 1) / (freq + norm)


def plan_terms(
    terms: Sequence[str], view_df: Callable[[str], int], cutoff: int
) -> list[tuple[str, list[str]]]:
    """Term groups to try in order, as (joiner, terms).

    A backend runs the first group, and the next only if the previous one found
    nothing. With a cutoff, a term found in more than
    ``cutoff`` of the caller's entries is "common", as in Lucene's common-terms
    query: when rarer terms exist, common ones are left out (their BM25 weight
    is small, their cost large), so entries holding only common terms are not
    returned; a query of common terms only first asks for entries holding all
    of them, then for any. Only the caller's own entries decide which terms are
    common, so other users' data cannot change which entries a search returns.
    ``view_df`` may cap its count at ``cutoff + 1``.
    """
    full = (" OR ", list(terms))
    if cutoff <= 0 or len(terms) < 2:
        return [full]
    common = [t for t in terms if view_df(t) > cutoff]
    if not common:
        return [full]
    rare = [t for t in terms if t not in common]
    if rare:
        return [(" OR ", rare)]
    return [(" AND ", common), full]


@runtime_checkable
class Store(Protocol):
    """A backend. Each write is atomic: it fully happens or leaves no trace."""

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

    def list(
        self, view: View, flt: EntryFilter = NO_FILTER, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryEntry]:
        """Entries newest first."""

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        """Every entry inside ``view``, oldest first, fetched in pages."""

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int: ...

    def keyword_search(
        self,
        view: View,
        terms: Sequence[str],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
        weights: KeywordWeights = DEFAULT_WEIGHTS,
    ) -> list[tuple[MemoryEntry, float]]:
        """BM25 over the tokens, any term matching; best first, score higher = better.

        Scores use the statistics of ``view`` alone (``bm25_part``), whatever the
        filter, so a filtered search scores an entry as the unfiltered one does; ties go
        to the entry stored first.
        """

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        """The entries among ``entry_ids`` inside ``view`` (any order, missing ones left out)."""

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        """Distinct values of one top-level metadata key among the user's entries."""

    # -- vectors ------------------------------------------------------------------
    # One vector per entry; it is dropped whenever the entry's text changes, and
    # vectors of another model are ignored, so dimensions never mix.

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        """Store vectors of entries unchanged since ``updated_at``; returns the ids written."""

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        """Every vector of ``model`` for the user's entries (all agents)."""

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        """Entries (any user) with no vector of ``model``, by (user_id, id) after ``after``."""

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        """What happened to the user's vectors after log position ``since``.

        Lets a process that cached vectors catch up with other processes' writes
        without reloading them all. None when the backend cannot tell (it keeps no
        log, or has pruned the part after ``since``): reload with ``load_vectors``.
        """

    def change_counter(self) -> int:
        """A number that changes when another process or connection commits a write."""

    # -- sensitive data -------------------------------------------------------------

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

    def erase_user(self, user_id: str) -> list[str]:
        """Delete every trace of a user in one transaction: entries (with their vectors,
        originals and grants), reveal secret and state, and audit records; the full-text
        index is compacted so no token of theirs stays readable. Returns the entry ids."""

    def health(self) -> dict[str, Any]:
        """Backend facts for `memvault doctor` and `/readyz`; raises StoreError if broken."""

    def close(self) -> None: ...


__all__ = [
    "BM25_B",
    "BM25_K1",
    "DEFAULT_WEIGHTS",
    "NO_FILTER",
    "AuditRecord",
    "EntryFilter",
    "KeywordWeights",
    "Mutation",
    "RevealChange",
    "RevealState",
    "SearchDoc",
    "Store",
    "StoredVectors",
    "VectorChanges",
    "VectorItem",
    "View",
    "bm25_idf",
    "bm25_part",
    "doc_length",
    "index_form",
    "plan_terms",
    "query_forms",
    "token_count",
]
