"""``POST /v1/memories/remember`` and ``/v1/profile`` on a real gateway (uvicorn on
127.0.0.1), with the loopback chat server as the model: a conversation goes in, turns are
archived, facts come out into the profile, the memories and USER.md / MEMORY.md."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memvault import VaultConfig
from memvault.config import load_config
from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.gateway_server import Live


def extraction(facts: list[dict[str, Any]], **sections: str) -> Reply:
    body = {
        "user": {k: {"summary": v, "shouldUpdate": True} for k, v in sections.items()},
        "newFacts": facts,
        "factsToRemove": [],
    }
    return Reply.text(json.dumps(body, ensure_ascii=False))


@pytest.fixture
def chat() -> Iterator[FakeChatServer]:
    with FakeChatServer() as server:
        yield server


@pytest.fixture
def llm_config(tmp_path: Path, chat: FakeChatServer) -> VaultConfig:
    return load_config(
        environ={},
        home=tmp_path / "home",
        embedding={"provider": "none"},
        llm={"base_url": chat.base_url, "model": "m", "api_key": "test", "retries": 0},
        extraction={"debounce_seconds": 3600},
    )


@pytest.fixture
def gateway_config(llm_config: VaultConfig) -> VaultConfig:
    return llm_config


def _client(live: Live, key: str) -> httpx.Client:
    return live.client(key)


MESSAGES = [
    {"role": "user", "content": "I'm a data engineer and I like concise answers."},
    {"role": "assistant", "content": "Noted.", "tool_calls": [{"id": "x"}]},
    {"role": "assistant", "content": "Got it: concise it is."},
]


def test_remember_archives_learns_and_mirrors_into_the_files(
    live: Live, chat: FakeChatServer
) -> None:
    chat.replies.append(
        extraction(
            [
                {
                    "content": "Prefers concise answers",
                    "category": "preference",
                    "confidence": 0.95,
                },
                {"content": "Is building a Spark pipeline", "category": "goal", "confidence": 0.9},
            ],
            workContext="Data engineer",
        )
    )
    with _client(live, live.alice) as alice:
        r = alice.post(
            "/v1/memories/remember",
            json={"messages": MESSAGES, "session_id": "chat-1", "agent_id": "helper", "wait": True},
        )
        assert r.status_code == 200, r.text
        done = r.json()
        assert (done["received"], done["kept"], done["dropped"]) == (3, 2, 1)
        assert done["extraction"] == "done" and len(done["archived"]) == 2
        assert done["learned"]["status"] == "learned" and len(done["learned"]["added"]) == 2
        profile = alice.get("/v1/profile").json()
        assert profile["user"]["workContext"]["summary"] == "Data engineer"
        assert [f["content"] for f in profile["facts"]] == ["Prefers concise answers"]
        agent_profile = alice.get("/v1/profile", params={"agent_id": "helper"}).json()
        assert [f["content"] for f in agent_profile["facts"]] == ["Is building a Spark pipeline"]
        # The person's fact went to USER.md, the work to the agent's MEMORY.md.
        files = alice.get("/api/memory/v2", params={"agent_id": "helper"})
        assert files.status_code == 200, files.text
    user_md = live.home / "users" / "alice" / "USER.md"
    memory_md = live.home / "users" / "alice" / "agents" / "helper" / "MEMORY.md"
    assert "Prefers concise answers" in user_md.read_text(encoding="utf-8")
    assert "Is building a Spark pipeline" in memory_md.read_text(encoding="utf-8")
    assert "Spark" not in user_md.read_text(encoding="utf-8")


def test_remember_is_scoped_to_the_key_and_validated(live: Live, chat: FakeChatServer) -> None:
    with _client(live, live.alice) as alice, _client(live, live.bob) as bob:
        before = live.snapshot()
        for body, field in (
            ({"messages": MESSAGES}, "session_id"),
            ({"messages": "hi", "session_id": "s"}, "messages"),
            ({"messages": [{"content": "no role"}], "session_id": "s"}, "messages"),
            ({"messages": MESSAGES, "session_id": "s", "wait": "yes"}, "wait"),
            ({"messages": MESSAGES, "session_id": "s", "user_id": "bob"}, None),
        ):
            r = alice.post("/v1/memories/remember", json=body)
            assert r.status_code in (403, 404, 422), (body, r.status_code, r.text)
            if field is not None:
                assert field in r.text
        assert live.snapshot() == before
        r = alice.post("/v1/memories/remember", json={"messages": MESSAGES, "session_id": "s"})
        assert r.status_code == 200 and r.json()["extraction"] == "queued"
        assert bob.get("/v1/memories", params={"session_id": "s"}).json()["items"] == []
        assert bob.get("/v1/profile").json()["facts"] == []


def test_a_person_can_correct_the_profile(live: Live) -> None:
    with _client(live, live.alice) as alice:
        doc = alice.get("/v1/profile").json()
        doc["user"]["topOfMind"]["summary"] = "Moving to Lisbon"
        doc["facts"] = [
            {
                "id": "f1",
                "content": "Speaks Portuguese",
                "category": "personal_info",
                "confidence": 1.0,
            }
        ]
        r = alice.put("/v1/profile", json=doc)
        assert r.status_code == 200, r.text
        assert alice.get("/v1/profile").json()["facts"][0]["content"] == "Speaks Portuguese"
        bad = dict(doc, facts=[{"id": "f2", "content": "x", "confidence": 7}])
        r = alice.put("/v1/profile", json=bad)
        assert r.status_code == 422 and "confidence" in r.text
        assert alice.get("/v1/profile").json()["facts"][0]["content"] == "Speaks Portuguese"
