"""No two modules of memvault depend on each other, not even through a deferred import.

``tests/test_imports.py`` checks what runs at import time. This test reads every import
statement of the package wherever it stands (module level, ``try`` / ``if`` blocks, and
inside functions and methods, the "deferred" imports that run at first call), because a
deferred import only postpones a circle: the two modules still cannot be understood,
tested or moved apart. A circle is a strongly connected component of more than one
module; the test names every one. The same holds one level up: within each package, no
two of its subpackages (or modules) import each other, so ``embed`` cannot reach into
``retrieval`` while ``retrieval`` stands on ``embed``.

Imports under ``if TYPE_CHECKING:`` count too. They never run, but a type named across
two modules ties them as much as a call does: a reader needs both, and the usual way to
hide a circle from the interpreter is to move one side under ``TYPE_CHECKING``. (The
layer contracts of import-linter leave them out, ``exclude_type_checking_imports``: a
surface may still name an upper type in an annotation; what this test forbids is only
the circle.)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import memvault._version

PACKAGE = Path(memvault._version.__file__).parent
ROOT = "memvault"


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree``: module level, nested, deferred, typing-only."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if not is_package:
        package.pop()
    package = package[: len(package) - node.level + 1]
    return ".".join([*package, node.module] if node.module else package)


def imports_of(module: str, modules: dict[str, Path]) -> set[str]:
    """The memvault modules ``module`` imports anywhere in its code.

    ``from X import name`` counts as importing ``X.name`` when that is a module, else
    ``X``. ``import X.Y`` imports ``X.Y`` (its parents run too, but the dependency the
    author wrote is on ``X.Y``).
    """
    path = modules[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == ROOT}
            continue
        base = _base(module, path.name == "__init__.py", node)
        if base.split(".")[0] != ROOT:
            continue
        for alias in node.names:
            candidate = f"{base}.{alias.name}"
            found.add(candidate if candidate in modules else base)
    found.discard(module)
    return found


def import_graph(modules: dict[str, Path] | None = None) -> dict[str, set[str]]:
    modules = module_files() if modules is None else modules
    return {module: imports_of(module, modules) & modules.keys() for module in modules}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted (Tarjan,
    iterative: the package is deeper than Python's recursion limit would like)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = counter
                    counter += 1
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def packages_graph(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The graph between the direct children of ``package`` (a child subpackage stands for
    all its modules; imports inside one child, or of the package itself, drop out)."""
    depth = package.count(".") + 2

    def child(module: str) -> str | None:
        inside = module.startswith(package + ".")
        return ".".join(module.split(".")[:depth]) if inside else None

    children: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = child(module)
        if source is None:
            continue
        edges = children.setdefault(source, set())
        edges |= {t for t in map(child, targets) if t is not None and t != source}
    return children


def test_the_graph_sees_deferred_relative_and_type_checking_imports(tmp_path: Path) -> None:
    package = tmp_path / ROOT
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .leaf import thing\n")
    (package / "sub" / "leaf.py").write_text("thing = 1\n")
    (package / "top.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .other import Hidden\n"
        "def later():\n"
        "    from . import sub\n"
        "    from .sub import thing\n"
        "class C:\n"
        "    def m(self):\n"
        "        import memvault.sub.leaf\n"
    )
    (package / "other.py").write_text("from .top import later\n")
    graph = import_graph(module_files(package))
    assert graph["memvault.top"] == {"memvault.other", "memvault.sub", "memvault.sub.leaf"}
    assert graph["memvault.sub"] == {"memvault.sub.leaf"}
    assert graph["memvault.other"] == {"memvault.top"}
    assert circles(graph) == [["memvault.other", "memvault.top"]]
    assert packages_graph(graph, ROOT)["memvault.top"] == {"memvault.other", "memvault.sub"}
    assert circles({"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"e"}, "e": {"d"}}) == [
        ["a", "b", "c"],
        ["d", "e"],
    ]


def all_circles() -> list[list[str]]:
    """The circles between modules, then those between the children of each package."""
    graph = import_graph()
    found = circles(graph)
    packages = sorted(m for m, path in module_files().items() if path.name == "__init__.py")
    for package in packages:
        found += [c for c in circles(packages_graph(graph, package)) if c not in found]
    return found


def test_no_two_modules_or_packages_import_each_other_even_deferred() -> None:
    found = all_circles()
    listing = "\n".join(" <-> ".join(component) for component in found)
    assert found == [], f"{len(found)} import circles:\n{listing}"


if __name__ == "__main__":  # a listing for whoever untangles one
    for component in all_circles():
        print(len(component), " ".join(component))
