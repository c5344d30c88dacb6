"""The background embedder lets writes go first: it starts no model call while a write runs.

The model's threads take every core; a write running beside a batch got a share of them
only (``add_many`` stored at less than half its speed while the worker embedded). Shown
with the real hashing embedder, recording when each call starts, and the writer's real
mark (``Derived.writing``, which ``build`` and ``insert`` hold). A search waiting for its
vectors is not kept waiting by writes, and a steady stream of writes never stops the
embedding (``WRITE_YIELD_MAX``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memvault import Vault, load_config
from memvault.embed import HashingEmbedder, worker
from memvault.embed.base import Vectors


class RecordingEmbedder:
    """The real hashing embedder; records every call and says when one starts."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(dim=64)
        self.name, self.dim = self.inner.name, self.inner.dim
        self.calls: list[list[str]] = []
        self.called = threading.Event()

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        self.called.set()
        return self.inner.embed(texts)


@pytest.fixture
def model() -> RecordingEmbedder:
    return RecordingEmbedder()


@pytest.fixture
def vault(tmp_path: Path, model: RecordingEmbedder) -> Iterator[Vault]:
    config = load_config(environ={}, home=tmp_path / "home", embedding={"search_wait": 300.0})
    v = Vault(tmp_path / "y.db", config=config, embedder=model)
    assert v.flush(timeout=60)
    yield v
    v.close()


def test_no_model_call_starts_while_a_write_runs(vault: Vault, model: RecordingEmbedder) -> None:
    derived = vault._e.writer.derived
    with derived.writing():
        vault.add_many([{"content": f"note {i} about tulips"} for i in range(5)], user_id="a")
        # The entries are committed and queued; the worker waits for the write to end.
        assert not model.called.wait(timeout=0.5)
        assert model.calls == []
    assert vault.flush(timeout=60)
    assert sorted(t for call in model.calls for t in call) == [
        f"note {i} about tulips" for i in range(5)
    ]


def test_a_waiting_search_is_served_while_writes_run(
    vault: Vault, model: RecordingEmbedder
) -> None:
    derived = vault._e.writer.derived
    with derived.writing():
        added = vault.add("Alice's cat is called Miso", user_id="a")
        # The search waits for alice's vector: that comes before any write.
        hits = vault.search("Alice cat Miso", user_id="a", limit=1)
        assert model.calls, "the search's wait did not let the worker embed"
    assert [h.entry.id for h in hits] == [added.id]
    assert "vector" in hits[0].sources


def test_a_steady_stream_of_writes_does_not_stop_the_embedding(
    vault: Vault, model: RecordingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "WRITE_YIELD_MAX", 0.2)
    derived = vault._e.writer.derived
    with derived.writing():
        vault.add_many([{"content": "a note about tulips"}], user_id="a")
        # The write never ends here, yet the worker embeds once it has waited its most.
        assert vault.flush(timeout=60)
    assert model.calls == [["a note about tulips"]]


def test_a_large_batch_is_embedded_a_chunk_at_a_time_longest_first(
    vault: Vault, model: RecordingEmbedder
) -> None:
    texts = [f"note {i} " + "x" * i for i in range(worker.CHUNK + 5)]
    vault.add_many([{"content": t} for t in texts], user_id="a")
    assert vault.flush(timeout=60)
    assert [len(call) for call in model.calls] == [worker.CHUNK, 5]
    assert model.calls[0] == sorted(texts, key=len, reverse=True)[: worker.CHUNK]
    assert vault.store.load_vectors("a", model.name).ids
    assert len(vault.store.load_vectors("a", model.name).ids) == len(texts)


def test_a_batch_wakes_the_waiting_worker_once_not_at_every_entry(
    vault: Vault, model: RecordingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each wake-up of the worker's thread takes the GIL from the write: a batch of
    # records marks itself once, and only the end of the outermost mark wakes it.
    embedder = vault._e.writer.derived.worker
    assert embedder is not None
    wakes: list[int] = []
    notify = embedder._cond.notify_all
    monkeypatch.setattr(embedder._cond, "notify_all", lambda: (wakes.append(1), notify())[1])
    vault.add_many([{"content": f"note {i} about tulips"} for i in range(50)], user_id="a")
    assert 1 <= len(wakes) <= 3  # the end of the write, and the entries queued
    assert vault.flush(timeout=60)
    assert sorted(t for call in model.calls for t in call) == sorted(
        f"note {i} about tulips" for i in range(50)
    )
