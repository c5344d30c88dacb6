"""``MemoryManager``: registration rules, routing, the prefetch timeout and the sync worker.

The providers here are small real ``MemoryProvider`` subclasses that record what
they were asked; blocking is done with ``threading.Event`` rather than timing.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.agent.manager import MemoryManager
from memvault.agent.provider import MemoryProvider
from memvault.errors import ConfigError, MemvaultError, ValidationError

LOGGER = "memvault.agent.manager"


def schema(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"the {name} tool",
        "parameters": {"type": "object", "properties": {}},
    }


class Recorder(MemoryProvider):
    """A provider that records every call and can be told to fail or block."""

    def __init__(
        self,
        name: str,
        *,
        tools: Iterable[str] = (),
        available: bool = True,
        prompt: str = "",
        recall: str = "",
        fail: Iterable[str] = (),
        prefetch_gate: threading.Event | None = None,
        sync_gate: threading.Event | None = None,
    ) -> None:
        self._name = name
        self.tools = list(tools)
        self.available = available
        self.prompt = prompt
        self.recall = recall
        self.fail = set(fail)
        self.prefetch_gate = prefetch_gate
        self.sync_gate = sync_gate
        self.calls: list[tuple[Any, ...]] = []
        self.turns: list[tuple[str, str, str, int | None]] = []

    def _maybe_fail(self, hook: str) -> None:
        if hook in self.fail:
            raise RuntimeError(f"{self._name} broke in {hook}")

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        self._maybe_fail("is_available")
        return self.available

    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        self.calls.append(("initialize", user_id, agent_id, thread_id, base_dir, kwargs))
        self._maybe_fail("initialize")

    def shutdown(self) -> None:
        self.calls.append(("shutdown",))
        self._maybe_fail("shutdown")

    def system_prompt_block(self) -> str:
        self._maybe_fail("system_prompt_block")
        return self.prompt

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        self.calls.append(("prefetch", query, thread_id))
        if self.prefetch_gate is not None:
            self.prefetch_gate.wait(10)
        self._maybe_fail("prefetch")
        return self.recall

    def queue_prefetch(self, query: str, *, thread_id: str = "") -> None:
        self.calls.append(("queue_prefetch", query, thread_id))
        self._maybe_fail("queue_prefetch")

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        if self.sync_gate is not None:
            self.sync_gate.wait(10)
        self._maybe_fail("sync_turn")
        self.turns.append((user_content, assistant_content, thread_id, turn_index))
        self.calls.append(("sync_turn", turn_index))

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        self._maybe_fail("get_tool_schemas")
        return [schema(tool) for tool in self.tools]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        self.calls.append(("tool", tool_name, args, kwargs))
        self._maybe_fail("handle_tool_call")
        return json.dumps({"success": True, "provider": self._name, "tool": tool_name})

    def on_session_switch(
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        self.calls.append(("switch", new_thread_id, parent_thread_id, reset, kwargs))
        self._maybe_fail("on_session_switch")

    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.calls.append(("write", action, target, content, metadata))
        self._maybe_fail("on_memory_write")


def hooks(provider: Recorder, hook: str) -> list[tuple[Any, ...]]:
    return [call for call in provider.calls if call[0] == hook]


@pytest.fixture
def builtin() -> Recorder:
    return Recorder("builtin", tools=["memory"], prompt="BUILTIN PROMPT", recall="BUILTIN RECALL")


@pytest.fixture
def manager(builtin: Recorder) -> Iterator[MemoryManager]:
    manager = MemoryManager(builtin, prefetch_timeout=0.3)
    yield manager
    manager.shutdown_all(timeout=5)


# -- registration ---------------------------------------------------------------------


def test_builtin_comes_first(builtin: Recorder) -> None:
    manager = MemoryManager(builtin)
    external = Recorder("hindsight", tools=["recall"])

    assert manager.add_provider(external) is True

    assert manager.providers == [builtin, external]
    assert manager.externals == [external]
    assert manager.tool_names() == ["memory", "recall"]
    assert [s["name"] for s in manager.get_tool_schemas()] == ["memory", "recall"]


def test_a_second_external_is_rejected(manager: MemoryManager, builtin: Recorder) -> None:
    manager.add_provider(Recorder("hindsight"))

    with pytest.raises(ConfigError) as raised:
        manager.add_provider(Recorder("mem0"))

    message = str(raised.value)
    assert "mem0" in message and "hindsight" in message and "only one external" in message
    assert isinstance(raised.value, MemvaultError)
    assert [p.name for p in manager.providers] == ["builtin", "hindsight"]


def test_a_shadowed_tool_name_is_rejected(manager: MemoryManager, builtin: Recorder) -> None:
    intruder = Recorder("hindsight", tools=["recall", "memory"])

    with pytest.raises(ConfigError) as raised:
        manager.add_provider(intruder)

    assert "'memory'" in str(raised.value) and "builtin" in str(raised.value)
    assert manager.providers == [builtin]
    assert manager.tool_names() == ["memory"]  # nothing of the rejected provider leaked in
    # The slot for an external is still free.
    assert manager.add_provider(Recorder("other", tools=["recall"])) is True


def test_a_provider_declaring_one_tool_twice_is_rejected() -> None:
    with pytest.raises(ConfigError, match="'memory'"):
        MemoryManager(Recorder("builtin", tools=["memory", "memory"]))


def test_a_provider_name_clash_is_rejected(manager: MemoryManager) -> None:
    with pytest.raises(ConfigError, match="unique"):
        manager.add_provider(Recorder("builtin"))


def test_an_unavailable_provider_is_skipped(
    manager: MemoryManager, builtin: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    offline = Recorder("hindsight", tools=["recall"], available=False)

    assert manager.add_provider(offline) is False

    assert manager.providers == [builtin]
    assert "recall" not in manager.tool_names()
    assert any(
        "hindsight" in r.getMessage() and "not available" in r.getMessage() for r in caplog.records
    )
    # Skipping it leaves room for an available external.
    assert manager.add_provider(Recorder("mem0")) is True


def test_a_provider_whose_checks_raise_is_skipped(
    manager: MemoryManager, builtin: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)

    assert manager.add_provider(Recorder("a", fail=["is_available"])) is False
    assert manager.add_provider(Recorder("b", fail=["get_tool_schemas"])) is False

    assert manager.providers == [builtin]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2


def test_the_prefetch_timeout_must_be_positive(builtin: Recorder) -> None:
    with pytest.raises(ConfigError):
        MemoryManager(builtin, prefetch_timeout=0)


# -- lifecycle ------------------------------------------------------------------------


def test_initialize_all_passes_the_validated_session(
    manager: MemoryManager, builtin: Recorder, tmp_path: Path
) -> None:
    external = Recorder("hindsight")
    manager.add_provider(external)

    context = manager.initialize_all(
        user_id="alice", agent_id="coder", thread_id="t1", base_dir=tmp_path, mode="hybrid"
    )

    assert context.user_id == "alice" and manager.context == context
    expected = ("initialize", "alice", "coder", "t1", str(tmp_path), {"mode": "hybrid"})
    assert hooks(builtin, "initialize") == [expected]
    assert hooks(external, "initialize") == [expected]


def test_initialize_all_rejects_a_bad_user_before_touching_providers(
    manager: MemoryManager, builtin: Recorder, tmp_path: Path
) -> None:
    with pytest.raises(ValidationError):
        manager.initialize_all(user_id="../etc", base_dir=str(tmp_path))

    assert hooks(builtin, "initialize") == []


def test_an_external_that_fails_to_initialize_is_dropped(
    manager: MemoryManager, builtin: Recorder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    external = Recorder("hindsight", tools=["recall"], fail=["initialize"])
    manager.add_provider(external)

    manager.initialize_all(user_id="alice", base_dir=str(tmp_path))

    assert manager.providers == [builtin]
    assert manager.tool_names() == ["memory"]
    assert "hindsight" in caplog.text and "initialize" in caplog.text


def test_a_builtin_that_fails_to_initialize_raises(tmp_path: Path) -> None:
    manager = MemoryManager(Recorder("builtin", fail=["initialize"]))

    with pytest.raises(RuntimeError):
        manager.initialize_all(user_id="alice", base_dir=str(tmp_path))


def test_system_prompt_blocks_join_non_empty_blocks(
    manager: MemoryManager, caplog: pytest.LogCaptureFixture
) -> None:
    manager.add_provider(Recorder("hindsight", prompt="EXTERNAL PROMPT\n"))
    assert manager.system_prompt_blocks() == "BUILTIN PROMPT\n\nEXTERNAL PROMPT"

    quiet = MemoryManager(Recorder("builtin"))
    quiet.add_provider(Recorder("hindsight", fail=["system_prompt_block"]))
    assert quiet.system_prompt_blocks() == ""


# -- tools ----------------------------------------------------------------------------


def test_tool_calls_route_to_the_declaring_provider(
    manager: MemoryManager, builtin: Recorder
) -> None:
    external = Recorder("hindsight", tools=["recall", "reflect"])
    manager.add_provider(external)

    memory = json.loads(manager.handle_tool_call("memory", {"action": "add"}, user_id="alice"))
    recall = json.loads(manager.handle_tool_call("recall", {"query": "coffee"}))

    assert memory["provider"] == "builtin" and recall["provider"] == "hindsight"
    assert hooks(builtin, "tool") == [("tool", "memory", {"action": "add"}, {"user_id": "alice"})]
    assert hooks(external, "tool") == [("tool", "recall", {"query": "coffee"}, {})]


def test_an_unknown_tool_is_a_json_error_listing_the_tools(manager: MemoryManager) -> None:
    manager.add_provider(Recorder("hindsight", tools=["recall"]))

    answer = json.loads(manager.handle_tool_call("forget_everything", {}))

    assert answer["success"] is False
    assert "forget_everything" in answer["error"]
    assert "memory" in answer["error"] and "recall" in answer["error"]


def test_arguments_may_arrive_as_json_text(manager: MemoryManager, builtin: Recorder) -> None:
    manager.handle_tool_call("memory", '{"action": "add", "content": "likes tea"}')
    manager.handle_tool_call("memory", "")
    manager.handle_tool_call("memory", None)

    assert [call[2] for call in hooks(builtin, "tool")] == [
        {"action": "add", "content": "likes tea"},
        {},
        {},
    ]


@pytest.mark.parametrize("bad", ['{"action": "add",', "[1, 2]", '"add"', 42])
def test_invalid_arguments_are_a_json_error(
    manager: MemoryManager, builtin: Recorder, bad: Any
) -> None:
    answer = json.loads(manager.handle_tool_call("memory", bad))

    assert answer["success"] is False
    assert "JSON object" in answer["error"]
    assert hooks(builtin, "tool") == []


def test_a_tool_that_raises_becomes_a_json_error(
    manager: MemoryManager, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    manager.add_provider(Recorder("hindsight", tools=["recall"], fail=["handle_tool_call"]))

    answer = json.loads(manager.handle_tool_call("recall", {"query": "x"}))

    assert answer["success"] is False
    assert "hindsight broke in handle_tool_call" in answer["error"]
    assert "hindsight" in caplog.text


def test_a_memvault_error_in_a_tool_keeps_its_message(builtin: Recorder) -> None:
    class Strict(Recorder):
        def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
            raise ValidationError("content is empty; pass the text to remember")

    manager = MemoryManager(Strict("builtin", tools=["memory"]))

    answer = json.loads(manager.handle_tool_call("memory", {}))

    assert answer == {
        "success": False,
        "error": "tool 'memory' failed: content is empty; pass the text to remember",
    }


# -- recall ---------------------------------------------------------------------------


def test_prefetch_joins_provider_blocks_in_order(manager: MemoryManager, builtin: Recorder) -> None:
    external = Recorder("hindsight", recall="<memory-context>likes tea</memory-context>")
    manager.add_provider(external)

    text = manager.prefetch_all("what do I drink?", thread_id="t1")

    assert text == "BUILTIN RECALL\n\n<memory-context>likes tea</memory-context>"
    assert hooks(builtin, "prefetch") == [("prefetch", "what do I drink?", "t1")]
    assert hooks(external, "prefetch") == [("prefetch", "what do I drink?", "t1")]


def test_empty_prefetch_blocks_are_left_out(manager: MemoryManager) -> None:
    manager.add_provider(Recorder("hindsight", recall="  \n"))

    assert manager.prefetch_all("q") == "BUILTIN RECALL"


def test_a_slow_external_prefetch_is_skipped(
    manager: MemoryManager, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    release = threading.Event()
    manager.add_provider(Recorder("hindsight", recall="LATE", prefetch_gate=release))

    started = time.monotonic()
    try:
        text = manager.prefetch_all("q")
        elapsed = time.monotonic() - started
    finally:
        release.set()

    assert text == "BUILTIN RECALL"
    assert elapsed < 5  # bounded by the 0.3 s timeout, not by the 10 s the provider would take
    assert "hindsight" in caplog.text and "did not answer" in caplog.text


def test_a_raising_external_degrades_to_a_warning(
    manager: MemoryManager, builtin: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    broken = Recorder(
        "hindsight",
        fail=["prefetch", "queue_prefetch", "sync_turn", "on_session_switch", "on_memory_write"],
    )
    manager.add_provider(broken)

    text = manager.prefetch_all("q")
    manager.queue_prefetch_all("q")
    manager.sync_all("hi", "hello", turn_index=1)
    manager.on_session_switch_all("t2", reset=True)
    manager.on_memory_write("add", "user", "likes tea")
    assert manager.flush(timeout=5)

    # The turn carried on: the builtin still answered and still got the turn.
    assert text == "BUILTIN RECALL"
    assert builtin.turns == [("hi", "hello", "", 1)]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for hook in ("prefetch", "queue_prefetch", "sync_turn", "on_session_switch", "on_memory_write"):
        assert any("hindsight" in m and hook in m for m in warnings), hook


def test_a_raising_builtin_prefetch_does_not_propagate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    manager = MemoryManager(Recorder("builtin", fail=["prefetch"]))
    manager.add_provider(Recorder("hindsight", recall="EXTERNAL RECALL"))

    assert manager.prefetch_all("q") == "EXTERNAL RECALL"
    assert "builtin" in caplog.text


def test_queue_prefetch_reaches_every_provider(manager: MemoryManager, builtin: Recorder) -> None:
    external = Recorder("hindsight")
    manager.add_provider(external)

    manager.queue_prefetch_all("next", thread_id="t1")

    assert hooks(builtin, "queue_prefetch") == [("queue_prefetch", "next", "t1")]
    assert hooks(external, "queue_prefetch") == [("queue_prefetch", "next", "t1")]


# -- retention ------------------------------------------------------------------------


def test_sync_all_does_not_wait_for_providers(builtin: Recorder) -> None:
    gate = threading.Event()
    external = Recorder("hindsight", sync_gate=gate)
    manager = MemoryManager(builtin)
    manager.add_provider(external)

    try:
        # Every call returns while the external is still blocked on the gate.
        for index in range(1, 6):
            manager.sync_all(
                f"user {index}", f"assistant {index}", thread_id="t1", turn_index=index
            )
        assert manager.flush(timeout=0.05) is False
        assert external.turns == []
    finally:
        gate.set()

    assert manager.flush(timeout=10) is True
    expected = [(f"user {i}", f"assistant {i}", "t1", i) for i in range(1, 6)]
    assert builtin.turns == expected
    assert external.turns == expected
    manager.shutdown_all()


def test_shutdown_drains_the_sync_queue(builtin: Recorder) -> None:
    gate = threading.Event()
    external = Recorder("hindsight", sync_gate=gate)
    manager = MemoryManager(builtin)
    manager.add_provider(external)

    for index in range(1, 101):
        manager.sync_all(f"u{index}", f"a{index}", turn_index=index)
    gate.set()
    manager.shutdown_all()

    assert [turn[3] for turn in builtin.turns] == list(range(1, 101))
    assert [turn[3] for turn in external.turns] == list(range(1, 101))
    # Each provider was shut down once, after its last turn.
    for provider in (builtin, external):
        assert provider.calls[-1] == ("shutdown",)
        assert hooks(provider, "shutdown") == [("shutdown",)]


def test_shutdown_is_idempotent_and_tolerates_failures(
    builtin: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    external = Recorder("hindsight", fail=["shutdown"])
    manager = MemoryManager(builtin)
    manager.add_provider(external)

    manager.shutdown_all()
    manager.shutdown_all()

    assert hooks(builtin, "shutdown") == [("shutdown",)]
    assert hooks(external, "shutdown") == [("shutdown",)]
    assert "shutdown" in caplog.text


def test_a_turn_after_shutdown_is_dropped_with_a_warning(
    builtin: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    manager = MemoryManager(builtin)
    manager.shutdown_all()

    manager.sync_all("late", "reply", turn_index=7)

    assert manager.flush(timeout=1) is True
    assert builtin.turns == []
    assert "not synced" in caplog.text
    with pytest.raises(ConfigError, match="shut down"):
        manager.add_provider(Recorder("hindsight"))


def test_the_manager_is_a_context_manager(builtin: Recorder) -> None:
    with MemoryManager(builtin) as manager:
        manager.sync_all("hi", "hello", turn_index=1)

    assert builtin.turns == [("hi", "hello", "", 1)]
    assert builtin.calls[-1] == ("shutdown",)


# -- hooks ----------------------------------------------------------------------------


def test_memory_writes_reach_externals_only(manager: MemoryManager, builtin: Recorder) -> None:
    external = Recorder("hindsight")
    manager.add_provider(external)
    metadata = {"user_id": "alice", "tool_name": "memory"}

    manager.on_memory_write("add", "user", "likes tea", metadata)

    assert hooks(builtin, "write") == []
    assert hooks(external, "write") == [("write", "add", "user", "likes tea", metadata)]


def test_session_switch_reaches_every_provider(manager: MemoryManager, builtin: Recorder) -> None:
    external = Recorder("hindsight")
    manager.add_provider(external)

    manager.on_session_switch_all("t2", parent_thread_id="t1", reset=False, reason="branch")

    expected = [("switch", "t2", "t1", False, {"reason": "branch"})]
    assert hooks(builtin, "switch") == expected
    assert hooks(external, "switch") == expected
