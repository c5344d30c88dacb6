"""``build_manager`` and ``ConfiguredManager``: the parts the seed-000 compatibility suite
(``tests/compat/test_seed000_config.py``) does not reach through HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault import ConfigError, Vault, load_config
from memvault.agent.assembly import ConfiguredManager, build_manager
from memvault.agent.config import MemoryConfigStore
from memvault.fences import CLOSE_TAG, OPEN_TAG
from memvault.render import count_tokens

PROFILE = "Alice keeps her release notes in the shared wiki under Releases"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    user_dir = tmp_path / "users" / "alice"
    user_dir.mkdir(parents=True)
    (user_dir / "USER.md").write_text(PROFILE, encoding="utf-8")
    return tmp_path


@pytest.fixture
def vault(home: Path) -> Iterator[Vault]:
    config = load_config(environ={}, home=home, embedding={"provider": "none"})
    with Vault(config=config) as opened:
        opened.add(
            "The release train leaves every second Thursday",
            user_id="alice",
            agent_id="helper",
            kind="project",
        )
        yield opened


@pytest.fixture
def manager(home: Path, vault: Vault) -> Iterator[ConfiguredManager]:
    built = build_manager(MemoryConfigStore(home), "alice", "helper", vault=vault)
    yield built
    built.shutdown_all()


def test_prefetch_with_the_builtin_joins_snapshot_and_recall(manager: ConfiguredManager) -> None:
    block = manager.prefetch_all("when does the release train leave")
    assert block.index(PROFILE) < block.index(OPEN_TAG)
    assert "second Thursday" in block


def test_a_snapshot_larger_than_the_cap_is_cut_the_same_way_each_call(
    manager: ConfiguredManager, home: Path
) -> None:
    snapshot = manager.builtin.system_prompt_block()
    cap = count_tokens(snapshot) - 5
    MemoryConfigStore(home).set_user_override("alice", "injection.max_tokens", cap)
    first = manager.system_prompt_blocks()
    shown = first[: first.index("## Long-term memory")].strip()  # the vault's instructions follow
    assert shown and shown != snapshot and count_tokens(shown) <= cap
    assert first == manager.system_prompt_blocks()  # stable: the prompt prefix stays cacheable
    # no room is left for recall
    assert manager.prefetch_all("release train", include_builtin=False) == ""


def test_recall_cut_to_the_cap_stays_fenced(home: Path, vault: Vault) -> None:
    for n in range(12):
        vault.add(
            f"Release train note {n}: the train leaves from platform {n}",
            user_id="alice",
            agent_id="helper",
            kind="project",
        )
    built = build_manager(MemoryConfigStore(home), "alice", "helper", vault=vault)
    try:
        whole = built.prefetch_all("release train platform", include_builtin=False)
        snapshot = built.builtin.system_prompt_block()
        cap = count_tokens(snapshot) + count_tokens(whole) - 10  # one entry too many
        MemoryConfigStore(home).set_user_override("alice", "injection.max_tokens", cap)
        cut = built.prefetch_all("release train platform", include_builtin=False)
        assert cut and cut != whole
        assert cut.startswith(OPEN_TAG) and cut.endswith(CLOSE_TAG)
        assert count_tokens(snapshot) + count_tokens(cut) <= cap
    finally:
        built.shutdown_all()


def test_an_unreadable_settings_file_keeps_the_last_settings(
    manager: ConfiguredManager, home: Path
) -> None:
    store = MemoryConfigStore(home)
    store.set_user_override("alice", "injection.include_builtin", False)
    assert PROFILE not in manager.system_prompt_blocks()
    store.user_overrides_path("alice").write_text("{not json", encoding="utf-8")
    # the agent goes on with what it read last instead of failing its turn
    assert PROFILE not in manager.system_prompt_blocks()
    assert "second Thursday" in manager.prefetch_all("release train", include_builtin=False)


def test_build_manager_checks_its_arguments(home: Path) -> None:
    with pytest.raises(ConfigError, match="MemoryConfigStore or a MemoryConfig"):
        build_manager({"provider": "builtin"}, "alice", base_dir=home)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="base_dir"):
        from memvault.agent.config import MemoryConfig

        build_manager(MemoryConfig(provider="builtin"), "alice")
