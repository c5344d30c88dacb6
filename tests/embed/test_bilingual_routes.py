"""A query is embedded only by the models whose vectors it will meet: an English-only
vault's searches skip e5 (about 20 ms of CPU each) with exactly the same scores.
Real models, real SQLite files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memvault import Vault, load_config
from memvault.embed.base import RoutedEmbedder, embed_queries
from memvault.embed.batching import QueryBatcher
from memvault.embed.bilingual import DIM, ROUTES, BilingualEmbedder
from memvault.embed.guard import RoutedGuarded, guarded

ENGLISH = ["Alice writes her backend services in Go", "Bob deploys on Fridays"]
CHINESE = ["我对花生过敏，吃了会起疹子", "下周三我要去上海出差三天"]
MINILM = frozenset({"minilm"})
E5 = frozenset({"e5"})


@pytest.fixture(scope="module")
def bilingual() -> BilingualEmbedder:
    return BilingualEmbedder()


def _e5_ran(embedder: BilingualEmbedder, query: str) -> bool:
    """Whether e5 embedded ``query`` last (its own query cache holds one text)."""
    return embedder.e5._queries.get(query) is not None


def test_the_routes_of_stored_vectors_are_read_from_their_flags(
    bilingual: BilingualEmbedder,
) -> None:
    english, chinese = bilingual.embed(ENGLISH), bilingual.embed(CHINESE)
    assert bilingual.routes_of(english) == MINILM
    assert bilingual.routes_of(chinese) == E5
    assert bilingual.routes_of(np.vstack([english, chinese])) == ROUTES
    assert bilingual.routes_of(np.zeros((0, DIM), dtype=np.float32)) == frozenset()
    # Vectors of another shape: never fewer routes than were used.
    assert bilingual.routes_of(np.ones((2, 384), dtype=np.float32)) == ROUTES


def test_an_english_query_for_minilm_vectors_scores_them_exactly_as_a_full_one(
    bilingual: BilingualEmbedder,
) -> None:
    query = "who ships code at the end of the week"
    stored = bilingual.embed(ENGLISH)
    full = BilingualEmbedder().embed_queries([query])[0]
    fresh = BilingualEmbedder()
    part = fresh.embed_queries([query], MINILM)[0]
    assert not _e5_ran(fresh, query)
    assert np.array_equal(stored @ part, stored @ full)  # bit for bit, not approximately
    assert not np.array_equal(part, full)  # e5's half was left out
    # With e5 vectors to meet, or no routes given, e5 runs.
    assert np.array_equal(fresh.embed_queries([query], ROUTES)[0], full)
    assert _e5_ran(fresh, query)


@pytest.mark.parametrize("among", [MINILM, frozenset()])
def test_a_query_in_another_language_keeps_its_own_half(
    bilingual: BilingualEmbedder, among: frozenset[str]
) -> None:
    """The relevance gate compares a query with its bank of everyday requests in both
    languages: a Chinese query is embedded by e5 whatever the user's vectors are."""
    query = "谁在周五发布代码"
    full = BilingualEmbedder().embed_queries([query])[0]
    fresh = BilingualEmbedder()
    assert np.array_equal(fresh.embed_queries([query], among)[0], full)
    assert _e5_ran(fresh, query)


def test_the_cache_keeps_a_full_vector_for_every_request_and_a_part_for_its_own(
    bilingual: BilingualEmbedder,
) -> None:
    fresh = BilingualEmbedder()
    query = "which language are the services written in"
    part = fresh.embed_queries([query], MINILM)[0]
    full = fresh.embed_queries([query])[0]
    assert _e5_ran(fresh, query)  # the part did not stand in for the full vector
    assert not np.array_equal(part, full)
    # The full vector, cached, answers a request for a part (the same scores there).
    assert np.array_equal(fresh.embed_queries([query], MINILM)[0], full)


def test_the_guard_and_the_batcher_pass_the_routes_on(bilingual: BilingualEmbedder) -> None:
    wrapped = guarded(BilingualEmbedder())
    assert isinstance(wrapped, RoutedGuarded) and isinstance(wrapped, RoutedEmbedder)
    inner = wrapped.inner
    assert isinstance(inner, BilingualEmbedder)
    query = "when is the trip to Shanghai"
    embed_queries(wrapped, [query], MINILM)
    assert not _e5_ran(inner, query)
    batcher = QueryBatcher(wrapped)
    other = "what is Alice allergic to"
    assert np.array_equal(batcher.embed(other, MINILM), inner.embed_queries([other], MINILM)[0])
    assert not _e5_ran(inner, other)
    assert np.array_equal(batcher.embed(other), inner.embed_queries([other])[0])
    assert _e5_ran(inner, other)


def _vault(tmp_path: Path, *, background: bool) -> Vault:
    config = load_config(environ={}, home=tmp_path, embedding={"background": background})
    return Vault(tmp_path / "v.db", config=config)


def test_an_english_vault_searches_without_e5_until_it_holds_other_text(tmp_path: Path) -> None:
    with _vault(tmp_path, background=False) as vault:
        embedder = vault.embedder
        assert isinstance(embedder, BilingualEmbedder)
        for text in ENGLISH:
            vault.add(text, user_id="u")
        vault.add(CHINESE[0], user_id="other")  # another user's text changes nothing here
        query = "which programming language does she use"
        assert vault.search(query, user_id="u", limit=1)[0].entry.content == ENGLISH[0]
        assert not _e5_ran(embedder, query)

        vault.add(CHINESE[0], user_id="u")
        again = "what does Alice write her services in"
        assert vault.search(again, user_id="u", limit=1)[0].entry.content == ENGLISH[0]
        assert _e5_ran(embedder, again)
        # The other user's search, in their Chinese-only memories, needs no MiniLM half
        # and still finds its memory by meaning.
        assert (
            vault.search("我不能吃哪种坚果？", user_id="other", limit=1)[0].entry.content
            == (CHINESE[0])
        )


def test_a_route_that_arrives_while_the_query_embeds_is_searched_too(tmp_path: Path) -> None:
    """Written and searched at once: the Chinese memory's vector is stored by the
    background worker either before the query's routes are read or while the search
    waits for the user's own writes; either way the query is embedded for it."""
    with _vault(tmp_path, background=True) as vault:
        embedder = vault.embedder
        assert isinstance(embedder, BilingualEmbedder)
        for text in ENGLISH:
            vault.add(text, user_id="u")
        assert vault.flush(timeout=60)
        vault.search("warm the user's vectors", user_id="u")
        vault.add(CHINESE[0], user_id="u")
        query = "is she allergic to peanuts"
        vault.search(query, user_id="u", limit=3)
        assert _e5_ran(embedder, query)


def test_a_search_asks_the_store_about_other_processes_once(tmp_path: Path) -> None:
    """Each look is a round trip on a server store; the vector index looks once per
    search (it looked up to three times: routes, search and the second stage's cosines)."""
    import sys

    with _vault(tmp_path, background=False) as vault:
        for text in [*ENGLISH, CHINESE[0]]:
            vault.add(text, user_id="u")
        store = vault.store
        looks: list[str] = []
        counter = store.change_counter

        def counted() -> int:
            looks.append(sys._getframe(1).f_globals["__name__"])
            return counter()

        store.change_counter = counted  # type: ignore[method-assign]
        vault.search("what does Alice write", user_id="u")
        assert looks.count("memvault.retrieval.vector") == 1, looks
