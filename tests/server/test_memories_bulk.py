"""``POST /v1/memories/delete``, ``GET /v1/meta/enums`` and the listing's ``sort`` and
created-date range, against a real authenticated server on loopback."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from memvault import DecisionStatus, Domain, Kind, MemClass, Sensitivity, Tier
from memvault.model import EntryOrder
from tests.gateway_server import Live


def _add(client: httpx.Client, content: str, **extra: Any) -> str:
    r = client.post("/v1/memories", json={"content": content, **extra})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _contents(client: httpx.Client, **params: Any) -> list[str]:
    r = client.get("/v1/memories", params=params)
    assert r.status_code == 200, r.text
    return [e["content"] for e in r.json()["items"]]


# -- bulk delete


def test_bulk_delete_removes_the_callers_ids_and_reports_the_rest_as_not_found(
    live: Live, alice: httpx.Client, bob: httpx.Client
) -> None:
    mine = [_add(alice, f"alice note {n}") for n in range(3)]
    kept = _add(alice, "alice keeps this")
    theirs = _add(bob, "bob's own note")
    unknown = "0" * 32
    r = alice.post("/v1/memories/delete", json={"ids": [*mine, theirs, unknown, mine[0]]})
    assert r.status_code == 200, r.text
    # Bob's id answers exactly like an id that never existed: nothing to infer.
    assert r.json() == {"deleted": mine, "not_found": [theirs, unknown]}
    assert _contents(alice) == ["alice keeps this"]
    assert _contents(bob) == ["bob's own note"]
    # Asking again deletes nothing and says so.
    again = alice.post("/v1/memories/delete", json={"ids": [mine[1], kept]}).json()
    assert again == {"deleted": [kept], "not_found": [mine[1]]}
    assert alice.get("/v1/memories").json()["total"] == 0


def test_bulk_delete_by_an_admin_acts_for_the_named_user_only(
    live: Live, alice: httpx.Client, bob: httpx.Client
) -> None:
    a = _add(alice, "alice's")
    b = _add(bob, "bob's")
    with live.client(live.admin) as admin:
        r = admin.post("/v1/memories/delete", json={"ids": [a, b], "user_id": "bob"})
        assert r.json() == {"deleted": [b], "not_found": [a]}
        # Without a user an admin key names nobody: refused, nothing deleted.
        assert admin.post("/v1/memories/delete", json={"ids": [a]}).status_code == 422
    assert _contents(alice) == ["alice's"]
    # A user key cannot reach another user by naming them.
    r = bob.post("/v1/memories/delete", json={"ids": [a], "user_id": "alice"})
    assert r.status_code in (403, 404)
    assert _contents(alice) == ["alice's"]


def test_bulk_delete_reaches_an_agents_private_memories_with_its_agent_id(
    alice: httpx.Client,
) -> None:
    shared = _add(alice, "shared")
    private = _add(alice, "the bot's", agent_id="bot")
    r = alice.post("/v1/memories/delete", json={"ids": [private], "agent_id": "other"})
    assert r.json() == {"deleted": [], "not_found": [private]}
    r = alice.post("/v1/memories/delete", json={"ids": [private, shared], "agent_id": "bot"})
    assert r.json() == {"deleted": [private, shared], "not_found": []}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ids": []}, "ids"),
        ({"ids": ["x" * 10] * 1001}, "ids"),
        ({"ids": "abc"}, "ids"),
        ({"ids": ["not an id!"]}, None),
        ({"ids": [1, 2]}, "ids"),
        ({"ids": ["a" * 32], "everything": True}, "everything"),
    ],
)
def test_bulk_delete_rejects_bad_bodies_and_deletes_nothing(
    live: Live, alice: httpx.Client, body: dict[str, Any], field: str | None
) -> None:
    _add(alice, "still here")
    before = live.snapshot()
    r = alice.post("/v1/memories/delete", json=body)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] in ("invalid_input", "validation_error"), error
    if field:
        assert field in error["message"], error
    assert live.snapshot() == before


# -- enums


def test_enums_lists_the_values_of_every_choice_field(live: Live, alice: httpx.Client) -> None:
    r = alice.get("/v1/meta/enums")
    assert r.status_code == 200
    assert r.json() == {
        "kind": [k.value for k in Kind],
        "mem_class": [c.value for c in MemClass],
        "domain": [d.value for d in Domain],
        "tier": [t.value for t in Tier],
        "sensitivity": [s.value for s in Sensitivity],
        "status": [s.value for s in DecisionStatus],
        "sort": [o.value for o in EntryOrder],
    }
    assert httpx.get(f"{live.url}/v1/meta/enums", timeout=30).status_code == 401


# -- sort and created range


def _import(client: httpx.Client, *records: dict[str, Any]) -> None:
    lines = "".join(json.dumps(r) + "\n" for r in records)
    r = client.post(
        "/v1/memories/import", content=lines, headers={"Content-Type": "application/x-ndjson"}
    )
    assert r.status_code == 201, r.text


def _dated(content: str, created: str, updated: str | None = None) -> dict[str, Any]:
    return {"content": content, "created_at": created, "updated_at": updated or created}


def test_list_sorts_and_bounds_by_created_date(alice: httpx.Client, bob: httpx.Client) -> None:
    _import(
        alice,
        _dated("first of march", "2026-03-01T08:00:00+00:00", "2026-03-09T00:00:00+00:00"),
        _dated("second of march", "2026-03-02T23:59:59+00:00"),
        _dated("third of march", "2026-03-03T00:00:00+00:00"),
    )
    _import(bob, _dated("bob on the second", "2026-03-02T12:00:00+00:00"))
    assert _contents(alice) == ["third of march", "second of march", "first of march"]
    assert _contents(alice, sort="oldest") == [
        "first of march",
        "second of march",
        "third of march",
    ]
    assert _contents(alice, sort="updated")[0] == "first of march"
    window = {"created_after": "2026-03-02", "created_before": "2026-03-03"}
    r = alice.get("/v1/memories", params=window).json()
    assert [e["content"] for e in r["items"]] == ["second of march"] and r["total"] == 1
    assert _contents(alice, created_after="2026-03-02", sort="oldest", limit=1, offset=1) == [
        "third of march"
    ]
    assert bob.get("/v1/memories", params=window).json()["total"] == 1


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"sort": "random"}, "sort"),
        ({"created_after": "soon"}, "created_after"),
        ({"created_before": "2026-02-30"}, "created_before"),
        ({"created_after": "2026-03-05", "created_before": "2026-03-01"}, "created_after"),
        ({"created_after": "2" * 41}, "created_after"),
    ],
)
def test_bad_sort_or_dates_are_a_422_naming_the_field(
    alice: httpx.Client, params: dict[str, str], field: str
) -> None:
    r = alice.get("/v1/memories", params=params)
    assert r.status_code == 422, r.text
    assert field in r.json()["error"]["message"]
