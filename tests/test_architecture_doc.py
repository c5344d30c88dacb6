"""docs/architecture.md stays in step with the code: its layer table lists the layers of
the import-linter layers contract in ``pyproject.toml`` (read here, so a change to the
contract fails this test until the page follows), and its layout table names every
package and top-level module under ``src/memvault``, and nothing else."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import memvault

ROOT = Path(__file__).parents[1]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = Path(memvault.__file__).parent

_CODE = re.compile(r"`([^`]+)`")


def _section(heading: str) -> str:
    """The text under ``## heading``, up to the next ``## ``."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def _rows(heading: str) -> list[list[str]]:
    """The body rows of the first table under ``heading``, split into cells."""
    rows = []
    for line in _section(heading).splitlines():
        if not line.startswith("|") or set(line) <= {"|", "-", " "}:
            continue
        # An escaped pipe (\\|) is text inside a cell, not a column border.
        cells = [c.strip() for c in line.replace("\\|", "\0").strip("|").split("|")]
        rows.append([c.replace("\0", "|") for c in cells])
    return rows[1:]  # the header row


def _layer_modules(layer: str) -> list[str]:
    """``"render : retrieval : (lifecycle)"`` -> ``["render", "retrieval", "lifecycle"]``."""
    return [name.strip(" ()") for name in re.split(r"[|:]", layer) if name.strip(" ()")]


def contract_layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return [_layer_modules(layer) for layer in _top_layers(contracts)]


def _top_layers(contracts: list[dict[str, object]]) -> list[str]:
    """The layers of the package's own contract (the others order one package's modules)."""
    (layers,) = [
        c for c in contracts if c["type"] == "layers" and c.get("containers") == ["memvault"]
    ]
    found = layers["layers"]
    assert isinstance(found, list)
    return [str(layer) for layer in found]


def test_the_layer_table_follows_the_contract_in_order() -> None:
    documented = [_CODE.findall(row[2]) for row in _rows("Layers")]
    assert documented == contract_layers()


def test_the_layer_table_spells_each_layer_as_the_contract_does() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = _top_layers(config["tool"]["importlinter"]["contracts"])
    documented = [re.sub(r"[`\s]", "", row[2]) for row in _rows("Layers")]
    assert documented == [re.sub(r"\s", "", layer) for layer in layers]


def test_the_layout_table_names_every_package_and_top_level_module() -> None:
    on_disk = {p.name for p in PACKAGE.glob("*.py")} | {
        f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    documented = [_CODE.findall(row[0])[0] for row in _rows("Package layout")]
    assert len(documented) == len(set(documented)), "a row is listed twice"
    assert set(documented) == on_disk


def test_every_module_of_the_contract_is_in_the_layout_table() -> None:
    documented = {
        _CODE.findall(row[0])[0].removesuffix("/").removesuffix(".py")
        for row in _rows("Package layout")
    }
    in_layers = {name for layer in contract_layers() for name in layer}
    assert in_layers <= documented


def test_every_file_the_change_table_names_exists() -> None:
    """Each path in "Where does a change go" (under ``src/memvault``, or from the
    repository root) is in the tree; a placeholder such as ``<name>`` is not a path."""
    rows = _rows("Where does a change go")
    assert len(rows) == 4
    named = {
        span.split(" ")[0].split(":")[0]
        for row in rows
        for span in _CODE.findall(row[1])
        if "<" not in span and ("/" in span or re.search(r"\.(py|toml|md)$", span))
    }
    assert "retrieval/base.py" in named and "stores/factory.py" in named
    missing = [
        path for path in sorted(named) if not ((PACKAGE / path).exists() or (ROOT / path).exists())
    ]
    assert missing == [], f"the change table names files that do not exist: {missing}"
