"""``memvault maintain`` and ``POST /v1/maintenance/run`` (issue 16 item 2) over the
engine that ``tests/lifecycle/test_tiers.py`` tests on every backend; and the server's schedule."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import Vault, VaultConfig
from memvault.server.app import create_app
from memvault.server.maintenance import Scheduler
from memvault.server.state import ServerSettings
from tests.cli_process import run_cli
from tests.gateway_server import live_gateway

DAY = timedelta(days=1)


def test_cli_maintain_dry_run_then_for_real(tmp_path: Path) -> None:
    home = tmp_path / "cli"
    added = run_cli(
        home, "add", "lunch at noon", "--user", "alice", "--class", "short_term", "--json"
    )
    assert added.returncode == 0, added.stderr
    entry_id = json.loads(added.stdout)["id"]
    later = (datetime.now(UTC) + 8 * DAY).isoformat()
    dry = run_cli(home, "maintain", "--now", later, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["dry_run"] and report["counts"] == {"active->cold": 1}
    assert report["moves"][0]["entry_id"] == entry_id
    got = json.loads(run_cli(home, "get", entry_id, "--user", "alice", "--json").stdout)
    assert got["tier"] == "active"
    done = run_cli(home, "maintain", "--now", later)
    assert done.returncode == 0 and "moved 1 of 1" in done.stdout
    got = json.loads(run_cli(home, "get", entry_id, "--user", "alice", "--json").stdout)
    assert got["tier"] == "cold"
    bad = run_cli(home, "maintain", "--now", "soon")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --now")
    wrong = run_cli(home, "add", "x", "--user", "alice", "--class", "weekly")
    assert wrong.returncode == 2 and "--class" in wrong.stderr


def test_http_maintenance_run(config: VaultConfig) -> None:
    with live_gateway(config) as live:
        admin, alice = live.client(live.admin), live.client(live.alice)
        made = alice.post("/v1/memories", json={"content": "lunch", "mem_class": "short_term"})
        assert made.status_code == 201
        later = (datetime.now(UTC) + 8 * DAY).isoformat()
        assert alice.post("/v1/maintenance/run", json={"now": later}).status_code == 403
        dry = admin.post("/v1/maintenance/run", json={"now": later, "dry_run": True})
        assert dry.status_code == 200, dry.text
        assert dry.json()["counts"] == {"active->cold": 1}
        bad = admin.post("/v1/maintenance/run", json={"now": "soon"})
        assert bad.status_code == 422 and "now" in bad.json()["error"]["message"]
        done = admin.post("/v1/maintenance/run", json={"now": later, "user_id": "alice"})
        assert done.json()["moved"] == 1 and done.json()["moves"][0]["to"] == "cold"
        assert alice.get(f"/v1/memories/{made.json()['id']}").json()["tier"] == "cold"


def test_the_schedule_runs_maintenance_and_one_process_at_a_time(config: VaultConfig) -> None:
    past = datetime.now(UTC) - 10 * DAY
    with Vault(config=config, clock=lambda: past) as old:
        entry = old.add("last week's errand", user_id="alice", mem_class="short_term")
    with Vault(config=config) as vault:
        app = create_app(vault, settings=ServerSettings(run_maintenance=True))
        gw = app.state.gateway
        first, second = Scheduler(gw, 3600), Scheduler(gw, 3600)
        from memvault.atomic import file_lock

        with file_lock(config.home / "maintenance", timeout=1):
            assert second.run_once() is False  # another process holds the round
        assert vault.get(entry.id, user_id="alice").tier.value == "active"
        assert first.run_once() is True
        assert vault.get(entry.id, user_id="alice").tier.value == "cold"
        gw.close()


def test_create_app_runs_no_schedule_unless_asked(config: VaultConfig) -> None:
    from memvault.server.maintenance import start_schedule

    with Vault(config=config) as vault:
        quiet = create_app(vault).state.gateway
        assert start_schedule(quiet) is None
        busy = create_app(vault, settings=ServerSettings(run_maintenance=True)).state.gateway
        scheduler = start_schedule(busy)
        assert scheduler is not None and scheduler.interval == 360 * 60
        scheduler.stop()
        quiet.close()
        busy.close()
