"""Concurrent searches share embedding calls (embed/batching.py)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from memvault import EmbeddingError
from memvault.embed import HashingEmbedder
from memvault.embed.base import Vectors
from memvault.embed.batching import QueryBatcher
from tests.waiting import until


class GatedEmbedder:
    """A real hashing embedder whose first call waits until released, recording batches."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.inner = HashingEmbedder(dim=32)
        self.name, self.dim = self.inner.name, self.inner.dim
        self.release = threading.Event()
        self.started = threading.Event()
        self.batches: list[list[str]] = []
        self.fail_on = fail_on

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.batches.append(list(texts))
        self.started.set()
        if len(self.batches) == 1:
            assert self.release.wait(timeout=30), "never released"
        if self.fail_on is not None and self.fail_on in texts:
            raise EmbeddingError("the model is unavailable: try again")
        return self.inner.embed(texts)


def run_concurrently(batcher: QueryBatcher, texts: list[str]) -> dict[str, object]:
    """Start one thread per text; the first holds the model until the rest are queued."""
    results: dict[str, object] = {}

    def call(text: str) -> None:
        try:
            results[text] = batcher.embed(text)
        except Exception as exc:  # the test inspects it
            results[text] = exc

    first = threading.Thread(target=call, args=(texts[0],))
    first.start()
    batcher.embedder.started.wait(timeout=30)  # type: ignore[attr-defined]
    others = [threading.Thread(target=call, args=(t,)) for t in texts[1:]]
    for t in others:
        t.start()
    until(lambda: batcher.waiting() >= len(others), timeout=30)
    batcher.embedder.release.set()  # type: ignore[attr-defined]
    for t in [first, *others]:
        t.join(timeout=30)
    return results


def test_queries_arriving_during_a_call_are_embedded_together() -> None:
    embedder = GatedEmbedder()
    batcher = QueryBatcher(embedder)
    texts = [f"query number {i}" for i in range(9)]

    results = run_concurrently(batcher, texts)

    assert embedder.batches[0] == [texts[0]]
    assert sorted(embedder.batches[1]) == sorted(texts[1:])  # one call for the eight
    assert batcher.calls == 2 and batcher.waiting() == 0
    for text in texts:
        np.testing.assert_allclose(results[text], embedder.inner.embed([text])[0])


def test_batches_are_capped_and_the_lead_passes_on() -> None:
    embedder = GatedEmbedder()
    batcher = QueryBatcher(embedder, max_batch=3)
    texts = [f"query {i}" for i in range(8)]

    results = run_concurrently(batcher, texts)

    assert [len(b) for b in embedder.batches] == [1, 3, 3, 1]
    assert all(isinstance(results[t], np.ndarray) for t in texts)
    # After the rush the model is idle again: the next query runs at once, alone.
    batcher.embed("later")
    assert embedder.batches[-1] == ["later"]


def test_a_failed_call_fails_each_of_its_callers_and_no_other() -> None:
    embedder = GatedEmbedder(fail_on="poison")
    batcher = QueryBatcher(embedder)
    texts = ["first", "poison", "second"]

    results = run_concurrently(batcher, texts)

    assert isinstance(results["first"], np.ndarray)  # its call was before the failure
    assert isinstance(results["poison"], EmbeddingError)
    assert isinstance(results["second"], EmbeddingError)  # shared the failing call
    np.testing.assert_allclose(batcher.embed("second"), embedder.inner.embed(["second"])[0])


def test_max_batch_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        QueryBatcher(HashingEmbedder(), max_batch=0)
