"""``vault.decisions``: a decision's lifecycle (proposed, adopted, superseded, invalid),
its audited moves and the conflicts found between adopted decisions (seed 004).

A decision is an entry with a ``status``; ``vault.add(status=...)`` records one. Thin over
``engine.deciding``, which checks each move (``lifecycle.decisions``) and audits it.
"""

from __future__ import annotations

from ...errors import ValidationError
from ...lifecycle.decisions import DecisionMove
from ...model import DecisionStatus, MemoryEntry
from ...validation import check_enum
from ..deciding import Conflict, DecisionService, check_actor
from ..views import owner_view
from ..write import Patch


class Decisions:
    """The decision calls of one vault, over its ``DecisionService``."""

    def __init__(self, service: DecisionService) -> None:
        self._service = service

    def decide(
        self,
        entry_id: str,
        status: DecisionStatus | str,
        *,
        user_id: str,
        agent_id: str | None = None,
        reason: str = "",
        actor: str = "owner",
        by_user: bool = True,
    ) -> MemoryEntry:
        """Move a decision along its lifecycle (``lifecycle.decisions``): ``ValidationError``
        naming the legal moves otherwise, and nothing written. Only ``by_user`` may mark it
        invalid (the model's tools pass False). The move, who made it and ``reason`` go to
        the audit log (``history``)."""
        target = check_enum(DecisionStatus, status, "status")
        who, why = check_actor(actor, reason)
        if not isinstance(by_user, bool):
            raise ValidationError("by_user must be true or false", field="by_user")
        view = owner_view(user_id, agent_id)
        return self._service.move(
            view, entry_id, Patch(status=target), by_user=by_user, actor=who, reason=why
        )

    def history(self, entry_id: str, *, user_id: str) -> list[DecisionMove]:
        """Every move of the decision, oldest first: when, who, from, to and why."""
        return self._service.history(entry_id, user_id=user_id)

    def conflicts(self, entry_id: str, *, user_id: str) -> list[Conflict]:
        """Every conflict recorded between this decision and an adopted one (either side),
        oldest first: when, found by whom and how (the word rule or the LLM)."""
        return self._service.conflicts(entry_id, user_id=user_id)


__all__ = ["Decisions"]
