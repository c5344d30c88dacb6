"""How a conversation turn is archived: the class, source, weight and subject that every
door archiving what was said gives it (V1 ``remember``, the vault provider's turn sync,
the OpenAI Agents session), so compression, recall and the review queue meet every
archived turn in one shape (``compress`` sums them up; ``security.quarantine`` treats
their warnings as reported speech)."""

from __future__ import annotations

from typing import TypedDict

from ..model import Kind, MemClass, Source
from ..validation import SUBJECT_ASSISTANT, SUBJECT_USER

#: An archived turn's importance: below a stated memory's default (0.5), as raw context.
TURN_IMPORTANCE = 0.3


class ArchivedTurn(TypedDict):
    """The words of ``Vault.add`` that make an entry an archived turn."""

    kind: Kind
    mem_class: MemClass
    source: Source
    importance: float
    source_subject: str


def archived_turn(role: str, *, importance: float = TURN_IMPORTANCE) -> ArchivedTurn:
    """The words of a turn said by ``role``: about the user when the user spoke
    (``"user"``), the assistant's otherwise."""
    return {
        "kind": Kind.USER,
        "mem_class": MemClass.SOURCE_ARCHIVE,
        "source": Source.TURN,
        "importance": importance,
        "source_subject": SUBJECT_USER if role == "user" else SUBJECT_ASSISTANT,
    }


__all__ = ["TURN_IMPORTANCE", "ArchivedTurn", "archived_turn"]
