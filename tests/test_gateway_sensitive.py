"""Sensitive-data routes over HTTP: redaction, reveal with a challenge, lock, audit, isolation."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from memvault import VaultConfig
from memvault.server.state import ServerSettings

from .gateway_server import Live, live_gateway

CARD = "4111 1111 1111 1111"


@pytest.fixture
def live(config: VaultConfig) -> Iterator[Live]:
    with live_gateway(config, ServerSettings(max_body_bytes=256 * 1024)) as gw:
        yield gw


def test_reveal_flow_lock_and_audit_over_http(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with (
        live.client(live.alice) as alice,
        live.client(live.bob) as bob,
        live.client(live.admin) as admin,
    ):
        r = alice.post("/v1/memories", json={"content": f"my card is {CARD}"})
        assert r.status_code == 201
        entry = r.json()
        assert CARD not in r.text and "[bank_card#1]" in entry["content"]
        assert entry["sensitivity"] == "protected"
        eid = entry["id"]

        assert alice.put("/v1/sensitive/secret", json={"secret": "open sesame"}).status_code == 204
        assert alice.post(f"/v1/sensitive/{eid}/reveal", json={}).status_code == 403
        # Another user's key never reaches the entry: 404, not 403.
        bob.put("/v1/sensitive/secret", json={"secret": "bobs secret"})
        r = bob.post(f"/v1/sensitive/{eid}/authorize", json={"secret": "bobs secret"})
        assert r.status_code == 404

        r = alice.post(f"/v1/sensitive/{eid}/authorize", json={"secret": "open sesame"})
        assert r.status_code == 200 and r.json()["granted_until"]
        r = alice.post(f"/v1/sensitive/{eid}/reveal", json={})
        assert r.status_code == 200 and r.json()["content"] == f"my card is {CARD}"

        for _ in range(3):
            r = alice.post(f"/v1/sensitive/{eid}/authorize", json={"secret": "wrong!!"})
            assert r.status_code == 403
        assert r.json()["error"]["code"] == "reveal_locked"
        assert alice.post(f"/v1/sensitive/{eid}/unlock", json={}).status_code == 403
        r = admin.post(f"/v1/sensitive/{eid}/unlock", json={"user_id": "alice"})
        assert r.status_code == 204

        audit = alice.get("/v1/sensitive/audit").json()["items"]
        actions = [(a["action"], a["outcome"]) for a in audit]
        assert ("reveal", "revealed") in actions and ("unlock", "ok") in actions
        assert actions.count(("authorize", "denied")) == 2
        assert bob.get("/v1/sensitive/audit").json()["items"][0]["user_id"] == "bob"
        assert all(a["user_id"] == "bob" for a in bob.get("/v1/sensitive/audit").json()["items"])
        listed = alice.get("/v1/memories").text
        assert CARD not in listed
    # The raw number never reached the server's logs.
    assert CARD not in caplog.text
