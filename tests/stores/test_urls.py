"""``Vault`` and ``MEMVAULT_DB`` take a path or a store URL (``stores.open_store``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault import ConfigError, MemoryStore, SQLiteStore, Vault, load_config


def test_a_sqlite_url_and_a_path_open_the_same_file(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path / "h", embedding={"provider": "none"})
    file = tmp_path / "m.db"
    with Vault(f"sqlite:///{file}", config=config) as vault:
        assert isinstance(vault.store, SQLiteStore)
        entry = vault.add("written through a URL", user_id="u")
    with Vault(file, config=config) as vault:
        assert vault.get(entry.id, user_id="u").content == "written through a URL"


def test_memvault_db_takes_a_url(tmp_path: Path) -> None:
    config = load_config(
        environ={"MEMVAULT_DB": "memory://", "MEMVAULT_HOME": str(tmp_path)},
        embedding={"provider": "none"},
    )
    assert config.store == "memory://"
    with Vault(config=config) as vault:
        assert isinstance(vault.store, MemoryStore)
        vault.add("kept in memory", user_id="u")
        assert vault.count(user_id="u") == 1


def test_memvault_db_still_takes_a_path(tmp_path: Path) -> None:
    config = load_config(environ={"MEMVAULT_DB": str(tmp_path / "x.db")})
    assert config.store == tmp_path / "x.db" == config.database


def test_an_unknown_scheme_is_a_clear_config_error(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    with pytest.raises(ConfigError, match="unknown store scheme 'oracle'") as caught:
        Vault("oracle://u:secret@127.0.0.1/db", config=config)
    assert "secret" not in str(caught.value)  # the URL may hold a password
