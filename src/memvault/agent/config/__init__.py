"""The agent layer's settings: ``MemoryConfig`` and its sections (``settings``), merged
from layers (defaults, config.yaml, global, user and session overrides) by
``MemoryConfigStore`` (``layers``), and the configuration reference rendered from the
models (``reference``). The names are re-exported here, the path the documentation uses
(``memvault.agent.config.MemoryConfig``).
"""

from .layers import (
    GLOBAL_OVERRIDES_FILE,
    LOCK_TIMEOUT_SECONDS,
    MASK,
    SESSIONS_DIR,
    USER_CONFIG_FILE,
    YAML_SECTION,
    EffectiveConfig,
    FieldSource,
    MemoryConfigStore,
    load_yaml_settings,
)
from .settings import (
    LEAF_FIELDS,
    RETIRED_FIELDS,
    USER_WRITABLE_FIELDS,
    BackgroundExtractionSection,
    BuiltinSection,
    HindsightSection,
    InjectionSection,
    MemoryConfig,
    SecuritySection,
)

__all__ = [
    "GLOBAL_OVERRIDES_FILE",
    "LEAF_FIELDS",
    "LOCK_TIMEOUT_SECONDS",
    "MASK",
    "RETIRED_FIELDS",
    "SESSIONS_DIR",
    "USER_CONFIG_FILE",
    "USER_WRITABLE_FIELDS",
    "YAML_SECTION",
    "BackgroundExtractionSection",
    "BuiltinSection",
    "EffectiveConfig",
    "FieldSource",
    "HindsightSection",
    "InjectionSection",
    "MemoryConfig",
    "MemoryConfigStore",
    "SecuritySection",
    "load_yaml_settings",
]
