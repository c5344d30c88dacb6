"""Every ```python and ```console block of the guide pages in docs/ runs as pasted.

One test per block, named ``page.md:line``. The rules (a fresh home per block, which
fences run, how console output is compared: ``...`` lines, ids and timestamps) are in
the docstring of tests/doc_blocks.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .doc_blocks import ROOT, Block, blocks, commands, matches, normalise, run_console, run_python

GUIDES = ("quickstart.md", "cli.md", "http.md", "agents.md", "workspace.md")
BLOCKS = [b for name in GUIDES for b in blocks(ROOT / "docs" / name)]


def test_every_guide_page_has_runnable_blocks() -> None:
    for name in GUIDES:
        assert blocks(ROOT / "docs" / name), f"docs/{name} has no python or console block"


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_docs_block_runs(block: Block, tmp_path: Path) -> None:
    if block.lang == "python":
        done = run_python(block.code, tmp_path)
        assert done.returncode == 0, f"{block.id} failed:\n{done.stderr[-3000:]}"
    else:
        problems = run_console(block.code, tmp_path)
        assert problems == [], f"{block.id}:\n" + "\n\n".join(problems)


# The runner's own rules, on blocks written here.


def test_console_blocks_split_into_commands_and_their_output() -> None:
    parsed = commands("$ echo a \\\n  b\na b\n$ true\n")
    assert [(c.line, c.text, c.expected) for c in parsed] == [
        (1, "echo a \\\n  b", ["a b"]),
        (4, "true", []),
    ]
    with pytest.raises(ValueError, match="output before any"):
        commands("stray\n$ true\n")


def test_ids_and_timestamps_are_normalised_and_dots_match_any_lines() -> None:
    seen = normalise(
        ["added 01a229b28738a7c63b6e1f2fba37f2bb  ", "at 2026-12-02T02:43:46.207+00:00", ""]
    )
    assert seen == ["added <id>", "at <time>"]
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "d"])
    assert not matches(["a", "...", "d"], ["a", "b"])
    assert not matches([], ["anything"])
    assert not matches(["a"], ["a", "b"])


def test_a_console_block_fails_on_wrong_output_and_on_a_failing_command(tmp_path: Path) -> None:
    assert run_console("$ echo hello\nhello\n", tmp_path) == []
    wrong = run_console("$ echo hello\nbye\n", tmp_path)
    assert len(wrong) == 1 and "expected:\nbye" in wrong[0] and "got:\nhello" in wrong[0]
    failing = run_console("$ false\n", tmp_path)
    assert len(failing) == 1 and "exited with 1" in failing[0]
    assert run_console('$ X=7\n$ echo "$X" "$MEMVAULT_HOME"\n...\n', tmp_path) == []
    assert run_console(f'$ echo "$MEMVAULT_HOME"\n{tmp_path / "home"}\n', tmp_path) == []
