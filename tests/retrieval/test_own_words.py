"""The second stage's coverage with each entry's words kept between searches
(``rerank.OwnWords``): the same terms as reading the text each time, never the words
of an entry's old text after an update, kept apart per user, and bounded."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memvault import Vault, load_config
from memvault.embed.local import LocalEmbedder
from memvault.model import MemoryEntry
from memvault.retrieval.rerank import OwnWords, covered, screen, word_starts
from memvault.stores.bm25 import index_form
from memvault.text import query_terms

T0 = datetime(2026, 3, 1, tzinfo=UTC)

TEXTS = [
    "I adopted a golden retriever puppy and named him Max",
    "def parse_config(path):\n    with open(path) as f:\n        return json.load(f)  # configs",
    "Un café à Lisbonne, naïve élan, Ångström and the über-cool Zürich trip",
    "销售看板下周上线，Kafka 集群扩容",
    "The runners were running; she runs, ran, and will run again. Re-running it: rerun.",
    "ｆｕｌｌｗｉｄｔｈ letters and ﬁne ligatures, O'Neil's don't-stop attitude",
    "",
]

QUERIES = [
    "who adopted a puppy",
    "how do I parse the config file with json",
    "cafe in Lisbon, elan and angstrom, uber zurich",
    "销售看板 Kafka 扩容",
    "running runner runs",
    "fullwidth fine ligature oneil dont stop",
    "x",
]


def entry(text: str, *, entry_id: str = "e1", user: str = "u") -> MemoryEntry:
    return MemoryEntry(id=entry_id, user_id=user, content=text, created_at=T0, updated_at=T0)


def terms_of(query: str) -> frozenset[str]:
    return frozenset(index_form(t) for t in query_terms(query, 64))


def test_kept_words_cover_the_same_terms_as_the_text() -> None:
    own = OwnWords()
    for _ in range(2):  # read, then kept
        for i, text in enumerate(TEXTS):
            e = entry(text or "-", entry_id=f"e{i}", user="u")
            for query in QUERIES + TEXTS:
                terms = terms_of(query)
                starts = word_starts(terms)
                assert starts is not None
                assert own.covered(e, terms, starts) == covered(e, terms, screen(terms)), (
                    text,
                    query,
                )
    assert len(own) == len(TEXTS)


def test_an_updated_text_is_never_answered_from_the_old_words() -> None:
    own = OwnWords()
    terms = terms_of("golden retriever")
    starts = word_starts(terms)
    assert starts is not None
    before = entry("my golden retriever")
    assert own.covered(before, terms, starts) == terms
    # Same user, id and update time (a clock that stands still): only the text changed.
    after = replace(before, content="my tabby cat")
    assert own.covered(after, terms, starts) == set()
    assert own.covered(replace(before, name="golden", content="cat"), terms, starts) == {"golden"}


def test_words_are_kept_per_user_and_bounded() -> None:
    own = OwnWords(maxsize=3)
    terms = terms_of("golden")
    starts = word_starts(terms)
    assert starts is not None
    assert own.covered(entry("golden", user="a"), terms, starts) == terms
    assert own.covered(entry("golden", user="b"), terms, starts) == terms
    assert len(own) == 2  # the same id and text of two users: two items, never shared
    for i in range(5):
        own.covered(entry("golden hour", entry_id=f"x{i}"), terms, starts)
    assert len(own) == 3


def test_a_search_after_an_update_reads_the_new_text(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path, embedding={"background": False})
    with Vault(tmp_path / "v.db", config=config, embedder=LocalEmbedder()) as vault:
        ids = vault.add_many(
            [
                {"content": "The quokka photos from Rottnest island"},
                {"content": "Lunch with Sam at the harbour"},
                {"content": "A quokka lives on Rottnest"},
            ],
            user_id="u",
        )
        target = ids[0] if isinstance(ids[0], str) else ids[0].id

        def cover() -> float:
            ex = vault.explain("quokka photos Rottnest", user_id="u")
            assert ex.stage == "rerank"
            found = {c.entry.id: c for c in ex.candidates}
            features = found[target].features
            assert features is not None
            return features["cover"]

        assert cover() == pytest.approx(1.0)
        vault.update(target, user_id="u", content="Quokka pictures, taken on the island")
        assert cover() == pytest.approx(1 / 3)
