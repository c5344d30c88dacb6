"""The values stores take and return: views, filters, index documents, vectors,
audit records, reveal state, earlier versions of entries and profile documents (with
the checks every backend makes of a save). Plain frozen dataclasses, shared by every
backend."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from ..errors import ConflictError, ValidationError
from ..fields import BY_NAME
from ..model import DecisionStatus, Domain, Kind, MemClass, MemoryEntry, Sensitivity, Tier
from ..results.stats import UserMemories


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
    """Optional filters on classification fields (None = any), and on validity.

    ``valid_at``: only entries still valid at that moment (no ``expires_at``, or one
    after it). ``current_at``: only entries not superseded at that moment (no
    ``valid_to``, or one after it). ``existed_at``: only entries created, and current
    from, no later than that moment (point-in-time recall). ``created_after`` /
    ``created_before``: only entries created at or after / strictly before that moment
    (a date range chosen by a person). Backends apply every field inside their queries,
    so entries it leaves out never take a place under a ``limit``.
    """

    kind: Kind | None = None
    mem_class: MemClass | None = None
    domain: Domain | None = None
    tier: Tier | None = None
    agent_id: str | None = None  # narrow an owner's view to one agent's private entries
    session_id: str | None = None
    workspace_id: str | None = None  # a workspace-scoped recall (``views.recall_scope``)
    quarantined: bool | None = None  # True: only held entries; False: only clear ones
    valid_at: datetime | None = None
    sensitivity: Sensitivity | None = None
    status: DecisionStatus | None = None
    source_subject: str | None = None  # normalised (``validation.check_subject``)
    current_at: datetime | None = None
    existed_at: datetime | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None

    def timeless(self) -> EntryFilter:
        """The filter without its moments (expiry, supersession, existence): what a
        keyword planner counts, and what tells the vector channel to look deeper."""
        return dataclasses.replace(self, valid_at=None, current_at=None, existed_at=None)

    def equal_to(self) -> list[tuple[str, object]]:
        """The entry fields it selects by an equal value (``EQUAL_FIELDS``) that are set,
        with their values, in ``EQUAL_FIELDS`` order."""
        pairs = ((name, getattr(self, name)) for name in EQUAL_FIELDS)
        return [(name, value) for name, value in pairs if value is not None]

    def matches(self, entry: MemoryEntry) -> bool:
        return (
            all(getattr(entry, name) == value for name, value in self.equal_to())
            and (self.quarantined is None or (entry.quarantine is not None) == self.quarantined)
            and (
                self.valid_at is None
                or entry.expires_at is None
                or entry.expires_at > self.valid_at
            )
            and (
                self.current_at is None
                or entry.valid_to is None
                or entry.valid_to > self.current_at
            )
            and (
                self.existed_at is None
                or (
                    entry.created_at <= self.existed_at
                    and (entry.valid_from is None or entry.valid_from <= self.existed_at)
                )
            )
            and (self.created_after is None or entry.created_at >= self.created_after)
            and (self.created_before is None or entry.created_at < self.created_before)
        )


NO_FILTER = EntryFilter()
#: The filter's fields named like an entry field: each selects the entries whose field
#: has that value (the SQL backends compare the column of the same name).
EQUAL_FIELDS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(EntryFilter) if f.name in BY_NAME
)


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
    """BM25 column weights: how much a term found in each of ``SearchDoc``'s columns counts.

    ``phrase``: a phrase term of n tokens (``bm25.phrase_counter``) weighs ``phrase * n``
    terms, so holding a query's run contiguously counts about as much again as
    holding each of its bigrams.
    """

    head: float = 2.0
    body: float = 1.0
    extra: float = 0.5
    phrase: float = 1.0


DEFAULT_WEIGHTS = KeywordWeights()

# A group of query terms a keyword search runs: (" OR " or " AND ", terms). Which
# groups run is the engine's choice (``protocols.TermPlanner``).
TermGroup = tuple[str, list[str]]


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
class UsageRecord:
    """One call to the LLM, as the token ledger keeps it: when, for whom, what for, which
    model, the tokens the endpoint counted, how long it took and how it ended
    (``ok``, ``error``, or ``refused`` by a budget before it was made)."""

    at: datetime
    user_id: str
    operation: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    outcome: str = "ok"
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class StoredProfile:
    """One profile document as the store keeps it: its JSON text, and the revision it
    is at (1 for the first save; each save adds one)."""

    user_id: str
    agent_id: str | None
    document: str
    revision: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class UsageRow:
    """The ledger summed over a period for one operation and model."""

    operation: str
    model: str
    calls: int
    errors: int  # calls that failed or were refused
    tokens_in: int
    tokens_out: int

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out


def sum_usage(records: Iterable[UsageRecord]) -> list[UsageRow]:
    """Records summed by operation and model, in that order (what every backend returns)."""
    sums: dict[tuple[str, str], list[int]] = {}
    for r in records:
        row = sums.setdefault((r.operation, r.model), [0, 0, 0, 0])
        row[0] += 1
        row[1] += r.outcome != "ok"
        row[2] += r.tokens_in
        row[3] += r.tokens_out
    return [UsageRow(op, model, *row) for (op, model), row in sorted(sums.items())]


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


def page_of_users(
    counts: Iterable[tuple[str, int]], *, limit: int, offset: int
) -> list[UserMemories]:
    """Counts summed per user, sorted by id as the stores sort it (code points), one page."""
    sums: dict[str, int] = {}
    for user_id, count in counts:
        sums[user_id] = sums.get(user_id, 0) + count
    ordered = sorted(sums.items())[offset : offset + limit]
    return [UserMemories(user_id, count) for user_id, count in ordered]


# -- earlier versions of entries ------------------------------------------------------
# A version is the entry exactly as it was just before one change (an update, being
# superseded, an undo), with when the change happened, who made it and which fields it
# changed. Rows are keyed (user_id, entry_id, seq), seq counting from 1 per entry, and
# go with their entry: deleting or erasing the entry deletes them. The entry is kept as
# one JSON object of its stored column values (``rows.snapshot_text``), so the versions
# table needs no change when a field is added.


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One earlier version of an entry: ``entry`` as it was until ``at``."""

    user_id: str
    entry_id: str
    at: datetime  # when the change that ended this version happened
    actor: str  # who made that change ("owner", "model", "api", ...)
    action: str  # what the change was ("update", "superseded", "undo", ...)
    changed: tuple[str, ...]  # the fields the change changed
    entry: MemoryEntry
    seq: int = 0  # 1, 2, ... per entry; assigned by the store


# -- profile documents: what every backend checks of a save, and the error a lost race
# raises, so the memory store and the SQL stores refuse the same documents with the same
# words and report a stale revision the same way.

#: The largest profile document a store keeps, in bytes of UTF-8 (1 MiB). A profile is
#: a few sections and at most some hundred facts; one this big is a runaway writer.
MAX_PROFILE_BYTES = 1024 * 1024


def check_put(agent_id: str | None, document: str, revision: int, now: datetime) -> None:
    """Refuse what no backend could keep the same way, before anything is written."""
    if agent_id == "":
        # '' is how the SQL stores key the user's own profile (agent_id None).
        raise ValidationError(
            "agent_id must not be empty: pass None for the user's own profile",
            field="agent_id",
        )
    if not isinstance(document, str):
        raise ValidationError("the profile document must be JSON text (a str)", field="document")
    if "\x00" in document:
        raise ValidationError(
            "the profile document holds a NUL character, which no SQL backend stores: "
            "write it as the JSON escape \\u0000",
            field="document",
        )
    try:
        size = len(document.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ValidationError(
            f"the profile document is not valid Unicode ({exc.reason}): fix its text",
            field="document",
        ) from None
    if size > MAX_PROFILE_BYTES:
        raise ValidationError(
            f"the profile document is {size} bytes, over the limit of {MAX_PROFILE_BYTES}: "
            "remove facts or shorten its sections",
            field="document",
            size=size,
            limit=MAX_PROFILE_BYTES,
        )
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
        raise ValidationError(
            "revision must be a whole number of at least 0 (0: no profile saved yet)",
            field="revision",
        )
    if not isinstance(now, datetime) or now.tzinfo is None:
        raise ValidationError("now must be a timezone-aware datetime", field="now")


def stale_revision(stored: int, revision: int) -> ConflictError:
    """The error of a save whose revision is no longer the stored one."""
    return ConflictError(
        f"the profile changed meanwhile (revision {stored}, not {revision}): "
        "read it again and re-apply the change",
        revision=stored,
    )
