"""A loopback server speaking Anthropic's ``POST /v1/messages`` wire format.

It plays back scripted assistant turns in order, one per request: ``Turn.text(...)``
ends the conversation (``stop_reason: end_turn``), ``Turn.tool_use(...)`` asks the
client to run tools (``stop_reason: tool_use``). Every request body is recorded, so
a test can read the ``tool_result`` blocks the client sent back. Only non-streaming
requests are served. Point the real client at ``server.root_url`` (the SDK adds
``/v1/messages`` itself).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .loopback import LoopbackJSONServer


@dataclass(frozen=True)
class Turn:
    """One scripted assistant message: text, tool uses, or both."""

    text: str | None = None
    tool_uses: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @classmethod
    def say(cls, text: str) -> Turn:
        return cls(text=text)

    @classmethod
    def tool_use(cls, name: str, tool_input: dict[str, Any]) -> Turn:
        return cls(tool_uses=[(name, tool_input)])

    @classmethod
    def tool_uses_of(cls, name: str, inputs: Iterable[dict[str, Any]]) -> Turn:
        return cls(tool_uses=[(name, dict(i)) for i in inputs])


class FakeAnthropicServer(LoopbackJSONServer):
    """``with FakeAnthropicServer([...]) as server:`` serves at ``server.root_url``."""

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        super().__init__()
        self.turns: list[Turn] = list(turns)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def tool_results(self) -> list[dict[str, Any]]:
        """Every ``tool_result`` block the client sent, in order (first sight of each)."""
        seen: dict[str, dict[str, Any]] = {}
        for body in self.requests:
            for message in body.get("messages", []):
                content = message.get("content")
                if message.get("role") != "user" or not isinstance(content, list):
                    continue
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        seen.setdefault(block["tool_use_id"], block)
        return list(seen.values())

    def _error(self, status: int, message: str) -> tuple[int, dict[str, Any]]:
        return status, {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
        }

    def answer(
        self, path: str, auth: str | None, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(body)
            if path.split("?", 1)[0] != "/v1/messages":
                return self._error(404, f"no route {path}")
            if body.get("stream"):
                return self._error(400, "this fake serves non-streaming messages only")
            if not self.turns:
                return self._error(500, "the fake has no scripted turn left")
            turn = self.turns.pop(0)
            number = next(self._ids)
        content: list[dict[str, Any]] = []
        if turn.text is not None:
            content.append({"type": "text", "text": turn.text})
        for i, (name, tool_input) in enumerate(turn.tool_uses):
            content.append(
                {"type": "tool_use", "id": f"toolu_{number}_{i}", "name": name, "input": tool_input}
            )
        return 200, {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": content,
            "stop_reason": "tool_use" if turn.tool_uses else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
