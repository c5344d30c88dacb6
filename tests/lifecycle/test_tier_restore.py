"""Bringing a cold or archived memory back to the active tier (the panel's Archive screen):
it is an ordinary update of ``tier`` (``Vault.update`` / ``PATCH /v1/memories/{id}``), so it
is kept in the memory's history and undo takes it back. Real SQLite, the real gateway."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memvault import MemClass, Tier, Vault, VaultConfig
from memvault.errors import NotFoundError
from tests.gateway_server import Live

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def aging(sqlite_path: object, config: VaultConfig, clock: Clock) -> Iterator[Vault]:
    with Vault(str(sqlite_path), config=config, clock=clock) as vault:
        yield vault


def _demoted(vault: Vault, clock: Clock, days: int, user: str = "alice") -> str:
    """A short-term memory of ``user`` left idle for ``days``, and maintenance run then."""
    entry = vault.add("Lunch with Mia on Friday", user_id=user, mem_class=MemClass.SHORT_TERM)
    clock.now = T0 + days * DAY
    vault.maintain(now=clock.now, user_id=user)
    return entry.id


@pytest.mark.parametrize(("days", "tier"), [(8, Tier.COLD), (400, Tier.ARCHIVE)])
def test_restoring_is_a_recorded_change_that_undo_takes_back(
    aging: Vault, clock: Clock, days: int, tier: Tier
) -> None:
    entry_id = _demoted(aging, clock, days)
    assert aging.get(entry_id, user_id="alice").tier is tier

    restored = aging.update(entry_id, user_id="alice", tier="active")
    assert restored.tier is Tier.ACTIVE
    last = aging.history(entry_id, user_id="alice")[-1]
    assert (last.action, last.changed, last.entry.tier) == ("update", ("tier",), Tier.ACTIVE)

    back = aging.undo(entry_id, user_id="alice")
    assert back.tier is tier
    assert aging.history(entry_id, user_id="alice")[-1].action == "undo"


def test_a_restored_memory_counts_as_used_and_stays_active(aging: Vault, clock: Clock) -> None:
    entry_id = _demoted(aging, clock, 8)
    aging.update(entry_id, user_id="alice", tier="active")
    report = aging.maintain(now=clock.now + DAY)
    assert report.moves == ()  # its window counts again from the restore
    assert aging.get(entry_id, user_id="alice").tier is Tier.ACTIVE
    later = aging.maintain(now=clock.now + 8 * DAY)
    assert [m.entry_id for m in later.moves] == [entry_id]


def test_another_user_cannot_restore_it(aging: Vault, clock: Clock) -> None:
    entry_id = _demoted(aging, clock, 8)
    with pytest.raises(NotFoundError):
        aging.update(entry_id, user_id="bob", tier="active")
    assert aging.get(entry_id, user_id="alice").tier is Tier.COLD
    assert len(aging.history(entry_id, user_id="alice")) == 1


def _cold(live: Live, user: str = "alice") -> str:
    entry = live.vault.add("Dentist on Monday", user_id=user, mem_class=MemClass.SHORT_TERM)
    live.vault.maintain(now=entry.created_at + 8 * DAY, user_id=user)
    assert live.vault.get(entry.id, user_id=user).tier is Tier.COLD
    return entry.id


def test_http_restore_then_undo(live: Live) -> None:
    entry_id = _cold(live)
    with live.client(live.alice) as alice:
        listed = alice.get("/v1/memories", params={"tier": "cold"}).json()
        assert [e["id"] for e in listed["items"]] == [entry_id]
        done = alice.patch(f"/v1/memories/{entry_id}", json={"tier": "active"})
        assert done.status_code == 200 and done.json()["tier"] == "active"
        assert alice.get("/v1/memories", params={"tier": "cold"}).json()["total"] == 0
        versions = alice.get(f"/v1/memories/{entry_id}/history").json()["versions"]
        assert [v["changed"] for v in versions] == [[], ["tier"]]
        undone = alice.post(f"/v1/memories/{entry_id}/undo", json={})
        assert undone.status_code == 200 and undone.json()["tier"] == "cold"


def test_http_restore_of_another_users_memory_is_a_404(live: Live) -> None:
    entry_id = _cold(live)
    before = live.snapshot()
    with live.client(live.bob) as bob:
        other = bob.patch(f"/v1/memories/{entry_id}", json={"tier": "active"})
        missing = bob.patch("/v1/memories/" + "0" * 32, json={"tier": "active"})
    assert other.status_code == missing.status_code == 404
    assert other.json()["error"]["code"] == missing.json()["error"]["code"]
    assert live.snapshot() == before
    with live.client(live.admin) as admin:  # an admin acts for alice by naming her
        done = admin.patch(f"/v1/memories/{entry_id}", json={"tier": "active", "user_id": "alice"})
    assert done.status_code == 200 and done.json()["tier"] == "active"


def test_http_restoring_an_active_memory_records_nothing(live: Live) -> None:
    entry = live.vault.add("Already in use", user_id="alice")
    with live.client(live.alice) as alice:
        again = alice.patch(f"/v1/memories/{entry.id}", json={"tier": "active"})
        assert again.status_code == 200 and again.json()["tier"] == "active"
        versions = alice.get(f"/v1/memories/{entry.id}/history").json()["versions"]
        assert len(versions) == 1  # no version: nothing of the fact changed
        nothing = alice.post(f"/v1/memories/{entry.id}/undo", json={})
    assert nothing.status_code == 422
    assert "nothing to undo" in nothing.json()["error"]["message"]
