"""``auth_headers``: whose memory an HTTP request names, read alike by the gateway and
the MCP endpoint."""

from __future__ import annotations

from typing import Any

import pytest

from memvault.auth_headers import named_agent, request_scope, scope_headers, scope_query
from memvault.errors import ValidationError


def _scope(headers: dict[str, str], query: str = "") -> dict[str, Any]:
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    return {"type": "http", "headers": raw, "query_string": query.encode("latin-1")}


def test_the_header_wins_over_the_query() -> None:
    both = {"X-Memvault-User": "alice", "X-Memvault-Agent": "a1"}
    scope = _scope(both, "user_id=bob&agent_id=a2")
    assert request_scope(scope) == ("alice", "a1")
    assert request_scope(_scope({}, "user_id=bob&agent_id=a2")) == ("bob", "a2")
    assert request_scope(_scope({"x-memvault-user": "carol"})) == ("carol", None)


def test_header_names_are_case_blind_and_every_query_value_is_kept() -> None:
    scope = _scope({"Authorization": "Bearer k", "X-MEMVAULT-AGENT": "a9"}, "user_id=a&user_id=b")
    headers, query = scope_headers(scope), scope_query(scope)
    assert headers["authorization"] == "Bearer k"
    assert query["user_id"] == ["a", "b"]
    assert named_agent(headers, query) == "a9"
    assert named_agent({}, {}) is None


def test_a_request_that_names_no_user_or_a_bad_one_is_refused() -> None:
    with pytest.raises(ValidationError, match="X-Memvault-User"):
        request_scope(_scope({"X-Memvault-Agent": "a1"}))
    with pytest.raises(ValidationError):
        request_scope(_scope({"X-Memvault-User": "../etc"}))
    with pytest.raises(ValidationError):
        request_scope(_scope({"X-Memvault-User": "alice"}, "agent_id=../x"))
