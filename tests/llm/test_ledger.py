"""The token ledger and budgets (issue 17 item 2): every LLM call the engine makes is
recorded (operation, model, tokens, latency, outcome, user), and the daily budgets stop
further calls with a clear error. A loopback chat-completions server stands in for the
model; the vault's clock decides the day."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import Vault, VaultConfig
from memvault.config import LLMConfig
from memvault.errors import LLMBudgetError, LLMError
from tests.cli_process import run_cli
from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.gateway_server import live_gateway

ASK = [{"role": "user", "content": "hello"}]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _vault(config: VaultConfig, base_url: str, clock: Clock, **budgets: int) -> Vault:
    llm = LLMConfig(base_url=base_url, model="tiny", api_key="test", retries=0, **budgets)  # type: ignore[arg-type]
    return Vault(
        ":memory:", config=config.model_copy(update={"llm": llm}), embedder=None, clock=clock
    )


def test_every_call_is_on_the_ledger_with_its_tokens(config: VaultConfig) -> None:
    clock = Clock()
    replies = [Reply(content="a", usage=(120, 8)), Reply(content="b", usage=(30, 2))]
    with FakeChatServer(replies) as chat, _vault(config, chat.base_url, clock) as vault:
        call = vault.llm_call("extract", user_id="alice", agent_id="coder")
        assert call is not None and call.complete(ASK) == "a"
        other = vault.llm_call("reflect", user_id="bob")
        assert other is not None and other.complete(ASK) == "b"
        mine = vault.llm_usage(user_id="alice")
        assert (mine.calls, mine.tokens) == (1, 128)
        [row] = mine.rows
        assert (row.operation, row.model, row.tokens_in, row.tokens_out) == (
            "extract",
            "tiny",
            120,
            8,
        )
        [record] = vault.store.usage_records("alice")
        assert record.agent_id == "coder" and record.outcome == "ok" and record.seconds >= 0
        everyone = vault.llm_usage()
        assert (everyone.calls, everyone.tokens, everyone.user_id) == (2, 160, None)


def test_no_llm_means_no_call_and_an_empty_ledger(vault: Vault) -> None:
    assert vault.llm_call("extract", user_id="alice") is None
    assert vault.llm_usage(user_id="alice").calls == 0


def test_a_failed_call_is_recorded_as_an_error(config: VaultConfig) -> None:
    clock = Clock()
    with (
        FakeChatServer([Reply.error(400, "bad")]) as chat,
        _vault(config, chat.base_url, clock) as vault,
    ):
        call = vault.llm_call("extract", user_id="alice")
        assert call is not None
        with pytest.raises(LLMError):
            call.complete(ASK)
        [row] = vault.llm_usage(user_id="alice").rows
        assert (row.calls, row.errors, row.tokens) == (1, 1, 0)


def test_the_per_user_budget_refuses_further_calls_until_the_next_day(config: VaultConfig) -> None:
    clock = Clock()
    replies = [Reply(content="x", usage=(90, 20)), Reply(content="y"), Reply(content="z")]
    with (
        FakeChatServer(replies) as chat,
        _vault(config, chat.base_url, clock, daily_tokens_per_user=100) as vault,
    ):
        alice = vault.llm_call("extract", user_id="alice")
        assert alice is not None
        alice.complete(ASK)  # 110 tokens: the call that crosses the budget is answered
        with pytest.raises(LLMBudgetError) as err:
            alice.complete(ASK)
        assert "110 of the 100" in str(err.value) and "llm.daily_tokens_per_user" in str(err.value)
        assert len(chat.requests) == 1  # the refused call never reached the model
        bob = vault.llm_call("extract", user_id="bob")
        assert bob is not None and bob.complete(ASK) == "y"  # another user's budget
        today = vault.llm_usage(user_id="alice")
        assert today.left == 0 and today.budget == 100
        assert [(r.calls, r.errors) for r in today.rows] == [(2, 1)]  # the refusal is recorded
        clock.now += timedelta(hours=3)  # past midnight UTC: a new day
        assert alice.complete(ASK) == "z"
        assert vault.llm_usage(user_id="alice", days=2).calls == 3


def test_the_global_budget_counts_every_user(config: VaultConfig) -> None:
    clock = Clock()
    replies = [Reply(content="x", usage=(40, 10)), Reply(content="y", usage=(40, 10))]
    with (
        FakeChatServer(replies) as chat,
        _vault(config, chat.base_url, clock, daily_tokens=100) as vault,
    ):
        for user in ("alice", "bob"):
            call = vault.llm_call("extract", user_id=user)
            assert call is not None
            call.complete(ASK)
        carol = vault.llm_call("extract", user_id="carol")
        assert carol is not None
        with pytest.raises(LLMBudgetError, match=r"llm\.daily_tokens"):
            carol.complete(ASK)
        assert vault.llm_usage().left == 0


def test_engine_features_use_the_ledger_and_fall_back_when_refused(config: VaultConfig) -> None:
    clock = Clock()
    verdict = Reply(content='{"conflicts": []}', usage=(200, 5))
    with (
        FakeChatServer([verdict]) as chat,
        _vault(config, chat.base_url, clock, daily_tokens_per_user=100) as vault,
    ):
        old = vault.add("Use PostgreSQL for the main database", user_id="alice", status="adopted")
        first = vault.add("Use MySQL for the main database", user_id="alice", status="proposed")
        assert "conflicts_with" not in first.metadata  # the model said: no conflict
        second = vault.add("Use SQLite for the main database", user_id="alice", status="proposed")
        assert second.metadata["conflicts_with"] == [old.id]  # refused: the word rule decided
        [row] = vault.llm_usage(user_id="alice").rows
        assert (row.operation, row.calls, row.errors, row.tokens) == (
            "decision_conflicts",
            2,
            1,
            205,
        )


def test_bad_usage_arguments(vault: Vault) -> None:
    from memvault.errors import ValidationError

    with pytest.raises(ValidationError) as err:
        vault.llm_usage(user_id="alice", days=0)
    assert err.value.context["field"] == "days"
    with pytest.raises(ValidationError):
        vault.llm_usage(user_id="")


def test_http_usage_and_the_status_screen(config: VaultConfig) -> None:
    with FakeChatServer([Reply(content="Lisbon.", usage=(50, 3))]) as chat:
        llm = LLMConfig(base_url=chat.base_url, model="tiny", api_key="test")
        with live_gateway(config.model_copy(update={"llm": llm})) as live:
            alice, bob, admin = (live.client(k) for k in (live.alice, live.bob, live.admin))
            alice.post("/v1/memories", json={"content": "Alice lives in Lisbon"})
            answer = alice.post("/api/memory/v2/reflect", json={"query": "where does Alice live?"})
            assert answer.status_code == 200, answer.text
            mine = alice.get("/v1/usage").json()
            assert mine["user_id"] == "alice" and mine["calls"] == 1 and mine["tokens_in"] == 50
            assert mine["by_operation"][0]["operation"] == "reflect"
            assert bob.get("/v1/usage").json()["calls"] == 0
            assert bob.get("/v1/usage", params={"user_id": "alice"}).status_code == 404
            assert admin.get("/v1/usage").json()["calls"] == 1  # everyone's
            assert admin.get("/v1/usage", params={"user_id": "bob"}).json()["calls"] == 0
            assert alice.get("/v1/usage", params={"days": 0}).status_code == 422
            status = alice.get("/api/memory/v2/status").json()
            assert status["llm_usage"]["calls"] == 1


def test_cli_usage(config: VaultConfig, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with FakeChatServer([Reply(content="ok", usage=(11, 4))]) as chat:
        llm = LLMConfig(base_url=chat.base_url, model="tiny", api_key="test")
        cfg = config.model_copy(update={"home": home, "db_path": None, "llm": llm})
        with Vault(config=cfg, embedder=None) as vault:
            call = vault.llm_call("extract", user_id="alice")
            assert call is not None
            call.complete(ASK)
    shown = run_cli(home, "usage", "--user", "alice", "--json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert (report["calls"], report["tokens_in"], report["tokens_out"]) == (1, 11, 4)
    text = run_cli(home, "usage").stdout
    assert "all users: 1 LLM calls, 15 tokens" in text and "extract (tiny)" in text
    bad = run_cli(home, "usage", "--days", "0")
    assert bad.returncode == 2 and "--days" in bad.stderr
