"""The error tree drawn in ``memvault.errors`` is the tree the classes form."""

from __future__ import annotations

import re

import pytest

import memvault
from memvault import errors, llm

_NODE = re.compile(r"^(?P<indent>[ │]*)(?:[├└]── )?(?P<name>[A-Z]\w*Error)\b")


def drawn_tree() -> dict[str, str | None]:
    """Each class in the docstring's drawing mapped to the class drawn as its parent."""
    assert errors.__doc__
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    for line in errors.__doc__.splitlines():
        match = _NODE.match(line.removeprefix("    "))
        if not match:
            continue
        depth = len(match["indent"]) // 4 + (1 if "──" in line else 0)
        del stack[depth:]
        parents[match["name"]] = stack[-1] if stack else None
        stack.append(match["name"])
    return parents


def test_the_drawing_matches_the_classes() -> None:
    tree = drawn_tree()
    assert tree["MemvaultError"] is None
    for name, parent in tree.items():
        cls = getattr(errors, name)
        if parent is not None:
            assert getattr(errors, parent) in cls.__bases__, f"{name} is drawn under {parent}"
    drawn = set(tree)
    defined = {n for n in errors.__all__ if isinstance(getattr(errors, n), type)}
    assert defined == drawn, f"classes not drawn: {defined - drawn}; drawn only: {drawn - defined}"


@pytest.mark.parametrize("name", ["LLMError", "LLMUnavailableError", "EmbeddingError"])
def test_upstream_errors_are_one_branch(name: str) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, errors.UpstreamError)
    assert issubclass(cls, errors.MemvaultError)
    assert getattr(memvault, name) is cls


def test_llm_errors_stay_importable_from_the_client_module() -> None:
    assert llm.LLMError is errors.LLMError
    assert llm.LLMUnavailableError is errors.LLMUnavailableError
    assert errors.LLMError("x", status=502).context == {"status": 502}


def test_codes_are_unique() -> None:
    classes = [getattr(errors, n) for n in errors.__all__]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
