"""How the agent layer puts provider output into a prompt (seed 000, §7).

Two kinds of text reach the system prompt each turn: the builtin provider's
frozen snapshot, which is already formatted, and dynamic recall, which is
wrapped by ``build_memory_context_block`` in a ``<memory-context>`` block with
a note telling the model it is background, not something the user just said.
``join_provider_blocks`` then puts the providers' blocks together in order.

The tags and the note are those of ``memvault.retrieval.context``, so every
block memvault writes looks the same and ``security.scrubber`` removes them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..retrieval.context import CLOSE_TAG, CONTEXT_NOTE, OPEN_TAG, escape_data, strip_fences


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


__all__ = ["build_memory_context_block", "join_provider_blocks"]
