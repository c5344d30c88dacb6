"""Imports run one way: no cycles at module level, no module imports the package root, and
every module imports on its own in a fresh interpreter.

The graph is built from the source with ``ast``, so it sees exactly what runs at import
time: imports at module level (also inside ``try`` / ``if`` blocks), but not those inside
functions, which run later, nor those under ``if TYPE_CHECKING:``, which never run.
import-linter (``make test``) checks the layer contracts over the same package.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import memvault
from memvault._version import __version__

PACKAGE = Path(memvault.__file__).parent
ROOT = "memvault"


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _module_level(block)
            for handler in node.handlers:
                yield from _module_level(handler.body)
        elif isinstance(node, ast.With):
            yield from _module_level(node.body)


def _base(module: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if MODULES[module].name != "__init__.py":
        package.pop()
    package = package[: len(package) - node.level + 1]
    return ".".join([*package, node.module] if node.module else package)


def imports_of(module: str) -> list[tuple[str, int]]:
    """``(imported module, line)`` for each memvault module ``module`` imports at load time.

    ``from X import name`` counts as importing ``X.name`` when that is a module, else
    ``X``; so ``from . import __version__`` in a top-level module imports the root.
    """
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    for node in _module_level(tree.body):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == ROOT]
            continue
        base = _base(module, node)
        if base.split(".")[0] != ROOT:
            continue
        for alias in node.names:
            candidate = f"{base}.{alias.name}"
            found.append((candidate if candidate in MODULES else base, node.lineno))
    return found


def import_graph() -> dict[str, set[str]]:
    return {
        module: {target for target, _ in imports_of(module) if target != module}
        for module in MODULES
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path ``[a, b, ..., a]``, or None (iterative DFS)."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    for start in sorted(graph):
        if start in state:
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(step) == 1:
                return [*path[path.index(step) :], step]
            elif step not in state and step in graph:
                state[step] = 1
                path.append(step)
                stack.append(iter(sorted(graph[step])))
    return None


def test_the_graph_builder_sees_relative_and_nested_imports() -> None:
    graph = import_graph()
    assert "memvault.engine.build" in graph["memvault.vault"]
    assert "memvault.security.pii.base" in graph["memvault.security.pii.email"]
    assert "memvault.stores.protocols" in graph["memvault.stores"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_module_import_graph_has_no_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_module_imports_the_package_root() -> None:
    """The root imports the whole engine; a module that imports it back (for the version,
    say) gets a half-initialised package whenever it is loaded first."""
    offenders = [
        f"{MODULES[module].relative_to(PACKAGE.parent)}:{line}"
        for module in MODULES
        if module != ROOT
        for target, line in imports_of(module)
        if target == ROOT
    ]
    assert offenders == [], (
        f"import memvault._version (or the defining module) instead: {offenders}"
    )


def test_the_version_matches_pyproject() -> None:
    pyproject = PACKAGE.parents[1] / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not running from a source checkout")
    assert tomllib.loads(pyproject.read_text())["project"]["version"] == __version__
    assert memvault.__version__ == __version__


# Modules whose extra is not installed are allowed to fail on exactly that import.
_OPTIONAL = {"mcp", "fastapi", "uvicorn", "starlette", "langchain", "langchain_core", "langgraph"}

# Runs in a fresh interpreter: each module is imported with no memvault module loaded
# (third-party libraries stay loaded: they cannot depend on memvault's import order).
_PROBE = """
import importlib, sys, traceback
optional = set(sys.argv[1].split(","))
failed = []
for name in sys.argv[2:]:
    for loaded in [m for m in sys.modules if m == "memvault" or m.startswith("memvault.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in optional:
            failed.append(f"{name}: {exc!r}")
    except Exception:
        failed.append(f"{name}: " + traceback.format_exc(limit=-3))
print("\\n".join(failed))
"""


def test_every_module_imports_on_its_own_in_a_fresh_interpreter() -> None:
    """Loaded first, every module works: no import order hides a cycle or a missing import.

    The modules are dealt to one interpreter per core, which run at once: each still
    imports every module of its share with no memvault module loaded (~25 s of imports in
    all, spent on both cores when the other test worker waits on a server or a browser).
    """
    shares = max(1, min(4, os.cpu_count() or 1))
    names = sorted(MODULES)
    probes = [
        subprocess.Popen(
            [sys.executable, "-c", _PROBE, ",".join(sorted(_OPTIONAL)), *names[share::shares]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for share in range(shares)
    ]
    for probe in probes:
        out, err = probe.communicate(timeout=600)
        assert probe.returncode == 0, err
        assert out.strip() == "", out


def test_the_llm_client_imports_before_the_package() -> None:
    """The case that broke: the LLM client loaded first (as an engine import would)."""
    code = "import memvault.llm, memvault; assert memvault.llm.ChatClient and memvault.Vault"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
