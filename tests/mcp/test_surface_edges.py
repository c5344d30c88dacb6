"""Rough edges a first user met on the MCP surface (issue 33): a line on stdio that is not
a message, ``kind`` (every other surface's word) beside the seed's ``type``, and a recall
when nothing stored is relevant."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


def _answer(server: subprocess.Popen[str], line: str) -> dict[str, Any]:
    """Write one line to the server; the one line it answers, as JSON (a server that
    answers nothing fails the test instead of hanging it)."""
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(line + "\n")
    server.stdin.flush()
    ready, _, _ = select.select([server.stdout], [], [], 120)
    assert ready, f"no answer to {line!r}"
    answer: dict[str, Any] = json.loads(server.stdout.readline())
    return answer


def test_stdio_answers_a_line_that_is_not_json_and_keeps_serving(tmp_path: Path) -> None:
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path / "home"), "MEMVAULT_EMBEDDER": "none"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    with subprocess.Popen(
        [sys.executable, "-m", "memvault.cli", "mcp", "--user", "alice"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as server:
        try:
            broken = _answer(server, "this is not json")
            assert broken["id"] is None and broken["error"]["code"] == -32700, broken
            cut = _answer(server, '{"jsonrpc": "2.0", "id": 1, "method": "pi')
            assert cut["error"]["code"] == -32700, cut
            stray = _answer(server, '{"hello": "world"}')
            assert stray["id"] is None and stray["error"]["code"] == -32600, stray
            assert _answer(server, json.dumps(PING)) == {"jsonrpc": "2.0", "id": 7, "result": {}}
        finally:
            assert server.stdin is not None
            server.stdin.close()
            code = server.wait(timeout=60)
    assert code == 0  # the client closed the pipe: a normal end
