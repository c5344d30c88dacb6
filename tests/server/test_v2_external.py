"""``/api/memory/v2`` search, reflect, status and bank clearing go through the external
memory the gateway was given, never to the vault directly: a real server on loopback,
serving a second implementation of the protocol that records its calls. Also what
``memory.provider`` selects from config.yaml (``builtin``: none; ``hindsight``: refused)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memvault import UnsupportedOperationError, UpstreamError, Vault, VaultConfig
from memvault.agent.external import (
    Bank,
    Banks,
    ExternalMemory,
    ExternalStatus,
    RecallBudget,
    Reflection,
)
from memvault.results.external import ExternalHit
from memvault.server.app import create_app
from memvault.server.state import ServerSettings
from tests.gateway_server import Live, live_gateway

V2 = "/api/memory/v2"


class Recorder:
    """An external memory that answers from a fixed list and records every call.

    ``fail`` maps an operation name to the error it raises instead of answering.
    """

    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail: dict[str, Exception] = {}

    def _called(self, op: str, **args: Any) -> None:
        self.calls.append((op, args))
        if op in self.fail:
            raise self.fail[op]

    def _hits(self, banks: Banks) -> list[ExternalHit]:
        work = banks.work.id if banks.work is not None else banks.user.id
        return [
            ExternalHit("f-1", "Alice keeps bees", 0.9, banks.user.id, {"type": "world"}),
            ExternalHit("f-2", "the hives are on the roof", None, work),
        ]

    def recall(
        self, query: str, *, banks: Banks, limit: int = 5, budget: RecallBudget = "mid"
    ) -> list[ExternalHit]:
        self._called("recall", query=query, banks=banks, limit=limit, budget=budget)
        return self._hits(banks)[:limit]

    def reflect(
        self,
        query: str,
        *,
        banks: Banks,
        limit: int = 10,
        budget: RecallBudget = "mid",
        mission: str = "",
    ) -> Reflection:
        self._called(
            "reflect", query=query, banks=banks, limit=limit, budget=budget, mission=mission
        )
        return Reflection("Alice keeps bees on the roof.", tuple(self._hits(banks)))

    def status(self, banks: Banks) -> ExternalStatus:
        self._called("status", banks=banks)
        return ExternalStatus(self.name, True, banks, entries=42)

    def clear_bank(self, bank: Bank) -> int:
        self._called("clear_bank", bank=bank)
        return 7

    def close(self) -> None:
        self._called("close")


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def gateway_external(recorder: Recorder) -> ExternalMemory:
    assert isinstance(recorder, ExternalMemory)
    return recorder


@pytest.fixture
def alice(live: Live) -> Iterator[httpx.Client]:
    with live.client(live.alice) as c:
        c.post("/v1/memories", json={"content": "Alice keeps bees in the vault"})
        yield c


def ops(recorder: Recorder) -> list[str]:
    return [op for op, _ in recorder.calls]


def test_search_answers_from_the_external_memory(alice: httpx.Client, recorder: Recorder) -> None:
    alice.patch(f"{V2}/config", json={"hindsight.recall_budget": "high"})
    r = alice.post(f"{V2}/search", params={"agent_id": "coder"}, json={"query": "bees"})
    assert r.status_code == 200, r.text
    assert r.json()["results"] == [
        {
            "id": "f-1",
            "text": "Alice keeps bees",
            "score": 0.9,
            "bank": "deerflow-user-alice",
            "metadata": {"type": "world"},
            "entry": None,
            "sources": {},
        },
        {
            "id": "f-2",
            "text": "the hives are on the roof",
            "score": None,
            "bank": "deerflow-work-alice-coder",
            "metadata": {},
            "entry": None,
            "sources": {},
        },
    ]  # nothing from the vault, which also holds a memory about bees
    (op, args) = recorder.calls[-1]
    assert op == "recall" and args["query"] == "bees" and args["limit"] == 5
    assert args["budget"] == "high"
    assert args["banks"] == Banks(
        Bank("deerflow-user-alice", "alice"), Bank("deerflow-work-alice-coder", "alice", "coder")
    )
    status = alice.get(f"{V2}/status").json()["external"]
    assert status["last_recall_hits"] == 2


def test_status_and_overview_show_the_external_memory(
    alice: httpx.Client, recorder: Recorder
) -> None:
    for path in (V2, f"{V2}/status"):
        external = alice.get(path, params={"agent_id": "coder"}).json()["external"]
        assert external == {
            "provider": "recorder",
            "connected": True,
            "bank": "deerflow-user-alice",
            "work_bank": "deerflow-work-alice-coder",
            "entries": 42,  # the recorder's count, not the vault's one entry
            "last_recall_hits": None,
            "error": None,
        }
    assert ops(recorder) == ["status", "status"]


def test_a_status_that_raises_shows_as_not_connected(
    alice: httpx.Client, recorder: Recorder, live: Live
) -> None:
    recorder.fail["status"] = UpstreamError(f"cannot reach {live.home}/hindsight.sock")
    external = alice.get(f"{V2}/status").json()["external"]
    assert external["connected"] is False and external["entries"] is None
    assert external["error"] == "cannot reach hindsight.sock"  # no server path leaks


def test_reflect_passes_the_users_mission_and_budget(
    alice: httpx.Client, recorder: Recorder
) -> None:
    alice.patch(f"{V2}/config", json={"hindsight.bank_mission": "Be brief."})
    r = alice.post(f"{V2}/reflect", json={"query": "what does Alice keep?", "limit": 3})
    assert r.status_code == 200, r.text
    assert r.json()["answer"] == "Alice keeps bees on the roof."
    assert [m["id"] for m in r.json()["memories"]] == ["f-1", "f-2"]
    (op, args) = recorder.calls[-1]
    assert op == "reflect" and args["mission"] == "Be brief." and args["limit"] == 3
    assert args["budget"] == "mid" and args["banks"].work is None
    # Without an agent both recalled memories name the user bank.
    assert {m["bank"] for m in r.json()["memories"]} == {"deerflow-user-alice"}


def test_bank_clear_goes_to_the_external_memory(
    live: Live, alice: httpx.Client, recorder: Recorder
) -> None:
    before = live.snapshot()
    work = "deerflow-work-alice-coder"
    r = alice.post(
        f"{V2}/bank/clear", params={"agent_id": "coder"}, json={"bank": work, "confirm": work}
    )
    assert r.json() == {"bank": work, "deleted": 7}
    assert recorder.calls == [("clear_bank", {"bank": Bank(work, "alice", "coder")})]
    assert live.snapshot() == before  # the vault was not touched
    # The checks run before the provider is asked.
    assert alice.post(f"{V2}/bank/clear", json={"bank": work, "confirm": work}).status_code == 404
    bank = "deerflow-user-alice"
    assert alice.post(f"{V2}/bank/clear", json={"bank": bank, "confirm": "y"}).status_code == 422
    assert ops(recorder) == ["clear_bank"]


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (UnsupportedOperationError("recorder cannot reflect", provider="recorder"), 501, None),
        (UpstreamError("the memory service is down"), 502, "upstream_error"),
    ],
)
def test_provider_errors_map_to_status_codes(
    alice: httpx.Client, recorder: Recorder, error: Exception, status: int, code: str | None
) -> None:
    recorder.fail["reflect"] = recorder.fail["recall"] = error
    for route in ("reflect", "search"):
        r = alice.post(f"{V2}/{route}", json={"query": "bees"})
        assert r.status_code == status, r.text
        assert r.json()["error"]["code"] == (code or "unsupported_operation")
        assert r.json()["error"]["message"] == str(error)
    assert alice.get(f"{V2}/status").json()["external"]["last_recall_hits"] is None


def test_an_external_memory_passed_in_is_the_callers_to_close(
    config: VaultConfig, recorder: Recorder
) -> None:
    with live_gateway(config, external=recorder) as live, live.client(live.alice) as alice:
        assert alice.get(f"{V2}/status").status_code == 200
    assert ops(recorder) == ["status"]  # the gateway shut down without closing it


# -- what memory.provider selects -----------------------------------------------------------


def yaml_settings(tmp_path: Path, provider: str) -> ServerSettings:
    path = tmp_path / "config.yaml"
    path.write_text(f"memory:\n  provider: {provider}\n", encoding="utf-8")
    return ServerSettings(yaml_path=path)


def test_provider_builtin_means_no_external_memory(config: VaultConfig, tmp_path: Path) -> None:
    with live_gateway(config, yaml_settings(tmp_path, "builtin")) as live:
        with live.client(live.alice) as alice:
            alice.post("/v1/memories", json={"content": "Alice keeps bees"})
            external = alice.get(f"{V2}/status").json()["external"]
            assert external["provider"] == "none" and external["connected"] is False
            assert "memory.provider is 'builtin'" in external["error"]
            bank = "deerflow-user-alice"
            for route, body in (
                ("search", {"query": "bees"}),
                ("reflect", {"query": "bees"}),
                ("bank/clear", {"bank": bank, "confirm": bank}),
            ):
                r = alice.post(f"{V2}/{route}", json=body)
                assert r.status_code == 501, (route, r.text)
                assert r.json()["error"]["code"] == "unsupported_operation"
            assert alice.get(V2).json()["user_md"] == ""  # the builtin files still work
        assert [e["content"] for e in live.vault.export(user_id="alice")] == ["Alice keeps bees"]


def test_provider_hindsight_builds_the_hindsight_adapter(
    config: VaultConfig, tmp_path: Path
) -> None:
    # No server is contacted at start-up; tests/server/test_v2_hindsight.py talks to one.
    with Vault(config=config) as vault:
        app = create_app(vault, settings=yaml_settings(tmp_path, "hindsight"))
        assert app.state.gateway.external.name == "hindsight"
        app.state.gateway.close()
