"""Conversation-aware indexing: a turn is found by the words of the turns around it.

A question about a conversation often names what the turns *around* the answer say
("what did Melanie paint after the race?": the race is one turn, the painting the
next). So every entry with a ``session_id`` is a turn of that session, and its index
document carries the text of its neighbouring turns (``window`` on each side) as
low-weight context, in the keyword index's ``extra`` column; how much of it is the
:class:`Window`'s choice (the start of each neighbour; none for a turn long enough to
stand alone). That context is
engine-owned index data: the entry itself, its metadata included, is stored as given.

Neighbours are turns of the same user, the same agent space (shared, or one agent's
private entries; never across) and the same session, in turn order:

1. ``metadata.turn_index`` where the turn has one (turns without come after those);
2. then ``created_at``, which the write path stamps strictly increasing within a
   session (``stamp_after``), so insertion order breaks the ties of a clock that
   stands still or reads coarsely;
3. then the id.

Adding, updating or deleting a turn changes the context of the turns around it;
:func:`changed` finds which, so the write path rewrites just those documents, in the
same transaction as the write. The cost is one read of the session's turns per write
(an index on ``(user_id, session_id)`` serves it) and a rewrite of up to ``2 * window``
neighbouring documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..model import MemoryEntry
from ..stores.protocols import EntryStore
from ..stores.values import EntryFilter, View
from ..validation import SPEAKER_KEY, TURN_INDEX_KEY

# The smallest step of a stored time (``stores.rows.format_time`` keeps microseconds).
_TICK = timedelta(microseconds=1)

#: How far behind a session's latest turn a clock reading may be and still count as a
#: tie that insertion order breaks (see ``stamp_after``).
CLOCK_SLACK = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class SessionKey:
    """Which conversation a turn belongs to: one user's agent space and session."""

    user_id: str
    agent_id: str | None
    session_id: str


def session_of(entry: MemoryEntry) -> SessionKey | None:
    """The entry's conversation, or None when it has no ``session_id`` (not a turn)."""
    if entry.session_id is None:
        return None
    return SessionKey(entry.user_id, entry.agent_id, entry.session_id)


def turn_order(entry: MemoryEntry) -> tuple[bool, int, datetime, str]:
    """Sort key of a turn within its session (see the module docstring)."""
    index = entry.metadata.get(TURN_INDEX_KEY)
    if isinstance(index, int) and not isinstance(index, bool):
        return (False, index, entry.created_at, entry.id)
    return (True, 0, entry.created_at, entry.id)


def turn_text(entry: MemoryEntry) -> str:
    """How a turn reads as a neighbour's context: 'speaker: content'."""
    speaker = entry.metadata.get(SPEAKER_KEY)
    return f"{speaker}: {entry.content}" if isinstance(speaker, str) else entry.content


@dataclass(frozen=True, slots=True)
class Window:
    """Which neighbours' words a turn's index document carries.

    ``turns`` on each side (0: none). A neighbour gives at most its first
    ``neighbour_chars`` characters (0: all of it): a long answer's start says what it is
    about, and its remaining words only make every turn around it match everything. A
    turn of at least ``alone_chars`` characters (0: no such length) carries no context:
    it says enough by itself, and its neighbours' words would let it crowd out turns
    that are about them.
    """

    turns: int
    neighbour_chars: int = 0
    alone_chars: int = 0

    def texts(self, turns: Sequence[MemoryEntry]) -> list[str]:
        """How each of ``turns`` reads as a neighbour."""
        texts = [turn_text(t) for t in turns]
        if self.neighbour_chars:
            return [t[: self.neighbour_chars] for t in texts]
        return texts

    def around(self, turns: Sequence[MemoryEntry], texts: Sequence[str], i: int) -> str:
        """The context of ``turns[i]``, given every turn's :meth:`texts`."""
        return " ".join(self.near(turns, texts, i))

    def near(self, turns: Sequence[MemoryEntry], texts: Sequence[str], i: int) -> list[str]:
        """The texts whose join (by spaces) is :meth:`around`: the neighbours' texts in
        order, none for a turn that stands alone. Apart, so a batch can tokenise each
        text once, however many turns it is a neighbour of."""
        if self.turns == 0 or (self.alone_chars and len(turns[i].content) >= self.alone_chars):
            return []
        return [*texts[max(0, i - self.turns) : i], *texts[i + 1 : i + 1 + self.turns]]


def contexts(turns: Sequence[MemoryEntry], window: Window) -> dict[str, str]:
    """Each turn's context (``turns`` in order)."""
    texts = window.texts(turns)
    return {turn.id: window.around(turns, texts, i) for i, turn in enumerate(turns)}


def context_of(turns: Sequence[MemoryEntry], entry_id: str, window: Window) -> str:
    """One turn's context within ``turns`` (in order); "" when it is not among them."""
    for i, turn in enumerate(turns):
        if turn.id == entry_id:
            lo, hi = max(0, i - window.turns), i + 1 + window.turns
            return window.around(turns[lo:hi], window.texts(turns[lo:hi]), i - lo)
    return ""


def changed(
    before: Sequence[MemoryEntry],
    after: Sequence[MemoryEntry],
    touched: Iterable[str],
    window: Window,
) -> dict[str, str]:
    """The turns of ``after`` (other than ``touched``) whose context differs from the
    one they had in ``before``, with their new context.

    ``touched`` are the turns the write itself added, changed or removed; only turns
    within ``window`` of one of them, in either order, can have a new context.
    """
    touched = set(touched)
    near: set[str] = set()
    reach = window.turns
    for turns in (before, after):
        for i, turn in enumerate(turns):
            if turn.id in touched:
                near.update(t.id for t in turns[max(0, i - reach) : i + reach + 1])
    near -= touched
    if not near:
        return {}
    old = {i: context_of(before, i, window) for i in near}
    new = {i: context_of(after, i, window) for i in near if any(t.id == i for t in after)}
    return {i: text for i, text in new.items() if old.get(i) != text}


def stamp_after(entry: MemoryEntry, latest: datetime | None) -> MemoryEntry:
    """``entry`` with ``created_at`` (and ``updated_at``) moved just past ``latest`` when
    the clock read the same or at most :data:`CLOCK_SLACK` earlier: a clock-stamped turn
    sorts after the turns stored before it even when the clock stands still, reads
    coarsely or steps back a little. A turn stored with a time further ahead (an import)
    keeps its place by time."""
    if latest is None or entry.created_at > latest or latest - entry.created_at > CLOCK_SLACK:
        return entry
    when = latest + _TICK
    return entry.replace(created_at=when, updated_at=max(entry.updated_at, when))


class Conversations:
    """Reads a session's turns from the store, in turn order."""

    def __init__(self, store: EntryStore, window: Window) -> None:
        self.store = store
        self.window = window

    @property
    def enabled(self) -> bool:
        return self.window.turns > 0

    def ordered(self, turns: Iterable[MemoryEntry]) -> list[MemoryEntry]:
        """``turns`` in turn order."""
        return sorted(turns, key=turn_order)

    def contexts(self, turns: Sequence[MemoryEntry]) -> dict[str, str]:
        """Each of ``turns`` (in order) with its context."""
        return contexts(turns, self.window)

    def neighbours(self, turns: Sequence[MemoryEntry], ids: Iterable[str]) -> dict[str, list[str]]:
        """Those of ``turns`` (in order) named in ``ids``, with their context as the
        texts it joins (``Window.near``)."""
        wanted = set(ids)
        texts = self.window.texts(turns)
        return {
            turn.id: self.window.near(turns, texts, i)
            for i, turn in enumerate(turns)
            if turn.id in wanted
        }

    def turns(self, key: SessionKey) -> list[MemoryEntry]:
        """Every stored turn of the session, in turn order."""
        view = View(key.user_id, key.agent_id)
        # The view holds the shared entries plus the agent's; narrow to one space.
        flt = EntryFilter(session_id=key.session_id, agent_id=key.agent_id)
        found = [e for e in self.store.iter_entries(view, flt) if e.agent_id == key.agent_id]
        return sorted(found, key=turn_order)

    def context(self, entry: MemoryEntry) -> str:
        """The entry's context among its session's stored turns ("" when not a turn)."""
        key = session_of(entry)
        if key is None or not self.enabled:
            return ""
        turns = [t for t in self.turns(key) if t.id != entry.id]
        turns = sorted([*turns, entry], key=turn_order)
        return context_of(turns, entry.id, self.window)


__all__ = [
    "CLOCK_SLACK",
    "Conversations",
    "SessionKey",
    "Window",
    "changed",
    "context_of",
    "contexts",
    "session_of",
    "stamp_after",
    "turn_order",
    "turn_text",
]
