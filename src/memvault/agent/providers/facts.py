"""``FactsProvider``: the user's profile — its summaries and the facts that matter to
this conversation (seed 001 §1.1 "smart injection", §2.3, §3.6).

Before each model call it reads the facts of the user's own profile and of their
profile with the session's agent (``Vault.profile``), ranks them against the last
three turns — the turns the manager synced in this thread plus the message about to be
answered — by TF-IDF similarity × 0.6 + confidence × 0.4
(:mod:`memvault.profile.select`), and injects the best 15 that fit its token budget
inside ``<memory-context>``. The profile's summaries (``workContext``,
``personalContext``, ``topOfMind`` and the three history periods) come first in the same
block, in their own small budget: they are the "old friend" context V1 gives the model.
Summaries and facts pass the same screen: one the threat scan flags is shown only as a
placeholder, personal data in the others is replaced by placeholders, and all of it is
escaped as data inside the fence.

It is context only (no tools, no system prompt text) and reads the profile afresh each
time, so a fact saved by extraction in the middle of a session is injected on the next
call. It runs beside the builtin files and the external provider: register it with
``MemoryManager.add_provider(provider, companion=True)``.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from ...errors import MemvaultError, UnsupportedOperationError, ValidationError
from ...lru import LRUCache
from ...profile.select import (
    CONFIDENCE_WEIGHT,
    DEFAULT_MAX_TOKENS,
    DEFAULT_SUMMARY_TOKENS,
    DEFAULT_TOP_K,
    DEFAULT_TURNS,
    SIMILARITY_WEIGHT,
    SUMMARY_LABELS,
    check_weights,
    render_facts,
    select_facts,
)
from ...results.profile import Fact
from ...text import has_cjk, tokenize
from ...vault import Vault
from ..provider import MemoryProvider, SessionContext

log = logging.getLogger(__name__)

#: Threads whose latest turns are remembered at once; the least recently used go first.
MAX_THREADS = 64


def _same(content: str) -> str:
    return " ".join(content.casefold().split())


class FactsProvider(MemoryProvider):
    """The best profile facts for the latest turns (see the module docstring)."""

    def __init__(
        self,
        vault: Vault,
        *,
        top_k: int = DEFAULT_TOP_K,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        turns: int = DEFAULT_TURNS,
        similarity_weight: float = SIMILARITY_WEIGHT,
        confidence_weight: float = CONFIDENCE_WEIGHT,
        summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
    ) -> None:
        """``summary_tokens``: the budget of the profile's summaries, beside
        ``max_tokens`` for the facts."""
        if not isinstance(vault, Vault):
            raise ValidationError("FactsProvider reads the profiles of a Vault: pass one")
        for value, name, least in (
            (top_k, "top_k", 1),
            (max_tokens, "max_tokens", 1),
            (turns, "turns", 1),
            (summary_tokens, "summary_tokens", 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValidationError(
                    f"{name} must be a whole number of at least {least}, got {value!r}",
                    field=name,
                )
        check_weights(similarity_weight, confidence_weight)
        self.vault = vault
        self.summary_tokens = summary_tokens
        self.top_k = top_k
        self.max_tokens = max_tokens
        self.turns = turns
        self.similarity_weight = similarity_weight
        self.confidence_weight = confidence_weight
        self.enabled = True
        self.session: SessionContext | None = None
        self._lock = threading.Lock()
        self._recent: LRUCache[str, deque[str]] = LRUCache(MAX_THREADS)

    @property
    def name(self) -> str:
        return "facts"

    def is_available(self) -> bool:
        return True

    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        self.session = SessionContext.from_kwargs(
            user_id=user_id, agent_id=agent_id, thread_id=thread_id, base_dir=base_dir, **kwargs
        )
        try:
            facts = self.facts()
        except UnsupportedOperationError as exc:
            log.info("facts: this store keeps no profiles, so no facts are injected: %s", exc)
            self.enabled = False
            return
        # jieba reads its dictionary (about a second) the first time it meets Chinese or
        # Japanese text: do that now, not in a prefetch that runs under the manager's timeout.
        chinese = next((f.content for f in facts if has_cjk(f.content)), None)
        if chinese is not None:
            tokenize(chinese)

    def _require(self) -> SessionContext:
        if self.session is None:
            raise MemvaultError("FactsProvider is not initialized: call initialize() first")
        return self.session

    def facts(self) -> list[Fact]:
        """The user's own facts, then those of their profile with the session's agent,
        a fact the user's profile already says (same words) taken once."""
        session = self._require()
        facts = list(self.vault.profile(user_id=session.user_id).facts)
        if session.agent_id is not None:
            seen = {_same(f.content) for f in facts}
            for fact in self.vault.profile(
                user_id=session.user_id, agent_id=session.agent_id
            ).facts:
                if _same(fact.content) not in seen:
                    seen.add(_same(fact.content))
                    facts.append(fact)
        return facts

    def summaries(self) -> list[tuple[str, str]]:
        """The profile's summaries as ``(label, text)``: the user's own profile, and for a
        section it leaves empty, their profile with the session's agent."""
        session = self._require()
        profiles = [self.vault.profile(user_id=session.user_id)]
        if session.agent_id is not None:
            profiles.append(self.vault.profile(user_id=session.user_id, agent_id=session.agent_id))
        found = []
        for key, label in SUMMARY_LABELS:
            text = next((p.section(key).summary for p in profiles if p.section(key).summary), "")
            if text.strip():
                found.append((label, text))
        return found

    def conversation(self, query: str, *, thread_id: str = "") -> str:
        """The text the facts are matched against: the thread's latest synced turns (one
        fewer than ``turns``) and ``query``, the message about to be answered."""
        thread = thread_id or self._require().thread_id or ""
        with self._lock:
            earlier = list(self._recent.get(thread) or ())
        return "\n".join([*earlier, query])

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        self._require()
        if not self.enabled:
            return ""
        facts = self.facts()
        summaries = self.summaries()
        if not facts and not summaries:
            return ""
        chosen = select_facts(
            facts,
            self.conversation(query or "", thread_id=thread_id),
            top_k=self.top_k,
            similarity_weight=self.similarity_weight,
            confidence_weight=self.confidence_weight,
        )
        return render_facts(
            chosen,
            max_tokens=self.max_tokens,
            summaries=summaries,
            summary_tokens=self.summary_tokens,
        )

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        """Remember the turn (in memory only) so the next prefetch matches on it too."""
        thread = thread_id or self._require().thread_id or ""
        if self.turns < 2:
            return
        text = "\n".join(t for t in (user_content.strip(), assistant_content.strip()) if t)
        with self._lock:
            kept = self._recent.get_or_create(thread, lambda: deque(maxlen=self.turns - 1))
            kept.append(text)

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []


__all__ = ["MAX_THREADS", "FactsProvider"]
