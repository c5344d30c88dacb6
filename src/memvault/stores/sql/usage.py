"""The token ledger (``protocols.UsageLedger``) on every SQL backend, written once: one
row per LLM call, summed by operation and model."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..rows import format_time, parse_time
from ..values import UsageRecord, UsageRow
from .runner import SQLBase

_COLUMNS = "at, user_id, agent_id, operation, model, tokens_in, tokens_out, seconds, outcome"


def insert_sql(mark: str) -> str:
    marks = ", ".join([mark] * 9)
    return f"INSERT INTO llm_usage ({_COLUMNS}) VALUES ({marks})"


def insert_params(record: UsageRecord) -> tuple[Any, ...]:
    return (
        format_time(record.at),
        record.user_id,
        record.agent_id,
        record.operation,
        record.model,
        int(record.tokens_in),
        int(record.tokens_out),
        float(record.seconds),
        record.outcome,
    )


def sum_sql(
    mark: str, user_id: str | None, since: datetime, until: datetime | None
) -> tuple[str, list[Any]]:
    """Calls, failures and tokens by operation and model in ``[since, until)``, for one
    user or (``user_id=None``) for all."""
    where = [f"at >= {mark}"]
    params: list[Any] = [format_time(since)]
    if user_id is not None:
        where.insert(0, f"user_id = {mark}")
        params.insert(0, user_id)
    if until is not None:
        where.append(f"at < {mark}")
        params.append(format_time(until))
    sql = (
        "SELECT operation, model, count(*), "
        "sum(CASE WHEN outcome = 'ok' THEN 0 ELSE 1 END), sum(tokens_in), sum(tokens_out) "
        f"FROM llm_usage WHERE {' AND '.join(where)} GROUP BY operation, model "
        "ORDER BY operation, model"
    )
    return sql, params


def sum_rows(rows: Sequence[Sequence[Any]]) -> list[UsageRow]:
    out = [UsageRow(r[0], r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5])) for r in rows]
    # Sorted here too: the servers' collations may order text differently.
    return sorted(out, key=lambda r: (r.operation, r.model))


def records_sql(mark: str) -> str:
    return (
        f"SELECT {_COLUMNS} FROM llm_usage WHERE user_id = {mark} "
        f"ORDER BY at DESC, seq DESC LIMIT {mark}"
    )


def record_of(row: Sequence[Any]) -> UsageRecord:
    at = parse_time(row[0])
    assert at is not None
    return UsageRecord(
        at=at,
        user_id=row[1],
        agent_id=row[2],
        operation=row[3],
        model=row[4],
        tokens_in=int(row[5]),
        tokens_out=int(row[6]),
        seconds=float(row[7]),
        outcome=row[8],
    )


class SQLUsage(SQLBase):
    """One row per LLM call; sums by operation and model."""

    def record_usage(self, record: UsageRecord) -> None:
        with self._writing("recording an LLM call") as run:
            run.run(insert_sql(run.mark), insert_params(record))

    def usage(
        self, user_id: str | None, since: datetime, until: datetime | None = None
    ) -> list[UsageRow]:
        with self._reading("reading the token ledger") as run:
            return sum_rows(run.rows(*sum_sql(run.mark, user_id, since, until)))

    def usage_records(self, user_id: str, *, limit: int = 100) -> list[UsageRecord]:
        with self._reading("reading the token ledger") as run:
            rows = run.rows(records_sql(run.mark), (user_id, int(limit)))
        return [record_of(r) for r in rows]


__all__ = ["SQLUsage"]
