"""Every ```python block of the README runs as pasted.

Each block runs in a fresh interpreter, in an empty working directory with its own
``MEMVAULT_HOME``, with the ``memvault`` command on ``PATH``. The one block that talks
to a chat model gets a loopback server speaking the OpenAI wire protocol through the
standard ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` variables the client itself reads;
nothing in the block is changed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_chat import FakeChatServer, Reply

README = Path(__file__).parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks() -> list[tuple[int, str]]:
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_readme_has_python_blocks() -> None:
    assert len(_blocks()) >= 3


@pytest.mark.slow
@pytest.mark.parametrize(("line", "code"), _blocks(), ids=[f"line{n}" for n, _ in _blocks()])
def test_readme_block_runs(line: int, code: str, tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MEMVAULT_", "OPENAI_")) and k != "PYTHONPATH"
    }
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["MEMVAULT_HOME"] = str(tmp_path / "home")
    src = Path(__file__).parents[1] / "src"
    env["PYTHONPATH"] = str(src)
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    with FakeChatServer([Reply.text("Noted.") for _ in range(8)]) as chat:
        env["OPENAI_BASE_URL"] = chat.base_url
        env["OPENAI_API_KEY"] = "test"
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, f"README block at line {line} failed:\n{done.stderr[-3000:]}"
