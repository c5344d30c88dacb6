"""The ``Vault`` API on every backend: CRUD, search, scope rules, export and import."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import (
    ConflictError,
    Domain,
    Hit,
    Kind,
    MemoryEntry,
    NotFoundError,
    Store,
    StoreError,
    Tier,
    ValidationError,
    Vault,
    VaultConfig,
)


def hit_ids(hits: list[Hit]) -> list[str]:
    return [h.entry.id for h in hits]


def entry_ids(entries: list[MemoryEntry]) -> set[str]:
    return {e.id for e in entries}


# -- add / get ---------------------------------------------------------------------


def test_add_returns_the_stored_entry_and_get_reads_it_back(vault: Vault) -> None:
    before = datetime.now(UTC)
    added = vault.add(
        "  Prefers dark roast coffee  ",
        user_id="alice",
        kind="user",
        name="coffee",
        description="drink preference",
        metadata={"tags": ["drinks"], "n": 2},
        domain="life",
        importance=0.9,
        session_id="s-1",
    )

    assert added.content == "Prefers dark roast coffee"  # stripped
    assert added.user_id == "alice"
    assert added.agent_id is None
    assert added.kind is Kind.USER
    assert added.domain is Domain.LIFE
    assert added.importance == 0.9
    assert added.metadata == {"tags": ["drinks"], "n": 2}
    assert added.created_at >= before - timedelta(seconds=1)
    assert added.updated_at == added.created_at
    assert vault.get(added.id, user_id="alice") == added


def test_add_gives_every_entry_a_new_id(vault: Vault) -> None:
    added = [vault.add("same text", user_id="alice") for _ in range(20)]
    assert len(entry_ids(added)) == 20
    assert vault.count(user_id="alice") == 20


def test_add_with_an_existing_id_is_a_conflict(vault: Vault) -> None:
    first = vault.add("first", user_id="alice", id="fixed-id")
    with pytest.raises(ConflictError):
        vault.add("second", user_id="alice", id="fixed-id")
    assert vault.get("fixed-id", user_id="alice") == first
    # Ids are unique per user, not globally.
    assert vault.add("bob's", user_id="bob", id="fixed-id").user_id == "bob"


def test_an_added_entry_is_searchable_immediately(vault: Vault) -> None:
    added = vault.add("The staging database is Postgres 16", user_id="alice")
    assert hit_ids(vault.search("postgres", user_id="alice")) == [added.id]


# -- update ------------------------------------------------------------------------


def test_update_changes_only_the_given_fields(vault: Vault) -> None:
    original = vault.add(
        "The build uses make", user_id="alice", name="build", metadata={"tags": ["ci"]}
    )

    updated = vault.update(
        original.id, user_id="alice", content="The build uses ninja", tier="cold", importance=0.1
    )

    assert updated.content == "The build uses ninja"
    assert updated.tier is Tier.COLD
    assert updated.importance == 0.1
    assert (updated.name, updated.metadata, updated.kind) == ("build", {"tags": ["ci"]}, Kind.USER)
    assert updated.created_at == original.created_at
    assert updated.updated_at >= original.updated_at
    assert vault.get(original.id, user_id="alice") == updated
    assert hit_ids(vault.search("ninja", user_id="alice")) == [original.id]
    assert vault.search("make", user_id="alice") == []


def test_update_can_clear_expiry(vault: Vault) -> None:
    e = vault.add("temporary", user_id="alice", expires_at="2030-01-01T00:00:00+00:00")
    assert e.expires_at == datetime(2030, 1, 1, tzinfo=UTC)
    assert vault.update(e.id, user_id="alice", expires_at=None).expires_at is None


# -- delete ------------------------------------------------------------------------


def test_delete_removes_the_entry_from_get_list_and_search(vault: Vault) -> None:
    keep = vault.add("keep the walrus", user_id="alice")
    doomed = vault.add("delete the walrus", user_id="alice")

    vault.delete(doomed.id, user_id="alice")

    with pytest.raises(NotFoundError):
        vault.get(doomed.id, user_id="alice")
    with pytest.raises(NotFoundError):
        vault.delete(doomed.id, user_id="alice")
    assert vault.list(user_id="alice") == [keep]
    assert hit_ids(vault.search("walrus", user_id="alice")) == [keep.id]


def test_delete_many_returns_only_the_callers_deleted_ids(vault: Vault) -> None:
    a1 = vault.add("one", user_id="alice")
    a2 = vault.add("two", user_id="alice")
    b1 = vault.add("bob's", user_id="bob")

    deleted = vault.delete_many([a1.id, b1.id, a2.id, "no-such-id"], user_id="alice")

    assert sorted(deleted) == sorted([a1.id, a2.id])
    assert vault.count(user_id="alice") == 0
    assert vault.get(b1.id, user_id="bob") == b1


# -- list / count ------------------------------------------------------------------


def test_list_is_newest_first_filtered_and_paged(vault: Vault) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    vault.add_many(
        [
            {
                "content": f"entry {i}",
                "kind": "project" if i % 2 else "user",
                "created_at": t0 + timedelta(minutes=i),
            }
            for i in range(10)
        ],
        user_id="alice",
    )
    listed = vault.list(user_id="alice")
    assert [e.content for e in listed] == [f"entry {i}" for i in range(9, -1, -1)]

    page = vault.list(user_id="alice", limit=3, offset=3)
    assert [e.content for e in page] == ["entry 6", "entry 5", "entry 4"]

    projects = vault.list(user_id="alice", kind="project")
    assert [e.content for e in projects] == ["entry 9", "entry 7", "entry 5", "entry 3", "entry 1"]
    assert vault.count(user_id="alice", kind="project") == 5
    assert vault.count(user_id="alice") == 10
    assert vault.count(user_id="nobody") == 0


def test_list_rejects_bad_paging(vault: Vault) -> None:
    for kwargs in ({"limit": 0}, {"limit": 1001}, {"offset": -1}, {"limit": True}):
        with pytest.raises(ValidationError):
            vault.list(user_id="alice", **kwargs)  # type: ignore[arg-type]


# -- search ------------------------------------------------------------------------


def test_search_returns_hits_best_first_with_positive_scores(vault: Vault) -> None:
    best = vault.add("kafka kafka cluster in frankfurt", user_id="alice", name="kafka cluster")
    other = vault.add("the kafka book on my shelf", user_id="alice")
    for i in range(6):
        vault.add(f"unrelated note {i}", user_id="alice")

    hits = vault.search("kafka cluster", user_id="alice")

    assert hit_ids(hits) == [best.id, other.id]
    assert hits[0].score > hits[1].score > 0
    assert hit_ids(vault.search("kafka", user_id="alice", limit=1)) == [best.id]


def test_search_matches_other_word_forms(vault: Vault) -> None:
    e = vault.add("She is running three services", user_id="alice")
    assert hit_ids(vault.search("service runs", user_id="alice")) == [e.id]


def test_search_filters_by_kind_domain_and_tier(vault: Vault) -> None:
    work = vault.add("zebra at work", user_id="alice", kind="project", domain="work")
    life = vault.add("zebra at home", user_id="alice", kind="user", domain="life")
    cold = vault.add("zebra in storage", user_id="alice", kind="project")
    vault.update(cold.id, user_id="alice", tier="cold")

    assert set(hit_ids(vault.search("zebra", user_id="alice", kind="project"))) == {
        work.id,
        cold.id,
    }
    assert hit_ids(vault.search("zebra", user_id="alice", domain="life")) == [life.id]
    assert hit_ids(vault.search("zebra", user_id="alice", tier="cold")) == [cold.id]


def test_search_finds_metadata_tags(vault: Vault) -> None:
    e = vault.add("notes from the offsite", user_id="alice", metadata={"tags": ["kubernetes"]})
    assert hit_ids(vault.search("kubernetes", user_id="alice")) == [e.id]


def test_chinese_query_finds_chinese_entry(vault: Vault) -> None:
    warehouse = vault.add("公司的数据仓库用的是 ClickHouse", user_id="alice")
    service = vault.add("我们的服务部署在上海机房", user_id="alice")
    vault.add("午饭在食堂吃", user_id="alice")

    assert hit_ids(vault.search("数据仓库", user_id="alice")) == [warehouse.id]
    assert hit_ids(vault.search("服务", user_id="alice")) == [service.id]
    assert hit_ids(vault.search("clickhouse", user_id="alice")) == [warehouse.id]


# -- scope rules (vault.py module docstring) ---------------------------------------


@pytest.fixture
def scoped(vault: Vault) -> dict[str, MemoryEntry]:
    """Alice has a shared entry and one private entry for each of agents a1 and a2."""
    return {
        "shared": vault.add("zebra shared", user_id="alice"),
        "a1": vault.add("zebra for a1", user_id="alice", agent_id="a1"),
        "a2": vault.add("zebra for a2", user_id="alice", agent_id="a2"),
        "bob": vault.add("zebra of bob", user_id="bob"),
    }


def test_search_without_agent_sees_only_shared_entries(
    vault: Vault, scoped: dict[str, MemoryEntry]
) -> None:
    assert hit_ids(vault.search("zebra", user_id="alice")) == [scoped["shared"].id]


def test_search_with_agent_sees_shared_and_that_agents_entries(
    vault: Vault, scoped: dict[str, MemoryEntry]
) -> None:
    found = set(hit_ids(vault.search("zebra", user_id="alice", agent_id="a1")))
    assert found == {scoped["shared"].id, scoped["a1"].id}
    found = set(hit_ids(vault.search("zebra", user_id="alice", agent_id="a3")))
    assert found == {scoped["shared"].id}


def test_management_calls_without_agent_see_all_of_the_users_entries(
    vault: Vault, scoped: dict[str, MemoryEntry]
) -> None:
    alice = {scoped[k].id for k in ("shared", "a1", "a2")}
    assert entry_ids(vault.list(user_id="alice")) == alice
    assert vault.count(user_id="alice") == 3
    assert {d["id"] for d in vault.export(user_id="alice")} == alice
    assert vault.get(scoped["a2"].id, user_id="alice") == scoped["a2"]
    assert vault.update(scoped["a2"].id, user_id="alice", name="renamed").name == "renamed"
    vault.delete(scoped["a1"].id, user_id="alice")
    assert vault.count(user_id="alice") == 2


def test_management_calls_with_agent_see_shared_and_own_entries(
    vault: Vault, scoped: dict[str, MemoryEntry]
) -> None:
    visible = {scoped["shared"].id, scoped["a1"].id}
    assert entry_ids(vault.list(user_id="alice", agent_id="a1")) == visible
    assert vault.count(user_id="alice", agent_id="a1") == 2
    assert {d["id"] for d in vault.export(user_id="alice", agent_id="a1")} == visible

    other = scoped["a2"].id
    with pytest.raises(NotFoundError):
        vault.get(other, user_id="alice", agent_id="a1")
    with pytest.raises(NotFoundError):
        vault.update(other, user_id="alice", agent_id="a1", content="hijacked")
    with pytest.raises(NotFoundError):
        vault.delete(other, user_id="alice", agent_id="a1")
    assert vault.delete_many([other], user_id="alice", agent_id="a1") == []
    assert vault.get(other, user_id="alice") == scoped["a2"]

    # An agent manages the user's shared entries too.
    shared = scoped["shared"].id
    assert vault.update(shared, user_id="alice", agent_id="a1", name="x").name == "x"


def test_add_with_agent_makes_a_private_entry(vault: Vault) -> None:
    e = vault.add("private note", user_id="alice", agent_id="a1")
    assert e.agent_id == "a1"
    assert vault.count(user_id="alice", agent_id="a2") == 0


def test_another_user_sees_none_of_alices_entries(
    vault: Vault, scoped: dict[str, MemoryEntry]
) -> None:
    assert hit_ids(vault.search("zebra", user_id="bob")) == [scoped["bob"].id]
    assert vault.list(user_id="bob") == [scoped["bob"]]
    for key in ("shared", "a1", "a2"):
        with pytest.raises(NotFoundError):
            vault.get(scoped[key].id, user_id="bob")
        with pytest.raises(NotFoundError):
            vault.update(scoped[key].id, user_id="bob", content="mine now")
        with pytest.raises(NotFoundError):
            vault.delete(scoped[key].id, user_id="bob")
    assert vault.count(user_id="alice") == 3


# -- add_many ----------------------------------------------------------------------


def test_add_many_stores_every_record(vault: Vault) -> None:
    added = vault.add_many(
        [{"content": "one"}, {"content": "two", "agent_id": "a1"}, {"content": "three"}],
        user_id="alice",
    )
    assert [e.content for e in added] == ["one", "two", "three"]
    assert added[1].agent_id == "a1"
    assert {e.user_id for e in added} == {"alice"}
    assert vault.count(user_id="alice") == 3


def test_add_many_is_all_or_nothing(vault: Vault) -> None:
    vault.add("existing", user_id="alice", id="taken")
    batches = [
        [{"content": "aardvark"}, {"content": "   "}, {"content": "bison"}],
        [{"content": "aardvark"}, {"content": "x", "importance": 7}, {"content": "bison"}],
        [{"content": "aardvark"}, {"content": "x", "colour": "red"}, {"content": "bison"}],
        [{"content": "aardvark"}, "not a mapping", {"content": "bison"}],
    ]
    for batch in batches:
        with pytest.raises(ValidationError):
            vault.add_many(batch, user_id="alice")  # type: ignore[arg-type]
    with pytest.raises(ConflictError):
        vault.add_many([{"content": "aardvark"}, {"content": "x", "id": "taken"}], user_id="alice")

    assert vault.count(user_id="alice") == 1
    assert vault.search("aardvark bison", user_id="alice") == []


def test_add_many_records_are_always_the_callers(vault: Vault) -> None:
    (e,) = vault.add_many([{"content": "sneaky", "user_id": "bob"}], user_id="alice")
    assert e.user_id == "alice"
    assert vault.count(user_id="bob") == 0


# -- export / import ---------------------------------------------------------------


def _populate(vault: Vault) -> None:
    vault.add("Prefers tea", user_id="alice", kind="user", metadata={"tags": ["drinks"]})
    vault.add(
        "公司的数据仓库用的是 ClickHouse",
        user_id="alice",
        agent_id="a1",
        kind="project",
        domain="work",
        name="warehouse",
        description="data platform",
        category="infra",
        confidence=0.8,
        importance=0.7,
        status="adopted",
        session_id="s1",
        workspace_id="w1",
        expires_at="2031-05-01T10:00:00+02:00",
        source="tool",
    )
    e = vault.add("Deploys on Fridays are banned", user_id="alice", kind="feedback")
    vault.update(e.id, user_id="alice", tier="archive")


def test_export_is_oldest_first_json_ready(vault: Vault) -> None:
    _populate(vault)
    exported = list(vault.export(user_id="alice"))
    assert [d["content"] for d in exported] == [
        "Prefers tea",
        "公司的数据仓库用的是 ClickHouse",
        "Deploys on Fridays are banned",
    ]
    assert json.loads(json.dumps(exported)) == exported


def test_export_then_import_into_a_fresh_vault_round_trips(
    vault: Vault, make_store: Callable[[], Store], config: VaultConfig
) -> None:
    _populate(vault)
    lines = [json.dumps(d, ensure_ascii=False) for d in vault.export(user_id="alice")]

    fresh = Vault(store=make_store(), config=config)
    imported = fresh.import_(lines, user_id="carol")

    assert len(imported) == 3
    original = list(vault.export(user_id="alice"))
    copied = list(fresh.export(user_id="carol"))
    assert copied == [{**d, "user_id": "carol"} for d in original]
    assert hit_ids(fresh.search("数据仓库", user_id="carol", agent_id="a1")) == [original[1]["id"]]
    assert fresh.count(user_id="alice") == 0


def test_import_into_another_user_of_the_same_vault_keeps_both_copies(vault: Vault) -> None:
    _populate(vault)
    vault.import_(vault.export(user_id="alice"), user_id="bob")

    alice = list(vault.export(user_id="alice"))
    bob = list(vault.export(user_id="bob"))
    assert bob == [{**d, "user_id": "bob"} for d in alice]
    some_id = alice[0]["id"]
    vault.delete(some_id, user_id="bob")
    assert vault.get(some_id, user_id="alice").content == "Prefers tea"


def test_import_skips_blank_lines_and_accepts_dicts(vault: Vault) -> None:
    lines = ["", json.dumps({"content": "from a line"}), "   ", {"content": "from a dict"}]
    imported = vault.import_(lines, user_id="alice")  # type: ignore[arg-type]
    assert [e.content for e in imported] == ["from a line", "from a dict"]


# -- lifecycle ---------------------------------------------------------------------


def test_health_reports_the_backend(vault: Vault) -> None:
    vault.add("x", user_id="alice")
    health = vault.health()
    assert health["entries"] == 1
    assert isinstance(health["backend"], str)


def test_a_closed_vault_raises_store_error(store: Store, config: VaultConfig) -> None:
    with Vault(store=store, config=config) as v:
        e = v.add("x", user_id="alice")
    with pytest.raises(StoreError):
        v.get(e.id, user_id="alice")


def test_vault_takes_a_path_or_a_store_not_both(
    store: Store, tmp_path: Path, config: VaultConfig
) -> None:
    with pytest.raises(ValidationError):
        Vault(tmp_path / "x.db", store=store, config=config)


def test_vault_on_a_path_keeps_entries_after_reopening(
    sqlite_vault: Vault, sqlite_path: Path, config: VaultConfig
) -> None:
    e = sqlite_vault.add("persisted", user_id="alice")
    sqlite_vault.close()
    assert sqlite_path.exists()
    with Vault(sqlite_path, config=config) as reopened:
        assert reopened.get(e.id, user_id="alice") == e


def test_search_leaves_out_expired_entries(vault: Vault) -> None:
    live = vault.add("zebra still valid", user_id="alice")
    expired = vault.add("zebra expired", user_id="alice", expires_at="2001-01-01T00:00:00Z")

    assert hit_ids(vault.search("zebra", user_id="alice")) == [live.id]
    # Management calls still show it, so it can be reviewed or deleted.
    assert vault.get(expired.id, user_id="alice") == expired
    assert vault.count(user_id="alice") == 2
