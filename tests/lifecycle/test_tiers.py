"""Tiers and decay (issue 16 item 2): ``Vault.maintain`` with an injected clock, on every
store backend (SQLite file and memory always; PostgreSQL and MariaDB servers too)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import MemClass, Tier, Vault, VaultConfig, load_config
from memvault.errors import ConfigError, ValidationError
from memvault.stores.protocols import Store

SERVER_BACKENDS = True

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def aging(store: Store, config: VaultConfig, clock: Clock) -> Iterator[Vault]:
    cfg = config.model_copy(
        update={
            "lifecycle": config.lifecycle.model_copy(
                update={"semantic_days": 90.0, "source_archive_days": 30.0}
            )
        }
    )
    with Vault(store=store, config=cfg, clock=clock) as vault:
        yield vault


def _tiers(vault: Vault, user: str = "alice") -> dict[str, Tier]:
    return {e.id: e.tier for e in vault.list(user_id=user, limit=1000)}


# The windows of the fixture: the defaults (7, 15) plus two set here; the summaries none.
WINDOWS = {
    MemClass.SHORT_TERM: 7,
    MemClass.PROCESS: 15,
    MemClass.SEMANTIC: 90,
    MemClass.SOURCE_ARCHIVE: 30,
}


@pytest.mark.parametrize("mem_class", list(WINDOWS))
def test_each_class_goes_cold_exactly_at_its_window(
    aging: Vault, clock: Clock, mem_class: MemClass
) -> None:
    entry = aging.add(f"a {mem_class.value} memory", user_id="alice", mem_class=mem_class)
    window = WINDOWS[mem_class] * DAY
    early = aging.maintain(now=T0 + window - SECOND)
    assert early.moves == () and _tiers(aging)[entry.id] is Tier.ACTIVE
    due = aging.maintain(now=T0 + window)
    assert [(m.entry_id, m.from_tier, m.to_tier) for m in due.moves] == [
        (entry.id, Tier.ACTIVE, Tier.COLD)
    ]
    assert _tiers(aging)[entry.id] is Tier.COLD


def test_a_class_without_a_window_stays_active(aging: Vault) -> None:
    entry = aging.add("a summary", user_id="alice", mem_class=MemClass.COMPRESSED_ARCHIVE)
    report = aging.maintain(now=T0 + 3650 * DAY)
    assert report.moves == () and report.scanned == 1
    assert _tiers(aging)[entry.id] is Tier.ACTIVE


def test_cold_entries_move_to_archive_after_a_year_idle(aging: Vault) -> None:
    entry = aging.add("today's lunch", user_id="alice", mem_class=MemClass.SHORT_TERM)
    aging.maintain(now=T0 + 8 * DAY)
    assert aging.maintain(now=T0 + 365 * DAY - SECOND).moves == ()
    late = aging.maintain(now=T0 + 365 * DAY)
    assert late.counts == {"cold->archive": 1}
    assert _tiers(aging)[entry.id] is Tier.ARCHIVE
    assert aging.maintain(now=T0 + 3650 * DAY).moves == ()  # archive is the last tier


def test_one_run_takes_an_entry_as_far_as_the_rules_say_and_twice_changes_nothing(
    aging: Vault, clock: Clock
) -> None:
    old = aging.add("long ago", user_id="alice", mem_class=MemClass.PROCESS)
    clock.now = T0 + 300 * DAY
    recent = aging.add("stable fact", user_id="alice", mem_class=MemClass.SEMANTIC)
    later = T0 + 400 * DAY
    first = aging.maintain(now=later)
    assert first.counts == {"active->archive": 1, "active->cold": 1}
    assert _tiers(aging) == {old.id: Tier.ARCHIVE, recent.id: Tier.COLD}
    before = list(aging.export(user_id="alice"))
    second = aging.maintain(now=later)
    assert second.moves == () and second.scanned == 1  # only the cold one is a candidate
    assert list(aging.export(user_id="alice")) == before


def test_dry_run_reports_and_writes_nothing(aging: Vault) -> None:
    aging.add("a detail of the task", user_id="alice", mem_class=MemClass.PROCESS)
    before = list(aging.export(user_id="alice"))
    report = aging.maintain(now=T0 + 20 * DAY, dry_run=True)
    assert report.dry_run and report.counts == {"active->cold": 1}
    assert list(aging.export(user_id="alice")) == before
    assert aging.maintain(now=T0 + 20 * DAY).counts == {"active->cold": 1}  # still to do


def test_activity_restarts_the_window(aging: Vault, clock: Clock) -> None:
    edited = aging.add("draft plan", user_id="alice", mem_class=MemClass.SHORT_TERM)
    untouched = aging.add("other plan", user_id="alice", mem_class=MemClass.SHORT_TERM)
    clock.now = T0 + 5 * DAY
    aging.update(edited.id, user_id="alice", content="draft plan, revised")
    # A memory recalled recently (imported with its last access) is in use, too.
    aging.import_(
        [
            {
                "id": "mem_recalled",
                "content": "recalled plan",
                "mem_class": "short_term",
                "created_at": T0.isoformat(),
                "updated_at": T0.isoformat(),
                "last_accessed_at": (T0 + 6 * DAY).isoformat(),
            }
        ],
        user_id="alice",
    )
    aging.maintain(now=T0 + 8 * DAY)
    tiers = _tiers(aging)
    assert tiers[untouched.id] is Tier.COLD
    assert tiers[edited.id] is Tier.ACTIVE
    assert tiers["mem_recalled"] is Tier.ACTIVE
    aging.maintain(now=T0 + 13 * DAY)
    assert set(_tiers(aging).values()) == {Tier.COLD}


def test_a_move_keeps_the_version_and_the_index(aging: Vault) -> None:
    entry = aging.add(
        "Alice's dentist appointment is on Tuesday", user_id="alice", mem_class=MemClass.SHORT_TERM
    )
    before = aging.search("dentist appointment", user_id="alice")
    aging.maintain(now=T0 + 10 * DAY)
    moved = aging.get(entry.id, user_id="alice")
    assert moved.tier is Tier.COLD and moved.updated_at == entry.updated_at
    after = aging.search("dentist appointment", user_id="alice")
    assert [h.entry.id for h in after] == [entry.id] == [h.entry.id for h in before]
    assert after[0].sources.get("keyword") == before[0].sources.get("keyword")


def test_recall_ranks_an_active_entry_before_an_equal_cold_one(aging: Vault) -> None:
    stale = aging.add("the team lunch is at noon", user_id="alice", mem_class=MemClass.SHORT_TERM)
    aging.maintain(now=T0 + 10 * DAY)
    fresh = aging.add("the team lunch is at noon", user_id="alice", mem_class=MemClass.SEMANTIC)
    hits = aging.search("team lunch noon", user_id="alice")
    assert [h.entry.id for h in hits] == [fresh.id, stale.id]


def test_maintain_for_one_user_leaves_the_others(aging: Vault) -> None:
    mine = aging.add("mine", user_id="alice", mem_class=MemClass.SHORT_TERM)
    theirs = aging.add("theirs", user_id="bob", mem_class=MemClass.SHORT_TERM)
    report = aging.maintain(now=T0 + 10 * DAY, user_id="alice")
    assert report.users == 1 and [m.entry_id for m in report.moves] == [mine.id]
    assert _tiers(aging, "bob")[theirs.id] is Tier.ACTIVE


def test_bad_input_is_refused(aging: Vault) -> None:
    for kwargs, field in (
        ({"now": "next tuesday"}, "now"),
        ({"user_id": "../x"}, "user_id"),
        ({"dry_run": "yes"}, "dry_run"),
    ):
        with pytest.raises(ValidationError) as err:
            aging.maintain(**kwargs)  # type: ignore[arg-type]
        assert err.value.context["field"] == field


def test_windows_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(environ={}, home=tmp_path, lifecycle={"short_term_days": 0})
    assert "lifecycle.short_term_days" in err.value.message
    with pytest.raises(ConfigError):
        load_config(environ={}, home=tmp_path, lifecycle={"weekly_days": 3})
