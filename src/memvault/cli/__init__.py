"""The ``memvault`` command: a thin layer over ``Vault``.

Each command opens the vault, calls one library method and prints the result.
Exit codes: 0 ok, 2 bad input (usage, validation, unknown id, conflict), 1 any other
failure; errors are one line on stderr, never a traceback.

``app`` holds the root (global options, the table of commands, ``main``); each other
module holds one group of commands: ``memories``, ``transfer``, ``privacy``, ``serve``
(with ``keys``), ``agents``, ``quarantine``, ``entities``, ``workspace`` (``card``,
``task``), ``history``, ``upkeep``, ``profile``; ``shared`` is what they all use.
"""

from __future__ import annotations

from .startup import importing

with importing():
    from .app import app, main, run

__all__ = ["app", "main", "run"]
