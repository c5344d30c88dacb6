"""``UsageLedger``: the token ledger — one row per LLM call, summed by operation and
model per user or for all users, a user's latest calls, erased with the user."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memvault import Store
from memvault.stores.protocols import UsageLedger
from memvault.stores.values import UsageRecord, UsageRow

from .support import T0


def _call(user: str, minutes: float, op: str = "extract", **kw: object) -> UsageRecord:
    fields: dict[str, object] = {"model": "m1", "tokens_in": 100, "tokens_out": 10, "seconds": 0.5}
    fields.update(kw)
    return UsageRecord(at=T0 + timedelta(minutes=minutes), user_id=user, operation=op, **fields)  # type: ignore[arg-type]


def test_every_backend_keeps_a_token_ledger(store: Store) -> None:
    assert isinstance(store, UsageLedger)
    assert store.usage("alice", T0) == [] and store.usage_records("alice") == []


def test_calls_are_summed_per_user_operation_and_model_in_a_period(store: Store) -> None:
    store.record_usage(_call("alice", 0))
    store.record_usage(_call("alice", 1, tokens_in=50, tokens_out=5))
    store.record_usage(_call("alice", 2, op="compress", model="m2", agent_id="coder"))
    store.record_usage(_call("alice", 3, outcome="error", tokens_in=0, tokens_out=0))
    store.record_usage(_call("alice", 4, outcome="refused", tokens_in=0, tokens_out=0))
    store.record_usage(_call("bob", 1, tokens_in=7, tokens_out=7))
    store.record_usage(_call("alice", 60 * 24))  # the next day
    day = store.usage("alice", T0, T0 + timedelta(days=1))
    assert day == [
        UsageRow("compress", "m2", calls=1, errors=0, tokens_in=100, tokens_out=10),
        UsageRow("extract", "m1", calls=4, errors=2, tokens_in=150, tokens_out=15),
    ]
    assert day[1].tokens == 165
    assert sum(r.calls for r in store.usage("alice", T0)) == 6  # no end: up to now
    assert store.usage("alice", T0 + timedelta(minutes=2), T0 + timedelta(minutes=3)) == [
        UsageRow("compress", "m2", 1, 0, 100, 10)
    ]
    everyone = store.usage(None, T0, T0 + timedelta(days=1))
    assert sum(r.tokens_in for r in everyone) == 257 and sum(r.calls for r in everyone) == 6
    assert store.usage("carol", T0) == []


def test_a_users_latest_calls_newest_first_and_whole(store: Store) -> None:
    store.record_usage(_call("alice", 0, agent_id="coder", seconds=1.25))
    store.record_usage(_call("alice", 5, op="reflect", outcome="error"))
    store.record_usage(_call("bob", 9))
    records = store.usage_records("alice")
    assert [r.operation for r in records] == ["reflect", "extract"]
    assert records[1] == _call("alice", 0, agent_id="coder", seconds=1.25)
    assert len(store.usage_records("alice", limit=1)) == 1


def test_erasing_a_user_erases_their_ledger(store: Store) -> None:
    store.record_usage(_call("alice", 0))
    store.record_usage(_call("bob", 0))
    store.erase_user("alice")
    assert store.usage_records("alice") == [] and store.usage("alice", T0) == []
    assert len(store.usage_records("bob")) == 1


def test_a_rolled_back_block_records_nothing(store: Store) -> None:
    with pytest.raises(RuntimeError), store.atomic():
        store.record_usage(_call("alice", 0))
        raise RuntimeError("the enclosing write failed")
    assert store.usage_records("alice") == []
