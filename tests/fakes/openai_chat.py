"""A loopback server speaking OpenAI's ``POST /v1/chat/completions`` wire format.

It plays back scripted replies in order, one per request: ``Reply.text(...)`` for an
assistant message, ``Reply.tool_call(...)`` for a function call. Every request
body is recorded, so a test can check exactly what a client sent to the model.
Only non-streaming completions are served (``ChatOpenAI.invoke`` does not stream);
a request with ``"stream": true`` gets a 400 saying so, rather than a wrong answer.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .loopback import LoopbackJSONServer


@dataclass(frozen=True)
class Reply:
    """One scripted assistant message: text, tool calls, or both."""

    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200  # another status: an error answer with ``content`` as its message
    usage: tuple[int, int] = (1, 1)  # the prompt and completion tokens reported
    delay: float = 0.0  # seconds the answer takes (a client timeout shorter than this fires)

    @classmethod
    def text(cls, content: str) -> Reply:
        return cls(content=content)

    @classmethod
    def tool_call(cls, name: str, arguments: dict[str, Any]) -> Reply:
        return cls(tool_calls=[(name, arguments)])

    @classmethod
    def error(cls, status: int, message: str = "scripted failure") -> Reply:
        return cls(content=message, status=status)


class FakeChatServer(LoopbackJSONServer):
    """``with FakeChatServer([...]) as server:`` serves at ``server.base_url`` (ends in /v1)."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        api_key: str | None = "test",
        respond: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> None:
        """``respond``, when given, answers each request the scripted ``replies`` leave
        unanswered (it sees the request body): a fake model that reads its prompt."""
        super().__init__()
        self.replies: list[Reply] = list(replies)
        self.respond = respond
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.served: list[Reply] = []  # the replies answered with, in order
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def tokens(self) -> tuple[int, int]:
        """The prompt and completion tokens of the answers served (errors count none)."""
        with self._lock:
            ok = [r for r in self.served if r.status == 200]
        return sum(r.usage[0] for r in ok), sum(r.usage[1] for r in ok)

    def _error(self, status: int, message: str) -> tuple[int, dict[str, Any]]:
        return status, {"error": {"message": message, "type": "invalid_request_error"}}

    def answer(
        self, path: str, auth: str | None, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(body)
            if path != "/v1/chat/completions":
                return self._error(404, f"no route {path}")
            if self.api_key and auth != f"Bearer {self.api_key}":
                return self._error(401, "invalid api key")
            if body.get("stream"):
                return self._error(400, "this fake serves non-streaming completions only")
            if not self.replies and self.respond is None:
                return self._error(500, "the fake has no scripted reply left")
            reply = self.replies.pop(0) if self.replies else self.respond(body)  # type: ignore[misc]
            self.served.append(reply)
            number = next(self._ids)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status != 200:
            return self._error(reply.status, reply.content or "scripted failure")
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{number}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for i, (name, arguments) in enumerate(reply.tool_calls)
            ]
        return 200, {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.usage[0],
                "completion_tokens": reply.usage[1],
                "total_tokens": sum(reply.usage),
            },
        }
