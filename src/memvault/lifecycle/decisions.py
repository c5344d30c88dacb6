"""The decision lifecycle (seed 004): a decision's status moves only along legal edges,
so a later conversation can never silently overturn an earlier decision.

    (none) ──> proposed ──> exploring ──> pending ──> adopted ──> superseded
                  │            │             │            │
                  └────────────┴─────────────┴──> rejected │
    any status but invalid ──> invalid   (a person only, never the model's tools)

A rejected decision may be proposed again; adopted, superseded and invalid ones never go
back. Every move is recorded in the audit log (``action`` ``"decision"``) with who made it
and why, and recall demotes rejected, superseded and invalid decisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..errors import ValidationError
from ..model import DecisionStatus as S
from ..stores.values import AuditRecord

DECISION_ACTION = "decision"  # the audit log's action of a move

# The moves each status allows (None: an entry that is not a decision yet).
MOVES: dict[S | None, frozenset[S]] = {
    None: frozenset({S.PROPOSED, S.EXPLORING, S.PENDING, S.ADOPTED, S.REJECTED}),
    S.PROPOSED: frozenset({S.EXPLORING, S.PENDING, S.ADOPTED, S.REJECTED, S.INVALID}),
    S.EXPLORING: frozenset({S.PENDING, S.ADOPTED, S.REJECTED, S.INVALID}),
    S.PENDING: frozenset({S.EXPLORING, S.ADOPTED, S.REJECTED, S.INVALID}),
    S.ADOPTED: frozenset({S.SUPERSEDED, S.INVALID}),
    S.REJECTED: frozenset({S.PROPOSED, S.INVALID}),
    S.SUPERSEDED: frozenset({S.INVALID}),
    S.INVALID: frozenset(),
}
USER_ONLY: frozenset[S] = frozenset({S.INVALID})
DEMOTED: frozenset[S] = frozenset({S.REJECTED, S.SUPERSEDED, S.INVALID})


def legal_moves(current: S | None, *, by_user: bool) -> list[S]:
    """The statuses ``current`` may move to, for a person or (``by_user=False``) a model."""
    moves = MOVES[current] if by_user else MOVES[current] - USER_ONLY
    return sorted(moves, key=list(S).index)


def check_move(current: S | None, target: S, *, by_user: bool) -> None:
    """``ValidationError`` naming the legal moves unless ``current -> target`` is one."""
    if target == current:
        raise ValidationError(
            f"the decision is already {target.value}: nothing to change", field="status"
        )
    if target in MOVES[current] and (by_user or target not in USER_ONLY):
        return
    shown = current.value if current is not None else "not a decision"
    legal = ", ".join(m.value for m in legal_moves(current, by_user=by_user)) or "none"
    if target in USER_ONLY and target in MOVES[current]:
        raise ValidationError(
            f"only a person may mark a decision {target.value} (in the CLI, the HTTP API or "
            f"the panel); from {shown} the model may move it to: {legal}",
            field="status",
        )
    raise ValidationError(
        f"a decision cannot go from {shown} to {target.value}; legal moves: {legal}",
        field="status",
    )


def move_record(
    at: datetime,
    user_id: str,
    actor: str,
    entry_id: str,
    before: S | None,
    after: S,
    reason: str = "",
) -> AuditRecord:
    """The audit record of one move, in the form :meth:`DecisionMove.of` reads back."""
    detail = f"{before.value if before else 'none'}->{after.value}"
    return AuditRecord(
        at=at,
        user_id=user_id,
        actor=actor,
        action=DECISION_ACTION,
        outcome=after.value,
        entry_id=entry_id,
        detail=detail + (f": {reason}" if reason else ""),
    )


@dataclass(frozen=True, slots=True)
class DecisionMove:
    """One move of a decision, as the audit log keeps it."""

    at: datetime
    actor: str
    from_status: S | None
    to_status: S
    reason: str

    @classmethod
    def of(cls, record: AuditRecord) -> DecisionMove:
        moved, _, reason = record.detail.partition(": ")
        before, _, _ = moved.partition("->")
        return cls(
            record.at,
            record.actor,
            None if before in ("", "none") else S(before),
            S(record.outcome),
            reason,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "at": self.at.isoformat(),
            "actor": self.actor,
            "from": self.from_status.value if self.from_status else None,
            "to": self.to_status.value,
            "reason": self.reason,
        }


__all__ = [
    "DECISION_ACTION",
    "DEMOTED",
    "MOVES",
    "USER_ONLY",
    "DecisionMove",
    "check_move",
    "legal_moves",
    "move_record",
]
