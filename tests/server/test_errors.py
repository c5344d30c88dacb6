"""No input makes the gateway answer 500, hang, or speak anything but its JSON error shape.

Each test runs against a real server on loopback (``live_gateway``) and names the
defect of issue 11 §4 it guards against.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memvault.server.state import ServerSettings
from tests.gateway_server import Live

LIMIT = 64 * 1024
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


@pytest.fixture
def gateway_settings() -> ServerSettings:
    return ServerSettings(max_body_bytes=LIMIT)


def nested(levels: int) -> dict[str, Any]:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value


def error_of(response: httpx.Response, status: int) -> dict[str, str]:
    """The ``{"error": {"code", "message"}}`` body of an answer with ``status``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    error: dict[str, str] = body["error"]
    return error


# -- metadata too deep: refused before it is written, the user's reads keep working --------


def test_deeply_nested_metadata_is_a_422_and_the_user_can_still_read(alice: httpx.Client) -> None:
    kept = alice.post("/v1/memories", json={"content": "tea with lemon"})
    assert kept.status_code == 201, kept.text

    for levels in (33, 300):
        r = alice.post("/v1/memories", json={"content": "deep", "metadata": nested(levels)})
        assert "metadata" in error_of(r, 422)["message"]
        r = alice.patch(f"/v1/memories/{kept.json()['id']}", json={"metadata": nested(levels)})
        assert "metadata" in error_of(r, 422)["message"]
    line = json.dumps({"content": "deep", "metadata": nested(300)})
    r = alice.post("/v1/memories/import", content=line + "\n")
    assert "metadata" in error_of(r, 422)["message"]

    listed = alice.get("/v1/memories")
    assert listed.status_code == 200, listed.text
    assert [e["content"] for e in listed.json()["items"]] == ["tea with lemon"]
    assert alice.get(f"/v1/memories/{kept.json()['id']}").status_code == 200
    found = alice.post("/v1/memories/search", json={"query": "tea"})
    assert found.status_code == 200 and len(found.json()["results"]) == 1
    assert alice.get("/v1/memories/export").status_code == 200


# -- numbers out of SQLite's range, and booleans posing as numbers --------------------------


@pytest.mark.parametrize("after", [10**30, 2**63, -1])
def test_audit_after_out_of_range_is_a_422(alice: httpx.Client, after: int) -> None:
    r = alice.get("/v1/sensitive/audit", params={"after": after})
    assert "after" in error_of(r, 422)["message"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/memories", {"content": "x", "importance": True}),
        ("POST", "/v1/memories", {"content": "x", "importance": "0.5"}),
        ("PATCH", "/v1/memories/{id}", {"importance": False}),
        ("POST", "/v1/memories/search", {"query": "x", "limit": True}),
        ("POST", "/v1/memories/search", {"query": "x", "limit": 2.0}),
        ("POST", "/api/memory/v2/search", {"query": "x", "limit": True}),
        ("POST", "/api/memory/v2/reflect", {"query": "x", "limit": True}),
    ],
)
def test_booleans_and_strings_are_not_numbers(
    alice: httpx.Client, method: str, path: str, body: dict[str, Any]
) -> None:
    entry = alice.post("/v1/memories", json={"content": "an entry to patch"}).json()
    before = alice.get("/v1/memories").json()
    r = alice.request(method, path.format(id=entry["id"]), json=body)
    field = "importance" if "importance" in body else "limit"
    assert field in error_of(r, 422)["message"]
    assert alice.get("/v1/memories").json() == before


def test_an_integer_importance_is_still_a_number(alice: httpx.Client) -> None:
    r = alice.post("/v1/memories", json={"content": "x", "importance": 1})
    assert r.status_code == 201 and r.json()["importance"] == 1.0


# -- bodies over the limit ------------------------------------------------------------------


def test_a_chunked_body_over_the_limit_is_413(alice: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"content": "'
        for _ in range(LIMIT // 1024 + 8):
            yield b"x" * 1024
        yield b'"}'

    for path in ("/v1/memories", "/v1/memories/import", "/mcp"):
        r = alice.post(path, content=chunks(), headers={"content-type": "application/json"})
        assert error_of(r, 413)["code"] == "payload_too_large", path
    assert alice.get("/v1/memories").json()["items"] == []


def test_a_declared_length_over_the_limit_is_413(alice: httpx.Client) -> None:
    r = alice.post("/v1/memories", content=b"x" * (LIMIT + 1))
    assert error_of(r, 413)["code"] == "payload_too_large"


# -- /mcp: JSON errors, and no event stream that never ends -------------------------------


def test_a_foreign_host_on_mcp_gets_the_json_error_shape(alice: httpx.Client) -> None:
    r = alice.post("/mcp", json=LIST_TOOLS, headers={**MCP_HEADERS, "Host": "evil.example"})
    error = error_of(r, 421)
    assert "Host" in error["message"]


def test_a_foreign_origin_on_mcp_gets_the_json_error_shape(alice: httpx.Client) -> None:
    headers = {**MCP_HEADERS, "Origin": "http://evil.example"}
    error_of(alice.post("/mcp", json=LIST_TOOLS, headers=headers), 403)


def test_a_wrong_content_type_on_mcp_gets_the_json_error_shape(alice: httpx.Client) -> None:
    body = json.dumps(LIST_TOOLS)
    headers = {**MCP_HEADERS, "content-type": "text/plain"}
    error_of(alice.post("/mcp", content=body, headers=headers), 400)


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_mcp_answers_405_to_anything_but_post(alice: httpx.Client, method: str) -> None:
    headers = {"Accept": "text/event-stream, application/json"}
    r = alice.request(method, "/mcp", headers=headers, timeout=10)
    assert error_of(r, 405)["code"] == "method_not_allowed"
    assert r.headers["allow"] == "POST"


def test_mcp_post_still_works(alice: httpx.Client) -> None:
    r = alice.post("/mcp", json=LIST_TOOLS, headers=MCP_HEADERS)
    assert r.status_code == 200, r.text
    assert any(t["name"] == "memory_save" for t in r.json()["result"]["tools"])


# -- no filesystem paths in answers ---------------------------------------------------------


def test_a_corrupted_keys_file_answers_503_without_its_path(live: Live) -> None:
    (live.home / "keys.json").write_text("{not json", encoding="utf-8")
    with live.client(live.alice) as client:
        r = client.get("/v1/memories")
    error = error_of(r, 503)
    assert "keys.json" in error["message"]
    assert str(live.home) not in r.text and "/" not in error["message"]


def test_readyz_reports_an_emptied_database_without_its_path(live: Live) -> None:
    assert httpx.get(f"{live.url}/readyz", timeout=60).status_code == 200
    database = Path(live.vault.config.database)
    database.write_bytes(b"")  # truncated under the running server
    r = httpx.get(f"{live.url}/readyz", timeout=60)
    assert r.status_code == 503, r.text
    body = r.json()
    assert body["status"] == "unavailable" and "empty" in body["error"]
    assert str(live.home) not in r.text and str(database) not in r.text


@pytest.mark.parametrize(
    ("message", "private", "expected"),
    [
        ("/srv/a b/home/keys.json is malformed", ("/srv/a b/home",), "keys.json is malformed"),
        ("cannot open SQLite database /var/lib/mv/memvault.db: locked", (), "memvault.db"),
        ("key file C:\\Users\\bob\\k.key is readable", (), "key file k.key is readable"),
        ("cannot write ~/notes/USER.md.", (), "cannot write USER.md."),
        ("set a base ending in /v1, e.g. http://127.0.0.1:8000/v1", (), None),
        ("5/10 and/or ../x", (), None),
        ("a lone \ud800 surrogate", (), "a lone \\ud800 surrogate"),
    ],
)
def test_public_messages_name_no_directories(
    message: str, private: tuple[str, ...], expected: str | None
) -> None:
    from memvault.server.errors import public_message

    shown = public_message(message, private)
    if expected is None:
        assert shown == message
    else:
        assert expected in shown
    assert "/srv" not in shown and "/var" not in shown and "Users" not in shown


# -- any value in any field: never a 5xx, and the user's reads keep working -----------------

HOSTILE_JSON = [
    "1" + "0" * 5000,  # too long for int()
    "NaN",
    "Infinity",
    '"\\ud800"',  # a lone surrogate
    '"\\u0000"',
    '{"a":' * 300 + "1" + "}" * 300,
    "[" * 3000 + "]" * 3000,
    "true",
    "-1",
    "1e400",
    '"' + "x" * 100_000 + '"',
]
HOSTILE_FIELDS = [
    ("POST", "/v1/memories", ("content", "importance", "metadata", "kind", "agent_id", "name")),
    ("POST", "/v1/memories/search", ("query", "limit", "kind")),
    ("PATCH", "/v1/memories/{id}", ("content", "importance", "metadata", "tier")),
    ("POST", "/api/memory/v2/entries", ("target", "content")),
    ("POST", "/api/memory/v2/search", ("query", "limit")),
    ("PATCH", "/api/memory/v2/config", ("injection.enabled", "builtin.user_char_limit")),
]
REQUIRED = {"content": '"x"', "query": '"x"', "target": '"user"'}


def test_no_value_in_any_field_is_a_server_error(alice: httpx.Client) -> None:
    entry = alice.post("/v1/memories", json={"content": "kept"}).json()
    for method, path, fields in HOSTILE_FIELDS:
        for field in fields:
            for value in HOSTILE_JSON:
                members = {k: v for k, v in REQUIRED.items() if k in fields and k != field}
                members[field] = value
                body = "{" + ",".join(f'"{k}":{v}' for k, v in members.items()) + "}"
                r = alice.request(
                    method,
                    path.format(id=entry["id"]),
                    content=body,
                    headers={"content-type": "application/json"},
                )
                assert r.status_code < 500, (method, path, field, value[:20], r.text[:200])
    for path in ("/v1/memories", "/v1/memories/export", "/api/memory/v2"):
        assert alice.get(path).status_code == 200, path


@pytest.mark.parametrize("value", [str(10**30), str(2**63), "-1", "true", "nan", "%ED%A0%80"])
def test_no_query_parameter_is_a_server_error(alice: httpx.Client, value: str) -> None:
    for template in (
        "/v1/memories?limit={}",
        "/v1/memories?offset={}",
        "/v1/sensitive/audit?after={}",
        "/v1/sensitive/audit?limit={}",
        "/api/memory/v2/entries/user/{}",
        "/v1/memories/{}",
        "/v1/memories?agent_id={}",
    ):
        method = "DELETE" if "entries" in template else "GET"
        r = alice.request(method, template.format(value))
        assert r.status_code < 500, (template, value, r.text[:200])
