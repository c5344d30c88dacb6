"""Seed 000's ``background_extraction`` tuning keys, handed to the engine.

DeerFlow's config.yaml (seed 000 §9.1) tunes extraction under
``memory.background_extraction``: quiet period, model, confidence threshold, facts per
run, corrections, reinforcements. In memvault those are the engine's ``extraction.*``
settings (``VaultConfig.extraction``), one setting for every surface that learns from
conversations (``Vault.remember``), so the agent layer does not keep a second copy that
could disagree. The keys a config.yaml sets are carried over by
:func:`with_seed_extraction`, which ``memvault serve --config`` applies to the engine's
settings before the vault opens; a key the file leaves out keeps the engine's value
(environment or default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...config import VaultConfig
from ...errors import ConfigError

SECTION = "background_extraction"

ENGINE_KEYS: tuple[str, ...] = (
    "debounce_seconds",
    "model_name",
    "fact_confidence_threshold",
    "max_facts_per_extraction",
    "correction_detection",
    "reinforcement_detection",
)
"""The seed's tuning keys; each has the same name under the engine's ``extraction``."""


def engine_extraction(yaml_settings: Mapping[str, Any]) -> dict[str, Any]:
    """The engine ``extraction`` values a config.yaml's memory section sets, by name.

    ``yaml_settings`` is the flat ``{dotted: value}`` form
    (``MemoryConfigStore.yaml_settings()``); only keys the file names are returned.
    """
    return {
        key: yaml_settings[f"{SECTION}.{key}"]
        for key in ENGINE_KEYS
        if f"{SECTION}.{key}" in yaml_settings
    }


def with_seed_extraction(config: VaultConfig, yaml_settings: Mapping[str, Any]) -> VaultConfig:
    """``config`` with the extraction keys of a seed-000 config.yaml applied (unchanged
    when the file sets none)."""
    values = engine_extraction(yaml_settings)
    if not values:
        return config
    merged = {**config.extraction.model_dump(), **values}
    try:
        extraction = type(config.extraction).model_validate(merged)
    except ValueError as exc:
        raise ConfigError(
            f"memory.{SECTION} in config.yaml does not fit the engine's extraction settings: {exc}"
        ) from None
    return config.model_copy(update={"extraction": extraction})


__all__ = ["ENGINE_KEYS", "SECTION", "engine_extraction", "with_seed_extraction"]
