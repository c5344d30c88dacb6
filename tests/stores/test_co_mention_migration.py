"""The schema step that folds an older vault's co-mention rows into places on the links
(SQLite 20, PostgreSQL 16, MySQL / MariaDB 11), run by opening the store: the vault
reads back what it did before, and the rows the places imply are gone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from memvault import Store
from memvault.stores import open_store
from memvault.stores.graph_values import Mention, RelationMention
from memvault.stores.sql.graph import SQLGraph
from memvault.stores.values import View
from tests.servers import mariadb

from .conformance.support import entry, put

# The version of each backend's step.
STEPS = {"sqlite": 20, "postgres": 16, "mariadb": 11}


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("mariadb", marks=pytest.mark.mariadb),
    ]
)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        yield "sqlite", "sqlite://" + quote(str(tmp_path / "v.db"))
    elif request.param == "postgres":
        from tests.servers.postgres import postgres_database

        yield "postgres", postgres_database()
    else:
        if not mariadb.available():
            pytest.fail(f"no MariaDB: make test installs mariadb-server, or set {mariadb.ENV}")
        yield "mariadb", mariadb.fresh_database()
        mariadb.drop_created()


def _co(*keys: str) -> list[RelationMention]:
    return [RelationMention(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]


def _reads(store: Store) -> tuple[object, ...]:
    assert isinstance(store, SQLGraph)
    out: list[object] = []
    for user in ("alice", "bob"):
        view = View(user, all_agents=True)
        ids = sorted(e.id for e in store.entities(view, limit=100))
        out += [store.entry_links(user, ["e1", "e2"]), store.entity_relations(view, ids)]
        out.append(store.entity_relations(View(user), ids))  # the shared entries only
    return tuple(out)


def test_opening_an_older_vault_folds_its_co_mention_rows(url: tuple[str, str]) -> None:
    backend, address = url
    store = open_store(address)
    assert isinstance(store, SQLGraph)
    put(
        store,
        entry("e1", "one"),
        entry("e2", "two", agent_id="a1"),
        entry("e1", "b", user="bob"),
    )
    said = [*_co("ann", "bo", "cy", "di"), RelationMention("di", "ann", "pays")]
    mentions = [Mention(k, k.title()) for k in ("ann", "bo", "cy", "di", "ed")]
    store.link_entities("alice", "e1", mentions, said)
    store.link_entities("alice", "e2", mentions[2:4], _co("cy", "di"))
    store.link_entities("bob", "e1", mentions[:3], _co("bo", "ann", "cy"))
    before = _reads(store)
    version = STEPS[backend]
    mk = store.dialect.mark
    with store._writing("making the vault an older memvault's") as conn:
        rows = [
            (user, *r)
            for user in ("alice", "bob")
            for r in store.entry_links(user, ["e1", "e2"])[1]
            if r[3] == "mentioned_with"
        ]
        assert len(rows) == 6 + 1 + 3
        conn.run("DELETE FROM graph_relations WHERE rel_type = 'mentioned_with'")
        conn.many(
            "INSERT INTO graph_relations (user_id, entry_id, source_id, target_id, rel_type) "
            f"VALUES ({mk}, {mk}, {mk}, {mk}, {mk})",
            rows,
        )
        for column in ("co_first", "co_last"):
            conn.run(f"ALTER TABLE graph_links DROP COLUMN {column}")
        conn.run(f"DELETE FROM memvault_migrations WHERE version = {version}")
    store.close()

    store = open_store(address)
    try:
        assert getattr(store, "applied_migrations", None) == [version]
        assert _reads(store) == before
        with store._writing("reading what is stored") as conn:  # type: ignore[attr-defined]
            left = conn.rows("SELECT rel_type FROM graph_relations ORDER BY rel_type")
            placed = conn.rows("SELECT count(*) FROM graph_links WHERE co_first IS NOT NULL")
        assert [r[0] for r in left] == ["pays"]  # every co-mention is a place now
        assert int(placed[0][0]) == 4 + 2 + 3
    finally:
        store.close()
