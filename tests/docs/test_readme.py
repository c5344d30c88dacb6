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

import re
from pathlib import Path

import pytest

from tests.doc_blocks import ROOT, Block, blocks, output_problems, run_console, run_python

README = ROOT / "README.md"
BLOCKS = blocks(README, "python")
CONSOLE = blocks(README, "console")


def test_readme_has_python_and_console_blocks() -> None:
    assert BLOCKS and all(b.output is not None for b in BLOCKS)  # each shows what it prints
    assert len(CONSOLE) >= 2
    assert any("server" in b.marks for b in CONSOLE)  # the curl example runs too


# Names of the systems the specifications were written against: a user never chose them,
# so they appear only on docs/compatibility.md and the integration pages.
SEED_WORDS = re.compile(r"DeerFlow|Hermes|NetaClaw|deepmemory|\bseed \d{3}|§\s*\d", re.I)
GENERAL_PAGES = (
    "index.md",
    "quickstart.md",
    "install.md",
    "python.md",
    "concepts.md",
    "cli.md",
    "cli-reference.md",
    "http.md",
    "http-reference.md",
    "mcp.md",
    "mcp-reference.md",
    "sensitive.md",
    "privacy.md",
    "configuration.md",
    "how-it-works.md",
    "stores.md",
    "benchmarks.md",
    "workspace.md",
    "operations.md",
    "development.md",
)


def test_the_readme_is_a_landing_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "make serve" in "\n".join(text.splitlines()[:6])
    assert "make test" in "\n".join(text.splitlines()[:6])
    assert "MEMVAULT_KEY" in text and "user_id" in text and "keys create --admin" in text
    for page in ("README.md", *(f"docs/{name}" for name in GENERAL_PAGES)):
        found = SEED_WORDS.findall((ROOT / page).read_text(encoding="utf-8"))
        assert found == [], f"{page} uses names the user never chose: {found}"


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_readme_block_runs(block: Block, tmp_path: Path) -> None:
    problems = output_problems(block, run_python(block.code, tmp_path, block.marks))
    assert problems == [], "\n\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("block", CONSOLE, ids=[f"line{b.line}" for b in CONSOLE])
def test_readme_console_block_runs(block: Block, tmp_path: Path) -> None:
    problems = run_console(block.code, tmp_path, block.marks)
    assert problems == [], f"README console block at line {block.line}:\n" + "\n\n".join(problems)
