"""Which messages of a conversation memory learns from (seed 001 §3.2).

Kept: what the person said, with any ``<uploaded_files>…</uploaded_files>`` block taken
out (a message with nothing else is dropped: an upload is for this conversation, not
for memory), and the assistant's answers that call no tool. Dropped: tool results, the
assistant's tool-calling steps (implementation detail), and system or developer
messages. Accepted shapes: OpenAI chat dicts (``role``), LangChain dicts (``type``, or
``messages_to_dict``'s ``{"type", "data"}``) and LangChain message objects, with text
content or a list of content parts (only the text parts count).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ValidationError

_UPLOADS = re.compile(r"<uploaded_files>.*?</uploaded_files>", re.DOTALL | re.IGNORECASE)

_PERSON = frozenset({"user", "human"})
_ASSISTANT = frozenset({"assistant", "ai"})
_SKIPPED = frozenset({"tool", "function", "system", "developer"})
KNOWN_ROLES = sorted(_PERSON | _ASSISTANT | _SKIPPED)


@dataclass(frozen=True, slots=True)
class ConversationMessage:
    """One kept message: who said it, its text, and where it was in the input (its
    position, and its own id when it had one), so what is learnt can point back."""

    role: Literal["user", "assistant"]
    content: str
    index: int
    message_id: str | None = None


def _fields(message: Any) -> tuple[object, object, object, object]:
    """(role, content, tool calls, id) of any accepted shape."""
    if isinstance(message, Mapping):
        data = message.get("data")
        if "type" in message and isinstance(data, Mapping):  # messages_to_dict
            return message["type"], data.get("content"), data.get("tool_calls"), data.get("id")
        role = message.get("role", message.get("type"))
        return role, message.get("content"), message.get("tool_calls"), message.get("id")
    role = getattr(message, "type", None)
    return (
        role,
        getattr(message, "content", None),
        getattr(message, "tool_calls", None),
        getattr(message, "id", None),
    )


def _text(content: object, index: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, bytes | bytearray):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    raise ValidationError(
        f"messages[{index}] has content of type {type(content).__name__}: send text or a "
        "list of content parts",
        field="messages",
    )


def filter_messages(messages: Sequence[Any]) -> list[ConversationMessage]:
    """The messages worth learning from, in order (see the module docstring)."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise ValidationError(
            "messages must be a list of chat messages (dicts with a role or type, or "
            "LangChain messages)",
            field="messages",
        )
    kept: list[ConversationMessage] = []
    for index, message in enumerate(messages):
        role, content, tool_calls, message_id = _fields(message)
        if not isinstance(role, str) or not role:
            raise ValidationError(
                f"messages[{index}] names no role: give it a 'role' (user, assistant, tool, "
                "system) or a LangChain 'type'",
                field="messages",
            )
        role = role.lower()
        if role in _SKIPPED:
            continue
        if role not in _PERSON | _ASSISTANT:
            raise ValidationError(
                f"messages[{index}] has the unknown role {role!r}; known roles: "
                f"{', '.join(KNOWN_ROLES)}",
                field="messages",
            )
        text = _text(content, index)
        ident = message_id if isinstance(message_id, str) and message_id else None
        if role in _PERSON:
            text = _UPLOADS.sub("", text).strip()
            if text:
                kept.append(ConversationMessage("user", text, index, ident))
        elif not tool_calls and text.strip():
            kept.append(ConversationMessage("assistant", text.strip(), index, ident))
    return kept


__all__ = ["KNOWN_ROLES", "ConversationMessage", "filter_messages"]
