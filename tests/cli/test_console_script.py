"""The installed ``memvault`` command, started as a real process: one command of each
group (each module of ``memvault.cli``), so the console script, the package's import as a
fresh interpreter does it, ``sys.exit`` with main's code, and stdin and stdout that are
pipes are tested for every group. The other CLI tests run ``main`` in-process
(``tests/cli_process.py``), which is seconds faster per command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("memvault")  # what pip put beside the interpreter

# group: (the command line, stdin, the exit code, a piece of what it prints)
SMOKE: dict[str, tuple[list[str], str | None, int, str]] = {
    "memories": (["add", "--user", "alice", "Alice writes Go services"], None, 0, "added "),
    "recall": (["context", "tea", "--user", "alice"], None, 0, "nothing relevant"),
    "transfer": (["import", "-", "--user", "alice"], "", 0, "imported 0 memories"),
    "privacy": (["set-secret", "--user", "alice"], "open sesame\n", 0, "reveal secret set"),
    "serve": (["serve", "--host", "0.0.0.0", "--port", "1", "--no-auth"], None, 1, "refusing"),
    "keys": (["keys", "list"], None, 0, "no keys"),
    "agents": (["agents", "list"], None, 0, "no agent has settings of its own"),
    "quarantine": (["quarantine", "list", "--user", "alice"], None, 0, "no quarantined"),
    "entities": (["entities", "list", "--user", "alice"], None, 0, "no entities"),
    "card": (["card", "list", "--user", "alice"], None, 0, "no conversations with a card"),
    "task": (["task", "list", "--user", "alice"], None, 0, "no tasks"),
    "history": (["history", "0123456789abcdef", "--user", "alice"], None, 2, "error: "),
    "upkeep": (["stats", "--user", "alice"], None, 0, "user alice: 0 memories"),
    "profile": (["profile", "--user", "alice"], None, 0, "nothing learnt yet"),
}


def _process(home: Path, command: list[str], stdin: str | None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_EMBEDDER": "none",
        "PYTHONPATH": os.pathsep.join(sys.path),  # this checkout's code, as the parent runs it
    }
    return subprocess.run(
        command, capture_output=True, text=True, env=env, input=stdin, timeout=120
    )


@pytest.mark.parametrize("group", list(SMOKE))
def test_the_installed_command_runs_each_group(tmp_path: Path, group: str) -> None:
    args, stdin, code, shown = SMOKE[group]
    done = _process(tmp_path / "home", [str(SCRIPT), *args], stdin)
    assert done.returncode == code, (done.stdout, done.stderr)
    assert shown in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_python_dash_m_memvault_runs_the_same_command(tmp_path: Path) -> None:
    done = _process(tmp_path / "home", [sys.executable, "-m", "memvault", "list", "-u", "a"], None)
    assert (done.returncode, done.stdout, done.stderr) == (0, "no memories\n", "")
