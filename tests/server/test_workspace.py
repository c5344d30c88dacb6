"""The seed-004 workspace routes over HTTP, against a real gateway on 127.0.0.1 with
auth on: ``POST /v1/cards/upsert`` with its revisions and 409 on a stale revision, the
task board under ``/v1/v2/tasks`` (reassign within a workspace only), user isolation,
and the routes in the OpenAPI document."""

from __future__ import annotations

from tests.gateway_server import Live


def test_upsert_keeps_revisions_and_a_stale_revision_is_a_409(live: Live) -> None:
    with live.client(live.alice) as alice:
        first = alice.post(
            "/v1/cards/upsert",
            json={"session_id": "s1", "goal": "ship the parser", "workspace_id": "w1"},
        )
        assert first.status_code == 200, first.text
        card = first.json()
        assert (card["revision"], card["goal"], card["workspace_id"]) == (
            1,
            "ship the parser",
            "w1",
        )
        assert card["actor"].startswith("http:") and card["user_id"] == "alice"
        second = alice.post(
            "/v1/cards/upsert",
            json={
                "session_id": "s1",
                "decisions": ["PEG"],
                "fields": {"branch": "p2"},
                "expected_revision": 1,
            },
        )
        assert second.status_code == 200 and second.json()["revision"] == 2
        stale = alice.post(
            "/v1/cards/upsert", json={"session_id": "s1", "goal": "lost", "expected_revision": 1}
        )
        assert stale.status_code == 409 and "revision 2, not 1" in stale.text
        got = alice.get("/v1/cards/s1").json()
        assert got["goal"] == "ship the parser" and got["fields"] == {"branch": "p2"}
        history = alice.get("/v1/cards/s1/revisions").json()
        assert history["count"] == 2
        assert [r["revision"] for r in history["revisions"]] == [1, 2]
        parts = {c["part"]: c for c in history["revisions"][1]["changes"]}
        assert parts["decisions"]["added"] == ["PEG"] and parts["fields.branch"]["after"] == "p2"
        assert alice.get("/v1/cards/nothing-here").json()["revision"] == 0
        bad = alice.post("/v1/cards/upsert", json={"session_id": "s1", "goal": "x" * 2000})
        assert bad.status_code == 422 and "over the limit" in bad.text
        unknown = alice.post("/v1/cards/upsert", json={"session_id": "s1", "mood": "x"})
        assert unknown.status_code == 422
        assert alice.delete("/v1/cards/s1").json() == {"deleted": True}
        assert alice.get("/v1/cards/s1/revisions").json()["count"] == 0


def test_the_task_board_reassigns_within_its_workspace_only(live: Live) -> None:
    with live.client(live.alice) as alice:
        made = alice.post(
            "/v1/v2/tasks",
            json={"workspace_id": "w1", "session_id": "s1", "title": "lexer"},
        )
        assert made.status_code == 201, made.text
        task = made.json()
        assert (task["status"], task["revision"], task["session_id"]) == ("todo", 1, "s1")
        alice.post("/v1/v2/tasks", json={"workspace_id": "w2", "session_id": "s9", "title": "x"})
        moved = alice.post(f"/v1/v2/tasks/{task['id']}/move", json={"status": "doing"})
        assert moved.status_code == 200 and moved.json()["status"] == "doing"
        same = alice.patch(f"/v1/v2/tasks/{task['id']}", json={"session_id": "s2"})
        assert same.status_code == 200 and same.json()["session_id"] == "s2"
        across = alice.patch(f"/v1/v2/tasks/{task['id']}", json={"session_id": "s9"})
        assert across.status_code == 422 and "belongs to workspace 'w2'" in across.text
        assert alice.get(f"/v1/v2/tasks/{task['id']}").json()["session_id"] == "s2"
        stale = alice.patch(
            f"/v1/v2/tasks/{task['id']}", json={"title": "t", "expected_revision": 1}
        )
        assert stale.status_code == 409
        listed = alice.get("/v1/v2/tasks", params={"workspace_id": "w1"}).json()
        assert [t["title"] for t in listed["tasks"]] == ["lexer"] and listed["count"] == 1
        assert alice.get("/v1/v2/tasks", params={"status": "doing"}).json()["count"] == 1
        bad = alice.post(
            "/v1/v2/tasks",
            json={"workspace_id": "w1", "session_id": "s1", "title": "t", "status": "x"},
        )
        assert bad.status_code == 422
        assert alice.delete(f"/v1/v2/tasks/{task['id']}").status_code == 204
        assert alice.delete(f"/v1/v2/tasks/{task['id']}").status_code == 404


def test_users_never_reach_each_others_cards_or_tasks(live: Live) -> None:
    with live.client(live.alice) as alice, live.client(live.bob) as bob:
        alice.post("/v1/cards/upsert", json={"session_id": "s1", "goal": "secret plan"})
        task = alice.post(
            "/v1/v2/tasks", json={"workspace_id": "w1", "session_id": "s1", "title": "mine"}
        ).json()
        assert bob.get("/v1/cards/s1").json()["revision"] == 0
        assert bob.get("/v1/cards/s1", params={"user_id": "alice"}).status_code == 404
        assert bob.get("/v1/v2/tasks").json()["count"] == 0
        assert bob.get(f"/v1/v2/tasks/{task['id']}").status_code == 404
        assert bob.patch(f"/v1/v2/tasks/{task['id']}", json={"title": "x"}).status_code == 404
        assert bob.delete(f"/v1/v2/tasks/{task['id']}").status_code == 404
        hijack = bob.post(
            "/v1/cards/upsert", json={"session_id": "s1", "goal": "x", "user_id": "alice"}
        )
        assert hijack.status_code == 404
    with live.client(live.admin) as admin:
        assert (
            admin.get("/v1/cards/s1", params={"user_id": "alice"}).json()["goal"] == "secret plan"
        )
        assert admin.get("/v1/cards/s1").status_code == 422  # an admin names the user
    with live.client(None) as anonymous:
        assert anonymous.get("/v1/cards/s1").status_code == 401
        assert anonymous.get("/v1/v2/tasks").status_code == 401
    assert live.vault.workspace.task(user_id="alice", task_id=task["id"]).title == "mine"


def test_the_routes_are_in_the_openapi_document(live: Live) -> None:
    with live.client(live.alice) as alice:
        paths = alice.get("/openapi.json").json()["paths"]
    assert {"post"} <= set(paths["/v1/cards/upsert"])
    assert {"get", "delete"} <= set(paths["/v1/cards/{session_id}"])
    assert "get" in paths["/v1/cards/{session_id}/revisions"]
    assert {"get", "post"} <= set(paths["/v1/v2/tasks"])
    assert {"get", "patch", "delete"} <= set(paths["/v1/v2/tasks/{task_id}"])
    assert "post" in paths["/v1/v2/tasks/{task_id}/move"]
