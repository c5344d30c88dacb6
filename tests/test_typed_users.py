"""memvault is typed for its users: a script written against the public API (the
library, the errors, the agent layer and the HTTP client) passes ``mypy --strict``.

The script lives in ``tests/data/typed_user/app.py``. memvault's own modules are read
with ``follow_imports = silent``, as mypy reads an installed package that ships
``py.typed``: only the user's code is judged, against the types memvault exposes. That
the wheel ships ``py.typed`` is checked by ``tests/test_packaging.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "tests" / "data" / "typed_user" / "app.py"
CONFIG = """\
[mypy]
strict = True
python_version = 3.11

[mypy-memvault.*]
follow_imports = silent
"""


def _mypy(tmp_path: Path, script: Path) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--no-incremental",
            str(script),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_a_user_script_passes_mypy_strict(tmp_path: Path) -> None:
    done = _mypy(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_strict_mode_catches_a_misuse_of_the_api(tmp_path: Path) -> None:
    """The check has teeth: a wrong argument type in the same setting is an error."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "from memvault import Vault\n"
        "from memvault.client import Client\n"
        "def f(v: Vault, c: Client) -> None:\n"
        "    v.search(42, user_id='alice')\n"
        "    c.add('x', importance='high')\n",
        encoding="utf-8",
    )
    done = _mypy(tmp_path, wrong)
    assert done.returncode == 1
    assert 'Argument 1 to "search" of "Vault" has incompatible type "int"' in done.stdout
    assert '"importance"' in done.stdout and 'incompatible type "str"' in done.stdout
