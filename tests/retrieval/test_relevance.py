"""``Vault.context``'s relevance gate (``retrieval.relevance``) with the real local model.

A paraphrase of a stored memory goes into the prompt; a question about something else
puts nothing there, even when it shares a word with a memory. The rows come from the
paraphrase bench's own set (``bench/data/paraphrase``), a handful, not the whole bench.
Vectors are waited for with ``flush()``: what is tested here is the gate, not how soon a
vector is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault import ConfigError, Vault, load_config
from memvault.config import ContextConfig
from memvault.embed import multilingual
from memvault.embed.bilingual import BilingualEmbedder, route
from memvault.embed.local import LocalEmbedder
from memvault.results.recall import CALIBRATIONS
from memvault.retrieval.relevance import BACKGROUND, calibration, reads, shipped

DATA = Path(__file__).parents[2] / "bench" / "data" / "paraphrase"


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder()


def _vault(path: Path, embedder: LocalEmbedder | None) -> Vault:
    return Vault(
        path / "v.db", config=load_config(environ={}, home=path / "home"), embedder=embedder
    )


@pytest.fixture
def readme_vault(tmp_path: Path, local: LocalEmbedder) -> Iterator[Vault]:
    """The Python library page's first example (docs/python.md), up to its context() call."""
    v = _vault(tmp_path, local)
    e = v.add("Alice writes Go services", user_id="alice", kind="user")
    v.add("Prefers answers in bullet points", user_id="alice", agent_id="helper", kind="feedback")
    v.update(e.id, user_id="alice", content="Alice writes Go and Rust services")
    v.flush()
    yield v
    v.close()


def test_readme_paraphrase_is_injected(readme_vault: Vault) -> None:
    # Cosine 0.256: under the old fixed cut of 0.3 this returned "".
    block = readme_vault.context("what does she code in?", user_id="alice", max_tokens=500)
    assert "Alice writes Go and Rust services" in block
    why = readme_vault.explain("what does she code in?", user_id="alice")
    assert why.gate is not None and why.gate.by_meaning
    assert why.candidates[0].context == "injected" and why.candidates[0].evidence == "meaning"


@pytest.mark.parametrize(
    "question",
    [
        "Write a limerick about a penguin.",  # shares "write" with the memory
        "Who painted the Mona Lisa?",
        "How do I convert Celsius to Fahrenheit?",
    ],
)
def test_readme_unrelated_question_injects_nothing(readme_vault: Vault, question: str) -> None:
    assert readme_vault.context(question, user_id="alice") == ""
    why = readme_vault.explain(question, user_id="alice")
    assert all(c.context == "not relevant" for c in why.candidates)
    assert why.gate is not None and why.gate.margin is not None
    assert why.gate.margin < why.gate.settings.margin


def _load(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def english(
    tmp_path_factory: pytest.TempPathFactory, local: LocalEmbedder
) -> Iterator[tuple[Vault, dict[str, str]]]:
    """The bench's English vault: 30 memories of one user; ids of the set -> contents."""
    v = _vault(tmp_path_factory.mktemp("en"), local)
    contents = {}
    for m in _load("en")["memories"]:
        contents[m["id"]] = v.add(m["content"], user_id="priya", kind=m["kind"]).content
    v.flush()
    yield v, contents
    v.close()


# Rows of bench/data/paraphrase/en.json. The gold memories' cosines are 0.24-0.28,
# under the old cut of 0.3, and the questions share no keyword with them.
PARAPHRASES = [
    ("Can she eat satay sauce?", "en06"),
    ("What computer does she use?", "en21"),
    ("Any dietary restrictions to mention when booking dinner for her?", "en06"),
    ("What is her end-of-week ritual?", "en23"),
]
# Unrelated rows that share a word with some memory ("work", "name", "train"...): the
# old rule injected every keyword match.
UNRELATED = [
    "Write a limerick about a penguin.",
    "Suggest a name for a golden retriever puppy.",
    "How do vaccines train the immune system?",
    "How does compound interest work?",
    "Translate 'good morning' into Italian.",
]


@pytest.mark.parametrize(("question", "gold"), PARAPHRASES)
def test_bench_paraphrases_are_injected(
    english: tuple[Vault, dict[str, str]], question: str, gold: str
) -> None:
    v, contents = english
    assert contents[gold] in v.context(question, user_id="priya")


@pytest.mark.parametrize("question", UNRELATED)
def test_bench_unrelated_questions_inject_nothing(
    english: tuple[Vault, dict[str, str]], question: str
) -> None:
    v, _ = english
    assert v.context(question, user_id="priya") == ""


def test_explain_shows_what_context_injects(english: tuple[Vault, dict[str, str]]) -> None:
    v, contents = english
    for question in ("Who does she report to?", "How do I unclog a kitchen sink?"):
        block = v.context(question, user_id="priya")
        why = v.explain(question, user_id="priya", limit=v.config.context.limit)
        shown = {c.entry.content for c in why.candidates if c.returned and c.context == "injected"}
        assert shown == {text for text in contents.values() if text in block}
        assert why.to_dict()["gate"]["by_meaning"] is True


def test_chinese_with_an_english_model_goes_by_words(tmp_path: Path, local: LocalEmbedder) -> None:
    # all-MiniLM-L6-v2 reads no Chinese: its cosines for a Chinese query are noise, so a
    # Chinese query is judged by keyword matches alone, and a one-character match
    # (做, 用, 上 …) is not evidence.
    v = _vault(tmp_path, local)
    contents = {}
    for m in _load("zh")["memories"]:
        contents[m["id"]] = v.add(m["content"], user_id="xw", kind=m["kind"]).content
    v.flush()
    assert contents["zh05"] in v.context("团队现在还用 Excel 做报表吗？", user_id="xw")
    for question in ("红烧肉怎么做？", "电动汽车的电池能用多少年？", "地球到月球有多远？"):
        assert v.context(question, user_id="xw") == "", question
    why = v.explain("红烧肉怎么做？", user_id="xw")
    assert why.gate is not None and not why.gate.by_meaning
    assert not reads(local.name, "红烧肉怎么做？") and reads(local.name, "what does she code in?")
    v.close()


def test_keyword_only_vault_keeps_keyword_matches(tmp_path: Path) -> None:
    v = _vault(tmp_path, None)
    v.add("The zebra migration starts in July", user_id="u")
    v.add("公司的数据仓库用的是 ClickHouse", user_id="u")
    assert "zebra migration" in v.context("when is the zebra migration?", user_id="u")
    assert "ClickHouse" in v.context("数据仓库用什么？", user_id="u")
    assert v.context("我用什么？", user_id="u") == ""  # only 用 in common
    v.close()


def test_background_bank_is_about_no_user() -> None:
    assert len(BACKGROUND) >= 100 and len(set(BACKGROUND)) == len(BACKGROUND)
    assert any(reads("all-MiniLM-L6-v2", t) is False for t in BACKGROUND)  # Chinese rows too


@pytest.mark.parametrize(
    "bad", [{"margin": 5}, {"band": -0.1}, {"min_similarity": 2}, {"margin": "wide"}]
)
def test_gate_settings_are_validated(tmp_path: Path, bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        load_config(environ={}, home=tmp_path, context=bad)


def test_shipped_background_is_current(local: LocalEmbedder) -> None:
    # Changing BACKGROUND without running bench/background_vectors.py fails here (at run
    # time the stale file would be ignored and every process would embed the bank).
    bank = shipped(local.name, local.dim)
    assert bank is not None, "run bench/background_vectors.py"
    fresh = local.embed(list(BACKGROUND[:8]))
    assert float((bank[:8] * fresh).sum(axis=1).min()) > 0.999
    assert shipped("another-model", local.dim) is None
    assert shipped(local.name, local.dim + 1) is None


def test_unset_gate_settings_take_the_models_own() -> None:
    unset = ContextConfig()
    assert calibration(LocalEmbedder().name, unset) == CALIBRATIONS["all-MiniLM-L6-v2"]
    e5 = calibration(multilingual.IDENTITY.key, unset)
    assert e5 == CALIBRATIONS["multilingual-e5-small"] and e5.margin != -0.06
    # An API model has no measurement: MiniLM's values, the scale of most sentence models.
    assert calibration("text-embedding-3-small", unset) == CALIBRATIONS["all-MiniLM-L6-v2"]
    # A setting the user gives wins over the model's, one key at a time.
    mine = calibration(multilingual.IDENTITY.key, ContextConfig(margin=0.05))
    assert (mine.margin, mine.band) == (0.05, CALIBRATIONS["multilingual-e5-small"].band)


def test_shipped_background_covers_the_multilingual_model() -> None:
    if not multilingual.available():
        pytest.fail("the 'multilingual' extra is part of make install; reinstall it")
    assert shipped(multilingual.IDENTITY.key, multilingual.MODEL_DIM) is not None


def test_shipped_background_covers_the_default_model() -> None:
    """The default embedder's bank ships too, so no first ``context()`` of a process
    embeds the 120 texts with both models; it is what the model gives for them."""
    default = BilingualEmbedder()
    bank = shipped(default.name, default.dim)
    assert bank is not None, "run bench/background_vectors.py"
    texts = [BACKGROUND[0], *(t for t in BACKGROUND if route(t) == "e5")][:6]
    fresh = default.embed(texts)
    rows = [BACKGROUND.index(t) for t in texts]
    assert {route(t) for t in texts} == {"minilm", "e5"}
    assert float((bank[rows] * fresh).sum(axis=1).min()) > 0.999
