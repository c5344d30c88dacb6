"""``memvault`` as a user runs it: a fresh process with its own home, keyword-only.

For tests of what the command line prints and how it exits; ``store`` names the store
(``MEMVAULT_DB``), or the home's default SQLite file when None.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(
    home: Path, *args: str, store: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_EMBEDDER": "none",
        "PYTHONPATH": os.pathsep.join(sys.path),  # this checkout's code, as the parent runs it
    }
    if store is not None:
        env["MEMVAULT_DB"] = store
    return subprocess.run(
        [sys.executable, "-m", "memvault.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )
