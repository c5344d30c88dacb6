"""The LLM domain classifier (issue 16 item 6): with ``domains.llm`` and a configured
model, a write without a domain is classified by the model (work / life / unknown),
through the real ``ChatClient`` over HTTP to a loopback server speaking the chat
completions protocol; on any failure of the model the rule set answers, and the write
never fails."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from memvault import Domain, Vault, VaultConfig
from memvault.config import LLMConfig
from memvault.lifecycle.domains import DOMAIN_PROMPT, parse_domain
from tests.fakes.openai_chat import FakeChatServer, Reply


def _with_llm(config: VaultConfig, base_url: str, *, on: bool = True) -> VaultConfig:
    return config.model_copy(
        update={
            "llm": LLMConfig(base_url=base_url, api_key="test", model="tiny"),
            "domains": config.domains.model_copy(update={"llm": on}),
        }
    )


@pytest.mark.parametrize(
    ("reply", "domain"),
    [
        ("work", Domain.WORK),
        ("Life.", Domain.LIFE),
        ('"WORK"', Domain.WORK),
        ("**life**", Domain.LIFE),
        ("The answer is: work", Domain.WORK),
        ('{"domain": "life"}', Domain.LIFE),
        ("unknown", None),
        ("Neither.", None),
        ("生活", Domain.LIFE),
        ("工作", Domain.WORK),
    ],
)
def test_replies_are_read_tolerantly(reply: str, domain: Domain | None) -> None:
    assert parse_domain(reply) == domain


@pytest.mark.parametrize("reply", ["", "banana", "42", "I cannot tell you that"])
def test_a_reply_naming_no_domain_is_refused(reply: str) -> None:
    with pytest.raises(ValueError):
        parse_domain(reply)


def test_the_model_names_the_domain(config: VaultConfig) -> None:
    replies = [Reply.text("work"), Reply.text("Life"), Reply.text("unknown")]
    with FakeChatServer(replies) as llm, Vault(config=_with_llm(config, llm.base_url)) as v:
        # None of these has a word of the rule set: the rules alone would say nothing.
        a = v.add("Alice reviews pull requests for the payments team", user_id="alice")
        b = v.add("Alice grows tomatoes on her balcony", user_id="alice")
        c = v.add("Alice prefers tea", user_id="alice")
        named = v.add("Alice likes jazz", user_id="alice", domain="work")  # never asked
        sent = list(llm.requests)
    assert (a.domain, b.domain, c.domain, named.domain) == (
        Domain.WORK,
        Domain.LIFE,
        None,
        Domain.WORK,
    )
    assert len(sent) == 3
    assert sent[0]["messages"][0] == {"role": "system", "content": DOMAIN_PROMPT}
    assert "pull requests for the payments team" in sent[0]["messages"][1]["content"]
    assert sent[0]["model"] == "tiny" and sent[0]["temperature"] == 0.0


def test_off_by_default_even_with_a_model(config: VaultConfig) -> None:
    with FakeChatServer([]) as llm, Vault(config=_with_llm(config, llm.base_url, on=False)) as v:
        e = v.add("my daughter's birthday is in May", user_id="alice")
        assert llm.requests == []
    assert e.domain is Domain.LIFE  # the rule set


def test_any_failure_falls_back_to_the_rules(
    config: VaultConfig, caplog: pytest.LogCaptureFixture
) -> None:
    # A reply naming nothing, then an error answer (the fake has no reply left: HTTP 500).
    with (
        FakeChatServer([Reply.text("banana")]) as llm,
        Vault(config=_with_llm(config, llm.base_url)) as v,
        caplog.at_level(logging.WARNING),
    ):
        first = v.add("the client meeting moved to Monday", user_id="alice")
        second = v.add("we went hiking with friends on the weekend", user_id="alice")
    assert (first.domain, second.domain) == (Domain.WORK, Domain.LIFE)
    assert sum("did not classify a domain" in r.getMessage() for r in caplog.records) == 2


def test_an_unreachable_model_falls_back_to_the_rules(config: VaultConfig) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = _with_llm(config, f"http://127.0.0.1:{port}/v1")
    with Vault(config=cfg) as v:
        e = v.add("deadline for the quarterly budget", user_id="alice")
    assert e.domain is Domain.WORK


def test_import_keeps_named_domains_and_asks_for_the_rest(
    config: VaultConfig, tmp_path: Path
) -> None:
    with (
        FakeChatServer([Reply.text("life")]) as llm,
        Vault(config=_with_llm(config, llm.base_url)) as v,
    ):
        made = v.add_many(
            [
                {"content": "Alice plays the cello"},
                {"content": "Alice leads the platform team", "domain": "work"},
            ],
            user_id="alice",
        )
        asked = len(llm.requests)
    assert [e.domain for e in made] == [Domain.LIFE, Domain.WORK] and asked == 1
