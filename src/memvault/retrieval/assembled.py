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


def split_instructions(hits: Sequence[Hit]) -> list[Withheld]:
    """The memories of ``hits`` (in rendering order) that, read with another of them,
    form an instruction; approved memories are never among them."""
    shown = [h.entry for h in hits[:_MAX_READ] if injectable(h.entry)]
    parts = {e.id: Part.of(e.content) for e in shown}
    out: dict[str, str] = {}
    for i, first in enumerate(shown):
        for second in shown[i + 1 :]:
            a, b = parts[first.id], parts[second.id]
            cut = check_parts(a, b) or check_parts(b, a)
            if cut is None:
                continue
            for entry, other in ((first, second), (second, first)):
                if entry.approved_at is None and entry.id not in out:
                    out[entry.id] = f"{cut.threat.description} (with {other.id})"
    for hit in hits[_MAX_READ:]:
        if injectable(hit.entry) and hit.entry.approved_at is None:
            out.setdefault(hit.entry.id, _UNREAD)
    return [Withheld(entry_id, reason) for entry_id, reason in out.items()]


__all__ = ["Withheld", "split_instructions"]
