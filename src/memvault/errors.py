"""Every error memvault raises, as one tree.

Callers catch ``MemvaultError`` to handle anything from this package; the
subclasses say what went wrong, and each message says what to do about it::

    MemvaultError
    ├── ValidationError          bad input; nothing was changed   (also ValueError)
    │   ├── ImportFormatError    a JSONL import record is malformed
    │   ├── SecurityError        the security scan blocked the content
    │   ├── CharLimitError       a memory file would exceed its character limit
    │   └── AmbiguousMatchError  old_text matches several entries
    ├── NotFoundError            no such entry in the caller's scope (also LookupError)
    ├── ConflictError            the write clashes with what is stored
    │   └── FileDriftError       a memory file was hand-edited and no longer round-trips
    ├── StoreError               the database failed or is unusable
    │   ├── MigrationError       the schema could not be created or upgraded
    │   └── StoreUnavailableError  the database server cannot be reached (retry later)
    ├── AuthorizationError       a reveal was not authorised (wrong answer, no grant)
    │   └── RevealLockedError    too many wrong answers: reveal is locked for the entry
    ├── ConfigError              a setting is invalid
    │   └── EmbeddingModelMismatchError  the vault's vectors are of another model
    ├── UnsupportedOperationError  the configured provider does not offer this operation
    ├── AuthError                the HTTP request carries no valid API key        (401)
    ├── ForbiddenError           the key may not use this HTTP route (admin only) (403)
    ├── PayloadTooLargeError     the HTTP request body is over the size limit      (413)
    └── UpstreamError            a service memvault relies on but does not run failed
        ├── LLMError             the chat model endpoint failed or answered in an unknown shape
        │   └── LLMBudgetError   a daily token budget is used up: the call was not made
        ├── LLMUnavailableError  no chat model is configured
        └── EmbeddingError       the embedder failed or is not installed

``UnsupportedOperationError`` is a fact about the set-up, not the request: the external
memory provider that is configured (or the lack of one) cannot do what was asked, and
no retry will change that; the gateway answers it with 501.

``UpstreamError`` is the branch for LLMs and other external providers (the embedding
model, local or behind an API, is one), so a caller can tell "their side failed, retry
or reconfigure" from a problem with the request or the store.

``AuthError``, ``ForbiddenError`` and ``PayloadTooLargeError`` are the HTTP gateway's own
refusals. They live here, not in ``memvault.server``, so that the HTTP client
(``memvault.client``) raises the very classes the server maps to 401, 403 and 413
without importing the web framework.

The name ``MemoryError`` is deliberately not used: it would shadow the builtin.
"""

from __future__ import annotations

from typing import Any

#: What to do about an error, in the library's words, by remedy id. A surface that names
#: the same act differently (a CLI flag, an HTTP field) passes its own table to
#: ``MemvaultError.say``.
LIBRARY_REMEDIES: dict[str, str] = {
    "import.skip_existing": "use on_conflict='skip' to import only the new ids",
    "update.fields": "pass at least one field such as content or name",
    "netaclaw.id_prefix": "import this database under ids of its own with id_prefix='mysql-'",
    "netaclaw.rename": "map each to a memvault id with agent_ids= / user_ids=",
    "reveal.set_secret": "call set_reveal_secret first",
    "reveal.current_secret": "changing it needs current= (the secret now set), or an "
    "administrator's reset_reveal_secret",
}


class MemvaultError(Exception):
    """Base class of every memvault error.

    ``code`` is a stable machine-readable identifier (used by the HTTP layer);
    ``context`` carries the entry id, user and field involved where known. ``remedy``
    names what to do (a key of ``LIBRARY_REMEDIES``); ``message`` says it in the
    library's words, ``say(remedies)`` in a surface's.
    """

    code = "memvault_error"

    def __init__(self, message: str, *, remedy: str | None = None, **context: Any) -> None:
        self.problem = message
        self.remedy = remedy
        self.message = self.say(LIBRARY_REMEDIES)
        super().__init__(self.message)
        self.context = {k: v for k, v in context.items() if v is not None}

    def say(self, remedies: dict[str, str]) -> str:
        """The message with the remedy in the words of ``remedies`` (a surface's table;
        one it lacks falls back to the library's)."""
        if self.remedy is None:
            return self.problem
        words = remedies.get(self.remedy) or LIBRARY_REMEDIES.get(self.remedy)
        return f"{self.problem}: {words}" if words else self.problem

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


class CharLimitError(ValidationError):
    """An edit would push a memory file over its character limit; nothing was written.

    ``context`` holds ``chars`` (now), ``chars_after`` and ``limit``.
    """

    code = "over_limit"


class AmbiguousMatchError(ValidationError):
    """``old_text`` matches several different entries; ``context["matches"]`` previews them."""

    code = "ambiguous_match"


class NotFoundError(MemvaultError, LookupError):
    """The entry does not exist for this user (another user's entry is never revealed)."""

    code = "not_found"


class ConflictError(MemvaultError):
    """The write clashes with stored data (for example an id that already exists)."""

    code = "conflict"


class FileDriftError(ConflictError):
    """A memory file was edited by hand so it no longer round-trips; rewriting it would
    lose text. ``context["backup"]`` is the copy taken before refusing."""

    code = "file_drift"


class StoreError(MemvaultError):
    """The storage backend failed; the operation was rolled back."""

    code = "store_error"


class MigrationError(StoreError):
    """The database schema could not be created or upgraded."""

    code = "migration_error"


class StoreUnavailableError(StoreError):
    """The database server cannot be reached or went away; nothing was changed.

    A fact of the moment, not of the request: the same call succeeds once the server
    is back (the store reconnects by itself)."""

    code = "store_unavailable"


class AuthorizationError(MemvaultError):
    """Seeing an original needs an authorisation that was not given or has expired."""

    code = "not_authorized"


class RevealLockedError(AuthorizationError):
    """Too many wrong answers: the user's reveals are locked until an admin unlocks them
    or the cool-down (``sensitive.lockout_minutes``) passes."""

    code = "reveal_locked"


class ConfigError(MemvaultError):
    """A configuration value is invalid or missing."""

    code = "config_error"


class EmbeddingModelMismatchError(ConfigError):
    """The vault records another embedding model than the one this process is
    configured for (``engine.vector_space``); ``context`` holds ``recorded`` and
    ``configured``. Nothing was read or written with the wrong model."""

    code = "embedding_model_mismatch"


class UnsupportedOperationError(MemvaultError):
    """The configured external memory provider does not offer this operation (or no
    external provider is configured); ``context["provider"]`` names it."""

    code = "unsupported_operation"


class AuthError(MemvaultError):
    """The HTTP request carries no valid API key (none, malformed, unknown or revoked)."""

    code = "unauthorized"


class ForbiddenError(MemvaultError):
    """The API key is valid but may not use this route (it needs an admin key)."""

    code = "forbidden"


class PayloadTooLargeError(MemvaultError):
    """The HTTP request body is larger than the server accepts; send less per request."""

    code = "payload_too_large"


class UpstreamError(MemvaultError):
    """An external provider (chat model, embedder, memory service) failed or is missing."""

    code = "upstream_error"


class LLMError(UpstreamError):
    """The chat model endpoint failed; ``context`` holds the HTTP status when known."""

    code = "llm_error"


class LLMBudgetError(LLMError):
    """A daily token budget is used up: the call was not made (``llm.daily_tokens*``)."""

    code = "llm_budget_exceeded"


class LLMUnavailableError(UpstreamError):
    """No chat model is configured, so a feature that needs one cannot run."""

    code = "llm_unavailable"


class EmbeddingError(UpstreamError):
    """The embedder could not produce vectors."""

    code = "embedding_error"


__all__ = [
    "AmbiguousMatchError",
    "AuthError",
    "AuthorizationError",
    "CharLimitError",
    "ConfigError",
    "ConflictError",
    "EmbeddingError",
    "EmbeddingModelMismatchError",
    "FileDriftError",
    "ForbiddenError",
    "ImportFormatError",
    "LLMBudgetError",
    "LLMError",
    "LLMUnavailableError",
    "MemvaultError",
    "MigrationError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RevealLockedError",
    "SecurityError",
    "StoreError",
    "StoreUnavailableError",
    "UnsupportedOperationError",
    "UpstreamError",
    "ValidationError",
]
