"""Retrieval levers as general engine features, on data of our own."""

from __future__ import annotations

from pathlib import Path

from memvault import Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.retrieval.fusion import Boosts, rrf
from memvault.text import query_terms


def vault(tmp_path: Path, embedder: object = None, **overrides: object) -> Vault:
    config = load_config(environ={}, home=tmp_path, **overrides)
    return Vault(tmp_path / "f.db", config=config, embedder=embedder)  # type: ignore[arg-type]


def test_question_words_are_dropped_from_queries_only() -> None:
    assert query_terms("What kind of music might she like?") == ["music", "like"]
    assert query_terms("kind words", skip=frozenset()) == ["kind", "word"]


def test_neighbouring_context_finds_an_entry_whose_own_text_lacks_the_word(
    tmp_path: Path,
) -> None:
    v = vault(tmp_path)
    v.add("Yes, I finally did it last weekend!", user_id="u", metadata={"context": "marathon"})
    v.add("The marathon route is on the website", user_id="u")
    hits = v.search("marathon", user_id="u")
    assert {h.entry.content for h in hits} == {
        "Yes, I finally did it last weekend!",
        "The marathon route is on the website",
    }
    # Context weighs less than the entry's own text.
    assert hits[0].entry.content == "The marathon route is on the website"
    v.close()


def test_head_metadata_makes_dates_searchable(tmp_path: Path) -> None:
    v = vault(tmp_path)
    v.add("We moved to the new office", user_id="u", metadata={"date": "7 May 2023"})
    v.add("Lunch was good", user_id="u", metadata={"date": "9 June 2023"})
    hits = v.search("May 2023", user_id="u")
    assert hits[0].entry.content == "We moved to the new office"
    v.close()


def test_naming_a_person_boosts_their_own_statements(tmp_path: Path) -> None:
    v = vault(tmp_path)
    v.add("I adopted a puppy last week", user_id="u", metadata={"speaker": "Ann"})
    v.add("My puppy chewed my shoes", user_id="u", metadata={"speaker": "Ben"})
    v.add("Ben said the puppy chewed his shoes", user_id="u", metadata={"speaker": "Cat"})
    assert v.search("Did Ann get a puppy?", user_id="u")[0].entry.metadata["speaker"] == "Ann"
    assert v.search("Tell me about Ben's puppy", user_id="u")[0].entry.metadata["speaker"] == "Ben"
    off = vault(tmp_path / "off", retrieval={"person_key": None})
    off.add("I adopted a puppy last week", user_id="u", metadata={"speaker": "Ann"})
    assert off.search("Did Ann get a puppy?", user_id="u")
    off.close()
    v.close()


def test_person_names_of_other_users_do_not_count(tmp_path: Path) -> None:
    v = vault(tmp_path)
    v.add("I like tea", user_id="alice", metadata={"speaker": "Zed"})
    v.add("Zed likes tea", user_id="bob", metadata={"speaker": "Yan"})
    assert [h.entry.user_id for h in v.search("does Zed like tea", user_id="bob")] == ["bob"]
    v.close()


def test_rrf_and_boosts() -> None:
    fused = rrf({"a": ["x", "y"], "b": ["y"]}, k=60, weights={"a": 1.0, "b": 0.5})
    assert fused["y"] > fused["x"]
    assert rrf({"a": ["x"]}, k=60, weights={"a": 0.0}) == {}


def test_boosts_reorder_near_ties_only(tmp_path: Path) -> None:
    v = vault(tmp_path)
    old = v.add("deploy notes for the api", user_id="u", importance=0.1)
    new = v.add("deploy notes for the api", user_id="u", importance=0.9)
    hits = v.search("deploy api", user_id="u")
    assert [h.entry.id for h in hits] == [new.id, old.id]
    factor = Boosts().factor(new, new.updated_at) / Boosts().factor(old, old.updated_at)
    assert 1.0 < factor < 1.1  # a nudge, not a swamp
    v.close()


def test_hybrid_beats_each_channel_on_own_data(tmp_path: Path) -> None:
    # Keyword alone misses paraphrases; vectors alone miss rare exact words.
    v = vault(tmp_path, embedder=HashingEmbedder())
    v.add("invoice INV-7731 was paid", user_id="u")
    v.add("payment for the invoice went through", user_id="u")
    v.flush()
    hits = v.search("was INV-7731 paid", user_id="u")
    assert hits[0].entry.content == "invoice INV-7731 was paid"
    assert set(hits[0].sources) >= {"keyword", "vector"}  # and graph: INV-7731 is a name
    v.close()
