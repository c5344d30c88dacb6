"""The vector cache keeps only the columns a user's vectors use: with the default
bilingual embedder, a user whose memories are all of one language holds (and a search
reads) one model's half. The answers are those of the whole product, before and after
a vector of the other half arrives, from the process's own writes and from the store."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memvault import MemoryEntry
from memvault.retrieval.keyword import search_doc
from memvault.retrieval.vector import VectorIndex
from memvault.stores import open_store
from memvault.stores.protocols import Store
from memvault.stores.values import VectorItem, View

HALF = 24
DIM = 2 * HALF + 2  # one part per model, then a flag per model (as embed.bilingual)


def _vectors(n: int, part: int, seed: int) -> np.ndarray:
    """``n`` unit vectors that use only model ``part``'s numbers and flag."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, DIM), dtype=np.float32)
    out[:, part * HALF : (part + 1) * HALF] = rng.standard_normal((n, HALF))
    out[:, 2 * HALF + part] = 1.0
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def _store(store: Store, user: str, prefix: str, matrix: np.ndarray) -> list[str]:
    entries = [
        MemoryEntry(id=f"{prefix}{i}", user_id=user, content=f"{prefix} {i}")
        for i in range(len(matrix))
    ]
    store.insert([(e, search_doc(e)) for e in entries])
    store.put_vectors(
        user, "m", [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, matrix, strict=True)]
    )
    return [e.id for e in entries]


def _expected(ids: list[str], matrix: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    sims = matrix.astype(np.float64) @ query.astype(np.float64)
    return [ids[i] for i in np.argsort(-sims, kind="stable")[:k]]


def test_one_language_holds_half_and_a_second_widens_with_the_same_answers(
    tmp_path: Path,
) -> None:
    store = open_store(str(tmp_path / "v.db"))
    try:
        english = _vectors(40, 0, seed=1)
        ids = _store(store, "ann", "en", english)
        index = VectorIndex(store, "m")
        query = np.random.default_rng(9).standard_normal(DIM).astype(np.float32)
        view = View("ann")

        found = index.search(view, query, 5)
        assert [i for i, _ in found] == _expected(ids, english, query, 5)
        held = index._users["ann"]
        assert held.cols.size == HALF + 1  # the English half and its flag, no more
        assert held.matrix.shape[1] == HALF + 1
        for entry_id, score in found:
            full = float(english[ids.index(entry_id)] @ query)
            assert abs(score - full) < 1e-5

        # A Chinese memory arrives (this process wrote it): the other half is kept too.
        chinese = _vectors(10, 1, seed=2)
        more = _store(store, "ann", "zh", chinese)
        index.upsert("ann", [(i, None, v) for i, v in zip(more, chinese, strict=True)])
        assert index._users["ann"].cols.size == DIM
        both = np.vstack([english, chinese])
        every = ids + more
        found = index.search(view, query, 8)
        assert [i for i, _ in found] == _expected(every, both, query, 8)
        sims = index.similarity(view, query, [every[0], every[-1]])
        assert abs(sims[every[-1]] - float(chinese[-1] @ query)) < 1e-5
        assert abs(sims[every[0]] - float(english[0] @ query)) < 1e-5

        # Loaded afresh from the store (another process's view): the same answers.
        fresh = VectorIndex(store, "m")
        assert [i for i, _ in fresh.search(view, query, 8)] == [i for i, _ in found]
    finally:
        store.close()


def test_a_chinese_only_user_from_an_empty_cache_keeps_the_other_half(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "v.db"))
    try:
        store.insert(
            [
                (
                    MemoryEntry(id="x", user_id="bo", content="x"),
                    search_doc(MemoryEntry(id="x", user_id="bo", content="x")),
                )
            ]
        )
        index = VectorIndex(store, "m")
        view = View("bo")
        query = np.random.default_rng(3).standard_normal(DIM).astype(np.float32)
        assert index.search(view, query, 3) == []  # no vectors yet: loads an empty user
        chinese = _vectors(12, 1, seed=4)
        ids = _store(store, "bo", "zh", chinese)
        index.upsert("bo", [(i, None, v) for i, v in zip(ids, chinese, strict=True)])
        held = index._users["bo"]
        assert held.cols.tolist() == [*range(HALF, 2 * HALF), 2 * HALF + 1]
        assert [i for i, _ in index.search(view, query, 4)] == _expected(ids, chinese, query, 4)
    finally:
        store.close()
