"""SQL every backend shares: an entry view, an entry filter, the audit log's reading.

The three SQL stores differ in their parameter marks (``?`` for SQLite, ``%s`` for the
PostgreSQL and MySQL drivers), not in what a view or filter means; writing the rule
once keeps a scope (whose entries a query may see) identical on every backend. Every
clause is on the table alias ``m``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model import EntryOrder
from ..rows import format_time, parse_time
from ..values import AuditRecord, EntryFilter, View


def view_clause(view: View, mark: str, *, agent: str = "m.agent_id") -> tuple[str, list[Any]]:
    """The condition that keeps a query inside ``view``; ``agent`` is how the agent
    column is written (SQLite writes ``+m.agent_id`` to steer its planner)."""
    if view.all_agents:
        return f"m.user_id = {mark}", [view.user_id]
    if view.agent_id is None:
        return f"m.user_id = {mark} AND {agent} IS NULL", [view.user_id]
    return f"m.user_id = {mark} AND ({agent} IS NULL OR {agent} = {mark})", [
        view.user_id,
        view.agent_id,
    ]


def agents_clause(view: View, alias: str, mark: str) -> tuple[str, list[Any]]:
    """The condition on a keyword statistics table's (user_id, agent) that keeps to
    ``view`` (``agent`` is '' for the entries shared by the user's agents)."""
    if view.all_agents:
        return f"{alias}.user_id = {mark}", [view.user_id]
    if view.agent_id is None:
        return f"{alias}.user_id = {mark} AND {alias}.agent = ''", [view.user_id]
    return f"{alias}.user_id = {mark} AND {alias}.agent IN ('', {mark})", [
        view.user_id,
        view.agent_id,
    ]


def filter_clause(flt: EntryFilter, mark: str) -> tuple[str, list[Any]]:
    """``flt`` as `` AND …`` conditions (empty for no filter) and their parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in flt.equal_to():
        clauses.append(f"m.{column} = {mark}")
        params.append(value.value if hasattr(value, "value") else value)
    if flt.quarantined is not None:
        clauses.append(f"m.quarantine IS {'NOT ' if flt.quarantined else ''}NULL")
    if flt.valid_at is not None:  # fixed-width UTC text: text order is time order
        clauses.append(f"(m.expires_at IS NULL OR m.expires_at > {mark})")
        params.append(format_time(flt.valid_at))
    if flt.current_at is not None:  # not superseded at that moment
        clauses.append(f"(m.valid_to IS NULL OR m.valid_to > {mark})")
        params.append(format_time(flt.current_at))
    if flt.existed_at is not None:  # written, and current from, no later than it
        clauses.append(
            f"m.created_at <= {mark} AND (m.valid_from IS NULL OR m.valid_from <= {mark})"
        )
        params.extend([format_time(flt.existed_at)] * 2)
    if flt.created_after is not None:
        clauses.append(f"m.created_at >= {mark}")
        params.append(format_time(flt.created_after))
    if flt.created_before is not None:
        clauses.append(f"m.created_at < {mark}")
        params.append(format_time(flt.created_before))
    return "".join(f" AND {c}" for c in clauses), params


def order_clause(order: EntryOrder) -> str:
    """The ``ORDER BY`` of a listing in ``order``; the id breaks ties the same way."""
    if order is EntryOrder.OLDEST:
        return "ORDER BY m.created_at, m.id"
    column = "m.updated_at" if order is EntryOrder.UPDATED else "m.created_at"
    return f"ORDER BY {column} DESC, m.id DESC"


def audit_query(
    user_id: str, entry_id: str | None, limit: int, after: int, mark: str
) -> tuple[str, list[Any]]:
    """The statement of ``audit_log()``: a user's records after ``after``, in order."""
    sql = (
        "SELECT seq, at, user_id, entry_id, actor, action, outcome, detail FROM audit_log "
        f"WHERE user_id = {mark} AND seq > {mark}"
    )
    params: list[Any] = [user_id, int(after)]
    if entry_id is not None:
        sql += f" AND entry_id = {mark}"
        params.append(entry_id)
    return sql + f" ORDER BY seq LIMIT {mark}", [*params, int(limit)]


def audit_record(row: Sequence[Any]) -> AuditRecord:
    """One row of :func:`audit_query` as a record."""
    return AuditRecord(
        at=parse_time(row[1]),  # type: ignore[arg-type]
        user_id=row[2],
        entry_id=row[3],
        actor=row[4],
        action=row[5],
        outcome=row[6],
        detail=row[7],
        seq=int(row[0]),
    )


__all__ = [
    "agents_clause",
    "audit_query",
    "audit_record",
    "filter_clause",
    "order_clause",
    "view_clause",
]


def touch_sql(mark: str) -> str:
    """Record one recall of one entry (parameters: the time twice, user id, entry id):
    ``last_accessed_at`` only moves forward (times are fixed-width UTC text, so text order
    is time order) and ``access_count`` grows by one. Not an edit: ``updated_at`` and the
    index columns stay, so no trigger re-indexes or drops a vector."""
    return (
        "UPDATE memories SET last_accessed_at = CASE WHEN last_accessed_at IS NULL "
        f"OR last_accessed_at < {mark} THEN {mark} ELSE last_accessed_at END, "
        f"access_count = access_count + 1 WHERE user_id = {mark} AND id = {mark}"
    )


def touch_params(user_id: str, entry_ids: Sequence[str], at: Any) -> list[tuple[Any, ...]]:
    stamp = format_time(at)
    return [(stamp, stamp, user_id, entry_id) for entry_id in dict.fromkeys(entry_ids)]
