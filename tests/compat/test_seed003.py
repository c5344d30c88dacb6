"""Seed 003 — the ``MemoryProvider`` interface (DeerFlow's ``provider.py``), from its text.

Each test names the part of the seed it checks: the exact hook signatures, and what the
``on_memory_write`` hook receives (``metadata`` = ``user_id`` / ``agent_id`` /
``thread_id`` / ``tool_name``; on ``remove``, the removed entry as ``content``).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from memvault.agent.manager import MemoryManager
from memvault.agent.provider import MemoryProvider
from memvault.agent.providers.builtin import BuiltinFileProvider


class Mirror(MemoryProvider):
    """An external provider written to seed 003: it records the writes it is told of."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, str, str, dict[str, Any] | None]] = []

    @property
    def name(self) -> str:
        return "mirror"

    def is_available(self) -> bool:
        return True

    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        pass

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []

    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.writes.append((action, target, content, metadata))


def _parameters(function: Any) -> list[tuple[str, Any, Any]]:
    return [
        (p.name, p.kind, p.default)
        for p in inspect.signature(function).parameters.values()
        if p.name != "self"
    ]


def test_hooks_have_the_seeds_signatures() -> None:
    """seed 003: ``sync_turn``, ``on_session_switch`` and ``on_memory_write`` as printed."""
    kw, pos = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    var_kw = inspect.Parameter.VAR_KEYWORD
    empty = inspect.Parameter.empty
    assert _parameters(MemoryProvider.sync_turn) == [
        ("user_content", pos, empty),
        ("assistant_content", pos, empty),
        ("thread_id", kw, ""),
        ("turn_index", kw, None),
    ]
    assert _parameters(MemoryProvider.on_session_switch) == [
        ("new_thread_id", pos, empty),
        ("parent_thread_id", kw, ""),
        ("reset", kw, False),
        ("kwargs", var_kw, empty),
    ]
    assert _parameters(MemoryProvider.on_memory_write) == [
        ("action", pos, empty),
        ("target", pos, empty),
        ("content", pos, empty),
        ("metadata", pos, None),
    ]
    assert _parameters(MemoryProvider.handle_tool_call) == [
        ("tool_name", pos, empty),
        ("args", pos, empty),
        ("kwargs", var_kw, empty),
    ]


def test_on_memory_write_metadata_names_thread_and_tool(tmp_path: Path) -> None:
    """seed 003 ``on_memory_write``: metadata carries ``user_id`` / ``agent_id`` /
    ``thread_id`` / ``tool_name``; on ``remove`` the content is the removed entry."""
    mirror = Mirror()
    manager = MemoryManager(BuiltinFileProvider())
    assert manager.add_provider(mirror)
    manager.initialize_all(user_id="u1", agent_id="coder", thread_id="t1", base_dir=str(tmp_path))
    try:
        added = manager.handle_tool_call(
            "memory", {"action": "add", "target": "user", "content": "Name is Zhang San"}
        )
        assert json.loads(added)["success"] is True
        manager.on_session_switch_all("t2", parent_thread_id="t1", reset=False)
        removed = manager.handle_tool_call(
            "memory", {"action": "remove", "target": "user", "old_text": "Zhang"}
        )
        assert json.loads(removed)["success"] is True
        builtin = manager.builtin
        assert isinstance(builtin, BuiltinFileProvider)
        builtin.add("memory", "Deploys with make release")  # a direct call, not a tool
    finally:
        manager.shutdown_all()

    assert [(a, t, c) for a, t, c, _ in mirror.writes] == [
        ("add", "user", "Name is Zhang San"),
        ("remove", "user", "Name is Zhang San"),
        ("add", "memory", "Deploys with make release"),
    ]
    first, second, third = (m for *_, m in mirror.writes)
    assert first == {
        "user_id": "u1",
        "agent_id": "coder",
        "thread_id": "t1",
        "tool_name": "memory",
    }
    assert second is not None and second["thread_id"] == "t2"
    assert second["tool_name"] == "memory"
    assert third is not None and third["tool_name"] == "" and third["thread_id"] == "t2"
