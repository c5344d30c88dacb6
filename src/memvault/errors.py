"""Every error memvault raises, as one tree.

Callers catch ``MemvaultError`` to handle anything from this package; the
subclasses say what went wrong, and each message says what to do about it::

    MemvaultError
    ├── ValidationError          bad input; nothing was changed   (also ValueError)
    │   ├── ImportFormatError    a JSONL import record is malformed
    │   └── SecurityError        the security scan blocked the content
    ├── NotFoundError            no such entry in the caller's scope (also LookupError)
    ├── ConflictError            the write clashes with what is stored
    ├── StoreError               the database failed or is unusable
    │   └── MigrationError       the schema could not be created or upgraded
    ├── ConfigError              a setting is invalid
    └── EmbeddingError           the embedder failed or is not installed

The name ``MemoryError`` is deliberately not used: it would shadow the builtin.
"""

from __future__ import annotations

from typing import Any


class MemvaultError(Exception):
    """Base class of every memvault error.

    ``code`` is a stable machine-readable identifier (used by the HTTP layer);
    ``context`` carries the entry id, user and field involved where known.
    """

    code = "memvault_error"

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.context = {k: v for k, v in context.items() if v is not None}

    def __str__(self) -> str:
        return self.message


class ValidationError(MemvaultError, ValueError):
    """Input was rejected before anything was written."""

    code = "invalid_input"


class ImportFormatError(ValidationError):
    """An import record could not be parsed; the whole import was rejected."""

    code = "invalid_import"


class SecurityError(ValidationError):
    """Content was blocked by the security scan (prompt injection, exfiltration, ...).

    ``context["pattern_id"]`` names the rule that matched.
    """

    code = "blocked"


class NotFoundError(MemvaultError, LookupError):
    """The entry does not exist for this user (another user's entry is never revealed)."""

    code = "not_found"


class ConflictError(MemvaultError):
    """The write clashes with stored data (for example an id that already exists)."""

    code = "conflict"


class StoreError(MemvaultError):
    """The storage backend failed; the operation was rolled back."""

    code = "store_error"


class MigrationError(StoreError):
    """The database schema could not be created or upgraded."""

    code = "migration_error"


class ConfigError(MemvaultError):
    """A configuration value is invalid or missing."""

    code = "config_error"


class EmbeddingError(MemvaultError):
    """The embedder could not produce vectors."""

    code = "embedding_error"


__all__ = [
    "ConfigError",
    "ConflictError",
    "EmbeddingError",
    "ImportFormatError",
    "MemvaultError",
    "MigrationError",
    "NotFoundError",
    "SecurityError",
    "StoreError",
    "ValidationError",
]
