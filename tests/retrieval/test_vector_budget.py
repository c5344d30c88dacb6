"""The in-process vector cache keeps to its memory budget (``embedding.cache_mb``):
the users searched least recently are dropped, and searched again from the store
with the same answers. On SQLite and MariaDB, whose vectors are searched here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memvault import MemoryEntry, Store
from memvault.retrieval.keyword import search_doc
from memvault.retrieval.vector import VectorIndex
from memvault.stores import open_store
from memvault.stores.values import VectorItem, View
from tests.servers import mariadb

DIM = 64


@pytest.fixture(params=["sqlite", "mariadb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        found = open_store(str(tmp_path / "v.db"))
    else:
        if not mariadb.available():
            pytest.fail(
                f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}"
            )
        found = open_store(mariadb.fresh_database())
    try:
        yield found
    finally:
        found.close()
        if request.param == "mariadb":
            mariadb.drop_created()


def _fill(store: Store, user: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((n, DIM)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    entries = [MemoryEntry(id=f"{user}{i}", user_id=user, content=f"text {i}") for i in range(n)]
    store.insert([(e, search_doc(e)) for e in entries])
    store.put_vectors(
        user, "m", [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, matrix, strict=True)]
    )
    return matrix


def test_the_cache_drops_the_least_recent_users_to_stay_in_budget(store: Store) -> None:
    users = {u: _fill(store, u, 100, seed) for seed, u in enumerate(("ann", "bob", "cat"))}
    roomy = VectorIndex(store, "m")
    one_user = 60_000  # one user here takes about 52 kB: room for one, not two
    tight = VectorIndex(store, "m", budget_bytes=one_user)
    answers: dict[str, list[tuple[str, float]]] = {}
    for user, matrix in users.items():
        answers[user] = roomy.search(View(user), matrix[7], 5)
        assert tight.search(View(user), matrix[7], 5) == answers[user]
        assert answers[user][0][0] == f"{user}7"
        assert 0 < tight.held_bytes <= one_user
    assert roomy.held_bytes > 2 * tight.held_bytes  # the roomy one kept all three
    for user, matrix in users.items():  # dropped users are read again, same answers
        assert tight.search(View(user), matrix[7], 5) == answers[user]


def test_one_user_larger_than_the_budget_is_still_searched(store: Store) -> None:
    matrix = _fill(store, "ann", 50, 1)
    index = VectorIndex(store, "m", budget_bytes=1)
    assert index.search(View("ann"), matrix[3], 1)[0][0] == "ann3"
    assert index.held_bytes > 1
