"""The learned second stage: its weights file, its determinism, what it changes and what
``retrieval.rerank = false`` keeps as it was."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memvault import Vault, load_config
from memvault.embed.local import MODEL_NAME, LocalEmbedder
from memvault.errors import ConfigError, MemvaultError
from memvault.model import MemoryEntry
from memvault.retrieval.rerank import FEATURES, SHIPPED, coverage, load_model, parse_model, screen
from memvault.stores.bm25 import index_form
from memvault.text import query_terms, tokenize

# A small personal vault: most questions below paraphrase their answer (no shared
# word), one reuses its words.
NOTES = [
    "I adopted a golden retriever puppy and named him Max",
    "Worked from home all week because the office heating broke",
    "Last year the team budget was cut twice",
    "My sister is getting married in Lisbon in June",
    "The quarterly report is due on the 14th",
    "I switched to decaf after the doctor's advice about my heart",
    "Bought a second-hand road bike for weekend rides",
    "The vendor invoice number 8812 was paid late",
]


NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder()


def open_vault(path: Path, local: LocalEmbedder, **retrieval: object) -> Vault:
    config = load_config(
        environ={}, home=path.parent, embedding={"background": False}, retrieval=retrieval
    )
    # A clock that stands still: search and explain read the same recency.
    return Vault(path, config=config, embedder=local, clock=lambda: NOW)


@pytest.fixture
def db(tmp_path: Path, local: LocalEmbedder) -> Path:
    path = tmp_path / "r.db"
    with open_vault(path, local) as vault:
        vault.add_many([{"content": n} for n in NOTES], user_id="u")
        assert vault.flush(timeout=120)
    return path


@pytest.fixture
def reranked(db: Path, local: LocalEmbedder) -> Iterator[Vault]:
    with open_vault(db, local) as vault:
        yield vault


def weights_file(tmp_path: Path, **changes: object) -> Path:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data.update(changes)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- the weights file -------------------------------------------------------------------


def test_shipped_weights_load_and_name_no_embedder() -> None:
    model = load_model()
    assert MODEL_NAME in model.model and model.model.startswith("any")
    assert model.weights.shape == (len(FEATURES),)
    assert np.all(np.isfinite(model.weights))
    assert load_model() is model  # read once


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"format": "other"}, "format"),
        ({"version": 99}, "version"),
        ({"features": list(FEATURES)[:-1]}, "features"),
        ({"weights": [0.0] * (len(FEATURES) - 1)}, "weights"),
        ({"weights": ["x"] * len(FEATURES)}, "weights"),
        ({"weights": [float("nan")] * len(FEATURES)}, "finite"),
        ({"model": ""}, "model"),
    ],
)
def test_a_broken_weights_file_is_a_config_error(
    tmp_path: Path, change: dict[str, object], says: str
) -> None:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data.update(change)
    with pytest.raises(ConfigError, match=says) as info:
        parse_model(data, "w.json")
    assert isinstance(info.value, MemvaultError)
    assert "retrieval.rerank = false" in str(info.value)  # says what to do


def test_a_vault_with_an_unreadable_weights_file_does_not_open(
    tmp_path: Path, local: LocalEmbedder
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not JSON"):
        open_vault(tmp_path / "x.db", local, rerank_weights=str(bad))
    with pytest.raises(ConfigError, match="cannot read"):
        open_vault(tmp_path / "y.db", local, rerank_weights=str(tmp_path / "missing.json"))


def test_the_embedding_model_a_weights_file_names_does_not_matter(
    db: Path, tmp_path: Path, local: LocalEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    # The features name no embedder (cosines enter calibrated): the model field is a
    # note, and the same weights rank the same way whatever it says.
    other = weights_file(tmp_path, model="some-other-embedder")
    with (
        caplog.at_level(logging.WARNING, logger="memvault"),
        open_vault(db, local, rerank_weights=str(other)) as vault,
    ):
        ex = vault.explain("which pet did I bring home?", user_id="u", limit=5)
    assert ex.stage == "rerank" and ex.stage_note == ""
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    with open_vault(db, local) as shipped:
        same = shipped.explain("which pet did I bring home?", user_id="u", limit=5)
    assert [c.entry.id for c in ex.candidates] == [c.entry.id for c in same.candidates]


def test_keyword_only_vaults_keep_the_fused_order_silently(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    with (
        caplog.at_level(logging.WARNING, logger="memvault"),
        Vault(tmp_path / "k.db", config=config) as vault,
    ):
        vault.add("the quarterly report is due soon", user_id="u")
        ex = vault.explain("quarterly report", user_id="u")
    assert ex.stage == "fusion" and ex.candidates
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


# -- what the stage does ----------------------------------------------------------------


def test_explain_shows_the_stage_its_scores_and_features(reranked: Vault) -> None:
    ex = reranked.explain("which pet did I bring home?", user_id="u", limit=3)
    assert ex.stage == "rerank" and ex.stage_note == ""
    for c in ex.candidates:
        assert c.rerank is not None and 0.0 < c.rerank < 1.0
        boost = c.importance * c.recency * c.tier
        assert c.score == pytest.approx(c.rerank * boost / (1 - c.rerank + c.rerank * boost))
        assert c.features is not None and tuple(c.features) == FEATURES
        assert c.fusion_rank >= 1
    scores = [c.score for c in ex.candidates]
    assert scores == sorted(scores, reverse=True)
    assert sorted(c.fusion_rank for c in ex.candidates) == list(range(1, len(ex.candidates) + 1))
    text = ex.format()
    assert "rerank" in text and "fusion#" in text
    data = ex.to_dict()
    assert data["stage"] == "rerank"
    assert set(data["candidates"][0]["features"]) == set(FEATURES)
    # search returns what explain shows.
    hits = reranked.search("which pet did I bring home?", user_id="u", limit=3)
    assert [(h.entry.id, h.score) for h in hits] == [(h.entry.id, h.score) for h in ex.hits]


def test_scoring_is_deterministic(reranked: Vault) -> None:
    runs = [reranked.explain("what do I ride on weekends", user_id="u") for _ in range(3)]
    first = [(c.entry.id, c.score, c.features) for c in runs[0].candidates]
    for other in runs[1:]:
        assert [(c.entry.id, c.score, c.features) for c in other.candidates] == first


def test_rerank_false_reproduces_the_fused_order(db: Path, local: LocalEmbedder) -> None:
    queries = ["which pet did I bring home?", "vendor invoice 8812", "is coffee a problem"]
    with open_vault(db, local) as vault:
        fused_orders = {
            q: [
                c.entry.id
                for c in sorted(
                    vault.explain(q, user_id="u").candidates, key=lambda c: c.fusion_rank
                )
            ]
            for q in queries
        }
    with open_vault(db, local, rerank=False) as plain:
        for q in queries:
            ex = plain.explain(q, user_id="u")
            assert ex.stage == "fusion"
            assert [c.entry.id for c in ex.candidates] == fused_orders[q]
            for c in ex.candidates:
                assert c.rerank is None and c.features is None
                assert c.score == c.fused * (c.importance * c.recency * c.tier) * c.person


def test_the_confident_channel_leads(db: Path, local: LocalEmbedder) -> None:
    """A paraphrase shares only stray words with wrong entries: fusion follows the
    keyword channel to them; the reranker sees that keyword search found little of the
    question, and the vector channel's best match (the right one) leads. A question
    that reuses its answer's words keeps the keyword channel's best on top."""
    question = "which pet did I bring home last year?"
    with open_vault(db, local, rerank=False) as plain:
        fused = plain.explain(question, user_id="u")
    with open_vault(db, local) as vault:
        ex = vault.explain(question, user_id="u")
        exact = vault.explain("vendor invoice 8812 paid late", user_id="u")
    target = "I adopted a golden retriever puppy and named him Max"
    vector_best = min(
        (c for c in ex.candidates if "vector" in c.channels),
        key=lambda c: c.channels["vector"].rank,
    )
    assert vector_best.entry.content == target
    assert fused.candidates[0].entry.content != target  # fusion follows the stray words
    assert ex.candidates[0].entry.content == target
    assert exact.candidates[0].entry.content == "The vendor invoice number 8812 was paid late"


@pytest.mark.parametrize(
    "text",
    [
        "Studies show the group went camping by the lake",
        "GO to the café; it's well-known and good",
        "nothing in common here",
        "销售看板 will be ready on Monday",
    ],
)
def test_coverage_counts_the_terms_the_tokenizer_finds(text: str) -> None:
    """The prefix screen gives the share a full tokenization gives."""
    entry = MemoryEntry(id="e", user_id="u", content=text)
    for query in ["what did the study group do at the lake", "go cafe good", "看板 monday"]:
        terms = frozenset(index_form(t) for t in query_terms(query))
        found = {index_form(t) for t in tokenize(text)}
        assert coverage(entry, terms, screen(terms)) == len(terms & found) / len(terms)


def test_an_english_only_model_leaves_a_cjk_query_in_the_fused_order(
    db: Path, local: LocalEmbedder
) -> None:
    """MiniLM's cosines of Chinese text are no evidence, so with MiniLM chosen a CJK
    query keeps the fused order, and explain says why (the default embedder reads
    Chinese: there the stage runs, tests/embed/test_bilingual.py)."""
    with open_vault(db, local) as vault:
        vault.add("销售看板下周一上线", user_id="u")
        ex = vault.explain("看板什么时候上线", user_id="u")
    assert ex.stage == "fusion" and "does not read" in ex.stage_note
    assert [c.fusion_rank for c in ex.candidates] == list(range(1, len(ex.candidates) + 1))
    assert ex.candidates[0].entry.content == "销售看板下周一上线"


def test_an_embedder_without_a_calibration_keeps_the_fused_order_quietly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The hashing embedder's (or an API model's) cosines are on a scale the weights never
    # saw: its searches keep the fused order, and explain says why, without a warning.
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "hashing"})
    with (
        caplog.at_level(logging.INFO, logger="memvault"),
        Vault(tmp_path / "h.db", config=config) as vault,
    ):
        vault.add("my cat Miso sleeps on the sofa", user_id="u")
        vault.flush()
        ex = vault.explain("where does the cat sleep?", user_id="u")
    assert ex.stage == "fusion" and "no cosine calibration" in ex.stage_note
    assert ex.candidates[0].entry.content == "my cat Miso sleeps on the sofa"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
