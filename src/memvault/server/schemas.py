"""Request and response bodies of the HTTP API.

They only shape the wire format; the engine validates the values themselves, so
the rules live in one place. ``user_id`` in a body is optional: a user key acts for
its own user, an admin key names one. Numbers are strict: ``true`` or ``"0.5"`` is
not a number (an integer still is a valid float). Enum-valued fields use the enums, so
the OpenAPI document lists the allowed values and an unknown one is a 422 naming them.

The memory bodies (``AddRequest``, ``UpdateRequest``, ``Entry``) mirror the field table
(``memvault.fields``: ``HTTP_CREATE``, ``HTTP_UPDATE``, every field) and are written out
so type checkers see them; ``tests/test_fields.py`` checks that they match it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..model import DecisionStatus, Domain, EntryOrder, Kind, MemClass, Sensitivity, Source, Tier

MAX_PAGE = 100
MAX_SEARCH = 50

# Strict numbers: pydantic would otherwise read true as 1 and "0.5" as 0.5.
Importance = Annotated[float, Field(strict=True)]
# Who a memory is about or from; the engine normalises it (``validation.check_subject``).
Subject = Annotated[
    str | None,
    Field(
        max_length=200,
        description='who it is about or from: "user", "assistant" or a third party\'s name',
    ),
]


#: What ``user_id`` and ``agent_id`` in a query say (``auth.UserQuery``, ``AgentQuery``).
USER_DOC = "the user to act for: required with an admin key, else your own or unset"
AGENT_DOC = "an agent id (that agent's private view)"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorDetail


# -- /v1/memories -----------------------------------------------------------------------


class AddRequest(_Body):
    """A new memory: ``ADDRESS`` plus the fields the table marks ``http_create``."""

    content: str
    user_id: str | None = None
    agent_id: str | None = None
    kind: Kind = Kind.USER
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None
    session_id: str | None = None
    workspace_id: str | None = Field(
        None, description="the workspace (default: the session's, once a card or task ties it)"
    )
    mem_class: MemClass | None = None
    domain: Domain | None = None
    source_subject: Subject = None
    category: str | None = None
    importance: Importance = 0.5
    status: DecisionStatus | None = None
    supersedes: str | None = Field(
        None, description="the id of the memory this one replaces (it stops being current)"
    )

    def words(self) -> dict[str, Any]:
        """The new memory as ``Vault.add`` keywords, besides its content and who writes."""
        return self.model_dump(exclude={"content", "user_id", "agent_id"})


class RememberRequest(_Body):
    """A conversation to learn from (``Vault.remember``)."""

    messages: list[dict[str, Any]] = Field(
        description="the conversation so far: OpenAI chat messages ({role, content, "
        "tool_calls?, id?}) or LangChain message dicts ({type, content} or {type, data})",
        max_length=10_000,
    )
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = Field(
        None, description="the conversation the messages belong to (or give thread_id)"
    )
    thread_id: str | None = Field(
        None, description="groups the calls of one conversation (default: session_id)"
    )
    wait: bool = Field(
        False,
        strict=True,
        description="extract now and return what was learnt, instead of after the quiet period",
    )


class RememberResponse(BaseModel):
    session_id: str
    thread_id: str
    received: int
    kept: int
    dropped: int
    archived: list[str]
    already_archived: int
    refused: int
    extraction: str = Field(description="queued | done | no_llm | disabled | nothing_to_learn")
    note: str
    learned: dict[str, Any] | None = None


class RecallFilters(_Body):
    """What search, explain and context share: the query, who asks, and the filters."""

    query: str
    user_id: str | None = None
    agent_id: str | None = None
    kind: Kind | None = None
    mem_class: MemClass | None = None
    domain: Domain | None = None
    tier: Tier | None = None
    sensitivity: Sensitivity | None = None
    status: DecisionStatus | None = None
    source_subject: Subject = None
    as_of: str | None = Field(None, description="ISO 8601: recall what was current then")
    include_superseded: bool = Field(False, strict=True)
    scope: Literal["session", "workspace", "global"] = Field(
        "global", description="session: only session_id's entries; workspace: workspace_id's"
    )
    session_id: str | None = None
    workspace_id: str | None = None

    def filters(self) -> dict[str, Any]:
        """The filters as ``Vault.search`` / ``explain`` / ``context`` keywords."""
        return self.model_dump(include=set(RecallFilters.model_fields) - {"query", "user_id"})


class ListQuery(BaseModel):
    """The query of ``GET /v1/memories``: who asks, the filters of a listing
    (``results.filters.Listed``), the order and the page. Unknown parameters are ignored."""

    user_id: str | None = Field(None, description=USER_DOC)
    agent_id: str | None = Field(None, description=AGENT_DOC)
    kind: Kind | None = None
    mem_class: MemClass | None = None
    domain: Domain | None = None
    tier: Tier | None = None
    session_id: str | None = None
    workspace_id: str | None = None
    sensitivity: Sensitivity | None = None
    status: DecisionStatus | None = None
    source_subject: Subject = None
    limit: int = Field(50, ge=1, le=MAX_PAGE)
    offset: int = Field(0, ge=0, le=10_000_000)
    as_of: str | None = Field(None, description="ISO 8601: list what was current then")
    include_superseded: bool = False
    sort: EntryOrder = EntryOrder.NEWEST
    created_after: str | None = Field(
        None, max_length=40, description="ISO 8601 (a date is midnight UTC): from"
    )
    created_before: str | None = Field(
        None, max_length=40, description="ISO 8601: created strictly before it"
    )

    def filters(self) -> dict[str, Any]:
        """The filters as ``Vault.list`` / ``count`` keywords (not who asks, nor the page)."""
        return self.model_dump(exclude={"user_id", "agent_id", "limit", "offset", "sort"})


class SearchRequest(RecallFilters):
    limit: int = Field(5, ge=1, le=MAX_SEARCH, strict=True)


class UpdateRequest(_Body):
    """Changes to one memory (None: keep): ``ADDRESS`` plus the ``http_update`` fields."""

    user_id: str | None = None
    agent_id: str | None = None
    content: str | None = None
    name: str | None = None
    description: str | None = None
    kind: Kind | None = None
    metadata: dict[str, Any] | None = None
    mem_class: MemClass | None = None
    domain: Domain | None = None
    source_subject: Subject = None
    category: str | None = None
    importance: Importance | None = None
    tier: Tier | None = None

    def changes(self) -> dict[str, Any]:
        """The changes as ``Vault.update`` keywords (None: keep), besides who changes."""
        return self.model_dump(exclude={"user_id", "agent_id"})


class Entry(BaseModel):
    """A memory as the API returns it (``MemoryEntry.to_dict``): every field of the
    table, times as ISO 8601 text."""

    model_config = ConfigDict(extra="allow")

    id: str
    user_id: str
    content: str
    agent_id: str | None
    session_id: str | None
    workspace_id: str | None
    name: str
    description: str
    kind: Kind
    mem_class: MemClass
    domain: Domain | None
    source_subject: str | None
    category: str | None
    confidence: float | None
    importance: float
    tier: Tier
    created_at: str
    updated_at: str
    last_accessed_at: str | None
    access_count: int
    expires_at: str | None
    status: DecisionStatus | None
    sensitivity: Sensitivity
    metadata: dict[str, Any]
    source: Source
    quarantine: str | None = Field(description="held for review: why; None: clear")
    approved_at: str | None = Field(description="when a person approved its current text")
    valid_from: str | None = Field(description="when it became current; None: created_at")
    valid_to: str | None = Field(description="when it stopped being current; None: current")
    superseded_by: str | None = Field(description="the id of the entry that replaced it")
    supersedes: str | None = Field(description="the id of the entry it replaced")


class SearchHit(BaseModel):
    entry: Entry
    score: float
    sources: dict[str, float] = {}


class SearchResponse(BaseModel):
    results: list[SearchHit]


class ListResponse(BaseModel):
    items: list[Entry]
    total: int
    limit: int
    offset: int


class ImportResponse(BaseModel):
    imported: int
    ids: list[str]


class EraseResponse(BaseModel):
    user_id: str
    deleted: int


# -- /v1/keys ---------------------------------------------------------------------------


class KeyCreateRequest(_Body):
    user_id: str | None = Field(None, description="the key's user; null for an admin key")
    label: str = Field("", max_length=200)
    review: bool = Field(False, description="a user key that may approve its user's held memories")


class KeyInfo(BaseModel):
    id: str
    user_id: str | None
    admin: bool
    label: str
    created_at: str
    revoked: bool
    review: bool = Field(description="may approve held memories (admin keys always may)")


class KeyCreated(BaseModel):
    key: str = Field(description="the secret key; shown only now, store it safely")
    info: KeyInfo


class KeyList(BaseModel):
    keys: list[KeyInfo]


# -- /api/memory/v2 ---------------------------------------------------------------------

Target = Literal["user", "memory"]


class Usage(BaseModel):
    chars: int
    limit: int
    percent: int
    count: int


class ExternalStatus(BaseModel):
    provider: str
    connected: bool
    bank: str
    work_bank: str | None
    entries: int | None
    last_recall_hits: int | None
    error: str | None = None


class Overview(BaseModel):
    user_id: str
    agent_id: str | None
    user_md: str
    memory_md: str
    hindsight_status: ExternalStatus = Field(
        description="the external provider's status (seed 000 §11.1's name for it)"
    )
    external: ExternalStatus = Field(description="the same as hindsight_status (older name)")
    char_usage: dict[str, Usage]
    last_modified: dict[str, str | None]
    snapshot_taken_at: str | None


class ReloadResponse(BaseModel):
    snapshot_taken_at: str | None
    snapshot_chars: int


class ConfigField(BaseModel):
    value: Any
    source: Literal["default", "yaml", "global", "user", "session"]
    user_writable: bool


class ConfigResponse(BaseModel):
    user_id: str
    fields: dict[str, ConfigField]


class StatusResponse(BaseModel):
    user_id: str
    agent_id: str | None
    builtin_enabled: bool
    injection_enabled: bool
    memory_mode: str
    char_usage: dict[str, Usage]
    external: ExternalStatus
    snapshot_taken_at: str | None
    llm_usage: dict[str, Any] = Field(
        description="today's LLM calls and tokens for this user and the budget left (/v1/usage)"
    )


class EntryAdd(_Body):
    target: Target
    content: str


class EntryReplace(_Body):
    content: str
    expected: str | None = Field(
        None, description="the entry's text as listed; refuses (409) if it changed since"
    )


class EntriesResponse(BaseModel):
    target: Target
    entries: list[str]
    changed: bool
    usage: Usage


class V2SearchRequest(_Body):
    query: str
    # None: the agent's prefetch size (``memvault agents set --prefetch-limit``; 5 by default).
    limit: int | None = Field(None, ge=1, le=MAX_SEARCH, strict=True)


class ReflectRequest(_Body):
    query: str
    limit: int = Field(10, ge=1, le=MAX_SEARCH, strict=True)


class RecalledMemory(BaseModel):
    """A memory the external provider recalled; ``entry`` and ``sources`` are filled
    when that provider is the vault."""

    id: str
    text: str
    score: float | None
    bank: str = Field(description="the bank it came from")
    metadata: dict[str, Any] = {}
    entry: Entry | None = None
    sources: dict[str, float] = {}


class V2SearchResponse(BaseModel):
    results: list[RecalledMemory]


class ReflectResponse(BaseModel):
    answer: str
    memories: list[RecalledMemory]


class BankClearRequest(_Body):
    bank: str = Field(description="the bank to clear, as GET /status names it")
    confirm: str = Field(description="the bank name again, to confirm")


class BankClearResponse(BaseModel):
    bank: str
    deleted: int | None = Field(description="how many went; null if the provider does not say")


# -- health -----------------------------------------------------------------------------


class Health(BaseModel):
    status: str
    version: str


class Ready(BaseModel):
    status: str
    store: dict[str, Any] | None = None
    error: str | None = None
