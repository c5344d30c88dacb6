"""memvault: long-term memory for LLM agents, embedded on SQLite.

The public surface is re-exported here; everything else is internal. Each name is
imported on first use (PEP 562: the module's ``__getattr__``), so ``import memvault``,
``import memvault.client`` and the ``memvault`` command load only the modules they
use, not the whole engine; ``from memvault import Vault`` works as before. Type
checkers read the ``TYPE_CHECKING`` imports below instead.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
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
    from .lifecycle.tiers import MaintenanceReport, TierMove
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
    from .results.profile import Fact, Learned, Profile, Remembered, parse_profile
    from .results.recall import CandidateTrace, ChannelScore, Explanation
    from .results.stats import DayCount, Stats
    from .security.scrubber import StreamingContextScrubber
    from .stores.memory import MemoryStore
    from .stores.protocols import Store
    from .stores.sqlite import SQLiteStore
    from .vault import Vault

#: The module (below the package) that defines each public name.
_HOMES: dict[str, str] = {
    "AmbiguousMatchError": "errors",
    "AuthError": "errors",
    "AuthorizationError": "errors",
    "BuiltinFileProvider": "agent.providers.builtin",
    "CandidateTrace": "results.recall",
    "ChannelScore": "results.recall",
    "CharLimitError": "errors",
    "ConfigError": "errors",
    "ConflictError": "errors",
    "DayCount": "results.stats",
    "DecisionStatus": "model",
    "Domain": "model",
    "EmbeddingError": "errors",
    "EmbeddingModelMismatchError": "errors",
    "Explanation": "results.recall",
    "ExternalMemory": "agent.external",
    "Fact": "results.profile",
    "FactsProvider": "agent.providers.facts",
    "FileDriftError": "errors",
    "ForbiddenError": "errors",
    "Hit": "model",
    "ImportFormatError": "errors",
    "Kind": "model",
    "LLMBudgetError": "errors",
    "LLMError": "errors",
    "LLMUnavailableError": "errors",
    "Learned": "results.profile",
    "MaintenanceReport": "lifecycle.tiers",
    "MemClass": "model",
    "MemoryEntry": "model",
    "MemoryManager": "agent.manager",
    "MemoryProvider": "agent.provider",
    "MemoryStore": "stores.memory",
    "MemvaultError": "errors",
    "MigrationError": "errors",
    "NotFoundError": "errors",
    "PayloadTooLargeError": "errors",
    "Profile": "results.profile",
    "Remembered": "results.profile",
    "RevealLockedError": "errors",
    "SQLiteStore": "stores.sqlite",
    "Scope": "model",
    "SecurityError": "errors",
    "Sensitivity": "model",
    "Source": "model",
    "Stats": "results.stats",
    "Store": "stores.protocols",
    "StoreError": "errors",
    "StoreUnavailableError": "errors",
    "StreamingContextScrubber": "security.scrubber",
    "Tier": "model",
    "TierMove": "lifecycle.tiers",
    "UnsupportedOperationError": "errors",
    "UpstreamError": "errors",
    "ValidationError": "errors",
    "Vault": "vault",
    "VaultConfig": "config",
    "VaultProvider": "agent.providers.vault",
    "load_config": "config",
    "parse_profile": "results.profile",
}

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


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` and keep the value, so the next lookup is
    an ordinary attribute."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
