"""The one renderer of prompt blocks: recalled memories in, ``<memory-context>`` text out.

Every block memvault puts into a prompt is written here, so they all look alike and the
scrubber (:mod:`memvault.security.scrubber`) removes them all:

* :func:`pack` — the engine's read path: the best hits that fit a token budget, each
  rendered by :func:`render_entry` (``[kind] name`` and the content, escaped as data), in
  one block with the recalled-context note. An entry held for review, or one the scan
  flags now and no person approved, is shown only as ``[QUARANTINED: <id>]``
  (:mod:`memvault.security.quarantine`).
* :func:`build_memory_context_block` — the agent layer (seed 000, §7): a provider's
  recalled text wrapped in the same block; :func:`join_provider_blocks` puts the
  providers' blocks together in order.

:func:`count_tokens` is the tokenizer-free estimate the budget is counted in. The tags,
the note and the escaping rules are those of :mod:`memvault.fences`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .fences import CLOSE_TAG, CONTEXT_NOTE, OPEN_TAG, escape_data, strip_fences
from .model import CONFLICTS_KEY, DecisionStatus, Hit, MemoryEntry
from .security.quarantine import injectable, placeholder

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_WORDISH = re.compile(r"[A-Za-z0-9]+|[^\sA-Za-z0-9]")


def count_tokens(text: str) -> int:
    """A tokenizer-free estimate: each CJK character ~1 token, Latin words ~4 chars a token.

    It errs on the high side for English so a packed block stays inside the budget
    of real BPE tokenizers.
    """
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub(" ", text)
    tokens = 0
    for piece in _WORDISH.findall(rest):
        tokens += max(1, -(-len(piece) // 4)) if piece[0].isalnum() else 1
    return cjk + tokens


def render_entry(hit: Hit) -> str:
    """``[kind] name`` then the content, escaped as data; an entry held for review, or one
    the scan flags now that no person approved, is only ``[QUARANTINED: <id>]``."""
    entry = hit.entry
    if not injectable(entry):
        return f"[{entry.kind.value}] {placeholder(entry)}"
    title = f" {escape_data(entry.name)}" if entry.name else ""
    return f"[{entry.kind.value}]{title}{_decision_note(entry)}\n{escape_data(entry.content)}"


_OPEN = (DecisionStatus.PROPOSED, DecisionStatus.EXPLORING, DecisionStatus.PENDING)


def _decision_note(entry: MemoryEntry) -> str:
    """`` (decision: <status>)`` for a decision, with the adopted decisions an open one
    conflicts with, so the model never takes a contested proposal for what was decided."""
    if entry.status is None:
        return ""
    note = f" (decision: {entry.status.value}"
    ids = entry.metadata.get(CONFLICTS_KEY)
    if entry.status in _OPEN and isinstance(ids, list):
        named = [escape_data(i) for i in ids if isinstance(i, str)]
        if named:
            note += f"; conflicts with adopted decision {', '.join(named)}"
    return note + ")"


def _overhead() -> int:
    return count_tokens(OPEN_TAG + CONTEXT_NOTE + CLOSE_TAG) + 4


def packed_size(hits: Sequence[Hit]) -> int:
    """The smallest ``max_tokens`` at which ``pack`` keeps every one of ``hits`` (0 for
    none): what a recall block asks of a budget it shares with other parts."""
    if not hits:
        return 0
    return _overhead() + sum(count_tokens(render_entry(hit)) + 2 for hit in hits)


def pack(hits: Sequence[Hit], max_tokens: int) -> str:
    """The block for the best hits that fit ``max_tokens``; empty when none do."""
    budget = max_tokens - _overhead()
    parts: list[str] = []
    for hit in hits:
        text = render_entry(hit)
        cost = count_tokens(text) + 2
        if cost > budget:
            continue  # a smaller, later memory may still fit
        parts.append(text)
        budget -= cost
    if not parts:
        return ""
    return "\n".join([OPEN_TAG, CONTEXT_NOTE, "", "\n\n".join(parts), CLOSE_TAG])


def build_memory_context_block(text: str) -> str:
    """``text`` inside a ``<memory-context>`` block with its system note; "" when blank.

    Exact memory-context tags already in ``text`` (a provider's own block) are removed,
    then the rest is escaped as data (``escape_data``), so recalled text can neither
    close the block early nor open or fake a second one in any look-alike spelling.
    """
    body = escape_data(strip_fences(text)).strip()
    if not body:
        return ""
    return "\n".join([OPEN_TAG, CONTEXT_NOTE, "", body, CLOSE_TAG])


def join_provider_blocks(blocks: Sequence[tuple[str, str]]) -> str:
    """The non-empty texts of ``(provider_name, text)`` pairs, in order, a blank line apart.

    Names are not rendered (the prompt in the seed has no per-provider headers);
    they are accepted so a caller can pass its provider/result pairs unchanged.
    Outer blank lines of each block are trimmed, inner formatting is kept.
    """
    return "\n\n".join(text.strip("\n") for _name, text in blocks if text.strip())


__all__ = [
    "build_memory_context_block",
    "count_tokens",
    "join_provider_blocks",
    "pack",
    "packed_size",
    "render_entry",
]
