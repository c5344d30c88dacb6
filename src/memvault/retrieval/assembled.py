"""The check of a prompt block as it will be shown: memories read together, in order.

Each recalled memory has passed the screen alone (the rules when it was written and
again when it is rendered, the model screen at recall). An instruction cut across two
memories passes all of that and acts only where they meet, so the memories chosen for
a block are read in pairs before the block is packed (``security.scan.split``). Every
pair counts, not only neighbours, and in both orders: the model reads the whole block
and can put a trigger together with an order that comes before it (``render.pack``
may also skip a memory too big for the budget, which brings two others together).

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

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Hit
from ..security.quarantine import injectable
from ..security.scan.split import Part, check_parts

# Blocks are short (``context.limit``, a tool's limit, ``search_nodes``' depth of 50);
# a longer list is read only this far, and what lies past it is left out unread.
_MAX_READ = 64
_UNREAD = f"past the first {_MAX_READ} memories the block's screen reads"


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


__all__ = ["Shown", "Withheld", "split_instructions", "withheld_among"]
