"""Each surface records the door a memory came in through (issue 20 §5): ``cli``, ``http``,
``panel``, ``mcp``, ``tool``; the library's own default stays ``api``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault import Source, Vault, VaultConfig, load_config
from memvault.agent.tools.vault import VaultTools
from memvault.engine.deciding import MACHINE_SOURCES
from memvault.errors import ConfigError
from memvault.mcp import UserTools
from memvault.server.auth import CLIENT_HEADER
from tests.cli.test_commands import run
from tests.gateway_server import live_gateway


def test_the_cli_records_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = run(home, "add", "--user", "alice", "Alice bakes sourdough", "--json")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["source"] == "cli"


def test_http_records_http_and_the_panel_records_panel(config: VaultConfig) -> None:
    with live_gateway(config) as live, live.client(live.alice) as alice:
        plain = alice.post("/v1/memories", json={"content": "Alice keeps a ledger"})
        assert plain.status_code in (200, 201), plain.text
        assert plain.json()["source"] == "http"
        panel = alice.post(
            "/v1/memories",
            json={"content": "Alice sorted this in the panel"},
            headers={CLIENT_HEADER: "panel"},
        )
        assert panel.json()["source"] == "panel"
        batch = alice.post("/v1/memories/batch", json={"records": [{"content": "one of many"}]})
        assert batch.status_code in (200, 201), batch.text
        assert [i["source"] for i in batch.json()["items"]] == ["http"]


def test_mcp_and_tools_record_their_door(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path / "home", embedding={"provider": "none"})
    with Vault(config=config) as vault:
        mcp = UserTools(vault, user_id="alice", base_dir=tmp_path)
        saved = mcp.call(
            "memory_save",
            {"action": "create", "name": "tea", "type": "user", "content": "Likes tea"},
        )
        assert not saved.is_error, saved.text
        graph = mcp.call(
            "create_entities",
            {"entities": [{"name": "Miso", "entityType": "cat", "observations": ["naps"]}]},
        )
        assert not graph.is_error, graph.text
        tool = VaultTools(vault, user_id="bob")
        out = json.loads(
            tool.call(
                "memory_save",
                {"action": "create", "name": "x", "type": "user", "content": "Bob rows"},
            )
        )
        assert out["success"] is True
        alice = {e.name: e.source for e in vault.list(user_id="alice")}
        assert alice == {"tea": Source.MCP, "Miso": Source.MCP}
        assert [e.source for e in vault.list(user_id="bob")] == [Source.TOOL]
        # a memory from the library itself keeps the default
        assert vault.add("plain", user_id="carol").source == Source.API
        # tools are the model's doors: a person's door is refused
        with pytest.raises(ConfigError, match="model's doors"):
            VaultTools(vault, user_id="bob", source=Source.CLI)
    assert Source.MCP in MACHINE_SOURCES and Source.PANEL not in MACHINE_SOURCES


def test_memory_save_asks_each_action_only_for_what_it_needs(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path / "home", embedding={"provider": "none"})
    with Vault(config=config) as vault:
        mcp = UserTools(vault, user_id="alice", base_dir=tmp_path)

        def save(**args: object) -> dict[str, object]:
            outcome = mcp.call("memory_save", args)
            answer: dict[str, object] = json.loads(outcome.text)
            return answer

        # Seed 002 section 5.1: every call names the memory's title and type (the MCP
        # server checks the schema) ...
        untitled = save(action="create", type="user", content="Alice rows on Sundays")
        assert untitled["success"] is False and "'name'" in str(untitled["error"])
        created = save(action="create", name="rowing", type="user", content="Alice rows on Sundays")
        assert created["success"] is True, created
        memory = created["memory"]
        assert isinstance(memory, dict)
        assert vault.get(memory["id"], user_id="alice").kind.value == "user"
        # ... create asks for the content too, update and delete for the id.
        named = {"name": "rowing", "type": "user"}
        updated = save(action="update", id=memory["id"], content="Alice rows on Saturdays", **named)
        assert updated["success"] is True, updated
        assert save(action="delete", id=memory["id"], **named) == {
            "success": True,
            "action": "deleted",
            "id": memory["id"],
        }
        missing = save(action="create", **named)
        assert missing["success"] is False and "content" in str(missing["error"])
        no_id = save(action="delete", **named)
        assert no_id["success"] is False and "'id'" in str(no_id["error"])


# -- remedies in the words of the surface (issue 20 §5) ----------------------------------


def test_the_cli_names_its_flags_in_remedies(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = json.loads(
        run(home, "add", "--user", "alice", "card 4111 1111 1111 1111", "--json").stdout
    )
    exported = run(home, "export", "--user", "alice")
    assert exported.returncode == 0, exported.stderr
    clash = run(home, "import", "-", "--user", "alice", stdin=exported.stdout)
    assert clash.returncode != 0
    assert "--skip-existing" in clash.stderr and "on_conflict" not in clash.stderr
    secret = run(home, "reveal", added["id"], "--user", "alice", stdin="anything\n")
    assert "memvault set-secret" in secret.stderr and "set_reveal_secret" not in secret.stderr
    assert run(home, "set-secret", "--user", "alice", stdin="open sesame\n").returncode == 0
    again = run(home, "set-secret", "--user", "alice", stdin="another one\n")
    assert "--current" in again.stderr and "current=" not in again.stderr


def test_http_names_its_fields_and_the_library_its_parameters(config: VaultConfig) -> None:
    with live_gateway(config) as live, live.client(live.alice) as alice:
        alice.post("/v1/memories", json={"content": "Alice keeps a ledger"})
        exported = alice.get("/v1/memories/export")
        assert exported.status_code == 200, exported.text
        clash = alice.post(
            "/v1/memories/import",
            content=exported.content,
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert clash.status_code == 409
        message = clash.json()["error"]["message"]
        assert "on_conflict=skip" in message and "on_conflict='skip'" not in message
    with Vault(config=config) as vault:
        entry = vault.add("card 4111 1111 1111 1111", user_id="carol")
        with pytest.raises(Exception, match="call set_reveal_secret first") as caught:
            vault.authorize_reveal(entry.id, user_id="carol", secret="whatever")
        assert getattr(caught.value, "remedy", None) == "reveal.set_secret"


def test_cli_help_has_no_type_noise(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for command in ([], ["add"], ["search"], ["keys", "create"], ["serve"]):
        shown = run(home, *command, "--help")
        assert shown.returncode == 0, shown.stderr
        assert "<bool>" not in shown.stdout and "<str>" not in shown.stdout, command
        assert "--help" in shown.stdout
    add = run(home, "add", "--help").stdout
    assert "USER" in add and "CONTENT" in add


def _on_a_terminal(home: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (where progress bars show)."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "none"}
    env.update(COLUMNS="100", TERM="xterm")
    done = subprocess.run(
        [sys.executable, "-m", "memvault", *args],
        input=stdin,
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
        env=env,
        timeout=120,
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return done.returncode, done.stdout, seen.decode("utf-8", "replace")


def test_long_cli_jobs_show_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for n in range(3):
        assert run(home, "add", "--user", "alice", f"memory number {n}").returncode == 0
    out = tmp_path / "alice.jsonl"
    code, _, shown = _on_a_terminal(home, "export", "--user", "alice", "--output", str(out))
    assert code == 0 and "exporting" in shown
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3
    code, stdout, shown = _on_a_terminal(
        tmp_path / "other", "import", "-", "--user", "bob", stdin=out.read_text(encoding="utf-8")
    )
    assert code == 0 and "importing" in shown and stdout.strip() == "imported 3 memories"
    code, stdout, shown = _on_a_terminal(home, "maintain", "--dry-run")
    assert code == 0 and "maintaining" in shown and stdout.startswith("would move")
    # off a terminal (a pipe): no bar at all, the output stays clean
    piped = run(home, "export", "--user", "alice", "--output", str(tmp_path / "again.jsonl"))
    assert piped.returncode == 0 and "exporting" not in piped.stderr


def test_http_search_explain_and_context_share_the_scope_filters(config: VaultConfig) -> None:
    with live_gateway(config) as live, live.client(live.alice) as alice:
        for text, session in (
            ("billing export runs nightly", "s1"),
            ("billing once used XML", "s2"),
        ):
            made = alice.post("/v1/memories", json={"content": text, "session_id": session})
            assert made.status_code in (200, 201), made.text
        body = {"query": "billing", "scope": "session", "session_id": "s1"}
        found = alice.post("/v1/memories/search", json=body).json()["results"]
        assert [h["entry"]["content"] for h in found] == ["billing export runs nightly"]
        block = alice.post("/v1/memories/context", json=body).json()["context"]
        assert "nightly" in block and "XML" not in block
        explained = alice.post("/v1/memories/explain", json=body)
        assert explained.status_code == 200, explained.text
        assert "XML" not in explained.text and "nightly" in explained.text


def test_seed_004_route_names_are_the_same_routes(config: VaultConfig) -> None:
    with live_gateway(config) as live:
        with live.client(live.alice) as alice:
            added = alice.post("/v1/memories/add", json={"content": "Alice mills her own flour"})
            assert added.status_code == 201, added.text
            assert added.json()["source"] == "http"
            recalled = alice.post("/v1/v2/recall", json={"query": "flour"}).json()["results"]
            assert [h["entry"]["id"] for h in recalled] == [added.json()["id"]]
            # the lifecycle run is an administrator's, as /v1/maintenance/run is
            assert alice.post("/v1/v2/lifecycle/run", json={"dry_run": True}).status_code == 403
            # bob's key cannot reach alice's memories through the alias either
        with live.client(live.bob) as bob:
            assert bob.post("/v1/v2/recall", json={"query": "flour"}).json()["results"] == []
        with live.client(live.admin) as admin:
            run = admin.post("/v1/v2/lifecycle/run", json={"dry_run": True})
            assert run.status_code == 200 and run.json()["dry_run"] is True
