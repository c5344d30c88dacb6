"""Shared fixtures: every backend in ``STORE_BACKENDS``, and vaults on top of them.

A backend joins the conformance suite (``tests/stores/conformance/``, one module per
store protocol) and every ``store``/``vault`` test by adding one ``(id, factory)``
pair to ``STORE_BACKENDS``; a factory usually just calls ``open_store`` with a URL.
A factory gets a fresh, empty directory it may use for files.

Server backends (PostgreSQL, MariaDB) go in ``SERVER_BACKENDS`` instead: they run the
conformance suite, the isolation tests (``CONFORMANCE_MODULES``) and the modules that
set ``SERVER_BACKENDS = True``, but not every ``store``/``vault`` test of the whole
suite (each test there gets a fresh database, which would add many minutes);
``MEMVAULT_TEST_ALL_BACKENDS=1`` runs those on the servers too. ``make test`` installs
and starts the servers; a factory whose server cannot be had fails the test, saying
how to get it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest
from hypothesis import settings

from memvault import Store, Vault, VaultConfig, load_config
from memvault.stores import open_store

from .servers import mariadb

if TYPE_CHECKING:
    import httpx

    from memvault import ExternalMemory
    from memvault.server.state import ServerSettings

    from .gateway_server import Live, Served
    from .servers.hindsight import HindsightServer

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


def _postgres(directory: Path) -> Store:
    from tests.servers.postgres import postgres_database

    return open_store(postgres_database())


def _mariadb(directory: Path) -> Store:
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    return open_store(mariadb.fresh_database())


STORE_BACKENDS: list[tuple[str, StoreFactory]] = [
    ("sqlite-file", _sqlite_file),
    ("memory", _memory),
]

# Backends on a database server, run by the conformance suite and the isolation tests
# only (CONFORMANCE_MODULES): every ``store``/``vault`` test on them would add minutes.
# MEMVAULT_TEST_ALL_BACKENDS=1 runs every ``store``/``vault`` test on them too.
SERVER_BACKENDS: list[tuple[str, StoreFactory]] = [
    ("postgres", _postgres),
    ("mariadb", _mariadb),
]
_MARKS = {"postgres": pytest.mark.postgres, "mariadb": pytest.mark.mariadb}
CONFORMANCE_MODULES = (
    "tests.stores.conformance.",
    "tests.test_isolation",
    "tests.stores.test_score_isolation",
)


def backends_for(module: object) -> list[tuple[str, StoreFactory]]:
    """The backends the ``store`` fixture runs a test module's tests on."""
    name = getattr(module, "__name__", "")
    if (
        name.startswith(CONFORMANCE_MODULES)
        or getattr(module, "SERVER_BACKENDS", False)
        or os.environ.get("MEMVAULT_TEST_ALL_BACKENDS")
    ):
        return STORE_BACKENDS + SERVER_BACKENDS
    return STORE_BACKENDS


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``make_store`` (so ``store`` and ``vault``) runs once per backend of the module."""
    if "make_store" in metafunc.fixturenames:
        backends = backends_for(metafunc.module)
        if metafunc.definition.get_closest_marker("sql_only"):
            backends = [(i, f) for i, f in backends if i != "memory"]
        params = [
            pytest.param(f, id=i, marks=[_MARKS[i]] if i in _MARKS else []) for i, f in backends
        ]
        metafunc.parametrize("make_store", params, indirect=True)


@pytest.fixture(scope="session")
def hindsight() -> Iterator[HindsightServer]:
    """The real Hindsight server (``tests/servers/hindsight.py``), once per xdist worker.

    Tests share it, so each one uses bank ids of its own. Without ``make hindsight``
    the tests that need it fail, saying so: they are never skipped.
    """
    from tests.servers import hindsight as servers

    if not servers.installed():
        pytest.fail(servers.missing_message(), pytrace=False)
    with servers.hindsight_server() as server:
        yield server


@pytest.fixture(params=["fake", "real"])
def any_hindsight(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The fake Hindsight server (``tests/fakes/hindsight.py``), then the real one.

    For contract tests that must hold on both; without ``make hindsight`` the real
    half fails, saying so.
    """
    if request.param == "fake":
        from tests.fakes.hindsight import FakeHindsight

        with FakeHindsight() as fake:
            yield fake
        return
    yield request.getfixturevalue("hindsight")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test that used the Hindsight server shows the end of the server's log."""
    report: pytest.TestReport = yield
    server = getattr(item, "funcargs", {}).get("hindsight")
    if report.failed and server is not None:
        report.sections.append(("Hindsight server log (last lines)", server.log_tail(40)))
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests.servers import postgres

    postgres.stop_server()


@pytest.fixture
def config(tmp_path: Path) -> VaultConfig:
    """Default settings without the environment, and keyword-only retrieval.

    With no embedder the engine's results are exact and fast to compute; the
    vector channel has its own tests (``tests/retrieval/test_hybrid.py``).
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


# -- the live gateway: one real server on loopback per test (or per module) ----------------
# A module that needs other settings overrides ``gateway_config``, ``gateway_settings`` or
# ``gateway_external`` (``module_gateway_settings`` for ``module_live``); the server itself
# is started in one place, ``tests/gateway_server.py``.


@pytest.fixture
def gateway_config(config: VaultConfig) -> VaultConfig:
    """The settings of the vault behind ``live``."""
    return config


@pytest.fixture
def gateway_settings() -> ServerSettings | None:
    """The server settings of ``live``; ``None`` is the defaults."""
    return None


@pytest.fixture
def gateway_external() -> ExternalMemory | None:
    """The external memory ``live`` is given; ``None`` builds the configured one."""
    return None


@pytest.fixture
def live(
    gateway_config: VaultConfig,
    gateway_settings: ServerSettings | None,
    gateway_external: ExternalMemory | None,
) -> Iterator[Live]:
    """A real gateway on 127.0.0.1 with auth on: an admin key and keys for alice and bob."""
    from .gateway_server import live_gateway

    with live_gateway(gateway_config, gateway_settings, gateway_external) as gw:
        yield gw


@pytest.fixture(scope="module")
def module_gateway_settings() -> ServerSettings | None:
    """The server settings of ``module_live``; ``None`` is the defaults."""
    return None


@pytest.fixture(scope="module")
def module_live(
    tmp_path_factory: pytest.TempPathFactory, module_gateway_settings: ServerSettings | None
) -> Iterator[Live]:
    """``live`` shared by a module's tests (each uses data of its own), in a home of its own."""
    from .gateway_server import live_gateway

    home = tmp_path_factory.mktemp("gateway") / "home"
    config = load_config(environ={}, home=home, embedding={"provider": "none"})
    with live_gateway(config, settings=module_gateway_settings) as gw:
        yield gw


@pytest.fixture
def alice(live: Live) -> Iterator[httpx.Client]:
    """An HTTP client of ``live`` with alice's key."""
    with live.client(live.alice) as client:
        yield client


@pytest.fixture
def bob(live: Live) -> Iterator[httpx.Client]:
    """An HTTP client of ``live`` with bob's key."""
    with live.client(live.bob) as client:
        yield client


@pytest.fixture
def open_gateway(config: VaultConfig) -> Iterator[Served]:
    """A real gateway on 127.0.0.1 without keys: everyone is served as a local admin."""
    from .gateway_server import open_gateway as serve_open

    with serve_open(config) as served:
        yield served
