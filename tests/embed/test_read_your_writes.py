"""Read-your-writes: a search sees by meaning every entry added before it, without flush().

The background embedder writes vectors after ``add`` returns; each search waits, bounded
by ``embedding.search_wait``, for its user's pending vectors before ranking by meaning.
The semantic tests use the real local model; the bound and the order of the queue are
shown with the real hashing embedder, held inside a call until the test releases it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memvault import Vault, VaultConfig, load_config
from memvault.agent.providers.vault import VaultProvider
from memvault.embed import HashingEmbedder
from memvault.embed.base import Vectors
from memvault.embed.local import LocalEmbedder

# Memories and questions that share no keyword term: only the vector channel finds them.
PARAPHRASES = [
    ("Alice's cat is called Miso", "what pet does she have?"),
    ("Bob plays the cello in a community orchestra", "which musical instrument does he practise?"),
    ("The team ships releases every Friday afternoon", "when do we deploy new versions?"),
    ("Carol is allergic to peanuts", "what food must she avoid?"),
    ("Dave drives a red pickup truck", "what vehicle does he own?"),
    ("Erin moved to Lisbon last spring", "which city does she live in now?"),
    ("The database backups run nightly at 2 am", "how often is our data saved?"),
    ("Frank prefers tea over coffee in the morning", "what hot drink does he like?"),
    ("Grace is training for a marathon in October", "what race is she preparing for?"),
    ("The office wifi password changes every month", "how frequently is the network key rotated?"),
    ("Heidi speaks fluent Japanese", "which languages does she know?"),
    (
        "Ivan's daughter started kindergarten this year",
        "where does his little girl go during the day?",
    ),
]


def cfg(tmp_path: Path, **embedding: object) -> VaultConfig:
    return load_config(environ={}, home=tmp_path / "home", embedding=embedding)


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    model = LocalEmbedder()
    model.embed(["load the model once for the module"])
    return model


@pytest.fixture
def vault(tmp_path: Path, local: LocalEmbedder) -> Iterator[Vault]:
    # A generous bound: these tests are about what a search sees, not how long it waits.
    v = Vault(tmp_path / "r.db", config=cfg(tmp_path, search_wait=300.0), embedder=local)
    yield v
    v.close()


def test_a_paraphrase_finds_what_add_many_just_stored(vault: Vault) -> None:
    # Another user's bulk load is queued first; alice's memories come after it.
    vault.add_many(
        [{"content": f"build {i} of ticket {i} passed"} for i in range(300)], user_id="bob"
    )
    vault.add_many([{"content": content} for content, _ in PARAPHRASES], user_id="alice")
    # No flush(): the vectors are still being written when the first question comes.
    for content, question in PARAPHRASES:
        why = vault.explain(question, user_id="alice", limit=3)
        top = why.candidates[0]
        assert top.entry.content == content, (question, why.format())
        assert "keyword" not in top.channels  # no shared term: meaning alone found it
        assert top.channels["vector"].rank == 1


def test_every_read_path_sees_the_entry_added_just_before(vault: Vault, tmp_path: Path) -> None:
    vault.add_many([{"content": content} for content, _ in PARAPHRASES[:6]], user_id="alice")
    provider = VaultProvider(vault)
    provider.initialize(user_id="alice", thread_id="t1", base_dir=str(tmp_path / "agent"))
    for content, question in PARAPHRASES[6:]:
        added = vault.add(content, user_id="alice")
        assert vault.search(question, user_id="alice", limit=1)[0].entry.id == added.id
        assert content in vault.context(question, user_id="alice")
        assert content in provider.prefetch(question)
        assert vault.explain(question, user_id="alice").candidates[0].channels["vector"].rank == 1


def test_an_updated_text_is_searched_by_its_new_meaning(vault: Vault) -> None:
    entry = vault.add("Dave drives a red pickup truck", user_id="dave")
    vault.update(entry.id, user_id="dave", content="Dave's dog is a black labrador")
    hits = vault.search("what pet does he have?", user_id="dave", limit=1)
    assert [h.entry.id for h in hits] == [entry.id]
    assert "vector" in hits[0].sources


class HeldEmbedder:
    """The real hashing embedder; a call that embeds a text containing ``hold`` waits
    inside the model until the test releases it. Records every call."""

    def __init__(self, hold: str = "slow") -> None:
        self.inner = HashingEmbedder(dim=64)
        self.name, self.dim = self.inner.name, self.inner.dim
        self.hold = hold
        self.holding = threading.Event()  # a held call is waiting
        self.release = threading.Event()
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        if any(self.hold in t for t in texts):
            self.holding.set()
            assert self.release.wait(timeout=120), "never released"
        return self.inner.embed(texts)


def test_a_search_waits_no_longer_than_the_bound(tmp_path: Path) -> None:
    model = HeldEmbedder()
    v = Vault(tmp_path / "b.db", config=cfg(tmp_path, search_wait=0.05), embedder=model)
    try:
        v.add("slow backlog entry about tulips", user_id="alice")
        assert model.holding.wait(timeout=60)
        # The model is busy with the entry: the search goes on without its vector ...
        why = v.explain("tulips", user_id="alice")
        assert not model.release.is_set()
        assert [set(c.channels) for c in why.candidates] == [{"keyword"}]  # ... found by keyword
        model.release.set()
        assert v.flush(timeout=60)
        why = v.explain("tulips", user_id="alice")
        assert set(why.candidates[0].channels) == {"keyword", "vector"}
    finally:
        model.release.set()
        v.close()


def test_a_backlog_given_up_on_is_not_waited_for_again(tmp_path: Path) -> None:
    model = HeldEmbedder()
    v = Vault(tmp_path / "g.db", config=cfg(tmp_path, search_wait=0.05), embedder=model)
    try:
        v.add("slow backlog entry about tulips", user_id="alice")
        assert model.holding.wait(timeout=60)
        v.search("tulips", user_id="alice")  # runs out of its bound: the backlog is given up
        worker = v._derived.worker
        assert worker is not None
        done: list[bool] = []
        # Even a long wait returns at once now, with the model still held.
        waiter = threading.Thread(target=lambda: done.append(worker.wait_for("alice", 600)))
        waiter.start()
        waiter.join(timeout=60)
        assert done == [True]
        assert not model.release.is_set()
    finally:
        model.release.set()
        v.close()


def test_the_user_a_search_waits_for_is_embedded_first(tmp_path: Path) -> None:
    model = HeldEmbedder()
    config = cfg(tmp_path, search_wait=300.0, batch_size=2)
    v = Vault(tmp_path / "p.db", config=config, embedder=model)
    try:
        v.add_many([{"content": f"slow bulk note {i}"} for i in range(6)], user_id="bob")
        assert model.holding.wait(timeout=60)  # bob's first batch holds the model
        v.add("Alice grows tulips on her balcony", user_id="alice")
        found: list[set[str]] = []
        search = threading.Thread(
            target=lambda: found.append(set(v.search("tulips", user_id="alice")[0].sources))
        )
        search.start()
        # Release the model once the search is waiting for alice's vector.
        while search.is_alive() and "alice" not in v._derived.worker._waiters:  # type: ignore[union-attr]
            search.join(timeout=0.01)
        model.release.set()
        search.join(timeout=120)
        assert found == [{"keyword", "vector"}]
        entry_calls = [c for c in model.calls if c != ["tulips"]]
        # After the batch that held the model: alice's entry alone, then bob's other notes.
        assert entry_calls[1] == ["Alice grows tulips on her balcony"]
        assert v.flush(timeout=60)
        # Read the calls again: bob's last batch may still have been running above.
        assert sorted(t for c in model.calls for t in c if "bulk" in t) == [
            f"slow bulk note {i}" for i in range(6)
        ]
    finally:
        model.release.set()
        v.close()


def test_an_entry_the_back_fill_embeds_is_not_embedded_again_from_the_queue(
    tmp_path: Path,
) -> None:
    """A write that commits while the opening back-fill reads the store is both back-filled
    and queued; the queued copy of the same version is then skipped, not embedded twice."""
    path = tmp_path / "q.db"
    with Vault(path, config=cfg(tmp_path, provider="none")) as plain:
        for i in range(2):
            plain.add(f"slow note {i}", user_id="bob")
    model = HeldEmbedder()
    v = Vault(path, config=cfg(tmp_path, batch_size=2), embedder=model)
    try:
        assert model.holding.wait(timeout=60)  # the back-fill holds both notes
        # The write path's own submit of the same versions, as after a racing commit.
        v._derived.worker.submit(v.list(user_id="bob"))  # type: ignore[union-attr]
        model.release.set()
        assert v.flush(timeout=60)
        assert sorted(t for c in model.calls for t in c) == ["slow note 0", "slow note 1"]
        assert {h.entry.content for h in v.search("slow note", user_id="bob")} == {
            "slow note 0",
            "slow note 1",
        }
    finally:
        model.release.set()
        v.close()
