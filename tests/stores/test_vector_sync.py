"""Catching up with vectors other processes wrote: the vector log, on SQLite and on
MariaDB.

Two store objects on one file (or database) stand for two processes (each has its
own connections, so the database sees them as separate writers).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memvault import MemoryEntry, Store, Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.retrieval.keyword import search_doc
from memvault.retrieval.vector import VectorIndex
from memvault.stores import open_store
from memvault.stores.mysql import vectors as mysql_vectors
from memvault.stores.sqlite import vectors as sqlite_vectors
from memvault.stores.values import SearchDoc, VectorItem, View
from tests.servers import mariadb

OWNER = View("alice", all_agents=True)


@pytest.fixture(params=["sqlite", "mariadb"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where the stores of one test live: an SQLite file, or a fresh MariaDB database."""
    if request.param == "sqlite":
        yield str(tmp_path / "shared.db")
        return
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    yield mariadb.fresh_database()
    mariadb.drop_created()


def vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    return v / np.linalg.norm(v)


def add(store: Store, entry_id: str, user: str = "alice", seed: int = 0) -> MemoryEntry:
    e = MemoryEntry(id=entry_id, user_id=user, content=f"text of {entry_id}")
    store.insert([(e, search_doc(e))])
    store.put_vectors(user, "m", [VectorItem(e.id, e.updated_at, vec(seed))])
    return e


def test_changes_name_new_replaced_and_dropped_vectors(location: str) -> None:
    store = open_store(location)
    kept = add(store, "kept", seed=1)
    add(store, "gone", seed=2)
    edited = add(store, "edited", seed=3)
    add(store, "bobs", user="bob", seed=4)
    mark = store.load_vectors("alice", "m").mark
    assert mark > 0

    add(store, "new", seed=5)
    store.put_vectors("alice", "m", [VectorItem(kept.id, kept.updated_at, vec(6))])
    store.delete(OWNER, ["gone"])

    def retext(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content="different words now")
        return new, search_doc(new)

    store.update(OWNER, edited.id, retext)  # drops the vector of the old text
    add(store, "bobs-2", user="bob", seed=7)

    changes = store.vector_changes("alice", "m", mark)
    assert changes is not None
    assert sorted(changes.vectors.ids) == ["kept", "new"]
    row = changes.vectors.ids.index("kept")
    assert np.allclose(changes.vectors.matrix[row], vec(6))
    assert sorted(changes.removed) == ["edited", "gone"]
    assert changes.mark > mark
    # Nothing happened after the new mark; bob's writes never show in alice's changes.
    again = store.vector_changes("alice", "m", changes.mark)
    assert again is not None and again.vectors.ids == [] and again.removed == []
    assert store.vector_changes("alice", "other-model", mark).vectors.ids == []  # type: ignore[union-attr]
    store.close()


def test_a_pruned_log_asks_for_a_reload(location: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_vectors, "_VECTOR_LOG_KEEP", 2)
    monkeypatch.setattr(mysql_vectors, "_VECTOR_LOG_KEEP", 2)
    store = open_store(location)
    add(store, "a", seed=1)
    mark = store.load_vectors("alice", "m").mark
    for i in range(5):
        add(store, f"later{i}", seed=10 + i)
    assert store.vector_changes("alice", "m", mark) is None
    recent = store.load_vectors("alice", "m").mark
    assert store.vector_changes("alice", "m", recent) is not None
    store.close()


def test_a_vault_catches_up_with_another_writers_changes(tmp_path: Path, location: str) -> None:
    config = load_config(environ={}, home=tmp_path)
    reader = Vault(store=open_store(location), config=config, embedder=HashingEmbedder())
    apples = reader.add("crisp apples from the orchard", user_id="u")
    plums = reader.add("ripe plums in a bowl", user_id="u")
    reader.flush()
    assert reader.search("orchard apples", user_id="u")[0].entry.id == apples.id  # cached

    writer = Vault(store=open_store(location), config=config, embedder=HashingEmbedder())
    pears = writer.add("juicy pears on the table", user_id="u")
    writer.update(apples.id, user_id="u", content="kiwis grow slowly")
    writer.delete(plums.id, user_id="u")
    writer.flush()
    writer.close()

    found = {h.entry.id: h.sources for h in reader.search("juicy pears", user_id="u")}
    assert "vector" in found.get(pears.id, {})
    # The old text's vector is gone with it, and the deleted entry never comes back.
    stale = {h.entry.id for h in reader.search("crisp apples orchard", user_id="u")}
    assert apples.id not in stale and plums.id not in stale
    kiwis = reader.search("kiwis grow slowly", user_id="u")
    assert kiwis[0].entry.id == apples.id and "vector" in kiwis[0].sources
    reader.close()


def test_the_index_drops_vectors_another_writer_removed(location: str) -> None:
    mine, theirs = open_store(location), open_store(location)
    add(mine, "stays", seed=1)
    add(mine, "retexted", seed=2)
    index = VectorIndex(mine, "m")
    assert [i for i, _ in index.search(OWNER, vec(2), 1)] == ["retexted"]

    def retext(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content="new words, no vector yet")
        return new, search_doc(new)

    theirs.update(OWNER, "retexted", retext)
    add(theirs, "fresh", seed=3)

    assert sorted(i for i, _ in index.search(OWNER, vec(2), 5)) == ["fresh", "stays"]
    assert [i for i, _ in index.search(OWNER, vec(3), 1)] == ["fresh"]
    mine.close()
    theirs.close()


def test_the_change_counter_moves_when_another_store_writes(location: str) -> None:
    mine, theirs = open_store(location), open_store(location)
    before = mine.change_counter()
    add(theirs, "theirs", seed=1)
    assert mine.change_counter() != before
    mine.close()
    theirs.close()


def test_a_removal_inside_a_transaction_never_waits_for_the_index(tmp_path: Path) -> None:
    """The deadlock this guards against: the embedding thread holds the index's lock and
    waits for the store's (``upsert`` reads the change counter), while a writer holds the
    store's lock in its transaction and asks the index to drop a changed entry."""
    import threading

    store = open_store(str(tmp_path / "lock.db"))
    index = VectorIndex(store, "m")
    index.search(View("alice"), np.ones(4, dtype=np.float32), 5)  # alice's cache is loaded
    done = threading.Event()
    try:
        with store.atomic():  # the writer's transaction: it holds the store's lock
            upserting = threading.Thread(
                target=lambda: index.upsert("alice", [("e1", None, np.ones(4, dtype=np.float32))])
            )
            upserting.start()
            # Until the upsert holds the index's lock (and waits for the store's).
            while index._lock.acquire(blocking=False):
                index._lock.release()
                if not upserting.is_alive():
                    break
            removing = threading.Thread(target=lambda: (index.remove("alice", ["e0"]), done.set()))
            removing.start()
            removing.join(30)
            assert done.is_set(), "remove waited for the index while the store was locked"
        upserting.join(30)
        assert not upserting.is_alive()
        assert [i for i, _ in index.search(View("alice"), np.ones(4, dtype=np.float32), 5)] == [
            "e1"
        ]
    finally:
        store.close()
