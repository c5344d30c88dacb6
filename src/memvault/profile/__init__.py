"""Learning from raw conversation (seed 001): which messages are worth remembering
(:mod:`.messages`), and waiting for a quiet moment before working on them
(:mod:`.debounce`)."""

from __future__ import annotations

from .debounce import DebounceQueue, Pending
from .messages import ConversationMessage, filter_messages

__all__ = ["ConversationMessage", "DebounceQueue", "Pending", "filter_messages"]
