"""Every LLM call the engine makes, on the token ledger and inside its budgets.

Background work that calls a model (conflict checks, extraction, compression, reflect)
can burn tokens no one sees. ``MeteredLLM`` stands in front of the configured
``ChatClient``: each call is bound to an operation and a user (``for_call``), checked
against the daily budgets (``llm.daily_tokens_per_user`` for the user, ``llm.daily_tokens``
for everyone; a UTC day of the injected clock), made, and recorded in the store's ledger
(``stores.protocols.UsageLedger``) — answered, failed, or refused by a budget. A call that
would start after a budget is used up raises ``LLMBudgetError`` without reaching the
model (the one that crosses it is still answered: its size is known only afterwards).

The ledger is written outside any transaction of the engine's: the tokens were spent
whether or not the write that wanted them succeeds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..config import LLMConfig
from ..errors import LLMBudgetError, LLMError, MemvaultError
from ..stores.protocols import UsageLedger
from ..stores.values import UsageRecord, UsageRow
from .client import ChatClient

log = logging.getLogger(__name__)


def day_start(at: datetime) -> datetime:
    """The start of ``at``'s UTC day: when daily budgets begin again."""
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


@dataclass(frozen=True, slots=True)
class Usage:
    """What was used in a period (one user's, or everyone's with ``user_id`` None), and
    what is left of the daily budgets (None: no budget)."""

    user_id: str | None
    since: datetime
    until: datetime
    rows: tuple[UsageRow, ...]
    budget: int | None
    left: int | None

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.rows)

    @property
    def tokens(self) -> int:
        return sum(r.tokens for r in self.rows)

    def to_dict(self) -> dict[str, object]:
        return {
            "user_id": self.user_id,
            "since": self.since.isoformat(),
            "until": self.until.isoformat(),
            "calls": self.calls,
            "errors": sum(r.errors for r in self.rows),
            "tokens_in": sum(r.tokens_in for r in self.rows),
            "tokens_out": sum(r.tokens_out for r in self.rows),
            "daily_budget": self.budget,
            "left_today": self.left,
            "by_operation": [
                {
                    "operation": r.operation,
                    "model": r.model,
                    "calls": r.calls,
                    "errors": r.errors,
                    "tokens_in": r.tokens_in,
                    "tokens_out": r.tokens_out,
                }
                for r in self.rows
            ],
        }


def _tokens(rows: Sequence[UsageRow]) -> int:
    return sum(r.tokens for r in rows)


class MeteredLLM:
    """The configured chat client behind the ledger and the budgets."""

    def __init__(
        self,
        client: ChatClient,
        ledger: UsageLedger,
        config: LLMConfig,
        clock: Callable[[], datetime],
    ) -> None:
        self.client = client
        self._ledger = ledger
        self._config = config
        self._clock = clock

    def for_call(self, operation: str, *, user_id: str, agent_id: str | None = None) -> MeteredCall:
        return MeteredCall(self, operation, user_id, agent_id)

    def check(self, user_id: str) -> None:
        """``LLMBudgetError`` when a daily budget is used up (today, by the clock)."""
        cfg = self._config
        if cfg.daily_tokens_per_user is None and cfg.daily_tokens is None:
            return
        since = day_start(self._clock())
        if cfg.daily_tokens_per_user is not None:
            used = _tokens(self._ledger.usage(user_id, since))
            if used >= cfg.daily_tokens_per_user:
                raise LLMBudgetError(
                    f"user {user_id!r} has used {used} of the {cfg.daily_tokens_per_user} LLM "
                    "tokens allowed per day (llm.daily_tokens_per_user); the budget starts "
                    "again at 00:00 UTC, or raise it",
                    user_id=user_id,
                )
        if cfg.daily_tokens is not None:
            used = _tokens(self._ledger.usage(None, since))
            if used >= cfg.daily_tokens:
                raise LLMBudgetError(
                    f"{used} of the {cfg.daily_tokens} LLM tokens allowed per day for all users "
                    "are used (llm.daily_tokens); the budget starts again at 00:00 UTC, or "
                    "raise it"
                )

    def record(self, record: UsageRecord) -> None:
        try:
            self._ledger.record_usage(record)
        except MemvaultError as exc:  # the answer is not lost for want of a ledger row
            log.error("the token ledger could not record an LLM call: %s", exc)


def read_usage(
    ledger: UsageLedger, config: LLMConfig, now: datetime, user_id: str | None, *, days: int = 1
) -> Usage:
    """What ``user_id`` (None: everyone) used in the last ``days`` UTC days up to ``now``,
    today included, and what is left of today's budget."""
    today = day_start(now)
    since = today - timedelta(days=days - 1)
    rows = tuple(ledger.usage(user_id, since))
    budget = config.daily_tokens_per_user if user_id is not None else config.daily_tokens
    left = None
    if budget is not None:
        left = max(0, budget - _tokens(ledger.usage(user_id, today)))
    return Usage(user_id, since, now, rows, budget, left)


class MeteredCall:
    """One operation for one user: a ``Chat`` whose every call is budgeted and recorded."""

    def __init__(
        self, owner: MeteredLLM, operation: str, user_id: str, agent_id: str | None
    ) -> None:
        self._owner = owner
        self.operation = operation
        self.user_id = user_id
        self.agent_id = agent_id

    def _record(self, outcome: str, seconds: float, tokens: tuple[int, int], model: str) -> None:
        self._owner.record(
            UsageRecord(
                at=self._owner._clock(),
                user_id=self.user_id,
                operation=self.operation,
                model=model,
                tokens_in=tokens[0],
                tokens_out=tokens[1],
                seconds=seconds,
                outcome=outcome,
                agent_id=self.agent_id,
            )
        )

    def complete(
        self, messages: Sequence[dict[str, str]], *, temperature: float | None = None
    ) -> str:
        model = str(self._owner.client.config.model)
        try:
            self._owner.check(self.user_id)
        except LLMBudgetError:
            self._record("refused", 0.0, (0, 0), model)
            raise
        started = time.perf_counter()
        try:
            done = self._owner.client.chat(messages, temperature=temperature)
        except LLMError:
            self._record("error", time.perf_counter() - started, (0, 0), model)
            raise
        self._record("ok", done.seconds, (done.tokens_in, done.tokens_out), done.model)
        return done.text


__all__ = [
    "MeteredCall",
    "MeteredLLM",
    "Usage",
    "day_start",
    "read_usage",
]
