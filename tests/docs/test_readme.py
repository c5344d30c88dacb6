"""Every ```python and ```console block of the README runs as pasted.

Each block runs in a fresh interpreter or ``bash``, in an empty working directory with
its own ``MEMVAULT_HOME``, with the ``memvault`` command on ``PATH``. The blocks that
talk to a chat model get a loopback server speaking the OpenAI wire protocol through the
standard ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` variables the client itself reads;
nothing in the block is changed. A block that needs a running server says so in its
fence (```` ```console server ````) and gets one on a loopback port. The rules are those
of tests/doc_blocks.py, shared with the runner of the docs/ pages
(tests/docs/test_blocks.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doc_blocks import ROOT, Block, blocks, run_console, run_python

README = ROOT / "README.md"
BLOCKS = blocks(README, "python")
CONSOLE = blocks(README, "console")


def test_readme_has_python_and_console_blocks() -> None:
    assert len(BLOCKS) >= 3
    assert len(CONSOLE) >= 3
    assert any("server" in b.marks for b in CONSOLE)  # the curl example runs too


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_readme_block_runs(block: Block, tmp_path: Path) -> None:
    done = run_python(block.code, tmp_path, block.marks)
    assert done.returncode == 0, f"README block at line {block.line} failed:\n{done.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("block", CONSOLE, ids=[f"line{b.line}" for b in CONSOLE])
def test_readme_console_block_runs(block: Block, tmp_path: Path) -> None:
    problems = run_console(block.code, tmp_path, block.marks)
    assert problems == [], f"README console block at line {block.line}:\n" + "\n\n".join(problems)
