"""Presets: what a session injects into the prompt and how much room each part gets.

Seed 004 ships three presets, chosen per session: ``task`` (a working agent: state card,
recalled memories, task board, the USER/MEMORY snapshot), ``daily`` (light question
answering: no task board) and ``blank`` (a template that injects nothing). Each one
declares a **budget contract**: a ``budget_profile`` (how many tokens the injected block
may take, as an absolute cap and as a share of the model's context window) and a
``priority_allocation`` (for every component its priority and ``min_tokens``, and
optionally its own ``max_tokens``). :mod:`memvault.workspace.allocator` turns a contract
and the model's window into tokens per component.

The shipped presets are data (``presets.json`` beside this module), validated by the
models below when they are loaded; ``load_presets(path)`` reads a file of the same shape
for presets of one's own.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from ..errors import ConfigError, ValidationError

ComponentName = Literal["state_card", "snapshot", "memories", "task_board"]
"""The parts an injected block is made of: the session's state card, the USER.md /
MEMORY.md snapshot, the top-K memories recalled for the request, the workspace's task
board summary."""

COMPONENTS: tuple[str, ...] = get_args(ComponentName)
PresetName = Literal["task", "daily", "blank"]
PRESET_NAMES: tuple[str, ...] = get_args(PresetName)
#: Other names of the presets: seed 004 ships the empty template as ``blank-template``.
PRESET_ALIASES: dict[str, str] = {"blank-template": "blank"}
PRESETS_FILE = Path(__file__).with_name("presets.json")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ComponentBudget(_Frozen):
    """One line of a priority allocation.

    ``priority`` 1 is served first. ``min_tokens`` is reserved for the component before
    any component gets more than its minimum (as far as the budget holds every minimum);
    ``max_tokens`` caps what it may take however much budget is left (None: no cap of
    its own).
    """

    component: ComponentName
    priority: int = Field(ge=1, le=1000)
    min_tokens: int = Field(ge=0, le=1_000_000)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000)

    @model_validator(mode="after")
    def _max_holds_min(self) -> ComponentBudget:
        if self.max_tokens is not None and self.max_tokens < self.min_tokens:
            raise ValueError(
                f"{self.component}: max_tokens {self.max_tokens} is below min_tokens "
                f"{self.min_tokens}; raise max_tokens or lower min_tokens"
            )
        return self


class BudgetProfile(_Frozen):
    """How large the injected block may be: ``max_tokens``, and never more than
    ``window_share`` of the model's context window (the rest is the conversation's)."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    max_tokens: int = Field(ge=0, le=10_000_000)
    window_share: float = Field(gt=0.0, le=1.0)

    def budget(self, window: int) -> int:
        """The tokens the block may take in a model with ``window`` tokens of context."""
        return min(self.max_tokens, math.floor(window * self.window_share), window)


class Preset(_Frozen):
    """A named budget contract, and how many memories it recalls (``top_k``)."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_-]*$")
    description: str = Field("", max_length=2000)
    budget_profile: BudgetProfile
    priority_allocation: tuple[ComponentBudget, ...] = ()
    top_k: int | None = Field(None, ge=1, le=100)

    @model_validator(mode="after")
    def _distinct(self) -> Preset:
        names = [c.component for c in self.priority_allocation]
        if len(set(names)) != len(names):
            raise ValueError("a component is listed twice in priority_allocation; list it once")
        priorities = [c.priority for c in self.priority_allocation]
        if len(set(priorities)) != len(priorities):
            raise ValueError(
                "two components share a priority; give each its own so the order is defined"
            )
        return self

    def ordered(self) -> tuple[ComponentBudget, ...]:
        """The allocation, most important first."""
        return tuple(sorted(self.priority_allocation, key=lambda c: c.priority))

    def includes(self, component: str) -> bool:
        return any(c.component == component for c in self.priority_allocation)


def _problems(exc: PydanticValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}" for err in exc.errors()
    )


def load_presets(path: Path | None = None) -> dict[str, Preset]:
    """The presets of a JSON file (``{name: preset}``; default: the shipped ones), validated.

    A malformed file raises ``ConfigError`` naming the file and the fields to fix.
    """
    source = PRESETS_FILE if path is None else Path(path)
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"preset file {source} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read preset file {source}: {exc}; fix or replace it") from None
    if not isinstance(document, dict) or not document:
        raise ConfigError(f"{source} must hold a JSON object of presets: {{name: preset}}")
    presets: dict[str, Preset] = {}
    for name, body in document.items():
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: preset {name!r} must be a JSON object")
        try:
            presets[name] = Preset.model_validate({**body, "name": name})
        except PydanticValidationError as exc:
            raise ConfigError(f"{source}: preset {name!r} is invalid: {_problems(exc)}") from None
    return presets


@cache
def _shipped() -> dict[str, Preset]:
    presets = load_presets()
    if tuple(presets) != PRESET_NAMES:  # the settings' Literal and the file must agree
        raise ConfigError(f"{PRESETS_FILE} must define exactly {', '.join(PRESET_NAMES)}")
    return presets


def shipped_presets() -> dict[str, Preset]:
    """The presets memvault ships: ``task``, ``daily`` and ``blank``."""
    return dict(_shipped())


def get_preset(name: object) -> Preset:
    """A shipped preset by name, or ``ValidationError`` listing the names there are."""
    presets = _shipped()
    if isinstance(name, str):
        name = PRESET_ALIASES.get(name, name)
    if not isinstance(name, str) or name not in presets:
        raise ValidationError(
            f"unknown preset {name!r}: choose one of {', '.join(presets)}", field="preset"
        )
    return presets[name]


__all__ = [
    "COMPONENTS",
    "PRESETS_FILE",
    "PRESET_ALIASES",
    "PRESET_NAMES",
    "BudgetProfile",
    "ComponentBudget",
    "ComponentName",
    "Preset",
    "PresetName",
    "get_preset",
    "load_presets",
    "shipped_presets",
]
