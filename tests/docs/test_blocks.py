"""Every ```python and ```console block of the guide pages in docs/ runs as pasted.

One test per block, named ``page.md:line``. The rules (a fresh home per block, which
fences run, how console output is compared: ``...`` lines, ids and timestamps) are in
the docstring of tests/doc_blocks.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doc_blocks import (
    ROOT,
    Block,
    blocks,
    commands,
    matches,
    normalise,
    run_console,
    run_python,
)

GUIDES = (
    "quickstart.md",
    "cli.md",
    "http.md",
    "agents.md",
    "workspace.md",
    "concepts.md",
    "mcp.md",
    "sensitive.md",
    "operations.md",
    "compatibility.md",
)
BLOCKS = [b for name in GUIDES for b in blocks(ROOT / "docs" / name)]


def test_every_guide_page_has_runnable_blocks() -> None:
    for name in GUIDES:
        assert blocks(ROOT / "docs" / name), f"docs/{name} has no python or console block"


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_docs_block_runs(block: Block, tmp_path: Path) -> None:
    if block.lang == "python":
        done = run_python(block.code, tmp_path, block.marks)
        assert done.returncode == 0, f"{block.id} failed:\n{done.stderr[-3000:]}"
    else:
        problems = run_console(block.code, tmp_path, block.marks)
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


def test_keys_are_normalised_like_ids() -> None:
    seen = normalise(["mv_5d0a55843f71_3yQm0rJm5X2wq8-k_3o7Cj1x", "key 5d0a55843f71 for alice"])
    assert seen == ["<key>", "key <key-id> for alice"]


def test_marks_in_the_fence_ask_for_services_and_unknown_ones_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```console server llm\n$ true\n```\n\n```console\n$ true\n```\n\n"
        "```console sever\n$ true\n```\n",
        encoding="utf-8",
    )
    found = blocks(page)
    assert [b.marks for b in found] == [("server", "llm"), (), ("sever",)]
    with pytest.raises(ValueError, match="unknown block mark"):
        run_console(found[2].code, tmp_path, found[2].marks)


def test_output_without_a_final_newline_is_still_read(tmp_path: Path) -> None:
    assert run_console("$ printf 'no newline'\nno newline\n$ echo next\nnext\n", tmp_path) == []


@pytest.mark.slow
def test_a_server_block_gets_a_running_server_at_the_pages_address(tmp_path: Path) -> None:
    code = (
        "$ curl -s localhost:8765/healthz -o /dev/null -w '%{http_code}\\n'\n200\n"
        '$ echo "$MEMVAULT_URL"\nhttp://127.0.0.1:8765\n'
        '$ curl -s -H "Authorization: Bearer $MEMVAULT_KEY" 127.0.0.1:8765/v1/memories'
        " | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"total\"])'\n0\n"
        '$ curl -s -o /dev/null -w "%{http_code}\\n" -H "Authorization: Bearer $MEMVAULT_ADMIN_KEY"'
        " localhost:8765/v1/keys\n200\n"
    )
    assert run_console(code, tmp_path, ("server",)) == []
    llm = '$ echo "$MEMVAULT_LLM_MODEL" "${MEMVAULT_LLM_BASE_URL%%:*}"\nfake-chat http\n'
    assert run_console(llm, tmp_path, ("llm",)) == []
