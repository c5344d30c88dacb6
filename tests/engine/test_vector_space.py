"""A vault records its embedding model: another configured model is refused by name,
the default configuration keeps the recorded one, ``switch`` moves a vault. Real SQLite
files, the real local models."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memvault import EmbeddingModelMismatchError, Vault, VaultConfig, load_config
from memvault.embed import HashingEmbedder
from memvault.embed.bilingual import BilingualEmbedder
from memvault.embed.local import LocalEmbedder
from memvault.embed.multilingual import MultilingualEmbedder
from memvault.engine.vector_space import MODEL_KEY, switch
from memvault.stores import open_store
from tests.cli_process import invoke

TEXTS = ("Alice writes her backend services in Go", "Alice's cat is called Miso")


def _config(tmp_path: Path, **embedding: object) -> VaultConfig:
    return load_config(
        environ={}, home=tmp_path / "home", embedding={"background": False, **embedding}
    )


def _recorded(db: Path) -> str | None:
    store = open_store(db)
    try:
        return store.get_setting(MODEL_KEY)
    finally:
        store.close()


def test_a_new_vault_records_the_model_it_was_opened_with(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with Vault(db, config=_config(tmp_path)) as vault:
        assert isinstance(vault.embedder, BilingualEmbedder)
        vault.add(TEXTS[0], user_id="u")
    assert _recorded(db) == BilingualEmbedder().name


def test_another_chosen_model_is_refused_naming_both_and_the_way_to_switch(
    tmp_path: Path,
) -> None:
    db = tmp_path / "v.db"
    with Vault(db, config=_config(tmp_path, model="all-MiniLM-L6-v2")) as vault:
        vault.add(TEXTS[0], user_id="u")
    with pytest.raises(EmbeddingModelMismatchError) as caught:
        Vault(db, config=_config(tmp_path, model="multilingual-e5-small"))
    message = str(caught.value)
    assert "all-MiniLM-L6-v2" in message and "multilingual-e5-small" in message
    assert "memvault reindex --model multilingual-e5-small" in message
    assert caught.value.context["recorded"] == LocalEmbedder().name
    # An embedder passed in is a choice too.
    with pytest.raises(EmbeddingModelMismatchError):
        Vault(db, config=_config(tmp_path), embedder=HashingEmbedder(dim=384))
    assert _recorded(db) == LocalEmbedder().name  # nothing was changed by the refusals


def test_the_default_configuration_keeps_the_vaults_recorded_model(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with Vault(db, config=_config(tmp_path, model="all-MiniLM-L6-v2")) as vault:
        for text in TEXTS:
            vault.add(text, user_id="u")
    with Vault(db, config=_config(tmp_path)) as vault:  # no model named: the default
        assert isinstance(vault.embedder, LocalEmbedder)
        hits = vault.search("which programming language does she use", user_id="u", limit=1)
        assert hits[0].entry.content == TEXTS[0] and "vector" in hits[0].sources


def test_keyword_only_by_choice_opens_any_vault(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with Vault(db, config=_config(tmp_path, model="all-MiniLM-L6-v2")) as vault:
        vault.add(TEXTS[0], user_id="u")
    with Vault(db, config=_config(tmp_path, provider="none")) as vault:
        assert vault.embedder is None
        assert vault.search("backend services", user_id="u")[0].entry.content == TEXTS[0]
    assert _recorded(db) == LocalEmbedder().name


def test_a_vault_made_before_the_record_takes_the_model_of_its_vectors(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with Vault(db, config=_config(tmp_path, model="all-MiniLM-L6-v2")) as vault:
        vault.add(TEXTS[0], user_id="u")
    with sqlite3.connect(db) as conn:  # as an older memvault left it: vectors, no record
        conn.execute("DELETE FROM vault_settings")
    assert _recorded(db) is None
    with Vault(db, config=_config(tmp_path)) as vault:
        assert isinstance(vault.embedder, LocalEmbedder)
    assert _recorded(db) == LocalEmbedder().name


def test_switch_embeds_everything_with_the_new_model_then_records_it(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with Vault(db, config=_config(tmp_path, model="all-MiniLM-L6-v2")) as vault:
        for text in TEXTS:
            vault.add(text, user_id="u")
        vault.add("Bob deploys on Fridays", user_id="v")
    config = load_config(environ={}, home=tmp_path / "home")
    store = open_store(db)
    try:
        assert switch(store, BilingualEmbedder(), config.embedding) == 3
        assert store.missing_vectors(BilingualEmbedder().name) == []
    finally:
        store.close()
    assert _recorded(db) == BilingualEmbedder().name
    with Vault(db, config=_config(tmp_path, model="bilingual-minilm-e5")) as vault:
        hits = vault.search("which programming language does she use", user_id="u", limit=1)
        assert hits[0].entry.content == TEXTS[0] and "vector" in hits[0].sources
    with pytest.raises(EmbeddingModelMismatchError):
        Vault(db, config=_config(tmp_path, model="all-MiniLM-L6-v2"))


# -- the command line and the server ------------------------------------------------------

MINILM_ENV = {"MEMVAULT_EMBEDDER": "local", "MEMVAULT_EMBEDDING_MODEL": "all-MiniLM-L6-v2"}
E5_ENV = {"MEMVAULT_EMBEDDER": "local", "MEMVAULT_EMBEDDING_MODEL": "multilingual-e5-small"}


def _env(home: Path, **more: str) -> dict[str, str | None]:
    return {"MEMVAULT_HOME": str(home), "MEMVAULT_DB": None, **more}


def test_the_cli_names_both_models_and_reindex_model_moves_the_vault(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = invoke(["add", "--user", "u", TEXTS[0]], env=_env(home, **MINILM_ENV))
    assert added.returncode == 0, added.stderr
    refused = invoke(["search", "--user", "u", "Go"], env=_env(home, **E5_ENV))
    assert refused.returncode != 0 and refused.stdout == ""
    assert "all-MiniLM-L6-v2" in refused.stderr and "multilingual-e5-small" in refused.stderr
    assert "memvault reindex --model multilingual-e5-small" in refused.stderr
    # The default configuration keeps the vault's model.
    found = invoke(["search", "--user", "u", "which language does she code in"], env=_env(home))
    assert found.returncode == 0 and TEXTS[0] in found.stdout
    moved = invoke(["reindex", "--model", "multilingual-e5-small"], env=_env(home))
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.startswith("embedded 1 memories with multilingual-e5-small/")
    assert "the vault now searches with multilingual-e5-small" in moved.stdout
    assert _recorded(home / "memvault.db") == MultilingualEmbedder().name
    assert invoke(["search", "--user", "u", "Go"], env=_env(home, **E5_ENV)).returncode == 0
    assert invoke(["search", "--user", "u", "Go"], env=_env(home, **MINILM_ENV)).returncode != 0
    both = invoke(["reindex", "--model", "all-MiniLM-L6-v2", "--user", "u"], env=_env(home))
    assert both.returncode != 0 and "drop --user" in both.stderr


def test_the_server_does_not_start_on_a_vault_of_another_model(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert invoke(["add", "--user", "u", TEXTS[0]], env=_env(home, **MINILM_ENV)).returncode == 0
    env = {**os.environ, "MEMVAULT_HOME": str(home), **E5_ENV}
    env.pop("MEMVAULT_DB", None)
    started = subprocess.run(
        [sys.executable, "-m", "memvault.cli", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert started.returncode != 0
    assert "all-MiniLM-L6-v2" in started.stderr and "memvault reindex --model" in started.stderr
    assert "serving" not in started.stdout
