"""A state card and a board as short prompt text, within a token budget.

The card goes at the top of the prompt block (seed 004: ``[state card] + [top-K
memories]``), so it is rendered first and most briefly: the goal and the next step,
then the progress, the open questions, the decisions and the free fields, each line
kept only while the whole still fits ``max_tokens`` (``render.count_tokens``, the
engine's one estimate). A line that does not fit is dropped whole, never cut mid-word,
and the text says how many lines it left out. Everything a person or the model wrote
is escaped as data (``fences.escape_data``), and the card or board is its own
``<memory-context>`` block with the untrusted-data note (inside the budget): it is text
written by earlier turns, so the model reads it as data, never as instructions, and it
can neither close nor fake a block.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ValidationError
from ..fences import CLOSE_TAG, CONTEXT_NOTE, OPEN_TAG, escape_data
from ..render import count_tokens
from .board import Task, TaskStatus
from .cards import Card

CARD_HEADER = "State card of this conversation:"
BOARD_HEADER = "Tasks of this workspace:"


def _check_budget(max_tokens: object) -> int:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise ValidationError("max_tokens must be a whole number of at least 0", field="max_tokens")
    return max_tokens


def _line(label: str, text: str) -> str:
    return f"{label}: {escape_data(' '.join(text.split()))}"


def _note(left: int) -> str:
    return f"({left} more line{'s' if left != 1 else ''} not shown)"


def _compose(header: str, lines: Sequence[str], kept: Sequence[int]) -> str:
    out = [OPEN_TAG, CONTEXT_NOTE, "", header, *(lines[i] for i in sorted(kept))]
    if len(kept) < len(lines):
        out.append(_note(len(lines) - len(kept)))
    out.append(CLOSE_TAG)
    return "\n".join(out)


def _fit(header: str, lines: Sequence[str], priority: Sequence[int], max_tokens: int) -> str:
    """The header and the lines that fit ``max_tokens``, taken by ``priority`` (indexes
    into ``lines``, most important first) and shown in their own order, with a note of
    how many were left out; '' when not even the header and one line fit."""
    whole = _compose(header, lines, range(len(lines)))
    if count_tokens(whole) <= max_tokens:
        return whole  # (checked first: the note of a partial view can cost more than a line)
    kept: list[int] = []
    for i in priority:
        if count_tokens(_compose(header, lines, [*kept, i])) <= max_tokens:
            kept.append(i)
    return _compose(header, lines, kept) if kept else ""


def render_card(card: Card, max_tokens: int) -> str:
    """The card as prompt lines within ``max_tokens``; '' for an empty card or a
    budget too small for any of it."""
    budget = _check_budget(max_tokens)
    c = card.content
    rows: list[tuple[int, str]] = []  # (priority, line), in the card's display order
    if c.goal:
        rows.append((0, _line("Goal", c.goal)))
    if c.progress:
        rows.append((2, _line("Progress", c.progress)))
    rows.extend((4, _line("Decided", item)) for item in c.decisions)
    rows.extend((3, _line("Open question", item)) for item in c.open_questions)
    if c.next_step:
        rows.append((1, _line("Next step", c.next_step)))
    rows.extend((5, _line(escape_data(k), v)) for k, v in sorted(c.fields.items()))
    if not rows:
        return ""
    priority = sorted(range(len(rows)), key=lambda i: (rows[i][0], i))
    return _fit(CARD_HEADER, [line for _, line in rows], priority, budget)


_STATUS_ORDER = (TaskStatus.DOING, TaskStatus.BLOCKED, TaskStatus.TODO, TaskStatus.DONE)


def render_board(tasks: Sequence[Task], max_tokens: int, *, session_id: str | None = None) -> str:
    """A board summary within ``max_tokens``: tasks in progress first, then blocked,
    to do and done; those of ``session_id`` (this conversation) marked. '' when empty."""
    budget = _check_budget(max_tokens)
    ranked = sorted(tasks, key=lambda t: (_STATUS_ORDER.index(t.status), t.created_at, t.id))
    lines = []
    for t in ranked:
        here = " (this conversation)" if session_id and t.session_id == session_id else ""
        lines.append(f"[{t.status.value}] {escape_data(' '.join(t.title.split()))}{here}")
    if not lines:
        return ""
    return _fit(BOARD_HEADER, lines, range(len(lines)), budget)


__all__ = ["BOARD_HEADER", "CARD_HEADER", "render_board", "render_card"]
