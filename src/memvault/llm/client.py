"""Chat completions against any OpenAI-compatible ``{base_url}/chat/completions``.

``ChatClient`` and ``AsyncChatClient`` share everything but the HTTP call: the request
body (:func:`request_body`, which redacts personal data and secrets from every message
before it leaves — the egress rule), the reading of the answer (:func:`read_completion`)
and the retry policy (:func:`retry_policy`, tenacity): a transport failure, a timeout, or
HTTP 408 / 409 / 425 / 429 / 5xx is tried again up to ``llm.retries`` times, waiting a
random time up to ``llm.backoff_s`` × 2^attempt (full jitter, capped at 30 s), so many
workers that fail together do not retry together. Other statuses (a wrong key, a bad
request) fail at once: repeating them cannot help.

httpx is imported by the clients when they are made and used, not with the module: the
engine imports this module for its protocols, and a process that never calls a model
(the ``memvault`` command, most of all) should not pay for the HTTP stack.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .._version import __version__
from ..config import LLMConfig
from ..errors import LLMError, LLMUnavailableError

if TYPE_CHECKING:
    import httpx
    from tenacity import AsyncRetrying, Retrying

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_WAIT_S = 30.0


class Chat(Protocol):
    """What the engine's LLM features call: one answer to some messages (a
    ``ChatClient``, or a ``MeteredCall`` that budgets and records it)."""

    def complete(
        self, messages: Sequence[dict[str, str]], *, temperature: float | None = None
    ) -> str: ...


class LLMFor(Protocol):
    """The engine's LLM for one operation of one user (``Vault.llm_call``): None when no
    LLM is configured."""

    def __call__(
        self, operation: str, *, user_id: str, agent_id: str | None = None
    ) -> Chat | None: ...


class TransientLLMError(LLMError):
    """A failure that may pass: the call is tried again (the last one is what callers see)."""


@dataclass(frozen=True, slots=True)
class Completion:
    """One answer: its text, the tokens the endpoint counted (0 when it reports none),
    the model that answered, and how long the call took, retries included."""

    text: str
    tokens_in: int
    tokens_out: int
    model: str
    seconds: float
    attempts: int


def unavailable() -> LLMUnavailableError:
    return LLMUnavailableError(
        "no LLM is configured: set MEMVAULT_LLM_BASE_URL (an OpenAI-compatible base "
        "ending in /v1) and MEMVAULT_LLM_MODEL, then restart the server"
    )


def request_body(
    config: LLMConfig, messages: Sequence[dict[str, str]], temperature: float | None
) -> dict[str, Any]:
    """The JSON body of one request; every message's text redacted first."""
    from ..security.pii import redact  # the detectors load when a model is first called

    return {
        "model": config.model,
        "messages": [
            {**m, "content": redact(m["content"]).text} if m.get("content") else dict(m)
            for m in messages
        ],
        "temperature": config.temperature if temperature is None else temperature,
        "max_tokens": config.max_tokens,
    }


def _error_text(response: httpx.Response) -> str:
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text[:200]
    return str(message)


def read_completion(config: LLMConfig, response: httpx.Response) -> tuple[str, int, int, str]:
    """The text, token counts and model of a response; ``LLMError`` for anything else
    (``TransientLLMError`` for the statuses worth another try)."""
    if response.status_code != 200:
        kind = TransientLLMError if response.status_code in RETRY_STATUSES else LLMError
        raise kind(
            f"the LLM answered HTTP {response.status_code}: {_error_text(response)}",
            status=response.status_code,
        )
    try:
        body = response.json()
        content = body["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMError("the LLM's reply is not a chat completion") from None
    if not isinstance(content, str):
        raise LLMError("the LLM's reply has no text content")
    usage = body.get("usage") if isinstance(body, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    tokens_in = usage.get("prompt_tokens")
    tokens_out = usage.get("completion_tokens")
    model = body.get("model")
    return (
        content,
        tokens_in if isinstance(tokens_in, int) and tokens_in >= 0 else 0,
        tokens_out if isinstance(tokens_out, int) and tokens_out >= 0 else 0,
        model if isinstance(model, str) and model else str(config.model),
    )


def unreachable(config: LLMConfig, exc: httpx.HTTPError) -> TransientLLMError:
    return TransientLLMError(
        f"the LLM at {config.base_url} could not be reached ({type(exc).__name__}); "
        "check MEMVAULT_LLM_BASE_URL and that the service is up"
    )


def _policy(config: LLMConfig) -> dict[str, Any]:
    # tenacity (and the asyncio it brings) loads with the first call, not with the engine.
    from tenacity import retry_if_exception_type, stop_after_attempt, wait_random_exponential

    return {
        "stop": stop_after_attempt(config.retries + 1),
        "wait": wait_random_exponential(multiplier=config.backoff_s, max=MAX_WAIT_S),
        "retry": retry_if_exception_type(TransientLLMError),
        "reraise": True,
    }


def retry_policy(config: LLMConfig, sleep: Callable[[float], None]) -> Retrying:
    """The synchronous retry loop of one call (``sleep`` is injectable for tests)."""
    from tenacity import Retrying

    return Retrying(sleep=sleep, **_policy(config))


def async_retry_policy(
    config: LLMConfig, sleep: Callable[[float], Awaitable[None]]
) -> AsyncRetrying:
    from tenacity import AsyncRetrying

    return AsyncRetrying(sleep=sleep, **_policy(config))


def _headers(config: LLMConfig) -> dict[str, str]:
    headers = {"User-Agent": f"memvault/{__version__}"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    return headers


class ChatClient:
    """Chat completions against ``config.base_url`` (``transport`` and ``sleep`` are for
    tests: a loopback server needs neither)."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not config.configured:
            raise unavailable()
        self.config = config
        self._sleep = sleep
        import httpx

        self._http = httpx.Client(
            base_url=str(config.base_url).rstrip("/"),
            headers=_headers(config),
            timeout=config.timeout_s,
            transport=transport,
        )

    def chat(
        self, messages: Sequence[dict[str, str]], *, temperature: float | None = None
    ) -> Completion:
        """The answer to ``messages``, with its token counts; retried as the module says."""
        import httpx

        body = request_body(self.config, messages, temperature)
        started = time.perf_counter()
        attempts = 0
        for attempt in retry_policy(self.config, self._sleep):
            with attempt:
                attempts += 1
                try:
                    response = self._http.post("/chat/completions", json=body)
                except httpx.HTTPError as exc:
                    raise unreachable(self.config, exc) from None
                text, tokens_in, tokens_out, model = read_completion(self.config, response)
        return Completion(
            text, tokens_in, tokens_out, model, time.perf_counter() - started, attempts
        )

    def complete(
        self, messages: Sequence[dict[str, str]], *, temperature: float | None = None
    ) -> str:
        """The assistant's reply text to ``messages``."""
        return self.chat(messages, temperature=temperature).text

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncChatClient:
    """``ChatClient`` for asyncio code: the same request, answer and retries."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        import asyncio

        if not config.configured:
            raise unavailable()
        self.config = config
        self._sleep = sleep or asyncio.sleep
        import httpx

        self._http = httpx.AsyncClient(
            base_url=str(config.base_url).rstrip("/"),
            headers=_headers(config),
            timeout=config.timeout_s,
            transport=transport,
        )

    async def chat(
        self, messages: Sequence[dict[str, str]], *, temperature: float | None = None
    ) -> Completion:
        import httpx

        body = request_body(self.config, messages, temperature)
        started = time.perf_counter()
        attempts = 0
        async for attempt in async_retry_policy(self.config, self._sleep):
            with attempt:
                attempts += 1
                try:
                    response = await self._http.post("/chat/completions", json=body)
                except httpx.HTTPError as exc:
                    raise unreachable(self.config, exc) from None
                text, tokens_in, tokens_out, model = read_completion(self.config, response)
        return Completion(
            text, tokens_in, tokens_out, model, time.perf_counter() - started, attempts
        )

    async def complete(
        self, messages: Sequence[dict[str, str]], *, temperature: float | None = None
    ) -> str:
        return (await self.chat(messages, temperature=temperature)).text

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = [
    "RETRY_STATUSES",
    "AsyncChatClient",
    "Chat",
    "ChatClient",
    "Completion",
    "LLMFor",
    "TransientLLMError",
    "async_retry_policy",
    "read_completion",
    "request_body",
    "retry_policy",
]
