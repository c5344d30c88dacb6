"""The check of a prompt block as it will be shown: memories read together, in order.

Each recalled memory has passed the screen alone (the rules when it was written and
again when it is rendered, the model screen at recall). An instruction cut across two
memories passes all of that and acts only where they meet, so the memories chosen for
a block are read in pairs before the block is packed (``security.scan.split``). Every
pair counts, not only neighbours, and in both orders: the model reads the whole block
and can put a trigger together with an order that comes before it (``render.pack``
may also skip a memory too big for the budget, which brings two others together).

A door that lists stored memories (no query: a page, a file, the whole graph) reads
them with ``withheld_beside``: each memory shown against every other the model can read,
since a model pages through a listing and puts the halves together itself.

When a pair reads as one instruction, the memories that form it are left out of the
block, except any a person approved: an approval vouches for that text in any company.
Each one left out carries its reason, which ``Vault.explain`` shows.

Each memory's ends are read once and each pair costs a few regex tests (the rules run
on the joined text only when the first part stops mid-sentence and the second opens
with an order): about 1 ms of CPU for a block of ten benign memories (2 ms at the 99th
percentile). Only the rules and the structure of the pair are read here. The model screen is not
run on joined pairs: a pair has no stored vector, and embedding one costs about 55 ms
on an idle two-core machine (a block of ten memories has 45 pairs), for little gain
(it flagged 1 of 18 joined split pairs of the tuning set).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..model import Hit
from ..security.quarantine import injectable
from ..security.scan.split import Part, check_parts

# Blocks are short (``context.limit``, a tool's limit, ``search_nodes``' depth of 50);
# a longer list is read only this far, and what lies past it is left out unread.
_MAX_READ = 64
_UNREAD = f"past the first {_MAX_READ} memories the block's screen reads"
# A listing reads every pair whose shape can be a cut; joining a pair and running the
# rules on it is the costly reading, so a listing does at most this many of them.
_MAX_JOINED = 2000
_UNREAD_PAIRS = f"past the {_MAX_JOINED} pairs a listing's screen reads"


@dataclass(frozen=True, slots=True)
class Withheld:
    """A memory left out of a prompt block, and why."""

    entry_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Shown:
    """One memory as a model would be shown it: an id, its text, and whether a person
    approved it (an approval vouches for that text in any company)."""

    id: str
    text: str
    approved: bool = False


def withheld_among(shown: Sequence[Shown]) -> list[Withheld]:
    """The memories of ``shown`` (in rendering order) that, read with another of them,
    form an instruction, and those past what is read; approved ones are never among
    them. Every door that shows recalled memories to a model asks this, whatever the
    memories' source (the vault's hits, Hindsight's recall)."""
    read = list(shown[:_MAX_READ])
    parts = {m.id: Part.of(m.text) for m in read}
    out: dict[str, str] = {}
    for i, first in enumerate(read):
        for second in read[i + 1 :]:
            a, b = parts[first.id], parts[second.id]
            cut = check_parts(a, b) or check_parts(b, a)
            if cut is None:
                continue
            for memory, other in ((first, second), (second, first)):
                if not memory.approved and memory.id not in out:
                    out[memory.id] = f"{cut.threat.description} (with {other.id})"
    for memory in shown[_MAX_READ:]:
        if not memory.approved:
            out.setdefault(memory.id, _UNREAD)
    return [Withheld(memory_id, reason) for memory_id, reason in out.items()]


def withheld_beside(
    shown: Sequence[Shown], beside: Callable[[], Iterable[Shown]] = tuple
) -> list[Withheld]:
    """The memories of ``shown`` that form an instruction with another of ``shown`` or of
    ``beside()`` (the other memories the model can read: another page, another file), in
    either order; approved ones are never among them. ``beside`` is called only when a
    memory shown has the shape of a half (``Part``).

    Every door that lists stored memories to a model asks this (``vault.model_view``).
    Unlike ``withheld_among`` there is no cap on the memories read: only the pairs of a
    memory that ends mid-sentence or in a trigger with one that opens with an order can
    form an instruction, so each memory's ends are read once and only those pairs are
    checked. Past ``_MAX_JOINED`` pairs whose joined text the rules must read, the
    memories shown whose pairs were not all read are withheld too.
    """
    parts = [(m, _SHAPES.part(m.text)) for m in shown]
    if not any(p.trigger or p.cut or p.order for _, p in parts):
        return []
    ids = {m.id for m in shown}
    every = parts + [(m, _SHAPES.part(m.text)) for m in beside() if m.id not in ids]
    firsts = [(m, p) for m, p in every if p.trigger or p.cut]
    seconds = [(m, p) for m, p in every if p.order]
    out: dict[str, str] = {}
    joined = 0
    for first, a in firsts:
        for second, b in seconds:
            if first.id == second.id or (first.id not in ids and second.id not in ids):
                continue
            if not a.trigger:
                joined += 1
                if joined > _MAX_JOINED:
                    return _past_budget(out, parts)
            cut = check_parts(a, b)
            if cut is None:
                continue
            for memory, other in ((first, second), (second, first)):
                if memory.id in ids and not memory.approved:
                    out.setdefault(memory.id, f"{cut.threat.description} (with {other.id})")
    return [Withheld(memory_id, reason) for memory_id, reason in out.items()]


class _Shapes:
    """How each text ends and opens (``Part``), remembered by a digest of the text: a
    listing reads every memory of its view beside the page, again at each call, and the
    reading (about 0.1 ms a text) is most of its cost. Bounded; safe across threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._known: OrderedDict[bytes, tuple[bool, bool, bool]] = OrderedDict()
        self._lock = threading.Lock()

    def part(self, text: str) -> Part:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            shape = self._known.get(key)
            if shape is not None:
                self._known.move_to_end(key)
                return Part(text, *shape)
        part = Part.of(text)
        with self._lock:
            self._known[key] = (part.trigger, part.cut, part.order)
            if len(self._known) > self._size:
                self._known.popitem(last=False)
        return part


_SHAPES = _Shapes(50_000)


def _past_budget(out: dict[str, str], parts: list[tuple[Shown, Part]]) -> list[Withheld]:
    for memory, part in parts:
        if not memory.approved and (part.trigger or part.cut or part.order):
            out.setdefault(memory.id, _UNREAD_PAIRS)
    return [Withheld(memory_id, reason) for memory_id, reason in out.items()]


def split_instructions(hits: Sequence[Hit]) -> list[Withheld]:
    """``withheld_among`` the memories of ``hits`` whose text a block shows (a held or
    flagged one is shown as its placeholder, which forms nothing)."""
    return withheld_among(
        [
            Shown(h.entry.id, h.entry.content, h.entry.approved_at is not None)
            for h in hits
            if injectable(h.entry)
        ]
    )


__all__ = ["Shown", "Withheld", "split_instructions", "withheld_among", "withheld_beside"]
