"""memvault: long-term memory for LLM agents, embedded on SQLite.

The public surface is re-exported here; everything else is internal.
"""

from ._version import __version__
from .agent.external import ExternalMemory
from .agent.manager import MemoryManager
from .agent.provider import MemoryProvider
from .agent.providers.builtin import BuiltinFileProvider
from .agent.providers.facts import FactsProvider
from .agent.providers.vault import VaultProvider
from .config import VaultConfig, load_config
from .errors import (
    AmbiguousMatchError,
    AuthError,
    AuthorizationError,
    CharLimitError,
    ConfigError,
    ConflictError,
    EmbeddingError,
    EmbeddingModelMismatchError,
    FileDriftError,
    ForbiddenError,
    ImportFormatError,
    LLMBudgetError,
    LLMError,
    LLMUnavailableError,
    MemvaultError,
    MigrationError,
    NotFoundError,
    PayloadTooLargeError,
    RevealLockedError,
    SecurityError,
    StoreError,
    StoreUnavailableError,
    UnsupportedOperationError,
    UpstreamError,
    ValidationError,
)
from .lifecycle import MaintenanceReport, TierMove
from .model import (
    DecisionStatus,
    Domain,
    Hit,
    Kind,
    MemClass,
    MemoryEntry,
    Scope,
    Sensitivity,
    Source,
    Tier,
)
from .profile.document import Fact, Profile, parse_profile
from .profile.learn import Learned
from .profile.remember import Remembered
from .retrieval.explain import CandidateTrace, Explanation
from .retrieval.recall import ChannelScore
from .security.scrubber import StreamingContextScrubber
from .stores import MemoryStore, SQLiteStore, Store
from .stores.stats import DayCount, Stats
from .vault import Vault

__all__ = [
    "AmbiguousMatchError",
    "AuthError",
    "AuthorizationError",
    "BuiltinFileProvider",
    "CandidateTrace",
    "ChannelScore",
    "CharLimitError",
    "ConfigError",
    "ConflictError",
    "DayCount",
    "DecisionStatus",
    "Domain",
    "EmbeddingError",
    "EmbeddingModelMismatchError",
    "Explanation",
    "ExternalMemory",
    "Fact",
    "FactsProvider",
    "FileDriftError",
    "ForbiddenError",
    "Hit",
    "ImportFormatError",
    "Kind",
    "LLMBudgetError",
    "LLMError",
    "LLMUnavailableError",
    "Learned",
    "MaintenanceReport",
    "MemClass",
    "MemoryEntry",
    "MemoryManager",
    "MemoryProvider",
    "MemoryStore",
    "MemvaultError",
    "MigrationError",
    "NotFoundError",
    "PayloadTooLargeError",
    "Profile",
    "Remembered",
    "RevealLockedError",
    "SQLiteStore",
    "Scope",
    "SecurityError",
    "Sensitivity",
    "Source",
    "Stats",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "StreamingContextScrubber",
    "Tier",
    "TierMove",
    "UnsupportedOperationError",
    "UpstreamError",
    "ValidationError",
    "Vault",
    "VaultConfig",
    "VaultProvider",
    "__version__",
    "load_config",
    "parse_profile",
]
