"""Reinforcement (issue 16 item 2): recall records use, and use keeps memories current.

Real SQLite files (and the in-memory store); an injected clock."""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import MemClass, Tier, Vault, VaultConfig
from memvault.lifecycle import AccessLog
from memvault.retrieval.fusion import Boosts
from memvault.stores import SQLiteStore

T0 = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _open(path: Path, config: VaultConfig, clock: Clock, **lifecycle: object) -> Vault:
    cfg = config.model_copy(
        update={"lifecycle": config.lifecycle.model_copy(update=lifecycle)} if lifecycle else {}
    )
    return Vault(path, config=cfg, clock=clock)


def _stats(path: Path, config: VaultConfig, entry_id: str) -> tuple[int, datetime | None]:
    with Vault(path, config=config, embedder=None) as fresh:
        entry = fresh.get(entry_id, user_id="alice")
    return entry.access_count, entry.last_accessed_at


def test_search_records_what_it_returned_and_edits_nothing(
    tmp_path: Path, config: VaultConfig
) -> None:
    path, clock = tmp_path / "v.db", Clock()
    with _open(path, config, clock) as vault:
        shown = vault.add("Alice's cat is called Miso", user_id="alice")
        other = vault.add("The quarterly report is due", user_id="alice")
        clock.now = T0 + DAY
        assert [h.entry.id for h in vault.search("cat Miso", user_id="alice")] == [shown.id]
    assert _stats(path, config, shown.id) == (1, T0 + DAY)
    assert _stats(path, config, other.id) == (0, None)
    with Vault(path, config=config, embedder=None) as fresh:
        after = fresh.get(shown.id, user_id="alice")
    assert after.updated_at == shown.updated_at and after.content == shown.content


def test_context_records_only_what_it_injected_and_explain_list_get_nothing(
    tmp_path: Path, config: VaultConfig
) -> None:
    path, clock = tmp_path / "v.db", Clock()
    with _open(path, config, clock) as vault:
        pet = vault.add("Alice's cat is called Miso", user_id="alice")
        work = vault.add("The quarterly report is due on Monday", user_id="alice")
        block = vault.context("what is the cat called", user_id="alice")
        assert "Miso" in block and "quarterly" not in block
        vault.explain("quarterly report", user_id="alice")
        vault.list(user_id="alice")
        vault.get(work.id, user_id="alice")
    assert _stats(path, config, pet.id)[0] == 1
    assert _stats(path, config, work.id) == (0, None)


def test_the_log_writes_when_enough_wait_or_time_passed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    clock = Clock()
    log = AccessLog(store, clock, interval=5.0, max_pending=3)
    with Vault(store=store, embedder=None) as vault:
        ids = [vault.add(f"note {i}", user_id="alice").id for i in range(4)]
        log.record("alice", ids[:2])
        assert {e.access_count for e in vault.list(user_id="alice")} == {0}
        log.record("alice", ids[2:3])  # the third pending id: written now
        counts = {e.id: e.access_count for e in vault.list(user_id="alice")}
        assert counts == {ids[0]: 1, ids[1]: 1, ids[2]: 1, ids[3]: 0}
        clock.now = T0 + timedelta(seconds=4)
        log.record("alice", ids[3:])  # one pending, within the interval: waits
        assert vault.get(ids[3], user_id="alice").access_count == 0
        clock.now = T0 + timedelta(seconds=6)
        log.record("alice", ids[3:])  # the interval (on the vault's clock) has passed
        assert vault.get(ids[3], user_id="alice").access_count == 1


def test_a_background_log_writes_off_the_search_and_in_order(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    clock = Clock()
    log = AccessLog(store, clock, max_pending=1, background=True)
    with Vault(store=store, embedder=None) as vault:
        entry = vault.add("note", user_id="alice")
        other = sqlite3.connect(path)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        log.record("alice", [entry.id])  # due: taken now, written once the lock is free
        assert vault.get(entry.id, user_id="alice").access_count == 0
        other.rollback()
        other.close()
        clock.now = T0 + DAY
        log.record("alice", [entry.id])  # a second batch, taken later, written after it
        log.flush()
        stored = vault.get(entry.id, user_id="alice")
        assert (stored.access_count, stored.last_accessed_at) == (2, T0 + DAY)


def test_a_failed_write_is_logged_and_never_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    store.close()
    log = AccessLog(store, Clock())
    with caplog.at_level(logging.WARNING):
        log.record("alice", ["mem_1"])
        log.flush()
    assert "not recorded" in caplog.text


def test_a_memory_in_use_does_not_age_out(tmp_path: Path, config: VaultConfig) -> None:
    path, clock = tmp_path / "v.db", Clock()
    with _open(path, config, clock) as vault:
        used = vault.add(
            "standup notes: deploy on Thursday", user_id="alice", mem_class="short_term"
        )
        idle = vault.add("lunch order: noodles", user_id="alice", mem_class=MemClass.SHORT_TERM)
        clock.now = T0 + 5 * DAY
        vault.search("standup deploy", user_id="alice")
        vault.close()  # writes the recall
    with _open(path, config, clock) as vault:
        vault.maintain(now=T0 + 8 * DAY)
        assert vault.get(used.id, user_id="alice").tier is Tier.ACTIVE
        assert vault.get(idle.id, user_id="alice").tier is Tier.COLD


def test_use_raises_rank_a_little_and_boundedly(tmp_path: Path, config: VaultConfig) -> None:
    path, clock = tmp_path / "v.db", Clock()
    with _open(path, config, clock) as vault:
        first = vault.add("the team offsite is in Porto", user_id="alice")
        second = vault.add("the team offsite is in Porto", user_id="alice")
        before = [h.entry.id for h in vault.search("team offsite Porto", user_id="alice", limit=2)]
        assert before == [first.id, second.id]  # equal scores: stored first wins the tie
    with _open(path, config, clock) as vault:
        log = AccessLog(vault.store, clock)
        for _ in range(12):  # the second one keeps being recalled on its own
            log.record("alice", [second.id])
            log.flush()
    with _open(path, config, clock) as vault:
        hits = vault.search("team offsite Porto", user_id="alice", limit=2)
        assert [h.entry.id for h in hits] == [second.id, first.id]
        ratio = hits[0].score / hits[1].score
        # Full use moves importance halfway to 1.0: at most (1 + 0.05) / 1 with the defaults.
        assert 1.0 < ratio <= 1.0 + config.retrieval.importance_boost + 1e-9


def test_reinforcement_is_bounded_and_can_be_turned_off() -> None:
    boosts = Boosts(reinforce_after=10, reinforce_share=0.5)
    from memvault import MemoryEntry

    fresh = MemoryEntry(id="m", user_id="u", content="x", importance=0.4)
    assert boosts.importance_of(fresh) == 0.4
    assert boosts.importance_of(fresh.replace(access_count=5)) == pytest.approx(0.55)
    assert boosts.importance_of(fresh.replace(access_count=10_000)) == pytest.approx(0.7)
    assert Boosts(reinforce_after=0).importance_of(fresh.replace(access_count=50)) == 0.4


def test_tracking_can_be_turned_off(tmp_path: Path, config: VaultConfig) -> None:
    path, clock = tmp_path / "v.db", Clock()
    with _open(path, config, clock, track_access=False) as vault:
        entry = vault.add("Alice's cat is called Miso", user_id="alice")
        vault.search("cat", user_id="alice")
    assert _stats(path, config, entry.id) == (0, None)


def test_recency_counts_from_the_last_recall(tmp_path: Path, config: VaultConfig) -> None:
    path, clock = tmp_path / "v.db", Clock()
    with _open(path, config, clock) as vault:
        entry = vault.add("zebra crossing", user_id="alice")
        clock.now = T0 + 20 * DAY
        vault.search("zebra", user_id="alice")  # recalled on day 20
        clock.now = T0 + 30 * DAY
        vault.explain("zebra", user_id="alice")  # nothing recorded by explain itself
        vault.close()
    with _open(path, config, clock) as vault:
        trace = next(c for c in vault.explain("zebra", user_id="alice").candidates)
        rc = config.retrieval
        assert trace.entry.id == entry.id
        assert trace.recency == pytest.approx(
            1.0 + rc.recency_boost * 0.5 ** (10 / rc.half_life_days)
        )
