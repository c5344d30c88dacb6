"""No call in the package passes more than six arguments by position (issue 30): past
that, a reader cannot tell which value is which without the signature, and a swap of
two same-typed values goes unnoticed. Pass them by keyword, or as a small typed record."""

from __future__ import annotations

import ast
from pathlib import Path

import memvault

PACKAGE = Path(memvault.__file__).parent
MOST = 6


def test_no_call_passes_more_than_six_positional_arguments() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                given = sum(1 for a in node.args if not isinstance(a, ast.Starred))
                if given > MOST:
                    where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                    found.append(f"{where} {ast.unparse(node.func)} ({given})")
    assert found == [], f"calls with more than {MOST} positional arguments: {found}"
