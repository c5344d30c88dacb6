"""The LLM side of memvault: one client for OpenAI-compatible chat completions.

* :mod:`.client` — ``ChatClient`` (sync) and ``AsyncChatClient`` over one request and
  one parse: retries with exponential backoff and jitter on transient failures, the
  token counts of every answer (``Completion``), personal data redacted before it leaves;
* :mod:`.metered` — ``MeteredLLM``: every call of the engine's bound to an operation and a
  user, checked against the daily token budgets and recorded in the store's ledger;
* :mod:`.replies` — JSON answers: parsed tolerantly (code fences, prose around the
  object, trailing commas), validated with pydantic, asked again once with the problem
  when they do not fit, then reported;
* :mod:`.reflect` — the prompt that answers a question from recalled memories.

Its errors live in the one tree of :mod:`memvault.errors`, on the upstream branch::

    UpstreamError
    ├── LLMError              the model endpoint failed or answered in an unknown shape
    └── LLMUnavailableError   no model is configured (set MEMVAULT_LLM_BASE_URL / _MODEL)
"""

from __future__ import annotations

from ..errors import LLMError, LLMUnavailableError
from .client import AsyncChatClient, Chat, ChatClient, Completion, LLMFor
from .metered import MeteredCall, MeteredLLM, Usage
from .reflect import REFLECT_NO_MEMORIES, REFLECT_SYSTEM_PROMPT, reflect_messages
from .replies import ask_json, ask_json_async, parse_json

__all__ = [
    "REFLECT_NO_MEMORIES",
    "REFLECT_SYSTEM_PROMPT",
    "AsyncChatClient",
    "Chat",
    "ChatClient",
    "Completion",
    "LLMError",
    "LLMFor",
    "LLMUnavailableError",
    "MeteredCall",
    "MeteredLLM",
    "Usage",
    "ask_json",
    "ask_json_async",
    "parse_json",
    "reflect_messages",
]
