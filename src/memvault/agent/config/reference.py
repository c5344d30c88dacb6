"""The configuration reference: every setting of ``VaultConfig`` (the engine) and of
``MemoryConfig`` (``config.yaml``'s ``memory:`` section, the agent layer) with its
default and meaning, rendered from the models themselves so it cannot drift from them.

``memvault config-reference`` prints it; ``docs/CONFIG.md`` is its output, and a test
fails when the committed file differs from what the models say today.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from typing import Any

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ...config import VaultConfig
from .settings import USER_WRITABLE_FIELDS, MemoryConfig


def _leaves(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    for name, info in model.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from _leaves(kind, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", info


def _default(info: FieldInfo) -> str:
    if info.default_factory is not None:
        value: Any = info.default_factory()  # type: ignore[call-arg]
    elif info.default is PydanticUndefined:
        return "required"
    else:
        value = info.default
    if value is None:
        return "none"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, str):
        return f"`{value}`" if value else '`""`'
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return f"`{json.dumps(items, default=str, ensure_ascii=False)}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _table(model: type[BaseModel], prefix: str, writable: tuple[str, ...] = ()) -> list[str]:
    rows = ["| setting | default | meaning |", "| --- | --- | --- |"]
    for name, info in _leaves(model):
        # home's default is this machine's path: show the form instead
        default = "`~/.memvault`" if name == "home" else _default(info)
        meaning = _cell(info.description or "")
        if name in writable:
            meaning += " *(users may change it for themselves)*"
        rows.append(f"| `{prefix}{name}` | {_cell(default)} | {meaning} |")
    return rows


def render_reference() -> str:
    """The whole reference as Markdown."""
    lines = [
        "# Configuration reference",
        "",
        "Generated from the settings models by `memvault config-reference`; do not edit by",
        "hand. How the layers combine (defaults, environment, keyword overrides; the admin's",
        "`config.yaml`, per-user and per-session files) is in the README's Configuration",
        "section.",
        "",
        "## The engine: `VaultConfig`",
        "",
        "`load_config(**overrides)` and `MEMVAULT_*` variables set these; nested settings are",
        'keyword dictionaries (`load_config(retrieval={"vector_weight": 0.5})`).',
        "",
        *_table(VaultConfig, ""),
        "",
        "## Agents: `MemoryConfig` (`config.yaml`, section `memory:`)",
        "",
        "The admin's file sets them; the ones marked may be changed per user (and per",
        "session) through `/api/memory/v2/config` and `/v1/config/session/set`.",
        "",
        *_table(MemoryConfig, "memory.", USER_WRITABLE_FIELDS),
        "",
    ]
    return "\n".join(lines)


__all__ = ["render_reference"]
