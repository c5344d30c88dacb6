"""Every memory tool as an OpenAI function tool: valid JSON Schema, accepted by the
real ``openai`` client, and runnable through the manager when the model calls it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import openai
import pytest

from memvault import ValidationError, Vault, load_config
from memvault.agent.manager import MemoryManager
from memvault.agent.providers.builtin import BuiltinFileProvider
from memvault.agent.providers.hindsight import TOOL_SCHEMAS as HINDSIGHT_TOOL_SCHEMAS
from memvault.agent.providers.vault import VaultProvider
from memvault.embed import HashingEmbedder
from memvault.integrations.openai_tools import memory_tool_specs, openai_tool_schemas
from tests.fakes.openai_chat import FakeChatServer, Reply

EVERY_TOOL = ["memory", "memory_save", "memory_recall", "memory_decision"]


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    v = Vault(
        tmp_path / "x.db",
        config=load_config(environ={}, home=tmp_path, embedding={"background": False}),
        embedder=HashingEmbedder(),
    )
    yield v
    v.close()


@pytest.fixture
def manager(vault: Vault, tmp_path: Path) -> MemoryManager:
    m = MemoryManager(BuiltinFileProvider())
    m.add_provider(VaultProvider(vault))
    m.initialize_all(user_id="alice", agent_id="helper", base_dir=str(tmp_path / "home"))
    return m


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_every_schema_is_valid_json_schema(api: str) -> None:
    tools = openai_tool_schemas(api=api)  # type: ignore[arg-type]
    names = []
    for tool in tools:
        assert tool["type"] == "function"
        spec = tool["function"] if api == "chat" else tool
        names.append(spec["name"])
        assert spec["description"].strip()
        jsonschema.Draft202012Validator.check_schema(spec["parameters"])
        assert spec["parameters"]["type"] == "object"
        if api == "responses":
            assert tool["strict"] is False
        else:
            assert set(tool) == {"type", "function"}
    assert names == EVERY_TOOL


class WithHindsight(MemoryManager):
    """A manager whose external provider declares Hindsight's tools (as the real
    ``HindsightProvider`` does outside ``context`` mode), one of them in the wrapped
    ``{"type": "function", "function": ...}`` shape and one declared twice."""

    def get_tool_schemas(self) -> list[dict[str, object]]:
        first, *rest = (dict(s) for s in HINDSIGHT_TOOL_SCHEMAS)
        wrapped = {"type": "function", "function": first}
        return [*super().get_tool_schemas(), wrapped, *rest, first]


def test_the_managers_tools_include_hindsight_when_configured(
    manager: MemoryManager, vault: Vault, tmp_path: Path
) -> None:
    assert [s["name"] for s in memory_tool_specs(manager)] == EVERY_TOOL
    hindsight = WithHindsight(BuiltinFileProvider())
    hindsight.add_provider(VaultProvider(vault))
    hindsight.initialize_all(user_id="alice", base_dir=str(tmp_path / "h"))
    names = [t["function"]["name"] for t in openai_tool_schemas(hindsight)]
    assert names == [*EVERY_TOOL, "hindsight_retain", "hindsight_recall", "hindsight_reflect"]
    for tool in openai_tool_schemas(hindsight, api="responses"):
        jsonschema.Draft202012Validator.check_schema(tool["parameters"])
    with pytest.raises(ValidationError):
        openai_tool_schemas(api="completions")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        memory_tool_specs("nope")  # type: ignore[arg-type]


def test_exported_schemas_are_copies(manager: MemoryManager) -> None:
    first = openai_tool_schemas(manager)
    first[0]["function"]["parameters"]["properties"].clear()
    assert openai_tool_schemas(manager)[0]["function"]["parameters"]["properties"]


def test_chat_tools_through_the_real_client(manager: MemoryManager) -> None:
    tools = openai_tool_schemas(manager)
    save = {"action": "create", "type": "user", "name": "lang", "content": "Alice writes Go"}
    with FakeChatServer([Reply.tool_call("memory_save", save), Reply.text("saved")]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        messages: list[dict[str, object]] = [{"role": "user", "content": "remember I write Go"}]
        reply = client.chat.completions.create(model="m", messages=messages, tools=tools)  # type: ignore[arg-type]
        call = reply.choices[0].message.tool_calls[0]  # type: ignore[index]
        answer = manager.handle_tool_call(call.function.name, json.loads(call.function.arguments))  # type: ignore[union-attr]
        messages += [
            reply.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": answer},
        ]
        final = client.chat.completions.create(model="m", messages=messages, tools=tools)  # type: ignore[arg-type]
    assert final.choices[0].message.content == "saved"
    assert server.requests[0]["tools"] == tools
    assert json.loads(answer)["success"] is True
    recalled = manager.handle_tool_call("memory_recall", {"query": "what does alice write"})
    assert "Alice writes Go" in recalled


def test_responses_tools_through_the_real_client() -> None:
    tools = openai_tool_schemas(api="responses")
    with FakeChatServer([]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        with pytest.raises(openai.NotFoundError):  # the fake serves chat completions only
            client.responses.create(model="m", input="hi", tools=tools)  # type: ignore[arg-type]
    assert server.requests[0]["tools"] == tools
