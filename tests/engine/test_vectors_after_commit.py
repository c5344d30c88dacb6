"""A write made of several store writes tells the embedding worker once it is committed.

The worker reads new entries on a connection of its own. Told inside the open
transaction (a write nested in a larger one: the replacement of ``add(supersedes=)``,
a decision written with its audit), it reads none of them, stores no vector and counts
the work as done: the memory is then found by keyword only until the next back-fill.
Each test makes the worker finish while the outer transaction is still open, every time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault import Vault, load_config
from memvault.embed import HashingEmbedder
from tests.servers import postgres

pytestmark = pytest.mark.postgres


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    # PostgreSQL: the worker's own connection reads committed rows only, and is not
    # kept waiting by the open transaction (SQLite's single writer lock would hold it).
    where = postgres.postgres_database()
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    opened = Vault(where, config=config, embedder=HashingEmbedder())
    try:
        yield opened
    finally:
        opened.close()


def _worker_runs_inside(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = vault._e.writer
    insert: Callable[..., Any] = writer.insert

    def insert_then_let_the_worker_run(built: Any) -> Any:
        stored = insert(built)
        assert vault.flush(timeout=60)  # the outer transaction is still open
        return stored

    monkeypatch.setattr(writer, "insert", insert_then_let_the_worker_run)


def _vector_ids(vault: Vault, user: str) -> list[str]:
    assert vault.flush(timeout=60)
    assert vault.embedder is not None
    return sorted(vault.store.load_vectors(user, vault.embedder.name).ids)


def test_a_replacement_gets_its_vector(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    old = vault.add("the team meets on Tuesdays", user_id="a")
    assert vault.flush(timeout=60)
    _worker_runs_inside(vault, monkeypatch)
    new = vault.add("the team meets on Thursdays", user_id="a", supersedes=old.id)
    monkeypatch.undo()
    assert new.id in _vector_ids(vault, "a")


def test_a_decision_gets_its_vector(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    _worker_runs_inside(vault, monkeypatch)
    made = vault.add("we use Postgres for billing", user_id="a", status="proposed")
    monkeypatch.undo()
    assert made.id in _vector_ids(vault, "a")
