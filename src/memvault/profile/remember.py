"""One entry point for raw conversation: keep what matters, archive it, learn from it.

``Vault.remember(messages, ...)`` is :meth:`Rememberer.remember`: it runs :func:`archive`
then hands the conversation to the ``Learner``. Archiving is conversation-aware: each
kept message becomes one turn of the session (``session_id``, ``metadata.turn_index``),
so recall finds a turn by the words of the turns around it (``retrieval.conversation``).
Agents hand over the whole conversation so far on every turn; a message archived before
is recognised by its key (its own id when it has one, else its position and a hash of
its text) and not stored twice, so calling ``remember`` after every turn archives each
message once.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..config import VaultConfig
from ..errors import SecurityError, ValidationError
from ..lifecycle.turns import archived_turn
from ..model import MemoryEntry
from ..results.profile import Remembered
from ..stores.protocols import EntryStore
from ..stores.values import EntryFilter, View
from ..validation import (
    TURN_INDEX_KEY,
    check_bool,
    check_ident,
    check_short_text,
    make_scope,
    thread_session,
)
from .learn import Conversation, Learner
from .messages import ConversationMessage, filter_messages

log = logging.getLogger(__name__)

#: The metadata key under which an archived turn keeps its message's key.
MESSAGE_KEY = "message_key"
ROLE_KEY = "role"


NOTES: dict[str, str] = {
    "queued": "the conversation is queued; facts are extracted after {delay:g} quiet seconds",
    "done": "facts were extracted now",
    "no_llm": "no LLM is configured (set MEMVAULT_LLM_BASE_URL and MEMVAULT_LLM_MODEL, or "
    "config llm.base_url / llm.model): the turns were archived and are recallable, "
    "but no facts were extracted",
    "disabled": "extraction is switched off (extraction.enabled): the turns were archived, "
    "no facts extracted",
    "nothing_to_learn": "nothing new to learn from: no message was left after filtering, "
    "or every message was remembered before",
}


def message_key(message: ConversationMessage) -> str:
    """What recognises a message handed over again: its id, else position and text."""
    if message.message_id:
        return "id:" + message.message_id
    digest = hashlib.sha256(f"{message.role}\0{message.content}".encode()).hexdigest()[:16]
    return f"{message.index}:{digest}"


def archive(
    messages: Sequence[ConversationMessage],
    *,
    existing: Iterable[MemoryEntry],
    add: Callable[..., MemoryEntry],
    user_id: str,
    agent_id: str | None,
    session_id: str,
    thread_id: str,
) -> tuple[dict[int, str], list[str], int, set[int]]:
    """Store each message not archived yet as a turn of ``session_id``.

    Returns the turn entry of every message by index (new and earlier ones), the new
    entry ids, how many were archived before, and the indexes of the messages the
    security scan refused (left out of learning too)."""
    known: dict[str, str] = {}
    for entry in existing:
        key = entry.metadata.get(MESSAGE_KEY)
        if isinstance(key, str):
            known.setdefault(key, entry.id)
    turns: dict[int, str] = {}
    new: list[str] = []
    before = 0
    refused: set[int] = set()
    for message in messages:
        key = message_key(message)
        if key in known:
            turns[message.index] = known[key]
            before += 1
            continue
        metadata: dict[str, Any] = {
            MESSAGE_KEY: key,
            ROLE_KEY: message.role,
            TURN_INDEX_KEY: message.index,
            "thread_id": thread_id,
        }
        if message.message_id:
            metadata["message_id"] = message.message_id
        try:
            entry = add(
                message.content,
                user_id=user_id,
                agent_id=agent_id,
                session_id=session_id,
                metadata=metadata,
                **archived_turn(message.role),
            )
        except SecurityError as exc:
            log.warning("a message of session %s was not archived: %s", session_id, exc)
            refused.add(message.index)
            continue
        known[key] = entry.id
        turns[message.index] = entry.id
        new.append(entry.id)
    return turns, new, before, refused


class Rememberer:
    """``Vault.remember`` over one store: ``add`` is the vault's whole write path."""

    def __init__(
        self,
        store: EntryStore,
        learner: Learner,
        add: Callable[..., MemoryEntry],
        config: VaultConfig,
    ) -> None:
        self._store = store
        self._learner = learner
        self._add = add
        self._config = config

    def remember(
        self,
        messages: Sequence[Any],
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        thread_id: str | None = None,
        wait: bool = False,
    ) -> Remembered:
        """Archive the conversation's kept messages as turns, then queue it for
        extraction (or, with ``wait``, extract now); see ``Vault.remember``."""
        user = make_scope(user_id, agent_id)
        if session_id is None and thread_id is None:
            raise ValidationError(
                "remember needs the conversation the messages belong to: pass session_id "
                "(or thread_id)",
                field="session_id",
            )
        if thread_id is not None:
            check_short_text(thread_id, "thread_id", 512)
        session = (
            check_ident(session_id, "session_id")
            if session_id is not None
            else thread_session(str(thread_id))
        )
        if session is None:  # an empty thread id: no conversation to file the turns under
            raise ValidationError(
                "thread_id is empty: pass the id of the conversation the messages belong to",
                field="thread_id",
            )
        thread = thread_id if thread_id is not None else session
        check_bool(wait, "wait")
        kept = filter_messages(messages)
        existing = self._session_turns(user.user_id, user.agent_id, session)
        turns, new, before, refused = archive(
            kept,
            existing=existing,
            add=self._add,
            user_id=user.user_id,
            agent_id=user.agent_id,
            session_id=session,
            thread_id=thread,
        )
        result = Remembered(
            session,
            thread,
            received=len(messages),
            kept=len(kept),
            archived=new,
            already_archived=before,
            refused=len(refused),
        )
        learnable = tuple(m for m in kept if m.index not in refused)
        ex = self._config.extraction
        if not learnable or not new:
            result.extraction = "nothing_to_learn"
        elif not ex.enabled:
            result.extraction = "disabled"
        elif not self._config.llm.configured:
            result.extraction = "no_llm"
        else:
            conversation = Conversation(
                user.user_id, user.agent_id, thread, session, learnable, turns
            )
            if wait:
                self._learner.cancel(user.user_id, user.agent_id, thread)
                result.learned = self._learner.learn(self._learner.stamp(conversation))
                result.extraction = "done"
            else:
                self._learner.submit(conversation)
        result.note = NOTES[result.extraction].format(delay=ex.debounce_seconds)
        if result.learned is not None and result.learned.error:
            result.note = f"extraction {result.learned.status}: {result.learned.error}"
        return result

    def _session_turns(
        self, user_id: str, agent_id: str | None, session_id: str
    ) -> list[MemoryEntry]:
        view = View(user_id, agent_id)
        flt = EntryFilter(session_id=session_id)
        found: list[MemoryEntry] = []
        while True:
            page = self._store.list_entries(view, flt, limit=1000, offset=len(found))
            found.extend(page)
            if len(page) < 1000:
                return found


__all__ = [
    "MESSAGE_KEY",
    "NOTES",
    "ROLE_KEY",
    "Rememberer",
    "archive",
    "message_key",
]
