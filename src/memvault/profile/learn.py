"""Learning from one conversation: ask the model, plan the change, write the facts into
the vault, save the profiles (seed 001 §3, seed 000 §6).

``Learner.learn`` does one extraction now; ``Learner.submit`` queues the conversation
on the debounce queue so that a burst of messages costs one extraction after a quiet
period. The order of one extraction, and why:

1. read the user's profile (and the agent's) and ask the model (``llm.replies.ask_json``:
   a malformed answer is asked for once more, then reported);
2. ``apply.plan`` the change against those profiles;
3. write each new fact into the vault first — so hybrid retrieval and the lifecycle see
   it — as the user's shared memory for the categories about the person and as the
   agent's private memory for the rest, a correction superseding the entry of the fact
   it corrects, a removal ending its entry's validity; a fact the write path refuses
   (its security scan) is left out of the profile too;
4. save each profile's ``Delta`` (``Profiles.change``: re-applied on a newer revision
   when someone saved meanwhile);
5. tell the listeners (the agent layer mirrors facts into USER.md / MEMORY.md).

A step that fails leaves what the earlier steps did: facts written into the vault stay
there even if the profile save then fails (the profile is the summary; the vault is the
record). Every LLM call goes through ``llm_for`` — the engine's budgeted, metered call —
so the ledger counts it and a spent budget stops it with ``LLMBudgetError``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from ..config import ExtractionConfig
from ..errors import LLMBudgetError, MemvaultError, SecurityError
from ..llm.client import Chat
from ..llm.replies import ask_json
from ..model import Kind, MemClass, MemoryEntry, Source
from ..results.profile import Fact, Learned, LearnedFact, Profile
from ..validation import SUBJECT_USER
from .apply import Plan, plan
from .debounce import DebounceQueue, Pending, Schedule, daemon_timer
from .extract import ExtractionReply, extraction_messages
from .messages import ConversationMessage
from .profiles import Profiles

log = logging.getLogger(__name__)

OPERATION = "extraction"

#: How a fact's category maps to the vault's kinds (seed 002's four).
KIND_OF: dict[str, Kind] = {
    "preference": Kind.USER,
    "personal_info": Kind.USER,
    "identity": Kind.USER,
    "knowledge": Kind.USER,
    "behavior": Kind.USER,
    "context": Kind.PROJECT,
    "goal": Kind.PROJECT,
}


class LLMFor(Protocol):
    def __call__(self, operation: str, *, user_id: str, agent_id: str | None = None) -> Any: ...


@dataclass(frozen=True)
class Conversation:
    """One conversation handed over for learning (what the debounce queue carries)."""

    user_id: str
    agent_id: str | None
    thread_id: str
    session_id: str | None
    messages: tuple[ConversationMessage, ...]
    #: The vault entry that archived each message, by the message's index.
    turn_entries: Mapping[int, str] = field(default_factory=dict)
    #: How many times the user had been erased when it was handed over (``Learner``).
    erasure: int = 0


class Learner:
    """Extraction for one vault (see the module docstring).

    ``add`` and ``update`` are the vault's own write calls (``Vault.add``/``update``),
    so facts pass the same validation, security scan and indexing as any write.
    """

    def __init__(
        self,
        profiles: Profiles,
        llm_for: LLMFor,
        settings: ExtractionConfig,
        clock: Callable[[], datetime],
        *,
        add: Callable[..., MemoryEntry],
        update: Callable[..., MemoryEntry],
        schedule: Schedule = daemon_timer,
    ) -> None:
        self._profiles = profiles
        self._llm_for = llm_for
        self.settings = settings
        self._clock = clock
        self._add = add
        self._update = update
        self._schedule = schedule
        self._queue: DebounceQueue | None = None
        self._queue_lock = threading.Lock()
        self._listeners: list[Callable[[Learned], None]] = []
        # One extraction at a time per user: two at once would each add the fact the
        # other is adding (neither sees the other's), and an erase must not race one.
        self._user_locks: dict[str, threading.Lock] = {}
        # Bumped when a user is erased: a conversation handed over before that is dropped.
        self._erasures: dict[str, int] = {}
        self.last: dict[tuple[str, str | None], Learned] = {}

    # -- listeners --------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Learned], None]) -> Callable[[], None]:
        """Call ``listener`` after every extraction; returns the call that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- the queue ----------------------------------------------------------------------

    def _get_queue(self) -> DebounceQueue:
        with self._queue_lock:
            if self._queue is None:
                self._queue = DebounceQueue(
                    self._process,
                    delay_s=self.settings.debounce_seconds,
                    schedule=self._schedule,
                    drain_at_exit=True,
                )
            return self._queue

    def submit(self, conversation: Conversation) -> None:
        """Queue ``conversation`` (replacing the thread's earlier version) for one
        extraction after the quiet period."""
        conversation = self.stamp(conversation)
        self._get_queue().add(
            conversation.thread_id,
            conversation.messages,
            user_id=conversation.user_id,
            agent_id=conversation.agent_id,
            extra=conversation,
        )

    def stamp(self, conversation: Conversation) -> Conversation:
        """``conversation`` marked with the user's erasures so far (see ``forget_user``)."""
        return replace(conversation, erasure=self._erasure(conversation.user_id))

    def pending(self) -> int:
        with self._queue_lock:
            return self._queue.pending() if self._queue is not None else 0

    def flush(self) -> int:
        """Run the queued extractions now; how many conversations."""
        with self._queue_lock:
            queue = self._queue
        return queue.flush() if queue is not None else 0

    def cancel(self, user_id: str, agent_id: str | None, thread_id: str) -> None:
        """Forget a queued conversation (``remember(wait=True)`` runs it itself)."""
        with self._queue_lock:
            queue = self._queue
        if queue is not None:
            queue.discard(thread_id, user_id=user_id, agent_id=agent_id)

    def user_lock(self, user_id: str) -> threading.Lock:
        """The lock that serialises one user's extractions (and their erasure)."""
        with self._queue_lock:
            return self._user_locks.setdefault(user_id, threading.Lock())

    def forget_user(self, user_id: str) -> int:
        """Drop the user's queued conversations (before the user is erased); how many."""
        with self._queue_lock:
            queue = self._queue
            self._erasures[user_id] = self._erasures.get(user_id, 0) + 1
        return queue.discard_user(user_id) if queue is not None else 0

    def _erasure(self, user_id: str) -> int:
        with self._queue_lock:
            return self._erasures.get(user_id, 0)

    def close(self) -> None:
        """Drain the queue: every queued conversation is learnt from before the vault closes."""
        with self._queue_lock:
            queue, self._queue = self._queue, None
        if queue is not None:
            queue.close()

    def _process(self, batch: list[Pending]) -> list[Pending]:
        failed: list[Pending] = []
        for pending in batch:
            conversation = pending.extra
            assert isinstance(conversation, Conversation)
            learned = self.learn(conversation)
            if learned.status == "failed":
                failed.append(pending)
        return failed

    # -- one extraction -----------------------------------------------------------------

    def learn(self, conversation: Conversation) -> Learned:
        """Extract from ``conversation`` now (see the module docstring). Never raises for
        the model's or the budget's failures: they are the result's ``status``/``error``
        (and logged), since this runs in the background."""
        c = conversation
        learned = Learned(c.user_id, c.agent_id, c.thread_id, "learned")
        try:
            with self.user_lock(c.user_id):
                if c.erasure != self._erasure(c.user_id):
                    learned.status = "disabled"  # the user was erased since: learn nothing
                else:
                    self._learn(c, learned)
        except LLMBudgetError as exc:
            learned.status, learned.error = "over_budget", str(exc)
            log.warning("extraction for user %s skipped: %s", c.user_id, exc)
        except MemvaultError as exc:
            learned.status, learned.error = "failed", str(exc)
            log.warning("extraction for user %s failed: %s", c.user_id, exc)
        self.last[(c.user_id, c.agent_id)] = learned
        for listener in list(self._listeners):
            try:
                listener(learned)
            except Exception:
                log.exception("a listener of extraction results failed")
        return learned

    def _learn(self, c: Conversation, learned: Learned) -> None:
        if not self.settings.enabled:
            learned.status = "disabled"
            return
        if not c.messages:
            learned.status = "nothing_new"
            return
        llm: Chat | None = self._llm_for(OPERATION, user_id=c.user_id, agent_id=c.agent_id)
        if llm is None:
            learned.status = "no_llm"
            return
        docs: dict[str | None, Profile] = {None: self._profiles.read(c.user_id, None)[0]}
        if c.agent_id is not None:
            docs[c.agent_id] = self._profiles.read(c.user_id, c.agent_id)[0]
        merged = docs[None].model_copy(deep=True)
        if c.agent_id is not None:
            merged.facts.extend(docs[c.agent_id].facts)
        request = extraction_messages(
            merged, c.messages, max_chars=self.settings.max_conversation_chars
        )
        reply = ask_json(llm, request, ExtractionReply)
        now = self._clock()
        change = plan(
            docs,
            reply,
            c.messages,
            self.settings,
            agent_id=c.agent_id,
            now=now,
            thread_id=c.thread_id,
            session_id=c.session_id,
        )
        self._write_facts(c, change, docs, learned)
        for key, delta in change.deltas.items():
            self._profiles.change(c.user_id, key, delta.apply, drop_flagged=True)
        learned.sections = sorted(change.deltas[None].sections) if None in change.deltas else []
        old_text = {f.id: f.content for doc in docs.values() for f in doc.facts}
        learned.removed_text = [
            old_text[i] for i in learned.removed if i in old_text and i not in change.corrected
        ]
        learned.replaced_text = {
            new: old_text[old] for old, new in change.corrected.items() if old in old_text
        }
        learned.corrected = {
            old: new
            for old, new in change.corrected.items()
            if any(a.fact.id == new for a in learned.added)
        }
        learned.dropped_low_confidence = len(change.dropped_low_confidence)
        learned.dropped_over_limit = len(change.dropped_over_limit)
        learned.merged = change.merged
        learned.refused.extend(text for text, _ in change.refused)
        if not (learned.added or learned.reinforced or learned.removed or learned.sections):
            learned.status = "nothing_new"

    def _write_facts(
        self,
        c: Conversation,
        change: Plan,
        docs: Mapping[str | None, Profile],
        learned: Learned,
    ) -> None:
        entries: dict[str, str | None] = {}
        for doc in docs.values():
            for fact in doc.facts:
                entries[fact.id] = fact.entry_id
        for key, delta in change.deltas.items():
            kept: list[Fact] = []
            for fact in delta.added:
                for source in fact.sources:
                    source.turn_entry_ids = _turns(c, source.message_indexes)
                entry_id = self._write_fact(c, fact, key, entries.get(fact.replaces or ""))
                if entry_id is None:
                    learned.refused.append(fact.content)
                    if fact.replaces:  # the correction was refused: the old fact stays
                        delta.removed.discard(fact.replaces)
                        change.corrected.pop(fact.replaces, None)
                    continue
                fact.entry_id = entry_id
                kept.append(fact)
                learned.added.append(LearnedFact(fact, key, entry_id))
            delta.added = kept
            for fact_id, (confidence, source) in delta.reinforced.items():
                source.turn_entry_ids = _turns(c, source.message_indexes)
                learned.reinforced.append(fact_id)
                self._touch(c, entries.get(fact_id), key, confidence)
            for fact_id in sorted(delta.removed):
                learned.removed.append(fact_id)
                if fact_id not in change.corrected:  # a correction superseded it already
                    self._retire(c, entries.get(fact_id), key)

    def _write_fact(
        self, c: Conversation, fact: Fact, key: str | None, supersedes: str | None
    ) -> str | None:
        source = fact.sources[0] if fact.sources else None
        metadata: dict[str, Any] = {
            "fact_id": fact.id,
            "learned_from": {
                "thread_id": c.thread_id,
                "session_id": c.session_id,
                "message_ids": source.message_ids if source else [],
                "message_indexes": source.message_indexes if source else [],
                "turn_entry_ids": source.turn_entry_ids if source else [],
            },
        }
        try:
            entry = self._add(
                fact.content,
                user_id=c.user_id,
                agent_id=key,
                kind=KIND_OF.get(fact.category, Kind.USER),
                mem_class=MemClass.SEMANTIC,
                category=fact.category,
                confidence=fact.confidence,
                importance=round(0.4 + 0.5 * fact.confidence, 3),
                source=Source.EXTRACTION,
                source_subject=SUBJECT_USER,
                metadata=metadata,
                supersedes=supersedes,
            )
        except SecurityError as exc:
            log.warning("an extracted fact was refused by the security scan: %s", exc)
            return None
        except MemvaultError as exc:
            if supersedes is None:
                raise
            # The entry it corrects is gone (deleted by hand): add it as a new fact.
            log.info("the corrected fact's entry %s is gone (%s); adding anew", supersedes, exc)
            return self._write_fact(c, fact, key, None)
        return entry.id

    def _touch(
        self, c: Conversation, entry_id: str | None, key: str | None, confidence: float
    ) -> None:
        if entry_id is None:
            return
        try:
            self._update(
                entry_id,
                user_id=c.user_id,
                agent_id=key,
                importance=round(0.4 + 0.5 * confidence, 3),
            )
        except MemvaultError as exc:  # deleted by hand meanwhile: the profile still counts it
            log.info("reinforced fact's entry %s not updated: %s", entry_id, exc)

    def _retire(self, c: Conversation, entry_id: str | None, key: str | None) -> None:
        if entry_id is None:
            return
        try:
            self._update(entry_id, user_id=c.user_id, agent_id=key, expires_at=self._clock())
        except MemvaultError as exc:
            log.info("removed fact's entry %s not retired: %s", entry_id, exc)


def _turns(c: Conversation, indexes: list[int]) -> list[str]:
    """The archived turns of the messages at ``indexes``."""
    return [c.turn_entries[i] for i in indexes if i in c.turn_entries]


__all__ = [
    "KIND_OF",
    "OPERATION",
    "Conversation",
    "LLMFor",
    "Learner",
]
