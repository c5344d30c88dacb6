"""What entity extraction finds in one entry, whichever way it was found.

The rules (``graph.extract``) and the chat model's reader (``graph.llm``) both return
an ``Extraction`` and both cut it at the same limits, so the value and the limits live
here, below the two.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..stores.graph_values import Mention, RelationMention

#: At most this many entities per entry (the first in the text), and relations among
#: the first few of them only, so one long entry cannot flood the graph.
MAX_ENTITIES = 24
MAX_RELATED = 8


@dataclass(frozen=True, slots=True)
class Extraction:
    """What one entry names: its entities (by key, in text order) and their relations."""

    mentions: tuple[Mention, ...] = ()
    relations: tuple[RelationMention, ...] = ()
    by: str = "rules"  # "rules", or "llm" when the chat model's answer was used


__all__ = ["MAX_ENTITIES", "MAX_RELATED", "Extraction"]
