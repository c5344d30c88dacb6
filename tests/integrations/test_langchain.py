"""``MemvaultMiddleware`` in a real LangChain ``create_agent`` run.

The model is ``ChatOpenAI`` talking HTTP to a loopback server that speaks the
OpenAI chat-completions wire format and plays back scripted replies, so what the
model "received" is the JSON body the real client sent. Memory is a real vault
and real USER.md / MEMORY.md files under ``tmp_path``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain")
pytest.importorskip("langchain_openai")

from langchain.agents import create_agent
from langchain_core.messages import BaseMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from memvault import ConfigError, MemClass, Vault, load_config
from memvault.agent.manager import MemoryManager
from memvault.agent.provider import MemoryProvider
from memvault.agent.providers.builtin import BuiltinFileProvider
from memvault.agent.providers.vault import VaultProvider
from memvault.embed import HashingEmbedder
from memvault.fences import OPEN_TAG
from memvault.integrations.langchain import MemvaultMiddleware
from tests.fakes.openai_chat import FakeChatServer, Reply

BASE_PROMPT = "You are a careful assistant."
QUESTION = "What did we decide about billing?"


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    config = load_config(environ={}, home=tmp_path, embedding={"background": False})
    v = Vault(tmp_path / "x.db", config=config, embedder=HashingEmbedder())
    yield v
    v.close()


@pytest.fixture
def manager(vault: Vault, tmp_path: Path) -> Iterator[MemoryManager]:
    builtin = BuiltinFileProvider()
    # A generous recall deadline: these tests check what reaches the model, not speed,
    # and a loaded machine can take over the default 2 s (the deadline has its own tests).
    m = MemoryManager(builtin, prefetch_timeout=60)
    m.add_provider(VaultProvider(vault))
    m.initialize_all(user_id="alice", agent_id="helper", thread_id="t1", base_dir=str(tmp_path))
    builtin.add("user", "Alice prefers short answers in English")
    builtin.reload()
    vault.add(
        "Billing moves to Stripe in Q3; the invoices stay in the old system until then",
        user_id="alice",
        agent_id="helper",
        kind="project",
        name="Billing decision",
    )
    yield m
    m.shutdown_all()


def agent_for(server: FakeChatServer, middleware: MemvaultMiddleware) -> Any:
    model = ChatOpenAI(base_url=server.base_url, api_key="test", model="fake", max_retries=0)
    return create_agent(
        model,
        tools=[],
        middleware=[middleware],
        system_prompt=BASE_PROMPT,
        checkpointer=InMemorySaver(),
    )


def ask(agent: Any, text: str, thread_id: str) -> dict[str, Any]:
    return agent.invoke(
        {"messages": [{"role": "user", "content": text}]},
        config={"configurable": {"thread_id": thread_id}},
    )


def content_text(content: Any) -> str:
    """A wire message's content as text (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def wire_texts(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], content_text(m.get("content"))) for m in body["messages"]]


def state_text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


SAVE_ARGS = {
    "action": "create",
    "name": "Deploy day",
    "type": "project",
    "content": "Deploys to production happen on Tuesdays only",
}


def test_recall_snapshot_tool_and_sync_in_a_real_agent_run(
    manager: MemoryManager, vault: Vault
) -> None:
    replies = [Reply.tool_call("memory_save", SAVE_ARGS), Reply.text("Stripe, in Q3.")]
    with FakeChatServer(replies) as server:
        agent = agent_for(server, MemvaultMiddleware(manager))
        result = ask(agent, QUESTION, "t1")

        assert len(server.requests) == 2  # the tool call, then the answer
        for body in server.requests:
            texts = wire_texts(body)
            system = [text for role, text in texts if role == "system"]
            assert len(system) == 1
            assert system[0].startswith(BASE_PROMPT)
            # the frozen builtin snapshot and the vault's instructions, once each
            assert system[0].count("Alice prefers short answers in English") == 1
            assert system[0].count("USER PROFILE") == 1
            assert system[0].count("## Long-term memory") == 1
            # the recall block: exactly once in the whole request, in the system message
            everything = "\n".join(text for _, text in texts)
            assert everything.count(OPEN_TAG) == 1
            assert system[0].count(OPEN_TAG) == 1
            block = system[0][system[0].index(OPEN_TAG) :]
            assert "Billing moves to Stripe in Q3" in block
            # the model is offered the memory tools
            offered = {tool["function"]["name"] for tool in body["tools"]}
            assert offered == {"memory", "memory_save", "memory_recall", "memory_decision"}

        # the tool's JSON answer went back to the model
        tool_replies = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
        assert len(tool_replies) == 1
        assert json.loads(tool_replies[0]["content"])["success"] is True

    # recalled text never reached the persisted state
    persisted = agent.get_state({"configurable": {"thread_id": "t1"}}).values["messages"]
    assert persisted[-1].content == "Stripe, in Q3."
    assert OPEN_TAG not in state_text(persisted)
    assert OPEN_TAG not in state_text(result["messages"])
    assert "USER PROFILE" not in state_text(persisted)

    # the scripted memory_save stored an entry
    saved = [e for e in vault.list(user_id="alice", agent_id="helper") if e.name == "Deploy day"]
    assert [e.content for e in saved] == ["Deploys to production happen on Tuesdays only"]

    # the turn was archived once the sync queue drained
    assert manager.flush(10)
    archived = vault.list(user_id="alice", agent_id="helper", mem_class=MemClass.SOURCE_ARCHIVE)
    assert len(archived) == 1
    assert archived[0].content == f"User: {QUESTION}\nAssistant: Stripe, in Q3."
    assert archived[0].metadata["turn_index"] == 1
    assert archived[0].metadata["thread_id"] == "t1"


def test_user_role_injection_keeps_the_system_message_free_of_recall(
    manager: MemoryManager,
) -> None:
    with FakeChatServer([Reply.text("Stripe.")]) as server:
        agent = agent_for(server, MemvaultMiddleware(manager, injection="user"))
        result = ask(agent, QUESTION, "t1")

    texts = wire_texts(server.requests[0])
    roles = [role for role, _ in texts]
    assert roles == ["system", "user", "user"]
    system, recall, question = (text for _, text in texts)
    assert OPEN_TAG not in system
    assert "Alice prefers short answers in English" in system  # the snapshot stays system
    assert recall.startswith(OPEN_TAG) and recall.rstrip().endswith("</memory-context>")
    assert "Billing moves to Stripe in Q3" in recall
    assert question == QUESTION
    assert OPEN_TAG not in state_text(result["messages"])


def test_the_async_path_injects_and_syncs_the_same_way(
    manager: MemoryManager, vault: Vault
) -> None:
    with FakeChatServer([Reply.text("Stripe.")]) as server:
        agent = agent_for(server, MemvaultMiddleware(manager))
        result = asyncio.run(
            agent.ainvoke(
                {"messages": [{"role": "user", "content": QUESTION}]},
                config={"configurable": {"thread_id": "t1"}},
            )
        )

    system = wire_texts(server.requests[0])[0][1]
    assert system.count(OPEN_TAG) == 1 and "Billing moves to Stripe in Q3" in system
    assert OPEN_TAG not in state_text(result["messages"])
    assert manager.flush(10)
    archived = vault.list(user_id="alice", agent_id="helper", mem_class=MemClass.SOURCE_ARCHIVE)
    assert [e.metadata["turn_index"] for e in archived] == [1]


def test_recall_off_sends_the_snapshot_but_no_recall(manager: MemoryManager) -> None:
    with FakeChatServer([Reply.text("ok")]) as server:
        ask(agent_for(server, MemvaultMiddleware(manager, recall=False)), QUESTION, "t1")

    everything = "\n".join(text for _, text in wire_texts(server.requests[0]))
    assert OPEN_TAG not in everything
    assert "Alice prefers short answers in English" in everything


def test_turn_index_counts_the_user_messages_of_the_thread(
    manager: MemoryManager, vault: Vault
) -> None:
    with FakeChatServer([Reply.text("first answer"), Reply.text("second answer")]) as server:
        agent = agent_for(server, MemvaultMiddleware(manager))
        ask(agent, QUESTION, "t1")
        ask(agent, f"Again: {QUESTION.lower()}", "t1")
        # the second request carries the first turn, but only the current recall block
        second = wire_texts(server.requests[1])
        assert [role for role, _ in second] == ["system", "user", "assistant", "user"]
        assert "\n".join(text for _, text in second).count(OPEN_TAG) == 1

    assert manager.flush(10)
    archived = vault.list(user_id="alice", agent_id="helper", mem_class=MemClass.SOURCE_ARCHIVE)
    assert sorted(e.metadata["turn_index"] for e in archived) == [1, 2]


class RecordingProvider(MemoryProvider):
    """An external provider that records the hooks it receives and recalls bare text."""

    def __init__(self) -> None:
        self.switches: list[tuple[str, str, bool]] = []
        self.turns: list[tuple[str, str, str, int | None]] = []
        self.queries: list[tuple[str, str]] = []

    @property
    def name(self) -> str:
        return "recorder"

    def is_available(self) -> bool:
        return True

    def initialize(self, **kwargs: Any) -> None:
        self.initialized = kwargs

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        self.queries.append((query, thread_id))
        return f"recorder remembers something about: {query}"

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        self.turns.append((user_content, assistant_content, thread_id, turn_index))

    def on_session_switch(
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        self.switches.append((new_thread_id, parent_thread_id, reset))


def test_a_new_thread_is_reported_as_a_session_switch(tmp_path: Path) -> None:
    recorder = RecordingProvider()
    manager = MemoryManager(BuiltinFileProvider())
    manager.add_provider(recorder)
    manager.initialize_all(user_id="bob", thread_id="t1", base_dir=str(tmp_path))
    replies = [Reply.text("one"), Reply.text("two"), Reply.text("three")]
    try:
        with FakeChatServer(replies) as server:
            agent = agent_for(server, MemvaultMiddleware(manager))
            ask(agent, "first question", "t1")
            assert recorder.switches == []  # the thread the manager was initialized with
            ask(agent, "second question", "t2")
            assert recorder.switches == [("t2", "t1", True)]
            ask(agent, "third question", "t2")
            assert recorder.switches == [("t2", "t1", True)]

            # bare recalled text is wrapped before it reaches the model
            system = wire_texts(server.requests[1])[0][1]
            assert system.count(OPEN_TAG) == 1
            assert "recorder remembers something about: second question" in system
        assert ("second question", "t2") in recorder.queries

        assert manager.flush(10)
        assert recorder.turns == [
            ("first question", "one", "t1", 1),
            ("second question", "two", "t2", 1),
            ("third question", "three", "t2", 2),
        ]
    finally:
        manager.shutdown_all()


def test_tools_are_exposed_and_route_through_the_manager(manager: MemoryManager) -> None:
    middleware = MemvaultMiddleware(manager)
    tools = {tool.name: tool for tool in middleware.tools}
    assert set(tools) == {"memory", "memory_save", "memory_recall", "memory_decision"}
    answer = json.loads(tools["memory_recall"].invoke({"query": "billing Stripe"}))
    assert "Stripe" in json.dumps(answer)
    bad = json.loads(tools["memory_save"].invoke({"action": "explode", "name": "x", "type": "y"}))
    assert bad["success"] is False


def test_an_unknown_injection_role_is_a_config_error(manager: MemoryManager) -> None:
    with pytest.raises(ConfigError):
        MemvaultMiddleware(manager, injection="assistant")  # type: ignore[arg-type]


# -- learning from finished runs (issue 17 item 6) ----------------------------------------


def _learning_setup(tmp_path: Path, extractor: FakeChatServer) -> tuple[Vault, MemoryManager]:
    config = load_config(
        environ={},
        home=tmp_path,
        embedding={"provider": "none"},
        llm={"base_url": extractor.base_url, "model": "m", "api_key": "test", "retries": 0},
        extraction={"debounce_seconds": 3600},
    )
    vault = Vault(tmp_path / "learn.db", config=config, embedder=None)
    manager = MemoryManager(BuiltinFileProvider(), prefetch_timeout=60)
    manager.add_provider(VaultProvider(vault, archive_turns=False))
    manager.initialize_all(
        user_id="alice", agent_id="helper", thread_id="t1", base_dir=str(tmp_path)
    )
    return vault, manager


def _extraction(content: str, category: str) -> Reply:
    body = {"newFacts": [{"content": content, "category": category, "confidence": 0.95}]}
    return Reply.text(json.dumps(body))


def test_after_agent_hands_the_run_to_remember_when_learning_is_on(tmp_path: Path) -> None:
    with FakeChatServer([_extraction("Prefers answers in French", "preference")]) as extractor:
        vault, manager = _learning_setup(tmp_path, extractor)
        try:
            with FakeChatServer([Reply.text("Bien sûr."), Reply.text("D'accord.")]) as model:
                # Off by default: the user's background_extraction.enabled is false.
                middleware = MemvaultMiddleware(manager, vault=vault)
                assert middleware.learning() is False
                agent = agent_for(model, middleware)
                ask(agent, "Please answer in French from now on.", "t1")
                assert vault.count(user_id="alice", agent_id="helper") == 0
                # The user turns it on: the next run is archived and queued.
                from memvault.agent.config import MemoryConfigStore

                MemoryConfigStore(tmp_path).set_user_override(
                    "alice", "background_extraction.enabled", True
                )
                assert middleware.learning() is True
                ask(agent, "And keep it short.", "t1")
            turns = vault.list(user_id="alice", agent_id="helper", session_id="t1")
            # The whole conversation so far: both questions and both answers, once each.
            assert sorted(t.content for t in turns) == [
                "And keep it short.",
                "Bien sûr.",
                "D'accord.",
                "Please answer in French from now on.",
            ]
            assert vault.learning.pending() == 1 and extractor.requests == []
            assert vault.flush_learning() == 1
            assert [f.content for f in vault.profile(user_id="alice").facts] == [
                "Prefers answers in French"
            ]
            # The person's fact was mirrored into USER.md.
            assert "Prefers answers in French" in manager.builtin.entries("user")  # type: ignore[attr-defined]
        finally:
            manager.shutdown_all()
            vault.close()


def test_learn_false_never_remembers(tmp_path: Path) -> None:
    with FakeChatServer() as extractor:
        vault, manager = _learning_setup(tmp_path, extractor)
        try:
            with FakeChatServer([Reply.text("ok")]) as model:
                agent = agent_for(model, MemvaultMiddleware(manager, vault=vault, learn=False))
                ask(agent, "Remember that I like tea.", "t1")
            assert vault.count(user_id="alice", agent_id="helper") == 0
        finally:
            manager.shutdown_all()
            vault.close()
    with pytest.raises(ConfigError, match="learn"):
        MemvaultMiddleware(manager, vault=vault, learn="yes")  # type: ignore[arg-type]
