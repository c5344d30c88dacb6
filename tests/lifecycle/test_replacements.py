"""A detected replacement (issue 16 item 4): with an LLM configured and
``lifecycle.detect_replacements`` on, ``add`` asks the model (a loopback server speaking
the chat-completions wire format) whether the new fact replaces a similar current one."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault import Vault, VaultConfig, load_config
from memvault.config import LLMConfig
from memvault.lifecycle.replacements import REPLACEMENT_SYSTEM_PROMPT, parse_replacement
from tests.fakes.openai_chat import FakeChatServer, Reply


def _config(tmp_path: Path, llm: FakeChatServer | None, *, detect: bool = True) -> VaultConfig:
    config = load_config(
        environ={},
        home=tmp_path / "home",
        embedding={"provider": "none"},
        lifecycle={"detect_replacements": detect},
    )
    if llm is None:
        return config
    return config.model_copy(
        update={"llm": LLMConfig(base_url=llm.base_url, api_key="test", model="tiny")}
    )


def test_the_model_says_which_fact_is_replaced(tmp_path: Path) -> None:
    with FakeChatServer() as llm, Vault(config=_config(tmp_path, llm)) as v:
        berlin = v.add("Alice lives in Berlin", user_id="alice")
        assert llm.requests == []  # nothing similar stored yet: nothing asked
        llm.replies.append(Reply.text(f'Here you go:\n```json\n{{"replaces": "{berlin.id}"}}\n```'))
        munich = v.add("Alice lives in Munich now", user_id="alice")
        assert munich.supersedes == berlin.id
        assert v.get(berlin.id, user_id="alice").superseded_by == munich.id
        assert [h.entry.id for h in v.search("alice lives", user_id="alice")] == [munich.id]
        (asked,) = llm.requests
        assert asked["messages"][0]["content"] == REPLACEMENT_SYSTEM_PROMPT
        assert f"[{berlin.id}] Alice lives in Berlin" in asked["messages"][1]["content"]
        assert "Alice lives in Munich now" in asked["messages"][1]["content"]
        # A compatible fact replaces nothing.
        llm.replies.append(Reply.text('{"replaces": null}'))
        coffee = v.add("Alice lives near a good coffee shop", user_id="alice")
        assert coffee.supersedes is None
        assert v.count(user_id="alice") == 2


def test_an_id_the_model_invents_or_an_unreachable_model_replaces_nothing(
    tmp_path: Path,
) -> None:
    with FakeChatServer() as llm, Vault(config=_config(tmp_path, llm)) as v:
        v.add("Bob's team is Payments", user_id="bob")
        llm.replies.append(Reply.text('{"replaces": "0123456789abcdef"}'))
        assert v.add("Bob's team is Search", user_id="bob").supersedes is None
        # No reply left: the fake answers 500, the write goes on without supersession.
        assert v.add("Bob's team is Growth", user_id="bob").supersedes is None
        assert v.count(user_id="bob") == 3


@pytest.mark.parametrize("detect", [True, False])
def test_no_llm_or_switched_off_means_no_question(tmp_path: Path, detect: bool) -> None:
    with FakeChatServer([Reply.text("unused")]) as llm:
        configured = None if detect else llm
        with Vault(config=_config(tmp_path, configured, detect=detect)) as v:
            v.add("Carol likes tea", user_id="carol")
            assert v.add("Carol likes coffee", user_id="carol").supersedes is None
        assert llm.requests == []


def test_replies_are_read_tolerantly() -> None:
    ids = ["aaaa1111", "bbbb2222"]
    assert parse_replacement('{"replaces": "aaaa1111"}', ids) == "aaaa1111"
    assert parse_replacement('Sure! {"replaces": "bbbb2222"} (the old city)', ids) == "bbbb2222"
    assert parse_replacement('{"replaces": null}', ids) is None
    assert parse_replacement('{"replaces": "zzzz9999"}', ids) is None
    assert parse_replacement("It replaces bbbb2222.", ids) == "bbbb2222"
    assert parse_replacement("aaaa1111 or bbbb2222, hard to say", ids) is None
    assert parse_replacement("no", ids) is None
    assert parse_replacement("{not json", ids) is None
