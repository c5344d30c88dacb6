"""Supersession, history, undo and point-in-time recall (issue 16 item 4), with an
injected clock, on every store backend (SQLite file and memory always; PostgreSQL and
MariaDB servers too)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import ConflictError, NotFoundError, ValidationError, Vault, VaultConfig, load_config
from memvault.stores.protocols import Store

SERVER_BACKENDS = True

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def step(self, by: timedelta = 10 * DAY) -> datetime:
        self.now += by
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def v(store: Store, config: VaultConfig, clock: Clock) -> Iterator[Vault]:
    vault = Vault(store=store, config=config, clock=clock)
    yield vault
    vault.close()


def _recall(v: Vault, query: str = "where does alice live", **kwargs: object) -> list[str]:
    return [h.entry.content for h in v.search(query, user_id="alice", **kwargs)]  # type: ignore[arg-type]


def test_a_fact_that_changes_three_times(v: Vault, clock: Clock) -> None:
    """Berlin -> Munich (a new entry that supersedes) -> Lisbon (an update in place) ->
    Tokyo (supersedes again): recall gives only the current fact, history all four, a
    search as of each period the fact of that period, and undo the one before."""
    v.add("Her favourite editor is vim", user_id="alice")  # an unrelated fact
    berlin = v.add("Alice lives in Berlin", user_id="alice")
    t_berlin = clock.now
    clock.step()
    munich = v.add("Alice lives in Munich", user_id="alice", supersedes=berlin.id)
    t_munich = clock.now
    clock.step()
    lisbon = v.update(munich.id, user_id="alice", content="Alice lives in Lisbon")
    t_lisbon = clock.now
    clock.step()
    tokyo = v.add("Alice lives in Tokyo", user_id="alice", supersedes=munich.id)
    t_tokyo = clock.now
    clock.step()

    # The old ones are kept, marked and linked; the new ones link back.
    old = v.get(berlin.id, user_id="alice")
    assert old.valid_to == munich.created_at and old.superseded_by == munich.id
    assert munich.supersedes == berlin.id and munich.valid_to is None
    assert v.get(munich.id, user_id="alice").superseded_by == tokyo.id
    assert lisbon.id == munich.id

    # Recall: the current fact only, in search, context, explain, list and count.
    assert _recall(v) == ["Alice lives in Tokyo"]
    assert _recall(v, "alice lives in berlin") == ["Alice lives in Tokyo"]
    block = v.context("where does alice live", user_id="alice")
    assert "Tokyo" in block and "Berlin" not in block and "Lisbon" not in block
    assert [h.entry.id for h in v.explain("lives", user_id="alice").hits] == [tokyo.id]
    assert {e.content for e in v.list(user_id="alice")} == {
        "Alice lives in Tokyo",
        "Her favourite editor is vim",
    }
    assert v.count(user_id="alice") == 2
    assert v.count(user_id="alice", include_superseded=True) == 4
    wide = _recall(v, "lives", include_superseded=True)
    assert sorted(wide) == [f"Alice lives in {c}" for c in ("Berlin", "Lisbon", "Tokyo")]

    # History: all four, oldest first, each with its period, who and what.
    for start in (berlin.id, munich.id, tokyo.id):
        history = v.history(start, user_id="alice")
        assert [h.entry.content for h in history] == [
            "Alice lives in Berlin",
            "Alice lives in Munich",
            "Alice lives in Lisbon",
            "Alice lives in Tokyo",
        ]
    assert [(h.valid_from, h.valid_to) for h in history] == [
        (t_berlin, t_munich),
        (t_munich, t_lisbon),
        (t_lisbon, t_tokyo),
        (t_tokyo, None),
    ]
    assert [h.action for h in history] == ["added", "supersede", "update", "supersede"]
    assert history[2].actor == "owner" and history[2].changed == ("content",)
    assert [h.current for h in history] == [False, False, False, True]

    # Point in time: each version in its own period (as search, list and count see it).
    for at, fact in (
        (t_berlin + DAY, "Alice lives in Berlin"),
        (t_munich + DAY, "Alice lives in Munich"),
        (t_lisbon + DAY, "Alice lives in Lisbon"),
        (t_tokyo + DAY, "Alice lives in Tokyo"),
    ):
        assert _recall(v, "lives", as_of=at) == [fact], at
        listed = [e.content for e in v.list(user_id="alice", as_of=at) if "lives" in e.content]
        assert listed == [fact], at
        assert v.count(user_id="alice", as_of=at.isoformat()) == 2
    assert _recall(v, "lives", as_of=t_berlin - DAY) == []  # before anything was written

    # Undo: Tokyo is withdrawn and the entry it replaced (as Lisbon) is current again.
    clock.step()
    current = v.undo(tokyo.id, user_id="alice")
    assert current.id == munich.id and current.content == "Alice lives in Lisbon"
    assert _recall(v) == ["Alice lives in Lisbon"]
    # Undoing an undo re-applies the change: Tokyo is current again, then withdrawn again.
    clock.step()
    assert v.undo(tokyo.id, user_id="alice").id == tokyo.id
    assert _recall(v) == ["Alice lives in Tokyo"]
    clock.step()
    assert v.undo(tokyo.id, user_id="alice").content == "Alice lives in Lisbon"
    # Undo of an in-place update: the text before comes back (and again re-applies).
    clock.step()
    v.update(munich.id, user_id="alice", content="Alice lives in Porto")
    clock.step()
    assert v.undo(munich.id, user_id="alice").content == "Alice lives in Lisbon"
    assert _recall(v) == ["Alice lives in Lisbon"]
    clock.step()
    assert v.undo(munich.id, user_id="alice").content == "Alice lives in Porto"
    # Every undo is itself recorded: history grows, and the past stays as it was.
    history = v.history(berlin.id, user_id="alice")
    assert [h.entry.content for h in history] == [
        "Alice lives in Berlin",
        "Alice lives in Munich",
        "Alice lives in Lisbon",
        "Alice lives in Tokyo",
        "Alice lives in Lisbon",  # undo
        "Alice lives in Tokyo",  # undo of the undo
        "Alice lives in Lisbon",  # undo again
        "Alice lives in Porto",
        "Alice lives in Lisbon",  # undo
        "Alice lives in Porto",  # undo of the undo
    ]
    assert [h.action for h in history][4:] == ["undo", "undo", "undo", "update", "undo", "undo"]
    assert [h.current for h in history].count(True) == 1
    assert _recall(v, "lives", as_of=t_tokyo + DAY) == ["Alice lives in Tokyo"]
    assert _recall(v, "lives", as_of=t_lisbon + DAY) == ["Alice lives in Lisbon"]


def test_undo_of_a_supersession_from_the_old_side_and_again(v: Vault, clock: Clock) -> None:
    a = v.add("The deploy day is Tuesday", user_id="alice")
    clock.step()
    b = v.add("The deploy day is Thursday", user_id="alice", supersedes=a.id)
    clock.step()
    assert v.undo(a.id, user_id="alice").id == a.id  # the old one back, the new withdrawn
    assert _recall(v, "deploy day") == ["The deploy day is Tuesday"]
    assert v.get(b.id, user_id="alice").valid_to == clock.now
    clock.step()
    assert v.undo(a.id, user_id="alice").id == b.id  # and the supersession once more
    assert _recall(v, "deploy day") == ["The deploy day is Thursday"]


def test_clear_errors(v: Vault, store: Store) -> None:
    a = v.add("Bob's office is on floor 3", user_id="bob")
    with pytest.raises(ValidationError, match="nothing to undo"):
        v.undo(a.id, user_id="bob")
    for call in (v.history, v.undo):
        with pytest.raises(NotFoundError):
            call(a.id, user_id="alice")  # another user's id is a missing one
        with pytest.raises(NotFoundError):
            call("0123456789abcdef", user_id="bob")
        with pytest.raises(ValidationError):
            call("not an id!", user_id="bob")
    with pytest.raises(NotFoundError):
        v.add("Alice's office", user_id="alice", supersedes=a.id)
    with pytest.raises(ValidationError, match="supersedes"):
        v.add("bad link", user_id="bob", supersedes="no spaces allowed")
    b = v.add("Bob's office is on floor 4", user_id="bob", supersedes=a.id)
    with pytest.raises(ConflictError, match="already replaced"):
        v.add("Bob's office is on floor 5", user_id="bob", supersedes=a.id)
    assert v.count(user_id="bob", include_superseded=True) == 2  # the refused one wrote nothing
    with pytest.raises(ValidationError, match="as_of"):
        v.search("office", user_id="bob", as_of="last tuesday")
    with pytest.raises(ValidationError, match="include_superseded"):
        v.list(user_id="bob", include_superseded="yes")  # type: ignore[arg-type]
    assert b.supersedes == a.id
    # A replacement lives where the fact did: not in one agent's private memory.
    shared = v.add("The office wifi is called Hive", user_id="bob")
    with pytest.raises(ValidationError, match="shared"):
        v.add("The wifi is Nest", user_id="bob", agent_id="helper", supersedes=shared.id)
    assert v.get(shared.id, user_id="bob").valid_to is None


def test_a_failed_update_keeps_no_version(v: Vault, store: Store) -> None:
    a = v.add("Carol drinks tea", user_id="carol")
    with pytest.raises(ValidationError):
        v.update(a.id, user_id="carol", status="invalid", content="Carol drinks coffee")
    assert store.versions("carol", [a.id]) == []
    assert v.get(a.id, user_id="carol").content == "Carol drinks tea"
    v.update(a.id, user_id="carol", content="Carol drinks coffee")
    (kept,) = store.versions("carol", [a.id])
    assert kept.entry.content == "Carol drinks tea" and kept.actor == "owner"


def test_deleting_and_erasing_remove_the_history(v: Vault, store: Store) -> None:
    a = v.add("Dan uses a Mac", user_id="dan")
    v.update(a.id, user_id="dan", content="Dan uses Linux")
    v.delete(a.id, user_id="dan")
    assert store.versions("dan", [a.id]) == []
    b = v.add("Dan uses Windows", user_id="dan")
    v.update(b.id, user_id="dan", content="Dan uses BSD")
    v.erase_user(user_id="dan")
    assert store.versions("dan", [b.id]) == []


def test_export_and_import_keep_validity_and_links(v: Vault, clock: Clock) -> None:
    a = v.add("Erin's team is Payments", user_id="erin")
    clock.step()
    b = v.add("Erin's team is Search", user_id="erin", supersedes=a.id)
    records = list(v.export(user_id="erin"))
    by_id = {r["id"]: r for r in records}
    assert by_id[a.id]["superseded_by"] == b.id and by_id[a.id]["valid_to"]
    assert by_id[b.id]["supersedes"] == a.id
    v.import_(records, user_id="frank")
    assert _recall_of(v, "frank") == ["Erin's team is Search"]
    assert v.get(a.id, user_id="frank").valid_to == b.created_at


def _recall_of(v: Vault, user: str) -> list[str]:
    return [h.entry.content for h in v.search("team", user_id=user)]


def test_superseded_entries_take_no_candidate_place_in_any_channel(
    store: Store, tmp_path: Path, clock: Clock
) -> None:
    """Many superseded versions nearer to the query than the current fact: each channel
    (keyword in the store's query, vector by looking deeper) still finds the current one
    within its depth."""
    config = load_config(
        environ={},
        home=tmp_path / "home",
        embedding={"provider": "hashing", "background": False},
        retrieval={"candidates": 3, "rerank": False},
    )
    with Vault(store=store, config=config, clock=clock) as v:
        previous = v.add("office desk number 1 on floor 1", user_id="gus")
        for n in range(2, 12):
            clock.step(DAY)
            previous = v.add(
                f"office desk number {n} on floor {n}", user_id="gus", supersedes=previous.id
            )
        clock.step(DAY)
        current = v.add(
            "my workplace is a desk by the window", user_id="gus", supersedes=previous.id
        )
        explained = v.explain("office desk number floor", user_id="gus", limit=3)
        (only,) = explained.candidates
        assert only.entry.id == current.id and "vector" in only.channels
        wide = v.explain("office desk number floor", user_id="gus", include_superseded=True)
        assert current.id not in [c.entry.id for c in wide.candidates[:3]]


def test_migrate_store_moves_the_history(v: Vault, clock: Clock, tmp_path: Path) -> None:
    from memvault.engine.migrate import migrate_store
    from memvault.stores import open_store

    a = v.add("Hana's laptop is a ThinkPad", user_id="hana")
    clock.step()
    v.update(a.id, user_id="hana", content="Hana's laptop is a MacBook")
    clock.step()
    b = v.add("Hana's laptop is a Framework", user_id="hana", supersedes=a.id)
    with Vault(store=open_store("memory://"), config=v.config, clock=clock) as moved:
        migrate_store(v.store, moved.store, user_id="hana")
        kept = v.store.versions("hana", [a.id, b.id])
        assert len(kept) == 2 and moved.store.versions("hana", [a.id, b.id]) == kept
        assert [h.entry.content for h in moved.history(b.id, user_id="hana")] == [
            "Hana's laptop is a ThinkPad",
            "Hana's laptop is a MacBook",
            "Hana's laptop is a Framework",
        ]


def test_undo_moves_a_decision_only_along_its_lifecycle(v: Vault, store: Store) -> None:
    d = v.add("Ship the beta in May", user_id="ivy", kind="project")
    v.decide(d.id, "proposed", user_id="ivy")
    with pytest.raises(ValidationError, match="cannot stop being one"):
        v.undo(d.id, user_id="ivy")  # proposed -> not a decision: no such move
    v.decide(d.id, "exploring", user_id="ivy")
    with pytest.raises(ValidationError, match="legal moves"):
        v.undo(d.id, user_id="ivy")  # exploring -> proposed is not a legal move
    v.decide(d.id, "pending", user_id="ivy")
    assert v.undo(d.id, user_id="ivy").status == "exploring"  # pending -> exploring is
    moves = v.decision_history(d.id, user_id="ivy")
    assert [(m.to_status, m.reason) for m in moves][-1] == ("exploring", "undo")
