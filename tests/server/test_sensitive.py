"""Sensitive-data routes over HTTP: redaction, reveal with a challenge, lock, audit, isolation."""

from __future__ import annotations

import logging

import httpx
import pytest

from memvault.server.state import ServerSettings
from tests.gateway_server import Live

CARD = "4111 1111 1111 1111"


@pytest.fixture
def gateway_settings() -> ServerSettings:
    return ServerSettings(max_body_bytes=256 * 1024)


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


def _redacted_entry(client: httpx.Client, text: str = f"my card is {CARD}") -> str:
    r = client.post("/v1/memories", json={"content": text})
    assert r.status_code == 201
    return str(r.json()["id"])


def test_changing_the_secret_needs_the_current_one_or_an_admin(live: Live) -> None:
    with live.client(live.alice) as alice, live.client(live.admin) as admin:
        eid = _redacted_entry(alice)
        assert alice.put("/v1/sensitive/secret", json={"secret": "open sesame"}).status_code == 204
        r = alice.put("/v1/sensitive/secret", json={"secret": "stolen key's pick"})
        assert r.status_code == 403 and "current_secret" in r.json()["error"]["message"]
        r = alice.put(
            "/v1/sensitive/secret", json={"secret": "stolen key's pick", "current_secret": "nah!!"}
        )
        assert r.status_code == 403 and "current_secret is wrong" in r.json()["error"]["message"]
        r = alice.post(f"/v1/sensitive/{eid}/authorize", json={"secret": "stolen key's pick"})
        assert r.status_code == 403
        r = alice.put(
            "/v1/sensitive/secret",
            json={"secret": "new sesame", "current_secret": "open sesame"},
        )
        assert r.status_code == 204
        r = admin.put("/v1/sensitive/secret", json={"secret": "admin's reset", "user_id": "alice"})
        assert r.status_code == 204
        r = alice.post(f"/v1/sensitive/{eid}/authorize", json={"secret": "admin's reset"})
        assert r.status_code == 200
        audit = alice.get("/v1/sensitive/audit").json()["items"]
        resets = [a for a in audit if a["action"] == "reset_secret"]
        assert len(resets) == 1 and resets[0]["actor"] != "local"


def test_the_lock_is_per_user_over_http_and_an_admin_lifts_it(live: Live) -> None:
    with live.client(live.alice) as alice, live.client(live.admin) as admin:
        ids = [_redacted_entry(alice, f"card {CARD} note {n}") for n in range(5)]
        alice.put("/v1/sensitive/secret", json={"secret": "open sesame"})
        codes = []
        for n in range(15):
            r = alice.post(f"/v1/sensitive/{ids[n % 5]}/authorize", json={"secret": f"guess {n}"})
            codes.append((r.status_code, r.json()["error"]["code"]))
        assert all(status == 403 for status, _ in codes)
        assert [code for _, code in codes].count("reveal_locked") == 13
        r = alice.post(f"/v1/sensitive/{ids[0]}/authorize", json={"secret": "open sesame"})
        assert r.json()["error"]["code"] == "reveal_locked"
        assert alice.post("/v1/sensitive/unlock", json={}).status_code == 403
        assert admin.post("/v1/sensitive/unlock", json={"user_id": "alice"}).status_code == 204
        r = alice.post(f"/v1/sensitive/{ids[3]}/authorize", json={"secret": "open sesame"})
        assert r.status_code == 200


def test_erasing_a_user_over_http_removes_secret_and_audit(live: Live) -> None:
    with live.client(live.alice) as alice, live.client(live.admin) as admin:
        eid = _redacted_entry(alice)
        alice.put("/v1/sensitive/secret", json={"secret": "open sesame"})
        alice.post(f"/v1/sensitive/{eid}/authorize", json={"secret": "open sesame"})
        r = admin.delete("/v1/users/alice")
        assert r.status_code == 200 and r.json()["deleted"] == 1
        audit = alice.get("/v1/sensitive/audit").json()["items"]
        assert [a["action"] for a in audit] == ["erase_user"]
        # No secret any more: the first one is set with the key alone.
        assert alice.put("/v1/sensitive/secret", json={"secret": "fresh start"}).status_code == 204
