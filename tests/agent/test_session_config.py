"""Session-level config (seed 004): a session's overrides layered on the user's, with each
field's source, reset, and ``/v1/config/session/set|reset`` on a real server."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from memvault.agent.config import InjectionSection, MemoryConfigStore
from memvault.engine.views import SCOPES
from memvault.errors import ConfigError, ValidationError
from memvault.workspace.presets import PRESET_NAMES
from tests.gateway_server import Live


@pytest.fixture
def settings_store(tmp_path: Path) -> MemoryConfigStore:
    return MemoryConfigStore(tmp_path / "data")


def _field(store: MemoryConfigStore, user: str, session: str | None, name: str) -> tuple:
    shown = store.get_effective_memory_config(user, session).to_dict()[name]
    return shown["value"], shown["source"]


def test_the_settings_name_the_presets_and_scopes_there_are() -> None:
    fields = InjectionSection.model_fields
    assert typing.get_args(fields["preset"].annotation) == PRESET_NAMES
    assert typing.get_args(fields["scope"].annotation) == SCOPES


def test_session_layer_sits_on_the_user_layer(settings_store: MemoryConfigStore) -> None:
    store = settings_store
    store.set_global_override("injection.max_tokens", 1800)
    store.set_user_override("alice", "injection.preset", "blank")
    store.set_user_override("alice", "injection.max_tokens", 2500)
    effective = store.set_session_overrides(
        "alice", "chat-1", {"injection.preset": "task", "injection.scope": "workspace"}
    )
    assert effective.session_id == "chat-1"
    assert effective.config.injection.preset == "task"
    assert _field(store, "alice", "chat-1", "injection.preset") == ("task", "session")
    assert _field(store, "alice", "chat-1", "injection.scope") == ("workspace", "session")
    assert _field(store, "alice", "chat-1", "injection.max_tokens") == (2500, "user")
    assert _field(store, "alice", "chat-1", "injection.enabled") == (True, "default")
    # another session, and the user without a session, see the user's layer
    assert _field(store, "alice", "chat-2", "injection.preset") == ("blank", "user")
    assert _field(store, "alice", None, "injection.preset") == ("blank", "user")
    assert _field(store, "alice", None, "injection.scope") == ("global", "default")
    # bob's session of the same name is his own
    assert _field(store, "bob", "chat-1", "injection.preset") == ("daily", "default")
    assert _field(store, "bob", "chat-1", "injection.max_tokens") == (1800, "global")
    path = store.session_overrides_path("alice", "chat-1")
    assert path == store.base_dir / "users/alice/sessions/chat-1/memory_config.json"
    assert json.loads(path.read_text()) == {"injection": {"preset": "task", "scope": "workspace"}}


def test_reset_drops_named_fields_or_all(settings_store: MemoryConfigStore) -> None:
    store = settings_store
    store.set_user_override("alice", "injection.scope", "session")
    store.set_session_overrides(
        "alice", "s", {"injection.scope": "global", "injection.max_tokens": 900}
    )
    after = store.reset_session("alice", "s", ["injection.scope"])
    assert after.sources["injection.scope"] == "user" and after.config.injection.scope == "session"
    assert after.sources["injection.max_tokens"] == "session"
    assert store.reset_session("alice", "s", ["injection.scope"]).sources["injection.scope"] == (
        "user"
    )  # dropping what is not set is a no-op
    cleared = store.reset_session("alice", "s")
    assert "session" not in cleared.sources.values()
    assert store.session_overrides("alice", "s") == {}
    assert store.reset_session("alice", "never-set").session_id == "never-set"


def test_set_is_all_or_nothing(settings_store: MemoryConfigStore) -> None:
    store = settings_store
    store.set_session_overrides("alice", "s", {"injection.max_tokens": 700})
    path = store.session_overrides_path("alice", "s")
    before = path.read_bytes()
    bad = [
        ({"injection.preset": "task", "injection.scope": "team"}, "injection.scope"),
        ({"injection.preset": "coding"}, "injection.preset"),
        ({"injection.max_tokens": "3000"}, "injection.max_tokens"),  # strict: no str for an int
        ({"provider": "hindsight"}, "cannot be overridden"),
        ({"injection.context_tag": "x"}, "cannot be overridden"),
        ({}, "nothing to set"),
    ]
    for changes, message in bad:
        with pytest.raises(ValidationError, match=message):
            store.set_session_overrides("alice", "s", changes)
        assert path.read_bytes() == before
    with pytest.raises(ValidationError, match="cannot be overridden"):
        store.reset_session("alice", "s", ["builtin.enabled"])


@pytest.mark.parametrize("session", ["", "../up", "a/b", "x" * 200, None, 3])
def test_bad_session_ids_are_refused(settings_store: MemoryConfigStore, session: object) -> None:
    with pytest.raises(ValidationError, match="session_id"):
        settings_store.set_session_overrides("alice", session, {"injection.preset": "task"})  # type: ignore[arg-type]


def test_a_hand_edited_session_file_with_an_admin_key_is_an_error(
    settings_store: MemoryConfigStore,
) -> None:
    path = settings_store.session_overrides_path("alice", "s")
    path.parent.mkdir(parents=True)
    path.write_text('{"builtin": {"enabled": false}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot be overridden at run time"):
        settings_store.get_effective_memory_config("alice", "s")
    assert settings_store.get_effective_memory_config("alice").config.builtin.enabled


# -- HTTP -----------------------------------------------------------------------------

SET = "/v1/config/session/set"
RESET = "/v1/config/session/reset"


def test_set_get_and_reset_over_http(live: Live) -> None:
    with live.client(live.alice) as alice:
        assert alice.patch("/api/memory/v2/config", json={"injection.max_tokens": 2222}).is_success
        r = alice.post(SET, json={"session_id": "chat-9", "settings": {"injection.preset": "task"}})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["user_id"] == "alice" and body["session_id"] == "chat-9"
        assert body["overrides"] == {"injection.preset": "task"}
        assert body["fields"]["injection.preset"] == {
            "value": "task",
            "source": "session",
            "user_writable": True,
        }
        assert body["fields"]["injection.max_tokens"]["source"] == "user"
        read = alice.get("/v1/config/session", params={"session_id": "chat-9"}).json()
        assert read["fields"] == body["fields"]
        r = alice.post(RESET, json={"session_id": "chat-9"})
        assert r.status_code == 200
        assert r.json()["fields"]["injection.preset"]["source"] == "default"
        assert r.json()["overrides"] == {}


def test_http_refuses_bad_settings_and_changes_nothing(live: Live) -> None:
    with live.client(live.alice) as alice:
        alice.post(SET, json={"session_id": "s", "settings": {"injection.scope": "session"}})
        before = live.snapshot()
        for body in (
            {"session_id": "s", "settings": {"injection.scope": "team"}},
            {"session_id": "s", "settings": {"builtin.enabled": False}},
            {"session_id": "s", "settings": {}},
            {"session_id": "../s", "settings": {"injection.preset": "task"}},
            {"session_id": "s"},
            {"session_id": "s", "settings": {"injection.preset": "task"}, "extra": 1},
        ):
            r = alice.post(SET, json=body)
            assert r.status_code == 422, (body, r.text)
        assert alice.post(RESET, json={"session_id": "s", "fields": ["provider"]}).status_code == (
            422
        )
        assert live.snapshot() == before


def test_sessions_are_isolated_by_key(live: Live) -> None:
    with live.client(live.alice) as alice, live.client(live.bob) as bob:
        alice.post(SET, json={"session_id": "s", "settings": {"injection.preset": "blank"}})
        mine = bob.get("/v1/config/session", params={"session_id": "s"}).json()
        assert mine["fields"]["injection.preset"]["source"] == "default"
        named = bob.post(
            SET,
            json={"session_id": "s", "user_id": "alice", "settings": {"injection.preset": "task"}},
        )
        assert named.status_code == 404
        assert bob.post(RESET, json={"session_id": "s", "user_id": "alice"}).status_code == 404
    with live.client(live.admin) as admin:
        assert admin.get("/v1/config/session", params={"session_id": "s"}).status_code == 422
        shown = admin.get("/v1/config/session", params={"session_id": "s", "user_id": "alice"})
        assert shown.json()["fields"]["injection.preset"]["value"] == "blank"
    with live.client(None) as anonymous:
        assert anonymous.post(SET, json={"session_id": "s", "settings": {}}).status_code == 401
    with live.client(live.alice) as alice:
        doc = alice.get("/openapi.json").json()
        assert {SET, RESET, "/v1/config/session"} <= set(doc["paths"])
        assert doc["paths"][SET]["post"]["requestBody"]


def test_a_session_block_over_http(live: Live) -> None:
    with live.client(live.alice) as alice:
        alice.post("/api/memory/v2/entries", json={"target": "user", "content": "Alice writes Go"})
        alice.post("/api/memory/v2/reload")  # the snapshot is frozen until reloaded
        alice.post(
            "/v1/memories",
            json={"content": "the billing export runs nightly", "session_id": "s1"},
        )
        alice.post("/v1/memories", json={"content": "the billing export of s2", "session_id": "s2"})
        alice.post(
            SET,
            json={
                "session_id": "s1",
                "settings": {"injection.preset": "task", "injection.scope": "session"},
            },
        )
        r = alice.post(
            "/v1/session/context",
            json={
                "query": "billing export",
                "session_id": "s1",
                "window": 64_000,
                "state_card": "Goal: fix the export",
                "task_board": "doing: export fix",
            },
        )
        assert r.status_code == 200, r.text
        block = r.json()
        assert block["preset"] == "task" and block["budget"] == 6000
        assert list(block["parts"]) == ["state_card", "task_board", "snapshot", "memories"]
        assert "Alice writes Go" in block["parts"]["snapshot"]
        assert "nightly" in block["parts"]["memories"] and "of s2" not in block["text"]
        assert {g["component"] for g in block["grants"]} == {
            "state_card",
            "task_board",
            "snapshot",
            "memories",
        }
        daily = alice.post(
            "/v1/session/context",
            json={
                "query": "billing export",
                "session_id": "s2",
                "window": 64_000,
                "task_board": "doing: export fix",
            },
        ).json()
        assert daily["preset"] == "daily" and "task_board" not in daily["parts"]
        assert "of s2" in daily["text"] and "nightly" in daily["text"]  # global scope
        for bad in (
            {"query": "x", "session_id": "s1", "window": 0},
            {"query": "x", "session_id": "s1", "window": "8000"},
            {"query": "", "session_id": "s1", "window": 8000},
            {"query": "x", "session_id": "../s", "window": 8000},
        ):
            assert alice.post("/v1/session/context", json=bad).status_code == 422, bad
        presets = alice.get("/v1/presets").json()["presets"]
        assert [p["name"] for p in presets] == ["task", "daily", "blank"]
        assert presets[0]["priority_allocation"][0] == {
            "component": "state_card",
            "priority": 1,
            "min_tokens": 256,
            "max_tokens": 1200,
        }
    with live.client(live.bob) as bob:
        theirs = bob.post(
            "/v1/session/context",
            json={"query": "billing export", "session_id": "s1", "window": 64_000},
        ).json()
        assert theirs["preset"] == "daily" and theirs["text"] == ""
        named = bob.post(
            "/v1/session/context",
            json={"query": "billing", "session_id": "s1", "window": 8000, "user_id": "alice"},
        )
        assert named.status_code == 404
