"""Engine settings, and the one place that reads the environment.

``VaultConfig`` holds every knob with a documented default. ``load_config`` layers
defaults < environment (``MEMVAULT_*``) < explicit keyword overrides; nothing else
in the package looks at ``os.environ``.

Which config owns what:

* ``VaultConfig`` (here) is the engine's, one per ``Vault`` and the same for every user:
  where the store is (``home``, ``db_path`` / ``store_url``), size limits, keyword
  indexing, embeddings, retrieval and fusion, the context block, the threat scan
  (``security``), sensitive-data protection and reveal (``sensitive``), the LLM client
  the gateway's reflect uses (``llm``), and how entries age (``lifecycle``: tiers, decay).
* ``agent.config.MemoryConfig`` is the agent layer's, layered per user (defaults <
  ``config.yaml`` < global overrides < user overrides): whether memory is on, the
  provider (builtin files, Hindsight), the builtin files' quotas, the Hindsight
  connection and banks, prompt injection, and the scan of the builtin files.

A new engine setting goes into a section here; a setting a user may change for
themselves goes into ``MemoryConfig`` (and ``USER_WRITABLE_FIELDS`` there).
Entry fields are neither: they are described by ``memvault.fields``.

Why one file of about 710 lines: it is the one module allowed to read ``os.environ``, and
``VaultConfig``'s thirteen sections are the table of every engine setting with its default
and description (``memvault config-reference`` renders them); the sections are data, and
keeping them with the loader keeps the environment in one place.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from .errors import ConfigError

DEFAULT_DB_NAME = "memvault.db"


class KeywordConfig(BaseModel):
    """The keyword channel: BM25 column weights (title/description count more than body,
    extra context less), which query terms run (``common_term_*``, the policy of
    ``retrieval.terms``) and what gets indexed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    head_weight: float = Field(2.0, ge=0, description="weight of name + description")
    body_weight: float = Field(1.0, ge=0, description="weight of the content")
    extra_weight: float = Field(0.5, ge=0, description="weight of extra indexing context")
    max_query_terms: int = Field(64, ge=1, le=512, description="distinct terms used from a query")
    common_term_cutoff: int = Field(
        5000,
        ge=0,
        description="a query term found in more entries than this is dropped when the query "
        "has rarer terms (0 = never); bounds latency on large vaults",
    )
    common_term_share: float = Field(
        0.2,
        ge=0,
        le=1,
        description="a query term found in more than this share of the caller's entries "
        "counts as common too (0 = only the absolute cutoff)",
    )
    common_term_floor: int = Field(
        1000,
        ge=0,
        description="the share rule never calls a term common below this many entries",
    )
    phrase_weight: float = Field(
        1.0,
        ge=0,
        description="a query's CJK run found contiguously weighs this much per bigram in it, "
        "on top of its bigrams (0 = no phrase search)",
    )
    indexed_metadata: tuple[str, ...] = Field(
        ("tags", "keywords", "speaker", "context"),
        description="metadata keys whose values are searchable at the extra weight",
    )
    head_metadata: tuple[str, ...] = Field(
        ("date", "session_date"),
        description="metadata keys searchable at the head weight, with name and description "
        "(session_date: a turn's documented session date; chosen on LoCoMo 0-4)",
    )
    drop_question_words: bool = Field(
        True, description="leave words like 'what', 'kind', 'might' out of queries"
    )


class ConversationConfig(BaseModel):
    """Conversation-aware indexing (``memvault.retrieval.conversation``): entries that
    share a ``session_id`` are turns of one conversation, and each is also found by
    the words of the turns around it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    window: int = Field(
        2,
        ge=0,
        le=16,
        description="neighbouring turns on each side whose text is indexed, at the extra "
        "weight, with a turn of the same session (0 = off)",
    )
    neighbour_chars: int = Field(
        0,
        ge=0,
        description="characters of each neighbouring turn indexed with a turn: its start "
        "(0 = all of it)",
    )
    alone_chars: int = Field(
        0,
        ge=0,
        description="a turn at least this long is indexed without its neighbours' words "
        "(0 = every turn gets them)",
    )


class RetrievalConfig(BaseModel):
    """How channels are combined and weighed (see ``memvault.retrieval.fusion``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keyword_weight: float = Field(1.0, ge=0, description="RRF weight of the keyword channel")
    vector_weight: float = Field(
        0.2,
        ge=0,
        description="RRF weight of the vector channel; below keyword's because the keyword "
        "index also sees each entry's context (chosen on LoCoMo 0-4)",
    )
    rrf_k: float = Field(60.0, gt=0, description="reciprocal rank fusion constant")
    rerank: bool = Field(
        True,
        description="re-order the fused candidates with the learned second stage "
        "(``retrieval.rerank``; trained by bench/train_rerank.py); False = fusion order",
    )
    rerank_weights: Path | None = Field(
        None,
        description="path of a reranker weights file (None = the one shipped in the package)",
    )
    candidates: int = Field(50, ge=1, le=1000, description="depth each channel contributes")
    min_similarity: float = Field(
        0.1,
        ge=-1,
        le=1,
        description="a hit found only by the vector channel needs at least this cosine "
        "(on MiniLM's scale, which the default embedder's scores use: unrelated text sits "
        "near 0.09); the second stage weighs the rest, and context() has its own gate. At "
        "0.2 it dropped 7% of the Chinese dev set's answers that only meaning found",
    )
    importance_boost: float = Field(0.05, ge=0, le=1, description="max +/- share from importance")
    recency_boost: float = Field(0.05, ge=0, le=1, description="max share added for recency")
    half_life_days: float = Field(30.0, gt=0, description="recency half-life")
    cold_factor: float = Field(0.97, ge=0, le=1, description="score factor of cold entries")
    archive_factor: float = Field(0.94, ge=0, le=1, description="score factor of archived ones")
    tier_preference: bool = Field(
        True,
        description="inside each channel, active entries get their candidate slots and rank "
        "before cold, then archived ones of similar relevance (``retrieval.tiered``)",
    )
    demoted_decision_factor: float = Field(
        0.9, ge=0, le=1, description="score factor of rejected, superseded, invalid decisions"
    )
    person_key: str | None = Field(
        "speaker",
        description="metadata key naming who said an entry; a query naming exactly one such "
        "person boosts that person's entries (None = off)",
    )
    person_boost: float = Field(0.3, ge=0, le=2, description="score share added for that match")
    graph_channel: bool = Field(
        True,
        description="the entity graph as a third channel: entries linked to the entities a "
        "query names (and, weaker, to their neighbours), fused with keyword and vector",
    )
    graph_weight: float = Field(0.3, ge=0, description="RRF weight of the graph channel")
    graph_hop_weight: float = Field(
        0.5, ge=0, le=1, description="share of an entity's weight its one-hop neighbours get"
    )
    graph_max_share: float = Field(
        0.05,
        gt=0,
        le=1,
        description="an entity linked to more than this share of the view's entries (and "
        "more than 20) says little about which one is meant: the channel ignores it",
    )


#: dsh-deepmemory's embedding keys (seed 004) and the key each stands for here.
DEEPMEMORY_EMBEDDING_KEYS = {
    "local_model": "model",
    "api_model": "model",
    "api_base_url": "base_url",
}


class EmbeddingConfig(BaseModel):
    """Which embedder turns text into vectors, and how.

    dsh-deepmemory's keys are taken too (seed 004): ``provider: api`` is ``openai``,
    ``api_base_url`` is ``base_url``, and ``local_model`` / ``api_model`` are ``model``
    (the one of the provider in use; with ``auto`` or ``local``, ``local_model``); its
    ``EMBED_API_KEY`` variable is read when ``MEMVAULT_EMBEDDING_API_KEY`` is not set.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _deepmemory_keys(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        out = {k: v for k, v in data.items() if k not in DEEPMEMORY_EMBEDDING_KEYS}
        if out.get("provider") == "api":
            out["provider"] = "openai"
        if "api_base_url" in data:
            if "base_url" in data:
                raise ValueError("api_base_url and base_url name the same setting: give one")
            out["base_url"] = data["api_base_url"]
        model_key = "api_model" if out.get("provider") == "openai" else "local_model"
        if "model" in data and model_key in data:
            raise ValueError(f"{model_key} and model name the same setting: give one")
        if model_key in data:
            out["model"] = data[model_key]
        return out

    provider: Literal["auto", "local", "openai", "hashing", "none"] = Field(
        "auto",
        description="auto = local when the 'local' extra (or, for the multilingual model, "
        "the 'multilingual' extra) is installed, else none",
    )
    base_url: str | None = Field(None, description="OpenAI-compatible API base, e.g. .../v1")
    api_key: str | None = Field(None, description="API key (MEMVAULT_EMBEDDING_API_KEY)")
    model: str | None = Field(
        None,
        description="the model: for local, all-MiniLM-L6-v2 (the default, English) or "
        "multilingual-e5-small (Chinese and 100 other languages); for openai, the API "
        "model name (default text-embedding-3-small)",
    )
    dim: int = Field(1536, ge=1, description="API vector size")
    batch_size: int = Field(64, ge=1, le=2048, description="texts per embedding call")
    threads: int | None = Field(
        None, ge=1, le=256, description="threads of a local model (default: one per core)"
    )
    background: bool = Field(True, description="embed after add returns (False: before)")
    search_wait: float = Field(
        5.0,
        ge=0,
        le=600,
        description="read-your-writes: a search waits up to this many seconds for the vectors "
        "of entries this process added for its user; past it the search goes on and the rest "
        "are found by keyword until embedded (0 = never wait)",
    )
    cache_mb: int = Field(
        512,
        ge=1,
        description="memory a process's vector cache may hold (users' vectors searched in "
        "the process: SQLite, MySQL / MariaDB, small users on PostgreSQL); the users "
        "searched least recently are dropped first and reloaded when searched again",
    )
    metadata_prefix: tuple[str, ...] = Field(
        (),
        description="metadata keys whose values prefix the embedded text ('Ann: text'); "
        "none by default: the speaker's name cost recall@10 on the assistant-heavy and the "
        "Chinese sets (0.917 -> 0.875 and 0.882 -> 0.850 with it) and gained 0.02 on LoCoMo, "
        "where the keyword channel (which indexes the speaker) and the person boost find "
        "the named speaker anyway",
    )


class ContextConfig(BaseModel):
    """The recalled-memory block for a system prompt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int = Field(2000, ge=16, description="token budget of the block")
    limit: int = Field(10, ge=1, le=100, description="most entries considered")
    # The relevance gate (memvault.retrieval.relevance). Unset (None), each setting takes
    # the value measured for the embedder's model on bench/paraphrase.py
    # (relevance.CALIBRATIONS: MiniLM -0.06 / 0.3 / 0.2); the README has the trade-off.
    min_similarity: float | None = Field(
        None,
        ge=-1,
        le=1,
        description="a hit found only by meaning needs at least this cosine (unset: the "
        "model's measured value)",
    )
    margin: float | None = Field(
        None,
        ge=-2,
        le=2,
        description="nothing goes in unless the query's best cosine among the candidates, "
        "minus its best cosine to a bank of everyday requests, reaches this (a query the "
        "model cannot judge, with no embedder or CJK with an English model, goes by "
        "keyword matches alone; unset: the model's measured value)",
    )
    band: float | None = Field(
        None,
        ge=0,
        le=2,
        description="a hit found by meaning must come within this of the best cosine "
        "(unset: the model's measured value)",
    )


class SecurityConfig(BaseModel):
    """What the write path refuses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scan_writes: bool = Field(
        True,
        description="run the threat scan (prompt injection, exfiltration, hidden characters) "
        "on every write: refuse what it blocks, hold for review what it quarantines",
    )
    semantic_screen: Literal["auto", "on", "off"] = Field(
        "off",
        description="also compare writes the rules let through with a bank of injection "
        "examples by meaning (a match is held, never refused); one model call per write "
        "(about 18 ms on a CPU core); auto: on with an embedder whose threshold was measured "
        "(the local models)",
    )
    model_screen: Literal["auto", "off"] = Field(
        "auto",
        description="hold for review the memories that a model trained on injection and "
        "benign corpora reads as instructions to the assistant (when the background worker "
        "has their vector), and leave such recalled memories out of every prompt block "
        "(one dot product per memory, on its stored vector); auto: on with the embedder "
        "its weights were trained for (the default bilingual pair)",
    )


class SensitiveConfig(BaseModel):
    """Sensitive-data protection (seed 004): redact on write, keep originals encrypted."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(True, description="detect and redact sensitive data on every write")
    key: str | None = Field(
        None, description="Fernet key for originals (MEMVAULT_SECRET_KEY); else key_file"
    )
    key_file: Path | None = Field(
        None, description="key file, created with mode 0600 on first use; default <home>/secret.key"
    )
    plain_metadata: tuple[str, ...] = Field(
        ("langgraph.namespace", "langgraph.key", "anthropic_memory.path"),
        description="dotted metadata paths that address an entry and are kept as written "
        "(still threat-scanned), e.g. the LangGraph store's namespace and key",
    )
    reveal_attempts: int = Field(
        3, ge=1, le=10, description="wrong answers (per user, any entry or key) before reveal locks"
    )
    attempt_window_minutes: float = Field(
        30.0, gt=0, description="wrong answers older than this no longer count"
    )
    lockout_minutes: float = Field(
        30.0, ge=0, description="how long a lock lasts unless an admin lifts it (0: until then)"
    )
    reveal_minutes: float = Field(30.0, gt=0, description="how long a granted reveal lasts")


class LLMConfig(BaseModel):
    """An OpenAI-compatible chat model, used by ``/reflect`` (unset = no LLM features)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(
        None, description="API base ending in /v1, e.g. https://api.openai.com/v1"
    )
    api_key: str | None = Field(None, description="API key (MEMVAULT_LLM_API_KEY)")
    model: str | None = Field(None, description="chat model name (MEMVAULT_LLM_MODEL)")
    timeout_s: float = Field(60.0, gt=0, le=600, description="seconds one completion may take")
    max_tokens: int = Field(1024, ge=1, le=65536, description="answer length cap")
    temperature: float = Field(0.0, ge=0, le=2, description="sampling temperature")
    retries: int = Field(
        2, ge=0, le=10, description="further tries after a timeout, 429 or 5xx (0: none)"
    )
    backoff_s: float = Field(
        0.5, ge=0, le=30, description="first retry waits up to this long; doubling, with jitter"
    )
    daily_tokens_per_user: int | None = Field(
        None, ge=1, description="LLM tokens one user's calls may use per UTC day (None: no cap)"
    )
    daily_tokens: int | None = Field(
        None, ge=1, description="LLM tokens all users' calls may use per UTC day (None: no cap)"
    )

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


class LifecycleConfig(BaseModel):
    """How entries age (seed 004): each class's window in the ``active`` tier, then ``cold``,
    then ``archive``. A window counts from the entry's last activity (written, updated or
    recalled); None means the class never leaves ``active`` by age. Nothing is deleted."""

    model_config = ConfigDict(extra="forbid")

    short_term_days: float | None = Field(7.0, gt=0, description="recent day-to-day context")
    process_days: float | None = Field(15.0, gt=0, description="task detail")
    semantic_days: float | None = Field(None, gt=0, description="stable facts (None: stay)")
    source_archive_days: float | None = Field(None, gt=0, description="raw conversation turns")
    compressed_archive_days: float | None = Field(None, gt=0, description="summaries")
    archive_after_days: float | None = Field(
        365.0, gt=0, description="idle days after which a cold entry moves to archive"
    )
    schedule_minutes: float | None = Field(
        360.0,
        gt=0,
        description="how often `memvault serve` runs the transitions (None: only on demand)",
    )
    track_access: bool = Field(
        True, description="record each recall (last_accessed_at, access_count) as use"
    )
    reinforce_after: int = Field(
        10, ge=0, description="recalls at which use adds its full share to importance (0: off)"
    )
    reinforce_share: float = Field(
        0.5, ge=0, le=1, description="share of the gap to importance 1.0 that full use adds"
    )
    compress_after_days: float | None = Field(
        30.0,
        gt=0,
        description="idle days after which a session's raw turns (source_archive) are "
        "summed up in one compressed_archive entry by maintain (None: never)",
    )
    compress_min_entries: int = Field(
        3, ge=1, le=200, description="fewest old turns of a session worth one summary"
    )
    compress_max_chars: int = Field(
        1200, ge=80, le=20_000, description="longest summary, in characters"
    )
    compress_llm: bool = Field(
        True, description="summarise through the configured LLM (``llm``) when there is one"
    )
    detect_replacements: bool = Field(
        False,
        description="with an LLM configured, ask it on each add whether the new memory "
        "replaces one of the few most similar current ones, and supersede that one",
    )


class DomainConfig(BaseModel):
    """Work and life kept apart (seed 004)."""

    model_config = ConfigDict(extra="forbid")

    classify: bool = Field(
        True,
        description="name the domain (work / life) of a write that names none, by a small "
        "rule set; a tie leaves it unclassified",
    )
    llm: bool = Field(
        False,
        description="ask the configured LLM (``llm``) for that domain instead, one call per "
        "write; the rule set answers whenever the LLM fails",
    )


class DecisionConfig(BaseModel):
    """Decisions that conflict with adopted ones (seed 004; ``memvault.conflicts``)."""

    model_config = ConfigDict(extra="forbid")

    detect_conflicts: bool = Field(
        True, description="compare a new or adopted decision with the adopted ones"
    )
    conflict_overlap: float = Field(
        0.5,
        gt=0,
        le=1,
        description="share of the shorter decision's words two decisions must share to be "
        "about the same question",
    )
    conflict_min_terms: int = Field(
        2, ge=1, description="words two decisions must share at least to be compared"
    )
    llm_conflicts: bool = Field(
        True, description="let the configured LLM decide which close decisions really conflict"
    )


class GraphConfig(BaseModel):
    """The entity graph's write side (``memvault.graph``): what each write extracts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extract: bool = Field(
        True, description="find the entities and relations of every write and link them"
    )
    llm: bool = Field(
        False,
        description="also ask the configured LLM (``llm``) for them on every write, the "
        "rules filling in (off by default: one call, and the memory's text sent out, per "
        "write); without an LLM the rules alone run, with no call",
    )


class ExtractionConfig(BaseModel):
    """Learning from raw conversation (``Vault.remember``, seed 001 and seed 000 §9.1):
    after a quiet period the configured LLM reads the conversation, updates the user's
    profile and writes the facts it found into the vault. Without an LLM, ``remember``
    only archives the turns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(
        True, description="extract facts from remembered conversations when an LLM is configured"
    )
    debounce_seconds: float = Field(
        30.0,
        ge=0,
        le=86400,
        description="quiet seconds after the last remembered message before one extraction runs",
    )
    model_name: str | None = Field(
        None, min_length=1, description="chat model for extraction (None: llm.model)"
    )
    fact_confidence_threshold: float = Field(
        0.7, ge=0, le=1, description="facts the model is less sure of than this are dropped"
    )
    max_facts_per_extraction: int = Field(
        10, ge=1, le=100, description="new facts one extraction may add, most confident first"
    )
    correction_detection: bool = Field(
        True,
        description="a fact that corrects an older one replaces it (the old one kept in history)",
    )
    reinforcement_detection: bool = Field(
        True, description="a fact said again raises the stored one's confidence instead of a copy"
    )
    duplicate_similarity: float = Field(
        0.8,
        gt=0,
        le=1,
        description="word overlap (Jaccard) at which two facts count as the same fact",
    )
    max_conversation_chars: int = Field(
        24_000,
        ge=500,
        le=1_000_000,
        description="characters of conversation sent to the model (the latest messages kept)",
    )


class VaultConfig(BaseModel):
    """Settings of one ``Vault``. All fields are keyword-only and validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path = Field(
        default_factory=lambda: Path("~/.memvault").expanduser(),
        description="data directory (MEMVAULT_HOME)",
    )
    db_path: Path | None = Field(None, description="SQLite file; default <home>/memvault.db")
    store_url: str | None = Field(
        None,
        description="the store as a URL (sqlite:///abs/path.db, memory://); overrides db_path. "
        "MEMVAULT_DB takes either a path or a URL",
    )
    max_content_bytes: int = Field(
        64 * 1024,
        ge=16,
        le=16 * 1024 * 1024,
        description="largest memory text, in UTF-8 bytes (MEMVAULT_MAX_CONTENT_BYTES); a "
        "longer one is refused, never cut",
    )
    max_metadata_bytes: int = Field(
        64 * 1024, ge=16, le=16 * 1024 * 1024, description="largest metadata, as JSON bytes"
    )
    max_query_bytes: int = Field(
        64 * 1024, ge=16, le=16 * 1024 * 1024, description="largest search query, in bytes"
    )
    busy_timeout_ms: int = Field(10_000, ge=0, description="how long a writer waits for a lock")
    synchronous: Literal["FULL", "NORMAL"] = Field(
        "FULL", description="SQLite fsync policy; FULL never loses a committed write"
    )
    keyword: KeywordConfig = Field(default_factory=KeywordConfig)
    conversation: ConversationConfig = Field(default_factory=ConversationConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    lifecycle: LifecycleConfig = Field(default_factory=LifecycleConfig)
    domains: DomainConfig = Field(default_factory=DomainConfig)
    decisions: DecisionConfig = Field(default_factory=DecisionConfig)
    graph: GraphConfig = Field(default_factory=GraphConfig)
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    extraction: ExtractionConfig = Field(default_factory=ExtractionConfig)
    sensitive: SensitiveConfig = Field(default_factory=SensitiveConfig)

    @property
    def database(self) -> Path:
        """The SQLite file for a path setting (for a ``store_url``, see ``store``)."""
        return self.db_path if self.db_path is not None else self.home / DEFAULT_DB_NAME

    @property
    def store(self) -> str | Path:
        """What ``stores.open_store`` opens: the URL if one is set, else the SQLite file."""
        return self.store_url if self.store_url is not None else self.database


_ENV_FIELDS: dict[str, str] = {
    "MEMVAULT_HOME": "home",
    "MEMVAULT_DB": "db_path",
    "MEMVAULT_MAX_CONTENT_BYTES": "max_content_bytes",
    "MEMVAULT_SYNCHRONOUS": "synchronous",
}
_ENV_SENSITIVE: dict[str, str] = {"MEMVAULT_SECRET_KEY": "key"}
_ENV_EMBEDDING: dict[str, str] = {
    "MEMVAULT_EMBEDDER": "provider",
    "MEMVAULT_EMBEDDING_BASE_URL": "base_url",
    "EMBED_API_KEY": "api_key",  # dsh-deepmemory's name; the next one wins when both are set
    "MEMVAULT_EMBEDDING_API_KEY": "api_key",
    "MEMVAULT_EMBEDDING_MODEL": "model",
    "MEMVAULT_EMBEDDING_DIM": "dim",
    "MEMVAULT_EMBEDDING_THREADS": "threads",
}
_ENV_LLM: dict[str, str] = {
    "MEMVAULT_LLM_BASE_URL": "base_url",
    "MEMVAULT_LLM_API_KEY": "api_key",
    "MEMVAULT_LLM_MODEL": "model",
}


def env_settings(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``MEMVAULT_*`` variables that are set, as config field values."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for var, name in _ENV_FIELDS.items():
        raw = env.get(var)
        if not raw:
            continue
        if name == "db_path" and "://" in raw:
            values["store_url"] = raw  # a store URL, not a file path
        elif name in ("home", "db_path"):
            values[name] = Path(raw).expanduser()
        else:
            values[name] = raw
    embedding = {name: env[var] for var, name in _ENV_EMBEDDING.items() if env.get(var)}
    if embedding:
        values["embedding"] = embedding
    sensitive = {name: env[var] for var, name in _ENV_SENSITIVE.items() if env.get(var)}
    if sensitive:
        values["sensitive"] = sensitive
    llm = {name: env[var] for var, name in _ENV_LLM.items() if env.get(var)}
    if llm:
        values["llm"] = llm
    return values


def load_config(environ: dict[str, str] | None = None, **overrides: Any) -> VaultConfig:
    """Defaults, then the environment, then ``overrides`` (None values are ignored)."""
    values = env_settings(environ)
    for key, value in overrides.items():
        if value is None:
            continue
        if key in values and isinstance(values[key], dict) and isinstance(value, dict):
            values[key] = {**values[key], **value}
        else:
            values[key] = value
    try:
        return VaultConfig(**values)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid memvault configuration: {problems}") from None


_WORKER_ENV = "MEMVAULT_SERVER_WORKER"


def export_worker_settings(config: VaultConfig, server: dict[str, Any]) -> None:
    """Hand the parent's settings to server worker processes through the environment.

    Workers are started by uvicorn in fresh processes; they rebuild the same
    ``VaultConfig`` (home and database) and read the HTTP settings back with
    ``worker_settings``.
    """
    os.environ["MEMVAULT_HOME"] = str(config.home)
    os.environ["MEMVAULT_DB"] = str(config.store)
    os.environ[_WORKER_ENV] = json.dumps(server)


def worker_settings() -> dict[str, Any]:
    """The HTTP settings exported by ``export_worker_settings`` ({} when none)."""
    raw = os.environ.get(_WORKER_ENV)
    if not raw:
        return {}
    value: dict[str, Any] = json.loads(raw)
    return value


def force_offline_models() -> None:
    """Tell the model libraries never to reach the network: the Hugging Face ones (no
    run-time downloads) and onnxruntime, whose builds since 1.29 keep a device id and
    a queue of usage events under ``~/.cache/Microsoft`` and send them to Microsoft
    unless ``ORT_DISABLE_TELEMETRY`` is set before it starts (a user who wants them
    sets it to 0). Called before any of them is imported."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def passive_openmp_threads() -> None:
    """Let idle OpenMP threads sleep (unless the environment says otherwise).

    The multilingual model's engine parallelises with OpenMP, whose threads spin while
    waiting by default; on a small machine shared with other work, spinning threads
    starve the one doing the work (measured on 2 busy cores: 2.5 s per query spinning,
    18 ms passive). Read by OpenMP when its library loads, so call this before.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def user_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where memvault keeps what it derives from installed packages and can always derive
    again (jieba's word table): ``memvault`` in the platform's per-user cache directory
    (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows). Deleting it costs time, never data."""
    env = os.environ if environ is None else environ
    if sys.platform == "win32":
        base = env.get("LOCALAPPDATA") or str(Path("~/AppData/Local").expanduser())
        return Path(base) / "memvault" / "Cache"
    if sys.platform == "darwin":
        return Path("~/Library/Caches/memvault").expanduser()
    xdg = env.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else str(Path("~/.cache").expanduser())
    return Path(base) / "memvault"


_ENV_REFERENCE = re.compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|(\$)|(\{))"
)


def expand_env(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace ``$NAME`` and ``${NAME}`` with environment values; ``$$`` is a literal ``$``.

    A ``$`` not followed by a name (``"costs $5"``) is kept as written. A referenced
    variable that is not set, or a ``${`` without a valid name and closing brace, raises
    ``ConfigError`` naming the variable (never echoing the value, which may hold a secret),
    so a missing secret fails at startup instead of being sent as the literal ``$NAME``.
    """
    env = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        braced, bare, dollar, _bad_brace = match.groups()
        if dollar:
            return "$"
        name = braced or bare
        if name is None:
            raise ConfigError(
                "malformed environment reference (a '${' without a valid name and '}'): write "
                "${NAME} with letters, digits and underscores, or $$ for a literal dollar sign"
            )
        if name not in env:
            raise ConfigError(
                f"environment variable {name} is referenced in the configuration but not set: "
                f"export {name} or remove the reference",
                field=name,
            )
        return env[name]

    return _ENV_REFERENCE.sub(substitute, value)


__all__ = [
    "ContextConfig",
    "ConversationConfig",
    "DomainConfig",
    "EmbeddingConfig",
    "ExtractionConfig",
    "GraphConfig",
    "KeywordConfig",
    "LLMConfig",
    "LifecycleConfig",
    "RetrievalConfig",
    "SecurityConfig",
    "SensitiveConfig",
    "VaultConfig",
    "env_settings",
    "expand_env",
    "export_worker_settings",
    "force_offline_models",
    "load_config",
    "passive_openmp_threads",
    "user_cache_dir",
    "worker_settings",
]
