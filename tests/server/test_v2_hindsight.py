"""Hindsight behind the surfaces: the ``/api/memory/v2`` routes with ``memory.provider:
hindsight``, ``migrate-v1`` into the Hindsight banks, and a LangChain agent with the
builtin + Hindsight providers (the issue's acceptance). Each runs on the fake Hindsight
server (``tests/fakes/hindsight.py``) and on the real one (``tests/servers/hindsight.py``),
with the loopback chat server for the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import pytest
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from memvault import Vault, VaultConfig, load_config
from memvault.agent.config import MemoryConfig
from memvault.agent.external import BankNaming
from memvault.agent.external.hindsight import HindsightExternalMemory
from memvault.agent.manager import MemoryManager
from memvault.agent.migrate_v1 import migrate_v1
from memvault.agent.providers.builtin import BuiltinFileProvider
from memvault.agent.providers.hindsight import HindsightProvider
from memvault.fences import OPEN_TAG
from memvault.integrations.langchain import MemvaultMiddleware
from memvault.server.state import ServerSettings
from tests.agent.test_migrate_v1 import place
from tests.fakes.hindsight import FakeHindsight
from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.gateway_server import live_gateway
from tests.servers.hindsight import bank_exists, bank_texts, drop_banks

V2 = "/api/memory/v2"


class Server(Protocol):
    base_url: str

    def start(self) -> Any: ...

    def stop(self) -> None: ...


@pytest.fixture
def server(any_hindsight: Server) -> Server:
    """The fake, then the real server, with alice's banks gone: the real server is
    shared by the tests of one worker, and these tests use fixed user ids."""
    drop_banks(
        any_hindsight.base_url,
        "deerflow-user-alice",
        "deerflow-work-alice-coder",
        "deerflow-work-alice-default",
        "deerflow-work-alice-helper",
    )
    return any_hindsight


def settings(tmp_path: Path, url: str) -> ServerSettings:
    path = tmp_path / "config.yaml"
    path.write_text(
        f"memory:\n  provider: hindsight\n  hindsight:\n    api_url: {url}\n", encoding="utf-8"
    )
    return ServerSettings(yaml_path=path)


def test_v2_routes_proxy_hindsight(config: VaultConfig, tmp_path: Path, server: Server) -> None:
    banks = BankNaming().banks("alice", "coder")
    assert banks.work is not None
    real = not isinstance(server, FakeHindsight)
    with live_gateway(config, settings(tmp_path, server.base_url)) as live:
        seed = HindsightExternalMemory(
            MemoryConfig.model_validate({"hindsight": {"api_url": server.base_url}})
        )
        seed.retain("Alice keeps honey bees in Lyon.", bank=banks.user, key="a", metadata={})
        seed.retain("The hive log is hives.csv.", bank=banks.work, key="b", metadata={})
        seed.close()
        with live.client(live.alice) as alice:
            found = alice.post(
                f"{V2}/search", params={"agent_id": "coder"}, json={"query": "honey bees hive log"}
            )
            assert found.status_code == 200, found.text
            texts = {r["text"] for r in found.json()["results"]}
            assert any("bees" in t for t in texts) and any("hives.csv" in t for t in texts)

            status = alice.get(f"{V2}/status", params={"agent_id": "coder"}).json()["external"]
            assert status["provider"] == "hindsight" and status["connected"] is True
            assert status["bank"] == banks.user.id and status["work_bank"] == banks.work.id
            # the real server keeps more than one unit per text (facts, observations)
            assert status["entries"] >= 2 if real else status["entries"] == 2
            assert status["last_recall_hits"] == len(found.json()["results"])

            answer = alice.post(f"{V2}/reflect", json={"query": "Where are the bees?"})
            assert answer.status_code == 200 and answer.json()["answer"]
            if not real:  # the real mock LLM answers with canned text
                assert "Lyon" in answer.json()["answer"]

            bank = banks.user.id
            wrong = alice.post(f"{V2}/bank/clear", json={"bank": bank, "confirm": "yes"})
            assert wrong.status_code == 422 and "confirm" in wrong.text
            assert bank_texts(server.base_url, bank)  # nothing cleared
            cleared = alice.post(f"{V2}/bank/clear", json={"bank": bank, "confirm": bank})
            assert cleared.status_code == 200 and cleared.json()["deleted"] >= 1
            assert bank_texts(server.base_url, bank) == []
            assert any("hives.csv" in t for t in bank_texts(server.base_url, banks.work.id))

            server.stop()
            try:
                down = alice.get(f"{V2}/status", params={"agent_id": "coder"}).json()
                assert down["external"]["connected"] is False and down["external"]["error"]
                failed = alice.post(f"{V2}/search", json={"query": "bees"})
                assert failed.status_code == 502
            finally:
                server.start()


@pytest.mark.parametrize("skip", [False, True])
def test_migrate_v1_sends_history_to_hindsight_unless_skipped(
    tmp_path: Path, server: Server, skip: bool
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    place(home, "alice", "english.json")
    config = load_config(environ={}, home=home, embedding={"provider": "none"})
    external = HindsightExternalMemory(
        MemoryConfig.model_validate({"hindsight": {"api_url": server.base_url}})
    )
    try:
        with Vault(config=config) as vault:
            report = migrate_v1(
                home, vaults=vault, user_id="alice", external=external, skip_external=skip
            )
        assert report.ok, report.lines()
    finally:
        external.close()
    if skip:
        assert not bank_exists(server.base_url, "deerflow-user-alice")
        return
    texts = "\n".join(bank_texts(server.base_url, "deerflow-user-alice"))
    assert "[Earlier context] Moved from a Python monolith to Go services in 2025." in texts
    work = "\n".join(bank_texts(server.base_url, "deerflow-work-alice-default"))
    assert "The ledger service uses sqlc for its queries." in work


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def test_a_fact_told_in_thread_1_is_recalled_from_hindsight_in_thread_2(
    tmp_path: Path, server: Server
) -> None:
    builtin = BuiltinFileProvider()
    manager = MemoryManager(builtin, prefetch_timeout=60)
    hs_config = MemoryConfig.model_validate(
        {"hindsight": {"api_url": server.base_url, "retain_async": False}}
    )
    assert manager.add_provider(HindsightProvider(hs_config))
    manager.initialize_all(
        user_id="alice", agent_id="helper", thread_id="t1", base_dir=str(tmp_path)
    )
    fact = "My cat Miso is allergic to salmon"
    replies = [Reply.text("Noted."), Reply.text("Miso cannot eat salmon.")]
    try:
        with FakeChatServer(replies) as chat:
            model = ChatOpenAI(base_url=chat.base_url, api_key="test", model="fake", max_retries=0)
            agent = create_agent(
                model,
                tools=[],
                middleware=[MemvaultMiddleware(manager)],
                system_prompt="You are helpful.",
                checkpointer=InMemorySaver(),
            )
            for text, thread in ((fact + ".", "t1"), ("What can my cat Miso not eat?", "t2")):
                agent.invoke(
                    {"messages": [{"role": "user", "content": text}]},
                    config={"configurable": {"thread_id": thread}},
                )
                assert manager.flush(10)
            second = chat.requests[-1]
            everything = "\n".join(content_text(m.get("content")) for m in second["messages"])
            assert everything.count(OPEN_TAG) == 1
            block = everything[everything.index(OPEN_TAG) :]
            # thread 2 holds none of thread 1's messages: the fact came from Hindsight, once
            assert fact in block and everything.count(fact) == 1
            assert any(fact in t for t in bank_texts(server.base_url, "deerflow-work-alice-helper"))
    finally:
        manager.shutdown_all()


def test_builtin_entry_routes_are_mirrored_to_the_banks(
    config: VaultConfig, tmp_path: Path, server: Server
) -> None:
    user_bank, work_bank = "deerflow-user-alice", "deerflow-work-alice-coder"
    with (
        live_gateway(config, settings(tmp_path, server.base_url)) as live,
        live.client(live.alice) as alice,
    ):
        added = alice.post(
            f"{V2}/entries",
            params={"agent_id": "coder"},
            json={"target": "user", "content": "Alice commutes by ferry on weekdays."},
        )
        assert added.status_code == 200, added.text
        noted = alice.post(
            f"{V2}/entries",
            params={"agent_id": "coder"},
            json={"target": "memory", "content": "The ferry timetable is in ferry.txt."},
        )
        assert noted.status_code == 200, noted.text
        assert any("ferry on weekdays" in t for t in bank_texts(server.base_url, user_bank))
        assert any("ferry.txt" in t for t in bank_texts(server.base_url, work_bank))

        replaced = alice.put(
            f"{V2}/entries/user/0",
            params={"agent_id": "coder"},
            json={"content": "Alice commutes by train on weekdays."},
        )
        assert replaced.status_code == 200, replaced.text
        texts = "\n".join(bank_texts(server.base_url, user_bank))
        assert "train on weekdays" in texts and "ferry" not in texts

        removed = alice.delete(f"{V2}/entries/memory/0", params={"agent_id": "coder"})
        assert removed.status_code == 200, removed.text
        assert not any("ferry.txt" in t for t in bank_texts(server.base_url, work_bank))

        # without an agent the requests see the default agent's work bank, which is
        # where HindsightProvider writes an agent-less session's turns
        status = alice.get(f"{V2}/status").json()["external"]
        assert status["work_bank"] == "deerflow-work-alice-default"
