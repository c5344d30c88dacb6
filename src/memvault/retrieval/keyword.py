"""The keyword channel: what an entry is indexed with, and how a query becomes terms."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..model import MemoryEntry
from ..stores.values import SearchDoc
from ..text import index_text

# Metadata keys whose values are indexed (at the lower "extra" weight) by default.
DEFAULT_INDEXED_METADATA: tuple[str, ...] = ("tags", "keywords", "speaker", "context")


def _flatten(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _flatten(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _flatten(v)


def search_doc(
    entry: MemoryEntry,
    indexed_metadata: Iterable[str] = DEFAULT_INDEXED_METADATA,
    head_metadata: Iterable[str] = (),
    context: str = "",
    *,
    context_tokens: str | None = None,
) -> SearchDoc:
    """Tokens for the three full-text columns, derived from the entry and ``context``.

    ``context`` is what the engine knows around the entry (the neighbouring turns of
    its conversation, ``retrieval.conversation``), indexed at the extra weight. Being
    a pure function of its arguments, the document can be recomputed on every update
    and by a re-index, and every backend indexes exactly the same tokens.
    ``context_tokens``, when given, is ``index_text(context)`` already computed (a batch
    tokenises each neighbouring text once) and stands for ``context``.
    """
    extra_parts = [entry.category or ""]
    for key in indexed_metadata:
        if key in entry.metadata:
            extra_parts.extend(_flatten(entry.metadata[key]))
    if context:
        extra_parts.append(context)
    head_parts = [entry.name, entry.description]
    for key in head_metadata:
        if key in entry.metadata:
            head_parts.extend(_flatten(entry.metadata[key]))
    extra = index_text(*extra_parts)
    if context_tokens:
        extra = f"{extra} {context_tokens}" if extra else context_tokens
    return SearchDoc(
        head=index_text(*head_parts),
        body=index_text(entry.content),
        extra=extra,
    )


__all__ = ["DEFAULT_INDEXED_METADATA", "search_doc"]
