"""``memvault`` as a user runs it, for tests of what the command line prints and how it
exits: its own home, keyword-only; ``store`` names the store (``MEMVAULT_DB``), or the
home's default SQLite file when None.

The command runs in this process (``cli.main`` with the command line), isolated as a
process would be: its own stdin, stdout and stderr (click's test isolation), the
environment it reads set for the call alone, and its own working directory. A fresh
interpreter costs seconds here; the installed command itself is started as a real
process once per command group, in ``tests/cli/test_console_script.py``. The answer has the shape
``subprocess.run`` gives, so a test reads ``returncode``, ``stdout`` and ``stderr``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from click.testing import CliRunner

from memvault import cli


def invoke(
    args: Sequence[str],
    *,
    env: Mapping[str, str | None] | None = None,
    input: str | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``memvault ARGS`` in this process: ``env`` over ``os.environ`` (None unsets a
    variable), ``input`` as stdin, ``cwd`` as the working directory; all put back after."""
    with CliRunner().isolation(input=input, env=env) as (out, err, _):
        before = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            code = cli.main(list(args))
        finally:
            os.chdir(before)
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
        stdout, stderr = _text(out.getvalue()), _text(err.getvalue())
    return subprocess.CompletedProcess(["memvault", *args], code, stdout, stderr)


def _text(raw: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` decodes them (universal newlines)."""
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def run_cli(
    home: Path, *args: str, store: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "none"}
    if store is not None:
        env["MEMVAULT_DB"] = store
    return invoke(args, env=env, cwd=cwd)
