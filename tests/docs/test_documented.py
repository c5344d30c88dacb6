"""Nothing a user can call goes undocumented (issue 20 §4): every CLI command, every HTTP
route of the OpenAPI document, and every configuration field (the generated
``docs/CONFIG.md``, which must match the models it is generated from)."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from memvault import Vault, cli, load_config
from memvault.agent.config.reference import render_reference
from memvault.server.app import create_app
from tests.cli.test_commands import run

ROOT = Path(__file__).parents[2]
# The README is a landing page; the reference lives in docs/ (issue 33): both count.
README = "\n".join(
    page.read_text(encoding="utf-8")
    for page in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]
)
CLI_DOCS = README
METHODS = "GET|POST|PUT|PATCH|DELETE"


def _command_paths(command: object, prefix: str = "") -> list[str]:
    paths = []
    for name, sub in getattr(command, "commands", {}).items():
        full = f"{prefix} {name}".strip()
        paths.append(full)
        paths.extend(_command_paths(sub, full))
    return paths


def _documented_command(path: str) -> bool:
    *group, name = path.split()
    head = " ".join(["memvault", *group])
    # `memvault agents list\|show A\|reset A` documents three commands in one row
    alternatives = rf"{re.escape(head)} (?:[\w-]+(?: [A-Z][\w-]*)?\\\|)*{re.escape(name)}\b"
    return re.search(alternatives, CLI_DOCS) is not None


def test_every_cli_command_is_in_the_readme() -> None:
    paths = _command_paths(typer.main.get_command(cli.app))
    assert len(paths) > 20
    missing = [p for p in paths if not _documented_command(p)]
    assert missing == [], f"commands README/docs/cli.md never show as `memvault ...`: {missing}"


def _normal(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path.split("?")[0].rstrip("/") or "/")


def _documented_routes() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    pattern = rf"`((?:{METHODS})(?:[|/\\]+(?:{METHODS}))*) (/[^`\s]*)"
    # The README's tables, and the docs pages that describe a route of their own.
    pages = [README, *(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))]
    for match in re.finditer(pattern, "\n".join(pages)):
        for method in re.split(r"[|/\\]+", match.group(1)):
            found.add((method, _normal(match.group(2))))
    return found


def test_every_route_is_in_the_readme(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    with Vault(config=config) as vault:
        spec = create_app(vault).openapi()
    documented = _documented_routes()
    routes = [(m.upper(), p) for p, ops in spec["paths"].items() for m in ops]
    assert len(routes) > 50
    missing = [f"{m} {p}" for m, p in routes if (m, _normal(p)) not in documented]
    assert missing == [], f"routes the README's tables (or a docs page) never name: {missing}"


def test_the_config_reference_is_generated_from_the_models() -> None:
    committed = (ROOT / "docs" / "CONFIG.md").read_text(encoding="utf-8")
    assert committed == render_reference(), (
        "docs/CONFIG.md is stale: run `memvault config-reference > docs/CONFIG.md`"
    )
    assert "`retrieval.vector_weight`" in committed and "`memory.hindsight.env`" in committed
    assert "|  |" not in committed, "a setting without a description"


def test_the_cli_prints_the_reference(tmp_path: Path) -> None:
    printed = run(tmp_path / "home", "config-reference")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == render_reference()
