"""``injection.max_tokens`` (seed 000 §9.2): the memory injected into one model call, capped.

The cap covers everything memory adds to a call: the builtin's frozen snapshot (in the
system prompt) and the recall of the other providers. The snapshot is counted first, since
it is stable from call to call and cutting it the same way every time keeps the prompt
prefix cacheable; recall gets what is left.

Recall blocks are cut by whole items and stay fenced: a block keeps its opening tag and
system note and its closing tag, and loses items from the end (a vault block's entries are
a blank line apart, a Hindsight block's one ``- `` line each; a lone entry is one item).
A block with no room for even one
item is left out whole, so a half-open fence never reaches the model. Text outside any
block (a provider that returns bare text) is cut by whole lines.
"""

from __future__ import annotations

import re

from ..render import count_tokens
from ..workspace.allocator import fit_text

_BLOCK = re.compile(r"<([A-Za-z][A-Za-z0-9_-]*)>\n(.*?)\n</\1>", re.DOTALL)


def fit_snapshot(text: str, max_tokens: int) -> str:
    """The snapshot within ``max_tokens``: whole, or its first lines and a cut note."""
    return fit_text(text, max_tokens) if max_tokens > 0 else ""


def _fit_block(tag: str, inner: str, budget: int) -> str:
    """One fenced block within ``budget``, items dropped from the end; "" if none fit."""
    head, sep, body = inner.partition("\n\n")
    if not sep:  # no note paragraph: every line is an item
        head, body = "", inner
    lines = [line for line in body.splitlines() if line.strip()]
    if "\n\n" in body:  # entries a blank line apart (the vault's blocks)
        separator, items = "\n\n", [item for item in body.split("\n\n") if item.strip()]
    elif lines and all(line.startswith("- ") for line in lines):  # one item a line
        separator, items = "\n", lines
    else:  # one entry: all of it or nothing
        separator, items = "\n", [body]

    def render(kept: list[str]) -> str:
        parts = [f"<{tag}>", *([head, ""] if head else []), separator.join(kept), f"</{tag}>"]
        return "\n".join(parts)

    kept = list(items)
    while kept and count_tokens(render(kept)) > budget:
        kept.pop()
    return render(kept) if kept else ""


def fit_recall(text: str, max_tokens: int) -> str:
    """Recalled ``text`` (fenced blocks, maybe bare text around them) within ``max_tokens``."""
    if max_tokens <= 0 or not text.strip():
        return ""
    if count_tokens(text) <= max_tokens:
        return text
    pieces: list[str] = []
    used = 0
    at = 0
    segments: list[tuple[str | None, str]] = []
    for match in _BLOCK.finditer(text):
        if text[at : match.start()].strip():
            segments.append((None, text[at : match.start()].strip()))
        segments.append((match.group(1), match.group(2)))
        at = match.end()
    if text[at:].strip():
        segments.append((None, text[at:].strip()))
    for tag, body in segments:
        room = max_tokens - used - (2 if pieces else 0)
        if room <= 0:
            break
        piece = fit_text(body, room) if tag is None else _fit_block(tag, body, room)
        if piece:
            pieces.append(piece)
            used = count_tokens("\n\n".join(pieces))
    joined = "\n\n".join(pieces)
    while pieces and count_tokens(joined) > max_tokens:  # token counts are not additive
        pieces.pop()
        joined = "\n\n".join(pieces)
    return joined


__all__ = ["fit_recall", "fit_snapshot"]
