"""The package root resolves its public names on first use, and every one still resolves.

``memvault/__init__.py`` keeps three lists of the public names: ``__all__``, the
``_HOMES`` table ``__getattr__`` reads, and the imports type checkers read under
``TYPE_CHECKING``. These tests keep the three in step, import every name as a user
would, and check in a fresh interpreter that importing the root, the client or the
CLI's root does not load the engine.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import memvault

ROOT_FILE = Path(memvault.__file__)


def _type_checking_imports() -> dict[str, str]:
    """``{name: module}`` of the imports under ``if TYPE_CHECKING:`` in the root."""
    tree = ast.parse(ROOT_FILE.read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )
    found: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.dump(node)
        for alias in node.names:
            assert alias.asname is None, alias.name
            found[alias.name] = node.module or ""
    return found


def test_all_the_table_and_the_typing_imports_name_the_same_homes() -> None:
    homes = memvault._HOMES
    assert set(memvault.__all__) == {*homes, "__version__"}
    assert _type_checking_imports() == homes


@pytest.mark.parametrize("name", memvault.__all__)
def test_every_public_name_imports_from_the_root(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from memvault import {name}", namespace)  # the statement a user writes
    value = namespace[name]
    if name != "__version__":
        home = importlib.import_module(f"memvault.{memvault._HOMES[name]}")
        assert value is getattr(home, name)
    assert getattr(memvault, name) is value


def test_dir_lists_every_public_name_and_star_imports_them() -> None:
    assert set(memvault.__all__) <= set(dir(memvault))
    namespace: dict[str, object] = {}
    exec("from memvault import *", namespace)
    assert set(memvault.__all__) <= set(namespace)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        memvault.Nothing  # noqa: B018
    with pytest.raises(ImportError):
        exec("from memvault import Nothing", {})


# Run in a fresh interpreter: which memvault modules one import loads.
_LOADED = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "memvault")))
"""


def _loaded_by(module: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, module], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(ast.literal_eval(done.stdout))


def test_importing_the_root_loads_only_the_version() -> None:
    assert _loaded_by("memvault") == {"memvault", "memvault._version"}


#: The engine: what neither ``memvault --help`` nor ``import memvault.client`` needs.
ENGINE = ("vault", "engine", "retrieval", "stores", "agent", "profile", "security", "embed")


def _engine_modules(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in ENGINE)


def test_the_command_line_loads_the_engine_only_in_a_command_that_opens_it() -> None:
    """Typer builds ``--help`` from the command modules: they import the vault in the
    commands' bodies (``cli.shared._State.vault``), not at module level."""
    assert _engine_modules(_loaded_by("memvault.cli")) == []


def test_the_http_client_loads_no_engine() -> None:
    """The client decodes into the values of ``memvault.results`` (import-linter keeps
    it from importing the engine; this checks what the interpreter really loads)."""
    loaded = _loaded_by("memvault.client")
    assert _engine_modules(loaded) == []
    assert {m for m in loaded if m.startswith("memvault.results.")} >= {
        "memvault.results.recall",
        "memvault.results.profile",
    }
