"""What a caller without a key can reach: the health checks and the panel's static shell.

Everything else, the OpenAPI document included, answers 401; the docs UIs (which would
load scripts from a CDN) are not served at all.
"""

from __future__ import annotations

import httpx
import pytest
from starlette.routing import Mount, Route

from tests.gateway_server import TLS, Live

# docs/http-reference.md's "Public routes" list: a new public route goes there and here.
PUBLIC = {"/healthz", "/readyz", "/", "/panel", "/panel/static"}


def _paths(live: Live) -> set[str]:
    """Every path the app routes (schema or not), static mounts by their prefix."""
    spec = httpx.get(f"{live.url}/openapi.json", headers=_bearer(live.alice), timeout=60).json()
    return set(spec["paths"]) | {"/", "/panel", "/panel/static", "/mcp", "/openapi.json"}


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_only_health_and_the_panel_shell_answer_without_a_key(live: Live) -> None:
    answered = set()
    with httpx.Client(timeout=60, verify=TLS) as client:
        for path in _paths(live):
            concrete = path.replace("{", "").replace("}", "")
            if path == "/panel/static":
                concrete = "/panel/static/app.js"
            methods = ("POST",) if path == "/mcp" else ("GET", "POST")
            for method in methods:
                client.cookies.clear()  # each request as from a new caller
                r = client.request(method, f"{live.url}{concrete}")
                if r.status_code not in (401, 405):  # 405: no such method there
                    answered.add(path)
    assert answered <= PUBLIC
    assert {"/healthz", "/readyz", "/", "/panel"} <= answered


def test_the_openapi_document_needs_a_key(live: Live) -> None:
    r = httpx.get(f"{live.url}/openapi.json", timeout=60)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    for key in (live.alice, live.admin):
        spec = httpx.get(f"{live.url}/openapi.json", headers=_bearer(key), timeout=60)
        assert spec.status_code == 200 and "/v1/memories" in spec.json()["paths"]


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/docs/oauth2-redirect"])
def test_no_docs_ui_is_served(live: Live, path: str) -> None:
    for headers in ({}, _bearer(live.alice)):
        r = httpx.get(f"{live.url}{path}", headers=headers, timeout=60)
        assert r.status_code in (401, 404), (path, r.status_code)
        assert "swagger" not in r.text.lower() and "redoc" not in r.text.lower()


def test_readyz_tells_strangers_only_ready_or_not(live: Live) -> None:
    with live.client(live.alice) as alice:
        assert alice.post("/v1/memories", json={"content": "Alice keeps bees"}).status_code == 201
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        r = httpx.get(f"{live.url}/readyz", headers=headers, timeout=60)
        assert r.status_code == 200 and r.json() == {"status": "ready"}
    # A user key learns the backend, never how many entries all users hold.
    user = httpx.get(f"{live.url}/readyz", headers=_bearer(live.alice), timeout=60).json()
    assert user["store"]["backend"] == "sqlite" and "entries" not in user["store"]
    admin = httpx.get(f"{live.url}/readyz", headers=_bearer(live.admin), timeout=60).json()
    assert admin["store"]["entries"] == 1


def test_the_route_table_holds_no_unlisted_public_route(live: Live) -> None:
    # Routes outside the schema (panel, static files, /mcp) are listed here by hand.
    from memvault.server.app import create_app

    app = create_app(live.vault, keys=live.keys)
    hidden = {
        r.path
        for r in app.routes
        if isinstance(r, Route | Mount) and not getattr(r, "include_in_schema", True)
    }
    hidden |= {r.path for r in app.routes if isinstance(r, Mount)}
    assert hidden == {"/", "/panel", "/panel/static", "/mcp", "/openapi.json"}
