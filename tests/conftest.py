"""Shared fixtures: every backend in ``STORE_BACKENDS``, and vaults on top of them.

A backend joins the conformance suite (``tests/store_conformance/``, one module per
store protocol) and every ``store``/``vault`` test by adding one ``(id, factory)``
pair to ``STORE_BACKENDS``; a factory usually just calls ``open_store`` with a URL.
A factory gets a fresh, empty directory it may use for files; one for a server-based
backend (PostgreSQL, MySQL) should call ``pytest.skip()`` when its server is not
configured.

Server backends go in ``SERVER_BACKENDS`` instead: they run the conformance suite,
and the modules that set ``SERVER_BACKENDS = True``, but not every ``store``/``vault``
test of the whole suite (each test there gets a fresh database, which would add
many minutes).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import settings

from memvault import Store, Vault, VaultConfig, load_config
from memvault.stores import open_store

from .servers import mariadb

# CI runs the same examples every time (a failure there reproduces locally with
# HYPOTHESIS_PROFILE=ci); local runs keep exploring new ones.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

StoreFactory = Callable[[Path], Store]


def _sqlite_file(directory: Path) -> Store:
    return open_store("sqlite://" + quote(str(directory / "s.db")))


def _memory(directory: Path) -> Store:
    return open_store("memory://")


STORE_BACKENDS: list[tuple[str, StoreFactory]] = [
    ("sqlite-file", _sqlite_file),
    ("memory", _memory),
]


def _mariadb(directory: Path) -> Store:
    if not mariadb.available():
        pytest.skip(f"no MariaDB: apt-get install mariadb-server, or set {mariadb.ENV}")
    return open_store(mariadb.fresh_database())


SERVER_BACKENDS: list[tuple[str, StoreFactory]] = [
    ("mariadb", _mariadb),
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``make_store`` (so ``store`` and ``vault``) runs once per backend: on the server
    backends too in the conformance suite and modules with ``SERVER_BACKENDS = True``."""
    if "make_store" not in metafunc.fixturenames:
        return
    backends = STORE_BACKENDS
    if "store_conformance" in metafunc.module.__name__ or getattr(
        metafunc.module, "SERVER_BACKENDS", False
    ):
        backends = STORE_BACKENDS + SERVER_BACKENDS
    metafunc.parametrize(
        "make_store",
        [factory for _, factory in backends],
        ids=[backend_id for backend_id, _ in backends],
        indirect=True,
    )


@pytest.fixture
def config(tmp_path: Path) -> VaultConfig:
    """Default settings without the environment, and keyword-only retrieval.

    With no embedder the engine's results are exact and fast to compute; the
    vector channel has its own tests (``test_hybrid.py``).
    """
    return load_config(environ={}, home=tmp_path / "home", embedding={"provider": "none"})


@pytest.fixture
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens fresh, empty stores of one backend; the first one lives in ``tmp_path``."""
    factory: StoreFactory = request.param
    opened: list[Store] = []
    counter = itertools.count()

    def make() -> Store:
        n = next(counter)
        directory = tmp_path if n == 0 else tmp_path / f"store{n}"
        directory.mkdir(exist_ok=True)
        store = factory(directory)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()
    mariadb.drop_created()


@pytest.fixture
def store(make_store: Callable[[], Store]) -> Store:
    """An empty store, once per backend in ``STORE_BACKENDS``."""
    return make_store()


@pytest.fixture
def vault(store: Store, config: VaultConfig) -> Vault:
    """A ``Vault`` on ``store`` (so also once per backend)."""
    return Vault(store=store, config=config)


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "vault.db"


@pytest.fixture
def sqlite_vault(sqlite_path: Path, config: VaultConfig) -> Iterator[Vault]:
    """A ``Vault`` on a real SQLite file (``sqlite_path``)."""
    with Vault(sqlite_path, config=config) as v:
        yield v
