"""The answers of the ``/api/memory/v2`` routes (seed 000, section 11) as typed objects.

The library has no object for these (they describe the USER.md / MEMORY.md files and
the external provider as the gateway shows them), so they are pydantic models with the
fields of the server's response schemas; ``tests/client/test_vault_api.py`` keeps the two in
step. Fields a newer server adds are ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

#: The two memory files: ``user`` is USER.md, ``memory`` is MEMORY.md.
Target = Literal["user", "memory"]


class _Answer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class FileUsage(_Answer):
    """How full one memory file is: characters used of the limit, and its entries."""

    chars: int
    limit: int
    percent: int
    count: int


class ProviderStatus(_Answer):
    """The external memory provider as the gateway sees it for one (user, agent)."""

    provider: str
    connected: bool
    bank: str
    work_bank: str | None
    entries: int | None
    last_recall_hits: int | None
    error: str | None = None


class MemoryOverview(_Answer):
    """``GET /api/memory/v2``: both files, the provider's status, usage and times."""

    user_id: str
    agent_id: str | None
    user_md: str
    memory_md: str
    external: ProviderStatus
    #: Seed 000 §11.1's name for ``external`` (None from a gateway older than both).
    hindsight_status: ProviderStatus | None = None
    char_usage: dict[str, FileUsage]
    last_modified: dict[str, str | None]
    snapshot_taken_at: str | None


class MemoryEntries(_Answer):
    """A memory file after an edit: its entries, whether the edit changed it, usage."""

    target: Target
    entries: list[str]
    changed: bool
    usage: FileUsage


class ConfigField(_Answer):
    """One setting: its value and the layer it comes from."""

    value: Any
    source: Literal["default", "yaml", "global", "user"]
    user_writable: bool


class MemoryConfig(_Answer):
    """``GET /api/memory/v2/config``: every setting of the user's memory config."""

    user_id: str
    fields: dict[str, ConfigField]


__all__ = [
    "ConfigField",
    "FileUsage",
    "MemoryConfig",
    "MemoryEntries",
    "MemoryOverview",
    "ProviderStatus",
    "Target",
]
