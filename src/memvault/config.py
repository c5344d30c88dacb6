"""Engine settings, and the one place that reads the environment.

``VaultConfig`` holds every knob with a documented default. ``load_config`` layers
defaults < environment (``MEMVAULT_*``) < explicit keyword overrides; nothing else
in the package looks at ``os.environ``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from .errors import ConfigError

DEFAULT_DB_NAME = "memvault.db"


class KeywordConfig(BaseModel):
    """BM25 column weights: title/description count more than body, extra context less."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    head_weight: float = Field(2.0, ge=0, description="weight of name + description")
    body_weight: float = Field(1.0, ge=0, description="weight of the content")
    extra_weight: float = Field(0.5, ge=0, description="weight of extra indexing context")
    max_query_terms: int = Field(64, ge=1, le=512, description="distinct terms used from a query")
    common_term_cutoff: int = Field(
        5000,
        ge=0,
        description="a query term found in more entries than this is dropped when the query "
        "has rarer terms (0 = never); bounds latency on large vaults",
    )
    indexed_metadata: tuple[str, ...] = Field(
        ("tags", "keywords", "speaker", "context"),
        description="metadata keys whose values are searchable at the extra weight",
    )


class VaultConfig(BaseModel):
    """Settings of one ``Vault``. All fields are keyword-only and validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path = Field(
        default_factory=lambda: Path("~/.memvault").expanduser(),
        description="data directory (MEMVAULT_HOME)",
    )
    db_path: Path | None = Field(None, description="SQLite file; default <home>/memvault.db")
    max_content_bytes: int = Field(64 * 1024, ge=16, le=16 * 1024 * 1024)
    max_metadata_bytes: int = Field(64 * 1024, ge=16, le=16 * 1024 * 1024)
    max_query_bytes: int = Field(64 * 1024, ge=16, le=16 * 1024 * 1024)
    busy_timeout_ms: int = Field(10_000, ge=0, description="how long a writer waits for a lock")
    synchronous: Literal["FULL", "NORMAL"] = Field(
        "FULL", description="SQLite fsync policy; FULL never loses a committed write"
    )
    keyword: KeywordConfig = Field(default_factory=KeywordConfig)

    @property
    def database(self) -> Path:
        return self.db_path if self.db_path is not None else self.home / DEFAULT_DB_NAME


_ENV_FIELDS: dict[str, str] = {
    "MEMVAULT_HOME": "home",
    "MEMVAULT_DB": "db_path",
    "MEMVAULT_MAX_CONTENT_BYTES": "max_content_bytes",
    "MEMVAULT_SYNCHRONOUS": "synchronous",
}


def env_settings(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``MEMVAULT_*`` variables that are set, as config field values."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for var, name in _ENV_FIELDS.items():
        raw = env.get(var)
        if raw:
            values[name] = Path(raw).expanduser() if name in ("home", "db_path") else raw
    return values


def load_config(environ: dict[str, str] | None = None, **overrides: Any) -> VaultConfig:
    """Defaults, then the environment, then ``overrides`` (None values are ignored)."""
    values = env_settings(environ)
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return VaultConfig(**values)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid memvault configuration: {problems}") from None


__all__ = ["KeywordConfig", "VaultConfig", "env_settings", "load_config"]
