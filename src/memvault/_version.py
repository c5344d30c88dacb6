"""The package version, in a leaf module that anything may import.

It lives apart from ``memvault/__init__.py`` so a module that needs the version (the
LLM client's User-Agent, the CLI's ``version``, the servers' health answers) does not
import the package root, which re-exports the engine's public names and would hand a
module loaded early a partially initialised package. ``tests/test_imports.py`` keeps it equal to the
version in ``pyproject.toml``.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
