"""``vault.admin``: what an operator asks of the whole vault — who has memories here,
the LLM token ledger, whether another embedding model suits the stored text, and the
vault's signing keys.

Operators only: never hand these to one user's request (they span users).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ...config import VaultConfig
from ...embed.advice import EmbedderAdvice, advise
from ...embed.base import Embedder
from ...llm import Usage
from ...llm.metered import read_usage
from ...results.stats import UserMemories
from ...stores.protocols import Store
from ...validation import check_limit, check_offset, make_scope
from ..signing import signing_key
from ..views import owner_view


class Admin:
    """The operator's calls over one store."""

    def __init__(
        self,
        store: Store,
        config: VaultConfig,
        clock: Callable[[], datetime],
        embedder: Embedder | None,
    ) -> None:
        self._store = store
        self._config = config
        self._clock = clock
        self._embedder = embedder

    def signing_key(self, name: str) -> bytes:
        """A 256-bit secret of this vault for one integration (``SIGNERS``), made on first
        use and kept in the store's settings, so every process and backend shares it.

        Why: an integration that replays what it stored (the OpenAI Agents session) must
        tell its own entries from look-alikes any other writer can make (an HTTP client,
        an import line can set any id and metadata): it signs their ids with this key,
        which never leaves the store (exports hold entries, not settings)."""
        return signing_key(self._store, name)

    def users(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        """Who has memories here and how many, a page at a time, sorted by user id (what
        to export, erase or act as)."""
        return self._store.user_counts(
            limit=check_limit(limit, maximum=1000), offset=check_offset(offset)
        )

    def user_total(self) -> int:
        """How many users have at least one memory here (the length of every page of
        ``users`` together)."""
        return len(self._store.user_ids())

    def llm_usage(self, *, user_id: str | None = None, days: int = 1) -> Usage:
        """LLM calls and tokens of the last ``days`` UTC days (today included), by
        operation and model, for one user or (None) for everyone, and what is left of
        today's budget (``llm.daily_tokens_per_user`` / ``llm.daily_tokens``)."""
        who = None if user_id is None else make_scope(user_id).user_id
        span = check_limit(days, "days", maximum=366)
        return read_usage(self._store, self._config.llm, self._clock(), who, days=span)

    def embedding_advice(self, *, user_id: str | None = None, sample: int = 500) -> EmbedderAdvice:
        """Whether another local model suits the stored text better (``memvault doctor``):
        samples the newest ``sample`` entries of ``user_id``, or the first of the store."""
        sample = check_limit(sample, maximum=10_000)
        if user_id is not None:
            entries = self._store.list_entries(owner_view(user_id), limit=sample)
        else:
            # Entries lacking a vector of the empty model name, which no embedder has: every
            # entry (the first of the store, any user). NUL would do too but PostgreSQL
            # refuses it in text.
            entries = self._store.missing_vectors("", limit=sample)
        return advise(self._embedder, [e.content for e in entries])


__all__ = ["Admin"]
