"""``Vault.list`` / ``Vault.count``: the listing order (newest, oldest, last updated) and
the created-date range, on every local backend, with a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault import Store, ValidationError, Vault, VaultConfig

DAY1 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = DAY1

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def dated(store: Store, config: VaultConfig, clock: Clock) -> Vault:
    """Alice's memories written on 1, 2 and 3 March; the first one edited on the 4th.
    Bob has one of 2 March."""
    vault = Vault(store=store, config=config, embedder=None, clock=clock)
    for day, text in enumerate(["march one", "march two", "march three"]):
        clock.now = DAY1 + timedelta(days=day)
        vault.add(text, user_id="alice")
    clock.now = DAY1 + timedelta(days=1)
    vault.add("bob's march two", user_id="bob")
    clock.now = DAY1 + timedelta(days=3)
    (first,) = vault.list(user_id="alice", sort="oldest", limit=1)
    vault.update(first.id, user_id="alice", content="march one, edited")
    return vault


def _texts(vault: Vault, **kwargs: object) -> list[str]:
    return [e.content for e in vault.list(user_id="alice", **kwargs)]  # type: ignore[arg-type]


def test_sort_orders_newest_oldest_and_last_updated(dated: Vault) -> None:
    assert _texts(dated) == ["march three", "march two", "march one, edited"]
    assert _texts(dated, sort="newest") == _texts(dated)
    assert _texts(dated, sort="oldest") == ["march one, edited", "march two", "march three"]
    assert _texts(dated, sort="updated") == ["march one, edited", "march three", "march two"]
    assert _texts(dated, sort="oldest", limit=1, offset=1) == ["march two"]


def test_created_range_keeps_from_inclusive_to_exclusive_and_counts_the_same(
    dated: Vault,
) -> None:
    # A bare date is midnight UTC: 2 March up to (not including) 3 March is one day.
    one_day = {"created_after": "2026-03-02", "created_before": "2026-03-03"}
    assert _texts(dated, **one_day) == ["march two"]
    assert dated.count(user_id="alice", **one_day) == 1
    assert dated.count(user_id="bob", **one_day) == 1  # bob's own, never alice's
    assert _texts(dated, created_after=DAY1 + timedelta(days=1)) == ["march three", "march two"]
    assert _texts(dated, created_before="2026-03-02T09:00:00+00:00") == ["march one, edited"]
    assert dated.count(user_id="alice", created_after="2026-03-04") == 0
    # An edit does not move an entry's creation date.
    assert _texts(dated, created_before="2026-03-02", sort="updated") == ["march one, edited"]


@pytest.mark.parametrize(
    ("kwargs", "field", "says"),
    [
        ({"sort": "alphabetical"}, "sort", "newest, oldest, updated"),
        ({"sort": 3}, "sort", "newest, oldest, updated"),
        ({"created_after": "last week"}, "created_after", "ISO 8601"),
        ({"created_before": "2026-13-01"}, "created_before", "ISO 8601"),
        (
            {"created_after": "2026-03-03", "created_before": "2026-03-02"},
            "created_after",
            "earlier than created_before",
        ),
        (
            {"created_after": "2026-03-02", "created_before": "2026-03-02"},
            "created_after",
            "earlier than created_before",
        ),
    ],
)
def test_bad_sort_or_range_is_a_validation_error_naming_the_field(
    dated: Vault, kwargs: dict[str, object], field: str, says: str
) -> None:
    with pytest.raises(ValidationError, match=says) as caught:
        dated.list(user_id="alice", **kwargs)  # type: ignore[arg-type]
    assert caught.value.context["field"] == field
    if "sort" not in kwargs:
        with pytest.raises(ValidationError, match=says):
            dated.count(user_id="alice", **kwargs)  # type: ignore[arg-type]
