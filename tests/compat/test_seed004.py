"""Seed 004 (dsh-deepmemory), from the seed's own words: its HTTP routes with the workspace
scope (召回注入: session / workspace / global), its presets (模式 preset) and its embedding
keys (向量嵌入). Real parts only: the gateway on 127.0.0.1, real SQLite files, and a
loopback server speaking the OpenAI embeddings wire format.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from memvault import Vault, VaultConfig, load_config
from memvault.embed.factory import make_embedder
from memvault.errors import ConfigError
from memvault.workspace.presets import get_preset
from tests.fakes.openai_embeddings import FakeEmbeddingServer
from tests.gateway_server import Live

# -- 使用方式 (API) and 召回注入 (scope): the workspace over HTTP --------------------------


def _ids(answer: httpx.Response) -> set[str]:
    assert answer.status_code == 200, answer.text
    return {r["entry"]["id"] for r in answer.json()["results"]}


def test_memories_add_takes_workspace_id(live: Live) -> None:
    """使用方式: ``POST /v1/memories/add`` (and ``/v1/memories``) take ``workspace_id``."""
    alice = live.client(live.alice)
    for route in ("/v1/memories/add", "/v1/memories"):
        made = alice.post(route, json={"content": "支付模块用 gRPC", "workspace_id": "pay"})
        assert made.status_code == 201, made.text
        assert made.json()["workspace_id"] == "pay"


def test_entries_inherit_their_sessions_workspace_and_workspace_recall_finds_them(
    live: Live,
) -> None:
    """召回注入 (作用域 workspace) and 清晰归属: a session tied to a workspace by its state card
    or a task lends it to the memories written in it; ``scope: workspace`` recall over HTTP
    finds them, from the workspace id or from a session of the workspace."""
    alice = live.client(live.alice)
    card = alice.post(
        "/v1/cards/upsert", json={"session_id": "s1", "workspace_id": "pay", "goal": "重构支付"}
    )
    assert card.status_code == 200, card.text
    task = alice.post(
        "/v1/v2/tasks", json={"workspace_id": "pay", "session_id": "s2", "title": "退款接口"}
    )
    assert task.status_code == 201, task.text
    first = alice.post("/v1/memories/add", json={"content": "支付回调要做幂等", "session_id": "s1"})
    second = alice.post("/v1/memories", json={"content": "退款回调也要幂等", "session_id": "s2"})
    elsewhere = alice.post(
        "/v1/memories/add", json={"content": "周末回调家里的电话要幂等", "session_id": "s9"}
    )
    assert first.json()["workspace_id"] == "pay" and second.json()["workspace_id"] == "pay"
    assert elsewhere.json()["workspace_id"] is None
    ids = {first.json()["id"], second.json()["id"]}

    by_workspace = alice.post(
        "/v1/memories/search",
        json={"query": "回调 幂等", "scope": "workspace", "workspace_id": "pay", "limit": 10},
    )
    assert _ids(by_workspace) == ids
    from_a_session = alice.post(
        "/v1/v2/recall",
        json={"query": "回调 幂等", "scope": "workspace", "session_id": "s1", "limit": 10},
    )
    assert _ids(from_a_session) == ids
    whole = alice.post("/v1/memories/search", json={"query": "回调 幂等", "limit": 10})
    assert _ids(whole) == ids | {elsewhere.json()["id"]}
    listed = alice.get("/v1/memories", params={"workspace_id": "pay"})
    assert listed.status_code == 200, listed.text
    assert {e["id"] for e in listed.json()["items"]} == ids and listed.json()["total"] == 2
    # Another user's workspace of the same name is not reachable.
    bob = live.client(live.bob)
    assert (
        _ids(
            bob.post(
                "/v1/memories/search",
                json={"query": "回调 幂等", "scope": "workspace", "workspace_id": "pay"},
            )
        )
        == set()
    )


def test_an_explicit_workspace_wins_over_the_sessions(live: Live) -> None:
    alice = live.client(live.alice)
    alice.post("/v1/cards/upsert", json={"session_id": "s1", "workspace_id": "pay", "goal": "g"})
    made = alice.post(
        "/v1/memories/add",
        json={"content": "发票模板在共享盘", "session_id": "s1", "workspace_id": "finance"},
    )
    assert made.json()["workspace_id"] == "finance"


# -- 模式 preset -------------------------------------------------------------------------


def test_blank_template_is_the_blank_preset(live: Live) -> None:
    """模式 preset: the third preset is ``blank-template`` in the seed, ``blank`` here."""
    assert get_preset("blank-template") == get_preset("blank")
    alice = live.client(live.alice)
    answer = alice.post(
        "/v1/config/session/set",
        json={"session_id": "s1", "settings": {"injection.preset": "blank-template"}},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["fields"]["injection.preset"]["value"] == "blank"


# -- 向量嵌入 -------------------------------------------------------------------------------


def test_embedding_keys_of_the_seed_are_read(tmp_path: Path) -> None:
    """向量嵌入: ``provider: api`` with ``api_base_url``, ``api_model`` and the key from
    ``EMBED_API_KEY`` makes the API embedder, which calls that server with that key and
    that model."""
    with FakeEmbeddingServer(dim=16, api_key="sk-deep") as server:
        config = load_config(
            environ={"EMBED_API_KEY": "sk-deep"},
            home=tmp_path,
            embedding={
                "provider": "api",
                "local_model": "BAAI/bge-small-zh-v1.5",
                "api_base_url": server.base_url,
                "api_model": "text-embedding-3-small",
                "dim": 16,
            },
        )
        assert config.embedding.provider == "openai"
        assert config.embedding.model == "text-embedding-3-small"
        embedder = make_embedder(config.embedding)
        assert embedder is not None
        with Vault(config=config, embedder=embedder) as vault:
            vault.add("用户喜欢简洁的回答", user_id="u1")
            vault.search("简洁", user_id="u1")
        assert server.requests, "the embedder never called the API"
        assert all(r["auth"] == "Bearer sk-deep" for r in server.requests)
        assert {r["body"]["model"] for r in server.requests} == {"text-embedding-3-small"}


def test_embedding_local_model_and_key_precedence() -> None:
    """``local_model`` is the local provider's model; memvault's own variable wins over
    ``EMBED_API_KEY``; one setting under both names is refused."""
    local = load_config(
        environ={},
        embedding={"provider": "local", "local_model": "multilingual-e5-small", "api_model": "x"},
    )
    assert local.embedding.model == "multilingual-e5-small"
    both = load_config(environ={"EMBED_API_KEY": "a", "MEMVAULT_EMBEDDING_API_KEY": "b"})
    assert both.embedding.api_key == "b"
    with pytest.raises(ConfigError, match="same setting"):
        load_config(environ={}, embedding={"api_base_url": "http://x/v1", "base_url": "http://y"})


def test_the_config_fixture_is_unchanged_by_the_aliases(config: VaultConfig) -> None:
    """The aliases add names; memvault's own keys mean what they meant."""
    assert config.embedding.provider == "none" and config.embedding.model is None
