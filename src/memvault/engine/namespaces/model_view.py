"""``vault.model_view``: stored memories as a model may be shown them outside a search.

A search for a model (``Vault.search(for_model=True)``) and ``context`` read their hits
as a prompt block does (``Recall.screened``). The doors that *list* memories to a model
(MCP ``memory_list``, the memory resources, the knowledge-graph reads, Claude's memory
tool) show them without a query, a page or a file at a time; they ask :meth:`ModelView.withheld`
which of the memories they are about to show a model must not see, and why:

* a memory held for review, or flagged by the scan now and never approved
  (``security.quarantine.injectable``);
* with the vault's own vectors, one the model screen reads as an instruction
  (``Recall.unflagged``);
* one that forms an instruction with another memory the model can read, on this page
  or any other (``retrieval.assembled.withheld_beside``): a model pages through a
  listing, so the halves of a cut instruction need not be shown together to meet.

The other memories read for the last check are the newest ``PARTNERS`` of the caller's
view not held for review, loaded only when a memory shown has the shape of a half.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ...model import Hit, MemoryEntry
from ...retrieval.assembled import Shown, withheld_beside
from ...retrieval.recall import Recall
from ...security.quarantine import injectable
from ...stores.values import View
from ..listing import Listing
from ..views import owner_view

#: How many other memories (newest first) a listing's pair check reads beside the page.
PARTNERS = 5000
_PAGE = 1000

HELD = "held for review, or flagged by the security scan and not approved"
FLAGGED = "the model screen reads it as an instruction to the assistant"


class ModelView:
    """What of the caller's stored memories a model may be shown."""

    def __init__(self, recall: Recall, listing: Listing) -> None:
        self._recall = recall
        self._listing = listing

    def withheld(
        self, entries: Sequence[MemoryEntry], *, user_id: str, agent_id: str | None = None
    ) -> dict[str, str]:
        """The ids of ``entries`` a model must not be shown, each with why; ``entries``
        are memories of ``user_id`` (and ``agent_id``) a door is about to show a model."""
        view = owner_view(user_id, agent_id)
        why = {e.id: HELD for e in entries if not injectable(e)}
        readable = [Hit(e, 0.0) for e in entries if e.id not in why]
        kept = self._recall.unflagged(view, readable)
        flagged = {h.entry.id for h in readable} - {h.entry.id for h in kept}
        why.update(dict.fromkeys(flagged, FLAGGED))
        shown = [_shown(h.entry) for h in kept]
        for out in withheld_beside(shown, lambda: (_shown(e) for e in self._others(view))):
            why[out.entry_id] = out.reason
        return why

    def withheld_names(
        self, names: Sequence[str], *, user_id: str, agent_id: str | None = None
    ) -> dict[str, str]:
        """Which of ``names`` (text drawn from memories, shown to a model on its own: the
        entity graph's names) a model must not be shown, each with why: a name that forms
        an instruction with a memory the model can read. A name is short and has no
        stored vector, so only the pair check reads it."""
        view = owner_view(user_id, agent_id)
        shown = [Shown(name, name) for name in dict.fromkeys(names)]
        found = withheld_beside(shown, lambda: (_shown(e) for e in self._others(view)))
        return {out.entry_id: out.reason for out in found}

    def shown(
        self, entries: Sequence[MemoryEntry], *, user_id: str, agent_id: str | None = None
    ) -> list[MemoryEntry]:
        """``entries`` less those :meth:`withheld` names, in their order."""
        why = self.withheld(entries, user_id=user_id, agent_id=agent_id)
        return [e for e in entries if e.id not in why]

    def _others(self, view: View) -> Iterator[MemoryEntry]:
        for offset in range(0, PARTNERS, _PAGE):
            page = self._listing.entries(
                view, {"quarantined": False}, limit=_PAGE, offset=offset, sort="newest"
            )
            yield from page
            if len(page) < _PAGE:
                return


def _shown(entry: MemoryEntry) -> Shown:
    return Shown(entry.id, entry.content, entry.approved_at is not None)


__all__ = ["FLAGGED", "HELD", "PARTNERS", "ModelView"]
