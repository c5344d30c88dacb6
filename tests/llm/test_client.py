"""The LLM client (issue 17 item 1): retries with backoff and jitter on transient
failures only, sync and async over one request and parse, token counts, and JSON answers
read tolerantly, validated, asked again once, then reported. Against a loopback server
speaking the chat-completions wire format (``tests/fakes/openai_chat.py``)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from memvault.config import LLMConfig
from memvault.errors import LLMError, LLMUnavailableError
from memvault.llm import AsyncChatClient, ChatClient, ask_json, ask_json_async, parse_json
from tests.fakes.openai_chat import FakeChatServer, Reply


def _config(base_url: str, **kw: object) -> LLMConfig:
    return LLMConfig(base_url=base_url, model="m", api_key="test", **kw)  # type: ignore[arg-type]


class Waits:
    """Records the retry waits instead of sleeping them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_transient_failures_are_retried_with_growing_jittered_waits() -> None:
    waits = Waits()
    replies = [Reply.error(503), Reply.error(429), Reply.text("fine")]
    with (
        FakeChatServer(replies) as chat,
        ChatClient(_config(chat.base_url, retries=3, backoff_s=1.0), sleep=waits) as client,
    ):
        done = client.chat([{"role": "user", "content": "hi"}])
    assert done.text == "fine" and done.attempts == 3
    assert len(chat.requests) == 3 and len(waits.waits) == 2
    # Full jitter: each wait is random in [0, backoff * 2^attempt], capped.
    assert 0 <= waits.waits[0] <= 1.0 and 0 <= waits.waits[1] <= 2.0


def test_the_last_transient_failure_is_reported_after_the_retries() -> None:
    waits = Waits()
    with (
        FakeChatServer([Reply.error(500, "overloaded")] * 3) as chat,
        ChatClient(_config(chat.base_url, retries=2), sleep=waits) as client,
        pytest.raises(LLMError) as err,
    ):
        client.complete([{"role": "user", "content": "hi"}])
    assert "HTTP 500" in str(err.value) and "overloaded" in str(err.value)
    assert err.value.context["status"] == 500
    assert len(chat.requests) == 3 and len(waits.waits) == 2


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_permanent_failures_are_not_retried(status: int) -> None:
    waits = Waits()
    with (
        FakeChatServer([Reply.error(status, "no"), Reply.text("never")]) as chat,
        ChatClient(_config(chat.base_url, retries=3), sleep=waits) as client,
        pytest.raises(LLMError) as err,
    ):
        client.complete([{"role": "user", "content": "hi"}])
    assert f"HTTP {status}" in str(err.value)
    assert len(chat.requests) == 1 and waits.waits == []


def test_an_unreachable_endpoint_is_retried_then_named() -> None:
    waits = Waits()
    config = _config("http://127.0.0.1:9/v1", retries=2, timeout_s=2)
    with ChatClient(config, sleep=waits) as client, pytest.raises(LLMError) as err:
        client.complete([{"role": "user", "content": "hi"}])
    assert "could not be reached" in str(err.value) and len(waits.waits) == 2


def test_token_counts_model_and_the_egress_rule() -> None:
    with (
        FakeChatServer([Reply(content="ok", usage=(120, 7))]) as chat,
        ChatClient(_config(chat.base_url, temperature=0.3)) as client,
    ):
        done = client.chat([{"role": "user", "content": "mail me at jo@example.com"}])
    assert (done.tokens_in, done.tokens_out, done.model) == (120, 7, "m")
    sent = chat.requests[0]
    assert sent["temperature"] == 0.3 and "jo@example.com" not in str(sent["messages"])


def test_no_configuration_is_a_clear_error() -> None:
    with pytest.raises(LLMUnavailableError, match="MEMVAULT_LLM_BASE_URL"):
        ChatClient(LLMConfig())
    with pytest.raises(LLMUnavailableError):
        AsyncChatClient(LLMConfig())


def test_the_async_client_shares_the_request_answer_and_retries() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def run(base_url: str) -> tuple[str, int]:
        async with AsyncChatClient(_config(base_url, retries=2), sleep=sleep) as client:
            done = await client.chat([{"role": "user", "content": "hi"}])
            return done.text, done.attempts

    with FakeChatServer([Reply.error(502), Reply.text("async fine")]) as chat:
        assert asyncio.run(run(chat.base_url)) == ("async fine", 2)
    assert len(waits) == 1


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
        ('Sure! Here it is: {"a": "x,}"} Hope that helps.', {"a": "x,}"}),
        ('The ids are ["x", "y",] as asked.', ["x", "y"]),
        ('{"a": "say \\"hi\\", then go",}', {"a": 'say "hi", then go'}),
        ('not {json} but {"b": 2}', {"b": 2}),
    ],
)
def test_parse_json_reads_what_models_write(answer: str, expected: object) -> None:
    assert parse_json(answer) == expected


@pytest.mark.parametrize("answer", ["", "no json here", "{broken", "[1, 2"])
def test_parse_json_says_when_there_is_none(answer: str) -> None:
    with pytest.raises(ValueError):
        parse_json(answer)


class Verdict(BaseModel):
    conflicts: list[str]
    confidence: float


def test_ask_json_validates_and_asks_again_once_with_the_problem() -> None:
    replies = [
        Reply.text('{"conflicts": "x"}'),
        Reply.text('{"conflicts": ["x"], "confidence": 0.9}'),
    ]
    with FakeChatServer(replies) as chat, ChatClient(_config(chat.base_url)) as client:
        verdict = ask_json(client, [{"role": "user", "content": "judge"}], Verdict)
    assert verdict == Verdict(conflicts=["x"], confidence=0.9)
    second = chat.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": '{"conflicts": "x"}'}
    assert "conflicts" in second[-1]["content"] and "confidence" in second[-1]["content"]


def test_ask_json_reports_two_unusable_answers() -> None:
    replies = [Reply.text("I cannot decide."), Reply.text('{"conflicts": []}')]
    with (
        FakeChatServer(replies) as chat,
        ChatClient(_config(chat.base_url)) as client,
        pytest.raises(LLMError) as err,
    ):
        ask_json(client, [{"role": "user", "content": "judge"}], Verdict)
    assert "Verdict" in str(err.value) and "confidence" in str(err.value)
    assert len(chat.requests) == 2


def test_ask_json_async() -> None:
    async def run(base_url: str) -> Verdict:
        async with AsyncChatClient(_config(base_url)) as client:
            return await ask_json_async(client, [{"role": "user", "content": "j"}], Verdict)

    replies = [Reply.text("```\n{'bad': 1}\n```"), Reply.text('{"conflicts": [], "confidence": 1}')]
    with FakeChatServer(replies) as chat:
        assert asyncio.run(run(chat.base_url)) == Verdict(conflicts=[], confidence=1.0)
