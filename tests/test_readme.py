"""Every ```python block of the README runs as pasted.

Each block runs in a fresh interpreter, in an empty working directory with its own
``MEMVAULT_HOME``, with the ``memvault`` command on ``PATH``. The blocks that talk to a
chat model get a loopback server speaking the OpenAI wire protocol through the standard
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` variables the client itself reads; nothing in
the block is changed. The rules are those of tests/doc_blocks.py, shared with the
runner of the docs/ pages (tests/test_docs_blocks.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .doc_blocks import ROOT, Block, blocks, run_python

README = ROOT / "README.md"
BLOCKS = blocks(README, "python")


def test_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_readme_block_runs(block: Block, tmp_path: Path) -> None:
    done = run_python(block.code, tmp_path)
    assert done.returncode == 0, f"README block at line {block.line} failed:\n{done.stderr[-3000:]}"
