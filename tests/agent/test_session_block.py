"""The injected block of a session: preset, allocator, pluggable parts, the session's
settings, on a real SQLite vault."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memvault import ValidationError, Vault
from memvault.agent.config import MemoryConfigStore
from memvault.agent.providers.builtin import BuiltinFileProvider
from memvault.agent.session_block import LAYOUT, MemoriesPart, build_block, session_block
from memvault.fences import CLOSE_TAG, OPEN_TAG
from memvault.render import count_tokens
from memvault.workspace.allocator import CUT_MARK
from memvault.workspace.presets import COMPONENTS, get_preset

CARD = "Goal: ship the billing export\nProgress: CSV writer done\nNext step: add the tests"
BOARD = "todo: write the tests\ndoing: CSV writer review\nblocked: none"


def _lines(prefix: str, n: int) -> str:
    return "\n".join(f"{prefix} line {i} says something about the work" for i in range(n))


@pytest.fixture
def home_settings(sqlite_vault: Vault) -> MemoryConfigStore:
    return MemoryConfigStore(sqlite_vault.config.home)


def _seed(vault: Vault) -> None:
    vault.add("billing export writes CSV files", user_id="alice", session_id="s1", workspace_id="w")
    vault.add("billing export must run nightly", user_id="alice", session_id="s2", workspace_id="w")
    vault.add("billing export once used XML", user_id="alice", session_id="s9", workspace_id="z")


def test_a_roomy_window_gets_every_part_in_layout_order(
    sqlite_vault: Vault, home_settings: MemoryConfigStore
) -> None:
    _seed(sqlite_vault)
    home_settings.set_session_overrides("alice", "s1", {"injection.preset": "task"})
    block = session_block(
        sqlite_vault,
        home_settings,
        "how does the billing export work?",
        user_id="alice",
        session_id="s1",
        workspace_id="w",
        window=128_000,
        snapshot="USER PROFILE\nAlice prefers short answers",
        components={"state_card": CARD, "task_board": BOARD},
    )
    assert list(block.parts) == ["state_card", "task_board", "snapshot", "memories"]
    assert block.text.index("Goal: ship") < block.text.index("todo:") < block.text.index(OPEN_TAG)
    assert block.parts["memories"].count("billing export") == 3  # global is the default scope
    assert block.text.rstrip().endswith(CLOSE_TAG)
    assert count_tokens(block.text) <= block.allocation.budget == 6000
    assert all(g.reason is None for g in block.allocation.grants)


def test_the_session_scope_and_preset_come_from_its_settings(
    sqlite_vault: Vault, home_settings: MemoryConfigStore
) -> None:
    _seed(sqlite_vault)
    home_settings.set_user_override("alice", "injection.scope", "workspace")
    home_settings.set_session_overrides("alice", "s1", {"injection.preset": "task"})

    def block(session: str, workspace: str) -> str:
        return session_block(
            sqlite_vault,
            home_settings,
            "billing export",
            user_id="alice",
            session_id=session,
            workspace_id=workspace,
            window=128_000,
        ).text

    workspace = block("s1", "w")  # the user's scope: workspace w
    assert "CSV" in workspace and "nightly" in workspace and "XML" not in workspace
    home_settings.set_session_overrides("alice", "s1", {"injection.scope": "session"})
    assert "CSV" in block("s1", "w") and "nightly" not in block("s1", "w")
    home_settings.set_session_overrides("alice", "s1", {"injection.preset": "blank"})
    assert block("s1", "w") == ""
    home_settings.reset_session("alice", "s1")
    home_settings.set_user_override("alice", "injection.enabled", False)
    assert block("s1", "w") == ""


def test_a_small_window_keeps_the_higher_priorities_and_reports_cuts(
    sqlite_vault: Vault, home_settings: MemoryConfigStore
) -> None:
    _seed(sqlite_vault)
    home_settings.set_session_overrides("alice", "s1", {"injection.preset": "task"})
    block = session_block(
        sqlite_vault,
        home_settings,
        "billing export",
        user_id="alice",
        session_id="s1",
        window=4000,  # task budget: 600
        snapshot=_lines("profile", 200),
        components={"state_card": _lines("card", 100), "task_board": BOARD},
    )
    report = block.allocation
    assert report.budget == 600 and count_tokens(block.text) <= 600
    card, snapshot = report.grant("state_card"), report.grant("snapshot")
    assert card is not None and snapshot is not None
    assert card.reason == "budget" and card.granted >= card.min_tokens
    # the last in priority gets what is left, under its minimum, and says it was cut
    assert snapshot.reason == "below_minimum" and 0 < snapshot.granted < snapshot.min_tokens
    assert block.parts["snapshot"].endswith(CUT_MARK)
    assert block.parts["state_card"].endswith(CUT_MARK)
    assert not report.minimums_fit


def test_daily_leaves_the_task_board_out(sqlite_vault: Vault) -> None:
    block = build_block(
        get_preset("daily"), window=64_000, components={"task_board": BOARD, "state_card": CARD}
    )
    assert "task_board" not in block.parts and "todo:" not in block.text
    board = block.allocation.grant("task_board")
    assert board is not None and board.reason == "not_in_preset"


def test_the_builtin_snapshot_plugs_in(tmp_path: Path, sqlite_vault: Vault) -> None:
    files = BuiltinFileProvider()
    files.initialize(user_id="alice", base_dir=str(tmp_path / "files"))
    files.add("user", "Alice writes Go services")
    files.reload()
    block = build_block(
        get_preset("daily"),
        window=32_000,
        components={"snapshot": files.system_prompt_block()},
    )
    assert "Alice writes Go services" in block.parts["snapshot"]


@dataclass
class Board:
    """A pluggable part, as the task board will be: it renders to its grant."""

    rows: int
    asked: list[int]

    def wanted(self) -> int:
        return count_tokens(_lines("task", self.rows))

    def render(self, tokens: int) -> str:
        self.asked.append(tokens)
        return _lines("task", self.rows) if tokens >= self.wanted() else "3 tasks (summary)"


class Overrun:
    def wanted(self) -> int:
        return 10

    def render(self, tokens: int) -> str:
        return _lines("runaway", 50)


def test_pluggable_parts_get_their_grant_and_may_not_overrun() -> None:
    board = Board(rows=80, asked=[])
    block = build_block(
        get_preset("task"),
        window=4000,
        components={"task_board": board, "state_card": Overrun()},  # type: ignore[dict-item]
    )
    assert board.asked == [block.allocation.granted("task_board")]
    assert block.parts["task_board"] == "3 tasks (summary)"
    assert "state_card" not in block.parts and "runaway" not in block.text


def test_bad_components_are_refused(sqlite_vault: Vault, home_settings: MemoryConfigStore) -> None:
    with pytest.raises(ValidationError, match="unknown components"):
        build_block(get_preset("task"), window=8000, components={"weather": "sunny"})
    with pytest.raises(ValidationError, match="must be a text"):
        build_block(get_preset("task"), window=8000, components={"state_card": 42})
    with pytest.raises(ValidationError, match="context window"):
        session_block(sqlite_vault, home_settings, "q", user_id="alice", session_id="s", window=0)
    home_settings.set_session_overrides("alice", "s", {"injection.scope": "workspace"})
    with pytest.raises(ValidationError, match="pass workspace_id"):
        session_block(
            sqlite_vault, home_settings, "q", user_id="alice", session_id="s", window=8000
        )


def test_memories_part_packs_into_its_grant(sqlite_vault: Vault) -> None:
    for i in range(12):
        sqlite_vault.add(f"billing export fact number {i}", user_id="alice")
    hits = sqlite_vault.context_hits("billing export", user_id="alice", limit=12)
    part = MemoriesPart(hits)
    whole = part.render(part.wanted())
    assert all(f"number {i}" in whole for i in range(12))
    smaller = part.render(part.wanted() // 2)
    assert 0 < count_tokens(smaller) <= part.wanted() // 2 and smaller.endswith(CLOSE_TAG)
    assert part.render(0) == ""


texts = st.lists(
    st.sampled_from(["a", "bc", " ", "deploy ", "\n", "\n\n", "数据", "仓库", ",", "."]),
    max_size=1500,
).map("".join)


@settings(max_examples=150)
@given(
    st.sampled_from(["task", "daily", "blank"]),
    st.integers(1, 50_000),
    st.dictionaries(st.sampled_from([c for c in COMPONENTS if c != "memories"]), texts),
)
def test_the_block_never_exceeds_its_budget(name: str, window: int, parts: dict[str, str]) -> None:
    block = build_block(get_preset(name), window=window, components=parts)
    assert count_tokens(block.text) <= block.allocation.budget <= window
    assert list(block.parts) == [n for n in LAYOUT if n in block.parts]
    for part, text in block.parts.items():
        assert count_tokens(text) <= block.allocation.granted(part)


def test_the_sessions_card_and_its_workspaces_board_come_from_the_vault(
    sqlite_vault: Vault, home_settings: MemoryConfigStore
) -> None:
    vault = sqlite_vault
    home_settings.set_session_overrides("alice", "s1", {"injection.preset": "task"})
    vault.upsert_card(
        user_id="alice",
        session_id="s1",
        workspace_id="w",
        goal="ship the billing export",
        next_step="add the tests",
    )
    vault.add_task(user_id="alice", workspace_id="w", session_id="s1", title="write the tests")
    vault.add_task(user_id="alice", workspace_id="w", session_id="s2", title="review the CSV")
    vault.add_task(user_id="alice", workspace_id="z", session_id="s9", title="other workspace")
    vault.add_task(user_id="bob", workspace_id="w", session_id="b1", title="bob's own task")

    def block(session: str) -> dict[str, str]:
        return session_block(
            vault, home_settings, "billing", user_id="alice", session_id=session, window=128_000
        ).parts

    parts = block("s1")  # no workspace_id given: the one the card tied s1 to
    assert "ship the billing export" in parts["state_card"]
    assert "add the tests" in parts["state_card"]
    board = parts["task_board"]
    assert "write the tests (this conversation)" in board and "review the CSV" in board
    assert "other workspace" not in board and "bob" not in board
    # a session with no card and no workspace gets neither part
    empty = block("s-new")
    assert "state_card" not in empty and "task_board" not in empty
    # the caller's own text still wins
    given_text = session_block(
        vault,
        home_settings,
        "billing",
        user_id="alice",
        session_id="s1",
        window=128_000,
        components={"state_card": CARD},
    ).parts["state_card"]
    assert given_text.startswith("Goal: ship the billing export\nProgress")
