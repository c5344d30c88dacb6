"""The server's edges: the /mcp mount under authentication, and `memvault serve`'s
first-run admin key."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from memvault import VaultConfig
from memvault.cli import main
from tests.gateway_server import Live
from tests.waiting import until

pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ACCEPT = {"accept": "application/json, text/event-stream"}


def _mcp(live: Live, headers: dict[str, str], body: dict[str, object]) -> httpx.Response:
    return httpx.post(f"{live.url}/mcp", json=body, headers={**ACCEPT, **headers}, timeout=30)


def _save(live: Live, key: str, text: str, user: str | None = None) -> httpx.Response:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "memory_save",
            "arguments": {"action": "create", "name": "note", "content": text, "type": "user"},
        },
    }
    headers = {"Authorization": f"Bearer {key}"}
    if user:
        headers["X-Memvault-User"] = user
    return _mcp(live, headers, call)


def test_mcp_needs_a_key(live: Live) -> None:
    r = _mcp(live, {}, LIST_TOOLS)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    r = _mcp(live, {"X-Memvault-User": "alice"}, LIST_TOOLS)  # the header alone is not enough
    assert r.status_code == 401


def test_mcp_takes_the_user_from_the_key(live: Live) -> None:
    r = _save(live, live.alice, "Alice plays the cello")
    assert r.status_code == 200 and not r.json()["result"].get("isError"), r.text
    assert [e["content"] for e in live.vault.export(user_id="alice")] == ["Alice plays the cello"]
    # A user key naming someone else is refused as if that user did not exist.
    r = _save(live, live.alice, "planted", user="bob")
    assert r.status_code == 404
    assert list(live.vault.export(user_id="bob")) == []


def test_mcp_admin_names_the_user(live: Live) -> None:
    r = _save(live, live.admin, "Bob bakes bread", user="bob")
    assert r.status_code == 200, r.text
    assert [e["content"] for e in live.vault.export(user_id="bob")] == ["Bob bakes bread"]


def test_serve_refuses_a_public_bind_without_auth(config: VaultConfig) -> None:
    code = main(["--home", str(config.home), "serve", "--no-auth", "--host", "0.0.0.0"])
    assert code == 1
    assert not (config.home / "keys.json").exists()


def test_keys_cli(config: VaultConfig, capsys: pytest.CaptureFixture[str]) -> None:
    home = ["--home", str(config.home)]
    assert main([*home, "keys", "create", "--user", "alice", "--label", "laptop"]) == 0
    secret = capsys.readouterr().out.strip()
    assert secret.startswith("mv_")
    assert main([*home, "keys", "list", "--json"]) == 0
    listed = capsys.readouterr().out
    assert "laptop" in listed and secret not in listed
    key_id = secret.split("_")[1]
    assert main([*home, "keys", "revoke", key_id]) == 0
    assert main([*home, "keys", "list"]) == 0
    assert "REVOKED" in capsys.readouterr().out
    assert main([*home, "keys", "create"]) == 2
    assert main([*home, "keys", "revoke", "nope"]) == 2


def test_serve_with_two_workers_shares_one_database(tmp_path: Path) -> None:
    """`memvault serve --workers 2`: two processes, one SQLite file, the same keys."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path / "home"), "MEMVAULT_EMBEDDER": "none"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memvault.cli", "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        key = ""
        assert proc.stdout is not None
        while not key:
            line = proc.stdout.readline()
            assert line, "server exited before printing the admin key"
            if line.strip().startswith("mv_"):
                key = line.strip()
        base = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            try:
                return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        assert until(healthy, timeout=60), "workers did not start"
        headers = {"Authorization": f"Bearer {key}"}
        for i in range(6):  # spread over both workers by the OS
            r = httpx.post(
                f"{base}/v1/memories",
                json={"user_id": "alice", "content": f"note {i} about bees"},
                headers=headers,
                timeout=30,
            )
            assert r.status_code == 201, r.text
        for _ in range(6):
            r = httpx.get(
                f"{base}/v1/memories", params={"user_id": "alice"}, headers=headers, timeout=60
            )
            assert r.json()["total"] == 6
        assert (
            httpx.get(f"{base}/v1/memories", params={"user_id": "alice"}, timeout=60).status_code
            == 401
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)
