"""The person names recall boosts are cached per user and read again only after another
process wrote, at most once per ``refresh_s``; within that window the store is not even
asked whether anyone wrote (a round trip on a server store). Real SQLite files."""

from __future__ import annotations

from pathlib import Path

from memvault import Vault, load_config
from memvault.retrieval.people import People


def test_names_are_read_again_only_after_a_write_and_the_refresh_window(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path)
    with Vault(tmp_path / "v.db", config=config, embedder=None) as vault:
        vault.add("I keep bees", user_id="u", metadata={"speaker": "Ann"})
        store = vault.store
        asked: list[int] = []
        counter = store.change_counter

        def counted() -> int:
            asked.append(1)
            return counter()

        store.change_counter = counted  # type: ignore[method-assign]
        clock = [100.0]
        people = People(store, "speaker", refresh_s=1.0, monotonic=lambda: clock[0])
        assert people.names("u") == {"ann": "Ann"} and len(asked) == 1
        clock[0] += 0.5
        assert people.names("u") == {"ann": "Ann"} and len(asked) == 1  # not asked again

        # Another connection writes (as another process would): seen after the window.
        with Vault(tmp_path / "v.db", config=config, embedder=None) as other:
            other.add("I fly kites", user_id="u", metadata={"speaker": "Bo"})
        assert people.names("u") == {"ann": "Ann"} and len(asked) == 1
        clock[0] += 1.0
        assert people.names("u") == {"ann": "Ann", "bo": "Bo"} and len(asked) == 2
        clock[0] += 1.0
        assert people.names("u") == {"ann": "Ann", "bo": "Bo"} and len(asked) == 3
