"""Supersession, history, undo and ``as_of`` over HTTP (a real server on loopback) and
the command line (a real ``memvault`` process)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from memvault import VaultConfig
from tests.cli_process import run_cli
from tests.gateway_server import live_gateway


def test_http(config: VaultConfig) -> None:
    with live_gateway(config) as live:
        alice = live.client(live.alice)
        first = alice.post("/v1/memories", json={"content": "Alice lives in Berlin"}).json()
        between = datetime.now(UTC).isoformat()
        second = alice.post(
            "/v1/memories", json={"content": "Alice lives in Munich", "supersedes": first["id"]}
        )
        assert second.status_code == 201, second.text
        new = second.json()
        assert new["supersedes"] == first["id"] and new["valid_to"] is None
        old = alice.get(f"/v1/memories/{first['id']}").json()
        assert old["superseded_by"] == new["id"] and old["valid_to"] is not None

        def recall(**extra: object) -> list[str]:
            body = {"query": "where does alice live", **extra}
            found = alice.post("/v1/memories/search", json=body)
            assert found.status_code == 200, found.text
            return [r["entry"]["content"] for r in found.json()["results"]]

        assert recall() == ["Alice lives in Munich"]
        assert sorted(recall(include_superseded=True)) == [
            "Alice lives in Berlin",
            "Alice lives in Munich",
        ]
        assert recall(as_of=between) == ["Alice lives in Berlin"]
        listed = alice.get("/v1/memories", params={"as_of": between}).json()
        assert [e["content"] for e in listed["items"]] == ["Alice lives in Berlin"]
        assert listed["total"] == 1
        wide = alice.get("/v1/memories", params={"include_superseded": "true"}).json()
        assert wide["total"] == 2

        history = alice.get(f"/v1/memories/{new['id']}/history").json()
        assert [v["entry"]["content"] for v in history["versions"]] == [
            "Alice lives in Berlin",
            "Alice lives in Munich",
        ]
        assert [v["current"] for v in history["versions"]] == [False, True]
        undone = alice.post(f"/v1/memories/{new['id']}/undo")
        assert undone.status_code == 200, undone.text
        assert undone.json()["id"] == first["id"]
        assert recall() == ["Alice lives in Berlin"]
        nothing = alice.post(
            "/v1/memories", json={"content": "Alice drinks tea"}
        ).json()  # never changed
        refused = alice.post(f"/v1/memories/{nothing['id']}/undo", json={})
        assert refused.status_code == 422 and "nothing to undo" in refused.text

        # Bad input names the field; another user's id is a missing one.
        bad = alice.post("/v1/memories/search", json={"query": "x", "as_of": "yesterday"})
        assert bad.status_code == 422 and "as_of" in bad.text
        bad_list = alice.get("/v1/memories", params={"as_of": "soon"})
        assert bad_list.status_code == 422 and "as_of" in bad_list.text
        gone = alice.post("/v1/memories", json={"content": "x", "supersedes": "0123456789abcdef"})
        assert gone.status_code == 404
        bob = live.client(live.bob)
        assert bob.get(f"/v1/memories/{new['id']}/history").status_code == 404
        assert bob.post(f"/v1/memories/{new['id']}/undo").status_code == 404
        stolen = bob.post("/v1/memories", json={"content": "x", "supersedes": first["id"]})
        assert stolen.status_code == 404
        assert alice.get(f"/v1/memories/{first['id']}").json()["valid_to"] is None


def test_cli(tmp_path: Path) -> None:
    home = tmp_path / "cli"

    def cli(*args: str) -> str:
        done = run_cli(home, *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = json.loads(cli("add", "Alice lives in Berlin", "--user", "alice", "--json"))
    between = datetime.now(UTC).isoformat()
    second = cli("add", "Alice lives in Munich", "--user", "alice", "--supersedes", first["id"])
    assert second.startswith("added ") and f"(replaces {first['id']})" in second
    new_id = second.split()[1]
    assert "Munich" in cli("search", "lives", "--user", "alice")
    assert "Berlin" not in cli("search", "lives", "--user", "alice")
    assert "Berlin" in cli("search", "lives", "--user", "alice", "--include-superseded")
    past = cli("search", "lives", "--user", "alice", "--as-of", between)
    assert "Berlin" in past and "Munich" not in past
    listed = cli("list", "--user", "alice", "--as-of", between)
    assert "Berlin" in listed and "Munich" not in listed
    assert "Berlin" in cli("list", "--user", "alice", "--include-superseded")
    versions = json.loads(cli("history", new_id, "--user", "alice", "--json"))
    assert [v["entry"]["content"] for v in versions] == [
        "Alice lives in Berlin",
        "Alice lives in Munich",
    ]
    text = cli("history", first["id"], "--user", "alice")
    # the CLI is the door they came in through (issue 20: source names the surface)
    assert "added by cli" in text and "supersede by cli" in text and ".. now" in text
    assert "Berlin" in cli("undo", new_id, "--user", "alice")
    assert "Berlin" in cli("search", "lives", "--user", "alice")

    bad = run_cli(home, "search", "lives", "--user", "alice", "--as-of", "last week")
    assert bad.returncode == 2 and "--as-of" in bad.stderr and "ISO 8601" in bad.stderr
    nothing = run_cli(home, "undo", first["id"], "--user", "bob")
    assert nothing.returncode == 2 and "no memory" in nothing.stderr
    wrong = run_cli(home, "add", "x", "--user", "alice", "--supersedes", "bad id!")
    assert wrong.returncode == 2 and "--supersedes" in wrong.stderr
