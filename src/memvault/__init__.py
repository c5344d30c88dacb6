"""memvault: long-term memory for LLM agents, embedded on SQLite.

The public surface is re-exported here; everything else is internal.
"""

from .config import VaultConfig, load_config
from .errors import (
    ConfigError,
    ConflictError,
    EmbeddingError,
    ImportFormatError,
    MemvaultError,
    MigrationError,
    NotFoundError,
    SecurityError,
    StoreError,
    ValidationError,
)
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
from .stores import MemoryStore, SQLiteStore, Store
from .vault import Vault

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "ConflictError",
    "DecisionStatus",
    "Domain",
    "EmbeddingError",
    "Hit",
    "ImportFormatError",
    "Kind",
    "MemClass",
    "MemoryEntry",
    "MemoryStore",
    "MemvaultError",
    "MigrationError",
    "NotFoundError",
    "SQLiteStore",
    "Scope",
    "SecurityError",
    "Sensitivity",
    "Source",
    "Store",
    "StoreError",
    "Tier",
    "ValidationError",
    "Vault",
    "VaultConfig",
    "__version__",
    "load_config",
]
